"""The monitor's values: `Alarm`, `WindowSummary`, `MonitorReport` (public through `ek.qe.monitor`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["DEFAULT_ALPHA", "REFIT_ITEMS", "Alarm", "MonitorReport", "WindowSummary"]

DEFAULT_ALPHA = 0.05
"""Total false-alarm probability of a monitor over its whole stream."""

REFIT_ITEMS = 1000
"""At most how many of the latest audited items an alarm suggests re-fitting on."""


@dataclass(frozen=True)
class Alarm:
    """An alarm raised at one update: what broke, the evidence, and what to do.

    Args:
        kind: ``"risk"`` (the promise is broken) or ``"calibration"``.
        update: the update that raised it (0-based); ``time`` its time.
        bound: the anytime-valid band of the whole stream's mean at that update.
        level: the promised level (``risk``) or 0 (``calibration``).
        message: the evidence and the fix, in words.
    """

    kind: str
    update: int
    time: Any
    bound: tuple[float, float]
    level: float
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "bound": list(self.bound)}


@dataclass(frozen=True)
class WindowSummary:
    """One window's figures (recomputed from every audit known now) and the sequences after its update.

    ``shares``: accepted, flagged and blocked shares. ``risk``: the error
    rate among accepted items, ``{estimate, interval, basis, n_audited, N}``
    (``interval`` fixed-time, at the monitor's ``level``). ``calibration``:
    ``{n_audited, ece, gap, gap_interval}`` with ``gap`` the mean of
    ``p - correct``. ``drift``: per signal ``{ks, p_value, psi}`` (KS of
    this window alone, not valid under repeated looks; None after a merge).
    ``sequence``: after the update that appended the window, the
    anytime-valid bands (``risk``, ``calibration``, from ``n_risk`` and
    ``n_calibration`` audited items), the detectors' e-values (``risk_e``,
    ``calibration_e``; an alarm fires at ``1 / (alpha / 2)``), the side
    calibration leans to and whether each alarm stands. ``alarms``: raised
    by that update.
    """

    index: int
    time: Any
    n: int
    shares: dict[str, Any]
    risk: dict[str, Any]
    calibration: dict[str, Any]
    drift: dict[str, Any]
    sequence: dict[str, Any]
    alarms: tuple[Alarm, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "alarms": [a.to_dict() for a in self.alarms]}


@dataclass(frozen=True)
class MonitorReport:
    """A monitor's history and cumulative figures (`Monitor.report`); ``to_dict()`` is its JSON."""

    windows: tuple[WindowSummary, ...]
    cumulative: dict[str, Any]
    sequence: dict[str, Any]
    alarms: tuple[Alarm, ...]
    settings: dict[str, Any]
    notes: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        return {
            "windows": [w.to_dict() for w in self.windows],
            "cumulative": self.cumulative,
            "sequence": self.sequence,
            "alarms": [a.to_dict() for a in self.alarms],
            "settings": self.settings,
            "notes": list(self.notes),
        }
