"""Betting confidence sequences for the mean of a stream in [0, 1] (Waudby-Smith & Ramdas 2023): the monitor's bands.

Public through `ek.qe.monitor`. The bands describe the mean over all audits
so far; the alarms are the change detectors of `ek.qe.monitor._detect`
(before monitor format 2 they were these sequences leaving the promise). For a candidate mean ``m`` a gambler bets on
each new observation ``x_i`` with a stake ``λ_i`` fixed before seeing it;
the wealth after ``t`` rounds is

* ``K⁺_t(m) = Π (1 + λ_i (x_i - m))`` (betting that the mean is above ``m``),
* ``K⁻_t(m) = Π (1 - λ_i (x_i - m))`` (betting that it is below).

If the conditional mean of every ``x_i`` given the past is at most ``m``,
``K⁺(m)`` is a non-negative supermartingale, so by Ville's inequality it
ever reaches ``1 / a`` with probability at most ``a``, however often it is
looked at. The lower sequence is ``L_t = inf {m : K⁺_t(m) < 1/a}``, the
upper one ``U_t`` the same with ``K⁻``; each is valid at level ``a`` for
all ``t`` at once, and ``[L_t, U_t]`` at ``2a``.

Stakes: the predictable plug-in of the paper (its eq. 26-27, "PrPl"),
``λ_t = min(C, sqrt(2 log(1/a) / (σ̂²_{t-1} · t · log(1 + t))))`` with
``μ̂_t = (1/2 + Σ_{i<=t} x_i) / (t + 1)`` and
``σ̂²_t = (1/4 + Σ_{i<=t} (x_i - μ̂_i)²) / (t + 1)`` (``σ̂²_0 = 1/4``).
The truncation ``C = 3/4`` is one number for every ``m`` (the paper
truncates at ``c/m``; a fixed one keeps every factor at least ``1 - C > 0``
for all ``m`` in [0, 1]), which makes ``K⁺`` strictly decreasing and ``K⁻``
strictly increasing in ``m``: each bound is the one root of
``log K(m) = log(1/a)``, found by bisection, and "``L_t > m``" is exactly
"``K⁺_t(m) >= 1/a``". The stakes do not depend on
``m``, so the sequence is a pure function of the observations in order.

A mask leaves observations out without breaking the arrays' shape (the
simulation runs many streams of unequal length at once): a masked-out
position has no stake and does not advance ``t``. numpy is imported in each
function.

Incremental form (`Sequence`, what a monitor keeps): the stakes need only
running sums (``t``, ``Σ x``, the spread, the last variance). The wealth as
a function of ``m`` is carried by power sums: with ``c_i = λ_i / (1 + λ_i x_i)``,
``log(1 + λ_i (x_i - m)) = log(1 + λ_i x_i) + log(1 - c_i m)`` and
``log(1 - c m) = -Σ_k (c m)^k / k``. Since ``λ_i <= 3/4`` and ``x_i >= 0``,
``c_i m <= 3/4`` on [0, 1], so `TERMS` powers leave an error below
``0.75**100 / 100`` per observation. ``log K⁺_t(m)`` is then
``A - Σ_k P_k m^k / k`` with ``A = Σ log(1 + λ_i x_i)`` and
``P_k = Σ c_i^k``; ``K⁻`` is the same for ``1 - x`` at ``1 - m``. An
update costs its new observations times `TERMS`, whatever the history,
and the bounds equal `bounds` over the whole stream to about 1e-12.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["TERMS", "TRUNCATION", "Sequence", "bounds", "log_wealth", "stakes"]

TRUNCATION = 0.75
"""The largest stake ``C``: every wealth factor stays at least ``1 - C``."""

TERMS = 100
"""Powers kept of each side's ``c_i`` (see the module docstring)."""

_BISECTIONS = 60  # 2**-60: the bounds are exact to float precision


def stakes(x: Any, a: float, mask: Any = None) -> Any:
    """The predictable plug-in stakes ``λ_t`` of the stream ``x`` (last axis) for level ``a``; 0 where masked out."""
    import numpy as np

    x = np.asarray(x, dtype=np.float64)
    keep = np.ones(x.shape, dtype=bool) if mask is None else np.asarray(mask, dtype=bool)
    xs = np.where(keep, x, 0.0)
    t = np.cumsum(keep, axis=-1)  # observations so far, this one included
    mean = (0.5 + np.cumsum(xs, axis=-1)) / (t + 1)
    spread = np.cumsum(np.where(keep, (xs - mean) ** 2, 0.0), axis=-1)
    variance = (0.25 + spread) / (t + 1)
    before = np.concatenate([np.full(x.shape[:-1] + (1,), 0.25), variance[..., :-1]], axis=-1)
    with np.errstate(divide="ignore"):
        raw = np.sqrt(2.0 * math.log(1.0 / a) / (before * t * np.log1p(t)))
    return np.where(keep & (t > 0), np.minimum(TRUNCATION, raw), 0.0)


