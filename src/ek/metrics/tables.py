"""Table-structure metrics, TEDS/TEDS-Struct and GriTS; higher is better.

* TEDS (Zhong et al., 2019, PubTabNet) turns a table into a tree
  (``table > tr > td``) and scores ``1 - distance / max(nodes)``; the tree
  edit distance costs 1 per inserted or deleted node, 1 to change a node's
  tag or span, and the normalized character edit distance of the texts to
  change a cell's content. TEDS-Struct (``structure_only=True``) ignores the
  texts. The distance is the exact one ``apted`` computes, found by a
  dynamic programme for this three-level shape that is fast on large tables
  (checked against ``apted`` in the tests).
* GriTS (Smock et al., 2022) compares the tables as grids of positions and
  reports precision and recall over their most similar sub-grids. The
  paper's GriTS-Top scores each pair of positions by the overlap of the
  spanning cells around them, its GriTS-Con by the longest common
  subsequence of their texts. ``GritsMetric()`` reports the mean of the two
  (structure and content both count, so a table with the right structure
  and slightly wrong text scores above its GriTS-Con);
  ``GritsMetric(structure_only=True)`` reports GriTS-Top alone. Both
  components are in every ``detail`` as sums, and `GritsMetric.report` gives
  each published variant over a corpus.

Both engines are in `ek.metrics._table_scoring`: pure Python for the
smallest tables (about 5x4 cells) and when numpy is missing, numpy arrays
(the ``metrics`` extra) for the rest.

Both are written here from the papers: the usual wrapper package pulls in the
GPL ``Levenshtein``, which ek does not ship.

Size limits: both metrics grow with the product of the two tables' sizes,
so each table may have at most ``max_cells`` grid positions (rows x columns
once spans are expanded; 10,000 by default, a 100x100 table). With text
(not ``structure_only``) they also compare each cell's text with the other
table's cells, work that grows with the product of the two tables' total
text, so each table may hold at most ``max_chars`` characters of cell text,
counted at every grid position a cell covers (500,000 by default: 100x100
cells of 50 characters). At both limits two unrelated tables take about 5 s
of CPU time with numpy installed; two 100x100 tables of 300-character cells,
six times the text limit, took 23 s (TEDS) and 113 s (GriTS) before the
limit. A larger table is refused with a ValueError, naming the limit,
before any work that grows faster than its size; raise ``max_cells=`` or
``max_chars=`` on the metric to accept the time and memory.

`Table` is the shared input: rows of logical `Cell` s carrying their spans,
built from HTML (`Table.from_html`), from a grid of texts (`Table.from_grid`)
or from either by `Table.coerce`, which the metrics apply to their inputs.
HTML ``thead``/``tbody`` sections and the ``th``/``td`` distinction are not
kept; span attributes are read as browsers read them (capped at 1000
columns and 65534 rows, only ASCII digits; see `Table.from_html`). Corpus
TEDS is the mean of per-table TEDS; corpus GriTS pools the overlaps and the
grid sizes, then divides once.

>>> a = "<table><tr><td>a</td><td>b</td></tr></table>"
>>> b = "<table><tr><td>a</td><td>c</td></tr></table>"
>>> TedsMetric()(a, b).value
0.75
>>> TedsMetric(structure_only=True)(a, b).value, GritsMetric(structure_only=True)(a, b).value
(1.0, 1.0)
>>> s = GritsMetric()(a, b)  # topology 1.0, content 0.5
>>> s.value, s.detail["overlap_top"], s.detail["overlap_con"]
(0.75, 2.0, 1.0)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, NamedTuple

from ek._util import DispatchRule, prf, ratio, sum_detail, type_name
from ek.base import GraphGrammar, Normalizer, Score
from ek.metrics._contract import SummedStatistics
from ek.registry import register

__all__ = ["Cell", "GritsMetric", "Table", "TedsMetric"]

# The most grid positions (rows x columns, spans expanded) a table may have by default.
_DEFAULT_MAX_CELLS = 10_000
# The most characters of cell text (at every grid position a cell covers) a table may hold by default.
_DEFAULT_MAX_CHARS = 500_000


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

    rows: Sequence[Sequence[Cell]] = ()

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
    def from_html(cls, html: str) -> Table:
        """Parse the first ``<table>`` of an HTML string, with ``rowspan``/``colspan``.

        Cell text has its whitespace collapsed; implicit closing and
        truncated markup are read as browsers read them. So are span
        attributes: only ASCII digits count, a value that is not a number
        (or is 0) means 1, and ``colspan`` is capped at 1000 and ``rowspan``
        at 65534, the HTML limits.

        >>> [(c.rowspan, c.colspan) for c in Table.from_html('<table><tr><td colspan="10000">x</table>').rows[0]]
        [(1, 1000)]

        Raises:
            ValueError: no ``<table>``, or a ``<td>`` outside a ``<tr>``.
        """
        if not isinstance(html, str):
            raise TypeError(f"Table.from_html takes an HTML str, got {type_name(html)}.")
        from ek.metrics import _table_html

        rows = _table_html.parse_table(html)
        if rows is None:
            raise ValueError(
                f"HTML {html!r:.60} contains no <table> element, so no table can be read from it. "
                "Pass the table markup, a Table, or a list of rows of cell texts."
            )
        return cls(tuple(tuple(Cell(text, rs, cs) for text, rs, cs in row) for row in rows))

    @classmethod
    def from_grid(cls, grid: Sequence[Sequence[str | float | None]]) -> Table:
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
    def coerce(cls, obj: TableLike) -> Table:
        """``obj`` as a Table: a Table as is, a str as HTML, a list of rows as a grid."""
        if isinstance(obj, Table):
            return obj
        if isinstance(obj, str):
            return cls.from_html(obj)
        if isinstance(obj, Sequence) and not isinstance(obj, bytes):
            return cls.from_grid(obj)
        raise TypeError(
            f"Cannot read a table from {type_name(obj)}; pass a Table, an HTML string or a list of rows of cell texts."
        )

    def as_grid(self, *, max_cells: int = _DEFAULT_MAX_CELLS) -> list[list[Cell | None]]:
        """The dense position grid: each position holds the cell covering it.

        A spanning cell repeats at every position it covers; a position no
        cell covers (a ragged row) holds ``None``, and a row span reaching
        past the last row adds rows.

        Raises:
            ValueError: the grid would have more than ``max_cells`` positions.
        """
        layout = _layout(self, max_cells=max_cells, label="the table")
        grid: list[list[Cell | None]] = [[None] * layout.n_cols for _ in range(layout.n_rows)]
        for cell, r0, c0 in layout.placed:
            for r in range(r0, r0 + cell.rowspan):
                for c in range(c0, c0 + cell.colspan):
                    grid[r][c] = cell
        return grid


#: What `Table.coerce` (and so `TedsMetric` and `GritsMetric`) reads as a table: a `Table`, an HTML
#: string, or rows of cell texts (numbers are read as text, ``None`` marks a spanned-over position).
TableLike = Table | str | Sequence[Sequence[str | float | None]]


def _grid_cell(
    rows: list[list[str | float | None]], r: int, c: int, value: object, claimed: set[tuple[int, int]]
) -> Cell:
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


class _Layout(NamedTuple):
    placed: list[tuple[Cell, int, int]]  # (cell, top row, left column) in reading order
    n_rows: int
    n_cols: int


def _layout(table: Table, *, max_cells: int, label: str) -> _Layout:
    """Each cell's top-left grid position, HTML-style, and the grid size, within ``max_cells``.

    A cell takes the first column of its row that no span from above covers.
    ``reach[c]`` is the first row that column ``c``'s spans leave free, so
    the work is bounded by the grid size, and the grid is refused before it
    grows past ``max_cells`` positions (an empty row counts as one).
    """
    n_rows = len(table.rows)
    for r, row in enumerate(table.rows):
        for cell in row:
            n_rows = max(n_rows, r + cell.rowspan)
    if n_rows > max_cells:
        raise _too_large(label, n_rows, 1, max_cells)
    width_cap = max_cells // max(n_rows, 1)
    reach: list[int] = []
    placed: list[tuple[Cell, int, int]] = []
    for r, row in enumerate(table.rows):
        c = 0
        for cell in row:
            while c < len(reach) and reach[c] > r:
                c += 1
            end = c + cell.colspan
            if end > len(reach):
                if end > width_cap:
                    raise _too_large(label, n_rows, end, max_cells)
                reach.extend([0] * (end - len(reach)))
            bottom = r + cell.rowspan
            for cc in range(c, end):
                reach[cc] = max(reach[cc], bottom)
            placed.append((cell, r, c))
            c = end
    return _Layout(placed, n_rows, len(reach))


def _too_large(label: str, n_rows: int, n_cols: int, max_cells: int) -> ValueError:
    return ValueError(
        f"{label} has {n_rows} rows and at least {n_cols} columns once its spans are expanded, "
        f"{n_rows * n_cols} grid positions or more, over the limit of max_cells={max_cells}; the table "
        "metrics grow with the product of the two tables' sizes. Score smaller tables (split this one), "
        "or raise max_cells= on the metric if you accept the time and memory."
    )


def _check_limits(owner: str, max_cells: Any, max_chars: Any) -> None:
    for name, value in (("max_cells", max_cells), ("max_chars", max_chars)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{owner} {name} must be an int >= 1, got {value!r}.")


def _check_text(layout: _Layout, *, max_chars: int, label: str) -> None:
    """Refuse a table holding more than ``max_chars`` characters of cell text, counted per grid position."""
    chars = sum(len(cell.text) * cell.rowspan * cell.colspan for cell, _, _ in layout.placed)
    if chars > max_chars:
        raise ValueError(
            f"{label} holds {chars} characters of cell text (counted at every grid position a cell covers), "
            f"over the limit of max_chars={max_chars}; the table metrics compare each cell's text with the "
            "other table's cells, work that grows with the product of the two tables' text. Score the "
            "structure alone (structure_only=True), score smaller tables (split this one), or raise "
            "max_chars= on the metric if you accept the time."
        )


# --------------------------------------------------------------------------
# TEDS


def _canon_rows(table: Table, canon: Normalizer | None) -> Sequence[Sequence[Cell]]:
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
        max_cells: the most grid positions either table may have (see the
            module docstring); larger tables raise ValueError.
        max_chars: the most characters of cell text either table may hold
            (see the module docstring; not checked with ``structure_only``);
            more raise ValueError.

    ``detail`` holds ``distance`` (the tree edit distance), ``max_distance``
    (the larger tree's node count, which the distance exceeds only when a
    table has empty rows; TEDS is then 0, never negative), ``similarity`` and
    ``n`` (1); ``1 - sum(distance) / sum(max_distance)`` over a corpus is
    the size-weighted variant.
    """

    structure_only: bool = field(default=False, kw_only=True)
    canonicalizer: Normalizer | None = field(default=None, kw_only=True)
    max_cells: int = field(default=_DEFAULT_MAX_CELLS, kw_only=True)
    max_chars: int = field(default=_DEFAULT_MAX_CHARS, kw_only=True)

    def __post_init__(self) -> None:
        _check_limits("TedsMetric", self.max_cells, self.max_chars)

    higher_is_better = True
    percent = True  # a share or a rate: the pages show it as a percentage
    statistics = ("similarity", "n")
    options = MappingProxyType({"normalize": "canonicalizer"})

    @property
    def name(self) -> str:
        """Registered name: ``"teds"`` or ``"teds_struct"``."""
        return "teds_struct" if self.structure_only else "teds"

    def __call__(self, pred: TableLike, gold: TableLike, *, grammar: GraphGrammar | None = None) -> Score:
        """TEDS of ``pred`` against ``gold`` (Tables, HTML strings or grids)."""
        pred_t, gold_t = Table.coerce(pred), Table.coerce(gold)
        chars = None if self.structure_only else self.max_chars
        _within_limits(pred_t, self.max_cells, chars, "the pred table")
        _within_limits(gold_t, self.max_cells, chars, "the gold table")
        canon = None if self.structure_only else self.canonicalizer
        from ek.metrics import _table_scoring as _scoring

        distance = _scoring.teds_distance(
            _canon_rows(pred_t, canon), _canon_rows(gold_t, canon), structure_only=self.structure_only
        )
        nodes = max(_n_nodes(pred_t), _n_nodes(gold_t))
        value = max(0.0, 1.0 - distance / nodes)  # an empty row can push the distance past nodes
        detail = {"distance": distance, "max_distance": nodes, "similarity": value, "n": 1}
        return Score(value, metric=self.name, detail=detail)

    def compute(self, totals: Mapping[str, float]) -> float:
        """Corpus TEDS: the mean of per-table TEDS (the PubTabNet convention); NaN for ``n == 0``."""
        return ratio(totals["similarity"], totals["n"])


