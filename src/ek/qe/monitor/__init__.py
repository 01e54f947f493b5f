"""Is a deployed gate still keeping its promise? Realised figures, drift and anytime-valid alarms over time.

A calibrator and a gate are fitted once, on a labelled calibration set;
calibration decays and the gates' guarantees rest on the new data looking
like the old. A `Monitor` watches them in production, window by window
(a day, a week): each window's items with their raw signals, and audit
labels for a few items as they arrive, possibly days later.

Per window and cumulatively it reports the gate's realised figures (the
accepted, flagged and blocked shares; the error rate among accepted items,
prediction-powered when audits exist, from the calibrated probabilities
alone otherwise, labelled as such), calibration on the audited items (ECE,
calibration-in-the-large) and the drift of each raw signal against the
calibration set (two-sample KS with its p-value, PSI). Intervals of single
windows are fixed-time intervals.

Two alarms hold over the whole stream: *the promise is broken* and
*calibration has shifted*. Each is a change detector, an e-detector over a
mixture of change times (Shin, Ramdas & Rinaldo 2022; see
`ek.qe.monitor._detect`): a stable stream raises either with probability
at most ``alpha`` in total, checked after every update for as long as it
runs (``alpha / 2`` each; see `ek.qe.monitor._alarms`), and a shift is
caught about as fast after a year as after a month (a doubling of the
accepted error rate at 50 audits a window: 9-11 windows for the risk
alarm, 4 for the calibration one, in scripts/monitor_grid.py). Beside them
the anytime-valid bands (betting confidence sequences, Waudby-Smith &
Ramdas 2023) bound the mean over all audits so far; they describe, the
alarms decide. The KS p-values are per window and not valid under
repeated looks: drift is a diagnostic, the alarms are the decision.
Each `Alarm` says what to do: re-fit the calibrator on the last audited
items (`Monitor.audited`) and save it as a new version with
`ek.qe.save_calibrator`.

An update costs its new items and audits, not the history: the detectors
and bands carry running sums, and a window's figures read only its own
audit rows. Late audits (labels for items of earlier windows) count: they
enter the window's figures and, at the update that brings them, the
detectors and bands.

The promise depends on the gate (`ek.qe.monitor._gates.default_promise`):
`RiskControlGate`, the share of items accepted and wrong at ``target``;
the conformal gates, the share of correct items flagged at ``alpha``;
`CostSensitiveGate`, the error rate among accepted items at ``1 - tau``.
Pass ``promise=0.03`` (error rate among accepted items) or
``promise=("false_flag", 0.1)`` to watch another level.

Given a ``name``, the state is kept in ek's run engine (kind ``monitor``,
`ek._runs`): each update is one unit of work (a killed update leaves the
state as it was), and `Monitor.load` resumes it (the detectors are replayed from the stored
audit rows; a state of monitor format 1, written before the detectors, is
read and continued the same way). Monitors over disjoint items merge
(`Monitor.merge`): the sums add, and the detectors and sequences are
replayed over the merged audit rows (they are path-dependent, so they do
not add). ``ek monitor NAME --window FILE.jsonl`` is the command line.

>>> from ek.qe import CostSensitiveGate, PlattCalibrator
>>> cal = PlattCalibrator(a=6.0, b=-3.0)
>>> monitor = Monitor(cal, CostSensitiveGate(rho=1.0), calibration_signals={"conf": [0.2, 0.5, 0.7, 0.9]})
>>> items = [{"id": f"d{i}", "signals": {"conf": c}} for i, c in enumerate([0.9, 0.8, 0.3])]
>>> summary = monitor.update(items, audit={"d0": True}, time="2026-12-01")
>>> summary.n, round(summary.shares["accept"], 3)
(3, 0.667)
"""

from __future__ import annotations

import hashlib
import json
import numbers
import os
from collections.abc import Hashable, Iterable, Mapping
from typing import Any

from ek._quality_args import FittedCalibrator
from ek._util import import_optional, type_name
from ek.base import DecisionPolicy
from ek.qe.monitor._gates import QUANTITIES, calibrator_record, default_promise, gate_record
from ek.qe.monitor._state import FORMAT, MonitorStore
from ek.qe.monitor._values import (
    DEFAULT_ALPHA,
    REFIT_ITEMS,
    Alarm,
    AlarmRecord,
    MonitorRecord,
    MonitorReport,
    WindowRecord,
    WindowSummary,
)

