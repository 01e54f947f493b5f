"""Table-structure metrics, TEDS/TEDS-Struct and GriTS-Top/GriTS-Con; higher is better.

* TEDS (Zhong et al., 2019, PubTabNet) turns a table into a tree
  (``table > tr > td``) and scores ``1 - distance / max(nodes)``; the tree
  edit distance costs 1 per inserted or deleted node, 1 to change a node's
  tag or span, and the normalized character edit distance of the texts to
  change a cell's content. TEDS-Struct (``structure_only=True``) ignores the
  texts. The distance is the exact one ``apted`` computes, found by a
  dynamic programme for this three-level shape that is fast on large tables
  (checked against ``apted`` in the tests).
* GriTS (Smock et al., 2022) compares the tables as grids of positions and
  reports precision and recall over their most similar sub-grids. GriTS-Con
  scores each pair of positions by the longest common subsequence of their
  texts; GriTS-Top (``structure_only=True``) by the overlap of the spanning
  cells around them. Pure Python.

Both engines are in `ek.metrics._table_scoring`.

Both are written here from the papers: the usual wrapper package pulls in the
GPL ``Levenshtein``, which ek does not ship.

`Table` is the shared input: rows of logical `Cell` s carrying their spans,
built from HTML (`Table.from_html`), from a grid of texts (`Table.from_grid`)
or from either by `Table.coerce`, which the metrics apply to their inputs.
HTML ``thead``/``tbody`` sections and the ``th``/``td`` distinction are not
kept. Corpus TEDS is the mean of per-table TEDS; corpus GriTS pools the
overlap and the grid sizes, then divides once.

>>> a = "<table><tr><td>a</td><td>b</td></tr></table>"
>>> b = "<table><tr><td>a</td><td>c</td></tr></table>"
>>> TedsMetric()(a, b).value
0.75
>>> TedsMetric(structure_only=True)(a, b).value, GritsMetric()(a, b).value
(1.0, 0.5)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from types import MappingProxyType
from typing import Any, Callable, Iterable, Mapping, Optional

from ek._util import DispatchRule, SummedStatistics, prf, ratio, type_name
from ek.base import Score
from ek.registry import register

__all__ = ["Cell", "GritsMetric", "Table", "TedsMetric"]


@dataclass(frozen=True)
class Cell:
    """One logical table cell: its text and how many rows/columns it spans (>= 1)."""

    text: str = ""
    rowspan: int = 1
    colspan: int = 1

    def __post_init__(self) -> None:
        if not isinstance(self.text, str):
            raise TypeError(f"Cell text must be a str, got {type_name(self.text)}: {self.text!r:.40}.")
        for name in ("rowspan", "colspan"):
            span = getattr(self, name)
            if not isinstance(span, int) or isinstance(span, bool) or span < 1:
                raise ValueError(f"Cell {name} must be an int >= 1, got {span!r}; a cell covers at least itself.")


@dataclass(frozen=True)
class Table:
    """A table as rows of logical `Cell` s in reading order; spans live on the cells.

    ``rows[i]`` lists the cells that *start* in row ``i``; a position covered
    by a span from an earlier row or column has no entry of its own.
    `as_grid` expands the spans into the dense position grid GriTS compares.
    """

    rows: tuple = ()

    def __post_init__(self) -> None:
        if isinstance(self.rows, (str, bytes)) or not isinstance(self.rows, Iterable):
            raise TypeError(f"Table rows must be a sequence of rows of Cells, got {type_name(self.rows)}.")
        rows = tuple(tuple(row) for row in self.rows)
        for r, row in enumerate(rows):
            for c, cell in enumerate(row):
                if not isinstance(cell, Cell):
                    raise TypeError(
                        f"Table rows[{r}][{c}] is {type_name(cell)}; rows hold Cell objects. "
                        "Build a table from texts with Table.from_grid or from markup with Table.from_html."
                    )
        object.__setattr__(self, "rows", rows)

    @classmethod
    def from_html(cls, html: str) -> "Table":
        """Parse the first ``<table>`` of an HTML string, with ``rowspan``/``colspan``.

        Cell text has its whitespace collapsed; see `_parse_html_table` for
        what is tolerated (implicit closing, truncated markup).

        Raises:
            ValueError: no ``<table>``, a ``<td>`` outside a ``<tr>``, or a
                span attribute that is not an integer >= 1.
        """
        if not isinstance(html, str):
            raise TypeError(f"Table.from_html takes an HTML str, got {type_name(html)}.")
        return cls(tuple(tuple(Cell(text, rs, cs) for text, rs, cs in row) for row in _parse_html_table(html)))

    @classmethod
    def from_grid(cls, grid: Sequence[Sequence[Any]]) -> "Table":
        """Build a Table from rows of cell texts, ``None`` marking a spanned-over position.

        Cells are read in reading order, and each claims the unclaimed
        ``None`` positions after it: first the run of ``None`` to its right
        (its column span), then every following row whose positions under it
        are all unclaimed ``None`` (its row span), so a cell spans a
        rectangle. Numbers are turned into text; rows may differ in length.

        >>> [[(c.text, c.rowspan, c.colspan) for c in row] for row in Table.from_grid([["a", None], ["b", "c"]]).rows]
        [[('a', 1, 2)], [('b', 1, 1), ('c', 1, 1)]]

        Raises:
            ValueError: a ``None`` no cell can cover.
            TypeError: a grid that is not rows of str/number/None.
        """
        if isinstance(grid, (str, bytes)) or not isinstance(grid, Sequence):
            raise TypeError(f"Table.from_grid takes a list of rows of cell texts, got {type_name(grid)}.")
        rows = []
        for r, row in enumerate(grid):
            if isinstance(row, (str, bytes)) or not isinstance(row, Sequence):
                raise TypeError(f"Table.from_grid row {r} is {type_name(row)}; each row must be a list of cell texts.")
            rows.append(list(row))
        claimed: set[tuple[int, int]] = set()
        out = []
        for r, row in enumerate(rows):
            cells = []
            for c, value in enumerate(row):
                if value is None:
                    if (r, c) not in claimed:
                        raise ValueError(
                            f"grid[{r}][{c}] is None but no cell to its left or above spans over it; "
                            "None marks a position covered by a neighbouring cell. Use '' for an empty cell."
                        )
                    continue
                cells.append(_grid_cell(rows, r, c, value, claimed))
            out.append(tuple(cells))
        return cls(tuple(out))

    @classmethod
    def coerce(cls, obj: Any) -> "Table":
        """``obj`` as a Table: a Table as is, a str as HTML, a list of rows as a grid."""
        if isinstance(obj, Table):
            return obj
        if isinstance(obj, str):
            return cls.from_html(obj)
        if isinstance(obj, Sequence) and not isinstance(obj, bytes):
            return cls.from_grid(obj)
        raise TypeError(
            f"Cannot read a table from {type_name(obj)}; pass a Table, an HTML string or a "
            "list of rows of cell texts."
        )

    def as_grid(self) -> list[list[Optional[Cell]]]:
        """The dense position grid: each position holds the cell covering it.

        A spanning cell repeats at every position it covers; a position no
        cell covers (a ragged row) holds ``None``, and a row span reaching
        past the last row adds rows.
        """
        placed, n_rows, n_cols = _place(self)
        grid: list[list[Optional[Cell]]] = [[None] * n_cols for _ in range(n_rows)]
        for cell, r0, c0 in placed:
            for r in range(r0, r0 + cell.rowspan):
                for c in range(c0, c0 + cell.colspan):
                    grid[r][c] = cell
        return grid


def _grid_cell(rows: list[list], r: int, c: int, value: Any, claimed: set) -> Cell:
    """The cell starting at ``rows[r][c]``, claiming the ``None`` positions it spans."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise TypeError(f"grid[{r}][{c}] is {type_name(value)}; cells must be text (str or a number) or None.")
    row = rows[r]

    def free(rr: int, cc: int) -> bool:
        return cc < len(rows[rr]) and rows[rr][cc] is None and (rr, cc) not in claimed

    colspan = 1
    while c + colspan < len(row) and free(r, c + colspan):
        colspan += 1
    rowspan = 1
    while r + rowspan < len(rows) and all(free(r + rowspan, c + k) for k in range(colspan)):
        rowspan += 1
    for rr in range(r, r + rowspan):
        for cc in range(c, c + colspan):
            claimed.add((rr, cc))
    return Cell(str(value), rowspan, colspan)


