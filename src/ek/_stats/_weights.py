"""The weights and replicate sums of the bootstrap, and the interval and p-value they give.

See the `ek._stats` package docstring for the design; this module is its
arithmetic over numpy arrays (numpy is imported inside each function).

>>> [weight("doc-1", b) for b in range(8)]
[2, 0, 0, 2, 3, 4, 3, 2]
"""

from __future__ import annotations

import bisect
import contextlib
import math
import numbers
import sys
from collections.abc import Iterable, Iterator, Sequence
from itertools import pairwise, repeat
from typing import Any, NamedTuple

from ek._stats._quantiles import sorted_numbers
from ek._util import first_repeat, threads

__all__ = [
    "MIN_ITEMS",
    "REPLICATES",
    "SCHEME",
    "as_table",
    "check_ids",
    "id_keys",
    "id_text",
    "p_value_of",
    "replicate_sums",
    "splitmix",
    "weight",
]

REPLICATES = 1000
"""Replicates per interval."""

MIN_ITEMS = 40
"""Fewest items (in a report, or in a slice) given a bootstrap interval; below it there is none (NaN).

Chosen by simulation: CER-like corpora (document difficulty Beta(2, 38),
lengths uniform in 20-100 or log-normal varying tenfold), 4,000 to 8,000
trials a size. The 95% percentile interval covered the true CER 48% of
the time at 2 documents, 85% at 5, 91-92% at 20, 92.3-93% at 30 and
92.5-94% at 40-50; one document gives a zero-width interval. The paired
bootstrap p-value of two equal systems fell under 0.05 in 29-38% of
comparisons at 2 documents, 7-9% at 5 and 5.5-7% at 20-50. Below this
size `ek.compare` uses the sign-flip permutation test of
`ek._stats._permutation` instead, and from it on it checks the
bootstrap's verdicts with that test (tests/test_bootstrap_simulation.py).
"""

SCHEME = "ek-poisson256-fnv1a-splitmix64-v1"
"""Names the weight function; replicate sums made by another scheme do not add up with these."""

_FNV_OFFSET, _FNV_PRIME = 0xCBF29CE484222325, 0x100000001B3
_GAMMA = 0x9E3779B97F4A7C15
_MIX1, _MIX2 = 0xBF58476D1CE4E5B9, 0x94D049BB133111EB
_MASK = (1 << 64) - 1
_CUTS = (94, 189, 235, 251, 255)
_MAX_WEIGHT = len(_CUTS)
_KEY_BLOCK = 4096  # ids hashed together
_CHUNK = 512  # items per block of weights: the block's buffers (0.5 MB each for 1,000 replicates) stay in cache
_BLOCK = 64 * _CHUNK  # items summed apart before their sums are added (one job for a thread)
# Distinct statistics rows are summed apart (`_by_row`) while a row costs less than this many
# item x column products of the einsum path (measured at 100,000 items and 1,000 replicates:
# a row 15-25 us, a product ~0.5 us); at most _MAX_ROWS of them (summed weights: 8 kB a row).
_ROW_COST, _MAX_ROWS = 50, 4096
_PARALLEL_WORK = 20_000_000  # items x replicates from which the weighing is shared among threads
_SHIFT = 3  # low digit of a column cut in two (`_parts`): 0..7, so 512 of them weigh under 2**15
_SMALL_BASE, _SMALL_DIGIT = 1 << _SHIFT, (1 << _SHIFT) - 1
_INT32_ROOM = 2**31 // (_MAX_WEIGHT * _CHUNK)  # largest |statistic| summed exactly in int32 per block
assert _MAX_WEIGHT * _CHUNK < 2**16  # a block's weight totals fit uint16


def id_text(item_id: Any) -> str:
    """The text an id is hashed as: a str as is, an integer in decimal, anything else as its repr."""
    if isinstance(item_id, str):
        return item_id
    if isinstance(item_id, numbers.Integral) and not isinstance(item_id, bool):
        return str(int(item_id))
    return repr(item_id)


def check_ids(ids: Iterable[Any], n: int, *, who: str) -> tuple[Any, ...]:
    """``ids`` as a tuple, after checking there is one per item and no two hash alike.

    Raises:
        ValueError: a count other than ``n``, or two ids with the same text.
    """
    if isinstance(ids, (str, bytes)):
        raise TypeError(f"{who} ids must be a sequence of item ids (one per case), got a {type(ids).__name__}.")
    out = tuple(ids)
    if len(out) != n:
        raise ValueError(f"{who} got {len(out)} ids for {n} items; pass one id per case, in the same order.")
    repeat = first_repeat(out if set(map(type, out)) <= {str} else list(map(id_text, out)))
    if repeat is not None:
        i, j = repeat
        raise ValueError(
            f"{who} ids hold {out[j]!r} twice (items {i} and {j}); every item needs its own id, since an "
            "item's id decides how the bootstrap resamples it."
        )
    return out


