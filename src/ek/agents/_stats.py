"""The statistics behind agent reliability: pass@k, pass^k, and intervals that hold at small n.

Pure functions over counts, standard library only. `pass_at_k` and
`pass_hat_k` are the unbiased per-task estimators; `wilson_interval`,
`newcombe_difference` and `difference_upper_bound` are the intervals the
regression gate reads; `bootstrap_ci` is the percentile bootstrap for
statistics with no usable closed form (a cost-per-success ratio).

>>> pass_hat_k(n=8, c=4, k=2)
0.21428571428571427
"""

from __future__ import annotations

import math
import numbers
import random
from bisect import bisect_right
from collections import Counter
from functools import lru_cache
from typing import Any, Callable, Optional, Sequence

from ek._util import type_name
from ek.agents._passk import exact_ratio, log_ratio

__all__ = [
    "bootstrap_ci",
    "difference_upper_bound",
    "newcombe_difference",
    "pass_at_k",
    "pass_hat_k",
    "wilson_interval",
]

_Z95 = 1.96  # the two-sided 95% normal quantile every agent interval uses
_EXACT_DRAWS = 500_000   # unit draws an exact ratio bootstrap may make
_MAX_GROUPS = 64
_TABLE_MAX_N = 512        # binomials up to this n draw from a cached CDF table


def pass_at_k(*, n: int, c: int, k: int) -> float:
    """Unbiased pass@k: the chance that at least one of k trials succeeds (higher is better).

    The estimator of the HumanEval paper, ``1 - C(n - c, k) / C(n, k)``, from
    ``n`` trials with ``c`` successes. It measures capability: right when one
    success is enough, e.g. candidates filtered by a verifier. The value is
    the correctly rounded closed form while ``min(c, k)`` factors make a
    small product; beyond that it is computed in log space in constant time
    (relative error about 1e-13), so any ``n`` answers at once.

    Raises:
        ValueError: ``n`` is 0, ``c`` is outside ``0..n``, or ``k`` is not
            in ``1..n`` (the estimator needs at least k trials).

    >>> round(pass_at_k(n=10, c=1, k=1), 3)
    0.1
    >>> pass_at_k(n=10, c=10, k=5)
    1.0
    """
    _check_nck("pass_at_k", n, c, k)
    return _pass_at_k(int(n), int(c), int(k))


def pass_hat_k(*, n: int, c: int, k: int) -> float:
    """Unbiased pass^k: the chance that all k trials succeed (higher is better).

    The tau-bench estimator ``C(c, k) / C(n, k)``; for a per-trial success
    probability p it tends to ``p ** k``. It measures reliability: the number
    that matters when the same request must work every time. Computed as
    `pass_at_k` is: exact for small runs, in constant time for any ``n``.

    Raises:
        ValueError: as `pass_at_k`.

    >>> pass_hat_k(n=8, c=8, k=8)
    1.0
    """
    _check_nck("pass_hat_k", n, c, k)
    return _pass_hat_k(int(n), int(c), int(k))


def wilson_interval(successes: float, n: float, *, z: float = _Z95) -> tuple:
    """Wilson score interval ``(lower, upper)`` for a proportion.

    Unlike the normal (Wald) interval it stays inside [0, 1] and keeps its
    coverage at small ``n`` and near 0 or 1, where agent success rates live.
    The bound at an observed 0 (or all successes) is exactly 0.0 (or 1.0).

    Raises:
        ValueError: ``n`` is not positive or ``successes`` is outside ``0..n``.

    >>> lo, hi = wilson_interval(0, 10)
    >>> lo == 0.0, round(hi, 3)
    (True, 0.278)
    """
    _check_proportion("wilson_interval", successes, n)
    _check_z("wilson_interval", z)
    return _wilson(successes, n, z)