__all__ = [
    "DEFAULT_ALPHA",
    "QUANTITIES",
    "REFIT_ITEMS",
    "Alarm",
    "AlarmRecord",
    "Monitor",
    "MonitorRecord",
    "MonitorReport",
    "WindowRecord",
    "WindowSummary",
]


class Monitor:
    """Watch a fitted calibrator (and gate) in production; see the module docstring.

    Args:
        calibrator: the fitted calibrator (one of ek.qe's, so the state can store it).
        gate: the fitted gate, or None (every item then counts as accepted).
        calibration_signals: ``signal name -> the calibration set's raw values``
            (one name for a scalar calibrator).
        promise: the level of the error rate among accepted items, or
            ``(quantity, level)`` with quantity one of ``QUANTITIES``; by
            default the gate's own promise.
        alpha: total false-alarm probability over the whole stream.
        level: coverage of the fixed-time intervals of single windows.
        name: keep the state in the run engine under this name; an
            existing state of that name is continued (and must have been
            built from the same calibrator, gate and calibration set).
        rootdir: the data folder of the stores (the default one when None).
    """

    def __init__(
        self,
        calibrator: FittedCalibrator,
        gate: DecisionPolicy | None = None,
        *,
        calibration_signals: Mapping[str, Iterable[float]],
        promise: float | tuple[str, float] | None = None,
        alpha: float = DEFAULT_ALPHA,
        level: float = 0.95,
        name: str | None = None,
        rootdir: str | os.PathLike[str] | None = None,
    ) -> None:
        _require_arrays()
        from ek.qe.monitor._book import Book

        values = _calibration_values(calibration_signals)
        settings = {
            "format": FORMAT,
            "calibrator": calibrator_record(calibrator),
            "gate": gate_record(gate),
            "signals": list(values),
            "calibration": _digest(values),
            "n_calibration": len(next(iter(values.values()))),
            "promise": _promise(promise, gate),
            "alpha": _share(alpha, "alpha"),
            "level": _share(level, "level"),
        }
        store = MonitorStore(name, rootdir) if name is not None else None
        stored = store.read() if store is not None else None
        if store is not None and stored is None:
            store.create(settings, values)
        elif stored is not None:
            _same_settings(name, stored[0], settings)
            settings = stored[0]  # an older readable format is continued in its own format
        self._book = Book(calibrator, gate, settings, values, store, stored[2] if stored else [])

    @classmethod
    def load(cls, name: str, *, rootdir: str | os.PathLike[str] | None = None) -> Monitor:
        """The monitor stored under ``name``, rebuilt from its state.

        Raises:
            KeyError: nothing is stored under ``name``.
            ValueError: the state is damaged or of a format version this ek does not read.
        """
        from ek.qe._records import from_record

        _require_arrays()
        from ek.qe.monitor._book import Book
        from ek.qe.monitor._gates import gate_from_record

        store = MonitorStore(name, rootdir)
        stored = store.read()
        if stored is None:
            raise KeyError(
                f"no monitor is stored as {name!r} in {store.header_path.parent}; create it in Python with "
                f"Monitor(calibrator, gate, calibration_signals=..., name={name!r})."
            )
        settings, values, updates = stored
        calibrator = from_record(settings["calibrator"], where=f"monitor {name!r} calibrator")
        self = cls.__new__(cls)
        self._book = Book(calibrator, gate_from_record(settings["gate"]), settings, values, store, updates)
        return self

    def update(
        self,
        items: Iterable[object] | None = None,
        *,
        audit: Mapping[Hashable, object] | Iterable[object] | None = None,
        time: float | str | None = None,
    ) -> WindowSummary:
        """Append one window (``items``) and/or audit labels; return the summary of the latest window.

        ``audit`` labels items of this window or of earlier ones (``id ->
        correct``, or ``{"id", "correct"}`` records). ``time`` is the
        window's time (a number or an ISO date); without it, the latest
        ``time`` of the items. Either is later than the last update's.

        Raises:
            ValueError / TypeError: a bad item, signal, label or time, naming
                it; nothing is stored then.
        """
        return self._book.update(items, audit, time)

    def report(self) -> MonitorReport:
        """Every window's figures, the cumulative ones, the detectors and bands now and every alarm raised."""
        return self._book.report()

    def audited(self, *, last: int | None = None) -> tuple[dict[str, list[float]], list[bool]]:
        """The raw signals (``name -> values``) and labels of the audited items, the ``last`` latest only if given.

        What to re-fit the calibrator on after an alarm.
        """
        return self._book.audited(last)

    @property
    def settings(self) -> dict[str, object]:
        """The settings the monitor was built with (as stored)."""
        return dict(self._book.settings)

    @classmethod
    def merge(cls, *monitors: Monitor) -> Monitor:
        """The monitor over the union of the items of monitors watching disjoint items of one stream.

        Windows with the same time become one (their sums add); the audit
        rows of an update are put in id order and the detectors and
        confidence sequences replayed over them. The result is held in
        memory (no name).

        Raises:
            ValueError: the monitors differ in a setting, or share an item id.
        """
        _require_arrays()
        from ek.qe.monitor._merge import merge_books

        if not monitors:
            raise ValueError("Monitor.merge() needs at least one monitor.")
        self = cls.__new__(cls)
        self._book = merge_books([m._book for m in monitors])
        return self


