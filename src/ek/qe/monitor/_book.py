"""The monitor's books: its updates, windows, audit rows and item tables, and the figures read from them.

Public through `ek.qe.monitor` (`Monitor` is a thin face over a `Book`).
An update is computed whole (window figures, matched audit rows, the
detectors after it) before anything is stored or changed in memory, so a
refused input or a failed write leaves the monitor as it was. Its cost is
its own items and audits: the detectors carry running sums, a window's
summary reads that window's audit rows only, and an audit of this window
looks at no earlier one (a late audit reads the window it names).
"""

from __future__ import annotations

import itertools
from typing import Any, cast

from ek.qe.monitor import _alarms as alarms
from ek.qe.monitor import _drift as drift
from ek.qe.monitor import _figures as figures
from ek.qe.monitor._gates import QUANTITIES, calibrate, decide
from ek.qe.monitor._input import read_audit, read_window, time_key
from ek.qe.monitor._values import Alarm, Cumulative, MonitorReport, SequenceState, Settings, WindowSummary

__all__ = ["Book", "as_rows"]

_LISTED = 10  # unknown or repeated ids named in an error
_KEPT = 8  # the latest windows whose items a stored monitor keeps in memory (late labels mostly come within days)


class Book:
    """Everything a monitor knows, in memory (and in its store when it has one)."""

    def __init__(
        self,
        calibrator: Any,
        gate: Any,
        settings: dict[str, Any],
        values: dict[str, Any],
        store: Any,
        updates: list[dict[str, Any]],
    ) -> None:
        import numpy as np

        self.calibrator, self.gate, self.settings, self.store = calibrator, gate, settings, store
        self.names: list[str] = list(settings["signals"])
        self.values = values
        self.cal = {name: np.asarray(values[name], dtype=np.float64) for name in self.names}
        self.edges = {name: drift.decile_edges(self.cal[name]) for name in self.names}
        self.expected = {name: drift.bin_counts(self.cal[name], self.edges[name]) for name in self.names}
        self.updates: list[dict[str, Any]] = []
        self.windows: list[dict[str, Any]] = []
        self.tables: dict[int, dict[str, Any]] = {}
        self.columns: dict[str, list[Any]] = {"id": [], "window": [], "p": [], "decision": [], "correct": []}
        self.signals: dict[str, list[float]] = {name: [] for name in self.names}
        self.audited_ids: set[str] = set()
        self.last_time: Any = None
        self._rows: figures.Rows | None = None
        self._indexes: dict[int, dict[str, int]] = {}  # window -> item id -> position in its table
        self.by_window: dict[int, list[int]] = {}  # window -> positions of its audit rows in the columns
        self.fired: dict[int, list[tuple[str, int]]] = {}  # window -> (alarm kind, update index) raised
        self.n_audited: list[int] = []  # audit rows known after each update
        self.state = alarms.State(self.promise, settings["alpha"])
        for update in updates:  # a stored update is replayed into the detectors (they are not stored)
            self.commit(update, None)

    # -- writing ---------------------------------------------------------

    def update(self, items: Any, audit: Any, time: Any) -> WindowSummary:
        window = read_window(items, self.names) if items is not None else None
        if window is not None and not window.ids:
            raise ValueError("Monitor.update() got an empty window; pass its items, or only an audit.")
        labels = read_audit(audit)
        if window is None and not labels:
            raise ValueError("Monitor.update() got neither window items nor audit labels; pass at least one.")
        when = time if time is not None else (window.time if window is not None else None)
        if when is None:
            raise ValueError(
                "Monitor.update() needs the window's time: pass time=... (a number or an ISO date such as "
                "'2026-12-01'), or give the items a 'time'."
            )
        key = self._check_time(when)
        table, record = (None, None) if window is None else self._window(window, when)
        new_rows = self._match(labels, table)
        state, sequence, fired = self.state.advance(as_rows(new_rows))
        update = {"index": len(self.updates), "time": when, "window": record, "audits": new_rows}
        update.update(sequence=sequence, fired=fired)
        if self.store is not None:
            self.store.append(self.settings, update, table)
        self.commit(update, table, state)
        self.last_time = key
        return self.summary(len(self.windows) - 1)  # an audit names items of a window, so there is one

    def commit(self, update: dict[str, Any], table: dict[str, Any] | None, state: Any = None) -> None:
        """Take a computed update (with the detectors' ``state`` after it) or a stored one into the books."""
        rows = update["audits"]
        if state is None:
            state = self.state.replayed(as_rows(rows), update["sequence"], update["fired"])
        self.state = state
        self.updates.append(update)
        if update["window"] is not None:
            self.windows.append({**update["window"], "update": update["index"]})
            if table is not None:
                self.tables[update["window"]["index"]] = table
            if self.store is not None:  # older tables are read back from the store when a late audit names them
                for w in [w for w in self.tables if w < len(self.windows) - _KEPT]:
                    del self.tables[w]
                    self._indexes.pop(w, None)
        start = len(self.columns["id"])
        for k, w in enumerate(rows["window"]):
            self.by_window.setdefault(w, []).append(start + k)
        for kind in update["fired"]:
            self.fired.setdefault(len(self.windows) - 1, []).append((kind, update["index"]))
        self.n_audited.append(start + len(rows["id"]))
        for column in self.columns:
            self.columns[column].extend(rows[column])
        for name in self.names:
            self.signals[name].extend(rows["signals"][name])
        self.audited_ids.update(rows["id"])
        self.last_time = time_key(update["time"], "stored update time")
        self._rows = None

    def _window(self, window: Any, when: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        import numpy as np

        p = calibrate(self.calibrator, self.names, window.signals)
        bad = np.flatnonzero(~((p >= 0) & (p <= 1)))
        if len(bad):
            raise ValueError(
                f"the calibrator gave {p[bad[0]]!r} for window item {window.ids[bad[0]]!r}, not a probability in "
                "[0, 1]; check the calibrator and that item's signals."
            )
        codes = decide(self.gate, p)
        columns = {name: window.signals[:, k] for k, name in enumerate(self.names)}
        table = {
            "ids": tuple(window.ids),
            "p": p,
            "decision": codes,
            "signals": columns,
        }  # a tuple of text: not GC-scanned
        ks = {name: list(drift.ks_test(self.cal[name], col)) for name, col in columns.items()}
        record = {
            "index": len(self.windows),
            "time": when,
            "sums": figures.window_sums(p, codes),
            "psi": {name: drift.bin_counts(col, self.edges[name]) for name, col in columns.items()},
            "ks": ks,
        }
        return table, record

    def _check_time(self, when: Any) -> Any:
        key = time_key(when, "Monitor.update() time")
        if self.last_time is not None:
            last = self.updates[-1]["time"]
            if key[0] != self.last_time[0]:
                raise ValueError(
                    f"Monitor.update() time {when!r} is a {key[0]}, but this monitor's times are "
                    f"{self.last_time[0]}s (the last was {last!r}); keep one kind of time."
                )
            if key[1] <= self.last_time[1]:
                raise ValueError(
                    f"Monitor.update() time {when!r} is not after the last update's time {last!r}: time cannot go "
                    "backwards (or this window was appended already). Late labels for an earlier window go in a "
                    "later update's audit."
                )
        return key

    def _match(self, labels: dict[str, bool], current: dict[str, Any] | None) -> dict[str, Any]:
        """The audit rows of ``labels``, in id order, each joined to its item in this window or an earlier one."""
        repeated = sorted(i for i in labels if i in self.audited_ids)
        if repeated:
            raise ValueError(
                f"audit ids {repeated[:_LISTED]} were audited in an earlier update already ({len(repeated)} in "
                "all); each item is labelled once, or the detectors would count it twice."
            )
        found: dict[str, tuple[int, dict[str, Any], int]] = {}
        pending = set(labels)
        sources = itertools.chain(  # lazily, latest first: an audit of this window looks at no other
            [(len(self.windows), current)] if current is not None else [],
            ((w, None) for w in range(len(self.windows) - 1, -1, -1)),
        )
        for w, table in sources:
            if not pending:
                break
            if table is None:  # a committed window: its index is kept
                table = self.table(w)
                if w not in self._indexes:
                    self._indexes[w] = dict(zip(table["ids"], range(len(table["ids"]))))
                index = self._indexes[w]
            else:
                index = dict(zip(table["ids"], range(len(table["ids"]))))
            for item in [i for i in pending if i in index]:
                found[item] = (w, table, index[item])
                pending.discard(item)
        if pending:
            unknown = sorted(pending)
            raise ValueError(
                f"audit ids {unknown[:_LISTED]} ({len(unknown)} in all) match no item of this window or an "
                "earlier one; check the ids, or append the window that holds them first."
            )
        return self._rows_of(labels, found)

    def _rows_of(self, labels: dict[str, bool], found: dict[str, Any]) -> dict[str, Any]:
        rows: dict[str, Any] = {column: [] for column in self.columns}
        rows["signals"] = {name: [] for name in self.names}
        for item in sorted(labels):
            w, table, k = found[item]
            rows["id"].append(item)
            rows["window"].append(w)
            rows["p"].append(float(table["p"][k]))
            rows["decision"].append(int(table["decision"][k]))
            rows["correct"].append(labels[item])
            for name in self.names:
                rows["signals"][name].append(float(table["signals"][name][k]))
        return rows

    def table(self, w: int) -> dict[str, Any]:
        if w not in self.tables:
            if self.store is None:
                raise KeyError(w)
            self.tables[w] = self.store.table(w)
        return self.tables[w]

    # -- reading ---------------------------------------------------------

    @property
    def promise(self) -> Any:
        return self.settings["promise"]

    def rows(self) -> figures.Rows:
        """Every audit row, in arrival order."""
        rows = self._rows if self._rows is not None else as_rows(self.columns)
        self._rows = rows
        return rows

    def summary(self, w: int, rows: Any = None, fired_by: dict[int, list[Alarm]] | None = None) -> WindowSummary:
        """Window ``w``'s figures: from its own audit rows (time of its size), or from ``rows`` given (a report)."""
        record, level = self.windows[w], self.settings["level"]
        if rows is None:
            positions = self.by_window.get(w, [])
            mine = as_rows({c: [self.columns[c][k] for k in positions] for c in ("window", "p", "decision", "correct")})
        else:
            mine = rows.where(rows.window == w)
        sums = record["sums"]
        sequence = self.updates[record["update"]]["sequence"]
        found = (fired_by or self.fired_by([w])).get(w, [])
        return WindowSummary(
            index=w,
            time=record["time"],
            n=sums["n"],
            shares=figures.shares(sums),
            risk=figures.risk(sums, mine, level),
            calibration=figures.calibration(mine, level),
            drift=self._drift(record),
            sequence=cast(SequenceState, dict(sequence)),
            alarms=tuple(found),
        )

    def _drift(self, record: dict[str, Any]) -> dict[str, Any]:
        out = {}
        for name in self.names:
            ks = record["ks"].get(name) if record.get("ks") else None
            out[name] = {
                "ks": None if ks is None else ks[0],
                "p_value": None if ks is None else ks[1],
                "psi": drift.psi(self.expected[name], record["psi"][name]),
            }
        return out

    def fired_by(self, windows: Any = None) -> dict[int, list[Alarm]]:
        """``window index -> the alarms raised`` by the update appending it or by audit-only updates after it.

        Of the ``windows`` given only (all by default).
        """
        from ek.qe.monitor._messages import alarm

        chosen = sorted(self.fired) if windows is None else [w for w in windows if w in self.fired]
        return {w: [alarm(kind, self.updates[u], self, self.n_audited[u]) for kind, u in self.fired[w]] for w in chosen}

    def report(self) -> MonitorReport:
        rows, fired = self.rows(), self.fired_by()
        windows = tuple(self.summary(w, rows, fired) for w in range(len(self.windows)))
        sums = figures.merge_sums([w["sums"] for w in self.windows])
        level = self.settings["level"]
        psi = {}
        for name in self.names:
            counts = [sum(c) for c in zip(*(w["psi"][name] for w in self.windows))] if self.windows else []
            psi[name] = drift.psi(self.expected[name], counts) if counts else None
        cumulative: Cumulative = {
            "n": sums["n"],
            "windows": len(self.windows),
            "shares": figures.shares(sums),
            "risk": figures.risk(sums, rows, level) if self.windows else None,
            "calibration": figures.calibration(rows, level),
            "psi": psi,
        }
        last = self.updates[-1]["sequence"] if self.updates else alarms.fresh()
        sequence = cast(SequenceState, {**last, **self.state.record})  # a replayed state's alarms (format 1) too
        every = tuple(a for w in sorted(fired) for a in fired[w])
        return MonitorReport(windows, cumulative, sequence, every, self._public_settings(), _notes(self))

    def _public_settings(self) -> Settings:
        promise, settings = self.promise, self.settings
        return {
            "signals": settings["signals"],
            "n_calibration": settings["n_calibration"],
            "alpha": settings["alpha"],
            "level": settings["level"],
            "format": settings["format"],
            "calibrator": self.settings["calibrator"].get("kind"),
            "gate": (self.settings["gate"] or {}).get("kind"),
            "promise": None
            if promise is None
            else {"quantity": promise[0], "level": promise[1], "means": QUANTITIES[promise[0]]},
            "alpha_split": {k: v * self.settings["alpha"] for k, v in alarms.SPLIT.items()},
        }

    def audited(self, last: int | None) -> tuple[dict[str, list[float]], list[bool]]:
        start = 0 if last is None else max(0, len(self.columns["id"]) - int(last))
        correct = [bool(c) for c in self.columns["correct"][start:]]
        return {name: list(self.signals[name][start:]) for name in self.names}, correct


def as_rows(columns: dict[str, Any]) -> figures.Rows:
    """Audit rows held as lists (``window``, ``p``, ``decision``, ``correct``) as the arrays of `figures.Rows`."""
    import numpy as np

    return figures.Rows(
        np.asarray(columns["window"], dtype=np.int64),
        np.asarray(columns["p"], dtype=np.float64),
        np.asarray(columns["decision"], dtype=np.int64),
        np.asarray(columns["correct"], dtype=np.float64),
    )


def _notes(book: Book) -> tuple[str, ...]:
    out = [
        (
            f"Window intervals are fixed-time (level {book.settings['level']}); the alarms come from change "
            f"detectors (e-detectors over every possible change time), with a false-alarm probability of at most "
            f"{book.settings['alpha']} over the whole stream; the anytime bands describe the mean of all audits so far."
        ),
        "KS p-values are per window and not valid under repeated looks: drift is a diagnostic.",
    ]
    if book.promise is None:
        out.append("No promise to check (no gate with one, and promise= not given): the risk alarm is off.")
    return tuple(out)
