"""Parse record files (JSONL, JSON, CSV, TSV) into a `Table` of raw records.

Nothing here knows about ids or value fields; `ek._files._sides` reads
those. Line and row numbers are worked out only when an error needs them,
so the common path is a few C-level calls per file.

What is refused, each naming the file and the line (or key, or column):

* JSONL: a line that is not exactly one JSON value (two values on one
  line, or one value split over two lines).
* JSON: an object that gives one key twice (JSON would keep the last).
* CSV/TSV: a header that names a column twice, a row with fewer or more
  cells than the header, and a quoted cell whose quote is never closed
  (the line where that row began is named).
* All: values nested deeper than the parser can follow, and integers of
  more digits than Python converts (4300 by default).
"""

from __future__ import annotations

import csv
import io
import json
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ek._files._errors import InputError

_MARK = "\x01"
_SEPARATOR = '"\\u0001"'  # the JSON text of _MARK, put between the lines of a JSONL file to parse them at once
_JOINER = f",{_SEPARATOR},"


@dataclass(frozen=True)
class Table:
    """Raw records of one file; ``keys`` are the ids of a JSON object mapping, else None.

    ``records`` are parsed JSON values (or, for CSV and TSV, dicts of cell
    texts), not yet checked: `ek._files._sides` checks their shape.
    ``where(i)`` says where record ``i`` sits ("line 7", "row 3"), for messages.
    """

    records: list[Any]
    keys: list[str] | None
    where: Callable[[int], str]
    columns: list[str] | None = None  # CSV/TSV header


def parse_jsonl(text: str, label: str) -> Table:
    """Exactly one JSON value per non-blank line."""
    body = text.strip()
    records = _bulk(body) if body else []  # one C call per step
    lines: list[str] = []
    if records is None:  # blank lines, or a bad one: go line by line
        lines = text.split("\n")
        records = _bulk("\n".join(line for line in lines if line.strip()))
        if records is None:
            records = _line_by_line(lines, label)
    numbers: list[int] = []

    def where(i: int) -> str:
        if not numbers:
            numbers.extend(k + 1 for k, line in enumerate(lines or text.split("\n")) if line.strip())
        return f"line {numbers[i]}"

    return Table(records, None, where)


def parse_json(text: str, label: str) -> Table:
    """A JSON array of records, or an object mapping id -> record; no object may repeat a key."""
    try:
        value = json.loads(text, object_pairs_hook=_unique_keys)
    except _RepeatedKey as exc:
        raise InputError(
            f"{label} gives the key {exc.args[0]!r} twice in one object; JSON would keep only the last, "
            "so give each key (each id of a mapping) once."
        ) from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{label} is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}.") from None
    except (ValueError, RecursionError) as exc:
        raise _unparsable(label, _line_of_failure(text, exc), exc) from None
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
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    rows: list[list[str]] = []
    numbers: list[int] = []
    start = 1
    try:
        for row in reader:
            if row and (len(row) > 1 or row[0].strip()):  # a blank line is no record
                rows.append(row)
                numbers.append(start)
            start = reader.line_num + 1
    except csv.Error as exc:
        quote = "end of data" in str(exc) or "expected after" in str(exc)
        raise InputError(
            f"{label} line {start} is not valid {_kind(delimiter)}: {exc}"
            + (
                " (a quoted cell that begins on that line is not closed where it should be); close the quote, "
                'and double any " inside a quoted cell.'
                if quote
                else "."
            )
        ) from None
    if not rows:
        return Table([], None, lambda i: f"line {numbers[i]}", [])
    columns = rows[0]
    _check_header(columns, label)
    width = len(columns)
    for row, line in zip(rows[1:], numbers[1:]):
        if len(row) != width:
            raise _bad_width(label, line, len(row), width)
    records = [dict(zip(columns, row)) for row in rows[1:]]
    body = numbers[1:]
    return Table(records, None, lambda i: f"line {body[i]}", columns)


# ---------------------------------------------------------------------------


