"""Merge monitors that watched disjoint items of one stream (workers splitting the traffic).

Public through `ek.qe.monitor` (`Monitor.merge`). Updates with the same
time become one update: their windows one window (the sums and PSI counts
add; the KS statistics need the samples, so a merged window has none), and
their audit rows one batch in id order, each row pointing at its window's
new index. The confidence sequences are then replayed over the merged
rows: they depend on the order of the observations, not only on sums, so
this is the one way to get them, and it gives exactly the sequences of one
monitor fed the union (its audits are taken in id order too). The change
detectors are replayed the same way: their e-values and alarms are those
of that one monitor.
"""

from __future__ import annotations

from typing import Any

from ek.qe.monitor import _figures as figures
from ek.qe.monitor._input import time_key

__all__ = ["merge_books"]


def merge_books(books: list[Any]) -> Any:
    """One in-memory `Book` over the union of ``books``' items."""
    from ek.qe.monitor._book import Book, as_rows

    first = books[0]
    for other in books[1:]:
        for key in ("format", "calibrator", "gate", "signals", "calibration", "promise", "alpha", "level"):
            if other.settings.get(key) != first.settings.get(key):
                raise ValueError(
                    f"Monitor.merge() got monitors with different {key} ({first.settings.get(key)!r:.60} and "
                    f"{other.settings.get(key)!r:.60}); only monitors of one calibrator, gate and set merge."
                )
    _check_disjoint(books)
    _check_one_kind_of_time(books)
    merged = Book(first.calibrator, first.gate, first.settings, first.values, None, [])
    by_time: dict[Any, list[tuple[int, dict[str, Any]]]] = {}
    for b, book in enumerate(books):
        for update in book.updates:
            by_time.setdefault(time_key(update["time"], "stored update time"), []).append((b, update))
    renumber: dict[tuple[int, int], int] = {}
    for key in sorted(by_time):
        parts = by_time[key]
        window, table = _window(books, parts, len(merged.windows), renumber)
        rows = _rows(parts, renumber, merged.names)
        state, sequence, fired = merged.state.advance(as_rows(rows))
        update = {"index": len(merged.updates), "time": parts[0][1]["time"], "window": window, "audits": rows}
        update.update(sequence=sequence, fired=fired)
        merged.commit(update, table, state)
    return merged


def _check_disjoint(books: list[Any]) -> None:
    seen: dict[str, int] = {}
    for b, book in enumerate(books):
        for w in range(len(book.windows)):
            for item in book.table(w)["ids"]:
                if seen.setdefault(item, b) != b:
                    raise ValueError(
                        f"Monitor.merge() got item {item!r} in two monitors; merge only monitors of disjoint items "
                        "(split the traffic by item id)."
                    )


def _check_one_kind_of_time(books: list[Any]) -> None:
    """ValueError when some monitors count time in numbers and others in dates: their updates have no order."""
    kinds: dict[str, tuple[int, Any]] = {}
    for b, book in enumerate(books):
        for update in book.updates[:1]:  # a monitor keeps one kind (Monitor.update refuses a change)
            kinds.setdefault(time_key(update["time"], "stored update time")[0], (b, update["time"]))
    if len(kinds) > 1:
        (kind_a, (a, when_a)), (kind_b, (b, when_b)) = list(kinds.items())[:2]
        raise ValueError(
            f"Monitor.merge() got monitor {a} timed in {kind_a}s ({when_a!r:.40}) and monitor {b} in {kind_b}s "
            f"({when_b!r:.40}); merge only monitors that use one kind of time."
        )


def _window(books: list[Any], parts: list[Any], index: int, renumber: dict[tuple[int, int], int]) -> tuple[Any, Any]:
    """The merged window of one time (None when no part has one) and its table."""
    windows = [(b, u["window"]) for b, u in parts if u["window"] is not None]
    if not windows:
        return None, None
    import numpy as np

    names = books[0].names
    tables = []
    for b, w in windows:
        renumber[(b, w["index"])] = index
        tables.append(books[b].table(w["index"]))
    table = {
        "ids": [i for t in tables for i in t["ids"]],
        "p": np.concatenate([t["p"] for t in tables]),
        "decision": np.concatenate([t["decision"] for t in tables]),
        "signals": {name: np.concatenate([t["signals"][name] for t in tables]) for name in names},
    }
    psi = {name: [sum(c) for c in zip(*(w["psi"][name] for _, w in windows))] for name in names}
    record = {
        "index": index,
        "time": windows[0][1]["time"],
        "sums": figures.merge_sums([w["sums"] for _, w in windows]),
        "psi": psi,
        "ks": None,
    }
    return record, table


def _rows(parts: list[Any], renumber: dict[tuple[int, int], int], names: list[str]) -> dict[str, Any]:
    """The audit rows of one time's updates, in id order, pointing at the merged windows."""
    flat = []
    for b, update in parts:
        rows = update["audits"]
        for k, item in enumerate(rows["id"]):
            values = [rows["signals"][name][k] for name in names]
            flat.append(
                (item, renumber[(b, rows["window"][k])], rows["p"][k], rows["decision"][k], rows["correct"][k], values)
            )
    flat.sort(key=lambda r: r[0])
    out: dict[str, Any] = {"id": [], "window": [], "p": [], "decision": [], "correct": []}
    out["signals"] = {name: [] for name in names}
    for item, w, p, code, correct, values in flat:
        for column, value in zip(("id", "window", "p", "decision", "correct"), (item, w, p, code, correct)):
            out[column].append(value)
        for name, value in zip(names, values):
            out["signals"][name].append(value)
    return out
