"""The paired sign-flip permutation test: a p-value that holds at any number of items, two included.

Two runs A and B scored on the same items differ only by chance when, item
by item, it could as well have been A that produced B's output and B A's.
The test takes that literally: for a set of items, swap A's and B's
statistics within each of them, recompute both corpus figures from the
summed statistics (so a ratio of sums such as CER is handled exactly, not
through per-item rates), and see how often the difference ``|B - A|`` is at
least the observed one. Every swap pattern is as likely as the observed one
under that null, so the share is a p-value that is exact at any ``n``.

* Up to `EXACT_UP_TO` items every one of the ``2**n`` patterns is counted.
  The pattern that swaps every item gives ``-(B - A)``, so the p-value is
  never below ``2 / 2**n``: 0.5 for 2 items, 0.0625 for 5, and 6 items are
  the fewest that can reach p < 0.05 (see `smallest_p_value`).
* Beyond that, `DRAWS` patterns are drawn and ``p = (1 + hits) / (1 +
  DRAWS)``, which keeps the test exact in level. The patterns are not
  random: with ``key`` the 64-bit FNV-1a key of the item's id (as the
  bootstrap weights take it, see `ek._bootstrap`), the item is swapped in
  draw ``r = 64 j + b`` when bit ``b`` of ``splitmix64((key XOR
  0x5851F42D4C957F2D) + (j + 1) * 0x9E3779B97F4A7C15 mod 2**64)`` is set.
  So the p-value is the same on every machine and does not depend on the
  order of the items.

Differences within a relative 1e-9 of the observed one count as reaching
it, so rounding never makes a tie look smaller.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from ek._stats._weights import id_keys, splitmix

__all__ = ["DRAWS", "EXACT_UP_TO", "sign_flip_p_value", "smallest_p_value"]

EXACT_UP_TO = 12
"""Items up to which all ``2**n`` swap patterns are enumerated (4,096 at 12)."""

DRAWS = 999
"""Swap patterns drawn beyond `EXACT_UP_TO` items: the p-value moves in steps of 1/1000."""

_SALT = 0x5851F42D4C957F2D  # keeps the swap bits apart from the bootstrap weights of the same ids
_GAMMA = 0x9E3779B97F4A7C15
_TIE = 1e-9
_BLOCK = 65536  # items whose swap bits are made at once (8 MB of hashes for 999 draws)


def sign_flip_p_value(
    ids: Sequence[Any], table_a: Any, table_b: Any, compute: Callable[[dict[Any, Any]], float], names: Sequence[str]
) -> float:
    """Two-sided p-value of "A and B score alike" from per-item statistics (rows aligned by item).

    ``table_a`` and ``table_b`` are ``(n, k)`` arrays of the statistics
    ``names`` of items ``ids``; ``compute`` turns their sums into the figure.
    NaN when the observed difference is NaN.
    """
    import numpy as np

    a, b = np.asarray(table_a), np.asarray(table_b)
    n = len(ids)
    exact = n <= EXACT_UP_TO
    sum_a, sum_b = a.sum(axis=0), b.sum(axis=0)
    figure_a, figure_b = _figure(compute, names, sum_a), _figure(compute, names, sum_b)
    observed = figure_b - figure_a
    if math.isnan(observed):
        return math.nan
    moved, count = _distinct_rows(_moved(ids, b - a, exact))
    # Differences within rounding of the figures tie with the observed one: two figures that are equal in
    # exact arithmetic (0.75 and 0.7500000000000001) differ by nothing, and every pattern is as extreme.
    bar = abs(observed) - _TIE * max(abs(figure_a), abs(figure_b), abs(observed))
    hits: int = sum(
        times
        for ra, rb, times in zip((sum_a + moved).tolist(), (sum_b - moved).tolist(), count.tolist())
        if abs(_figure(compute, names, rb) - _figure(compute, names, ra)) >= bar
    )
    return hits / int(count.sum()) if exact else (1 + hits) / (1 + DRAWS)


def smallest_p_value(n: int) -> float:
    """The smallest p-value `sign_flip_p_value` can give on ``n`` items: ``2 / 2**n``, or ``1 / (1 + DRAWS)``."""
    return 2.0 / 2**n if n <= EXACT_UP_TO else 1.0 / (1 + DRAWS)


# ---------------------------------------------------------------------------


def _moved(ids: Sequence[Any], diff: Any, exact: bool) -> Any:
    """``(patterns, k)``: the statistics each swap pattern moves from B's side to A's (B - A of the swapped items).

    Items whose statistics are the same in both runs move nothing and are
    left out. Drawn patterns are applied one bit position of the hashes at
    a time (64 products of a block of items), in float64 so that BLAS does
    the work; integer statistics are summed exactly that way while they
    stay below 2**53, and come back as integers.
    """
    import numpy as np

    if exact:
        return _all_patterns(len(ids)).astype(diff.dtype) @ diff
    differs = np.flatnonzero(diff.any(axis=1))
    values = diff[differs].astype(np.float64)
    kept = [ids[i] for i in differs.tolist()]
    lanes = -(-DRAWS // 64)
    moved = np.zeros((lanes, 64, diff.shape[1]), dtype=np.float64)
    for start in range(0, len(kept), _BLOCK):
        z = _lane_hashes(kept[start : start + _BLOCK], lanes)
        block = values[start : start + _BLOCK]
        for bit in range(64):
            moved[:, bit] += ((z >> np.uint64(bit)) & np.uint64(1)).astype(np.float64).T @ block
    moved = moved.reshape(lanes * 64, -1)[:DRAWS]
    return moved.round().astype(diff.dtype) if diff.dtype.kind in "iub" else moved


def _distinct_rows(rows: Any) -> tuple[Any, Any]:
    """The distinct rows of ``rows`` (equal bit for bit) and how many times each occurs.

    Patterns that move the same statistics give the same figures, so each
    distinct row is computed once: with integer statistics of runs over the
    same documents (a CER's reference lengths cancel) a few dozen rows stand
    for the 999 draws or 4,096 patterns, and ``compute`` is most of the cost.
    Rows are told apart by their bytes, so a float row is never merged with
    one that only compares equal (``-0.0`` and ``0.0``).
    """
    import numpy as np

    rows = np.ascontiguousarray(rows)
    if rows.shape[1] == 0:
        return rows[:1], np.array([len(rows)])
    as_bytes = rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()
    _, first, count = np.unique(as_bytes, return_index=True, return_counts=True)
    return rows[first], count


def _figure(compute: Callable[[dict[Any, Any]], float], names: Sequence[str], sums: Any) -> float:
    return float(compute(dict(zip(names, sums if isinstance(sums, list) else sums.tolist()))))


def _all_patterns(n: int) -> Any:
    """Every swap pattern of ``n`` items: ``(2**n, n)`` zeros and ones."""
    import numpy as np

    return ((np.arange(2**n, dtype=np.int64)[:, None] >> np.arange(n, dtype=np.int64)) & 1).astype(np.uint8)


def _lane_hashes(ids: Sequence[Any], lanes: int) -> Any:
    """``(len(ids), lanes)`` uint64: bit ``b`` of lane ``j`` says whether draw ``64 j + b`` swaps the item."""
    import numpy as np

    keys = id_keys(ids) ^ np.uint64(_SALT)
    z = keys[:, None] + np.arange(1, lanes + 1, dtype=np.uint64)[None, :] * np.uint64(_GAMMA)  # wraps mod 2**64
    splitmix(z, np.empty_like(z))
    return z
