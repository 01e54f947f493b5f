"""A monitor's state in ek's run engine: kind ``monitor``, one run per monitor name.

Public through `ek.qe.monitor`. Layout (all through `ek._runs`, so the
lock, the format version and the damaged-record checks are the engine's):

* the run header ``runs/monitor.NAME.json``: the settings (format, the
  calibrator's record, the gate's, the signal names, a digest of the
  calibration set, alpha, level, the promise) and, after each update, a
  summary (how many updates, the last time);
* chunk 0 (``results/monitor.NAME.000000.json``): the calibration set's
  raw signals, for the KS test;
* one chunk per update (``results/monitor.NAME.000001.json``, ...): the
  window's sums and drift, the audit rows that update brought (for any
  window) and the record of the detectors and bands after it (their
  running sums are not stored: a load replays the audit rows into them);
* beside them, ``results/monitor.NAME.table.000003.json``: window 3's
  items (id, calibrated probability, decision, raw signals), read only when
  a later audit names one of its items.

An update is one unit: its table is written first, its chunk second (the
chunk's atomic rename is the commit), the header last. A process killed
before the rename leaves the state as it was (a table without its chunk is
ignored, and rewritten by the next update of that window); killed after
it, the update is complete. Every write holds the run's lock, and an update
checks that no other process appended since this monitor was loaded.
"""

from __future__ import annotations

import base64
from typing import Any

from ek._runs import open_run, read_run
from ek.stores import data_dir, json_store

__all__ = ["FORMAT", "KIND", "READABLE", "MonitorStore", "pack_table", "unpack_table"]

KIND = "monitor"
FORMAT = 2
"""Version of the monitor's records; a state of another version is refused, not guessed at.

Format 2 (the change detectors) adds ``risk_e``, ``calibration_e`` and
``calibration_side`` to each update's record. Format 1 (the alarms of
confidence sequences alone) is read as it is (see `READABLE`): its records
are kept, the detectors are replayed from its audit rows at load, and it
is continued in format 1 (its header stays as written).
"""

READABLE = (1, 2)
"""Formats this version reads and continues."""

_WHO = "Monitor"


class MonitorStore:
    """The stored state of the monitor ``name`` (under ``rootdir``, the data folder by default)."""

    def __init__(self, name: str, rootdir: Any) -> None:
        self.name, self.rootdir = name, rootdir
        self.header_path = data_dir("runs", rootdir=rootdir) / f"{KIND}.{name}.json"

    def read(self) -> tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]] | None:
        """``(settings, calibration signals, updates in order)``, None when nothing is stored under the name.

        Raises:
            ValueError: the state is damaged, or of another format version.
        """
        found = read_run(KIND, self.name, rootdir=self.rootdir, who=_WHO, fix=self._fix())
        if found is None:
            return None
        header, entries = found
        settings = header["settings"]
        if settings.get("format") not in READABLE:
            raise ValueError(
                f"monitor state {self.name!r} ({self.header_path}) was written in monitor format "
                f"{settings.get('format')!r}; this version of ek reads formats {', '.join(map(str, READABLE))}. "
                "Read it with the version of ek that wrote it, or start a new monitor under another name (the old "
                "state is left as it is)."
            )
        calibration = entries.get("calibration")
        if not isinstance(calibration, dict):
            raise ValueError(f"monitor state {self.name!r} has no calibration chunk; it is damaged. {self._fix()}")
        updates = [entries[k] for k in sorted(k for k in entries if k.startswith("u"))]
        for k, update in enumerate(updates):
            if not isinstance(update, dict) or update.get("index") != k:
                raise ValueError(f"monitor state {self.name!r}: update {k} is missing or damaged. {self._fix()}")
        return settings, calibration, updates

    def create(self, settings: dict[str, Any], calibration: dict[str, Any]) -> None:
        """Store a new monitor: its settings and the calibration set's signals."""
        run = self._open(settings, resume=False)
        try:
            run.store.write({"calibration": calibration})
            run.close({"updates": 0})
        finally:
            run.release()

    def append(self, settings: dict[str, Any], update: dict[str, Any], table: dict[str, Any] | None) -> None:
        """Store one update (and its window's table) as one unit, after checking it follows the stored ones.

        Raises:
            ValueError: another process appended meanwhile (this monitor is stale).
        """
        run = self._open(settings, resume=True)
        try:
            stored = run.store.next_seq - 1  # chunk 0 holds the calibration set
            if stored != update["index"]:
                raise ValueError(
                    f"monitor state {self.name!r} has {stored} updates, but this monitor holds "
                    f"{update['index']}: another process updated it since it was loaded. Load it again with "
                    f"Monitor.load({self.name!r}) and repeat this update."
                )
            if table is not None:
                self._tables()[self._table_key(update["window"]["index"])] = pack_table(table)
            run.store.write({f"u{update['index']:06d}": update})
            run.close({"updates": update["index"] + 1, "last_time": update["time"]})
        finally:
            run.release()

    def table(self, window: int) -> dict[str, Any]:
        """The items of window ``window``."""
        return unpack_table(self._tables()[self._table_key(window)])

    # ------------------------------------------------------------------

    def _open(self, settings: dict[str, Any], *, resume: bool) -> Any:
        return open_run(
            KIND,
            who=_WHO,
            persist=True,
            run_id=self.name,
            rootdir=self.rootdir,
            settings=settings,
            resume=resume,
            n_items=0,
        )

    def _tables(self) -> Any:
        return json_store("results", rootdir=self.rootdir)

    def _table_key(self, window: int) -> str:
        return f"{KIND}.{self.name}.table.{window:06d}"

    def _fix(self) -> str:
        return f"Restore {self.header_path.parent.parent} from a backup, or start a new monitor under another name."


def pack_table(table: dict[str, Any]) -> dict[str, Any]:
    """A window's items as JSON: ids as a list, probabilities and signals as base64 little-endian float64, decisions as digits.

    Binary columns keep a 100,000-item window's write to a few tens of
    milliseconds (the same numbers as JSON floats take ten times longer to
    write and read back).
    """
    return {
        "ids": list(table["ids"]),
        "p": _pack(table["p"]),
        "decision": "".join(map(str, table["decision"].tolist())),
        "signals": {name: _pack(col) for name, col in table["signals"].items()},
    }


def unpack_table(record: dict[str, Any]) -> dict[str, Any]:
    """The table `pack_table` wrote."""
    import numpy as np

    return {
        "ids": tuple(record["ids"]),
        "p": _unpack(record["p"]),
        "decision": np.frombuffer(record["decision"].encode("ascii"), dtype=np.uint8).astype(np.int64) - ord("0"),
        "signals": {name: _unpack(col) for name, col in record["signals"].items()},
    }


def _pack(values: Any) -> str:
    import numpy as np

    return base64.b64encode(np.ascontiguousarray(values, dtype="<f8").tobytes()).decode("ascii")


def _unpack(text: str) -> Any:
    import numpy as np

    return np.frombuffer(base64.b64decode(text), dtype="<f8").astype(np.float64)
