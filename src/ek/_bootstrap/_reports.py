"""Bootstrap intervals, paired comparisons and item-free summaries of `Report` s.

The numbers come from `ek._stats` (weights, replicate sums, quantiles); this
module reads them off a report: which statistics its metric sums, the
per-item table, the slices, the ids. A report's interval state has one
owner, the `Resampler` the report carries (its ``_resampler`` field): the
metric, and the report's replicate sums, which are either

* made from its scores on first use and kept by the resampler with the
  items they were made from (a copy of the report with other items makes
  its own), never pickled; or
* stored, for a report whose items were dropped (`summarize`, Dask):
  `Resampled` sums ``overall`` and ``per_slice`` with one row per
  replicate: the weighted sum of each statistic, then the total weight.
  Such a report also holds ``detail["ids"]``, ``detail["statistics"]``
  (the summed statistics) and ``detail["slice_statistics"]``, which is
  all `merge_summaries` needs to join it with others.

Nothing is written onto a report. Reports are read duck-typed (``metric``,
``n``, ``scores``, ``per_slice``, ``detail`` and the private
``_resampler``); of `ek.base` this module takes only the value `Bounds`,
and `Report.interval` and `Report.bounds` call it through the report's
`Resampler`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Any, TypeVar

from ek._bootstrap._bounds import (
    judged,
    linear_coefficients,
    measured,
    moment_table,
    ratio_forms,
    student_interval,
    too_few,
)
from ek._stats import (
    MIN_ITEMS,
    REPLICATES,
    SCHEME,
    as_table,
    check_level,
    id_text,
    replicate_sums,
)
from ek._util import as_columns
from ek.base import Bounds

__all__ = [
    "Resampled",
    "Resampler",
    "bounds",
    "group_size",
    "group_weights",
    "interval",
    "is_summary",
    "item_weights",
    "kept",
    "merge_summaries",
    "metric_of",
    "moment_sums",
    "resampled",
    "resampled_pair",
    "statistic_table",
    "stored_sums",
    "summarize",
    "weight_noun",
]

_WEIGHT_NAMES = {"ref_len": "reference length"}  # the denominators of ek's rates, as a reader says them
_NO_SLICE = object()  # the group of items without a slice label
_T = TypeVar("_T")


@dataclasses.dataclass(frozen=True)
class Resampled:
    """One report's replicate sums: ``overall`` and ``per_slice`` arrays ``(B, k + 1)``, and the summed statistics."""

    statistics: tuple[str, ...]
    compute: Callable[[dict[str, Any]], float] | None  # None in a pickled summary: the metric's, when read
    overall: Any
    per_slice: dict[Any, Any]
    totals: dict[str, Any]
    slice_totals: dict[Any, dict[str, Any]]
    replicates: int = REPLICATES
    scheme: str = SCHEME
    moments: Any = None  # (B + 1, m): replicate sums of the statistics' products, then their plain sums
    slice_moments: dict[Any, Any] = dataclasses.field(default_factory=dict)

    def values(self, label: Any = _NO_SLICE) -> list[float]:
        """The metric's value in every replicate, NaN where the replicate drew no item."""
        sums = self.overall if label is _NO_SLICE else self.per_slice[label]
        k = len(self.statistics)
        names, compute = self.statistics, self.compute
        assert compute is not None, "read through resampled(), which gives the metric's compute"
        return [math.nan if row[k] == 0 else float(compute(dict(zip(names, row)))) for row in sums.tolist()]


