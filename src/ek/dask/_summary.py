"""What a partition makes of its rows, and how partitions combine.

Two steps run on the workers, per partition:

* `score_partition`: the rows become cases and `ek.evaluate` scores them,
  so a partition is scored exactly as a serial call scores it. The
  partition's report (a `Scored`) stays on its worker.
* `summarize`: a `Summary` of that report whose size does not grow with the
  number of items: the exact sum of each statistic, overall and per slice
  (see `ek.dask._sums`), and, for intervals, the partition's replicate sums
  of the bootstrap behind `ek.Report.interval` (``ek._bootstrap``). The
  weights of an item come from its id, so they need each item's global
  position when the ids are positions: `offsets` turns the partition
  lengths into the first position of each partition, on a worker.

`merge` joins summaries of consecutive partitions, in order; it is
associative, so any tree of merges gives the summary of the whole, and that
summary is all the client receives (with ``keep_items=True``, the scores too).
Integer replicate sums add exactly, so the interval of the whole is the
serial one's.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ek._util import as_columns, pinned_threads, type_name
from ek.base import MetricContract, Score
from ek.dask._rows import Fields, cases_of
from ek.dask._sums import Sum, add, exact_sum, total
from ek.metrics import as_metric

__all__ = [
    "Scored",
    "Spec",
    "Summary",
    "check_mergeable",
    "items_of",
    "length",
    "merge",
    "metric_object",
    "offsets",
    "score_partition",
    "summarize",
]

_WHO = "ek.dask.evaluate()"


@dataclass(frozen=True)
class Spec:
    """Everything a worker needs to score a partition: the `ek.evaluate` options and where the fields are."""

    metric: Any = None
    grammar: Any = None
    normalize: Any = None
    weights: Any = None
    fields: Fields = Fields()  # noqa: RUF009 - Fields is a frozen value: one default shared is safe
    replicates: bool = True  # also the bootstrap's replicate sums (an interval was asked for)


@dataclass(frozen=True)
class Scored:
    """One scored partition: its `ek.evaluate` report (None when empty) and its item ids, if a field holds them."""

    index: int
    report: Any = None
    ids: list[Any] | None = None
    sliced: bool = False

    @property
    def n(self) -> int:
        return self.report.n if self.report is not None else 0


@dataclass(frozen=True)
class Summary:
    """Exact statistic sums over consecutive partitions, overall and per slice (in first-seen order).

    ``replicates`` (and each of ``slice_replicates``) is the bootstrap's
    ``(B, k + 1)`` array of replicate sums, then the total weight; None
    when no interval was asked for.
    """

    n: int = 0
    metric: str = ""
    first: int = -1  # the first partition with items (named in a mismatch)
    statistics: tuple[str, ...] = ()
    totals: tuple[Sum, ...] = ()
    slice_n: Mapping[Any, int] = field(default_factory=dict)
    slice_totals: Mapping[Any, tuple[Sum, ...]] = field(default_factory=dict)
    sliced: bool = False
    detail: Mapping[str, Any] = field(default_factory=dict)
    replicates: Any = None
    slice_replicates: Mapping[Any, Any] = field(default_factory=dict)
    moments: Any = None  # the bootstrap-t's sums of the statistics' products (ek._bootstrap.moment_sums)
    slice_moments: Mapping[Any, Any] = field(default_factory=dict)

    def sums(self, label: Any = None) -> dict[str, float]:
        """The summed statistics, of the whole or of slice ``label``: ints, or floats rounded once."""
        totals = self.totals if label is None else self.slice_totals[label]
        return dict(zip(self.statistics, map(total, totals)))


def metric_object(metric: Any, name: str) -> MetricContract:
    """The metric (as the contract) whose ``statistics`` and ``compute`` a report named ``name`` was scored with."""
    if metric is None or isinstance(metric, str):
        from ek.registry import get

        return as_metric(get("metrics", name))
    return as_metric(metric)


def check_mergeable(m: Any, name: str) -> None:
    """ValueError unless ``m`` declares summed ``statistics`` and a ``compute`` (the metric contract)."""
    why = None
    if not callable(m):
        raise TypeError(f"{_WHO} metric must be a registered name, a metric callable or None, got {type_name(m)}.")
    m = as_metric(m)
    if not m.declared:
        why = "it has no aggregate(), so a serial ek.evaluate would take the mean of its values"
    elif m.aggregation == "custom":
        why = "it aggregates with a custom function of all the scores"
    elif not m.statistics:
        why = "it declares no statistics and compute() (see the metric contract in ek.metrics)"
    if why is not None:
        raise ValueError(
            f"{_WHO} cannot use metric {name!r}: {why}, while each partition sends only the sums of its "
            "statistics. Declare them: ek.metric(fn, aggregate='sum_ratio', statistics=(numerator, "
            "denominator)) for a ratio of sums, or ek.metric(fn, aggregate='mean') for a mean of the values."
        )


def score_partition(part: Any, spec: Spec, index: int) -> Scored:
    """Partition ``index`` scored by `ek.evaluate` (with the ids of the id field, if any)."""
    from ek.facade import evaluate

    cases, ids, sliced = cases_of(part, spec.fields, index)
    if not cases:
        return Scored(index, sliced=sliced)
    try:
        with pinned_threads(1):  # the cluster runs a task per core already
            report = evaluate(
                cases, metric=spec.metric, grammar=spec.grammar, normalize=spec.normalize, weights=spec.weights, ids=ids
            )
    except (TypeError, ValueError) as exc:
        if type(exc) not in (TypeError, ValueError):
            raise
        raise type(exc)(f"{_WHO} partition {index}: {exc}") from exc
    check_mergeable(metric_object(spec.metric, report.metric), report.metric)
    return Scored(index, report, ids, sliced or "slices" in report.detail)


def length(scored: Scored) -> int:
    """How many items partition ``scored`` holds."""
    return scored.n


def offsets(lengths: Sequence[int]) -> list[int]:
    """The global position of each partition's first item."""
    out, at = [], 0
    for n in lengths:
        out.append(at)
        at += n
    return out


