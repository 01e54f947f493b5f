"""Runs that predict then score against a reference: the documents and OCR kinds.

Both read a gold mapping of records (`gold_items`), run the system on each
record's input and score chunks of ``(prediction, reference)`` with the
`Scorer` their runner gives (`ek.facade`'s ``evaluate`` and
``merge_reports``: the engine never imports the layer above it), then build
one `Report` (`scored_report`); `run_scored` does the whole run of one
`ScoringTask`. An OCR run only changes how a reading becomes the
prediction (`ScoringTask.reading`) and what the report adds.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any, TypedDict

from ek._runs._execute import Done, Finished, Item, describe, execute, start_run
from ek._runs._options import Plan, RunOptions
from ek._runs._settings import callable_id, fingerprint, setting_id, str_keys
from ek._util import type_name
from ek.base import Report, Score
from ek.registry import names

__all__ = [
    "DocumentEntry",
    "Scorer",
    "ScoringTask",
    "document_entry",
    "gold_items",
    "run_scored",
    "score_cases",
    "scored_report",
]


@dataclasses.dataclass(frozen=True)
class Scorer:
    """How a run scores, given by its runner: ``evaluate(cases, metric=, ids=, **options)`` and ``merge(report, metric=)``.

    The runners pass `ek.facade`'s ``evaluate`` and ``merge_reports``; the
    run engine sits below the facade, so it takes them rather than importing them.
    """

    evaluate: Callable[..., Report]
    merge: Callable[..., Report]


class DocumentEntry(TypedDict):
    """The stored record of one document item (kind ``documents``; an OCR page adds its fields)."""

    prediction: Any
    reference: Any
    slice: Hashable | None
    score: Score | None
    error: str | None


def document_entry(
    payload: tuple[Hashable, Any, Any, Hashable | None],
    prediction: Any,
    more: Mapping[str, Any] | None = None,
    error: str | None = None,
) -> DocumentEntry:
    """The entry of ``payload``'s item, not scored yet (`ScoringTask.finish` fills in the score).

    ``more`` are a kind's own fields (an OCR page's confidence, ...), kept before the error.
    """
    entry: DocumentEntry = {
        "prediction": prediction,
        "reference": payload[2],
        "slice": payload[3],
        "score": None,
        "error": None,
    }
    if more:
        del entry["error"]  # type: ignore[misc]  # so that it stays the last field
        entry.update(more)  # type: ignore[typeddict-item]
    entry["error"] = error
    return entry


def gold_items(
    gold: Any,
    fields: tuple[tuple[str, str], tuple[str, str], str],
    who: str,
    *,
    fingerprints: bool,
    check: Callable[[Any, Any], None] | None = None,
) -> list[Item]:
    """``(key, (key, input, reference, slice), fingerprint)`` per gold record, all checked first.

    ``fields`` are the ``(input, reference, slice)`` field names and the
    options that set them; ``check(key, reference)`` refuses a reference.
    Items come in the dict's order, or sorted for another mapping (a store),
    so every run visits them in one order. The fingerprint (of input,
    reference and slice) lets a resumed run spot a changed record.
    """
    (input_key, input_option), (reference_key, reference_option), slice_key = fields
    if not isinstance(gold, Mapping):
        raise TypeError(
            f"{who}() gold is a {type_name(gold)}; it must be a mapping key -> record (a dict or "
            "json_store('gold')). Build one with dict(enumerate(records))."
        )
    for option, value in ((input_option, input_key), (reference_option, reference_key), ("slice_key", slice_key)):
        if not isinstance(value, str):
            raise TypeError(f"{who}() {option} must be a str field name, got {type_name(value)}.")
    keys = list(gold)
    if not isinstance(gold, dict):
        try:
            keys.sort()
        except TypeError:
            keys.sort(key=repr)
    items: list[Item] = []
    for key in keys:
        record = gold[key]
        if type(record) is not dict and not isinstance(record, Mapping):
            raise TypeError(
                f"gold record {key!r} is a {type_name(record)}; each record must be a mapping with "
                f"{input_key!r} and {reference_key!r} fields (and optionally {slice_key!r})."
            )
        for name, option in ((reference_key, reference_option), (input_key, input_option)):
            if name not in record:
                raise ValueError(
                    f"gold record {key!r} has no {name!r} field (it has {sorted(map(str, record))}); add "
                    f"it, or pass {option}= naming the field it is stored under."
                )
        if check is not None:
            check(key, record[reference_key])
        payload = (key, record[input_key], record[reference_key], record.get(slice_key))
        items.append((key, payload, fingerprint(payload[1:]) if fingerprints else None))
    return items


class ScoringTask:
    """Run the system on one item's input; score a chunk (a `ek._runs.Task`, also run in workers).

    A payload is ``(key, input, reference, slice)``; ``options`` are the
    scoring options (``normalize``, ``grammar``, ...) passed to ``scorer``.
    The methods after ``check`` say what the run records and reports
    (`run_scored`); an OCR task overrides them.
    """

    per_item = False

    def __init__(
        self,
        call: Callable[..., Any],
        metric: Any,
        options: dict[str, Any],
        who: str,
        errors: str = "record",
        *,
        scorer: Scorer,
    ) -> None:
        self.call, self.metric, self.options, self.who, self.errors = call, metric, options, who, errors
        self.scorer = scorer
        self.unsettled = metric is None  # a type-chosen metric is fixed by the first scored chunk
        self.learned: dict[str, Any] | None = None

    def step(self, payload: Any) -> Any:
        return self.call(payload[1])

    def reading(self, value: Any) -> Any:
        """The prediction in what the system returned (TypeError: none, the item fails)."""
        return value

    def extra(self, value: Any, seconds: float) -> dict[str, Any]:
        """More fields of an item's entry (``value`` is None when the item failed)."""
        return {}

    def failed(self, payload: Any, exc: BaseException, seconds: float) -> DocumentEntry:
        return document_entry(payload, None, self.extra(None, seconds), describe(exc))

    def finish(self, batch: Sequence[Done]) -> Finished:
        entries: list[DocumentEntry] = []
        cases, keys, slots = [], [], []
        plain = type(self).reading is ScoringTask.reading and type(self).extra is ScoringTask.extra
        for payload, value, seconds in batch:
            prediction, more = value, None  # the common case, kept cheap: the value is the prediction
            if not plain:
                try:
                    prediction, more = self.reading(value), self.extra(value, seconds)
                except TypeError as exc:  # a reading the system should not have returned
                    if self.errors == "raise":
                        return entries, exc
                    entries.append(self.failed(payload, exc, seconds))
                    continue
            entries.append(document_entry(payload, prediction, more))
            cases.append((prediction, payload[2]))
            keys.append(payload[0])
            slots.append(len(entries) - 1)
        if not cases:
            return entries, None
        scores, name, stop = score_cases(
            cases, keys, metric=self.metric, options=self.options, who=self.who, scorer=self.scorer
        )
        for slot, s in zip(slots, scores):
            entries[slot]["score"] = s
        if self.metric is None and scores:
            self.metric, self.unsettled, self.learned = name, False, {"metric": name}
        return (entries, None) if stop is None else (entries[: slots[len(scores)]], stop)

    def check(self, entry: Mapping[str, Any]) -> None:
        """Raise saying what is wrong with a stored entry."""
        missing = [f for f in ("prediction", "reference", "slice", "score") if f not in entry]
        if missing:
            raise ValueError(f"it lacks {', '.join(map(repr, missing))}")
        score = entry["score"]
        if entry["error"] is None and not isinstance(score, Score):
            raise ValueError(f"it has no error but its score is {type_name(score)}, not a stored Score")
        if isinstance(score, Score) and score.value != score.value:
            raise ValueError("its score is NaN")
        hash(entry["slice"])

    def parts(self, call_name: str) -> dict[str, Any]:
        """What a process pool must pickle: the call (named ``call_name``), the metric, the options."""
        return {call_name: self.call, "metric": self.metric, **self.options}

    def settings(self) -> dict[str, Any]:
        """The settings fingerprint a stored run is checked against (None: the metric is chosen by type)."""
        metric = self.metric
        if metric is not None and not isinstance(metric, str):
            metric = callable_id(metric, "metric", self.who)
        return {"metric": metric, **{name: setting_id(v, name, self.who) for name, v in self.options.items()}}

    def resume(self, stored: Mapping[str, Any], run_id: str | None) -> None:
        """Score with the metric a stored run used when none is given (it must be a registered name)."""
        metric = stored.get("metric")
        if self.metric is not None or metric is None:
            return
        if metric not in names("metrics"):
            raise ValueError(
                f"run {run_id!r} was scored with the metric {metric!r}, which is not a registered "
                "name, so it cannot be found again; pass that metric as metric= to resume the run."
            )
        self.metric, self.unsettled = metric, False

    def label(self) -> str | None:
        """The report's metric name when nothing was scored."""
        if self.metric is None or isinstance(self.metric, str):
            return self.metric
        from ek.metrics import as_metric  # a lower layer, loaded only for a metric object

        return as_metric(self.metric).name

    def detail(self) -> dict[str, Any]:
        """What the report's ``detail`` and the run's summary add (an OCR run: its engine)."""
        return {}

    def judge(self, report: Report, n_items: int) -> None:
        """Warn (or raise) about the items that failed; ``stacklevel`` points at the runner's caller."""
        failed = report.detail["n_errors"]
        if failed:
            warnings.warn(
                f"{self.who}: predict raised on {failed} of {n_items} items; they are left "
                "out of the scores and listed in report.detail['errors']. Pass errors='raise' to stop "
                "at the first failure instead.",
                stacklevel=4,
            )