class Resampler:
    """The interval state of one `Report`, its only home: the metric, and the report's replicate sums.

    Not a value: a report's resampler makes the sums on first use and keeps
    them with the items they were made from (scores, ids and slices, by
    identity), so a copy of the report with other items never reads sums
    that are not its own. ``stored`` sums are the record of a report whose
    items were dropped. ``refuse`` is the message of a report that has no
    interval by design (``ek.dask.evaluate(..., level=None)``). Pickled, it
    keeps its stored sums, and its metric when that pickles (without stored
    sums, an unpicklable metric makes it unpicklable, and the report travels
    without it); what it made is made again.
    """

    __slots__ = ("_made", "metric", "refuse", "stored")

    def __init__(self, metric: Any, *, stored: Resampled | None = None, refuse: str | None = None) -> None:
        self.metric = metric
        self.stored = stored
        self.refuse = refuse
        self._made: dict[str, tuple[tuple[Any, ...], Any]] = {}

    def interval(self, report: Any, level: float, slice: Any) -> tuple[float, float]:
        """``report.interval(level, slice=slice)``."""
        return self.bounds(report, level, slice, who="Report.interval()").pair()

    def bounds(self, report: Any, level: float, slice: Any, *, who: str = "Report.bounds()") -> Bounds:
        """``report.bounds(level, slice=slice)``."""
        if self.refuse is not None:
            raise ValueError(self.refuse)
        return bounds(report, level, slice, who=who)

    def kept(self, report: Any, key: str, make: Callable[[], _T]) -> _T:
        """What ``make()`` gives for ``report``'s items, made once: the replicate sums (key ``"sums"``), or
        what another reader derives from the items (`ek._corpus_estimates`'s columns)."""
        if self.has(report, key):
            held: _T = self._made[key][1]
            return held
        value = make()
        self._made[key] = (_identity(report), value)
        return value

    def has(self, report: Any, key: str) -> bool:
        """Whether ``kept(report, key, ...)`` would not make anything."""
        held = self._made.get(key)
        return held is not None and all(a is b for a, b in zip(held[0], _identity(report)))

    def __getstate__(self) -> dict[str, Any]:
        import pickle

        metric = self.metric
        try:
            pickle.dumps(metric)
        except Exception:  # a metric made from a lambda: the report says how to give it back
            if self.stored is None:
                raise  # nothing to keep: the report travels without a resampler (`FieldsOnlyState`)
            metric = None
        stored = None if self.stored is None else dataclasses.replace(self.stored, compute=None)
        return {"metric": metric, "stored": stored, "refuse": self.refuse}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.metric, self.stored, self.refuse = state["metric"], state["stored"], state["refuse"]
        self._made = {}


def resampled(report: Any, *, progress: Any = None) -> Resampled:
    """The replicate sums of ``report``: stored ones, or made now (once) from its items."""
    names, compute = _statistics(report)
    carrier: Resampler = report._resampler
    if carrier.refuse is not None:
        raise ValueError(carrier.refuse)
    if carrier.stored is not None:
        return _checked_stored(carrier.stored, names, compute)
    return carrier.kept(report, "sums", lambda: _from_scores(report, progress))


def kept(report: Any, key: str, make: Callable[[], _T]) -> _T:
    """What ``make()`` derives from ``report``'s items, made once and kept by its `Resampler`.

    A report without a resampler (built by hand) makes it on every call.
    """
    carrier = report._resampler
    return make() if carrier is None else carrier.kept(report, key, make)


def is_summary(report: Any) -> bool:
    """Whether ``report`` holds replicate sums in place of its items (`summarize`, Dask)."""
    carrier = report._resampler
    return carrier is not None and carrier.stored is not None


def stored_sums(
    statistics: tuple[str, ...],
    overall: Any,
    per_slice: dict[Any, Any],
    totals: dict[str, Any],
    slice_totals: dict[Any, dict[str, Any]],
    moments: Any = None,
    slice_moments: dict[Any, Any] | None = None,
) -> Resampled:
    """Replicate sums made elsewhere (the Dask path adds them up over partitions), to store on a `Resampler`.

    ``moments`` and ``slice_moments`` are `moment_sums`' (the bootstrap-t's); without them the interval is the
    percentile one.
    """
    return Resampled(
        tuple(statistics),
        None,
        overall,
        dict(per_slice),
        dict(totals),
        dict(slice_totals),
        int(overall.shape[0]),
        moments=moments,
        slice_moments=dict(slice_moments or {}),
    )


def moment_sums(report: Any) -> tuple[Any, dict[Any, Any]] | None:
    """The `_bounds.moment_table` sums of ``report``: ``(B + 1, m)`` overall and per slice (replicates, then plain).

    Stored ones for a summary (None when it has none), else made once from
    the items. They add up over disjoint parts, like the replicate sums.
    """
    carrier = report._resampler
    if carrier is not None and carrier.stored is not None:
        stored = resampled(report)
        return None if stored.moments is None else (stored.moments, stored.slice_moments)
    return kept(report, "moments", lambda: _made_moments(report))