# ---------------------------------------------------------------------------


def _require_arrays() -> None:
    """numpy (the window's columns) and scipy (KS drift) are the ``metrics`` extra: say so before any work."""
    for package in ("numpy", "scipy"):
        import_optional(package, extra="metrics", feature="ek.qe.monitor")


def _calibration_values(signals: Any) -> dict[str, list[float]]:
    import math

    if not isinstance(signals, Mapping) or not signals:
        raise TypeError(
            "Monitor calibration_signals must be a mapping 'signal name -> the calibration set's raw values', "
            f"got {type_name(signals)}; e.g. calibration_signals={{'conf': raw_scores}}."
        )
    out: dict[str, list[float]] = {}
    for name, values in signals.items():
        column = [float(v) for v in values]
        bad = [k for k, v in enumerate(column) if not math.isfinite(v)]
        if bad:
            raise ValueError(f"Monitor calibration_signals[{name!r}] has a non-finite value at position {bad[0]}.")
        if not column:
            raise ValueError(f"Monitor calibration_signals[{name!r}] is empty; pass the calibration set's values.")
        out[str(name)] = column
    if len({len(c) for c in out.values()}) > 1:
        raise ValueError("Monitor calibration_signals columns have different lengths; pass one value per item each.")
    return out


def _digest(values: dict[str, list[float]]) -> str:
    text = json.dumps(values, sort_keys=True)
    return hashlib.blake2b(text.encode(), digest_size=10).hexdigest()


def _promise(promise: Any, gate: Any) -> list[Any] | None:
    if promise is None:
        found = default_promise(gate)
        return None if found is None else list(found)
    if isinstance(promise, numbers.Real) and not isinstance(promise, bool):
        promise = ("accepted_error", promise)
    if not (isinstance(promise, (tuple, list)) and len(promise) == 2 and promise[0] in QUANTITIES):
        raise ValueError(
            f"Monitor promise must be a level of the error rate among accepted items or (quantity, level) with "
            f"quantity one of {sorted(QUANTITIES)}, got {promise!r:.60}."
        )
    return [promise[0], _share(promise[1], "promise level")]


def _share(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 < float(value) < 1:
        raise ValueError(f"Monitor {what} must be a number strictly between 0 and 1, got {value!r:.40}.")
    return float(value)


def _same_settings(name: str | None, stored: dict[str, Any], settings: dict[str, Any]) -> None:
    for key, label in (
        ("calibrator", "calibrator"),
        ("gate", "gate"),
        ("signals", "signal names"),
        ("calibration", "calibration set"),
        ("promise", "promise"),
        ("alpha", "alpha"),
        ("level", "level"),
    ):
        if stored.get(key) != settings.get(key):
            raise ValueError(
                f"monitor state {name!r} was built with another {label} ({stored.get(key)!r:.80}) than this "
                f"Monitor ({settings.get(key)!r:.80}); continue it with Monitor.load({name!r}), or give this "
                "monitor a new name (a re-fitted calibrator starts a new monitor)."
            )
