"""The statistics behind agent reliability: pass@k, pass^k, and intervals that hold at small n.

Pure functions over counts, standard library only. `pass_at_k` and
`pass_hat_k` are the unbiased per-task estimators; `wilson_interval`,
`newcombe_difference` and `difference_upper_bound` are the intervals the
regression gate reads; `bootstrap_ci` is the percentile bootstrap for
statistics with no usable closed form (a cost-per-success ratio). Their
formulas are `ek._stats`' (the statistics core every part of ek reads);
this module checks the inputs and documents the choices.

>>> pass_hat_k(n=8, c=4, k=2)
0.21428571428571427
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

from ek._stats import Z95, bootstrap, mover_upper, newcombe, wilson
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

_U = TypeVar("_U")


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


def wilson_interval(successes: float, n: float, *, z: float = Z95) -> tuple[float, float]:
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
    return wilson(successes, n, z)


def newcombe_difference(
    successes_a: float, n_a: float, successes_b: float, n_b: float, *, z: float = Z95
) -> tuple[float, float]:
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
    return newcombe(successes_a, n_a, successes_b, n_b, z)


def difference_upper_bound(
    value_a: float | None,
    ci_a: Sequence[float] | None,
    value_b: float | None,
    ci_b: Sequence[float] | None,
    *,
    z: float = Z95,
) -> float | None:
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
    return mover_upper(a, hi_a, b, lo_b, z)


def bootstrap_ci(
    values: Iterable[_U],
    statistic: Callable[[list[_U]], float],
    *,
    resamples: int = 2000,
    alpha: float = 0.05,
    seed: int = 0,
) -> tuple[float, float]:
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
    units = list(values)
    if not units:
        raise ValueError("bootstrap_ci() got no values; there is nothing to resample.")
    _check_bootstrap_settings(resamples, alpha)
    return bootstrap(units, statistic, resamples=resamples, alpha=alpha, seed=seed)


# --------------------------------------------------------------------------
# Private maths (inputs already checked)
# --------------------------------------------------------------------------


def _pass_at_k(n: int, c: int, k: int) -> float:
    exact = exact_ratio(n, c, k)
    if exact is not None:
        num, den = exact
        return (den - num) / den  # one correctly rounded division
    return -math.expm1(log_ratio(n, c, k))


def _pass_hat_k(n: int, c: int, k: int) -> float:
    exact = exact_ratio(n, n - c, k)
    if exact is not None:
        num, den = exact
        return num / den
    return math.exp(log_ratio(n, n - c, k))


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
            f"{func}: n={n} trials; an interval needs at least one trial. An empty run has no success rate."
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
        raise ValueError(f"bootstrap_ci(): alpha must be in (0, 1), got {alpha!r}; 0.05 gives a 95% interval.")
