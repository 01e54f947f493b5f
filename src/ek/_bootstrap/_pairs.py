"""``ek.compare`` on `Report` s: the paired difference B - A per group, its interval, p-value and verdict.

The replicate sums are `_reports`' (both runs weighed in one pass over the
same ids, so the replicate differences are a paired bootstrap). The
interval is the symmetric bootstrap-t of the difference (`METHODS`
``"student"``, `_bounds.difference_t`): every replicate's difference
studentised by the linearised standard error of ``r_B - r_A``, whose
covariance term needs the products of A's statistics with B's, item by
item (`paired_sums`, with both runs' own products, in one pass of weights).
On scripts/compare_grid.py (2,000 audits a cell, lognormal σ = 0.5, n =
50) it covers 89.4-91.1% at nominal 90% and 94.8-95.4% at 95% (the
percentile interval 87.9-90.1% and 92.8-94.5%), 1.03-1.06 times as wide;
equal engines are called different in 8.4-9.4% of audits at 90%.
A figure that is no ratio of sums, and reports without their items
(summaries, Dask: the cross products are gone), keep the percentile
interval of the replicate differences. The p-value is the interval's (under
``1 - level`` exactly when it excludes 0). Below `MIN_ITEMS` items, and to
check a bootstrap verdict, the p-value is the sign-flip permutation test's
(`ek._stats`). The interval's verdict (`reliable`, `why`) is `_bounds`'
over the paired items' weights: the two runs' ``b_i`` summed, as the
difference rests on the documents both read.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from ek._bootstrap._bounds import METHODS, Studentised, cross_table, difference_t, judged, moment_table, ratio_forms
from ek._bootstrap._checks import check_comparable
from ek._bootstrap._reports import (
    Resampled,
    _alignment,
    _carrier,
    _finish,
    _ids,
    _items,
    _metric,
    _moments_of,
    group_size,
    group_weights,
    is_summary,
    item_weights,
    kept,
    moment_sums,
    resampled,
    resampled_pair,
    weight_noun,
)
from ek._stats import (
    MIN_ITEMS,
    check_level,
    id_text,
    interval_of,
    p_value_of,
    replicate_sums,
    sign_flip_p_value,
    smallest_p_value,
)

__all__ = ["compare", "paired_sums", "small_verdict", "verdict"]

_UNREAD = object()


def compare(a: Any, b: Any, level: float = 0.95, *, method: str = "student") -> dict[Any, Any]:
    """The fields of `ek.base.Comparison` for B against A (see `ek.compare`); ``method`` one of `METHODS`."""
    level = check_level(level, "")  # a float from here on; the same bare message as an interval's
    if method not in METHODS:
        raise ValueError(f"compare() method must be one of {METHODS}, got {method!r}.")
    check_comparable(a, b)
    labels = [label for label in a.per_slice if label in b.per_slice]
    sizes = {None: a.n, **{label: group_size(a, label) for label in labels}}
    pair = _Pair(a, b, _direction(a), level, method)
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


def _forms(report: Any, sums: Any) -> Any:
    """The ratio forms of ``report``'s metric at its totals (`_bounds.ratio_forms`), as `Report.bounds` reads them."""
    m = _metric(report)
    return ratio_forms(m.compute, sums.statistics, [sums.totals[k] for k in sums.statistics], m.aggregation)


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

    def __init__(self, a: Any, b: Any, up: bool | None, level: float, method: str = "student") -> None:
        self.a, self.b, self.up, self.level, self.method = a, b, up, level, method
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
        low, high, p = self._bootstrap(label, delta)
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

    def _bootstrap(self, label: Any, delta: float | None) -> tuple[float, float, float]:
        """The group's interval and p-value: the bootstrap-t's (`_bounds.difference_t`) when there is one.

        Else (``method="percentile"``, a figure that is no ratio of sums, a
        summary, no spread) the percentile interval of the replicate
        differences and its p-value.
        """
        import numpy as np

        student = None if self.method != "student" or delta is None else self._studentised(label, delta)
        if student is not None:
            low, high = student.interval(self.level)
            return low, high, student.p_value()
        sa, sb, _ = self._resampled()
        va, vb = (sa.values(), sb.values()) if label is None else (sa.values(label), sb.values(label))
        d = np.asarray(vb, dtype=np.float64) - np.asarray(va, dtype=np.float64)
        low, high = interval_of(d, self.level)
        return low, high, p_value_of(d)

    def _studentised(self, label: Any, delta: float) -> Studentised | None:
        """`difference_t` of the group from both runs' sums, moments and cross sums; None without them."""
        sa, sb, cross = self._resampled()
        if cross is None:
            return None
        runs = []
        for r, s in ((self.a, sa), (self.b, sb)):
            f, m = _forms(r, s), moment_sums(r)
            if f is None or m is None:
                return None
            if label is None:
                runs.append((s.overall, m[0], [s.totals[k] for k in s.statistics], f))
            else:
                runs.append((s.per_slice[label], m[1][label], [s.slice_totals[label][k] for k in s.statistics], f))
        return difference_t((runs[0], runs[1]), cross[0] if label is None else cross[1][label], delta)

    def _resampled(self) -> tuple[Any, ...]:
        if self._sums is None:
            # The cross sums only for the bootstrap-t: the percentile interval needs the replicate sums alone.
            sa, sb, cross = (
                paired_sums(self.a, self.b) if self.method == "student" else (*resampled_pair(self.a, self.b), None)
            )
            if sa.statistics != sb.statistics or sa.replicates != sb.replicates:
                raise ValueError(
                    f"compare() got reports whose replicate sums differ in kind (statistics {sa.statistics} and "
                    f"{sb.statistics}, {sa.replicates} and {sb.replicates} replicates); score both with one ek "
                    "version."
                )
            self._sums = (sa, sb, cross)
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


