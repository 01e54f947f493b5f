"""The fitting maths behind the calibrators, as pure functions.

* `platt_fit`: Platt scaling by Newton's method with a backtracking line
  search, on Platt's smoothed targets.
* `isotonic_fit`: pool-adjacent-violators after pooling tied scores, giving
  the same thresholds as scikit-learn's ``IsotonicRegression``.
* `temperature_fit`: golden-section search of the temperature minimising the
  negative log-likelihood.

Each takes clean inputs (validated by the caller) as numpy arrays when ``np``
is given and as lists otherwise; the two code paths compute the same thing.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Sequence
from types import ModuleType
from typing import Any

_RIDGE = 1e-12  # keeps the 2x2 Newton system solvable for constant scores
_ARMIJO = 1e-4
_MIN_STEP = 1e-10
_GRAD_TOL = 1e-10  # per-row gradient tolerance (scaled by n)
_STEP_TOL = 1e-13  # relative Newton step below which the fit has converged
_F_NOISE = 1e-13  # relative rounding allowance when comparing losses
_GOLDEN = (math.sqrt(5.0) - 1.0) / 2.0
_VECTOR_PASSES = 8  # vectorised merge passes before the exact stack pass


def sigmoid(z: float) -> float:
    """Logistic function without overflow."""
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


def softplus(x: float) -> float:
    """``log(1 + exp(x))`` without overflow."""
    return max(x, 0.0) + math.log1p(math.exp(-abs(x)))


def platt_targets(n_pos: int, n_neg: int) -> tuple[float, float]:
    """Platt's smoothed targets ``((N+ + 1) / (N+ + 2), 1 / (N- + 2))``."""
    return (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0)


# --------------------------------------------------------------------------
# Platt
# --------------------------------------------------------------------------


def platt_fit(s: Any, y: Any, *, max_iter: int, np: ModuleType | None = None) -> tuple[float, float]:
    """``(a, b)`` maximising the likelihood of the smoothed targets under ``sigmoid(a*s + b)``."""
    n_pos = int(sum(1 for v in y if v)) if np is None else int(y.sum())
    n_neg = len(y) - n_pos
    hi, lo = platt_targets(n_pos, n_neg)
    a, b = 0.0, math.log((n_pos + 1.0) / (n_neg + 1.0))
    if np is not None:
        t = np.where(y, hi, lo)
        step = _platt_np(s, t, np)
    else:
        t = [hi if v else lo for v in y]
        step = _platt_py(s, t)
    f, g, h = step(a, b)
    tol = _GRAD_TOL * max(len(t), 1)
    for _ in range(max_iter):
        if abs(g[0]) < tol and abs(g[1]) < tol:
            break
        haa, hab, hbb = h[0] + _RIDGE, h[1], h[2] + _RIDGE
        det = haa * hbb - hab * hab
        da = -(hbb * g[0] - hab * g[1]) / det
        db = -(haa * g[1] - hab * g[0]) / det
        if abs(da) <= _STEP_TOL * (1.0 + abs(a)) and abs(db) <= _STEP_TOL * (1.0 + abs(b)):
            break  # converged to rounding precision
        slope = g[0] * da + g[1] * db
        noise = _F_NOISE * max(1.0, abs(f))  # f is flat to rounding near the optimum
        rate = 1.0
        while rate >= _MIN_STEP:
            na, nb = a + rate * da, b + rate * db
            nf, ng, nh = step(na, nb)
            if nf <= f + _ARMIJO * rate * slope + noise:
                break
            rate /= 2.0
        else:
            break  # no further decrease possible: at the optimum up to rounding
        a, b, f, g, h = na, nb, nf, ng, nh
    return a, b


def _platt_np(s: Any, t: Any, np: ModuleType) -> Any:
    # Every pass writes into buffers allocated once per fit: fresh 200k-row
    # temporaries cost more in page faults than the arithmetic does. The
    # operations (and so the bits) are the same as the plain expressions
    # noted beside them.
    n = len(s)
    z, e, u, v = (np.empty(n) for _ in range(4))
    one_minus_t = 1.0 - t
    nonneg = np.empty(n, dtype=bool)

    def step(a: float, b: float) -> tuple[float, tuple[float, float], tuple[float, float, float]]:
        np.add(np.multiply(s, a, out=z), b, out=z)  # z = a*s + b
        np.exp(np.negative(np.abs(z, out=e), out=e), out=e)  # e = exp(-|z|)
        # loss = t*softplus(-z) + (1-t)*softplus(z) = softplus(-z) + (1-t)*z
        np.add(np.log1p(e, out=u), np.maximum(np.negative(z, out=v), 0.0, out=v), out=u)
        f = float(np.add(u, np.multiply(one_minus_t, z, out=v), out=u).sum())
        inv = np.divide(1.0, np.add(e, 1.0, out=u), out=u)
        p = np.multiply(e, inv, out=v)  # p = where(z >= 0, inv, e*inv)
        np.copyto(p, inv, where=np.greater_equal(z, 0.0, out=nonneg))
        r = np.subtract(p, t, out=z)  # z is spent
        w = np.multiply(p, np.subtract(1.0, p, out=u), out=u)
        ga, gb = float(np.multiply(r, s, out=e).sum()), float(r.sum())
        ws = np.multiply(w, s, out=e)
        hbb, hab = float(w.sum()), float(ws.sum())
        haa = float(np.multiply(ws, s, out=ws).sum())
        return f, (ga, gb), (haa, hab, hbb)

    return step


