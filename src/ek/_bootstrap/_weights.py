"""The weights and replicate sums of the bootstrap, and the interval and p-value they give.

See the `ek._bootstrap` package docstring for the design; this module is its
arithmetic over numpy arrays (numpy is imported inside each function).

>>> [weight("doc-1", b) for b in range(8)]
[1, 1, 0, 1, 1, 0, 0, 2]
"""

from __future__ import annotations

import hashlib
import math
import numbers
import sys
from typing import Any, Iterable, Sequence

__all__ = [
    "REPLICATES", "SCHEME", "as_table", "check_ids", "id_text", "interval_of", "p_value_of", "replicate_sums", "weight",
]

REPLICATES = 1000
"""Replicates per interval."""

SCHEME = "ek-poisson256-blake2b-splitmix64-v1"
"""Names the weight function; replicate sums made by another scheme do not add up with these."""

_SALT = b"ek.bootstrap"
_GAMMA = 0x9E3779B97F4A7C15
_MIX1, _MIX2 = 0xBF58476D1CE4E5B9, 0x94D049BB133111EB
_MASK = (1 << 64) - 1
_CUTS = (94, 189, 235, 251, 255)
_MAX_WEIGHT = len(_CUTS)
_CHUNK = 4096  # items per block of weights: 4096 x 1000 bytes stays in cache
_INT32_ROOM = 2**31 // (_MAX_WEIGHT * _CHUNK)  # largest |statistic| summed exactly in int32 per block


def id_text(item_id: Any) -> str:
    """The text an id is hashed as: a str as is, an integer in decimal, anything else as its repr."""
    if isinstance(item_id, str):
        return item_id
    if isinstance(item_id, numbers.Integral) and not isinstance(item_id, bool):
        return str(int(item_id))
    return repr(item_id)


def check_ids(ids: Iterable, n: int, *, who: str) -> tuple:
    """``ids`` as a tuple, after checking there is one per item and no two hash alike.

    Raises:
        ValueError: a count other than ``n``, or two ids with the same text.
    """
    if isinstance(ids, (str, bytes)):
        raise TypeError(f"{who} ids must be a sequence of item ids (one per case), got a {type(ids).__name__}.")
    out = tuple(ids)
    if len(out) != n:
        raise ValueError(f"{who} got {len(out)} ids for {n} items; pass one id per case, in the same order.")
    texts = list(map(id_text, out))
    if len(set(texts)) != n:
        seen: dict = {}
        for i, text in enumerate(texts):
            if text in seen:
                raise ValueError(
                    f"{who} ids hold {out[i]!r} twice (items {seen[text]} and {i}); every item needs its own "
                    "id, since an item's id decides how the bootstrap resamples it."
                )
            seen[text] = i
    return out


def weight(item_id: Any, b: int) -> int:
    """The bootstrap weight of ``item_id`` in replicate ``b`` (see the module doc), in pure Python."""
    key = int.from_bytes(hashlib.blake2b(id_text(item_id).encode("utf-8", "surrogatepass"), digest_size=8,
                                         key=_SALT).digest(), "little")
    j, k = divmod(b, 8)
    z = (key + (j + 1) * _GAMMA) & _MASK
    z = ((z ^ (z >> 30)) * _MIX1) & _MASK
    z = ((z ^ (z >> 27)) * _MIX2) & _MASK
    z ^= z >> 31
    u = (z >> (8 * k)) & 0xFF
    return sum(u >= c for c in _CUTS)


def replicate_sums(ids: Sequence, table: Any, codes: Any, n_groups: int, *, replicates: int = REPLICATES,
                   progress: Any = None) -> Any:
    """Weighted sums per group and replicate: an array ``(n_groups, replicates, k + 1)``.

    Args:
        ids: the item ids, one per row of ``table``.
        table: ``(n, k)`` per-item statistics (integer or float numpy array).
        codes: ``(n,)`` group number of each item, in ``range(n_groups)``.
        replicates: ``B``.
        progress: called with the number of items done so far, if given.

    The last column holds each replicate's total weight (how many items it
    drew), which says when a replicate of a group is empty. Integer
    statistics give int64 sums, exact whatever the order of addition.
    """
    import numpy as np

    n, k = table.shape
    exact = table.dtype.kind in "iub"
    sums = np.zeros((n_groups, replicates, k + 1), dtype=np.int64 if exact else np.float64)
    if n == 0:
        return sums
    keys = _keys(ids)
    columns = [_column_for_einsum(table[:, c]) for c in range(k)]
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(n_groups + 1))
    done = 0
    for g in range(n_groups):
        members = order[bounds[g]:bounds[g + 1]]
        for start in range(0, len(members), _CHUNK):
            rows = members[start:start + _CHUNK]
            w = _weights(keys[rows], replicates)
            for c, column in enumerate(columns):
                sums[g, :, c] += np.einsum("ib,i->b", w, column[rows])
            sums[g, :, k] += w.sum(axis=0, dtype=np.int64)
            done += len(rows)
            if progress is not None:
                progress(done)
    return sums


