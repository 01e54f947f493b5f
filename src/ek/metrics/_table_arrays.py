"""Array (numpy) versions of the TEDS and GriTS engines, for all but the smallest tables.

`ek.metrics._table_scoring` holds the pure-Python engines and explains the
programmes; this module computes the same numbers with one array operation
per step of the outer loop, so two 100x100 tables take seconds, and memory
grows with one table (times one row of the other), never with the product
of both.

**TEDS.** The programme fills two vectors (``gap`` and ``inside``) per
token of ``a``, over the tokens of ``b``. Their only left-to-right
dependency is "the entry to the left, plus 1" (an insertion), so each
vector is ``min over k <= q of X[k] + (q - k)``: a running minimum of
``X - index``, plus the index. Inside a mapped pair of rows that running
minimum must restart at every row of ``b``. A complex array does this
exactly: numpy orders complex numbers by real part first, so with
``-(row number)`` as the real part the running minimum never reaches back
past the start of its row, and the costs (the imaginary parts) are never
rounded by an offset.

**GriTS.** For each gold row, the similarities of its positions to every
pred position form one (gold columns x pred rows x pred columns) block,
computed from the distinct values on both sides. That gold row's row-pair
scores are weighted LCS runs over the columns, done for every pred row at
once with a running maximum; the column-pair scores advance one gold row,
for every column pair at once. The blocks are never kept together.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from rapidfuzz.distance import LCSseq, Levenshtein
from rapidfuzz.process import cdist

_INF = np.inf


# --------------------------------------------------------------------------
# TEDS


class _TokensB:
    """The second tree in preorder (a row start, then its cells), as arrays over its tokens."""

    def __init__(self, rows: Sequence[Sequence[Any]]) -> None:
        m = len(rows) + sum(len(row) for row in rows)
        self.m = m
        self.is_row = np.zeros(m, bool)
        self.empty_row = np.zeros(m, bool)
        segment = np.empty(m)
        self.offset = np.empty(m)  # position of each token inside its row (the row start is 0)
        cell_at: list[int] = []
        t = 0
        for s, row in enumerate(rows):
            self.is_row[t] = True
            self.empty_row[t] = not row
            segment[t : t + len(row) + 1] = s
            self.offset[t : t + len(row) + 1] = np.arange(len(row) + 1)
            cell_at.extend(range(t + 1, t + 1 + len(row)))
            t += len(row) + 1
        self.row_start = (np.arange(m) - self.offset).astype(np.intp)
        self.closes = np.append(self.is_row[1:], True)  # the token ends its row
        self.neg_segment = -segment
        self.index = np.arange(m + 1, dtype=float)
        self.empty_to_cell = np.where(self.is_row, _INF, 1.0)  # an empty row renamed to a cell
        # per token: its text and span (a row start has the text "" and no span)
        self.token_texts = [""] * m
        span_key = np.full(m, -1, dtype=np.int64)
        texts: dict[str, int] = {"": 0}
        token_text = np.zeros(m, dtype=np.intp)
        for t, cell in zip(cell_at, (cell for row in rows for cell in row)):
            self.token_texts[t] = cell.text
            token_text[t] = texts.setdefault(cell.text, len(texts))
            span_key[t] = _span_key(cell)
        self.token_span = span_key
        cell_spans = set(span_key[np.asarray(cell_at, dtype=np.intp)].tolist())
        self.one_span = cell_spans.pop() if len(cell_spans) == 1 else None
        # With many repeated texts, edit distances are computed once per distinct text.
        self.distinct_texts = list(texts) if len(texts) < 0.5 * max(len(cell_at), 1) else None
        self.token_text = token_text


def _span_key(cell: Any) -> int:
    key: int = cell.rowspan * 2**32 + cell.colspan
    return key


def tree_distance(a: Sequence[Sequence[Any]], b: Sequence[Sequence[Any]], *, structure_only: bool) -> float:
    """Same as ``_table_scoring.table_tree_distance(a, b, rename_matrix(structure_only))``.

    Computed in a band around the diagonal (see `_banded_distance`): first a
    narrow one; if what it finds cannot be certified, again in the band that
    this first answer guarantees to hold an optimal edit script.
    """
    tb = _TokensB(b)
    n = len(a) + sum(len(row) for row in a)
    if not n or not tb.m:
        return float(n + tb.m)
    first = abs(n - tb.m) + 2 * max(32, (n + tb.m) // 200)
    found = _banded_distance(a, tb, structure_only, first)
    return found if found <= first else _banded_distance(a, tb, structure_only, found)


def _banded_distance(a: Sequence[Sequence[Any]], tb: _TokensB, structure_only: bool, limit: float) -> float:
    """The least cost over edit scripts with at most ``limit`` insertions and deletions.

    Insertions and deletions cost 1 each and are the only steps off the
    diagonal of the (token of a, token of b) grid, so a script through a
    point ``d = p - q`` off the diagonal pays at least ``|d| + |n - m - d|``.
    Only the points where that is <= ``limit`` are computed; if the answer
    is <= ``limit`` it is the exact distance, as every script leaving the
    band costs more.
    """
    n, m = len(a) + sum(len(row) for row in a), tb.m
    reach = int((limit - abs(n - m)) // 2)
    d_low, d_high = min(0, n - m) - reach, max(0, n - m) + reach

    def band(p: int) -> tuple[int, int]:
        return max(0, p - d_high), min(m, p - d_low)

    lo, hi = band(0)
    gap = np.full(m + 1, _INF)
    gap[lo : hi + 1] = tb.index[lo : hi + 1]
    p = 0
    for row in a:
        p += 1
        lo, hi = band(p)
        inside = np.full(m + 1, _INF)
        q0 = max(lo, 1)
        if q0 <= hi:  # map tr to tr, then insert b's cells
            inside[q0 : hi + 1] = gap[tb.row_start[q0 - 1 : hi]] + tb.offset[q0 - 1 : hi]
        gap = _gap_step(gap, inside, tb.empty_to_cell if not row else None, 0, not row, tb, lo, hi)
        if not row:
            continue
        t0, t1 = max(band(p + 1)[0], 1) - 1, band(p + len(row))[1]
        costs = _rename_costs(row, tb, structure_only, t0, t1)
        for k in range(len(row)):
            p += 1
            lo, hi = band(p)
            q0 = max(lo, 1)
            previous, inside = inside, np.full(m + 1, _INF)
            if q0 > hi:
                gap = _gap_step(gap, inside, None, 0, False, tb, lo, hi)
                continue
            rename = costs[k, q0 - 1 - t0 : hi - t0]
            step = np.minimum(previous[q0 - 1 : hi] + rename, previous[q0 : hi + 1] + 1.0)
            segments = np.empty(hi - q0 + 1, complex)
            segments.real = tb.neg_segment[q0 - 1 : hi]
            segments.imag = step - tb.offset[q0 - 1 : hi]
            np.minimum.accumulate(segments, out=segments)
            inside[q0 : hi + 1] = segments.imag + tb.offset[q0 - 1 : hi]
            rename = np.where(tb.empty_row[q0 - 1 : hi], 1.0, rename)  # a cell renamed to an empty row
            gap = _gap_step(gap, inside, rename, q0 - 1, k == len(row) - 1, tb, lo, hi)
    return float(gap[m])


def _gap_step(
    gap: np.ndarray, inside: np.ndarray, rename: Any, t0: int, closes_row: bool, tb: _TokensB, lo: int, hi: int
) -> np.ndarray:
    """The ``gap`` vector after one more token of ``a``, on ``lo..hi``.

    ``rename`` holds the diagonal costs for tokens ``t0, t0 + 1, ...`` of b
    (token ``t`` ends at ``q = t + 1``), or is None when there are none.
    """
    out = np.full(tb.m + 1, _INF)
    if lo > hi:
        return out
    step = gap[lo : hi + 1] + 1.0  # delete the token of a
    q0 = max(lo, 1)
    if q0 <= hi:
        tail = step[q0 - lo :]
        if rename is not None:
            np.minimum(tail, gap[q0 - 1 : hi] + rename[q0 - 1 - t0 : hi - t0], out=tail)
        if closes_row:  # close a mapped pair of rows
            np.minimum(tail, np.where(tb.closes[q0 - 1 : hi], inside[q0 : hi + 1], _INF), out=tail)
    index = tb.index[lo : hi + 1]
    step -= index
    np.minimum.accumulate(step, out=step)  # or insert tokens of b
    out[lo : hi + 1] = step + index
    return out


def _rename_costs(cells: Sequence[Any], tb: _TokensB, structure_only: bool, t0: int, t1: int) -> np.ndarray:
    """``costs[k][t - t0]``: renaming ``cells[k]`` into b's token ``t`` (inf for a row start).

    rapidfuzz's normalized distance in float64 is the integer edit count over
    the longer length, divided once, as the pure-Python engine computes it.
    """
    width = max(t1 - t0, 0)
    if structure_only or not width:
        costs = np.zeros((len(cells), width))
    else:
        texts = [c.text for c in cells]
        if tb.distinct_texts is None:
            costs = cdist(
                texts, tb.token_texts[t0:t1], scorer=Levenshtein.normalized_distance, dtype=np.float64, workers=1
            )
        else:
            costs = cdist(
                texts, tb.distinct_texts, scorer=Levenshtein.normalized_distance, dtype=np.float64, workers=1
            )[:, tb.token_text[t0:t1]]
    keys = np.asarray([_span_key(c) for c in cells], dtype=np.int64)
    if tb.one_span is None or (keys != tb.one_span).any():
        costs[tb.token_span[t0:t1][None, :] != keys[:, None]] = 1.0  # other spans
    costs[:, tb.is_row[t0:t1]] = _INF
    return costs


# --------------------------------------------------------------------------
# GriTS


def alignment_scores(
    gold: Sequence[Sequence[Any]], pred: Sequence[Sequence[Any]], *, kind: str
) -> tuple[list[list[float]], list[list[float]]]:
    """Best weighted-LCS score of every (gold row, pred row) and (gold column, pred column) pair.

    The same numbers as ``_table_scoring.overlap``'s ``row_score`` and
    ``col_score``; ``kind`` is ``"content"`` (texts) or ``"topology"`` (boxes).
    Rows (and columns) holding the same values score alike, so each distinct
    one is scored once: a table without spans has a single topology row.
    """
    grid = _Grids(gold, pred, kind)
    g_rows, g_row_of = _distinct(tuple(row) for row in gold)
    p_rows, p_row_of = _distinct(tuple(row) for row in pred)
    g_cols, g_col_of = _distinct(tuple(row[j] for row in gold) for j in range(len(gold[0])))
    p_cols, p_col_of = _distinct(tuple(row[l] for row in pred) for l in range(len(pred[0])))
    every_p_row, every_g_col, every_p_col = np.arange(len(pred)), np.arange(len(gold[0])), np.arange(len(pred[0]))
    row_scores = np.empty((len(g_rows), len(p_rows)))
    representative = dict(zip(g_rows.tolist(), range(len(g_rows))))
    lcs = np.zeros((len(p_rows), len(pred[0]) + 1))
    cols = np.zeros((len(g_cols), len(p_cols), len(pred) + 1))
    for i in range(len(gold)):
        sims = grid.similarities(i)
        u = representative.get(i)
        if u is not None:  # the row pass: weighted LCS over columns, for each distinct pred row
            block = grid.block(i, sims, p_rows, every_g_col, every_p_col)  # [j, k, l]
            lcs[:] = 0.0
            for j in range(len(gold[0])):
                step = np.maximum(lcs[:, 1:], lcs[:, :-1] + block[j])
                np.maximum.accumulate(step, axis=1, out=lcs[:, 1:])
            row_scores[u] = lcs[:, -1]
        # the column pass advances one gold row, for each pair of distinct columns
        block = grid.block(i, sims, every_p_row, g_cols, p_cols).transpose(0, 2, 1)  # [j, l, k]
        step = np.maximum(cols[:, :, 1:], cols[:, :, :-1] + block)
        np.maximum.accumulate(step, axis=2, out=cols[:, :, 1:])
    rows_out = row_scores[np.ix_(g_row_of, p_row_of)]
    cols_out = cols[:, :, -1][np.ix_(g_col_of, p_col_of)]
    return rows_out.tolist(), cols_out.tolist()


def _distinct(items: Any) -> tuple[np.ndarray, np.ndarray]:
    """The index of each distinct item's first occurrence, and each item's distinct id."""
    first: dict[Any, tuple[int, int]] = {}
    ids = []
    for n, item in enumerate(items):
        ids.append(first.setdefault(item, (len(first), n))[0])
    return np.asarray([n for _, n in first.values()], dtype=np.intp), np.asarray(ids, dtype=np.intp)


class _Grids:
    """Similarity blocks between one gold row and the pred grid, from distinct values."""

    def __init__(self, gold: Sequence[Sequence[Any]], pred: Sequence[Sequence[Any]], kind: str) -> None:
        self.gold = gold
        self.similarity = _SIMILARITY[kind]
        index: dict[Any, int] = {}
        flat = [index.setdefault(v, len(index)) for row in pred for v in row]
        self.shape = (len(pred), len(pred[0]))
        # Mostly distinct values are all kept, so that blocks need no gathering.
        self.pred_distinct = len(index) > 0.8 * len(flat)
        values = [v for row in pred for v in row] if self.pred_distinct else list(index)
        self.pred_of = np.arange(len(flat)) if self.pred_distinct else np.asarray(flat, dtype=np.intp)
        self.pred_of = self.pred_of.reshape(self.shape)
        self.pred_side = _PREPARE[kind](values)
        self.gold_of: list[int] = []

    def similarities(self, i: int) -> np.ndarray:
        """Similarity of each distinct value of gold row ``i`` to each distinct pred value."""
        row = self.gold[i]
        index: dict[Any, int] = {}
        self.gold_of = [index.setdefault(v, len(index)) for v in row]
        if len(index) > 0.8 * len(row):
            self.gold_of = list(range(len(row)))
            return self.similarity(list(row), self.pred_side)
        return self.similarity(list(index), self.pred_side)

    def block(self, i: int, sims: np.ndarray, k: np.ndarray, j: np.ndarray, l: np.ndarray) -> np.ndarray:
        """``out[a, b, c]`` = similarity of gold ``(i, j[a])`` and pred ``(k[b], l[c])``."""
        whole = len(k) == self.shape[0] and len(l) == self.shape[1] and len(j) == len(self.gold_of)
        if whole and self.pred_distinct and len(sims) == len(j):  # nothing repeats: no gathering
            return sims.reshape(len(j), *self.shape)
        gold_of = np.asarray(self.gold_of, dtype=np.intp)[j]
        out: np.ndarray = sims[gold_of[:, None, None], self.pred_of[np.ix_(k, l)][None, :, :]]
        return out


def _prepare_texts(texts: list[str]) -> tuple[list[str], np.ndarray]:
    return texts, np.asarray([len(x) for x in texts], dtype=np.float64)


def _lcs_similarities(texts: list[str], other: tuple[list[str], np.ndarray]) -> np.ndarray:
    """``2 * LCS / (len + len)`` of every pair; two empty texts are identical (1.0)."""
    other_texts, other_len = other
    common = cdist(texts, other_texts, scorer=LCSseq.similarity, dtype=np.float64, workers=1)
    common *= 2.0
    with np.errstate(divide="ignore", invalid="ignore"):
        common /= np.asarray([len(x) for x in texts], dtype=np.float64)[:, None] + other_len[None, :]
    if "" in texts and "" in other_texts:  # 0/0: two empty texts are identical
        empty = np.asarray([n for n, x in enumerate(texts) if not x], dtype=np.intp)
        common[np.ix_(empty, np.flatnonzero(other_len == 0))] = 1.0
    return common


def _prepare_boxes(boxes: list[tuple[int, int, int, int]]) -> np.ndarray:
    return np.asarray(boxes, dtype=np.int64).reshape(-1, 4)


def _iou_similarities(boxes: list[tuple[int, int, int, int]], other: np.ndarray) -> np.ndarray:
    """Intersection over union of every pair of ``(x0, y0, x1, y1)`` boxes."""
    a = _prepare_boxes(boxes)[:, None, :]
    b = other[None, :, :]
    width = np.minimum(a[..., 2], b[..., 2]) - np.maximum(a[..., 0], b[..., 0])
    height = np.minimum(a[..., 3], b[..., 3]) - np.maximum(a[..., 1], b[..., 1])
    inter = np.where((width > 0) & (height > 0), width * height, 0)
    union = (
        (a[..., 2] - a[..., 0]) * (a[..., 3] - a[..., 1]) + (b[..., 2] - b[..., 0]) * (b[..., 3] - b[..., 1]) - inter
    )
    return np.where(union == 0, 1.0, inter / np.maximum(union, 1))


_PREPARE: dict[str, Callable[[list[Any]], Any]] = {"content": _prepare_texts, "topology": _prepare_boxes}
_SIMILARITY: dict[str, Callable[[list[Any], Any], np.ndarray]] = {
    "content": _lcs_similarities,
    "topology": _iou_similarities,
}