def paired_sums(
    a: Any, b: Any, *, progress: Any = None
) -> tuple[Resampled, Resampled, tuple[Any, dict[Any, Any]] | None]:
    """Both reports' replicate sums (`resampled_pair`'s) and the sums of their `_bounds.cross_table` per group.

    The cross sums are ``(B + 1, k²)`` overall and per slice (replicates,
    then plain), over B in A's item order; None when either report keeps no
    items (a summary: its items' products with the other run's are gone) or
    the two slice their items differently. Each report's own `moment_sums`
    are made in the same pass as the cross sums when not made yet, and
    fresh reports' replicate sums too: one pass of weights per dtype.
    """
    if not all(not is_summary(r) and r.n and len(r.scores) == r.n for r in (a, b)):
        return (*resampled_pair(a, b, progress=progress), None)
    ia, ib = kept(a, "items", lambda: _items(a)), kept(b, "items", lambda: _items(b))
    order = _alignment(ia, ib)
    if order is None:
        return (*resampled_pair(a, b, progress=progress), None)
    ib = dataclasses.replace(ib, ids=ia.ids, table=ib.table[order], codes=ia.codes, groups=ia.groups)
    blocks: dict[str, Any] = {}
    fresh = not any(_carrier(r).has(r, "sums") for r in (a, b))
    if fresh:
        blocks.update(a=ia.table, b=ib.table)
    for name, r, items in (("moments a", a, ia), ("moments b", b, ib)):
        if not _carrier(r).has(r, "moments"):
            blocks[name] = moment_table(items.table)
    blocks["cross"] = cross_table(ia.table, ib.table)
    sums = _summed(ia, blocks, progress)
    if fresh:
        made = {name: _finish(items, sums[name]) for name, items in (("a", ia), ("b", ib))}
        kept(a, "sums", lambda: made["a"])
        kept(b, "sums", lambda: made["b"])
    own = {
        name: _moments_of(items, blocks[name], sums[name][:, :, :-1])
        for name, items in (("moments a", ia), ("moments b", ib))
        if name in sums
    }
    if "moments a" in own:
        kept(a, "moments", lambda: own["moments a"])
    if "moments b" in own:
        kept(b, "moments", lambda: own["moments b"])
    return resampled(a), resampled(b), _moments_of(ia, blocks["cross"], sums["cross"][:, :, :-1])


def _summed(items: Any, blocks: dict[str, Any], progress: Any) -> dict[str, Any]:
    """The replicate sums ``(G, B, columns + 1)`` of every block of columns of ``items``, one pass per dtype.

    Integer blocks are summed together and stay exact; each block's sums end
    with its pass's total weight, as `replicate_sums` gives it. A column
    equal to one before it is weighed once: two CER runs share the lengths,
    so 9 of their 14 columns are distinct (each column's sums are its own,
    bit for bit).
    """
    import numpy as np

    by_dtype: dict[Any, list[str]] = {}
    for name, table in blocks.items():
        by_dtype.setdefault(table.dtype, []).append(name)
    out: dict[str, Any] = {}
    groups = max(len(items.groups), 1)
    for k, names in enumerate(by_dtype.values()):
        table = np.concatenate([blocks[name] for name in names], axis=1)
        first: dict[bytes, int] = {}
        where = [first.setdefault(np.ascontiguousarray(table[:, c]).tobytes(), c) for c in range(table.shape[1])]
        distinct = sorted(set(where))
        weighed = replicate_sums(
            items.ids, table[:, distinct], items.codes, groups, progress=progress if k == 0 else None
        )
        position = {c: j for j, c in enumerate(distinct)}
        sums = weighed[:, :, [position[c] for c in where] + [-1]]
        edges = np.cumsum([0] + [blocks[name].shape[1] for name in names])
        for name, start, stop in zip(names, edges[:-1], edges[1:]):
            out[name] = np.concatenate([sums[:, :, start:stop], sums[:, :, -1:]], axis=2)
    return out