def _platt_py(s: Sequence[float], t: Sequence[float]) -> Any:
    def step(a: float, b: float) -> tuple[float, tuple[float, float], tuple[float, float, float]]:
        f = ga = gb = haa = hab = hbb = 0.0
        for si, ti in zip(s, t):
            z = a * si + b
            f += softplus(-z) + (1.0 - ti) * z
            p = sigmoid(z)
            r = p - ti
            w = p * (1.0 - p)
            ga += r * si
            gb += r
            haa += w * si * si
            hab += w * si
            hbb += w
        return f, (ga, gb), (haa, hab, hbb)

    return step


def platt_predict(s: Any, a: float, b: float, *, np: ModuleType | None = None) -> Any:
    """``sigmoid(a * s + b)`` for a float, or elementwise for an array."""
    if np is None:
        return sigmoid(a * s + b)
    z = a * s + b
    if not isinstance(z, np.ndarray):  # a 0-d input gives a numpy scalar
        return np.exp(-np.logaddexp(0.0, -z))
    # in place: the same bits as exp(-logaddexp(0, -z)) without two temporaries
    np.negative(z, out=z)
    return np.exp(np.negative(np.logaddexp(0.0, z, out=z), out=z), out=z)


# --------------------------------------------------------------------------
# isotonic (pool adjacent violators)
# --------------------------------------------------------------------------


def isotonic_fit(x: Any, y: Any, *, np: ModuleType | None = None) -> tuple[list[float], list[float]]:
    """Thresholds ``(xs, ys)`` of the non-decreasing least-squares fit of ``y`` on ``x``.

    Tied ``x`` are pooled first (their mean ``y``, weighted by count); then
    adjacent blocks whose means do not increase are merged until the block
    means rise strictly. Only the first and last point of each block are
    kept, since linear interpolation between them reproduces the fit.
    """
    if np is not None:
        ux, v, w, start = _pool_ties_np(x, y, np)
        v, w, start = _merge_runs_np(v, w, start, np)
        v, w, start = _stack_pav(v.tolist(), w.tolist(), start.tolist())
        ux = ux.tolist()
    else:
        ux, v, w, start = _pool_ties_py(x, y)
        v, w, start = _stack_pav(v, w, start)
    xs, ys = [], []
    ends = start[1:] + [len(ux)]
    for value, lo, hi in zip(v, start, ends):
        xs.append(ux[lo])
        ys.append(value)
        if hi - lo > 1:
            xs.append(ux[hi - 1])
            ys.append(value)
    return xs, ys


def _pool_ties_np(x: Any, y: Any, np: ModuleType) -> tuple[Any, Any, Any, Any]:
    order = np.argsort(x)  # ties are pooled whole, so the sort need not be stable
    xs, ys = x[order], y[order].astype(float)
    first = np.ones(len(xs), dtype=bool)
    first[1:] = xs[1:] != xs[:-1]
    idx = np.flatnonzero(first)
    w = np.diff(np.append(idx, len(xs))).astype(float)
    v = np.add.reduceat(ys, idx) / w
    return xs[idx], v, w, np.arange(len(idx))


def _merge_runs_np(v: Any, w: Any, start: Any, np: ModuleType) -> tuple[Any, Any, Any]:
    """Merge every maximal non-increasing run of blocks, a few vectorised passes.

    Pooling a whole run of adjacent blocks whose means do not increase is a
    sequence of legal PAV steps, so the exact stack pass that follows
    finishes the same unique solution on far fewer blocks.
    """
    for _ in range(_VECTOR_PASSES):
        if len(v) < 2:
            break
        down = v[1:] <= v[:-1]
        if not down.any():
            break
        new_block = np.ones(len(v), dtype=bool)
        new_block[1:] = ~down
        label = np.cumsum(new_block) - 1
        wv = np.bincount(label, weights=v * w)
        w = np.bincount(label, weights=w)
        v = wv / w
        start = start[new_block]
    return v, w, start