# --------------------------------------------------------------------------
# GriTS


def _topology_grid(layout: _Layout) -> list[list[tuple[int, int, int, int]]]:
    """Each position's spanning cell as a box relative to that position."""
    grid = [[(0, 0, 1, 1)] * layout.n_cols for _ in range(layout.n_rows)]
    for cell, r0, c0 in layout.placed:
        for r in range(r0, r0 + cell.rowspan):
            for c in range(c0, c0 + cell.colspan):
                grid[r][c] = (c0 - c, r0 - r, c0 - c + cell.colspan, r0 - r + cell.rowspan)
    return grid


def _text_grid(layout: _Layout, canon: Normalizer | None) -> list[list[str]]:
    """Each position's text ('' where no cell covers it)."""
    grid = [[""] * layout.n_cols for _ in range(layout.n_rows)]
    for cell, r0, c0 in layout.placed:
        text = canon(cell.text) if canon else cell.text
        for r in range(r0, r0 + cell.rowspan):
            grid[r][c0 : c0 + cell.colspan] = [text] * cell.colspan
    return grid


# The sums in a GriTS Score.detail, and the variant each overlap measures.
_GRITS_SUMS = ("overlap", "pred_cells", "gold_cells")
_GRITS_VARIANTS = {"grits": "overlap", "grits_top": "overlap_top", "grits_con": "overlap_con"}