def _place(table: Table) -> tuple[list[tuple[Cell, int, int]], int, int]:
    """Each cell with its top-left grid position, HTML-style, and the grid size."""
    taken: set[tuple[int, int]] = set()
    placed = []
    n_rows = len(table.rows)
    n_cols = 0
    for r, row in enumerate(table.rows):
        c = 0
        for cell in row:
            while (r, c) in taken:
                c += 1
            placed.append((cell, r, c))
            for rr in range(r, r + cell.rowspan):
                for cc in range(c, c + cell.colspan):
                    taken.add((rr, cc))
            n_rows = max(n_rows, r + cell.rowspan)
            n_cols = max(n_cols, c + cell.colspan)
            c += cell.colspan
    return placed, n_rows, n_cols


# --------------------------------------------------------------------------
# reading HTML

_CELL_TAGS = ("td", "th")
# Tags that separate words inside a cell's text.
_BREAKS = frozenset({"br", "p", "div", "li", "table", "tr", "td", "th"})


def _parse_html_table(html: str) -> list[list[tuple[str, int, int]]]:
    """Rows of ``(text, rowspan, colspan)`` for the first ``<table>`` in ``html``.

    Stdlib only (``html.parser``, imported on first use). Lenient where
    browsers are: a new ``<td>`` closes the open one, a new ``<tr>`` closes
    the open row, ``thead``/``tbody``/``tfoot`` are transparent, markup cut
    off before ``</table>`` is read as far as it goes, and a nested table's
    text belongs to the outer cell. Block tags (``br``, ``p``, ``div``,
    ``li``, table parts) inside a cell separate words; whitespace is
    collapsed. Strict where a guess would change the score.

    Raises:
        ValueError: no table, a cell outside any row, or a span that is not
            an integer >= 1; the message quotes the problem.
    """
    parser = _parser_class()()
    parser.feed(html)
    parser.close()
    parser.finish()
    if parser.rows is None:
        raise ValueError(
            f"HTML {html!r:.60} contains no <table> element, so no table can be read from it. "
            "Pass the table markup, a Table, or a list of rows of cell texts."
        )
    return parser.rows


