"""The engines behind TEDS and GriTS: a table-tree edit distance and a grid alignment.

`ek.metrics.tables` turns `Table` s into rows of cells or grids of values and
calls `teds_distance` and `grid_overlap`, which pick an engine: the pure
Python one below for tables of a few cells (and when numpy is missing), the
array one in `ek.metrics._table_arrays` from ``_ARRAY_MIN_WORK`` on (about
6x5 cells against 6x5, where it was measured to overtake). Both compute the
same numbers (the tests run both on the same cases); without numpy, work past
``_PYTHON_MAX_WORK`` asks for the ``metrics`` extra instead of running for
minutes. Text costs are integer edit counts divided once in float64, so TEDS
matches ``apted`` to the last few bits.

**TEDS distance** (`table_tree_distance`). TEDS needs the ordered tree edit
distance of two table trees (``table > tr > td``) with unit insert/delete
costs, a cost of 1 to rename a node to another tag (or a cell to other
spans) and a content cost in [0, 1] to rename one cell into another. A
general engine such as ``apted`` takes seconds on a 30x10 table in pure
Python, so the same number is computed by a dynamic programme that exploits
the fixed three-level shape; the tests check it against ``apted``.

Why a sequence DP is exact here: in an optimal mapping the two roots map to
each other (mapping a root elsewhere never pays), and what remains is the
forest distance of the two row sequences. Walking both trees in preorder as
token streams (a row start, then that row's cells), each row is either
*mapped* to a row of the other table, and then its cells can only map to
that row's cells, or *deleted*, and then its cells are promoted and may map
to any promoted cell of the other side, in order. Mapping a non-empty row to
a single cell is never cheaper than deleting the row and mapping one of its
cells, but mapping an *empty* row to a promoted cell costs 1 instead of 2,
so that move is allowed too. Two modes over the token grid, ``gap`` (between
mapped rows) and ``row`` (inside a mapped pair), capture all of this.

**GriTS alignment** (`overlap`). GriTS compares two tables as matrices of
grid positions. It looks for the most similar pair of sub-grids (a
subsequence of rows and of columns on each side, aligned in order) and sums a
per-position similarity over them; that sum, the *overlap*, divided by each
grid's size gives recall and precision. The exact best pair of sub-grids is
hard to find, so, as in the paper, rows and columns are aligned separately
("factored"):

1. For every pair (gold row, pred row), align their positions in order with
   a longest-common-subsequence style dynamic programme whose reward is the
   per-position similarity; that best total is the row pair's score.
2. Align the rows themselves the same way, using those scores as rewards.
3. Repeat 1-2 with columns, then sum the similarity over the aligned rows
   crossed with the aligned columns.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ek._util import import_optional, is_installed
from ek.metrics import _edit

# A row is a sequence of cells (any objects). ``cost_matrix(cells_a, cells_b)``
# gives ``m[i][j]``, the cost of turning cell ``cells_a[i]`` into ``cells_b[j]``.
Rows = Sequence[Sequence[object]]
RenameMatrix = Callable[[list[Any], list[Any]], Sequence[Sequence[float]]]

_INF = float("inf")
# Work (product of the two sizes) up to which the pure-Python engine is used even
# with numpy at hand (it is faster there: about 5x4 cells against 5x4), and past
# which it is never used.
_ARRAY_MIN_WORK = 600
_PYTHON_MAX_WORK = 1_000_000


def _arrays(work: int, what: str) -> Any | None:
    """The array engine module when ``work`` calls for it, else None (pure Python).

    Raises:
        MissingExtraError: ``work`` is too large for pure Python and numpy is missing.
    """
    if work < _ARRAY_MIN_WORK or (work <= _PYTHON_MAX_WORK and not is_installed("numpy")):
        return None
    import_optional("numpy", extra="metrics", feature=f"{what} on tables this large")
    from ek.metrics import _table_arrays  # numpy loads on first use

    return _table_arrays


def teds_distance(a: Rows, b: Rows, *, structure_only: bool) -> float:
    """TEDS's tree edit distance between two tables given as rows of `Cell` s."""
    work = (len(a) + sum(map(len, a))) * (len(b) + sum(map(len, b)))
    engine = _arrays(work, "TEDS")
    if engine is not None:
        return float(engine.tree_distance(a, b, structure_only=structure_only))
    return table_tree_distance(a, b, rename_matrix(structure_only))


def _tokens(rows: Rows) -> tuple[list[Any], list[int], list[bool], list[bool]]:
    """The cells in preorder; per token (a row start or a cell) the cell's
    index or -1 for a row start; which tokens start an empty row; and where a
    row boundary lies (index ``len`` included)."""
    cells: list[Any] = []
    tokens: list[int] = []
    empty_row: list[bool] = []
    for row in rows:
        tokens.append(-1)
        empty_row.append(len(row) == 0)
        for cell in row:
            tokens.append(len(cells))
            cells.append(cell)
            empty_row.append(False)
    boundary = [t < 0 for t in tokens] + [True]
    return cells, tokens, empty_row, boundary


