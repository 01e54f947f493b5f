"""Reading the first ``<table>`` of an HTML string into rows of ``(text, rowspan, colspan)``.

`ek.metrics.tables.Table.from_html` imports this module on first use, so
``import ek`` never loads ``html.parser``.

Span attributes are read the way browsers read them (the HTML standard's
rules for parsing non-negative integers), because markup from OCR engines
and language models is often odd and a page shows what a browser makes of
it:

* leading ASCII whitespace and a ``+`` are skipped, then the ASCII digits
  are read and anything after them is ignored (``"2px"`` is 2);
* a value with no ASCII digit there is 1; so is ``"0"`` and a negative
  value. Other scripts' digits are not digits here (``"٣"`` is 1), as in a
  browser; Python's ``int`` would read it as 3.
* ``colspan`` is capped at 1000 and ``rowspan`` at 65534, the limits the
  standard sets, so no attribute can ask for a billion columns.

A ``rowspan="0"`` is read as 1: standards-mode pages grow such a cell to the
end of its row group, but row groups are not kept here.
"""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any

MAX_COLSPAN = 1000
MAX_ROWSPAN = 65534

_CELL_TAGS = ("td", "th")
# Tags that separate words inside a cell's text.
_BREAKS = frozenset({"br", "p", "div", "li", "table", "tr", "td", "th"})
_ASCII_SPACE = " \t\n\f\r"
_ASCII_DIGITS = "0123456789"


def parse_table(html: str) -> list[list[tuple[str, int, int]]] | None:
    """Rows of ``(text, rowspan, colspan)`` for the first ``<table>``, or None when there is none.

    Lenient where browsers are: a new ``<td>`` closes the open one, a new
    ``<tr>`` closes the open row, ``thead``/``tbody``/``tfoot`` are
    transparent, markup cut off before ``</table>`` is read as far as it
    goes, and a nested table's text belongs to the outer cell. Block tags
    (``br``, ``p``, ``div``, ``li``, table parts) inside a cell separate
    words; whitespace is collapsed.

    Raises:
        ValueError: a cell outside any row (the message says where).
    """
    parser = _TableParser()
    parser.feed(html)
    parser.close()
    parser.finish()
    return parser.rows


def read_span(value: str | None, cap: int) -> int:
    """A ``rowspan``/``colspan`` attribute value as a browser reads it, capped at ``cap``.

    >>> read_span(" 3px", 1000), read_span("٣", 1000), read_span("0", 1000), read_span("10" * 20, 1000)
    (3, 1, 1, 1000)
    """
    if value is None:
        return 1
    text = value.lstrip(_ASCII_SPACE)
    if text[:1] == "+":
        text = text[1:]
    n_digits = len(text) - len(text.lstrip(_ASCII_DIGITS))
    digits = text[:n_digits].lstrip("0")
    if not digits:  # no digits, or only zeros
        return 1
    if len(digits) > len(str(cap)):  # far too many digits to read as an int
        return cap
    return min(int(digits), cap)


class _TableParser(HTMLParser):
    """Collects the rows of the first top-level table; see `parse_table`."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[list[Any]] | None = None
        self.row: list[Any] | None = None
        self.cell: list[Any] | None = None  # [text parts, rowspan, colspan]
        self.depth = 0
        self.done = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.done:
            return
        if tag in _BREAKS and self.cell is not None:
            self.cell[0].append(" ")
        if tag == "table":
            self.depth += 1
            if self.depth == 1:
                self.rows = []
            return
        if self.depth != 1:
            return
        if tag == "tr":
            self.close_row()
            self.row = []
        elif tag in _CELL_TAGS:
            self.close_cell()
            if self.row is None:
                raise ValueError(
                    f"<{tag}> appears outside any <tr> (at line {self.getpos()[0]}); every cell "
                    "must sit in a table row. Wrap the cells in <tr>...</tr>."
                )
            found = dict(reversed(attrs))  # a repeated attribute: the first one counts
            self.cell = [[], read_span(found.get("rowspan"), MAX_ROWSPAN), read_span(found.get("colspan"), MAX_COLSPAN)]

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":  # <table/> holds nothing
            if not self.done and self.depth == 0:
                self.rows, self.done = [], True
            return
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if self.done or not self.depth:
            return
        if tag in _BREAKS and self.cell is not None:
            self.cell[0].append(" ")
        if tag == "table":
            self.depth -= 1
            if self.depth == 0:
                self.finish()
                self.done = True
        elif self.depth == 1:
            if tag == "tr":
                self.close_row()
            elif tag in _CELL_TAGS:
                self.close_cell()

    def handle_data(self, data: str) -> None:
        if not self.done and self.cell is not None:
            self.cell[0].append(data)

    def close_cell(self) -> None:
        if self.cell is not None:
            parts, rowspan, colspan = self.cell
            assert self.row is not None  # handle_starttag opens a cell only inside a row
            self.row.append((" ".join("".join(parts).split()), rowspan, colspan))
            self.cell = None

    def close_row(self) -> None:
        self.close_cell()
        if self.row is not None:
            assert self.rows is not None  # handle_starttag opens a row only inside the table
            self.rows.append(self.row)
            self.row = None

    def finish(self) -> None:
        if self.rows is not None and not self.done:
            self.close_row()