def newcombe_difference(successes_a: float, n_a: float, successes_b: float, n_b: float, *,
                        z: float = _Z95) -> tuple:
    """Newcombe's score interval ``(lower, upper)`` for the difference ``p_a - p_b``.

    This answers "is the agent worse than its baseline?". Checking whether
    two 95% intervals overlap does not: non-overlap is roughly a 0.5% test,
    so it keeps false alarms low only by missing real drops (a 15-point fall
    on a 60-task suite goes unseen). Newcombe's method 10 combines the two
    Wilson intervals ``(l, u)`` instead::

        lower = (p_a - p_b) - sqrt((p_a - l_a)**2 + (u_b - p_b)**2)
        upper = (p_a - p_b) + sqrt((u_a - p_a)**2 + (p_b - l_b)**2)

    ``upper < 0`` means a ``p_a`` confidently below ``p_b``.

    >>> lo, hi = newcombe_difference(50, 100, 90, 100)
    >>> hi < 0
    True
    """
    _check_proportion("newcombe_difference (a)", successes_a, n_a)
    _check_proportion("newcombe_difference (b)", successes_b, n_b)
    _check_z("newcombe_difference", z)
    return _newcombe(successes_a, n_a, successes_b, n_b, z)


def difference_upper_bound(value_a: Optional[float], ci_a: Optional[Sequence[float]],
                           value_b: Optional[float], ci_b: Optional[Sequence[float]], *,
                           z: float = _Z95) -> Optional[float]:
    """Upper confidence bound of ``a - b`` for two estimates known through their intervals.

    The same square-and-add recovery of variance as `newcombe_difference`
    (the MOVER construction), for statistics that are not a single
    proportion, such as pass^k (a mean of per-task estimators):
    ``(a - b) + sqrt((hi_a - a)**2 + (b - lo_b)**2)``. It uses each
    interval's own side, so a skewed bootstrap interval is respected. ``z``
    is the normal quantile both intervals were built at; the bound is at
    the same level. Returns None when either estimate or interval is
    missing.

    >>> round(difference_upper_bound(0.5, (0.4, 0.6), 0.8, (0.7, 0.9)), 3)
    -0.159
    """
    _check_z("difference_upper_bound", z)
    if value_a is None or value_b is None or ci_a is None or ci_b is None:
        return None
    a, b = float(value_a), float(value_b)
    lo_a, hi_a = (float(v) for v in ci_a)
    lo_b, hi_b = (float(v) for v in ci_b)
    for name, (lo, v, hi) in (("a", (lo_a, a, hi_a)), ("b", (lo_b, b, hi_b))):
        if not all(math.isfinite(x) for x in (lo, v, hi)) or not lo <= v <= hi:
            raise ValueError(
                f"difference_upper_bound: estimate {name}={v!r} must be finite and inside its "
                f"interval ({lo!r}, {hi!r}); pass the interval computed for that estimate."
            )
    se_a, se_b = (hi_a - a) / z, (b - lo_b) / z
    return (a - b) + z * math.sqrt(se_a * se_a + se_b * se_b)


def bootstrap_ci(values: Sequence[Any], statistic: Callable[[list], float], *,
                 resamples: int = 2000, alpha: float = 0.05, seed: int = 0) -> tuple:
    """Percentile bootstrap interval ``(lower, upper)`` of ``statistic(values)``, fixed by ``seed``.

    ``values`` are resampled with replacement ``resamples`` times and the
    ``alpha / 2`` and ``1 - alpha / 2`` quantiles of the statistic are taken
    (linear interpolation). Meant for skewed, heavy-tailed statistics such as
    cost per success, where a normal interval means nothing. Resample the
    independent unit: for a k-trial suite that is the task, not the trial.

    Raises:
        ValueError: no values, ``resamples < 1``, ``alpha`` outside (0, 1),
            or a statistic that returns NaN.

    >>> lo, hi = bootstrap_ci([1.0] * 20, lambda v: sum(v) / len(v), resamples=50)
    >>> lo == hi == 1.0
    True
    """
    values = list(values)
    if not values:
        raise ValueError("bootstrap_ci() got no values; there is nothing to resample.")
    _check_bootstrap_settings(resamples, alpha)
    rng = random.Random(seed)
    n = len(values)
    stats = []
    for _ in range(resamples):
        s = float(statistic(rng.choices(values, k=n)))
        if math.isnan(s):
            raise ValueError(
                "bootstrap_ci(): the statistic returned NaN on a resample; make it return a "
                "number (or inf) for every non-empty sample."
            )
        stats.append(s)
    stats.sort()
    return _quantile(stats, alpha / 2), _quantile(stats, 1 - alpha / 2)