def _pool_ties_py(x: Sequence[float], y: Sequence[bool]) -> tuple[list[float], list[float], list[float], list[int]]:
    order = sorted(range(len(x)), key=x.__getitem__)
    ux: list[float] = []
    v: list[float] = []
    w: list[float] = []
    for i in order:
        xi = x[i]
        if ux and ux[-1] == xi:
            v[-1] += float(y[i])
            w[-1] += 1.0
        else:
            ux.append(xi)
            v.append(float(y[i]))
            w.append(1.0)
    v = [s / c for s, c in zip(v, w)]
    return ux, v, w, list(range(len(ux)))


def _stack_pav(v: list[float], w: list[float], start: list[int]) -> tuple[list[float], list[float], list[int]]:
    """Exact PAV with a stack: pool a block into its predecessor while it is not larger."""
    sv: list[float] = []
    sw: list[float] = []
    ss: list[int] = []
    for value, weight, first in zip(v, w, start):
        while sv and sv[-1] >= value:
            pw = sw.pop()
            total = pw + weight
            value = (sv.pop() * pw + value * weight) / total
            weight = total
            first = ss.pop()
        sv.append(value)
        sw.append(weight)
        ss.append(first)
    return sv, sw, ss


def interp(x: Any, xs: Sequence[float], ys: Sequence[float], *, np: ModuleType | None = None) -> Any:
    """Linear interpolation through ``(xs, ys)`` (increasing ``xs``), constant beyond the ends."""
    if np is not None:
        values = np.asarray(x)
        if values.ndim != 1 or values.dtype != np.float64 or len(values) < _SORTED_FROM or len(xs) < _SORTED_POINTS:
            return np.interp(x, xs, ys)
        return _interp_sorted(values, np.asarray(xs, dtype=float), np.asarray(ys, dtype=float), np)
    if x <= xs[0]:
        return float(ys[0])
    if x >= xs[-1]:
        return float(ys[-1])
    j = bisect_right(xs, x)
    x0, x1, y0, y1 = xs[j - 1], xs[j], ys[j - 1], ys[j]
    return y0 + (y1 - y0) * (x - x0) / (x1 - x0)


# np.interp looks for each value's interval starting from the previous value's: in sorted order the
# search ends at once, in random order it is a whole binary search with unpredictable branches. Sorting
# blocks of values that fit in cache first is 3x as fast at 200,000 values over 300 points (15 -> 4.6 ms),
# and slower below these sizes (a short search costs less than the sort). Each value's interval is the
# same either way (xs increase strictly), so the results are the same to the bit.
_SORTED_FROM, _SORTED_POINTS, _SORTED_BLOCK = 2048, 32, 4096


def _interp_sorted(values: Any, xp: Any, fp: Any, np: ModuleType) -> Any:
    out = np.empty_like(values)
    for start in range(0, len(values), _SORTED_BLOCK):
        block = values[start : start + _SORTED_BLOCK]
        order = np.argsort(block)
        out[start : start + _SORTED_BLOCK][order] = np.interp(block[order], xp, fp)
    return out


# --------------------------------------------------------------------------
# temperature
# --------------------------------------------------------------------------


def temperature_fit(
    logits: Any, y: Any, *, t_min: float, t_max: float, max_iter: int, np: ModuleType | None = None
) -> float:
    """The ``T`` in ``[t_min, t_max]`` minimising the NLL of ``sigmoid(logit / T)``."""
    if np is not None:
        yy = y.astype(float)

        def nll(temp: float) -> float:
            z = logits / temp
            return float(np.sum(np.logaddexp(0.0, -z) + (1.0 - yy) * z))
    else:

        def nll(temp: float) -> float:
            return sum(softplus(-z / temp) + (0.0 if c else z / temp) for z, c in zip(logits, y))

    lo, hi = t_min, t_max
    c = hi - _GOLDEN * (hi - lo)
    d = lo + _GOLDEN * (hi - lo)
    fc, fd = nll(c), nll(d)
    for _ in range(max_iter):
        if fc <= fd:
            hi, d, fd = d, c, fc
            c = hi - _GOLDEN * (hi - lo)
            fc = nll(c)
        else:
            lo, c, fc = c, d, fd
            d = lo + _GOLDEN * (hi - lo)
            fd = nll(d)
    return (lo + hi) / 2.0