def table_tree_distance(a: Rows, b: Rows, cost_matrix: RenameMatrix) -> float:
    """Tree edit distance between ``table > tr* > td*`` trees given as rows of cells."""
    cells_a, ta, empty_a, bound_a = _tokens(a)
    cells_b, tb, empty_b, bound_b = _tokens(b)
    costs = cost_matrix(cells_a, cells_b) if cells_a and cells_b else [()] * len(cells_a)
    n, m = len(ta), len(tb)
    # gap[p][q] / row[p][q]: cost of the first p tokens of a against the first q of b.
    gap_prev = [float(q) for q in range(m + 1)]
    row_prev = [_INF] * (m + 1)
    for p in range(1, n + 1):
        x = ta[p - 1]
        x_row = x < 0
        x_costs = costs[x] if not x_row else ()
        x_empty = empty_a[p - 1]
        at_boundary = bound_a[p]
        gap_cur = [gap_prev[0] + 1.0] + [0.0] * m
        row_cur = [_INF] * (m + 1)
        for q in range(1, m + 1):
            y = tb[q - 1]
            y_row = y < 0
            # row mode: inside a mapped pair of rows, consuming cells only
            if x_row:
                # map tr to tr (same tag, no attributes: free), or insert a cell after it
                inside = gap_prev[q - 1] if y_row else row_cur[q - 1] + 1.0
            elif y_row:
                inside = row_prev[q] + 1.0  # delete a cell of the mapped row
            else:
                rename = x_costs[y]
                inside = min(row_prev[q - 1] + rename, row_prev[q] + 1.0, row_cur[q - 1] + 1.0)
            row_cur[q] = inside
            # gap mode: rows deleted or inserted, their cells promoted
            best = min(gap_prev[q], gap_cur[q - 1]) + 1.0
            if not x_row and not y_row:
                sub = gap_prev[q - 1] + rename
            elif (x_row and x_empty and not y_row) or (y_row and empty_b[q - 1] and not x_row):
                sub = gap_prev[q - 1] + 1.0  # an empty row renamed to a promoted cell
            else:
                sub = _INF
            best = min(best, sub)
            if at_boundary and bound_b[q] and inside < best:
                best = inside  # close the mapped pair of rows
            gap_cur[q] = best
        gap_prev, row_prev = gap_cur, row_cur
    return gap_prev[m]


def rename_matrix(structure_only: bool) -> RenameMatrix:
    """TEDS's cost of renaming each `Cell` into each other: 1 for other spans,
    else the normalized character edit distance of the texts (0 for TEDS-Struct)."""

    def matrix(cells_a: list[Any], cells_b: list[Any]) -> list[list[float]]:
        if structure_only:
            out = [[0.0] * len(cells_b) for _ in cells_a]
        else:
            out = _text_distances([c.text for c in cells_a], [c.text for c in cells_b])
        spans_b = [(b.rowspan, b.colspan) for b in cells_b]
        if len(set(spans_b)) == 1 and all((a.rowspan, a.colspan) == spans_b[0] for a in cells_a):
            return out  # one span everywhere (no merged cells): no rename costs 1
        for a, row in zip(cells_a, out):
            spans = (a.rowspan, a.colspan)
            for j, other in enumerate(spans_b):
                if other != spans:
                    row[j] = 1.0
        return out

    return matrix


def _text_distances(a: list[str], b: list[str]) -> list[list[float]]:
    """``d[i][j]`` = edit distance of ``a[i]`` and ``b[j]`` over the longer length (0 if both empty)."""
    distance = _edit.active()[0]
    return [[distance(x, y) / max(len(x), len(y)) if x != y else 0.0 for y in b] for x in a]


# --------------------------------------------------------------------------
# GriTS

Grid = Sequence[Sequence[object]]


