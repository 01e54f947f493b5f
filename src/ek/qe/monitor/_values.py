"""The monitor's values: `Alarm`, `WindowSummary`, `MonitorReport` (public through `ek.qe.monitor`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypedDict

__all__ = [
    "DEFAULT_ALPHA",
    "REFIT_ITEMS",
    "Alarm",
    "AlarmRecord",
    "Calibration",
    "Cumulative",
    "Drift",
    "MonitorRecord",
    "MonitorReport",
    "Risk",
    "RiskFigures",
    "SequenceState",
    "Settings",
    "Shares",
    "WindowRecord",
    "WindowSummary",
]

DEFAULT_ALPHA = 0.05
"""Total false-alarm probability of a monitor over its whole stream."""

REFIT_ITEMS = 1000
"""At most how many of the latest audited items an alarm suggests re-fitting on."""


class Shares(TypedDict):
    """The accepted, flagged and blocked shares of a window's items (None for an empty window)."""

    accept: float | None
    flag: float | None
    block: float | None


class RiskFigures(TypedDict):
    """The error rate among accepted items: its estimate, fixed-time interval and how it was found."""

    N: int
    n_audited: int
    estimate: float | None
    interval: list[float] | None
    basis: str


class Risk(RiskFigures, total=False):
    """`RiskFigures`, with the standard error and the audit-only figure of a prediction-powered estimate."""

    std_error: float
    audit_only: float


class Calibration(TypedDict):
    """ECE and the calibration gap (mean of ``p - correct``) on the audited items."""

    n_audited: int
    ece: float | None
    gap: float | None
    gap_interval: list[float] | None


class Drift(TypedDict):
    """One signal's drift: KS statistic and p-value (None after a merge) and PSI."""

    ks: float | None
    p_value: float | None
    psi: float | None


class SequenceState(TypedDict):
    """The anytime-valid state after an update: bands, audited counts, e-values and alarms."""

    risk: list[float]
    calibration: list[float]
    n_risk: int
    n_calibration: int
    risk_alarm: bool
    calibration_alarm: bool
    risk_e: float
    calibration_e: float
    calibration_side: str | None


class Cumulative(TypedDict):
    """A monitor's figures over every window (``risk`` None before the first)."""

    n: int
    windows: int
    shares: Shares
    risk: Risk | None
    calibration: Calibration
    psi: dict[str, float | None]


class Settings(TypedDict):
    """A monitor's public settings (``promise``: quantity, level and what it means, or None)."""

    signals: list[str]
    n_calibration: int
    alpha: float
    level: float
    format: int
    calibrator: str | None
    gate: str | None
    promise: dict[str, Any] | None
    alpha_split: dict[str, float]


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
    time: float | str  # a number or an ISO 8601 date, as given
    bound: tuple[float, float]
    level: float
    message: str

    def to_dict(self) -> AlarmRecord:
        return {
            "kind": self.kind,
            "update": self.update,
            "time": self.time,
            "bound": list(self.bound),
            "level": self.level,
            "message": self.message,
        }


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
    time: float | str  # a number or an ISO 8601 date, as given
    n: int
    shares: Shares
    risk: Risk
    calibration: Calibration
    drift: dict[str, Drift]
    sequence: SequenceState
    alarms: tuple[Alarm, ...] = ()

    def to_dict(self) -> WindowRecord:
        return {
            "index": self.index,
            "time": self.time,
            "n": self.n,
            "shares": self.shares,
            "risk": self.risk,
            "calibration": self.calibration,
            "drift": self.drift,
            "sequence": self.sequence,
            "alarms": [a.to_dict() for a in self.alarms],
        }


@dataclass(frozen=True)
class MonitorReport:
    """A monitor's history and cumulative figures (`Monitor.report`); ``to_dict()`` is its JSON."""

    windows: tuple[WindowSummary, ...]
    cumulative: Cumulative
    sequence: SequenceState
    alarms: tuple[Alarm, ...]
    settings: Settings
    notes: tuple[str, ...] = field(default=())

    def to_dict(self) -> MonitorRecord:
        return {
            "windows": [w.to_dict() for w in self.windows],
            "cumulative": self.cumulative,
            "sequence": self.sequence,
            "alarms": [a.to_dict() for a in self.alarms],
            "settings": self.settings,
            "notes": list(self.notes),
        }


class AlarmRecord(TypedDict):
    """`Alarm.to_dict`: the alarm as JSON (``bound`` a list)."""

    kind: str
    update: int
    time: float | str  # a number or an ISO 8601 date, as given
    bound: list[float]
    level: float
    message: str


class WindowRecord(TypedDict):
    """`WindowSummary.to_dict`: the window as JSON, its alarms as `AlarmRecord` s."""

    index: int
    time: float | str  # a number or an ISO 8601 date, as given
    n: int
    shares: Shares
    risk: Risk
    calibration: Calibration
    drift: dict[str, Drift]
    sequence: SequenceState
    alarms: list[AlarmRecord]


class MonitorRecord(TypedDict):
    """`MonitorReport.to_dict`: the whole report as JSON."""

    windows: list[WindowRecord]
    cumulative: Cumulative
    sequence: SequenceState
    alarms: list[AlarmRecord]
    settings: Settings
    notes: list[str]
