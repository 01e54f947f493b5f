"""What a partition makes of its rows, and how partitions combine.

Two steps run on the workers, per partition:

* `score_partition`: the rows become cases, `ek.evaluate` scores them
  (so a partition is scored exactly as a serial call scores it), and the
  metric's statistics are read off the scores as columns (a `Scored`, which
  stays on the worker);
* `summarize`: a `Summary` of those columns, the exact sum of each
  statistic overall and per slice (see `ek.dask._sums`). Its size does not
  grow with the number of items.

`merge` joins summaries of consecutive partitions, in order; it is
associative, so any tree of merges gives the summary of the whole, and it
is the only thing the client receives (with ``keep_items=True``, the
scores too).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Sequence

from ek._util import type_name
from ek.dask._rows import Fields, cases_of
from ek.dask._sums import Sum, add, exact_sum, total

__all__ = ["Scored", "Spec", "Summary", "check_mergeable", "merge", "metric_object", "score_partition", "summarize"]

_WHO = "ek.dask.evaluate()"


@dataclass(frozen=True)
class Spec:
    """Everything a worker needs to score a partition: the `ek.evaluate` options and where the fields are."""

    metric: Any = None
    grammar: Any = None
    normalize: Any = None
    weights: Any = None
    fields: Fields = Fields()
    keep_items: bool = False


@dataclass(frozen=True)
class Scored:
    """One scored partition: its statistics as columns, and its slices, ids and (kept) scores."""

    index: int
    n: int = 0
    metric: str = ""
    statistics: tuple = ()
    columns: tuple = ()
    slices: Optional[list] = None
    ids: Optional[list] = None
    sliced: bool = False
    detail: Mapping[str, Any] = field(default_factory=dict)
    scores: Optional[Sequence[Any]] = None


@dataclass(frozen=True)
class Summary:
    """Exact statistic sums over consecutive partitions, overall and per slice (in first-seen order)."""

    n: int = 0
    metric: str = ""
    first: int = -1  # the first partition with items (names it in a mismatch)
    statistics: tuple = ()
    totals: tuple = ()
    slice_n: Mapping[Any, int] = field(default_factory=dict)
    slice_totals: Mapping[Any, tuple] = field(default_factory=dict)
    sliced: bool = False
    detail: Mapping[str, Any] = field(default_factory=dict)

    def figures(self, m: Any) -> tuple[Any, dict, dict]:
        """``(aggregate, per_slice, summed statistics)`` by the metric's ``compute``."""
        sums = dict(zip(self.statistics, map(total, self.totals)))
        per_slice = {label: m.compute(dict(zip(self.statistics, map(total, t))))
                     for label, t in self.slice_totals.items()}
        return m.compute(sums), per_slice, sums


def metric_object(metric: Any, name: str) -> Any:
    """The metric whose ``statistics`` and ``compute`` a report named ``name`` was scored with."""
    if metric is None or isinstance(metric, str):
        from ek.registry import get

        return get("metrics", name)
    return metric


def check_mergeable(m: Any, name: str) -> None:
    """ValueError unless ``m`` declares summed ``statistics`` and a ``compute`` (the metric contract)."""
    why = None
    if not callable(m):
        raise TypeError(f"{_WHO} metric must be a registered name, a metric callable or None, got {type_name(m)}.")
    if getattr(m, "aggregate", None) is None:
        why = "it has no aggregate(), so a serial ek.evaluate would take the mean of its values"
    elif getattr(m, "aggregation", None) == "custom":
        why = "it aggregates with a custom function of all the scores"
    elif not getattr(m, "statistics", None) or not callable(getattr(m, "compute", None)):
        why = "it declares no statistics and compute() (see the metric contract in ek.metrics)"
    if why is not None:
        raise ValueError(
            f"{_WHO} cannot use metric {name!r}: {why}, while each partition sends only the sums of its "
            "statistics. Declare them: ek.metric(fn, aggregate='sum_ratio', statistics=(numerator, "
            "denominator)) for a ratio of sums, or ek.metric(fn, aggregate='mean') for a mean of the values."
        )


def score_partition(part: Any, spec: Spec, index: int) -> Scored:
    """Partition ``index`` scored by `ek.evaluate`, its statistics read off as columns."""
    from ek.facade import evaluate

    cases, ids, sliced = cases_of(part, spec.fields, index)
    if not cases:
        return Scored(index, sliced=sliced)
    try:
        report = evaluate(cases, metric=spec.metric, grammar=spec.grammar, normalize=spec.normalize,
                          weights=spec.weights)
    except (TypeError, ValueError) as exc:
        if type(exc) not in (TypeError, ValueError):
            raise
        raise type(exc)(f"{_WHO} partition {index}: {exc}") from exc
    m = metric_object(spec.metric, report.metric)
    check_mergeable(m, report.metric)
    names = tuple(m.statistics)
    slices = list(report.detail["slices"]) if "slices" in report.detail else None
    detail = {k: report.detail[k] for k in ("higher_is_better", "aggregation")}
    return Scored(index, report.n, report.metric, names, _columns(report, names, index), slices, ids,
                  sliced or slices is not None, detail, report.scores if spec.keep_items else None)


def summarize(scored: Scored) -> Summary:
    """The exact sums of one scored partition, overall and per slice."""
    if not scored.n:
        return Summary(sliced=scored.sliced)
    totals = tuple(exact_sum(c) for c in scored.columns)
    slice_n: dict = {}
    slice_totals: dict = {}
    if scored.slices is not None:
        groups: dict = {}
        for i, label in enumerate(scored.slices):
            if label is not None:
                groups.setdefault(label, []).append(i)
        for label, rows in groups.items():
            slice_n[label] = len(rows)
            slice_totals[label] = tuple(exact_sum([c[i] for i in rows]) for c in scored.columns)
    return Summary(scored.n, scored.metric, scored.index, scored.statistics, totals, slice_n, slice_totals,
                   scored.sliced, scored.detail)


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
        slice_n, slice_totals = dict(out.slice_n), dict(out.slice_totals)
        for label, rows in p.slice_totals.items():
            had = slice_totals.get(label)
            slice_totals[label] = rows if had is None else tuple(map(add, had, rows))
            slice_n[label] = slice_n.get(label, 0) + p.slice_n[label]
        out = dataclasses.replace(out, n=out.n + p.n, totals=tuple(map(add, out.totals, p.totals)),
                                  slice_n=slice_n, slice_totals=slice_totals)
    return dataclasses.replace(out, sliced=sliced)


def items_of(scored: Scored) -> tuple:
    """``(scores, slices, ids)`` of one partition, for ``keep_items=True``."""
    return (tuple(scored.scores or ()), scored.slices, scored.ids)


def _columns(report: Any, names: tuple, index: int) -> tuple:
    """Each statistic of every score, as one list per statistic."""
    scores = report.scores
    column = getattr(scores, "column", None)
    if column is not None:
        try:
            return tuple(list(column(k)) for k in names)
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
