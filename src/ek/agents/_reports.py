"""Agent figures as `ek.Report` s, made by the engine of `ek.evaluate`: success rate, cost per success, metrics.

A suite's figures are corpus figures of summed statistics like any other
(successes over trials, dollars over successes, TP/FP/FN of tool calls), so
they are built as the facade builds every report: one `Score` per item with
the statistics its metric sums, re-aggregated by `ek.merge_reports`. The
reports then have `Report.interval`, pair in `ek.compare` and join in
`ek.merge_reports` as any report does.

The item is the **task**, the independent unit: its trials share the task's
difficulty, so they are resampled together. A task's `Score` carries the
statistics of its trials summed, and its value is the metric's figure on
them; the report's id of the task is its ``task_id``, so two suites over the
same tasks pair up. A metric without summed statistics is read as the mean
of its per-trial values (statistics ``value`` and ``n``, the rule
`ek.metric` names ``"mean"``); one with a custom aggregate has its trials as
items (ids ``(task_id, trial)``), and, as for any such metric, no interval.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ek._util import sum_detail
from ek.agents.cost import ModelPrice
from ek.agents.metrics import CostPerSuccessMetric, TaskSuccessMetric
from ek.base import Metric, Report, Score
from ek.facade import merge_reports
from ek.metrics import as_metric
from ek.metrics import metric as declared_metric

__all__ = ["TrialScore", "cost_report", "metric_report", "success_report"]

TrialScore = tuple[str, int, Score, Any | None]
"""``(task_id, trial, score, slice label)``: one graded trial's score of a suite metric."""

_SUCCESS = TaskSuccessMetric()


def success_report(counts: Mapping[str, tuple[int, int]], slices: Mapping[str, Any] | None) -> Report:
    """The success rate over tasks: ``counts`` maps each task to ``(trials, successes)``."""
    ids = [t for t, (n, _) in counts.items() if n]
    scores = [Score(c / n, metric=_SUCCESS.name, detail={"successes": c, "n": n}) for n, c in (counts[t] for t in ids)]
    return _engine(_SUCCESS, _SUCCESS.name, ids, scores, [(slices or {}).get(t) for t in ids])


def cost_report(
    ids: Sequence[str],
    dollars: Sequence[float],
    wins: Sequence[int],
    slices: Sequence[Any],
    *,
    price: ModelPrice | str | None,
    prices: Mapping[str, ModelPrice] | None,
) -> Report:
    """Cost per success over tasks: each task's dollars and successes summed over its trials."""
    m = CostPerSuccessMetric(price=price, prices=prices)
    scores = [
        Score(m.compute({"dollars": d, "successes": w}), metric=m.name, detail={"dollars": d, "successes": w})
        for d, w in zip(dollars, wins)
    ]
    return _engine(m, m.name, list(ids), scores, list(slices))


def metric_report(metric: Any, name: str, scored: Sequence[TrialScore]) -> Report:
    """The report of one suite metric over the trials it scored (tasks as items, see the module doc)."""
    if not scored:
        return Report(metric=name, aggregate=None, n=0)
    contract = as_metric(metric)
    if not contract.declared:  # a plain function: the mean of its trials' values, under the suite's name
        contract = as_metric(
            declared_metric(metric, aggregate="mean", name=name, higher_is_better=contract.higher_is_better)
        )
        scored = [
            (t, i, Score(float(s.value), metric=name, detail={"value": float(s.value), "n": 1}), label)
            for t, i, s, label in scored
        ]
    if contract.aggregation not in ("statistics", "mean"):  # it aggregates its own way: the facade's engine
        return _engine(
            contract,
            name,
            [(t, i) for t, i, _, _ in scored],
            [s for _, _, s, _ in scored],
            [label for _, _, _, label in scored],
        )
    by_task: dict[str, list[Score]] = {}
    labels: dict[str, Any] = {}
    for task_id, _, score, label in scored:
        by_task.setdefault(task_id, []).append(score)
        labels[task_id] = label
    scores = []
    for task_id, trials in by_task.items():
        totals = sum_detail(trials, contract.statistics, metric=name)
        scores.append(Score(contract.compute(totals), metric=name, detail=totals))
    return _engine(contract, name, list(by_task), scores, [labels[t] for t in by_task])


# --------------------------------------------------------------------------


def _engine(metric: Metric, name: str, ids: Sequence[Any], scores: Sequence[Score], slices: Sequence[Any]) -> Report:
    """The facade's report of ``scores`` (one per id), as `ek.merge_reports` builds the report of a whole."""
    if not scores:
        return Report(metric=name, aggregate=None, n=0)
    detail: dict[str, Any] = {"ids": tuple(ids)}
    if any(label is not None for label in slices):
        detail["slices"] = tuple(slices)
    return merge_reports(Report(metric=name, n=len(scores), scores=tuple(scores), detail=detail), metric=metric)