def interval_of(values: Sequence[float], level: float) -> tuple[float, float]:
    """The percentile interval of replicate ``values`` (NaN ones left out) at ``level``."""
    import numpy as np

    v = np.asarray(values, dtype=np.float64)
    v = v[~np.isnan(v)]
    if not len(v):
        return (math.nan, math.nan)
    tail = (1 - level) / 2  # as scipy.stats.bootstrap's percentile method takes it
    low, high = np.quantile(v, [tail, 1 - tail])
    return (float(low), float(high))


def p_value_of(differences: Sequence[float]) -> float:
    """Two-sided p-value of "no difference" from paired replicate differences (see the package doc).

    With ``Q`` the quantile function `interval_of` reads (over positions
    ``h`` of the sorted values), the interval at ``level`` excludes 0 exactly
    when its tail ``(1 - level) / 2`` passes the last position where ``Q`` is
    still <= 0, or mirrors past the first where it is already >= 0; the
    p-value is twice the nearer of the two, as a share of the positions.
    """
    import numpy as np

    d = np.sort(np.asarray(differences, dtype=np.float64))
    d = d[~np.isnan(d)]
    m = len(d)
    if m < 2:
        return math.nan
    below = int(np.searchsorted(d, 0.0, side="left"))   # values < 0
    first_above = int(np.searchsorted(d, 0.0, side="right"))  # values <= 0
    if below == first_above and 0 < below < m:  # no value is 0: Q crosses it between two values
        lo, hi = d[below - 1], d[below]
        h_first = h_last = below - 1 + float(-lo / (hi - lo))
    else:
        h_first = float(min(below, m - 1))  # Q(h) >= 0 from here on
        h_last = float(max(first_above - 1, 0))  # Q(h) <= 0 up to here
    p = 2 * min(h_last / (m - 1), 1 - h_first / (m - 1))
    return min(1.0, max(p, 1 / m))


# ---------------------------------------------------------------------------


def _keys(ids: Sequence) -> Any:
    """The 64-bit hash key of every id, as a uint64 array."""
    import numpy as np

    texts = ids if all(type(i) is str for i in ids) else list(map(id_text, ids))
    keyed = hashlib.blake2b(digest_size=8, key=_SALT)  # copying a keyed state skips hashing the key again
    out = []
    for text in texts:
        h = keyed.copy()
        h.update(text.encode("utf-8", "surrogatepass"))
        out.append(h.digest())
    return np.frombuffer(b"".join(out), dtype="<u8").astype(np.uint64)


def _weights(keys: Any, replicates: int) -> Any:
    """``(len(keys), replicates)`` uint8 weights: eight per splitmix64 hash of ``key + lane * gamma``."""
    import numpy as np

    lanes = np.arange(1, -(-replicates // 8) + 1, dtype=np.uint64) * np.uint64(_GAMMA)  # wraps mod 2**64
    z = keys[:, None] + lanes[None, :]
    scratch = np.empty_like(z)
    for shift, mult in ((30, _MIX1), (27, _MIX2), (31, None)):
        np.right_shift(z, np.uint64(shift), out=scratch)
        np.bitwise_xor(z, scratch, out=z)
        if mult is not None:
            np.multiply(z, np.uint64(mult), out=z)
    if sys.byteorder != "little":
        z = z.byteswap()
    u = z.view(np.uint8)[:, :replicates]
    w = (u >= _CUTS[0]).view(np.uint8)
    hit = np.empty(u.shape, dtype=bool)
    for cut in _CUTS[1:]:
        np.greater_equal(u, cut, out=hit)
        w += hit.view(np.uint8)
    return w


def _column_for_einsum(column: Any) -> Any:
    """A statistic column in the narrowest dtype that sums a block of weighted values exactly."""
    import numpy as np

    if column.dtype.kind not in "iub":
        return column.astype(np.float64)
    top = int(np.abs(column).max()) if len(column) else 0
    return column.astype(np.int32 if top < _INT32_ROOM else np.int64)


def as_table(columns: Sequence[Sequence], n: int) -> Any:
    """Per-item statistic columns as one ``(n, k)`` array: int64 when every value is an integer."""
    import numpy as np

    arrays = [np.asarray(c) for c in columns]
    if all(a.dtype.kind in "iub" for a in arrays):
        return np.stack(arrays, axis=1).astype(np.int64) if arrays else np.zeros((n, 0), dtype=np.int64)
    return np.stack([a.astype(np.float64) for a in arrays], axis=1)