def align(n: int, m: int, reward: Callable[[int, int], float]) -> tuple[float, list[tuple[int, int]]]:
    """Best order-preserving partial matching of ``range(n)`` with ``range(m)``.

    Returns the total reward and the matched index pairs. Gaps cost nothing,
    so this is a weighted longest common subsequence.
    """
    if not n or not m:
        return 0.0, []
    rewards = [[reward(i, j) for j in range(m)] for i in range(n)]
    table = [[0.0] * (m + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        above, row, r = table[i - 1], table[i], rewards[i - 1]
        for j in range(1, m + 1):
            best = max(above[j], row[j - 1])
            diagonal = above[j - 1] + r[j - 1]
            row[j] = max(best, diagonal)
    pairs = []
    i, j = n, m
    while i and j:
        if table[i][j] == table[i - 1][j]:
            i -= 1
        elif table[i][j] == table[i][j - 1]:
            j -= 1
        else:
            pairs.append((i - 1, j - 1))
            i, j = i - 1, j - 1
    pairs.reverse()
    return table[n][m], pairs


def grid_overlap(gold: Grid, pred: Grid, *, kind: str) -> float:
    """GriTS overlap of two rectangular grids: ``kind`` ``"content"`` (texts,
    `lcs_similarity`) or ``"topology"`` (relative boxes, `iou`)."""
    if not gold or not pred or not gold[0] or not pred[0]:
        return 0.0
    similarity = SIMILARITIES[kind]
    engine = _arrays(len(gold) * len(gold[0]) * len(pred) * len(pred[0]), "GriTS")
    if engine is None:
        return overlap(gold, pred, similarity)
    rows, cols = engine.alignment_scores(gold, pred, kind=kind)
    return aligned_sum(
        gold,
        pred,
        lambda i, k: rows[i][k],
        lambda j, l: cols[j][l],
        lambda i, k, j, l: similarity(gold[i][j], pred[k][l]),
    )


def overlap(gold: Grid, pred: Grid, similarity: Callable[[object, object], float]) -> float:
    """Summed ``similarity`` over the factored most-similar sub-grids of two grids.

    ``gold`` and ``pred`` are rectangular lists of rows of hashable entries;
    ``similarity`` scores one gold entry against one pred entry, in [0, 1],
    and is called once per pair of distinct values.
    """
    n_rows_g, n_rows_p = len(gold), len(pred)
    if not n_rows_g or not n_rows_p:
        return 0.0
    n_cols_g, n_cols_p = len(gold[0]), len(pred[0])
    if not n_cols_g or not n_cols_p:
        return 0.0
    # similarity of each distinct gold value (row) to each distinct pred value (column)
    gold_values, gold_codes = _codes(gold)
    pred_values, pred_codes = _codes(pred)
    table = [[similarity(g, p) for p in pred_values] for g in gold_values]
    # reward[i][k][j][l]: gold (i, j) against pred (k, l)
    reward = [
        [[[sims[c] for c in pred_codes[k]] for sims in map(table.__getitem__, gold_codes[i])] for k in range(n_rows_p)]
        for i in range(n_rows_g)
    ]

    def row_score(i: int, k: int) -> float:
        return best_total(reward[i][k])

    def col_score(j: int, l: int) -> float:
        return best_total([[reward[i][k][j][l] for k in range(n_rows_p)] for i in range(n_rows_g)])

    return aligned_sum(gold, pred, row_score, col_score, lambda i, k, j, l: reward[i][k][j][l])


def best_total(rewards: Sequence[Sequence[float]]) -> float:
    """`align`'s total for the matrix ``rewards[i][j]``, without the matched pairs (one row of memory)."""
    above = [0.0] * (len(rewards[0]) + 1)
    for r in rewards:
        row = [0.0]
        for j, gain in enumerate(r):
            best = max(above[j + 1], row[j])
            diagonal = above[j] + gain
            row.append(max(best, diagonal))
        above = row
    return above[-1]


def _codes(grid: Grid) -> tuple[list[object], list[list[int]]]:
    """The distinct values of ``grid`` in order of appearance, and each position's index into them."""
    index: dict[object, int] = {}
    codes = [[index.setdefault(v, len(index)) for v in row] for row in grid]
    return list(index), codes


def aligned_sum(
    gold: Grid,
    pred: Grid,
    row_score: Callable[[int, int], float],
    col_score: Callable[[int, int], float],
    reward: Callable[[int, int, int, int], float],
) -> float:
    """Align the rows by ``row_score`` and the columns by ``col_score``, then sum
    ``reward(i, k, j, l)`` over aligned rows (i, k) crossed with aligned columns (j, l)."""
    _, row_pairs = align(len(gold), len(pred), row_score)
    _, col_pairs = align(len(gold[0]), len(pred[0]), col_score)
    return sum(reward(i, k, j, l) for i, k in row_pairs for j, l in col_pairs)


def iou(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> float:
    """Intersection over union of two ``(x0, y0, x1, y1)`` boxes."""
    width = min(a[2], b[2]) - max(a[0], b[0])
    height = min(a[3], b[3]) - max(a[1], b[1])
    inter = width * height if width > 0 and height > 0 else 0
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union else 1.0


def lcs_similarity(a: str, b: str) -> float:
    """``2 * LCS(a, b) / (len(a) + len(b))``; equal strings (two empty ones too) are identical (1.0)."""
    if a == b:
        return 1.0
    return 2 * _lcs_length(a, b) / (len(a) + len(b))


def _rapidfuzz_lcs() -> Callable[[str, str], int]:
    try:
        from rapidfuzz.distance import LCSseq  # core dependency; this module loads on first use
    except ImportError:  # pragma: no cover - rapidfuzz is a core dependency
        return _py_lcs_length
    length: Callable[[str, str], int] = LCSseq.similarity
    return length


def _py_lcs_length(a: str, b: str) -> int:
    """Longest common subsequence length with one row of memory."""
    previous = [0] * (len(b) + 1)
    for ca in a:
        current = [0]
        for j, cb in enumerate(b, 1):
            current.append(previous[j - 1] + 1 if ca == cb else max(previous[j], current[j - 1]))
        previous = current
    return previous[-1]


_lcs_length = _rapidfuzz_lcs()

SIMILARITIES: dict[str, Callable[[Any, Any], float]] = {"content": lcs_similarity, "topology": iou}
