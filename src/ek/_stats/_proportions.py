"""Score intervals of proportions: Wilson for one, Newcombe (method 10) for a difference, and MOVER bounds.

Inputs are checked by the callers (`ek.agents` checks them at its public
functions); these are the formulas.

>>> lo, hi = wilson(0, 10, Z95)
>>> lo, round(hi, 3)
(0.0, 0.278)
"""

from __future__ import annotations

import math

__all__ = ["Z95", "mover_upper", "newcombe", "smallest_detectable_drop", "wilson"]

Z95 = 1.96
"""The two-sided 95% normal quantile the agent intervals are built at."""


def wilson(successes: float, n: float, z: float) -> tuple[float, float]:
    """Wilson's score interval of ``successes / n`` (``n > 0``); exactly 0.0 (1.0) at an observed 0 (n)."""
    p = successes / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    lo = 0.0 if successes <= 0 else max(0.0, centre - half)
    hi = 1.0 if successes >= n else min(1.0, centre + half)
    return lo, hi


def newcombe(sa: float, na: float, sb: float, nb: float, z: float) -> tuple[float, float]:
    """Newcombe's interval of ``sa / na - sb / nb`` from the two Wilson intervals (method 10)."""
    pa, pb = sa / na, sb / nb
    la, ua = wilson(sa, na, z)
    lb, ub = wilson(sb, nb, z)
    d = pa - pb
    return d - math.hypot(pa - la, ub - pb), d + math.hypot(ua - pa, pb - lb)


def mover_upper(a: float, hi_a: float, b: float, lo_b: float, z: float) -> float:
    """Upper bound of ``a - b`` from the upper side of ``a``'s interval and the lower side of ``b``'s."""
    se_a, se_b = (hi_a - a) / z, (b - lo_b) / z
    return (a - b) + z * math.sqrt(se_a * se_a + se_b * se_b)


def smallest_detectable_drop(rate: float, n_baseline: float, n_current: float, z: float = Z95) -> float | None:
    """The smallest fall from ``rate`` that a run of ``n_current`` units can show against a baseline at ``rate``.

    The drop ``d`` at which the upper bound of Newcombe's interval of
    ``(rate - d) - rate`` (a current proportion over ``n_current`` units, a
    baseline one over ``n_baseline``) reaches 0: any smaller observed drop
    is not significant at this suite size. The bound falls as ``d`` grows
    (the Wilson upper bound rises slower than the proportion), so the root
    is found by bisection. None when even a fall to 0 would not be
    significant: at this size no drop can be shown.
    """
    lb = wilson(rate * n_baseline, n_baseline, z)[0]

    def upper(d: float) -> float:
        p = rate - d
        return -d + math.hypot(wilson(p * n_current, n_current, z)[1] - p, rate - lb)

    if rate <= 0 or upper(rate) >= 0:
        return None
    low, high = 0.0, rate
    for _ in range(60):
        mid = (low + high) / 2
        low, high = (low, mid) if upper(mid) < 0 else (mid, high)
    return high