def resampled_pair(a: Any, b: Any, *, progress: Any = None) -> tuple[Resampled, Resampled]:
    """Both reports' replicate sums; when both come from scores over one slicing, in one pass of weights."""
    import numpy as np

    fresh = all(not is_summary(r) and not _carrier(r).has(r, "sums") for r in (a, b))
    if not fresh:
        return resampled(a), resampled(b)
    ia, ib = _items(a), _items(b)
    order = _alignment(ia, ib)
    if order is None:
        return resampled(a), resampled(b)
    k = ia.table.shape[1]
    table = np.concatenate([ia.table, ib.table[order]], axis=1)
    sums = replicate_sums(ia.ids, table, ia.codes, max(len(ia.groups), 1), progress=progress)
    weight = sums[:, :, -1:]
    ra = _finish(ia, np.concatenate([sums[:, :, :k], weight], axis=2))
    rb = _finish(
        dataclasses.replace(ib, ids=ia.ids, table=ib.table[order], codes=ia.codes, groups=ia.groups), sums[:, :, k:]
    )
    return _carrier(a).kept(a, "sums", lambda: ra), _carrier(b).kept(b, "sums", lambda: rb)


def interval(report: Any, level: float = 0.95, slice: Any = None) -> tuple[float, float]:
    """The ``(low, high)`` of `bounds`."""
    return bounds(report, level, slice, who="Report.interval()").pair()


def bounds(report: Any, level: float = 0.95, slice: Any = None, *, method: str = "student", who: str = "") -> Bounds:
    """The interval of ``report``'s aggregate (or slice ``slice``'s figure) with its verdict (see `_bounds`).

    NaN and not reliable for fewer than `MIN_ITEMS` items (in the slice, for
    a slice). A summary (no items kept) cannot weigh its items: its
    verdict is reliable with an unknown (NaN) effective size.
    """
    who = who or "Report.bounds()"
    level = check_level(level, "")  # a float from here on; no caller in the message: tests and docs read it bare
    if not report.n:
        raise ValueError(f"{who} got an empty report; an empty corpus has no figure to bound.")
    _statistics(report)  # a figure that cannot be resampled is refused at any size
    if slice is not None and slice not in report.per_slice:
        known = ", ".join(map(repr, list(report.per_slice)[:10])) or "none"
        raise ValueError(f"{who} has no slice {slice!r}; the report's slices are: {known}.")
    n = group_size(report, slice)
    if n < MIN_ITEMS:  # no interval: its items are not weighed (their effective size is NaN)
        return too_few(n, level, math.nan)
    judgement = _judgement(report, slice)
    sums = resampled(report)
    values = sums.values() if slice is None else sums.values(slice)
    estimate = float(report.aggregate if slice is None else report.per_slice[slice])
    return measured(
        values,
        estimate,
        level,
        judgement,
        method=method,
        student=lambda: _student(report, sums, slice, estimate, level),
    )


def item_weights(report: Any) -> Any:
    """Every item's weight in the figure (its ``b_i`` of `_bounds`, scaled to sum to 1), made once.

    None for a report without its scores (a summary); one that keeps them beside stored sums (Dask's
    ``keep_items``) is weighed like the serial report.
    """
    if not report.n or len(report.scores) != report.n:
        return None
    return kept(report, "linear", lambda: _linear(report))[:, 1]


def weight_noun(report: Any) -> tuple[str, str]:
    """What the items are called and what their weight is (``"documents"``, ``"reference length"``)."""
    m = _metric(report)
    noun = "documents" if getattr(m, "reads_documents", False) else "items"
    of = "count" if m.aggregation == "mean" else _WEIGHT_NAMES.get(tuple(m.statistics)[-1], "weight")
    return noun, of


def group_weights(report: Any, weights: Any, label: Any) -> Any:
    """The entries of ``weights`` (one per item) of slice ``label``'s items; all of them for None."""
    if label is None:
        return weights
    items = kept(report, "items", lambda: _items(report))  # read once for the figure and every slice
    return weights[items.codes == items.groups[label]] if label in items.groups else weights[:0]


def group_size(report: Any, label: Any = None) -> int:
    """How many items the report (``label`` None) or its slice ``label`` holds."""
    if label is None:
        return int(report.n)
    counts = report.detail.get("slice_n")
    if counts and label in counts:
        return int(counts[label])
    return sum(1 for x in report.detail.get("slices") or () if x == label)


def statistic_table(report: Any) -> tuple[Any, ...]:
    """``(names, compute, table)``: the statistics ``report``'s metric sums, its ``compute``, the ``(n, k)`` array.

    The table is read as the bootstrap reads it (column-backed scores
    without building a `Score` each); its errors are the bootstrap's: a
    metric that aggregates without summed statistics, a report without its
    metric or without its scores, a score lacking a statistic.
    """
    names, compute = _statistics(report)
    return names, compute, as_table(_columns(report, names), report.n)