def _span(attrs: list[tuple[str, Optional[str]]], name: str, tag: str) -> int:
    for key, value in attrs:
        if key == name:
            try:
                span = int(str(value).strip())
            except ValueError:
                span = 0
            if span < 1:
                raise ValueError(
                    f"<{tag} {name}={value!r}> is not a valid span; {name} must be an integer >= 1. "
                    "Fix the markup or drop the attribute for a single cell."
                )
            return span
    return 1


@lru_cache(maxsize=None)
def _parser_class() -> type:
    from html.parser import HTMLParser  # loaded on first use, keeping `import ek` lean

    class TableParser(HTMLParser):
        def __init__(self) -> None:
            super().__init__(convert_charrefs=True)
            self.rows: Optional[list] = None
            self.row: Optional[list] = None
            self.cell: Optional[list[Any]] = None  # [text parts, rowspan, colspan]
            self.depth = 0
            self.done = False

        def handle_starttag(self, tag: str, attrs: list) -> None:
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
                self.cell = [[], _span(attrs, "rowspan", tag), _span(attrs, "colspan", tag)]

        def handle_startendtag(self, tag: str, attrs: list) -> None:
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
                self.row.append((" ".join("".join(parts).split()), rowspan, colspan))  # type: ignore[union-attr]
                self.cell = None

        def close_row(self) -> None:
            self.close_cell()
            if self.row is not None:
                self.rows.append(self.row)  # type: ignore[union-attr]
                self.row = None

        def finish(self) -> None:
            if self.rows is not None and not self.done:
                self.close_row()

    return TableParser


# --------------------------------------------------------------------------
# TEDS


def _canon_rows(table: Table, canon: Optional[Callable[[str], str]]) -> tuple:
    if canon is None:
        return table.rows
    return tuple(tuple(Cell(canon(c.text), c.rowspan, c.colspan) for c in row) for row in table.rows)


def _n_nodes(table: Table) -> int:
    return 1 + len(table.rows) + sum(len(row) for row in table.rows)


@dataclass(frozen=True)
class TedsMetric(SummedStatistics):
    """TEDS (or TEDS-Struct) similarity of two tables as a `Metric`; higher is better.

    Args:
        structure_only: ignore cell text and score the structure alone
            (TEDS-Struct), so OCR errors inside cells do not count.
        canonicalizer: optional ``str -> str`` applied to cell texts first.

    ``detail`` holds ``distance`` (the tree edit distance), ``max_distance``
    (the larger tree's node count, the most the distance can be),
    ``similarity`` and ``n`` (1); ``1 - sum(distance) / sum(max_distance)``
    over a corpus is the size-weighted variant.
    """

    structure_only: bool = field(default=False, kw_only=True)
    canonicalizer: Optional[Callable[[str], str]] = field(default=None, kw_only=True)

    higher_is_better = True
    statistics = ("similarity", "n")
    options = MappingProxyType({"normalize": "canonicalizer"})

    @property
    def name(self) -> str:
        """Registered name: ``"teds"`` or ``"teds_struct"``."""
        return "teds_struct" if self.structure_only else "teds"

    def __call__(self, pred: Any, gold: Any, *, grammar: Any = None) -> Score:
        """TEDS of ``pred`` against ``gold`` (Tables, HTML strings or grids)."""
        pred_t, gold_t = Table.coerce(pred), Table.coerce(gold)
        canon = None if self.structure_only else self.canonicalizer
        from ek.metrics import _table_scoring as _scoring  # noqa: PLC0415 - loaded on first use

        rename = _scoring.rename_matrix(self.structure_only)
        distance = _scoring.table_tree_distance(_canon_rows(pred_t, canon), _canon_rows(gold_t, canon), rename)
        nodes = max(_n_nodes(pred_t), _n_nodes(gold_t))
        value = 1.0 - distance / nodes
        detail = {"distance": distance, "max_distance": nodes, "similarity": value, "n": 1}
        return Score(value, metric=self.name, detail=detail)

    def compute(self, totals: Mapping[str, float]) -> float:
        """Corpus TEDS: the mean of per-table TEDS (the PubTabNet convention); NaN for ``n == 0``."""
        return ratio(totals["similarity"], totals["n"])


