"""A report's interval with its verdict: `ek.base.Bounds` says whether the interval can be trusted, and why not.

A corpus figure over documents of very unequal size rests on its largest
documents: when a few hold most of the reference length, the percentile
bootstrap covers far less than it says (80% at nominal 90% for Pareto
lengths, n = 200; scripts/coverage_grid.py). Two things follow here.

* **The weights.** Every figure ek resamples is a ratio of two linear forms
  of its summed statistics, ``A(T) / B(T)`` (CER: edits over reference
  length; micro-F1: ``2TP / (2TP + FP + FN)``; a mean: values over count).
  Item ``i`` enters it through ``a_i = A(s_i)`` and ``b_i = B(s_i)``, and
  ``b_i`` is its weight. They are read off the metric's ``compute`` alone:
  the two forms are fitted on a few dozen sums of items and checked on as
  many more; failing that, item by item, ``g(t) = f(T + t s_i)`` is the
  Möbius map ``(f + t α) / (1 + t β)`` with ``α = a_i / B``, ``β = b_i /
  B``, so ``g(±1/2)`` give both (an item whose own figure is the corpus
  figure leaves ``β`` at 0 / 0 and takes the mean weight of the others).
* **The verdict.** Kish's effective size of the group's weights says how
  many items the figure really rests on; Hill's tail index of its largest
  tenth says whether unseen giants can hold most of the corpus. Under
  `MIN_EFFECTIVE` or `MIN_TAIL` the interval is not trusted
  (``reliable=False``, with the reason in numbers).

The interval is the percentile bootstrap's (`METHODS` ``"percentile"``),
the one a summary and a Dask report give too. Measured on the grid beside
it: the percentile widened about the estimate by ``t_{n_eff-1} / z``
(``"widened"``) and the bootstrap-t over the linearised ratio's standard
error in every replicate (``"student"``, which covers best at n = 50 but
needs per-item moment sums that summaries do not keep).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ek._stats import MIN_ITEMS, Concentration, interval_of, normal_quantile, student_quantile
from ek.base import Bounds

__all__ = [
    "METHODS",
    "MIN_EFFECTIVE",
    "MIN_TAIL",
    "judged",
    "linear_coefficients",
    "measured",
    "student_interval",
    "student_moments",
    "student_parts",
    "student_quantile",
    "tail_index",
    "too_few",
    "widened",
]

MIN_EFFECTIVE = 30.0
"""Fewest effective items (Kish) an interval is trusted on; chosen on scripts/coverage_grid.py."""

MIN_TAIL = 2.0
"""Smallest tail index (Hill, over the largest tenth of the weights) an interval is trusted on: below 2 the
weights' variance is infinite (Pareto α = 1.2 in the grid); chosen on scripts/coverage_grid.py."""

METHODS = ("percentile", "widened", "student")
"""The candidate intervals measured on the grid; `ek._bootstrap.bounds` gives ``"percentile"``."""

_PROBE = 0.5  # g(±1/2): T ± s_i / 2 keeps every total positive even for an item holding most of T
_NAMES = {"ref_len": "reference length", "ref_words": "reference length"}


def judged(weights: Any, *, noun: str, of: str) -> tuple[float, str | None]:
    """Kish's effective size of ``weights``, and why an interval on them is not trusted (None: it is).

    Not trusted: an effective size under `MIN_EFFECTIVE`, or weights whose
    largest tenth fall off like a power law of index under `MIN_TAIL` (their
    variance is infinite, so an audit that missed the giants looks fine).
    """
    import numpy as np

    x = -np.sort(-np.asarray(weights, dtype=np.float64))  # largest first, sorted once for both diagnostics
    if len(x) and (x[-1] < 0 or np.isnan(x).any()):
        raise ValueError("a weight must be a non-negative number")
    c = _concentration(x)
    if c.effective_n < MIN_EFFECTIVE:
        return c.effective_n, c.why(noun, of)
    top, index = _hill(x)
    if index < MIN_TAIL:
        return c.effective_n, (
            f"the {of} of the largest {top} of {c.n} {noun} falls off like a power law of index "
            f"{index:.1f} (under {MIN_TAIL:g}: a few unseen {noun} can hold most of it): effective n ≈ "
            f"{c.effective_n:.0f} is not to be trusted"
        )
    return c.effective_n, None