class _RepeatedKey(Exception):
    """Raised inside the JSON parser when an object repeats a key."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    value = dict(pairs)
    if len(value) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _RepeatedKey(key)
            seen.add(key)
    return value


def _bulk(body: str) -> list[Any] | None:
    """The one value of each line of ``body``, parsed in one call; None when that is not what it holds.

    The lines are parsed as one array with a marker string between them
    (`_JOINER`). A line holding two values, or a value split over two
    lines, leaves some marker off its place (every second element, at the
    top level), so only lines of exactly one value each pass. A body that
    holds the marker itself goes line by line instead (a body without a
    backslash cannot: one ``in`` of a single character is a memchr, that of
    the marker's text a slower search).
    """
    if "\\" in body and _SEPARATOR in body:
        return None
    joined = body.replace("\n", _JOINER)
    n = 1 + (len(joined) - len(body)) // (len(_JOINER) - 1)  # the lines, counted by what the markers added
    try:
        values: list[Any] = json.loads(f"[{joined}]")  # an f-string copies once, "[" + ... + "]" twice
    except (ValueError, RecursionError):
        return None
    if len(values) != 2 * n - 1 or values[1::2] != [_MARK] * (n - 1):
        return None
    return values[0::2]


def _kind(delimiter: str) -> str:
    return "TSV" if delimiter == "\t" else "CSV"


def _check_header(columns: list[str], label: str) -> None:
    seen: dict[str, int] = {}
    for k, name in enumerate(columns):
        if name in seen:
            raise InputError(
                f"{label} line 1 names the column {name!r} twice (columns {seen[name] + 1} and {k + 1}); "
                "give every column its own name."
            )
        seen[name] = k


def _bad_width(label: str, line: int, cells: int, width: int) -> InputError:
    if cells > width:
        return InputError(
            f"{label} line {line} has more cells than the header's {width} columns ({cells}); "
            "quote cells that contain the delimiter."
        )
    return InputError(
        f"{label} line {line} has {cells} cell{'s' if cells != 1 else ''} but the header has "
        f"{width} columns; give every column a cell (an empty one is two delimiters in a row)."
    )


def _unparsable(label: str, where: str, exc: BaseException) -> InputError:
    """A value the JSON parser gives up on: nested too deep, or an integer with too many digits."""
    if isinstance(exc, RecursionError):
        return InputError(
            f"{label}{where} nests arrays or objects deeper than ek can read (about "
            f"{sys.getrecursionlimit():,} levels); flatten the value."
        )
    if "digits" in str(exc):
        return InputError(
            f"{label}{where} holds an integer of more than {sys.get_int_max_str_digits()} digits, "
            "which Python does not convert; write it as a string (in quotes)."
        )
    return InputError(f"{label}{where} is not valid JSON: {exc}.")


def _line_of_failure(text: str, exc: BaseException) -> str:
    """`` line N`` of a JSON file where an over-long integer stands or the nesting gets too deep ("" if not found)."""
    if isinstance(exc, RecursionError):
        at = _too_deep_at(text, sys.getrecursionlimit() // 2)
    else:
        found = re.search(rf"\d{{{sys.get_int_max_str_digits() + 1},}}", text)
        at = found.start() if found else -1
    if at < 0:
        return ""
    line = text.count("\n", 0, at) + 1
    return f" line {line}"


def _too_deep_at(text: str, depth: int) -> int:
    """The offset where brackets outside strings first nest ``depth`` deep, or -1."""
    level, in_string, escaped = 0, False, False
    for k, char in enumerate(text):
        if in_string:
            escaped, in_string = (False, True) if escaped else (char == "\\", char != '"')
        elif char == '"':
            in_string = True
        elif char in "[{":
            level += 1
            if level >= depth:
                return k
        elif char in "]}":
            level -= 1
    return -1


def _line_by_line(lines: list[str], label: str) -> list[Any]:
    """The value of each non-blank line, parsed one at a time; InputError at the first line that is not one value."""
    decoder = json.JSONDecoder()
    records = []
    for k, line in enumerate(lines):
        body = line.strip()
        if not body:
            continue
        try:
            value, end = decoder.raw_decode(body)
            if end != len(body):
                raise json.JSONDecodeError("extra data after the value", body, end)
        except json.JSONDecodeError as exc:
            column = exc.colno + len(line) - len(line.lstrip())
            raise InputError(
                f"{label} line {k + 1} is not valid JSON: {exc.msg} at column {column}; "
                "put one JSON object on each line."
            ) from None
        except (ValueError, RecursionError) as exc:
            raise _unparsable(label, f" line {k + 1}", exc) from None
        records.append(value)
    return records
