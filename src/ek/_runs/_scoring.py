"""Scoring a chunk of ``(prediction, reference)`` items, shared by the documents and OCR runs."""

from __future__ import annotations

from typing import Any, Optional

from ek._util import type_name
from ek.base import Report

__all__ = ["assemble", "item_view", "score_cases"]


def score_cases(cases: list, keys: list, *, metric: Any, options: dict, who: str) -> tuple:
    """``(scores, metric name, error or None)`` for ``cases`` scored with one `ek.evaluate` call.

    When the batch cannot be scored, items are scored one by one to name the
    first that cannot; ``scores`` then holds the items before it. A metric
    returning NaN for an item is an error naming it too.
    """
    from ek.facade import evaluate  # noqa: PLC0415 - the metrics load with the first scored chunk

    try:
        report = evaluate(cases, metric=metric, **options)
        scores, name, error = list(report.scores), report.metric, None
    except (TypeError, ValueError):
        scores, name, error = _one_by_one(cases, keys, metric, options, who)
    for i, s in enumerate(scores):
        value = s.value
        if value != value:
            return scores[:i], name, ValueError(
                f"{who}: metric {name!r} returned NaN for gold item {keys[i]!r} (prediction "
                f"{cases[i][0]!r:.60}), which no aggregate can use; fix the metric so it returns a "
                "number for every item, or leave the item out of the gold set.")
    return scores, name, error


def _one_by_one(cases: list, keys: list, metric: Any, options: dict, who: str) -> tuple:
    from ek.facade import evaluate  # noqa: PLC0415

    scores, name = [], None
    for key, (prediction, reference) in zip(keys, cases):
        try:
            report = evaluate([(prediction, reference)], metric=metric, **options)
        except (TypeError, ValueError) as exc:
            hint = ""
            if type(prediction) is not type(reference):
                got = "None" if prediction is None else f"a {type_name(prediction)}"
                hint = (f" predict returned {got} but the reference is a {type_name(reference)}; make "
                        "predict return the same kind of value as the references.")
            error = type(exc)(f"{who} could not score gold item {key!r} (prediction {prediction!r:.60}):"
                              f"{hint} The metric said: {exc}")
            error.__cause__ = exc
            return scores, name, error
        scores.append(report.scores[0])
        name = report.metric
        metric = name if metric is None else metric  # the first item fixes a type-chosen metric
    return scores, name, None


def assemble(scored: list, label: Optional[str], metric: Any) -> Report:
    """The report over ``(score, slice)`` pairs, aggregated by the metric, per slice when labelled."""
    from ek.facade import merge_reports  # noqa: PLC0415

    if not scored:
        return Report(metric=label or "", aggregate=None, n=0)
    scores = tuple(s for s, _ in scored)
    slices = tuple(label_ for _, label_ in scored)
    flat = Report(metric=label or "", n=len(scores), scores=scores,
                  detail={"slices": slices} if any(x is not None for x in slices) else {})
    return merge_reports(flat, metric=metric)


def item_view(entry: dict) -> dict:
    """An entry as a report's ``per_item`` shows it: the score as a number, its statistics as ``detail``."""
    score = entry["score"]
    view = dict(entry)
    view["score"] = None if score is None else score.value
    view["detail"] = None if score is None else {k: v for k, v in score.detail.items() if k != "higher_is_better"}
    return view