def weight(item_id: Any, b: int) -> int:
    """The bootstrap weight of ``item_id`` in replicate ``b`` (see the package doc), in pure Python."""
    data = id_text(item_id).encode("utf-8", "surrogatepass")
    key = _FNV_OFFSET
    for byte in (*data, len(data)):
        key = ((key ^ byte) * _FNV_PRIME) & _MASK
    j, k = divmod(b, 8)
    z = (key + (j + 1) * _GAMMA) & _MASK
    z = ((z ^ (z >> 30)) * _MIX1) & _MASK
    z = ((z ^ (z >> 27)) * _MIX2) & _MASK
    z ^= z >> 31
    u = (z >> (8 * k)) & 0xFF
    return sum(u >= c for c in _CUTS)


def replicate_sums(
    ids: Sequence[Any], table: Any, codes: Any, n_groups: int, *, replicates: int = REPLICATES, progress: Any = None
) -> Any:
    """Weighted sums per group and replicate: an array ``(n_groups, replicates, k + 1)``.

    Args:
        ids: the item ids, one per row of ``table``.
        table: ``(n, k)`` per-item statistics (integer or float numpy array).
        codes: ``(n,)`` group number of each item, in ``range(n_groups)``.
        replicates: ``B``.
        progress: called with the number of items done so far, if given.

    The last column holds each replicate's total weight (how many items it
    drew), which says when a replicate of a group is empty. Integer
    statistics give int64 sums, exact whatever the order of addition; so
    when few items differ in their statistics (lines of text: a few hundred
    ``(edits, length)`` rows among 100,000 items) the weights are summed per
    distinct row and multiplied by it once (`_by_row`), else each column is
    weighed chunk by chunk (`_by_chunk`).
    """
    import numpy as np

    n, k = table.shape
    exact = table.dtype.kind in "iub"
    sums = np.zeros((n_groups, replicates, k + 1), dtype=np.int64 if exact else np.float64)
    if n == 0:
        return sums
    keys = id_keys(ids)
    rows = _distinct_rows(table, codes) if exact else None
    with _pool(n * replicates) as pool:
        if rows is not None:
            _by_row(keys, rows, sums, pool, progress)
        else:
            _by_chunk(keys, table, codes, sums, pool, progress)
    return sums


def _by_chunk(keys: Any, table: Any, codes: Any, sums: Any, pool: Any, progress: Any) -> None:
    """`replicate_sums` into ``sums``, every statistic column weighed chunk by chunk (einsum)."""
    import numpy as np

    n_groups, replicates, k = sums.shape[0], sums.shape[1], table.shape[1]
    columns = [_column_for_einsum(table[:, c]) for c in range(k)]
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(n_groups + 1))
    # Blocks of chunks are summed apart and then added in a fixed order, so float sums round
    # the same however many threads ran them.
    blocks = [
        (g, [order[s : min(s + _CHUNK, bounds[g + 1])] for s in range(b0, min(b0 + _BLOCK, bounds[g + 1]), _CHUNK)])
        for g in range(n_groups)
        for b0 in range(bounds[g], bounds[g + 1], _BLOCK)
    ]

    def block_sums(block: tuple[Any, ...]) -> Any:
        _g, chunks = block
        weigh = _Weigher(replicates, _CHUNK)
        out = np.zeros((replicates, k + 1), dtype=sums.dtype)
        for rows in chunks:
            w = weigh(keys[rows])
            for c, column in enumerate(columns):
                for scale, part in _parts(column[rows]):
                    partial = np.einsum("ib,i->b", w, part)
                    out[:, c] += partial if scale == 1 else partial.astype(out.dtype) * scale  # int16 would wrap
            out[:, k] += np.add.reduce(w, axis=0, dtype=np.uint16)  # at most 5 x _CHUNK: twice as fast as int32
        return out

    done = 0
    for (g, chunks), partial in zip(blocks, (pool or _Serial()).map(block_sums, blocks)):
        sums[g] += partial
        done += sum(len(rows) for rows in chunks)
        if progress is not None:
            progress(done)