def tail_index(weights: Any) -> tuple[int, float]:
    """Hill's estimate of the tail index over the largest ``k = max(10, n / 10)`` positive weights: ``(k, index)``.

    ``inf`` when they are all equal (no tail) or too few (fewer than ``k + 1``).

    >>> tail_index([1.0] * 50)
    (10, inf)
    >>> k, index = tail_index([50 + i / 2 for i in range(100)])  # lengths 50 to 100: no tail to speak of
    >>> k, index > 2
    (10, True)
    """
    import numpy as np

    return _hill(-np.sort(-np.asarray(weights, dtype=np.float64)))


def _concentration(x: Any) -> Concentration:
    """`ek._stats.concentration` of weights ``x`` sorted largest first, in numpy."""
    import numpy as np

    total, squares = float(x.sum()), float((x * x).sum())
    if total <= 0:
        return Concentration(len(x), 0.0, 0, 0.0)
    held = np.cumsum(x)
    k = int(np.searchsorted(held, total / 2)) + 1  # the fewest largest weights holding half the total
    k = min(k, len(x))
    return Concentration(len(x), total * total / squares, k, float(held[k - 1]) / total)


def _hill(x: Any) -> tuple[int, float]:
    """`tail_index` of weights ``x`` sorted largest first."""
    import numpy as np

    x = x[x > 0]
    k = max(10, len(x) // 10)
    if len(x) <= k:
        return k, math.inf
    spread = float(np.log(x[:k] / x[k]).mean())
    return k, (math.inf if spread <= 0 else 1 / spread)


def too_few(n: int, level: float, effective_n: float) -> Bounds:
    """The NaN `Bounds` of a group of fewer than `MIN_ITEMS` items."""
    return Bounds(math.nan, math.nan, level, False, f"{n} items: an interval needs {MIN_ITEMS}+", effective_n)


def measured(
    values: Any,
    estimate: float,
    level: float,
    judgement: tuple[float, str | None],
    *,
    method: str = "percentile",
    student: Callable[[], tuple[Any, Any, float]] | None = None,
) -> Bounds:
    """The `Bounds` of replicate ``values`` about ``estimate`` by ``method``, with ``judgement`` (`judged`).

    ``student`` gives the replicate figures, their standard errors and the
    estimate's, for ``method="student"``.
    """
    if method not in METHODS:
        raise ValueError(f"bounds() method must be one of {METHODS}, got {method!r}.")
    size, why = judgement
    low, high = interval_of(values, level)
    if method == "widened" and math.isfinite(estimate):
        low, high = widened(estimate, low, high, level, size)
    elif method == "student":
        assert student is not None, "the student method needs the replicates' standard errors"
        low, high = student_interval(*student(), estimate, level)
    return Bounds(float(low), float(high), level, why is None, why, size)


def linear_coefficients(table: Any, names: tuple[Any, ...], compute: Callable[..., float], aggregation: str) -> Any:
    """``(n, 2)``: each item's ``(a_i, b_i)``, scaled by ``1 / B(T)`` for a metric read off ``compute``.

    The ratio's two linear forms are fitted once from a few dozen calls of
    ``compute`` (and checked on as many more); a ``compute`` that is no such
    ratio, or that the probes cannot pin down, is probed item by item.
    """
    import numpy as np

    table = table.astype(np.float64)
    if aggregation in ("sum_ratio", "mean") and table.shape[1] == 2:  # numerator and denominator (or count)
        return table / max(float(table[:, 1].sum()), 1e-300)
    totals = table.sum(axis=0)

    def f(point: Any) -> float:
        try:
            return float(compute(dict(zip(names, point.tolist()))))
        except (ZeroDivisionError, ValueError):
            return math.nan

    forms = _fitted_forms(table, totals, f)
    if forms is not None:
        p, q = forms
        return np.stack([table @ p, np.abs(table @ q)], axis=1) / float(totals @ q)
    return _probed(table, totals, f)


def _fitted_forms(table: Any, totals: Any, f: Callable[[Any], float]) -> tuple[Any, Any] | None:
    """``(p, q)`` with ``f(x) = p·x / q·x`` on sums of items, ``q·T = 1``; None when no such pair fits."""
    import numpy as np

    k = table.shape[1]
    rows = np.flatnonzero(table.any(axis=1))
    if len(rows) < 3 * k:
        return None
    # Sums of three items far apart in the order: points spread over the statistics' space, so the
    # fit is well conditioned (probes near T are not); a figure is unchanged by scaling its totals.
    m = min(len(rows) // 3, 16 * k)
    picks = rows[np.linspace(0, len(rows) - 1, 3 * m).astype(np.int64)].reshape(3, m)
    points = table[picks].sum(axis=0)
    points = np.concatenate([[totals], points]) / np.linalg.norm(np.concatenate([[totals], points]), axis=1)[:, None]
    values = np.array([f(x) for x in points])
    keep = np.isfinite(values)
    fit, check = points[keep][::2], points[keep][1::2]
    if len(fit) < 2 * k or len(check) < 2 * k:
        return None
    system = np.concatenate([fit, -values[keep][::2, None] * fit], axis=1)
    _, singular, vt = np.linalg.svd(system)
    if singular[-2] <= 1e-9 * singular[0]:  # more than one ratio fits: the probes cannot tell (a constant figure)
        return None
    p, q = vt[-1, :k], vt[-1, k:]
    scale = float(totals @ q)
    if not abs(scale) > 0:
        return None
    p, q = p / scale, q / scale
    predicted = (check @ p) / (check @ q)
    if not np.allclose(predicted, values[keep][1::2], rtol=1e-9, atol=1e-12):
        return None
    return p, q


def _probed(table: Any, totals: Any, f: Callable[[Any], float]) -> Any:
    """The coefficients of every item from ``f(T ± s_i / 2)`` (the Möbius map of the module doc)."""
    import numpy as np

    centre = f(totals)
    out = np.full((len(table), 2), np.nan)
    for i, row in enumerate(table):
        if not row.any():
            out[i] = 0.0
            continue
        up, down = f(totals + _PROBE * row), f(totals - _PROBE * row)
        spread = up - down
        if math.isfinite(spread) and abs(spread) > 1e-12 * max(abs(centre), 1e-300):
            beta = (2 * centre - up - down) / (_PROBE * spread)
            out[i] = ((up * (1 + _PROBE * beta) - centre) / _PROBE, abs(beta))
    missing = np.isnan(out[:, 1])
    if missing.any():  # items whose own figure is the corpus figure: the weight is undetermined
        known = out[~missing, 1]
        out[missing, 1] = known.mean() if known.sum() > 0 else 1.0 / len(table)
        out[missing, 0] = centre * out[missing, 1]
    return out


def student_moments(coefficients: Any) -> Any:
    """``(n, 5)``: ``a, b, a², ab, b²`` of every item, whose replicate sums give each replicate's standard error."""
    import numpy as np

    a, b = coefficients[:, 0], coefficients[:, 1]
    return np.stack([a, b, a * a, a * b, b * b], axis=1)


def student_parts(sums: Any, moments: Any) -> tuple[Any, Any, float]:
    """Replicate figures and standard errors from replicate ``sums`` ``(B, 6)``, and the estimate's from ``moments``."""
    ok = sums[:, 1] > 0
    s = sums[ok]
    total = moments.sum(axis=0)
    return s[:, 0] / s[:, 1], _se(*(s[:, j] for j in range(5))), float(_se(*total))


def student_interval(ratio: Any, se: Any, se0: float, estimate: float, level: float) -> tuple[float, float]:
    """The bootstrap-t interval: ``estimate - t* se0`` at the replicate t's quantiles."""
    good = se > 0
    t = (ratio[good] - estimate) / se[good]
    if len(t) < 2 or not se0 > 0:
        return (estimate, estimate)
    lo_t, hi_t = interval_of(t.tolist(), level)
    return (estimate - hi_t * se0, estimate - lo_t * se0)


def widened(estimate: float, low: float, high: float, level: float, effective_n: float) -> tuple[float, float]:
    """``[low, high]`` stretched about ``estimate`` by ``t_{n_eff - 1}(q) / z(q)``, ``q = (1 + level) / 2``."""
    if not math.isfinite(effective_n) or effective_n <= 1:
        return (low, high)
    q = (1 + level) / 2
    c = student_quantile(q, effective_n - 1) / normal_quantile(q)
    return (estimate - (estimate - low) * c, estimate + (high - estimate) * c)


# ---------------------------------------------------------------------------


def _se(sa: Any, sb: Any, saa: Any, sab: Any, sbb: Any) -> Any:
    """The linearised standard error of ``Σa / Σb`` from the sums of ``a, b, a², ab, b²``."""
    import numpy as np

    r = sa / sb
    return np.sqrt(np.maximum(saa - 2 * r * sab + r * r * sbb, 0.0)) / sb
