"""Change detection that holds forever: an e-detector over a mixture of change times and stakes.

Public through `ek.qe.monitor`. The construction follows Shin, Ramdas and
Rinaldo ("E-detectors: a nonparametric framework for sequential change
detection", 2022), in its Shiryaev-Roberts form with a mixture over the
change time; written here in our own terms.

A stream of observations ``x`` in [0, 1] arrives in updates (a monitor's
updates: a window, late audits, or both). The null is that the
conditional mean of every observation, given everything before it, is at
most ``m`` (the risk alarm: the promised level) or exactly ``m`` (the
calibration alarm, ``m = 1/2`` for ``(p - correct + 1) / 2``). For a stake
``λ`` with ``1 + λ (x - m) > 0`` on [0, 1], the factor ``1 + λ (x - m)``
then has conditional mean at most 1 (``λ >= 0`` for the one-sided null,
either sign for the two-sided one).

*Components.* For a change at update ``j`` and a stake ``λ_k`` the
component is 1 before update ``j`` and the product of the factors of
every observation from update ``j`` on. Each is a non-negative
supermartingale under the null that starts at 1.

*Mixture.* ``M_t = Σ_k v_k Σ_j w_j (component j, k at t)`` with weights
``v_k`` (equal) over `stakes` and ``w_j = c / ((j + c - 1)(j + c))`` over
the change times, ``c = HORIZON``: they add up to 1, half of them spent
on the first ``c`` updates, and ``log(1 / w_j)`` grows only like
``2 log(j + c)``. ``M`` is again a non-negative supermartingale starting at
1, so by Ville's inequality a stream under the null ever reaches
``M_t >= 1 / a`` with probability at most ``a``: for the whole stream,
however long it runs and however often it is checked. That is the
guarantee of an alarm.

*Why it is fast after a late change.* The component that starts at the
change has seen no stable data, so it grows at the full rate of the
shifted stream; the cost of a late change is the ``log(1 / w_j)`` of its
weight, a few nats more after a year than after a month. A confidence
sequence for the mean of the whole stream must first win back the wealth
a long stable stretch cost it.

*Incremental.* The components of stake ``k`` over all change times sum
to ``S_t(k) = (S_{t-1}(k) + w_t) · Π (factors of update t)`` (kept as
logarithms), so an update costs its new observations times the number of
stakes, and ``M_t = Σ_k v_k S_t(k) + (1 - Σ_{j<=t} w_j)`` (the components
not started yet are still 1). Observations of one update are taken in the
order given (a monitor gives them in id order).

*Stakes.* For the risk alarm, the likelihood-ratio stakes of a Bernoulli
rate ``q`` against ``m``, ``λ = (q - m) / (m (1 - m))``, at ``q`` equal to
1.5, 2 and 3 times the level (`RISK_RATIOS`, ``q`` at most halfway to 1, so
every factor stays at least 1/2); for calibration ``±0.5, ±1, ±1.5``
(every factor at least 1/4). numpy is imported in each function.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = [
    "CALIBRATION_STAKES",
    "HORIZON",
    "RISK_RATIOS",
    "Detector",
    "log_evidence",
    "log_weight",
    "risk_stakes",
    "step",
    "unstarted",
]

HORIZON = 365
"""``c`` of the change-time weights: half of the budget is spent on the first ``c`` updates."""

RISK_RATIOS = (1.5, 2.0, 3.0)
"""The rates, as multiples of the promised level, whose likelihood ratios are the risk alarm's stakes."""

CALIBRATION_STAKES = (-1.5, -1.0, -0.5, 0.5, 1.0, 1.5)
"""The calibration alarm's stakes on ``(p - correct + 1) / 2 - 1/2`` (negative: underconfident)."""


def risk_stakes(level: float) -> tuple[float, ...]:
    """The stakes betting that the mean exceeds ``level``: likelihood ratios of `RISK_RATIOS` times it."""
    rates = sorted({min(level * r, (1.0 + level) / 2.0) for r in RISK_RATIOS})
    return tuple((q - level) / (level * (1.0 - level)) for q in rates)


def log_weight(t: int) -> float:
    """``log w_t``: the weight of a change at update ``t`` (1-based)."""
    return math.log(HORIZON / ((t + HORIZON - 1.0) * (t + HORIZON)))


def unstarted(t: int) -> float:
    """``1 - Σ_{j<=t} w_j``: the weight of the changes not started after update ``t``."""
    return HORIZON / (t + HORIZON)


def step(log_s: Any, t: int, x: Any, stakes: Any, centre: float, mask: Any = None) -> Any:
    """``log S_t`` per stake (last axis of ``log_s``) after update ``t`` brings ``x`` (its last axis).

    ``mask`` (the shape of ``x``) leaves observations out; leading axes are
    independent streams (the simulations run many at once).
    """
    import numpy as np

    lam = np.asarray(stakes, dtype=np.float64)
    factors = np.log1p(lam * (np.asarray(x, dtype=np.float64)[..., None] - centre))
    if mask is not None:
        factors = np.where(np.asarray(mask, dtype=bool)[..., None], factors, 0.0)
    return np.logaddexp(log_s, log_weight(t)) + factors.sum(axis=-2)


def log_evidence(log_s: Any, t: int) -> Any:
    """``log M_t`` from ``log S_t`` (last axis: the stakes, equally weighted)."""
    import numpy as np

    k = np.shape(log_s)[-1]
    mixed = np.logaddexp.reduce(np.asarray(log_s, dtype=np.float64), axis=-1) - math.log(k)
    return np.logaddexp(mixed, math.log(unstarted(t)))


class Detector:
    """One stream's e-detector, update by update (what a monitor keeps for each alarm)."""

    def __init__(self, stakes: tuple[float, ...], centre: float) -> None:
        import numpy as np

        self.stakes, self.centre, self.t = stakes, centre, 0
        self.log_s = np.full(len(stakes), -np.inf)

    def copy(self) -> Detector:
        out = Detector(self.stakes, self.centre)
        out.t, out.log_s = self.t, self.log_s.copy()
        return out

    def update(self, x: Any) -> None:
        """Take one update's observations (possibly none: the update still opens a change time)."""
        self.t += 1
        self.log_s = step(self.log_s, self.t, x, self.stakes, self.centre)

    def log_e(self) -> float:
        """``log M_t``: 0 before any update."""
        return 0.0 if not self.t else float(log_evidence(self.log_s, self.t))
