"""The two anytime-valid alarms of a monitor, from its audit rows in arrival order.

Public through `ek.qe.monitor`. ``alpha`` is split evenly between them, so
a stable stream raises either with probability at most ``alpha`` in total,
however many windows are checked (a union bound):

* **risk**: the promised quantity's lower confidence sequence at level
  ``alpha / 2`` (`ek.qe.monitor._cs`); the alarm fires once it lies wholly
  above the promised level, i.e. once the wealth of betting against the
  promise reaches ``2 / alpha``. The band shown is ``[L, U]`` with ``U``
  the upper sequence at ``alpha / 2`` too: a ``1 - alpha`` confidence
  sequence for the quantity.
* **calibration**: calibration-in-the-large, ``E[p - correct]`` over the
  audited items (0 when the probabilities are calibrated), shifted into
  [0, 1] as ``(p - correct + 1) / 2``; lower and upper sequences at
  ``alpha / 4`` each, so the band is a ``1 - alpha / 2`` sequence for the
  gap, and the alarm fires once it excludes 0.

What the bands bound: the mean of the stream over the audited items so far
(the rate itself while it holds still). What the alarms test: that the
promised quantity's conditional mean stays at or below the promised level
at *every* time (the wealth is a supermartingale under that composite
null), so a rate that drifts but keeps below the level raises nothing.
The stakes shrink like ``1 / sqrt(t log t)``, and a long stable stretch at
the promised level costs wealth that a later shift must win back first:
detection after a shift is slower the longer the stream has run (in
scripts/monitor_simulation.py, 30 stable windows before a doubling shift
give a median delay of 16 windows).

The bands are running intersections (each bound the tightest seen at any
update so far), so an alarm, once raised, stays raised. The promised
quantity's stream is: ``accepted_error``, ``1 - correct`` of the audited
accepted items; ``accepted_and_wrong``, "accepted and wrong" of every
audited item; ``false_flag``, "not accepted" of the audited correct items.
Each is valid when the audited items are chosen without looking at their
labels (uniformly among those the quantity is about).
"""

from __future__ import annotations

import math
from typing import Any

from ek.qe.monitor import _cs as cs
from ek.qe.monitor._figures import Rows

__all__ = ["SPLIT", "advance", "fresh", "stream"]

SPLIT = {"risk": 0.5, "calibration": 0.5}
"""Share of ``alpha`` each alarm may spend."""


def fresh() -> dict[str, Any]:
    """The sequences before any audit: nothing excluded, no alarm."""
    return {
        "risk": [0.0, 1.0],
        "calibration": [-1.0, 1.0],
        "n_risk": 0,
        "n_calibration": 0,
        "risk_alarm": False,
        "calibration_alarm": False,
    }


def stream(rows: Rows, quantity: str) -> Any:
    """The promised quantity's observations, in arrival order."""
    import numpy as np

    accepted, correct = rows.decision == 0, rows.correct.astype(bool)
    if quantity == "accepted_error":
        return (~correct[accepted]).astype(np.float64)
    if quantity == "accepted_and_wrong":
        return (accepted & ~correct).astype(np.float64)
    return (~accepted[correct]).astype(np.float64)


def advance(previous: dict[str, Any], rows: Rows, promise: Any, alpha: float) -> tuple[dict[str, Any], list[str]]:
    """The sequences after an update whose rows (all so far) are ``rows``, and which alarms fire now."""
    out = dict(previous)
    fired = []
    if promise is not None:
        quantity, level = promise
        x = stream(rows, quantity)
        a = alpha * SPLIT["risk"]
        low, high = _bounds(x, a)
        out["risk"] = [max(previous["risk"][0], low), min(previous["risk"][1], high)]
        out["n_risk"] = len(x)
        if not previous["risk_alarm"] and len(x) and _excluded(x, a, level):
            out["risk_alarm"] = True
            fired.append("risk")
    z = (rows.p - rows.correct + 1.0) / 2.0
    a = alpha * SPLIT["calibration"] / 2
    low, high = _bounds(z, a)
    out["calibration"] = [max(previous["calibration"][0], 2 * low - 1), min(previous["calibration"][1], 2 * high - 1)]
    out["n_calibration"] = len(z)
    if not previous["calibration_alarm"] and (out["calibration"][0] > 0 or out["calibration"][1] < 0):
        out["calibration_alarm"] = True
        fired.append("calibration")
    return out, fired


def _bounds(x: Any, a: float) -> tuple[float, float]:
    if not len(x):
        return 0.0, 1.0
    return cs.bounds(x, cs.stakes(x, a), a)


def _excluded(x: Any, a: float, level: float) -> bool:
    """Whether the wealth of betting that the mean exceeds ``level`` has reached ``1 / a``."""
    lam = cs.stakes(x, a)
    return bool(cs.log_wealth(x, lam, level, side=+1)[-1] >= math.log(1.0 / a))
