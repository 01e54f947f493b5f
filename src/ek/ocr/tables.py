"""Recover a table from an OCR result, as the `ek.metrics.tables.Table` that TEDS/GriTS score.

ocracy's ``OcrResult`` has no table type: its blocks stop at ``block`` level.
Table structure survives only in the engine's own payload (``.raw``: Textract
``Blocks``, Azure ``tables``, PaddleOCR's ``pred_html``) or in the HTML and
Markdown an engine writes (``.markdown``). This module is ek's side of that
gap; ocracy is never imported and never changed.

How a table is found:

* ``parser=None`` uses a few strict rules (see `table_from_ocr`) and returns
  None when none applies; it does not guess.
* ``parser="name"`` uses a per-engine parser registered in the
  ``"table_parsers"`` namespace. Built in: ``"aws-textract"``,
  ``"azure-document-intelligence"``, ``"paddleocr"``,
  ``"paddleocr-ppstructure"``, ``"mistral-ocr"`` and ``"markdown"`` (an HTML
  table or a GitHub pipe table in Markdown text).
* ``parser=callable`` is your own ``(raw) -> Table | grid | html | None``.

>>> class Result:  # anything with a .raw (or .markdown / .meta) will do
...     raw = {"tables": [[["a", "b"], ["c", "d"]]]}
>>> [[c.text for c in row] for row in table_from_ocr(Result()).rows]
[['a', 'b'], ['c', 'd']]
>>> class Prose:
...     raw = {"text": "no table here"}
>>> has_table_structure(Prose())
False
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from ek._util import type_name
from ek.metrics.tables import Table
from ek.ocr._ids import canonical_id
from ek.ocr.profiles import profile
from ek.registry import get, names, register

__all__ = [
    "TABLE_PARSERS_NAMESPACE",
    "engine_yields_tables",
    "has_table_structure",
    "resolve_table_parser",
    "table_from_ocr",
]

#: Registry namespace of the per-engine table parsers.
TABLE_PARSERS_NAMESPACE = "table_parsers"

# Keys of a .raw / .meta mapping that may hold a table, in the order tried.
_TABLE_KEYS = ("tables", "table", "cells", "grid", "html")
_HTML_TABLE = re.compile(r"<table\b.*?</table\s*>", re.IGNORECASE | re.DOTALL)
# The largest spans HTML allows (browsers clamp larger ones to these).
_MAX_ROWSPAN, _MAX_COLSPAN = 65534, 1000
_PIPE_RULE = re.compile(r"^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?$")

Parser = Callable[[Any], Any]


def table_from_ocr(ocr_result: object, *, parser: None | str | Parser = None) -> Table | None:
    """The table in ``ocr_result`` as a non-empty `Table`, or None when there is none.

    Args:
        ocr_result: any object shaped like an ``OcrResult``; only its ``.raw``,
            ``.markdown`` and ``.meta`` are read.
        parser: None for the built-in rules; the name of a parser registered in
            the ``"table_parsers"`` namespace; or a callable
            ``(raw) -> Table | grid | html | None``. A parser receives the
            result's ``.raw``, or the result itself when ``.raw`` is absent or
            None, and whatever it returns (other than None) goes through
            ``Table.coerce``.

    The built-in rules, tried in order, take the first table found:

    1. ``.raw`` is a `Table`, a 2-D grid (rows of cells that are text,
       numbers or None) or a string holding an HTML ``<table>``;
    2. ``.raw``, then ``.meta``, is a mapping with one of the keys ``tables``,
       ``table``, ``cells``, ``grid``, ``html`` holding such a value (or, for
       ``tables``, a list of them: the first non-empty one is used);
    3. ``.markdown`` (or ``.meta["markdown"]``) contains an HTML ``<table>``.

    Returns:
        The first table recovered, or None. A table without cells counts as
        none, so callers never see a degenerate empty table; so does a value
        the built-in rules find but cannot parse (say, a grid whose None
        cells no neighbour spans).

    Raises:
        KeyError: ``parser`` names no registered parser (the message lists them).
        TypeError: ``parser`` is neither a name nor a callable, or it returned
            something that is not a table.
    """
    if parser is None:
        found = _heuristic(ocr_result)
    else:
        fn = resolve_table_parser(parser)
        raw = getattr(ocr_result, "raw", None)
        value = fn(ocr_result if raw is None else raw)
        found = None if value is None else _coerce(value, parser)
    return found if found is not None and _cell_count(found) else None


def has_table_structure(ocr_result: object, *, parser: None | str | Parser = None) -> bool:
    """Whether `table_from_ocr` finds a table with at least one cell (same ``parser``).

    Use it to send a result to the table metrics or to plain CER/WER.
    """
    return table_from_ocr(ocr_result, parser=parser) is not None


def resolve_table_parser(ref: str | Parser) -> Parser:
    """The parser ``ref`` stands for: a registered name is looked up, a callable returned as is.

    Names are tried as given, then in ocracy's hyphenated spelling, so
    ``"aws_textract"`` finds ``"aws-textract"``.

    Raises:
        KeyError: no parser is registered under that name (the message lists them).
        TypeError: ``ref`` is neither a str nor a callable.
    """
    if isinstance(ref, str):
        known = names(TABLE_PARSERS_NAMESPACE)
        alias = canonical_id(ref)
        parser: Callable[[Any], Any] = get(
            TABLE_PARSERS_NAMESPACE, alias if ref not in known and alias in known else ref
        )
        return parser
    if callable(ref):
        return ref
    raise TypeError(
        f"a table parser must be a registered name or a callable (raw) -> table, got "
        f"{type_name(ref)}. Registered parsers: {', '.join(names(TABLE_PARSERS_NAMESPACE))}; "
        "pass parser=None to table_from_ocr() for the built-in rules."
    )


def engine_yields_tables(engine: str) -> bool:
    """Whether ``engine``'s capability profile claims it emits scoreable tables.

    A prior from `ek.ocr.profile` (True for Azure Document Intelligence, AWS
    Textract and PaddleOCR); check it by running `table_from_ocr` on real output.
    """
    return bool(profile(engine)["tables"])


# ---------------------------------------------------------------------------
# Built-in rules and coercion


def _heuristic(result: Any) -> Table | None:
    raw = getattr(result, "raw", None)
    found = _table_value(raw)
    if found is not None:
        return found
    meta = getattr(result, "meta", None)
    for holder in (raw, meta):
        if isinstance(holder, Mapping):
            for key in _TABLE_KEYS:
                if key in holder:
                    value = holder[key]
                    found = _first_table(value) if key == "tables" else _table_value(value)
                    if found is not None:
                        return found
    markdown = getattr(result, "markdown", None)
    if not isinstance(markdown, str) and isinstance(meta, Mapping):
        markdown = meta.get("markdown")
    if isinstance(markdown, str):
        return _table_value(_html_table(markdown))
    return None


def _first_table(value: Any) -> Table | None:
    """A single table, or the first non-empty one of a list of tables."""
    found = _table_value(value)
    if found is not None or not isinstance(value, (list, tuple)):
        return found
    for item in value:
        found = _table_value(item)
        if found is not None and _cell_count(found):
            return found
    return None


def _table_value(value: Any) -> Table | None:
    """``value`` as a Table when it unambiguously is one (Table, grid, HTML table), else None."""
    if isinstance(value, Table):
        return value
    if isinstance(value, str):
        value = _html_table(value)
    elif _is_grid(value):
        value = [list(row) for row in value]
    else:
        return None
    if value is None:
        return None
    try:
        return Table.coerce(value)
    except (TypeError, ValueError):  # malformed markup or spans: not a table we can trust
        return None


def _is_grid(value: Any) -> bool:
    return (
        isinstance(value, (list, tuple))
        and len(value) > 0
        and all(isinstance(row, (list, tuple)) for row in value)
        and all(
            cell is None or isinstance(cell, (str, int, float)) and not isinstance(cell, bool)
            for row in value
            for cell in row
        )
    )


def _html_table(text: str | None) -> str | None:
    match = _HTML_TABLE.search(text) if text else None
    return match.group(0) if match else None


def _coerce(value: Any, parser: Any) -> Table:
    try:
        return Table.coerce(value)
    except (TypeError, ValueError) as exc:
        label = parser if isinstance(parser, str) else getattr(parser, "__name__", type_name(parser))
        raise TypeError(
            f"table parser {label!r} returned {type_name(value)} ({value!r:.60}), which is not a "
            f"Table, a 2-D grid of cell strings or an HTML <table> ({exc}). Make the parser "
            "return one of these, or None when there is no table."
        ) from exc


def _cell_count(table: Table) -> int:
    return sum(len(row) for row in table.rows)


# ---------------------------------------------------------------------------
# Per-engine parsers (registered below)


def _cells_to_html(cells: list[tuple[int, int, int, int, str]]) -> str | None:
    """HTML for cells given as ``(row, col, rowspan, colspan, text)``, rows in order."""
    if not cells:
        return None
    rows: dict[int, list[Any]] = {}
    spans = []
    for r, _c, rs, cs, text in sorted(cells):
        # HTML's own caps, which Table.from_html applies too: no engine field can ask for 10**9 rows
        rs, cs = min(max(rs, 1), _MAX_ROWSPAN), min(max(cs, 1), _MAX_COLSPAN)
        rows.setdefault(r, []).append((rs, cs, text))
        spans.append((r, r + rs))
    parts = ["<table>"]
    for r in _covered_rows(spans):  # a row covered only by spans from above still gets its <tr>
        parts.append("<tr>")
        for rs, cs, text in rows.get(r, ()):
            span = (f' rowspan="{rs}"' if rs > 1 else "") + (f' colspan="{cs}"' if cs > 1 else "")
            parts.append(f"<td{span}>{html.escape(text)}</td>")
        parts.append("</tr>")
    parts.append("</table>")
    return "".join(parts)


def _covered_rows(spans: list[tuple[int, int]]) -> Iterator[int]:
    """The rows that some ``[start, end)`` span covers, in order; rows in a gap no cell reaches are skipped."""
    end = None
    for start, stop in sorted(spans):
        first = start if end is None else max(start, end)
        yield from range(first, stop)
        end = stop if end is None else max(end, stop)


def _field(obj: Any, *names_: str, default: Any = None) -> Any:
    """First present attribute or mapping key among ``names_`` (SDK objects or dicts)."""
    for name in names_:
        if isinstance(obj, Mapping):
            if name in obj:
                return obj[name]
        elif hasattr(obj, name):
            return getattr(obj, name)
    return default


def _textract_table(raw: Any) -> str | None:
    """First TABLE of a Textract ``analyze_document`` response (merged cells honoured)."""
    blocks = _field(raw, "Blocks") or []
    by_id = {b.get("Id"): b for b in blocks if isinstance(b, Mapping)}
    table = next((b for b in by_id.values() if b.get("BlockType") == "TABLE"), None)
    if table is None:
        return None

    def children(block: Mapping[str, Any], kinds: tuple[Any, ...] = ("CHILD",)) -> list[Any]:
        ids = [i for rel in block.get("Relationships") or () if rel.get("Type") in kinds for i in rel.get("Ids") or ()]
        return [by_id[i] for i in ids if i in by_id]

    def words(block: Mapping[str, Any]) -> str:
        return " ".join(w.get("Text", "") for w in children(block) if w.get("BlockType") == "WORD")

    grid: dict[tuple[int, int], list[Any]] = {}
    merged = []
    for block in children(table, ("CHILD", "MERGED_CELL")):
        kind = block.get("BlockType")
        if kind == "CELL":
            key = (int(block.get("RowIndex", 1)), int(block.get("ColumnIndex", 1)))
            grid[key] = [int(block.get("RowSpan", 1)), int(block.get("ColumnSpan", 1)), words(block)]
        elif kind == "MERGED_CELL":
            merged.append(block)
    for block in merged:
        keys = [(int(c.get("RowIndex", 1)), int(c.get("ColumnIndex", 1))) for c in children(block)]
        keys = [k for k in keys if k in grid]
        if not keys:
            continue
        text = " ".join(grid[k][2] for k in sorted(keys) if grid[k][2])
        top = min(keys)
        rows = max(k[0] for k in keys) - top[0] + 1
        cols = max(k[1] for k in keys) - min(k[1] for k in keys) + 1
        for k in keys:
            del grid[k]
        grid[(top[0], min(k[1] for k in keys))] = [rows, cols, text]
    return _cells_to_html([(r, c, rs, cs, t) for (r, c), (rs, cs, t) in grid.items()])


def _azure_table(raw: Any) -> str | None:
    """First table of an Azure Document Intelligence result (SDK object or its dict form)."""
    tables = _field(raw, "tables") or []
    if not tables:
        return None
    cells = []
    for cell in _field(tables[0], "cells") or []:
        cells.append(
            (
                int(_field(cell, "row_index", "rowIndex", default=0)),
                int(_field(cell, "column_index", "columnIndex", default=0)),
                int(_field(cell, "row_span", "rowSpan", default=None) or 1),
                int(_field(cell, "column_span", "columnSpan", default=None) or 1),
                str(_field(cell, "content", default="") or ""),
            )
        )
    return _cells_to_html(cells)


def _paddle_table(raw: Any) -> str | None:
    """First HTML table in PaddleOCR structure output (``pred_html``, ``res.html`` or markdown)."""
    return _find_html(raw, depth=0)


def _find_html(obj: Any, *, depth: int) -> str | None:
    if depth > 6 or obj is None:
        return None
    if isinstance(obj, str):
        return _html_table(obj)
    if isinstance(obj, Mapping):
        for key in ("pred_html", "html", "res", "table_res_list", "markdown", "markdown_texts"):
            if key in obj:
                found = _find_html(obj[key], depth=depth + 1)
                if found:
                    return found
        return None
    if isinstance(obj, (list, tuple)):
        for item in obj:
            found = _find_html(item, depth=depth + 1)
            if found:
                return found
        return None
    return _find_html(getattr(obj, "markdown", None), depth=depth + 1)


def _markdown_table(raw: Any) -> Any:
    """First table in Markdown text: an HTML ``<table>``, else a GitHub pipe table (as a grid)."""
    text = _markdown_text(raw)
    if not text:
        return None
    return _html_table(text) or _pipe_table(text)


def _markdown_text(raw: Any) -> str | None:
    """The Markdown carried by a string, an OcrResult, a Mistral or a chat-model response."""
    if isinstance(raw, str):
        return raw
    pages = _field(raw, "pages")
    if isinstance(pages, (list, tuple)):
        return "\n\n".join(_markdown_text(p) or "" for p in pages)
    for name in ("markdown", "text"):
        value = _field(raw, name)
        if isinstance(value, str):
            return value
        if isinstance(value, Mapping) and isinstance(value.get("markdown_texts"), str):
            return str(value["markdown_texts"])
    content = _field(raw, "content")  # Anthropic message: content blocks with .text
    if isinstance(content, str):
        return content
    if isinstance(content, (list, tuple)):
        return "\n".join(t for t in (_field(b, "text") for b in content) if isinstance(t, str))
    choices = _field(raw, "choices")  # OpenAI chat completion
    if isinstance(choices, (list, tuple)) and choices:
        return _markdown_text(_field(choices[0], "message"))
    return None


register(TABLE_PARSERS_NAMESPACE, "aws-textract", _textract_table)
register(TABLE_PARSERS_NAMESPACE, "azure-document-intelligence", _azure_table)
register(TABLE_PARSERS_NAMESPACE, "paddleocr", _paddle_table)
register(TABLE_PARSERS_NAMESPACE, "paddleocr-ppstructure", _paddle_table)
register(TABLE_PARSERS_NAMESPACE, "markdown", _markdown_table)
register(TABLE_PARSERS_NAMESPACE, "mistral-ocr", _markdown_table)


def _pipe_table(text: str) -> list[list[str]] | None:
    """The first GitHub-style pipe table in ``text`` as a grid (short rows padded with '')."""
    lines = text.splitlines()
    for i in range(len(lines) - 1):
        if "|" not in lines[i] or not _PIPE_RULE.match(lines[i + 1].strip()):
            continue
        header = _pipe_cells(lines[i])
        grid = [header]
        for line in lines[i + 2 :]:
            if "|" not in line or not line.strip():
                break
            row = _pipe_cells(line)[: len(header)]
            grid.append(row + [""] * (len(header) - len(row)))
        return grid
    return None


def _pipe_cells(line: str) -> list[str]:
    body = line.strip()
    body = body.removeprefix("|")
    if body.endswith("|") and not body.endswith("\\|"):
        body = body[:-1]
    return [cell.strip().replace("\\|", "|") for cell in re.split(r"(?<!\\)\|", body)]
