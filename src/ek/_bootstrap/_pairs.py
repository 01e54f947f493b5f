"""``ek.compare`` on `Report` s: the paired difference B - A per group, its interval, p-value and verdict.

The replicate sums are `_reports`' (both runs weighed in one pass over the
same ids, so the replicate differences are a paired bootstrap); below
`MIN_ITEMS` items, and to check a bootstrap verdict, the p-value is the
sign-flip permutation test's (`ek._stats`). The interval's verdict
(`reliable`, `why`) is `_bounds`' over the paired items' weights: the two
runs' ``b_i`` summed, as the difference rests on the documents both read.
"""

from __future__ import annotations

import math
from typing import Any

from ek._bootstrap._bounds import judged
from ek._bootstrap._checks import check_comparable
from ek._bootstrap._reports import (
    _ids,
    _items,
    _metric,
    group_size,
    group_weights,
    item_weights,
    resampled_pair,
    weight_noun,
)
from ek._stats import MIN_ITEMS, check_level, id_text, interval_of, p_value_of, sign_flip_p_value, smallest_p_value

__all__ = ["compare", "small_verdict", "verdict"]

_UNREAD = object()


def compare(a: Any, b: Any, level: float = 0.95) -> dict[Any, Any]:
    """The fields of `ek.base.Comparison` for B against A (see `ek.compare`)."""
    level = check_level(level, "")  # a float from here on; the same bare message as an interval's
    check_comparable(a, b)
    labels = [label for label in a.per_slice if label in b.per_slice]
    sizes = {None: a.n, **{label: group_size(a, label) for label in labels}}
    pair = _Pair(a, b, _direction(a), level)
    rows = {g: pair.row(g, n) for g, n in sizes.items()}
    slice_n = a.detail.get("slice_n") or {}
    per_slice = {label: {**rows[label], "n": slice_n.get(label)} for label in labels}
    return {
        "metric": a.metric,
        **rows[None],
        "per_slice": per_slice,
        "level": level,
        "n": a.n,
        "higher_is_better": pair.up,
    }


def verdict(low: float, high: float, higher_is_better: bool | None) -> str:
    """``"better"`` / ``"worse"`` for B when the interval of B - A excludes 0, in the metric's direction."""
    if not (low > 0 or high < 0):
        return "no detectable difference"
    if higher_is_better is None:
        return "higher" if low > 0 else "lower"
    return "better" if (low > 0) == higher_is_better else "worse"


def small_verdict(n: int, p: float, delta: float | None, level: float, higher_is_better: bool | None) -> str:
    """The verdict of the permutation test on ``n`` items: `verdict`'s words, or that ``n`` is too few.

    ``"too few items (n=K) to tell"`` when no p-value of the test can be
    below ``1 - level`` at this ``n`` (5 items or fewer at 0.95), or when
    there was no test (reports without per-item statistics: NaN ``p``).
    """
    alpha = _alpha(level)
    if smallest_p_value(n) >= alpha or p != p:
        return f"too few items (n={n}) to tell"
    if p >= alpha or delta is None:
        return "no detectable difference"
    return verdict(delta, delta, higher_is_better)


def _direction(report: Any) -> bool | None:
    flag = report.detail.get("higher_is_better")
    return flag if isinstance(flag, bool) else _metric(report).higher_is_better


def _alpha(level: float) -> float:
    """``1 - level`` as written (0.05 for 0.95, not 0.050000000000000044), so p = 0.05 is not below it."""
    return round(1 - level, 12)


def _figure_of(report: Any, label: Any) -> Any:
    return report.aggregate if label is None else report.per_slice.get(label)


def _paired_items(a: Any, b: Any) -> tuple[Any, ...] | None:
    """A's `_Items` and B's statistics in A's item order; None when either report kept no scores."""
    import numpy as np

    if len(a.scores) != a.n or len(b.scores) != b.n:
        return None
    ia, ib = _items(a), _items(b)
    where = {text: k for k, text in enumerate(map(id_text, ib.ids))}
    order = np.fromiter((where[text] for text in map(id_text, ia.ids)), dtype=np.int64, count=len(ia.ids))
    return ia, ib.table[order]