# --------------------------------------------------------------------------
# Private maths (inputs already checked)
# --------------------------------------------------------------------------


def _pass_at_k(n: int, c: int, k: int) -> float:
    exact = exact_ratio(n, c, k)
    if exact is not None:
        num, den = exact
        return (den - num) / den           # one correctly rounded division
    return -math.expm1(log_ratio(n, c, k))


def _pass_hat_k(n: int, c: int, k: int) -> float:
    exact = exact_ratio(n, n - c, k)
    if exact is not None:
        num, den = exact
        return num / den
    return math.exp(log_ratio(n, n - c, k))


def _wilson(s: float, n: float, z: float) -> tuple:
    p = s / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    lo = 0.0 if s <= 0 else max(0.0, centre - half)
    hi = 1.0 if s >= n else min(1.0, centre + half)
    return lo, hi


def _newcombe(sa: float, na: float, sb: float, nb: float, z: float) -> tuple:
    pa, pb = sa / na, sb / nb
    la, ua = _wilson(sa, na, z)
    lb, ub = _wilson(sb, nb, z)
    d = pa - pb
    return d - math.hypot(pa - la, ub - pb), d + math.hypot(ua - pa, pb - lb)


def _smallest_detectable_drop(rate: float, n_baseline: float, n_current: float, z: float = _Z95) -> Optional[float]:
    """The smallest fall from ``rate`` that a run of ``n_current`` units can show against a baseline at ``rate``.

    The drop ``d`` at which the upper bound of Newcombe's interval of
    ``(rate - d) - rate`` (a current proportion over ``n_current`` units, a
    baseline one over ``n_baseline``) reaches 0: any smaller observed drop
    is not significant at this suite size. The bound falls as ``d`` grows
    (the Wilson upper bound rises slower than the proportion), so the root
    is found by bisection. None when even a fall to 0 would not be
    significant: at this size no drop can be shown.
    """
    lb = _wilson(rate * n_baseline, n_baseline, z)[0]

    def upper(d: float) -> float:
        p = rate - d
        return -d + math.hypot(_wilson(p * n_current, n_current, z)[1] - p, rate - lb)

    if rate <= 0 or upper(rate) >= 0:
        return None
    low, high = 0.0, rate
    for _ in range(60):
        mid = (low + high) / 2
        low, high = (low, mid) if upper(mid) < 0 else (mid, high)
    return high


def _quantile(sorted_values: Sequence[float], q: float) -> float:
    """Linear-interpolation quantile of sorted values (numpy's default), inf-safe."""
    pos = q * (len(sorted_values) - 1)
    i = math.floor(pos)
    frac = pos - i
    lo = sorted_values[i]
    if frac == 0 or i + 1 >= len(sorted_values):
        return lo
    hi = sorted_values[i + 1]
    if lo == hi:
        return lo
    return lo + (hi - lo) * frac


def _bootstrap_mean_ci(values: Sequence[float], *, resamples: int = 2000, alpha: float = 0.05,
                       seed: int = 0) -> tuple:
    """Percentile bootstrap interval of a mean, drawn through the histogram of values.

    A resample of ``n`` values from a sample with few distinct values is a
    multinomial draw of counts over those values, so each resample costs one
    binomial draw per distinct value instead of ``n`` draws. Per-task pass^k
    values take at most ``trials + 1`` distinct values, which makes this
    exact bootstrap fast on a 10,000-task suite.
    """
    n = len(values)
    hist = sorted(Counter(values).items())
    if len(hist) == 1:
        v = float(hist[0][0])
        return v, v
    rng = random.Random(seed)
    points = [float(v) for v, _ in hist]
    sizes = [m for _, m in hist]
    means = []
    for _ in range(resamples):
        counts = _multinomial(rng, n, sizes)
        means.append(sum([v * m for v, m in zip(points, counts)]) / n)
    means.sort()
    return _quantile(means, alpha / 2), _quantile(means, 1 - alpha / 2)


