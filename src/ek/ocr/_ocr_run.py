"""What every OCR run shares: the engine bound, the task the run engine runs, and the report's extras.

`ek.ocr.evaluate_ocr` (one engine) and `ek.ocr.benchmark_fleet` (several)
are adapters over the run engine (`ek._runs`). Both bind an engine
(`bind_engine`), read each gold image with an `OcrTask` (the engine's text
is the prediction; its confidence, backend and time are kept beside it),
cap OpenMP engines at one thread while several calls run at once
(`one_thread_per_engine`), and add the corpus's confusion tables to the
report (`with_confusions`). The gold may name a ground-truth file instead
of a reference text (`with_file_references`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import os
import warnings
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypedDict, TypeGuard

from ek._ocr_result import (
    block_confidence,
    mean_confidence_of,
    result_backend,
    result_blocks,
    result_text,
    text_kind,
)
from ek._runs import DocumentEntry, Scorer, ScoringTask, callable_id, setting_id
from ek._util import type_name
from ek.base import Report
from ek.facade import evaluate, merge_reports

FILE_KEY = "reference_file"
"""The gold record field naming a ground-truth file (PAGE-XML, ALTO, hOCR or text) to read the reference from."""

# ocracy engines that run an OpenMP program per call (see one_thread_per_engine).
_OPENMP_ENGINES = frozenset({"tesseract"})


class OcrFields(TypedDict):
    """What an OCR page's entry adds to a document's (`OcrTask.extra`).

    ``confidence`` is the engine's mean confidence (None when it gives none),
    ``backend`` the engine that read the page, ``seconds`` the time it took.
    """

    confidence: float | None
    backend: str
    seconds: float


class OcrEntry(DocumentEntry, OcrFields):
    """The stored record of one OCR page (kinds ``ocr`` and ``fleet``), written by `OcrTask`, checked by its ``check``."""


SCORER = Scorer(evaluate, merge_reports)
"""How every OCR run scores its readings: with `ek.facade`."""


class OcrTask(ScoringTask):
    """An image read by the engine; its text is the prediction (also run in workers)."""

    engine_name = ""

    def __init__(self, *args: Any, engine_name: str = "", **kwargs: Any) -> None:
        """`ScoringTask`'s arguments; an OCR run scores with `ek.facade` (`SCORER`)."""
        super().__init__(*args, scorer=SCORER, **kwargs)
        self.engine_name = engine_name

    def reading(self, value: Any) -> str:
        return text_of(value)

    def extra(self, value: Any, seconds: float) -> dict[str, Any]:
        fields: OcrFields = {
            "confidence": None if value is None else mean_confidence(value),
            "backend": backend_of(value, self.engine_name),
            "seconds": round(seconds, 6),
        }
        return dict(fields)

    def check(self, entry: Mapping[str, Any]) -> None:
        super().check(entry)
        for name in ("confidence", "seconds"):
            value = entry.get(name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
                raise ValueError(f"its {name} is {value!r:.40}, not a number")
        if not isinstance(entry.get("backend"), str):
            raise ValueError(f"its backend is {entry.get('backend')!r:.40}, not a str")

    def settings(self) -> dict[str, Any]:
        normalize, grammar = self.options.get("normalize"), self.options.get("grammar")
        return engine_settings(self.call, self.engine_name, self.metric, normalize, grammar, self.who)

    def label(self) -> str | None:
        return self.metric if isinstance(self.metric, str) else None

    def detail(self) -> dict[str, Any]:
        return {"engine": self.engine_name}

    def judge(self, report: Report, n_items: int) -> None:
        """Raise when the engine read nothing; warn, naming a few, when it failed on some items."""
        failures = report.detail["errors"]
        if not report.n:
            first = next(iter(failures))
            raise RuntimeError(
                f"{self.who}: the engine {self.engine_name!r} failed on all {n_items} items, so there "
                f"is nothing to score. First failure, item {first!r}: {failures[first]}"
            )
        if failures:
            shown = ", ".join(repr(k) for k in list(failures)[:3]) + (", ..." if len(failures) > 3 else "")
            warnings.warn(
                f"{self.who}: the engine {self.engine_name!r} failed on {len(failures)} of {n_items} "
                f"items ({shown}); they are left out of the scores. See report.detail['errors'].",
                stacklevel=4,
            )


def bind_engine(engine: Any, who: str) -> tuple[Callable[..., Any], str]:
    """The read callable and the engine's name for the records."""
    if isinstance(engine, str):
        from ek.ocr.bridge import ocracy_backend

        read = ocracy_backend(engine)
        return read, read.backend  # type: ignore[attr-defined]
    if not callable(engine):
        raise TypeError(
            f"{who}() engine must be an ocracy backend id such as 'tesseract' or a "
            f"callable image -> OcrResult, got {type_name(engine)}."
        )
    return engine, engine_label(engine)


def engine_label(engine: Callable[..., Any]) -> str:
    """A callable engine's name: its ``backend`` attribute, else its ``__name__``, else its type's."""
    name = getattr(engine, "backend", None)
    if not isinstance(name, str) or not name:
        name = getattr(engine, "__name__", None) or type(engine).__name__
    return name


def engine_settings(
    read: Callable[..., Any], engine_name: str, metric: Any, normalize: Any, grammar: Any, who: str
) -> dict[str, Any]:
    """What a stored run is checked against: the engine and its options, and the scoring settings."""
    options = getattr(read, "options", None)
    engine = engine_name if not options else f"{engine_name} {sorted(options.items())!r}"
    return {
        "engine": engine,
        "metric": metric if isinstance(metric, str) else callable_id(metric, "metric", who),
        "normalize": setting_id(normalize, "normalize", who),
        "grammar": setting_id(grammar, "grammar", who),
    }


def check_reference(reference_key: str) -> Callable[..., Any]:
    """The `ek._runs.gold_items` check that refuses a reference which is not a str."""

    def check(key: Any, reference: Any) -> None:
        if not isinstance(reference, str):
            raise TypeError(
                f"gold record {key!r} field {reference_key!r} is {type_name(reference)}; the "
                "reference must be the true transcription as a str."
            )

    return check


def with_file_references(gold: Any, reference_key: str) -> Any:
    """``gold`` with each record's ``reference_file`` read into ``reference_key`` (where it has none).

    The file may be PAGE-XML, ALTO, hOCR or plain text, told by its content
    (`ek.ocr.formats.read_document`); a file that cannot be read fails now,
    naming it, before the engine runs.
    """
    if not isinstance(gold, Mapping) or not any(
        isinstance(r, Mapping) and reference_key not in r and FILE_KEY in r for r in gold.values()
    ):
        return gold
    from ek.ocr.formats import read_document

    keys = list(gold)
    if not isinstance(gold, dict):  # a store: the sorted order gold_items would visit
        try:
            keys.sort()
        except TypeError:
            keys.sort(key=repr)
    out = {}
    for key in keys:
        record = gold[key]
        if isinstance(record, Mapping) and reference_key not in record and FILE_KEY in record:
            path = record[FILE_KEY]
            if not isinstance(path, (str, os.PathLike)):
                raise TypeError(
                    f"gold record {key!r} field {FILE_KEY!r} is {type_name(path)}; give the path "
                    "of a PAGE-XML, ALTO, hOCR or text file with the true transcription."
                )
            record = {**record, reference_key: read_document(path).text}
        out[key] = record
    return out


def with_confusions(report: Report, n: int = 20) -> Report:
    """The report with the corpus's most frequent character and word confusions, and each item's."""
    per_item = report.detail["per_item"]
    texts = [
        (k, e["prediction"], e["reference"])
        for k, e in per_item.items()
        if e.get("error") is None and isinstance(e.get("prediction"), str) and isinstance(e.get("reference"), str)
    ]
    if not texts:
        return report
    from ek import _align
    from ek.ocr.files import confusions_by_item

    ids, preds, golds = zip(*texts)
    by_item, totals = confusions_by_item(ids, preds, golds, None, "char", 5)
    items = {k: ({**e, "confusions": by_item[k]} if k in by_item else e) for k, e in per_item.items()}
    corpus = {unit: _align.confusion_table(counts, n=n) for unit, counts in totals.items()}
    return dataclasses.replace(report, detail={**report.detail, "per_item": items, "confusions": corpus})


@contextlib.contextmanager
def thread_pool(workers: int, prefix: str = "ek-ocr") -> Iterator[ThreadPoolExecutor | None]:
    """A thread pool of ``workers`` threads (None for one at a time)."""
    if workers == 1:
        yield None
        return
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix=prefix) as pool:
        yield pool