class _Pair:
    """Reports A and B being compared: one row of `compare` per group (None: all items), sums made once."""

    def __init__(self, a: Any, b: Any, up: bool | None, level: float) -> None:
        self.a, self.b, self.up, self.level = a, b, up, level
        self._sums: tuple[Any, ...] | None = None
        self._items: Any = _UNREAD

    def row(self, label: Any, n: int) -> dict[Any, Any]:
        """B - A on the group: bootstrap interval and p-value from `MIN_ITEMS` items, else the permutation test's.

        From `MIN_ITEMS` on, a bootstrap p-value below ``1 - level`` is checked
        by the permutation test (when the items are at hand): if that test
        does not reach the level, its p-value replaces the bootstrap's, so a
        difference is called only when both find it.
        """
        value_a, value_b = _figure_of(self.a, label), _figure_of(self.b, label)
        delta = None if value_a is None or value_b is None else float(value_b) - float(value_a)
        out = {"a": value_a, "b": value_b, "delta": delta}
        if n < MIN_ITEMS:
            p = self._exact_p(label)
            return {
                **out,
                **self._judged(label, n),
                "interval": (math.nan, math.nan),
                "p_value": p,
                "verdict": small_verdict(n, p, delta, self.level, self.up),
            }
        import numpy as np

        sa, sb = self._resampled()
        va, vb = (sa.values(), sb.values()) if label is None else (sa.values(label), sb.values(label))
        d = np.asarray(vb, dtype=np.float64) - np.asarray(va, dtype=np.float64)
        low, high = interval_of(d, self.level)
        p = p_value_of(d)
        alpha = _alpha(self.level)
        if p < alpha:
            exact = self._exact_p(label)
            p = exact if exact >= alpha else p  # a NaN (no items at hand) keeps the bootstrap's
        return {
            **out,
            **self._judged(label, n),
            "interval": (low, high),
            "p_value": p,
            "verdict": verdict(low, high, self.up) if p < alpha else "no detectable difference",
        }

    def _resampled(self) -> tuple[Any, ...]:
        if self._sums is None:
            sa, sb = resampled_pair(self.a, self.b)
            if sa.statistics != sb.statistics or sa.replicates != sb.replicates:
                raise ValueError(
                    f"compare() got reports whose replicate sums differ in kind (statistics {sa.statistics} and "
                    f"{sb.statistics}, {sa.replicates} and {sb.replicates} replicates); score both with one ek "
                    "version."
                )
            self._sums = (sa, sb)
        return self._sums

    def _judged(self, label: Any, n: int) -> dict[str, Any]:
        """``reliable`` and ``why`` of the group's paired interval: Kish over both runs' item weights."""
        if n < MIN_ITEMS:
            return {"reliable": False, "why": f"{n} items: an interval needs {MIN_ITEMS}+"}
        wa, wb = item_weights(self.a), item_weights(self.b)
        if wa is None or wb is None:  # a summary keeps no items to weigh
            return {"reliable": True, "why": None}
        where = {text: k for k, text in enumerate(map(id_text, _ids(self.b)))}
        order = [where[text] for text in map(id_text, _ids(self.a))]
        weights = group_weights(self.a, (wa + wb[order]) / 2, label)
        noun, of = weight_noun(self.a)
        _, why = judged(weights, noun=noun, of=of)
        return {"reliable": why is None, "why": why}

    def _exact_p(self, label: Any) -> float:
        """The sign-flip permutation p-value over the group's items; NaN when the reports kept no scores."""
        if self._items is _UNREAD:
            self._items = _paired_items(self.a, self.b)
        if self._items is None:
            return math.nan
        ia, table_b = self._items
        rows: Any = slice(None) if label is None else ia.codes == ia.groups[label]
        ids = ia.ids if label is None else tuple(i for i, keep in zip(ia.ids, rows.tolist()) if keep)
        return sign_flip_p_value(ids, ia.table[rows], table_b[rows], ia.compute, ia.names)