def metric_of(report: Any) -> Any:
    """The metric a report was made with, as `ek.base.MetricContract` (ValueError when it does not carry one)."""
    return _metric(report)


def summarize(report: Any) -> Any:
    """``report`` without its items: summed statistics and replicate sums, enough to merge and bound it."""
    if is_summary(report):
        return report
    sums = resampled(report)
    moments = moment_sums(report)
    if moments is not None:
        sums = dataclasses.replace(sums, moments=moments[0], slice_moments=dict(moments[1]))
    detail = {k: v for k, v in report.detail.items() if k != "slices"}
    detail.update(
        ids=_ids(report),
        statistics=dict(sums.totals),
        slice_statistics={label: dict(t) for label, t in sums.slice_totals.items()},
    )
    return dataclasses.replace(report, scores=(), detail=detail, _resampler=Resampler(_metric(report), stored=sums))


def merge_summaries(
    parts: list[Any], metric: Any, name: str, ids: tuple[Any, ...] | None, detail: dict[str, Any]
) -> Any:
    """The report of the whole from parts of which some carry replicate sums only (see `ek.merge_reports`)."""
    sums = [resampled(_with_metric(p, metric)) for p in parts]
    first = sums[0]
    for s in sums[1:]:
        if s.statistics != first.statistics or s.replicates != first.replicates:
            raise ValueError(
                f"merge_reports() got replicate sums of different kinds ({first.statistics} and {s.statistics}); "
                "merge reports made by one metric and one ek version."
            )
    overall = sum(s.overall for s in sums)
    totals = _add_totals(s.totals for s in sums)
    per_slice: dict[Any, Any] = {}
    slice_totals: dict[Any, dict[str, Any]] = {}
    slice_n: dict[Any, int] = {}
    for part, s in zip(parts, sums):
        for label, rows in s.per_slice.items():
            per_slice[label] = per_slice[label] + rows if label in per_slice else rows
            slice_totals[label] = _add_totals([slice_totals.get(label, {}), s.slice_totals[label]])
            slice_n[label] = slice_n.get(label, 0) + (part.detail.get("slice_n") or {}).get(label, 0)
    assert first.compute is not None  # resampled() gives the metric's
    moments = _added_moments([moment_sums(_with_metric(p, metric)) for p in parts])
    merged = Resampled(
        first.statistics,
        first.compute,
        overall,
        per_slice,
        totals,
        slice_totals,
        first.replicates,
        moments=None if moments is None else moments[0],
        slice_moments={} if moments is None else moments[1],
    )
    n = sum(p.n for p in parts)
    detail = {**detail, "ids": ids, "statistics": totals, "slice_statistics": slice_totals}
    if slice_n:
        detail["slice_n"] = slice_n
    return dataclasses.replace(
        parts[0],
        metric=name,
        aggregate=float(first.compute(totals)),
        n=n,
        scores=(),
        per_slice={label: float(first.compute(t)) for label, t in slice_totals.items()},
        detail=detail,
        _resampler=Resampler(metric, stored=merged),
    )


# ---------------------------------------------------------------------------


def _statistics(report: Any) -> tuple[tuple[Any, ...], Callable[[dict[Any, Any]], float]]:
    """The statistic names the report's metric sums, and its ``compute``."""
    m = _metric(report)
    if report.detail.get("aggregation") == "custom" or m.aggregation == "custom":
        raise ValueError(
            f"metric {report.metric!r} aggregates with a custom function rather than summed statistics, so its "
            "figure cannot be resampled; declare how it aggregates with ek.metric(fn, aggregate='mean' or "
            "'sum_ratio', ...)."
        )
    return tuple(m.statistics), m.compute


def _metric(report: Any) -> Any:  # an ek.base.MetricContract (ek.base is on this row of the layer map)
    carrier = report._resampler
    if carrier is None or carrier.metric is None:
        raise ValueError(
            f"this {report.metric!r} report does not carry its metric (it was built by hand, or unpickled from a "
            "metric that cannot be pickled), so its figure cannot be recomputed on resampled sums; rebuild it "
            "with ek.merge_reports(report, metric=...)."
        )
    return carrier.metric


def _ids(report: Any) -> tuple[Any, ...]:
    ids = report.detail.get("ids")
    return tuple(range(report.n)) if ids is None else tuple(ids)