def summarize(scored: Scored, spec: Spec, starts: Sequence[int] | None = None) -> Summary:
    """The exact sums of one scored partition, overall and per slice, and its replicate sums if asked for.

    ``starts`` (from `offsets`) numbers the items by global position when
    no id field does.
    """
    report = scored.report
    if report is None:
        return Summary(sliced=scored.sliced)
    names = metric_object(spec.metric, report.metric).statistics
    columns = _columns(report, names, scored.index)
    groups: dict[Any, list[int]] = {}
    for i, label in enumerate(report.detail.get("slices") or ()):
        if label is not None:
            groups.setdefault(label, []).append(i)
    slice_totals = {label: tuple(exact_sum([c[i] for i in rows]) for c in columns) for label, rows in groups.items()}
    out = Summary(
        report.n,
        report.metric,
        scored.index,
        names,
        tuple(map(exact_sum, columns)),
        {label: len(rows) for label, rows in groups.items()},
        slice_totals,
        scored.sliced,
        {k: report.detail[k] for k in ("higher_is_better", "aggregation")},
    )
    if not spec.replicates:
        return out
    if scored.ids is None:
        start = starts[scored.index] if starts is not None else 0
        report = dataclasses.replace(report, detail={**report.detail, "ids": range(start, start + report.n)})
    return _with_replicates(out, report)


def merge(*parts: Summary) -> Summary:
    """The summary of consecutive partitions ``parts`` (in order): sums added, slices in first-seen order."""
    full = [p for p in parts if p.n]
    sliced = any(p.sliced for p in parts)
    if not full:
        return Summary(sliced=sliced)
    out = full[0]
    for p in full[1:]:
        if p.metric != out.metric or p.statistics != out.statistics:
            raise ValueError(
                f"{_WHO} scored partition {out.first} with metric {out.metric!r} but partition {p.first} with "
                f"{p.metric!r}: without metric= each partition picks one by the type of its first case. "
                f"Pass metric={out.metric!r} (or the metric you mean) so every partition uses it."
            )
        out = dataclasses.replace(
            out,
            n=out.n + p.n,
            totals=tuple(map(add, out.totals, p.totals)),
            slice_n=_joined(out.slice_n, p.slice_n, lambda a, b: a + b),
            slice_totals=_joined(out.slice_totals, p.slice_totals, lambda a, b: tuple(map(add, a, b))),
            replicates=None if out.replicates is None else out.replicates + p.replicates,
            slice_replicates=_joined(out.slice_replicates, p.slice_replicates, lambda a, b: a + b),
            moments=None if out.moments is None or p.moments is None else out.moments + p.moments,
            slice_moments=_joined(out.slice_moments, p.slice_moments, lambda a, b: a + b),
        )
    return dataclasses.replace(out, sliced=sliced)


def items_of(scored: Scored) -> tuple[tuple[Score, ...], Sequence[Any] | None, list[Any] | None]:
    """``(scores, slices, ids)`` of one partition, for ``keep_items=True``."""
    report = scored.report
    if report is None:
        return (), None, scored.ids
    return tuple(report.scores), report.detail.get("slices"), scored.ids


def _joined(a: Mapping[Any, Any], b: Mapping[Any, Any], plus: Any) -> dict[Any, Any]:
    """``a`` and ``b`` with the values of shared keys combined by ``plus``; ``a``'s keys first."""
    out = dict(a)
    for key, value in b.items():
        out[key] = plus(out[key], value) if key in out else value
    return out


def _with_replicates(out: Summary, report: Any) -> Summary:
    """``out`` with the bootstrap's replicate sums of ``report`` (whose ``detail["ids"]`` name its items)."""
    from ek._bootstrap import moment_sums, resampled

    with pinned_threads(1):
        sums = resampled(report)
    moments = moment_sums(report)
    return dataclasses.replace(
        out,
        replicates=sums.overall,
        slice_replicates=dict(sums.per_slice),
        moments=None if moments is None else moments[0],
        slice_moments={} if moments is None else dict(moments[1]),
    )


def _columns(report: Any, names: tuple[str, ...], index: int) -> tuple[Sequence[Any], ...]:
    """Each statistic of every score, as one list per statistic."""
    scores = report.scores
    columns = as_columns(scores)
    if columns is not None:
        try:
            return tuple(columns.column(k) for k in names)
        except KeyError:
            pass
    out = []
    for k in names:
        values: list[Sum] = []
        for i, s in enumerate(scores):
            detail = getattr(s, "detail", None)
            if not isinstance(detail, Mapping) or k not in detail:
                raise ValueError(
                    f"{_WHO} partition {index} item {i}: metric {report.metric!r} returned a score without "
                    f"{k!r} in its detail, one of the statistics it declares; every score must carry them."
                )
            values.append(detail[k])
        out.append(values)
    return tuple(out)