class _Rows(NamedTuple):
    """Items sorted by their statistics row: ``order`` (item numbers), ``row`` (the distinct row of each, in that
    order), ``values`` (``(d, k)`` int64, one per distinct row) and ``groups`` (``(d,)``, the group of each)."""

    order: Any
    row: Any
    values: Any
    groups: Any


def _distinct_rows(table: Any, codes: Any) -> _Rows | None:
    """The items grouped by ``(group, statistics)`` row, or None when rows repeat too little to pay off.

    Each row becomes one int64 number (mixed radix over the columns'
    ranges, renumbered densely when it would pass 2**62), so one stable
    sort groups equal rows.
    """
    import numpy as np

    n = len(table)
    if table.dtype.kind == "u" and table.size and int(table.max()) >= 2**63:
        return None
    key, top = codes.astype(np.int64), int(codes.max()) + 1
    for column in table.astype(np.int64, copy=False).T:
        lo, hi = int(column.min()), int(column.max())
        span = hi - lo + 1
        if top * span >= 2**62:
            key, top = _dense(key)
            if top * span >= 2**62:
                return None
        key = key * span + (column - lo)
        top *= span
    order = np.argsort(key, kind="stable")
    ordered = key[order]
    starts = np.flatnonzero(ordered[1:] != ordered[:-1]) + 1
    d = len(starts) + 1
    if d * _ROW_COST > n * max(table.shape[1], 1) or d > _MAX_ROWS:
        return None
    row = np.zeros(n, dtype=np.int64)
    row[starts] = 1
    np.cumsum(row, out=row)
    first = order[np.concatenate([[0], starts])]
    return _Rows(order, row, table[first].astype(np.int64), codes[first])


def _dense(key: Any) -> tuple[Any, int]:
    """``key`` renumbered ``0..d-1`` in its order (as ``np.unique``'s inverse), and ``d``."""
    import numpy as np

    order = np.argsort(key, kind="stable")
    ordered = key[order]
    step = np.concatenate([[0], (ordered[1:] != ordered[:-1]).astype(np.int64)])
    dense = np.empty_like(key)
    dense[order] = np.cumsum(step)
    return dense, int(dense.max()) + 1