# --------------------------------------------------------------------------
# GriTS


def _topology_grid(table: Table) -> list[list[tuple[int, int, int, int]]]:
    """Each position's spanning cell as a box relative to that position."""
    placed, n_rows, n_cols = _place(table)
    grid = [[(0, 0, 1, 1)] * n_cols for _ in range(n_rows)]
    for cell, r0, c0 in placed:
        for r in range(r0, r0 + cell.rowspan):
            for c in range(c0, c0 + cell.colspan):
                grid[r][c] = (c0 - c, r0 - r, c0 - c + cell.colspan, r0 - r + cell.rowspan)
    return grid


def _text_grid(table: Table, canon: Optional[Callable[[str], str]]) -> list[list[str]]:
    return [["" if cell is None else (canon(cell.text) if canon else cell.text) for cell in row] for row in table.as_grid()]


@dataclass(frozen=True)
class GritsMetric(SummedStatistics):
    """GriTS-Con (or GriTS-Top) of two tables as a `Metric`; ``value`` is F1, higher is better.

    Args:
        structure_only: score cell topology only (GriTS-Top) instead of cell
            content (GriTS-Con, the default).
        canonicalizer: optional ``str -> str`` applied to cell texts first.

    ``detail`` holds ``overlap`` (the summed similarity over the aligned
    positions), ``pred_cells`` and ``gold_cells`` (grid sizes);
    ``precision`` and ``recall`` are on the Score.
    """

    structure_only: bool = field(default=False, kw_only=True)
    canonicalizer: Optional[Callable[[str], str]] = field(default=None, kw_only=True)

    higher_is_better = True
    statistics = ("overlap", "pred_cells", "gold_cells")
    options = MappingProxyType({"normalize": "canonicalizer"})

    @property
    def name(self) -> str:
        """Registered name: ``"grits"`` (GriTS-Con) or ``"grits_top"``."""
        return "grits_top" if self.structure_only else "grits"

    def __call__(self, pred: Any, gold: Any, *, grammar: Any = None) -> Score:
        """GriTS F1 of ``pred`` against ``gold`` (Tables, HTML strings or grids)."""
        from ek.metrics import _table_scoring as _scoring  # noqa: PLC0415 - loaded on first use

        pred_t, gold_t = Table.coerce(pred), Table.coerce(gold)
        if self.structure_only:
            gold_g, pred_g = _topology_grid(gold_t), _topology_grid(pred_t)
            similarity: Callable = _scoring.iou
        else:
            gold_g, pred_g = _text_grid(gold_t, self.canonicalizer), _text_grid(pred_t, self.canonicalizer)
            similarity = _scoring.lcs_similarity
        overlap = _scoring.overlap(gold_g, pred_g, similarity)
        pred_cells = sum(len(row) for row in pred_g)
        gold_cells = sum(len(row) for row in gold_g)
        precision, recall, f1 = prf(overlap, pred_cells, gold_cells)
        detail = {"overlap": overlap, "pred_cells": pred_cells, "gold_cells": gold_cells}
        return Score(f1, precision=precision, recall=recall, f1=f1, metric=self.name, detail=detail)

    def compute(self, totals: Mapping[str, float]) -> float:
        """Corpus GriTS F1: pool the overlaps and the grid sizes, then divide once."""
        return prf(totals["overlap"], totals["pred_cells"], totals["gold_cells"])[2]


def _is_table(obj: Any) -> bool:
    return isinstance(obj, Table)


register("metrics", "teds", TedsMetric())
register("metrics", "teds_struct", TedsMetric(structure_only=True))
register("metrics", "grits", GritsMetric())
register("metrics", "grits_top", GritsMetric(structure_only=True))
register("dispatch", "teds", DispatchRule(_is_table))