@contextlib.contextmanager
def one_thread_per_engine(engine_ids: Any, concurrent: bool) -> Iterator[None]:
    """Cap OpenMP engines at one thread per call while several calls run at once.

    Tesseract parallelises each page with OpenMP; several such processes on
    the same cores spin against each other and run many times slower than
    one after another. ``OMP_THREAD_LIMIT`` is set only if the user has not
    set it, and restored afterwards. ``engine_ids`` is one engine id or
    several (the engines running at once).
    """
    ids = {engine_ids} if isinstance(engine_ids, str) else set(engine_ids)
    if not ids & _OPENMP_ENGINES or not concurrent or "OMP_THREAD_LIMIT" in os.environ:
        yield
        return
    os.environ["OMP_THREAD_LIMIT"] = "1"
    try:
        yield
    finally:
        os.environ.pop("OMP_THREAD_LIMIT", None)


def text_of(result: Any) -> str:
    """The text of a reading; a ``.text`` of None is an empty reading (the engine saw nothing)."""
    if isinstance(result, str):
        return result
    text = result_text(result)
    if text is not None:
        return text
    kind = text_kind(result)
    if kind == "None":
        return ""
    has = "no .text" if kind is None else f"a .text that is {kind}"
    raise TypeError(
        f"the engine returned {type_name(result)} with {has}; an OCR engine must return an "
        "OcrResult-shaped object with the recognized text in .text (or the text itself as a str)."
    )


def mean_confidence(result: Any) -> float | None:
    """The engine's mean confidence: ``.mean_confidence``, else the mean over ``.blocks``."""
    value = mean_confidence_of(result)
    if value is None:
        confidences = [c for c in (block_confidence(b) for b in result_blocks(result) or ()) if is_number(c)]
        value = sum(confidences) / len(confidences) if confidences else None
    if not is_number(value) or not math.isfinite(value):
        return None
    return float(value)


def is_number(value: Any) -> TypeGuard[float]:
    """A real number that is not a bool."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def backend_of(result: Any, engine_name: str) -> str:
    return result_backend(result) or engine_name