def _by_row(keys: Any, rows: _Rows, sums: Any, pool: Any, progress: Any) -> None:
    """`replicate_sums` into ``sums``: each distinct row's weights summed, times the row (exact integers)."""
    import numpy as np

    n, replicates, k = len(keys), sums.shape[1], sums.shape[2] - 1
    order, row = rows.order, rows.row
    counts = np.zeros((len(rows.values), replicates), dtype=np.int64)  # the summed weights of each row's items

    # Integer sums do not depend on how the items are cut, so the blocks are even:
    # eight of them keep two or four threads equally busy.
    size = min(_BLOCK, -(-n // (8 * _CHUNK)) * _CHUNK)

    def block_counts(start: int) -> tuple[int, Any]:
        stop = min(start + size, n)
        first = int(row[start])
        out = np.zeros((int(row[stop - 1]) - first + 1, replicates), dtype=np.int64)
        weigh = _Weigher(replicates, _CHUNK)
        for s in range(start, stop, _CHUNK):
            e = min(s + _CHUNK, stop)
            w, r = weigh(keys[order[s:e]]), row[s:e]
            cuts = [0, *(np.flatnonzero(r[1:] != r[:-1]) + 1).tolist(), e - s]
            for a, b in pairwise(cuts):
                out[int(r[a]) - first] += np.add.reduce(w[a:b], axis=0, dtype=np.uint16)  # at most 5 x _CHUNK
        return first, out

    starts = range(0, n, size)
    for start, (first, partial) in zip(starts, (pool or _Serial()).map(block_counts, starts)):
        counts[first : first + len(partial)] += partial
        if progress is not None:
            progress(min(start + size, n))
    groups = sorted(set(rows.groups.tolist()))  # not np.unique: it imports numpy.ma (20 ms)
    for g in groups:
        mine = rows.groups == g
        weights, values = (counts, rows.values) if len(groups) == 1 else (counts[mine], rows.values[mine])
        for c in range(k):  # a column at a time: int64 matmul has no fast loop (6x slower at 4,000 rows)
            sums[g, :, c] = np.einsum("r,rb->b", values[:, c], weights)
        sums[g, :, k] = weights.sum(axis=0)


@contextlib.contextmanager
def _pool(work: int) -> Iterator[Any]:
    """Threads for a large weighing (numpy releases the GIL in it), else None: `ek._util.threads`, up to 4."""
    workers = min(threads(), 4)
    if work < _PARALLEL_WORK or workers < 2:
        yield None
        return
    from concurrent.futures import ThreadPoolExecutor  # with logging, 6 ms that `import ek` need not pay

    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ek-bootstrap") as pool:
        yield pool


class _Serial:
    @staticmethod
    def map(fn: Any, items: Sequence[Any]) -> Iterator[Any]:
        return map(fn, items)


def p_value_of(differences: Iterable[float]) -> float:
    """Two-sided p-value of "no difference" from paired replicate differences (see the package doc).

    With ``Q`` the quantile function `interval_of` reads (over positions
    ``h`` of the sorted values), the interval at ``level`` excludes 0 exactly
    when its tail ``(1 - level) / 2`` passes the last position where ``Q`` is
    still <= 0, or mirrors past the first where it is already >= 0; the
    p-value is twice the nearer of the two, as a share of the positions.
    """
    d = sorted_numbers(differences)
    m = len(d)
    if m < 2:
        return math.nan
    below = bisect.bisect_left(d, 0.0)  # values < 0
    first_above = bisect.bisect_right(d, 0.0)  # values <= 0
    if below == first_above and 0 < below < m:  # no value is 0: Q crosses it between two values
        lo, hi = d[below - 1], d[below]
        h_first = h_last = below - 1 + -lo / (hi - lo)
    else:
        h_first = float(min(below, m - 1))  # Q(h) >= 0 from here on
        h_last = float(max(first_above - 1, 0))  # Q(h) <= 0 up to here
    p = 2 * min(h_last / (m - 1), 1 - h_first / (m - 1))
    return min(1.0, max(p, 1 / m))


# ---------------------------------------------------------------------------


def id_keys(ids: Sequence[Any]) -> Any:
    """The 64-bit key of every id: FNV-1a over its UTF-8 bytes and then its length, as a uint64 array.

    Vectorised over the ids: the bytes sit in a zero-padded matrix whose rows
    are sorted by length, so byte ``j`` is hashed for a prefix of the rows.
    Blocks of ids keep one very long id from padding all the others.
    """
    import numpy as np

    texts = ids if set(map(type, ids)) <= {str} else list(map(id_text, ids))
    same = _same_length_ascii(texts)
    if same is not None:
        return same
    data = list(map(str.encode, texts, repeat("utf-8"), repeat("surrogatepass")))
    keys = np.empty(len(data), dtype=np.uint64)
    prime = np.uint64(_FNV_PRIME)
    for start in range(0, len(data), _KEY_BLOCK):
        block = data[start : start + _KEY_BLOCK]
        lengths = np.fromiter(map(len, block), dtype=np.int64, count=len(block))
        order = np.argsort(-lengths, kind="stable")
        ordered = lengths[order]
        matrix = np.array(block, dtype=f"S{max(int(ordered[0]), 1)}")[order]
        columns = np.ascontiguousarray(matrix.view(np.uint8).reshape(len(block), -1).T).astype(np.uint64)
        h = np.full(len(block), _FNV_OFFSET, dtype=np.uint64)
        live = len(block)
        for j, column in enumerate(columns):
            while live and ordered[live - 1] <= j:
                live -= 1
            np.bitwise_xor(h[:live], column[:live], out=h[:live])
            np.multiply(h[:live], prime, out=h[:live])
        h ^= ordered.astype(np.uint64)
        h *= prime
        keys[start + order] = h
    return keys


def _same_length_ascii(texts: Sequence[str]) -> Any:
    """`id_keys` of ASCII ids all of one length ("doc-000001", ...), from one byte matrix; else None.

    Their UTF-8 bytes are their characters, so the ids joined are the matrix's rows.
    """
    import numpy as np

    joined = "".join(texts)
    if not texts or not joined.isascii() or len(joined) % len(texts) or len(set(map(len, texts))) != 1:
        return None
    width = len(joined) // len(texts)
    matrix = np.frombuffer(joined.encode("ascii"), dtype=np.uint8).reshape(len(texts), width)
    prime = np.uint64(_FNV_PRIME)
    h = np.full(len(texts), _FNV_OFFSET, dtype=np.uint64)
    for j in range(width):
        h ^= matrix[:, j]
        h *= prime
    h ^= np.uint64(width)
    h *= prime
    return h


class _Weigher:
    """Weights of blocks of items, eight per splitmix64 hash of ``key + lane * gamma``, in reused buffers.

    Blocks are kept small (`_CHUNK`) so every buffer stays in the CPU's cache.
    """

    def __init__(self, replicates: int, chunk: int) -> None:
        import numpy as np

        lanes = -(-replicates // 8)
        self.replicates = replicates
        self.lanes = np.arange(1, lanes + 1, dtype=np.uint64) * np.uint64(_GAMMA)  # wraps mod 2**64
        self.z = np.empty((chunk, lanes), dtype=np.uint64)
        self.scratch = np.empty_like(self.z)
        self.w = np.empty((chunk, replicates), dtype=np.uint8)
        self.hit = np.empty((chunk, replicates), dtype=bool)

    def __call__(self, keys: Any) -> Any:
        import numpy as np

        m = len(keys)
        z, scratch = self.z[:m], self.scratch[:m]
        np.add(keys[:, None], self.lanes[None, :], out=z)
        splitmix(z, scratch)
        u = (z if sys.byteorder == "little" else z.byteswap()).view(np.uint8)[:, : self.replicates]
        w, hit = self.w[:m], self.hit[:m]
        np.greater_equal(u, _CUTS[0], out=w.view(bool))
        for cut in _CUTS[1:]:
            np.greater_equal(u, cut, out=hit)
            np.add(w, hit.view(np.uint8), out=w)
        return w


def splitmix(z: Any, scratch: Any) -> None:
    """splitmix64's finaliser applied in place to the uint64 array ``z`` (``scratch``: a buffer of its shape)."""
    import numpy as np

    for shift, mult in ((30, _MIX1), (27, _MIX2), (31, None)):
        np.right_shift(z, np.uint64(shift), out=scratch)
        np.bitwise_xor(z, scratch, out=z)
        if mult is not None:
            np.multiply(z, np.uint64(mult), out=z)


def _column_for_einsum(column: Any) -> Any:
    """A statistic column in the narrowest dtype that sums a block of weighted values exactly."""
    import numpy as np

    if column.dtype.kind not in "iub":
        return column.astype(np.float64)
    top = int(np.abs(column).max()) if len(column) else 0
    return column.astype(np.int32 if top < _INT32_ROOM else np.int64)


def _parts(values: Any) -> list[tuple[int, Any]]:
    """A chunk of a column as ``(scale, part)`` with ``values == sum(scale * part)``, in int16 where that is exact.

    einsum of the uint8 weights with an int16 column is three times as fast
    as with int32. Every weight is at most `_MAX_WEIGHT`, so a part whose
    |values| sum to less than ``2**15 / _MAX_WEIGHT`` has int16 weighted sums.
    Non-negative values too large for that are cut in two digits,
    ``8 * (v >> 3) + (v & 7)`` (a line's length, 40 to 100 characters).
    """
    import numpy as np

    if values.dtype.kind == "f":
        return [(1, values)]
    room = 2**15 / _MAX_WEIGHT
    total = float(np.abs(values.astype(np.float64)).sum())  # float: abs() of the int64 minimum overflows
    if total < room:
        return [(1, values.astype(np.int16))]
    if values.min() >= 0 and _SMALL_DIGIT * len(values) < room and total / _SMALL_BASE < room - len(values):
        high = values >> _SHIFT  # sums to at most total / 8
        return [(_SMALL_BASE, high.astype(np.int16)), (1, (values & _SMALL_DIGIT).astype(np.int16))]
    return [(1, values)]


def _array(column: Sequence[Any], n: int) -> Any:
    """One column as an array: int64 in one pass when it holds Python ints (the common case), else as numpy reads it."""
    import numpy as np

    if n and len(column) == n and set(map(type, column)) <= {int}:
        try:
            return np.fromiter(column, dtype=np.int64, count=n)
        except OverflowError:  # an int past int64 stays an object
            pass
    return np.asarray(column)


def as_table(columns: Sequence[Sequence[Any]], n: int) -> Any:
    """Per-item statistic columns as one ``(n, k)`` array: int64 when every value is an integer."""
    import numpy as np

    arrays = [_array(c, n) for c in columns]
    if all(a.dtype.kind in "iub" for a in arrays):
        return np.stack(arrays, axis=1).astype(np.int64) if arrays else np.zeros((n, 0), dtype=np.int64)
    return np.stack([a.astype(np.float64) for a in arrays], axis=1)
