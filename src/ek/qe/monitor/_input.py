"""A monitor's input checked at the door: window items, audit labels, times.

Public through `ek.qe.monitor`. Every refusal names the item (its id, or
its position when it has none) and the field, and says what to fix;
nothing is stored before all of a window and its audit are read.

* An item is a mapping with an ``id`` (str or int, unique in the window),
  ``signals`` (a mapping ``name -> finite number`` with exactly the names
  the calibration set has) and optionally a ``time``.
* An audit is a mapping ``id -> correct`` or an iterable of
  ``{"id": ..., "correct": bool}`` records.
* A time is a number or an ISO 8601 date or date-time string (compared as
  such; a date-time without a zone is read as UTC). All updates of one
  monitor use one of the two, and each is later than the last.
"""

from __future__ import annotations

import datetime
import math
import numbers
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from operator import itemgetter, methodcaller
from typing import Any

from ek._util import type_name

__all__ = ["Window", "read_audit", "read_window", "time_key"]


@dataclass(frozen=True)
class Window:
    """One window's items: ids, the ``(n, k)`` signal matrix, and the latest item time (None without times)."""

    ids: list[str]
    signals: Any
    time: Any


def read_window(items: Iterable[Any], names: list[str]) -> Window:
    """The checked items of a window, their signals as columns in ``names`` order.

    A well-formed window is read in a few array passes; any doubt sends it
    through the item-by-item checks, which name what is wrong.
    """
    items = list(items)
    fast = _read_fast(items, names)
    return fast if fast is not None else _read_checked(items, names)


def _read_fast(items: list[Any], names: list[str]) -> Window | None:
    """The window when every item is a plain dict with a unique str/int id and finite float/int signals, else None.

    Written as C-level passes (``map`` over ``itemgetter``): a 100,000-item
    window reads in a few tens of milliseconds.
    """
    import numpy as np

    try:
        ids = list(map(itemgetter("id"), items))
        signals = list(map(itemgetter("signals"), items))
        columns = [list(map(itemgetter(name), signals)) for name in names]
    except (TypeError, KeyError, IndexError):
        return None
    id_types = set(map(type, ids))
    if id_types - {str, int} or "" in ids:
        return None
    ids = ids if id_types == {str} else list(map(str, ids))  # 1 and "1" are one id: compared as text
    if len(set(ids)) != len(ids):
        return None
    if set(map(type, signals)) != {dict} or set(map(len, signals)) != {len(names)}:
        return None
    if any(set(map(type, column)) - {float, int} for column in columns):
        return None
    matrix = np.asarray(columns, dtype=np.float64).T.reshape(len(ids), len(names))
    if not np.isfinite(matrix).all():
        return None
    try:
        times = set(map(methodcaller("get", "time"), items))
        keys = {} if times == {None} else {t: time_key(t, "window item time") for t in times}
    except (TypeError, ValueError):  # a missing or bad time: the checks below name the item
        return None
    if len({kind for kind, _ in keys.values()}) > 1:  # mixed kinds: the checks below name the item
        return None
    latest = max(keys, key=keys.__getitem__) if keys else None
    return Window(ids, np.ascontiguousarray(matrix), latest)


def _read_checked(items: list[Any], names: list[str]) -> Window:
    import numpy as np

    ids: list[str] = []
    rows: list[list[float]] = []
    times: list[Any] = []
    seen: set[str] = set()
    wanted = set(names)
    for k, item in enumerate(items):
        where = f"window item {k}"
        if not isinstance(item, Mapping):
            raise TypeError(f"{where} is a {type_name(item)}, not a mapping with 'id' and 'signals'.")
        item_id = _item_id(item.get("id"), where)
        where = f"window item {item_id!r}"
        if item_id in seen:
            raise ValueError(f"{where} appears twice in the window; give every item one id of its own.")
        seen.add(item_id)
        signals = item.get("signals")
        if not isinstance(signals, Mapping) or set(signals) != wanted:
            got = sorted(map(str, signals)) if isinstance(signals, Mapping) else type_name(signals)
            raise ValueError(
                f"{where} has signals {got}, but the calibrator was fitted on {sorted(names)}; a window must carry "
                "the raw signals the calibration set had, under the same names."
            )
        rows.append([_finite(signals[name], f"{where} signal {name!r}") for name in names])
        ids.append(item_id)
        if item.get("time") is not None:
            key = time_key(item["time"], f"{where} 'time'")
            if times and key[0] != times[0][0][0]:
                raise ValueError(
                    f"{where} has the time {item['time']!r:.40}, a {key[0]}, but the window's first time "
                    f"{times[0][1]!r:.40} is a {times[0][0][0]}; keep one kind of time (numbers or ISO 8601 dates)."
                )
            times.append((key, item["time"]))
    if times and len(times) != len(ids):
        raise ValueError("some window items have a 'time' and others not; give every item one, or none.")
    latest = max(times, key=lambda kv: kv[0])[1] if times else None
    return Window(ids, np.asarray(rows, dtype=np.float64).reshape(len(ids), len(names)), latest)


def read_audit(audit: Any) -> dict[str, bool]:
    """``id -> correct`` from a mapping or from ``{"id", "correct"}`` records."""
    if audit is None:
        return {}
    pairs: list[tuple[Any, Any, str]] = []
    if isinstance(audit, Mapping):
        pairs = [(k, v, f"audit id {k!r}") for k, v in audit.items()]
    else:
        for k, record in enumerate(audit):
            if not isinstance(record, Mapping) or "id" not in record or "correct" not in record:
                raise ValueError(
                    f"audit record {k} is {record!r:.80}; each needs an 'id' and a 'correct' (true/false)."
                )
            pairs.append((record["id"], record["correct"], f"audit record {k} (id {record['id']!r})"))
    out: dict[str, bool] = {}
    for raw_id, correct, where in pairs:
        item_id = _item_id(raw_id, where)
        if not isinstance(correct, bool) and correct not in (0, 1):
            raise ValueError(f"{where} has correct={correct!r:.40}; it must be true or false (1 or 0).")
        if item_id in out:
            raise ValueError(f"{where} is audited twice in this audit; keep one label per item.")
        out[item_id] = bool(correct)
    return out


def time_key(value: Any, where: str) -> tuple[str, Any]:
    """A comparable key of a time: ``("number", x)`` or ``("date", aware datetime)``."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        if not math.isfinite(value):
            raise ValueError(f"{where} is {value!r}; a time must be a finite number or an ISO 8601 date.")
        return ("number", float(value))
    if isinstance(value, str):
        try:
            parsed = datetime.datetime.fromisoformat(value)
        except ValueError:
            raise ValueError(
                f"{where} is {value!r:.40}, neither a number nor an ISO 8601 date (e.g. '2026-12-01' or "
                "'2026-12-01T08:00:00+00:00')."
            ) from None
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=datetime.timezone.utc)
        return ("date", parsed)
    raise TypeError(f"{where} is a {type_name(value)}; a time must be a number or an ISO 8601 date string.")


def _item_id(value: Any, where: str) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int)) or value == "":
        raise ValueError(f"{where} has id {value!r:.40}; every item needs an 'id', a non-empty str or an int.")
    return str(value)


def _finite(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{where} is a {type_name(value)} ({value!r:.40}); a raw signal must be a number.")
    if not math.isfinite(value):
        raise ValueError(
            f"{where} is {value!r}; a raw signal must be finite (a NaN would be calibrated into a meaningless "
            "probability). Fix the signal or leave the item out of the window."
        )
    return float(value)