@dataclasses.dataclass(frozen=True)
class _Items:
    """A report's items as arrays: ids, the ``(n, k)`` statistics, the slice group of each item."""

    ids: tuple[Any, ...]
    table: Any
    codes: Any
    groups: dict[Any, Any]  # slice label (or _NO_SLICE) -> group number
    names: tuple[Any, ...]
    compute: Callable[..., Any]


def _items(report: Any) -> _Items:
    import numpy as np

    names, compute = _statistics(report)
    labels = report.detail.get("slices")
    groups: dict[Any, Any] = {}
    codes = np.zeros(report.n, dtype=np.int64)
    if labels is not None:
        codes = np.fromiter(
            (groups.setdefault(_NO_SLICE if x is None else x, len(groups)) for x in labels),
            dtype=np.int64,
            count=report.n,
        )
    return _Items(_ids(report), as_table(_columns(report, names), report.n), codes, groups, names, compute)


def _from_scores(report: Any, progress: Any) -> Resampled:
    """The replicate sums of the report's items, and (kept for `moment_sums`) their products', in one pass of weights.

    One pass: the weights cost more than the columns (100k items: 2 columns 1.0 s, 5 columns 1.5 s).
    """
    import numpy as np

    items = kept(report, "items", lambda: _items(report))
    products = moment_table(items.table)
    groups = max(len(items.groups), 1)
    if products.dtype != items.table.dtype:  # float products of integer statistics: the sums stay integers
        return _finish(items, replicate_sums(items.ids, items.table, items.codes, groups, progress=progress))
    k = items.table.shape[1]
    both = replicate_sums(
        items.ids, np.concatenate([items.table, products], axis=1), items.codes, groups, progress=progress
    )
    kept(report, "moments", lambda: _moments_of(items, products, both[:, :, k:-1]))
    return _finish(items, np.concatenate([both[:, :, :k], both[:, :, -1:]], axis=2))


def _finish(items: _Items, sums: Any) -> Resampled:
    """The `Resampled` of ``items`` from their replicate sums per group."""
    import numpy as np

    table, names = items.table, items.names
    by_group = np.zeros((sums.shape[0], table.shape[1]), dtype=table.dtype)
    np.add.at(by_group, items.codes, table)
    group_totals = by_group.tolist()
    labelled = [(label, g) for label, g in items.groups.items() if label is not _NO_SLICE]
    return Resampled(
        names,
        items.compute,
        sums.sum(axis=0),
        {label: sums[g] for label, g in labelled},
        dict(zip(names, table.sum(axis=0).tolist())),
        {label: dict(zip(names, group_totals[g])) for label, g in labelled},
    )


def _alignment(ia: _Items, ib: _Items) -> Any:
    """Rows of B in A's item order, or None when the two slice the items differently."""
    import numpy as np

    if ia.ids == ib.ids:
        order = np.arange(len(ia.ids))
    else:
        where = {text: k for k, text in enumerate(map(id_text, ib.ids))}
        texts = list(map(id_text, ia.ids))
        if len(where) != len(texts) or not all(t in where for t in texts):
            return None
        order = np.fromiter((where[t] for t in texts), dtype=np.int64, count=len(texts))
    if set(ia.groups) != set(ib.groups):
        return None
    to_a = np.array([ia.groups[label] for label in ib.groups], dtype=np.int64)  # B's group numbers are in order
    same = np.array_equal(to_a[ib.codes[order]], ia.codes) if len(to_a) else True
    return order if same else None


def _columns(report: Any, names: tuple[Any, ...]) -> list[Any]:
    scores = report.scores
    if len(scores) != report.n:
        raise ValueError(
            f"this {report.metric!r} report holds {len(scores)} scores for n={report.n} items and no replicate "
            "sums, so it cannot be resampled; keep its scores, or build it with ek.merge_reports of full reports."
        )
    if not _metric(report).declared:  # the mean fallback of a plain function: its values, each counted once
        return [[float(s.value) for s in scores], [1] * len(scores)]
    columns = as_columns(scores)
    if columns is not None:
        try:
            return [columns.column(name) for name in names]
        except KeyError:
            pass
    out = []
    for name in names:
        try:
            out.append([s.detail[name] for s in scores])
        except (KeyError, TypeError):
            i = next(i for i, s in enumerate(scores) if name not in (s.detail or {}))
            raise ValueError(
                f"score {i} of this {report.metric!r} report has no {name!r} in its detail, so it cannot be "
                "resampled; every score must carry the statistics its metric sums."
            ) from None
    return out