def run_scored(
    kind: str,
    task: ScoringTask,
    items: Sequence[Item],
    options: RunOptions,
    *,
    inherit: tuple[str, ...] = (),
    plan: Plan | None = None,
) -> Report:
    """Run ``task`` over ``items`` as a run of ``kind`` (stored as ``options`` say) and report it.

    ``inherit`` names the settings a resume may leave as None (the
    documents kind: its metric); ``plan`` defaults to ``options.plan(task.who)``.
    The run is closed with its summary once ``task.judge`` has accepted the report.
    """
    run = start_run(kind, options, who=task.who, settings=task.settings, n_items=len(items), inherit=inherit)
    if "metric" in inherit:
        task.resume(run.settings, run.run_id)
    task.errors = options.errors
    entries = execute(run, task, items, plan or options.plan(task.who))
    report, summary = scored_report(
        items,
        entries,
        label=task.label(),
        metric=task.metric,
        who=task.who,
        detail={**task.detail(), "run_id": run.run_id},
        scorer=task.scorer,
    )
    task.judge(report, len(items))
    run.close({**task.detail(), **summary})
    return report


Scored = tuple[list[Score], str | None, Exception | None]
"""``(scores, metric name, error or None)``: what `score_cases` returns."""


def score_cases(
    cases: list[tuple[Any, Any]],
    keys: list[Any],
    *,
    metric: Any,
    options: dict[str, Any],
    who: str,
    scorer: Scorer,
) -> Scored:
    """``(scores, metric name, error or None)`` for ``cases`` scored with one `ek.evaluate` call.

    When the batch cannot be scored, items are scored one by one to name the
    first that cannot; ``scores`` then holds the items before it. A metric
    returning NaN for an item is such an error (`ek.facade.evaluate` refuses it).
    """
    try:
        report = scorer.evaluate(cases, metric=metric, **options)
    except (TypeError, ValueError):
        return _one_by_one(cases, keys, metric, options, who, scorer)
    return list(report.scores), report.metric, None