def _ratio_bootstrap_ci(numerators: Sequence[float], denominators: Sequence[float], *,
                        resamples: int = 2000, alpha: float = 0.05, seed: int = 0) -> tuple:
    """Percentile bootstrap of ``sum(num) / sum(den)`` over paired units (inf when den sums to 0).

    Units are resampled exactly while ``n * resamples`` stays within
    `_EXACT_DRAWS`. Beyond that, if the denominators take few distinct values
    (successes per task: 0..k), a resample draws how many units of each
    denominator value it holds exactly (a multinomial), and the numerator
    sum of each such group from its normal limit (the group's mean and
    variance, clipped to the group's range): O(groups) work per resample
    instead of O(n), and indistinguishable at that size. Otherwise the
    number of resamples is cut to the budget (at least 200).
    """
    n = len(numerators)
    rng = random.Random(seed)
    groups: dict = {}
    if n * resamples > _EXACT_DRAWS:
        for x, d in zip(numerators, denominators):
            groups.setdefault(d, []).append(x)
        if len(groups) > _MAX_GROUPS:
            resamples, groups = max(200, _EXACT_DRAWS // n), {}
    ratios = []
    if groups:
        keys = sorted(groups)
        sizes = [len(groups[d]) for d in keys]
        stats = []
        for d in keys:
            xs = groups[d]
            mean = math.fsum(xs) / len(xs)
            sd = math.sqrt(math.fsum((x - mean) ** 2 for x in xs) / len(xs))
            stats.append((d, mean, sd, min(xs), max(xs)))
        for _ in range(resamples):
            num = den = 0.0
            for (d, mean, sd, lo, hi), m in zip(stats, _multinomial(rng, n, sizes)):
                if m:
                    part = m * mean + (math.sqrt(m) * sd * rng.gauss(0.0, 1.0) if sd else 0.0)
                    num += min(max(part, m * lo), m * hi)
                    den += m * d
            ratios.append(num / den if den else math.inf)
    else:
        idx_range = range(n)
        for _ in range(resamples):
            idx = rng.choices(idx_range, k=n)
            num = sum(map(numerators.__getitem__, idx))
            den = sum(map(denominators.__getitem__, idx))
            ratios.append(num / den if den else math.inf)
    ratios.sort()
    return _quantile(ratios, alpha / 2), _quantile(ratios, 1 - alpha / 2)


def _multinomial(rng: random.Random, n: int, sizes: Sequence[int]) -> list:
    """Counts of ``n`` draws with replacement from groups of the given sizes (sequential binomials)."""
    counts, left, mass_left = [], n, sum(sizes)
    for m in sizes[:-1]:
        draw = 0 if left == 0 else (_binomial(rng, left, m / mass_left) if m < mass_left else left)
        counts.append(draw)
        left -= draw
        mass_left -= m
    counts.append(left)
    return counts


def _binomial(rng: random.Random, n: int, p: float) -> int:
    """One Binomial(n, p) draw: a cached inverse-CDF table for small n, else waiting times or BTRS."""
    if p <= 0.0:
        return 0
    if p >= 1.0:
        return n
    flipped = p > 0.5
    if flipped:
        p = 1.0 - p
    if n <= _TABLE_MAX_N:
        x = min(bisect_right(_binomial_cdf(n, p), rng.random()), n)
    elif n * p < 10.0:
        x = _binomial_waiting(rng, n, p)
    else:
        x = _binomial_btrs(rng, n, p)
    return n - x if flipped else x


@lru_cache(maxsize=8192)
def _binomial_cdf(n: int, p: float) -> tuple:
    # Cumulative probabilities of 0..n-1 successes (p <= 0.5 and n small, so q**n cannot underflow).
    q = 1.0 - p
    term, total, cdf = q ** n, 0.0, []
    for k in range(n):
        total += term
        cdf.append(total)
        term *= (n - k) / (k + 1) * p / q
    return tuple(cdf)


def _binomial_waiting(rng: random.Random, n: int, p: float) -> int:
    # Count successes by jumping geometric gaps between them.
    log_q = math.log1p(-p)
    x, pos = 0, 0
    while True:
        pos += int(math.log(1.0 - rng.random()) / log_q) + 1
        if pos > n:
            return x
        x += 1


def _binomial_btrs(rng: random.Random, n: int, p: float) -> int:
    # Transformed rejection with squeeze (Hormann 1993), for n * p >= 10 and p <= 0.5.
    spq, a, b, c, v_r, alpha, lpq, m, h = _btrs_constants(n, p)
    rnd, lgamma, log = rng.random, math.lgamma, math.log
    while True:
        u = rnd() - 0.5
        v = rnd()
        us = 0.5 - abs(u)
        k = math.floor((2 * a / us + b) * u + c)
        if k < 0 or k > n:
            continue
        if us >= 0.07 and v <= v_r:
            return k
        v = log(v * alpha / (a / (us * us) + b))
        if v <= h - lgamma(k + 1) - lgamma(n - k + 1) + (k - m) * lpq:
            return k


@lru_cache(maxsize=1024)
def _btrs_constants(n: int, p: float) -> tuple:
    # A bootstrap draws from the same (n, p) over and over: set the constants up once.
    q = 1.0 - p
    spq = math.sqrt(n * p * q)
    b = 1.15 + 2.53 * spq
    a = -0.0873 + 0.0248 * b + 0.01 * p
    c = n * p + 0.5
    v_r = 0.92 - 4.2 / b
    alpha = (2.83 + 5.1 / b) * spq
    m = math.floor((n + 1) * p)
    return (spq, a, b, c, v_r, alpha, math.log(p / q), m,
            math.lgamma(m + 1) + math.lgamma(n - m + 1))


# --------------------------------------------------------------------------
# Checks (used once, at the public entry points)
# --------------------------------------------------------------------------


def _check_int(func: str, name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{func}() {name} must be a whole number, got {value!r} ({type_name(value)}).")


def _check_nck(func: str, n: Any, c: Any, k: Any) -> None:
    for name, value in (("n", n), ("c", c), ("k", k)):
        _check_int(func, name, value)
    if n <= 0:
        raise ValueError(
            f"{func}() got n={n} trials; the estimate needs at least one trial. "
            "Run the task (k trials or more) before estimating."
        )
    if not 0 <= c <= n:
        raise ValueError(f"{func}() got c={c} successes out of n={n} trials; c must be in 0..n.")
    if k < 1:
        raise ValueError(f"{func}() got k={k}; k counts trials and must be at least 1.")
    if k > n:
        raise ValueError(
            f"{func}() got k={k}, larger than the n={n} trials run; the unbiased estimator "
            f"needs n >= k. Run at least {k} trials per task or lower k."
        )


def _check_proportion(func: str, successes: Any, n: Any) -> None:
    for name, value in (("successes", successes), ("n", n)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise TypeError(f"{func}: {name} must be a finite number, got {value!r}.")
    if n <= 0:
        raise ValueError(
            f"{func}: n={n} trials; an interval needs at least one trial. "
            "An empty run has no success rate."
        )
    if not 0 <= successes <= n:
        raise ValueError(f"{func}: {successes} successes out of {n} trials; successes must be in 0..n.")


def _check_z(func: str, z: Any) -> None:
    if isinstance(z, bool) or not isinstance(z, (int, float)) or not math.isfinite(z) or z <= 0:
        raise ValueError(f"{func}: z must be a positive normal quantile (1.96 for 95%), got {z!r}.")


def _check_bootstrap_settings(resamples: Any, alpha: Any) -> None:
    if isinstance(resamples, bool) or not isinstance(resamples, numbers.Integral) or resamples < 1:
        raise ValueError(f"bootstrap_ci(): resamples must be a whole number >= 1, got {resamples!r}.")
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 < alpha < 1:
        raise ValueError(
            f"bootstrap_ci(): alpha must be in (0, 1), got {alpha!r}; 0.05 gives a 95% interval."
        )