def _checked_stored(stored: Resampled, names: tuple[str, ...], compute: Callable[[dict[str, Any]], float]) -> Resampled:
    """Stored sums with the metric's ``compute``, after checking they were made by this scheme over its statistics."""
    if stored.scheme != SCHEME or tuple(stored.statistics) != names:
        raise ValueError(
            f"this report's replicate sums were made by scheme {stored.scheme!r} over statistics "
            f"{stored.statistics!r}, not {SCHEME!r} over {names}; rebuild it with this ek version."
        )
    return stored if stored.compute == compute else dataclasses.replace(stored, compute=compute)


def _carrier(report: Any) -> Resampler:
    carrier: Resampler = report._resampler
    return carrier


def _with_metric(report: Any, metric: Any) -> Any:
    """``report`` with a resampler that knows ``metric`` (its own stored sums kept), when it has none."""
    carrier = report._resampler
    if carrier is not None and carrier.metric is not None:
        return report
    stored = None if carrier is None else carrier.stored
    return dataclasses.replace(report, _resampler=Resampler(metric, stored=stored))


def _identity(report: Any) -> tuple[Any, ...]:
    """The objects a report's items are read from; sums made from them are the report's while they are its."""
    detail = report.detail
    return (report.scores, detail.get("ids"), detail.get("slices"))


def _add_totals(parts: Any) -> dict[Any, Any]:
    out: dict[Any, Any] = {}
    for totals in parts:
        for k, v in totals.items():
            out[k] = out.get(k, 0) + v
    return out


def _judgement(report: Any, label: Any) -> tuple[float, str | None]:
    weights = item_weights(report)
    if weights is None:
        return (math.nan, None)
    noun, of = weight_noun(report)
    return judged(group_weights(report, weights, label), noun=noun, of=of)


def _linear(report: Any) -> Any:
    items = kept(report, "items", lambda: _items(report))
    return linear_coefficients(items.table, items.names, items.compute, _metric(report).aggregation)


def _student(report: Any, sums: Resampled, label: Any, estimate: float, level: float) -> tuple[float, float] | None:
    """The bootstrap-t interval of `_bounds` for the group ``label`` (None: all items); None when there is none."""
    names, compute = _statistics(report)
    forms = ratio_forms(compute, names, [sums.totals[k] for k in names], _metric(report).aggregation)
    moments = moment_sums(report) if forms is not None else None
    if moments is None:
        return None
    if label is None:
        return student_interval(sums.overall, moments[0], [sums.totals[k] for k in names], forms, estimate, level)
    return student_interval(
        sums.per_slice[label], moments[1][label], [sums.slice_totals[label][k] for k in names], forms, estimate, level
    )


def _made_moments(report: Any) -> tuple[Any, dict[Any, Any]]:
    """`moment_sums` from the report's items (when `_from_scores` did not make them with the replicate sums)."""
    items = kept(report, "items", lambda: _items(report))
    products = moment_table(items.table)
    groups = max(len(items.groups), 1)
    return _moments_of(items, products, replicate_sums(items.ids, products, items.codes, groups)[:, :, :-1])


def _moments_of(items: _Items, products: Any, rows: Any) -> tuple[Any, dict[Any, Any]]:
    """The products' replicate sums per group ``rows`` ``(G, B, m)`` with their plain sums under them."""
    import numpy as np

    groups, m = rows.shape[0], products.shape[1]
    plain = np.zeros((groups, m), dtype=rows.dtype)
    np.add.at(plain, items.codes, products)
    arrays = np.concatenate([rows, plain[:, None, :]], axis=1)
    labelled = {label: arrays[g] for label, g in items.groups.items() if label is not _NO_SLICE}
    return arrays.sum(axis=0), labelled


def _added_moments(parts: list[tuple[Any, dict[Any, Any]] | None]) -> tuple[Any, dict[Any, Any]] | None:
    """The `moment_sums` of the whole from its parts'; None when a part has none."""
    if any(p is None for p in parts):
        return None
    overall = sum(p[0] for p in parts if p is not None)
    per_slice: dict[Any, Any] = {}
    for p in parts:
        assert p is not None
        for label, rows in p[1].items():
            per_slice[label] = per_slice[label] + rows if label in per_slice else rows
    return overall, per_slice