def _one_by_one(
    cases: list[tuple[Any, Any]], keys: list[Any], metric: Any, options: dict[str, Any], who: str, scorer: Scorer
) -> Scored:
    scores: list[Score] = []
    name = None
    for key, (prediction, reference) in zip(keys, cases):
        try:
            report = scorer.evaluate([(prediction, reference)], metric=metric, ids=[key], **options)
        except (TypeError, ValueError) as exc:
            hint = ""
            if type(prediction) is not type(reference):
                got = "None" if prediction is None else f"a {type_name(prediction)}"
                hint = (
                    f" predict returned {got} but the reference is a {type_name(reference)}; make "
                    "predict return the same kind of value as the references."
                )
            error = type(exc)(
                f"{who} could not score gold item {key!r} (prediction {prediction!r:.60}):{hint} The metric said: {exc}"
            )
            error.__cause__ = exc
            return scores, name, error
        scores.append(report.scores[0])
        name = report.metric
        metric = name if metric is None else metric  # the first item fixes a type-chosen metric
    return scores, name, None


def scored_report(
    items: Sequence[Item],
    entries: list[Any],
    *,
    label: str | None,
    metric: Any,
    who: str,
    detail: dict[str, Any],
    scorer: Scorer,
) -> tuple[Report, dict[str, Any]]:
    """``(report, run summary)``: the report over the scored entries, per slice, with ``per_item``.

    The report's items are the gold keys (``detail["ids"]``), so its
    `ek.Report.interval` resamples by key and two runs over one gold set
    pair up in `ek.compare`.

    ``detail`` is added to the report's; ``per_item`` maps every key to its
    entry with the score as a number and its statistics as ``detail``.
    """
    scored = [(item[0], e["score"], e["slice"]) for item, e in zip(items, entries) if e["error"] is None]
    report = Report(metric=label or "", aggregate=None, n=0)
    if scored:
        slices = tuple(s for _, _, s in scored)
        flat_detail: dict[str, Any] = {"ids": tuple(k for k, _, _ in scored)}  # gold keys pair runs in compare
        if any(s is not None for s in slices):
            flat_detail["slices"] = slices
        flat = Report(metric=label or "", n=len(scored), scores=tuple(s for _, s, _ in scored), detail=flat_detail)
        report = scorer.merge(flat, metric=metric)
    failures = {item[0]: e["error"] for item, e in zip(items, entries) if e["error"] is not None}
    per_item = {item[0]: _view(e) for item, e in zip(items, entries)}
    report = dataclasses.replace(
        report, detail={**report.detail, **detail, "per_item": per_item, "errors": failures, "n_errors": len(failures)}
    )
    summary = {
        "metric": report.metric,
        "n_items": len(items),
        "n_scored": report.n,
        "n_errors": len(failures),
        "aggregate": report.aggregate,
        "per_slice": str_keys(report.per_slice, "slice", who),
        "slice_n": str_keys(report.detail.get("slice_n") or {}, "slice", who),
        "errors": str_keys(failures, "gold key", who),
    }
    return report, summary


def _view(entry: dict[str, Any]) -> dict[str, Any]:
    score = entry["score"]
    view = dict(entry)
    if score is None:
        view["detail"] = None
    else:
        view["score"] = score.value
        view["detail"] = detail = dict(score.detail)
        detail.pop("higher_is_better", None)
    return view