def log_wealth(x: Any, lam: Any, m: float, *, side: int) -> Any:
    """``log K⁺_t(m)`` (``side=+1``) or ``log K⁻_t(m)`` (``side=-1``) after each observation (last axis)."""
    import numpy as np

    return np.cumsum(np.log1p(side * np.asarray(lam) * (np.asarray(x, dtype=np.float64) - m)), axis=-1)


def bounds(x: Any, lam: Any, a: float) -> tuple[float, float]:
    """``(L_t, U_t)`` after the whole stream ``x`` with stakes ``lam``: each valid at level ``a``.

    ``(0, 1)`` before any observation.
    """
    import numpy as np

    x, lam = np.asarray(x, dtype=np.float64), np.asarray(lam, dtype=np.float64)
    target = math.log(1.0 / a)

    def total(m: float, side: int) -> float:
        return float(np.log1p(side * lam * (x - m)).sum())

    low = _root(lambda m: total(m, +1) - target, 0.0, 1.0)
    high = _root(lambda m: target - total(m, -1), 0.0, 1.0, upper=True)
    return low, high


class Sequence:
    """The betting sequence of one stream at level ``a``, extended batch by batch; see the module docstring."""

    def __init__(self, a: float) -> None:
        import numpy as np

        self.a, self.t, self.total, self.spread, self.variance = a, 0, 0.0, 0.0, 0.25
        self.sides = [np.zeros(TERMS + 1), np.zeros(TERMS + 1)]  # [A, P_1, ..., P_K] of K⁺ (x) and K⁻ (1 - x)

    def copy(self) -> Sequence:
        out = Sequence.__new__(Sequence)
        out.a, out.t, out.total, out.spread, out.variance = self.a, self.t, self.total, self.spread, self.variance
        out.sides = [side.copy() for side in self.sides]
        return out

    def extend(self, x: Any) -> None:
        """Take the observations ``x`` (in [0, 1], in arrival order)."""
        import numpy as np

        x = np.asarray(x, dtype=np.float64)
        if not len(x):
            return
        t = self.t + np.arange(1, len(x) + 1)
        mean = (0.5 + self.total + np.cumsum(x)) / (t + 1)
        spread = self.spread + np.cumsum((x - mean) ** 2)
        variance = (0.25 + spread) / (t + 1)
        before = np.concatenate([[self.variance], variance[:-1]])
        lam = np.minimum(TRUNCATION, np.sqrt(2.0 * math.log(1.0 / self.a) / (before * t * np.log1p(t))))
        powers = np.arange(1, TERMS + 1)
        for side, value in zip(self.sides, (x, 1.0 - x)):
            c = lam / (1.0 + lam * value)
            side[0] += float(np.log1p(lam * value).sum())
            side[1:] += (c[:, None] ** powers[None, :]).sum(axis=0)
        self.t, self.total, self.spread, self.variance = (
            int(t[-1]),
            float(self.total + x.sum()),
            float(spread[-1]),
            float(variance[-1]),
        )

    def bounds(self) -> tuple[float, float]:
        """``(L_t, U_t)`` now; ``(0, 1)`` before any observation."""
        if not self.t:
            return 0.0, 1.0
        import numpy as np

        target, powers = math.log(1.0 / self.a), np.arange(1, TERMS + 1)
        plus, minus = (side[1:] / powers for side in self.sides)

        def wealth(side: int, terms: Any, m: float) -> float:
            return float(self.sides[side][0] - terms @ np.power(m, powers))

        low = _root(lambda m: wealth(0, plus, m) - target, 0.0, 1.0)
        high = _root(lambda m: target - wealth(1, minus, 1.0 - m), 0.0, 1.0, upper=True)
        return low, high


def _root(f: Any, low: float, high: float, *, upper: bool = False) -> float:
    """The crossing of a decreasing ``f`` on [low, high]; ``low`` (``high`` for an upper bound) when there is none.

    For the lower bound ``f(m) = log K⁺(m) - log(1/a)``: ``m`` is excluded
    while ``f(m) >= 0``, so the bound is where ``f`` turns negative. For the
    upper bound ``f(m) = log(1/a) - log K⁻(m)``, excluded while ``f(m) <= 0``.
    """
    if not upper and f(low) < 0:
        return low
    if upper and f(high) > 0:
        return high
    for _ in range(_BISECTIONS):
        mid = 0.5 * (low + high)
        if f(mid) >= 0:
            low = mid
        else:
            high = mid
    return high if upper else low  # the side that is excluded: conservative by 2**-60
