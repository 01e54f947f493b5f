"""One partition's rows as the cases `ek.evaluate` takes: ``(pred, gold[, slice])`` and the item ids.

A Bag partition is a list of tuples ``(pred, gold[, slice])`` or of records
(mappings); a DataFrame partition is a pandas DataFrame. The field names
come from `Fields`. Everything is checked here, on the worker, and a bad row
is named by its partition and its position in it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

from ek._util import type_name

__all__ = ["Fields", "cases_of", "check_columns"]

_TUPLES = (tuple, list)


@dataclass(frozen=True)
class Fields:
    """Where a record (or a DataFrame row) keeps the prediction, the gold answer, the slice and the id."""

    pred: str = "pred"
    gold: str = "gold"
    slice: str | None = None
    id: str | None = None

    def missing(self, have: Any) -> tuple[str, str] | None:
        """``(argument, field)`` of the first field a record (or the columns) ``have`` lacks, or None."""
        named = [("pred", self.pred), ("gold", self.gold), ("slice", self.slice), ("id", self.id)]
        return next(((arg, name) for arg, name in named if name is not None and name not in have), None)


def check_columns(columns: Any, fields: Fields) -> None:
    """ValueError naming the first field that is not a column of the DataFrame, with the columns it has."""
    _check_has(list(columns), fields, where="the DataFrame", kind="column")


def _check_has(have: Any, fields: Fields, *, where: str, kind: str) -> None:
    lacking = fields.missing(have)
    if lacking is not None:
        arg, name = lacking
        raise ValueError(
            f"ek.dask.evaluate() {where} has no {kind} {name!r} ({arg}=); its {kind}s are: "
            f"{', '.join(map(repr, have))}. Pass {arg}= with the {kind} that holds it."
        )


def cases_of(part: Any, fields: Fields, index: int) -> tuple[list[Any], list[Any] | None, bool]:
    """``(cases, ids or None, sliced)`` of partition number ``index``."""
    if hasattr(part, "columns") and hasattr(part, "iloc"):  # a pandas DataFrame
        return _frame_cases(part, fields, index)
    rows = part if isinstance(part, list) else list(part)
    if not rows:
        return [], ([] if fields.id is not None else None), fields.slice is not None
    if isinstance(rows[0], Mapping):
        return _record_cases(rows, fields, index)
    return _tuple_cases(rows, fields, index)


def _frame_cases(frame: Any, fields: Fields, index: int) -> tuple[list[Any], list[Any] | None, bool]:
    check_columns(frame.columns, fields)
    columns = [frame[fields.pred].tolist(), frame[fields.gold].tolist()]
    if fields.slice is not None:
        columns.append([_label(x) for x in frame[fields.slice].tolist()])
    ids = frame[fields.id].tolist() if fields.id is not None else None
    return list(zip(*columns)), ids, fields.slice is not None


def _label(x: Any) -> Any:
    """A DataFrame's missing value (NaN, None, pd.NA) is no slice, as None is for `ek.evaluate`."""
    if x is None or (isinstance(x, float) and math.isnan(x)) or type(x).__name__ == "NAType":
        return None
    return x


def _record_cases(rows: list[Any], fields: Fields, index: int) -> tuple[list[Any], list[Any] | None, bool]:
    take = itemgetter(fields.pred, fields.gold, *([fields.slice] if fields.slice is not None else []))
    try:
        out = list(map(take, rows))
        ids = list(map(itemgetter(fields.id), rows)) if fields.id is not None else None
    except (KeyError, TypeError, IndexError):
        for r, row in enumerate(rows):
            _bad_record(row, r, fields, index)
        raise  # not reached: one of the rows is bad
    return out, ids, fields.slice is not None


def _bad_record(row: Any, r: int, fields: Fields, index: int) -> None:
    """Raise for ``row`` if it is not a record holding every field."""
    if not isinstance(row, Mapping):
        _not_a_case(row, r, index, fields)
    _check_has(row, fields, where=f"partition {index} row {r}", kind="field")


def _tuple_cases(rows: list[Any], fields: Fields, index: int) -> tuple[list[Any], list[Any] | None, bool]:
    for arg in ("slice", "id"):
        if getattr(fields, arg) is not None:
            raise ValueError(
                f"ek.dask.evaluate() got {arg}={getattr(fields, arg)!r}, but partition {index} holds tuples, which "
                f"have no named fields; a tuple row is (pred, gold) or (pred, gold, slice). Use records "
                f"(dicts) to name fields, or drop {arg}=."
            )
    sliced = False
    for r, row in enumerate(rows):
        n = len(row) if type(row) in _TUPLES else -1
        if n == 3:
            sliced = True
        elif n != 2:
            _not_a_case(row, r, index, fields)
    return rows, None, sliced


def _not_a_case(row: Any, r: int, index: int, fields: Fields) -> None:
    shape = f"has {len(row)} elements" if type(row) in _TUPLES else f"is a {type_name(row)} ({row!r:.40})"
    if isinstance(row, Mapping) or (type(row) in _TUPLES and len(row) in (2, 3)):
        first = "records" if isinstance(row, Mapping) else "tuples"
        raise ValueError(
            f"ek.dask.evaluate() partition {index} mixes tuples and records: its row 0 is not one of the "
            f"{first} row {r} is. Give every row one shape, e.g. bag.map(lambda r: (r['pred'], r['gold']))."
        )
    raise ValueError(
        f"ek.dask.evaluate() partition {index} row {r} {shape}; each row must be a (pred, gold) or "
        f"(pred, gold, slice) tuple, or a record with the fields {fields.pred!r} and {fields.gold!r}. "
        "Shape the rows first, e.g. bag.map(json.loads) for JSON lines."
    )