@dataclass(frozen=True)
class GritsMetric(SummedStatistics):
    """GriTS of two tables as a `Metric`; ``value`` is F1, higher is better.

    Args:
        structure_only: report GriTS-Top (cell topology) alone instead of
            the mean of GriTS-Top and GriTS-Con (the default).
        canonicalizer: optional ``str -> str`` applied to cell texts first.
        max_cells: the most grid positions either table may have (see the
            module docstring); larger tables raise ValueError.
        max_chars: the most characters of cell text either table may hold
            (see the module docstring; not checked with ``structure_only``);
            more raise ValueError.

    ``detail`` holds sums that pool over a corpus: ``overlap_top`` (summed
    topology similarity over the aligned positions), ``overlap_con`` (summed
    content similarity; not with ``structure_only``), ``overlap`` (what
    ``value`` is computed from: their mean, or ``overlap_top``), the grid
    sizes ``pred_cells`` and ``gold_cells``.
    Precision is overlap / ``pred_cells``, recall overlap / ``gold_cells``.
    """

    structure_only: bool = field(default=False, kw_only=True)
    canonicalizer: Normalizer | None = field(default=None, kw_only=True)
    max_cells: int = field(default=_DEFAULT_MAX_CELLS, kw_only=True)
    max_chars: int = field(default=_DEFAULT_MAX_CHARS, kw_only=True)

    def __post_init__(self) -> None:
        _check_limits("GritsMetric", self.max_cells, self.max_chars)

    higher_is_better = True
    percent = True  # a share or a rate: the pages show it as a percentage
    statistics = _GRITS_SUMS
    options = MappingProxyType({"normalize": "canonicalizer"})

    @property
    def name(self) -> str:
        """Registered name: ``"grits"`` (mean of GriTS-Top and GriTS-Con) or ``"grits_top"``."""
        return "grits_top" if self.structure_only else "grits"

    def __call__(self, pred: TableLike, gold: TableLike, *, grammar: GraphGrammar | None = None) -> Score:
        """GriTS F1 of ``pred`` against ``gold`` (Tables, HTML strings or grids)."""
        from ek.metrics import _table_scoring as _scoring

        chars = None if self.structure_only else self.max_chars
        pred_l = _within_limits(Table.coerce(pred), self.max_cells, chars, "the pred table")
        gold_l = _within_limits(Table.coerce(gold), self.max_cells, chars, "the gold table")
        top = _scoring.grid_overlap(_topology_grid(gold_l), _topology_grid(pred_l), kind="topology")
        detail: dict[str, Any] = {"overlap": top, "overlap_top": top}
        if not self.structure_only:
            canon = self.canonicalizer
            con = _scoring.grid_overlap(_text_grid(gold_l, canon), _text_grid(pred_l, canon), kind="content")
            detail.update(overlap=(top + con) / 2, overlap_con=con)
        pred_cells, gold_cells = pred_l.n_rows * pred_l.n_cols, gold_l.n_rows * gold_l.n_cols
        detail.update(pred_cells=pred_cells, gold_cells=gold_cells)
        precision, recall, f1 = prf(detail["overlap"], pred_cells, gold_cells)
        return Score(f1, precision=precision, recall=recall, f1=f1, metric=self.name, detail=detail)

    def compute(self, totals: Mapping[str, float]) -> float:
        """Corpus GriTS F1: pool the overlaps and the grid sizes, then divide once."""
        return prf(totals["overlap"], totals["pred_cells"], totals["gold_cells"])[2]

    def report(self, scores: Iterable[Score]) -> dict[str, dict[str, float]]:
        """Corpus precision, recall and F1 of each GriTS variant, from pooled sums.

        Returns ``{"grits": ..., "grits_top": ..., "grits_con": ...}``, each
        ``{"precision", "recall", "f1"}``: ``grits`` is this metric's
        aggregate, ``grits_top`` and ``grits_con`` the paper's variants
        (``grits_con`` only when the scores carry content, i.e. not with
        ``structure_only``).

        >>> m = GritsMetric()
        >>> m.report([m([["a", "b"]], [["a", "c"]])])["grits_con"]
        {'precision': 0.5, 'recall': 0.5, 'f1': 0.5}

        Raises:
            ValueError: no scores, or scores of another metric.
        """
        scores = list(scores)
        totals = sum_detail(scores, _GRITS_SUMS + ("overlap_top",), metric="GritsMetric")
        if all("overlap_con" in getattr(s, "detail", {}) for s in scores):
            totals["overlap_con"] = sum(s.detail["overlap_con"] for s in scores)
        out = {}
        for variant, key in _GRITS_VARIANTS.items():
            if key in totals:
                p, r, f1 = prf(totals[key], totals["pred_cells"], totals["gold_cells"])
                out[variant] = {"precision": p, "recall": r, "f1": f1}
        return out


def _within_limits(table: Table, max_cells: int, max_chars: int | None, label: str) -> _Layout:
    """``table``'s layout, refused past ``max_cells`` positions or ``max_chars`` characters (None: unchecked)."""
    layout = _layout(table, max_cells=max_cells, label=label)
    if max_chars is not None:
        _check_text(layout, max_chars=max_chars, label=label)
    return layout


def _is_table(obj: Any) -> bool:
    return isinstance(obj, Table)


register("metrics", "teds", TedsMetric())
register("metrics", "teds_struct", TedsMetric(structure_only=True))
register("metrics", "grits", GritsMetric())
register("metrics", "grits_top", GritsMetric(structure_only=True))
register("dispatch", "teds", DispatchRule(_is_table))
