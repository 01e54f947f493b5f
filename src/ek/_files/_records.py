"""Parse record files (JSONL, JSON, CSV, TSV) into a `Table` of raw records.

Nothing here knows about ids or value fields; `ek._files._sides` reads
those. Line and row numbers are worked out only when an error needs them,
so the common path is a few C-level calls per file.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from typing import Callable, Optional

from ek._files._errors import InputError


@dataclass(frozen=True)
class Table:
    """Raw records of one file; ``keys`` are the ids of a JSON object mapping, else None.

    ``where(i)`` says where record ``i`` sits ("line 7", "row 3"), for messages.
    """

    records: list
    keys: Optional[list]
    where: Callable[[int], str]
    columns: Optional[list] = None  # CSV/TSV header


def parse_jsonl(text: str, label: str) -> Table:
    """One JSON value per non-blank line."""
    body = text.strip()
    records = _bulk(body.replace("\n", ","), body.count("\n") + 1) if body else []  # one C call per step
    lines: list = []
    if records is None:  # blank lines, or a bad one: go line by line
        lines = text.split("\n")
        kept = [line for line in lines if line.strip()]
        records = _bulk(",".join(kept), len(kept))
        if records is None:
            _locate_bad_line(lines, label)
            raise InputError(f"{label} is not valid JSONL; put one JSON object on each line.")
    numbers: list = []

    def where(i: int) -> str:
        if not numbers:
            numbers.extend(k + 1 for k, line in enumerate(lines or text.split("\n")) if line.strip())
        return f"line {numbers[i]}"

    return Table(records, None, where)


def parse_json(text: str, label: str) -> Table:
    """A JSON array of records, or an object mapping id -> record."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{label} is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}.") from None
    if isinstance(value, list):
        return Table(value, None, lambda i: f"record {i + 1}")
    if isinstance(value, dict):
        keys = list(value)
        return Table(list(value.values()), keys, lambda i: f"key {keys[i]!r}")
    raise InputError(
        f"{label} holds a JSON {type(value).__name__}; give an array of records or an object "
        "mapping each id to its record."
    )


def parse_delimited(text: str, label: str, *, delimiter: str) -> Table:
    """A CSV or TSV file with a header row; every record maps column -> cell text."""
    reader = csv.DictReader(io.StringIO(text, newline=""), delimiter=delimiter, restval="")
    records, numbers = [], []
    try:
        for row in reader:
            records.append(row)
            numbers.append(reader.line_num)
    except csv.Error as exc:
        raise InputError(f"{label} line {reader.line_num} is not valid {_kind(delimiter)}: {exc}.") from None
    columns = list(reader.fieldnames or [])
    for i, row in enumerate(records):
        if None in row:
            raise InputError(
                f"{label} line {numbers[i]} has more cells than the header's {len(columns)} columns; "
                "quote cells that contain the delimiter."
            )
    return Table(records, None, lambda i: f"line {numbers[i]}", columns)


def _bulk(joined: str, n: int) -> Optional[list]:
    """The ``n`` comma-joined values parsed in one call, or None when that is not what ``joined`` holds."""
    try:
        records = json.loads("[" + joined + "]")
    except ValueError:
        return None
    return records if len(records) == n else None


def _kind(delimiter: str) -> str:
    return "TSV" if delimiter == "\t" else "CSV"


def _locate_bad_line(lines: list, label: str) -> None:
    decoder = json.JSONDecoder()
    for k, line in enumerate(lines):
        body = line.strip()
        if not body:
            continue
        try:
            _, end = decoder.raw_decode(body)
            if end != len(body):
                raise json.JSONDecodeError("extra data after the value", body, end)
        except json.JSONDecodeError as exc:
            column = exc.colno + len(line) - len(line.lstrip())
            raise InputError(
                f"{label} line {k + 1} is not valid JSON: {exc.msg} at column {column}; "
                "put one JSON object on each line."
            ) from None
