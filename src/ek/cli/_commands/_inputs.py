"""Read GOLD and the predictions, score them chunk by chunk, and bound the figures.

A prediction side is a file or folder (read by `ek._files` and joined with
GOLD by id) or the name of a run saved with ``ek evaluate --save``. Text
documents (PAGE, ALTO, hOCR, plain text) go through `ek.ocr.files.evaluate_joined`,
which adds OCR measures and confusion tables; every other input through
`ek.evaluate`, in chunks so a progress bar can follow.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypedDict

from ek._bootstrap import id_text, resampled, resampled_pair
from ek._files import InputError, Joined, Side, join, read_source, refuse_failures, unread
from ek._util import Progress
from ek.base import MetricContract, Report
from ek.cli._commands._options import Options, measure_names
from ek.facade import evaluate, merge_reports
from ek.metrics import as_metric
from ek.registry import get

_CHUNK = 20_000  # items scored per evaluate() call; the progress bar moves once per chunk
_DocumentKey = Literal["measures", "measures_left_out", "confusions", "document_mean", "per_page"]
_DOCUMENT_KEYS: tuple[_DocumentKey, ...] = (  # of the OCR report
    "measures",
    "measures_left_out",
    "confusions",
    "document_mean",
    "per_page",
)

Bounds = tuple[float, float]
"""An interval ``(low, high)``, as `ek.Report.interval` gives it."""


class DocumentFigures(TypedDict, total=False):
    """What the OCR report of text documents adds (`ek.ocr.files.evaluate_joined`'s detail), for the JSON and page."""

    measures: dict[str, float]  # the corpus value of each OCR measure (cer, wer, fca, bow)
    measures_left_out: dict[str, dict[str, Any]]  # "fca": the pages too large for it by default, {} for none
    confusions: dict[str, list[dict[str, Any]]]  # "char" / "word": the rows of `ek._align.confusion_table`
    document_mean: dict[str, float]  # cer and wer averaged over the documents
    per_page: list[dict[str, Any]]  # each document's {id, cer, wer, chars}, worst first


@dataclass(frozen=True)
class Scored:
    """One prediction side scored against GOLD (a saved run has no ``joined``)."""

    name: str
    report: Report
    joined: Joined | None = None
    missing: tuple[object, ...] = ()
    extra: tuple[object, ...] = ()
    documents: DocumentFigures = field(default_factory=lambda: DocumentFigures())
    metric: MetricContract | None | Literal[False] = False  # the report's metric, resolved once; False: not yet

    def facts(self) -> MetricContract | None:
        """The report's registered metric as the contract (None: not registered), resolved once by `score`."""
        return metric_facts(self.report.metric) if self.metric is False else self.metric


def read_gold(path: str, options: Options) -> Side:
    """GOLD as one side, read once (its failed documents are refused by `read_joined`, or `check_gold`)."""
    return read_source(path, "gold", options.reading(), value_field=options.gold_field)


def check_gold(gold: Side, options: Options) -> None:
    """InputError for GOLD documents that failed to read, unless ``--keep-going`` (for runs that join no PRED)."""
    if gold.errors and not options.keep_going:
        raise unread(list(gold.errors.values()))


def options_for(gold: Side, options: Options) -> Options:
    """The options to score GOLD with: NFC by default when it is documents (`Options.for_documents`)."""
    return options.for_documents() if gold.documents else options


def read_joined(gold: Side, path: str, options: Options) -> Joined:
    """PRED read and joined with GOLD.

    Documents of either side that failed to read are one InputError listing
    them, unless ``--keep-going``: then failed predictions are left out too.
    """
    joined = join(gold, read_source(path, "pred", options.reading(), value_field=options.pred_field))
    return refuse_failures(joined, keep_going=options.keep_going)


def score(joined: Joined, options: Options, *, name: str) -> Scored:
    """Score the joined cases (with a progress bar on a terminal)."""
    if not joined.ids:
        raise InputError(f"no gold item could be scored against {name}; check GOLD.")
    asked = metric_facts(options.metric)  # the metric asked for, resolved once
    if (joined.documents or options.profile is not None) and _reads_documents(options.metric, asked):
        from ek.ocr.files import (
            evaluate_joined,  # documents: OCR measures and confusion tables too
        )

        report = evaluate_joined(joined, **_document_scoring(options))
        documents = _document_figures(report.detail)
    else:
        report, documents = _evaluate_in_chunks(joined, options, name), DocumentFigures()
    facts = asked if report.metric == options.metric else metric_facts(report.metric)
    return Scored(name, report, joined, tuple(joined.missing), tuple(joined.extra), documents, facts)


def bound(
    report: Report, level: float, *, label: str, other: Report | None = None
) -> tuple[Bounds, dict[object, Bounds]]:
    """The interval of the aggregate and of every slice (a progress bar follows the resampling).

    With ``other`` (``ek compare``), both reports are resampled in one pass.
    """
    bar = Progress(report.n, label=f"{label}: intervals", unit="items")
    try:
        if other is None:
            resampled(report, progress=bar.update if bar.enabled else None)
        else:
            resampled_pair(report, other, progress=bar.update if bar.enabled else None)
    finally:
        bar.close()
    return report.interval(level), {label_: report.interval(level, slice=label_) for label_ in report.per_slice}


def gold_digest(gold: Side) -> str:
    """A fingerprint of GOLD's ids and values, order aside: a saved run is compared only on the same gold."""
    import hashlib  # only a saved run needs it

    pairs = sorted(zip(map(id_text, gold.ids), (json.dumps(v, sort_keys=True, default=repr) for v in gold.values)))
    return hashlib.blake2b(json.dumps(pairs).encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def is_path(source: str) -> bool:
    return source == "-" or os.path.exists(source)


def metric_facts(metric: str | None) -> MetricContract | None:
    """The registered metric named ``metric`` as the contract, whose declared facts the pages read; None if unknown."""
    if metric is None:
        return None
    try:
        return as_metric(get("metrics", metric))
    except KeyError:  # a function's report: its name is not registered
        return None


def statistic_names(metric: str) -> tuple[str, ...]:
    """The statistics the registered metric ``metric`` sums (none for a metric that is not registered)."""
    facts = metric_facts(metric)
    return () if facts is None else facts.statistics


def item_rows(
    report: Report, facts: MetricContract | None | Literal[False] = False
) -> list[tuple[Any, dict[str, Any]]]:
    """``(value, {statistic: number})`` of every item, in report order (as the metric gave them).

    ``facts`` is the report's metric resolved already (`Scored.facts`); False looks it up.
    """
    names = statistic_names(report.metric) if facts is False else () if facts is None else facts.statistics
    return [(s.value, {n: s.detail.get(n) for n in names}) for s in report.scores]


def _document_figures(detail: Mapping[str, Any]) -> DocumentFigures:
    """The OCR report's measures, confusions and document means (those it has)."""
    figures = DocumentFigures()
    for key in _DOCUMENT_KEYS:
        if key in detail:
            figures[key] = detail[key]
    return figures


def _document_scoring(options: Options) -> dict[str, Any]:
    """The options `ek.ocr.files.evaluate_joined` gets: those given (None leaves its default, or the profile's)."""
    given = {"normalize": options.steps, "profile": options.profile, "words": options.words}
    chosen = measure_names(options.measures)
    asked = {} if chosen is None else {"measures": chosen, "fca_max_chars": None}  # FCA asked for: on every page
    return {"metric": options.metric or "cer", **{k: v for k, v in given.items() if v is not None}, **asked}


def _reads_documents(metric: str | None, facts: MetricContract | None | Literal[False] = False) -> bool:
    """Whether text documents go through the OCR scoring: a metric chosen by type, or one that reads documents.

    ``facts`` is ``metric`` resolved already (False looks it up).
    """
    facts = metric_facts(metric) if facts is False else facts
    return metric is None or (facts is not None and facts.reads_documents)


def record_metric(options: Options) -> Any:
    """The metric of record inputs: ``--words unicode`` makes WER the Unicode-word WER."""
    if options.words in (None, "whitespace"):
        return options.metric
    if options.metric == "wer":
        return "wer_unicode"
    raise ValueError(
        f"--words {options.words} changes how WER cuts words, and --metric is "
        f"{options.metric or 'chosen by type'}; pass --metric wer, or drop --words."
    )


def _evaluate_in_chunks(joined: Joined, options: Options, name: str) -> Report:
    cases, ids, n = joined.cases(), joined.ids, len(joined.ids)
    metric: Any = record_metric(options)
    parts: list[Report] = []
    bar = Progress(n, label=f"scoring {name}", unit="items")
    chunk = _CHUNK if bar.enabled else n  # chunks only to move the bar: merging them costs a little
    try:
        for start in range(0, n, chunk):
            part = evaluate(
                cases[start : start + chunk], metric=metric, normalize=options.steps, ids=ids[start : start + chunk]
            )
            metric = metric or part.metric  # a metric chosen by type is kept for the later chunks
            parts.append(part)
            bar.update(min(n, start + chunk))
    finally:
        bar.close()
    return parts[0] if len(parts) == 1 else merge_reports(*parts, metric=metric)
