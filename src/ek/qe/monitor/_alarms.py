"""The two alarms of a monitor and the bands shown beside them, from its audit rows in arrival order.

Public through `ek.qe.monitor`. ``alpha`` is split evenly between the two
alarms (`SPLIT`), so a stable stream raises either with probability at
most ``alpha`` in total, however long it runs and however many updates
are checked (a union bound). Each alarm is an e-detector over a mixture
of change times (`ek.qe.monitor._detect`, where the construction and its
guarantee are written out); it fires once its e-value reaches
``1 / (alpha * share)``:

* **risk**: the promised quantity's stream against the promised level
  (null: its conditional mean stays at or below the level at every
  observation), stakes betting on 1.5, 2 and 3 times the level;
* **calibration**: calibration-in-the-large, ``E[p - correct]`` over the
  audited items (0 when calibrated), shifted into [0, 1] as
  ``(p - correct + 1) / 2``; stakes on both sides, one e-value.

After a shift doubling the accepted error rate (scripts/monitor_grid.py:
50 audits a window, 400 streams) the risk alarm's median delay is 9, 10
and 11 windows when the shift comes after 30, 180 and 300 stable ones,
the calibration alarm's 4 (the shift makes the probabilities
overconfident); the confidence-sequence alarms they replace took 25, 58
and 81 (calibration: 18, 50, 65). Stable streams over 365 windows raised
either in 1.25% of 400 (the bound is 5%).

The bands are betting confidence sequences for the mean of the stream
over the audited items so far (`ek.qe.monitor._cs`; risk ``[L, U]`` at
``alpha / 2`` a side, calibration at ``alpha / 4`` a side), kept as
running intersections. They describe the whole stream; they decide
nothing: a band can still hold the promised level when the alarm fires,
since a recent change moves the mean of a long history slowly.

The promised quantity's stream is: ``accepted_error``, ``1 - correct`` of
the audited accepted items; ``accepted_and_wrong``, "accepted and wrong"
of every audited item; ``false_flag``, "not accepted" of the audited
correct items. Each is valid when the audited items are chosen without
looking at their labels (uniformly among those the quantity is about).

A late audit (a label for an item of an earlier window) is an observation
of the update that brings it: it enters every component whose change time
is at or before that update, and the bands' mean, at its arrival. The
guarantee needs nothing more (it is over the order of arrival), and the
detection delay is counted in arrivals: evidence counts when it comes.

Alarms are announced once (``fired``): by the update at which they first
stand. A state stored by the confidence-sequence alarms (monitor format 1)
is replayed into the detectors at load; an alarm the old sequences raised
stays raised, and one the detectors would have raised in the stored
history is announced by the next update.
"""

from __future__ import annotations

import math
from typing import Any

from ek.qe.monitor import _cs as cs
from ek.qe.monitor._detect import CALIBRATION_STAKES, Detector, risk_stakes
from ek.qe.monitor._figures import Rows

__all__ = ["SPLIT", "State", "fresh", "stream"]

SPLIT = {"risk": 0.5, "calibration": 0.5}
"""Share of ``alpha`` each alarm may spend."""

_LOG_CAP = 690.0  # an e-value is stored as a float: past e**690 it is shown as e**690


def fresh() -> dict[str, Any]:
    """The record before any audit: nothing excluded, no evidence, no alarm."""
    return {
        "risk": [0.0, 1.0],
        "calibration": [-1.0, 1.0],
        "n_risk": 0,
        "n_calibration": 0,
        "risk_alarm": False,
        "calibration_alarm": False,
        "risk_e": 1.0,
        "calibration_e": 1.0,
        "calibration_side": None,
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


class State:
    """The detectors and bands of a monitor after some updates; `advance` takes one more."""

    def __init__(self, promise: Any, alpha: float) -> None:
        self.promise, self.alpha = promise, alpha
        self.record = fresh()
        self.announced: set[str] = set()
        self.risk = None if promise is None else Detector(risk_stakes(promise[1]), promise[1])
        self.calibration = Detector(CALIBRATION_STAKES, 0.5)
        self.bands = {
            "risk": cs.Sequence(alpha * SPLIT["risk"]),
            "calibration": cs.Sequence(alpha * SPLIT["calibration"] / 2),
        }

    def copy(self) -> State:
        out = State.__new__(State)
        out.promise, out.alpha, out.record, out.announced = (
            self.promise,
            self.alpha,
            dict(self.record),
            set(self.announced),
        )
        out.risk = None if self.risk is None else self.risk.copy()
        out.calibration = self.calibration.copy()
        out.bands = {k: v.copy() for k, v in self.bands.items()}
        return out

    def advance(self, rows: Rows, stored: dict[str, Any] | None = None) -> tuple[State, dict[str, Any], list[str]]:
        """The state after an update bringing the audit ``rows``, its record, and the alarms it announces.

        ``stored``: the record stored for this update, whose bands are taken
        as they are (a load replays without solving for them again).
        """
        out = self.copy()
        record = out.record
        if out.risk is not None:
            x = stream(rows, self.promise[0])
            out.risk.update(x)
            out.bands["risk"].extend(x)
            if stored is None:
                low, high = out.bands["risk"].bounds()
                record["risk"] = [max(record["risk"][0], low), min(record["risk"][1], high)]
            else:
                record["risk"] = list(stored["risk"])
            record["n_risk"] += len(x)
            record["risk_e"] = _e(out.risk.log_e())
            record["risk_alarm"] = record["risk_alarm"] or out.risk.log_e() >= self._threshold("risk")
        z = (rows.p - rows.correct + 1.0) / 2.0
        out.calibration.update(z)
        out.bands["calibration"].extend(z)
        if stored is None:
            low, high = out.bands["calibration"].bounds()
            cal = record["calibration"]
            record["calibration"] = [max(cal[0], 2 * low - 1), min(cal[1], 2 * high - 1)]
        else:
            record["calibration"] = list(stored["calibration"])
        record["n_calibration"] += len(z)
        record["calibration_e"] = _e(out.calibration.log_e())
        over = out.calibration.log_s[len(CALIBRATION_STAKES) // 2 :]  # the positive stakes: p above correct
        under = out.calibration.log_s[: len(CALIBRATION_STAKES) // 2]
        record["calibration_side"] = "over" if max(over) >= max(under) else "under"
        cal_alarm = out.calibration.log_e() >= self._threshold("calibration")
        record["calibration_alarm"] = record["calibration_alarm"] or cal_alarm
        fired = [k for k in ("risk", "calibration") if record[f"{k}_alarm"] and k not in out.announced]
        out.announced.update(fired)
        return out, dict(record), fired

    def replayed(self, rows: Rows, stored: dict[str, Any], fired: list[str]) -> State:
        """The state after a stored update (its rows, its stored record and the alarms it announced)."""
        out, _, _ = self.advance(rows, stored)
        out.announced = self.announced | set(fired)  # a replay announces nothing itself
        for kind in ("risk", "calibration"):  # an alarm raised stays raised, whatever raised it
            out.record[f"{kind}_alarm"] = bool(out.record[f"{kind}_alarm"] or stored.get(f"{kind}_alarm"))
        return out

    def _threshold(self, kind: str) -> float:
        return math.log(1.0 / (self.alpha * SPLIT[kind]))


def _e(log_e: float) -> float:
    return math.exp(min(log_e, _LOG_CAP))
