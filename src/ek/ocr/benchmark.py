"""Benchmark an OCR engine against gold transcriptions: run it, score CER/WER, persist.

`evaluate_ocr` answers "how accurate is my OCR?". It reads every gold image
with the engine, scores the text against the reference with a corpus rate
(summed edits over summed reference length, never a mean of per-item rates),
cuts the report by slice, and can save the per-item results and the run's
figures in the ``results`` and ``runs`` stores. `add_gold_item` builds the
gold corpus in the ``gold`` store.

The engine is any ``image -> OcrResult`` callable (something with a ``.text``;
a plain string is accepted too) or an ocracy backend id, so the benchmark
runs, and is tested, without any real OCR engine:

>>> gold = {"d1": {"image": "a.png", "reference_text": "cat"},
...         "d2": {"image": "b.png", "reference_text": "dog"}}
>>> report = evaluate_ocr(lambda image: "cat", gold)
>>> report.n, round(report.aggregate, 3)
(2, 0.5)

Errors: bad gold raises ``TypeError``/``ValueError`` before the engine runs;
an engine that fails on some images has those items recorded in
``detail["errors"]`` (with a warning) and the rest scored; an engine that
fails on every image raises ``RuntimeError`` naming the first failure.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import math
import os
import time
import warnings
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Any, Callable, Iterator, Optional, Union

from ek._util import Progress, type_name
from ek.base import Report
from ek.canonicalize import resolve_canonicalizer
from ek.facade import evaluate
from ek.registry import get
from ek.stores import json_store

__all__ = ["add_gold_item", "evaluate_ocr"]

# ocracy engines that run an OpenMP program per call (see _one_thread_per_engine).
_OPENMP_ENGINES = frozenset({"tesseract"})


def evaluate_ocr(
    engine: Union[str, Callable],
    gold: Mapping,
    *,
    metric: str = "cer",
    normalize: Any = None,
    grammar: Any = None,
    image_key: str = "image",
    reference_key: str = "reference_text",
    slice_key: str = "slice",
    persist: bool = False,
    run_id: Optional[str] = None,
    rootdir: Optional[str] = None,
    max_workers: Optional[int] = None,
    progress: Optional[bool] = None,
) -> Report:
    """Run ``engine`` over a gold corpus and score its text (CER by default; lower is better).

    Args:
        engine: an ``image -> OcrResult`` callable, or an ocracy backend id
            such as ``"tesseract"`` (bound with `ek.ocr.ocracy_backend`).
        gold: a mapping ``key -> {image, reference_text, slice, ...}``; a plain
            dict or ``ek.stores.json_store("gold")``. Items are read in its order.
        metric: ``"cer"``, ``"wer"`` or another registered string metric.
        normalize: canonicalizer applied to both sides before scoring.
        grammar: passed on to the metric.
        image_key, reference_key, slice_key: field names inside each record.
        persist: also write the per-item results to the ``results`` store and
            the run's figures to the ``runs`` store, both under ``run_id``.
        run_id: name of this run; by default a UTC timestamp.
        rootdir: data root for the stores (default: `ek.stores.app_folder`).
        max_workers: run the engine on this many images at once (threads);
            None or 1 reads them one by one. Results keep the gold order.
            For Tesseract (an engine named or bound as ``"tesseract"``),
            ``OMP_THREAD_LIMIT=1`` is set during a concurrent run, unless
            already set, so the processes do not fight over the cores.
        progress: print ``done/total`` to stderr; None shows it only when
            stderr is a terminal.

    Returns:
        A `Report` over the items the engine read. ``detail["per_item"]`` maps
        every gold key, in gold order, to ``prediction``, ``reference``,
        ``slice``, ``score``, ``detail`` (the metric's counts), ``confidence``
        (the engine's mean confidence, None when it reports none),
        ``backend``, ``seconds`` and ``error`` (None, or the failure message,
        in which case prediction and score are None). ``detail`` also holds
        ``engine``, ``run_id``, ``errors`` (key -> message) and ``n_errors``.

    Raises:
        TypeError, ValueError: ``gold``, ``engine`` or an option is malformed.
        KeyError: an engine id ocracy does not know, or an unknown metric or
            normalizer name (the message lists the known ones). All of these
            are checked before the engine reads anything.
        RuntimeError: the engine failed on every item.
    """
    items = _gold_items(gold, image_key, reference_key, slice_key)
    if isinstance(metric, str):
        get("metrics", metric)  # an unknown name fails now, not after the engine has run
    resolve_canonicalizer(normalize)
    run_id = _check_run_id(run_id)
    workers = _check_workers(max_workers)
    read, engine_name = _bind_engine(engine)

    with _one_thread_per_engine(engine_name, workers):
        outcomes = _read_all(read, [item[1] for item in items], workers=workers,
                             label=f"evaluate_ocr[{engine_name}]", show=progress)

    per_item: dict = {}
    errors: dict = {}
    cases, scored_keys = [], []
    for (key, _image, reference, label), (result, error, seconds) in zip(items, outcomes, strict=True):
        text = None
        if error is None:
            try:
                text = _text_of(result)
            except TypeError as exc:
                error = f"TypeError: {exc}"
        entry = {"prediction": text, "reference": reference, "slice": label, "score": None,
                 "detail": None, "confidence": None if error else _mean_confidence(result),
                 "backend": _backend_of(result, engine_name), "seconds": round(seconds, 6),
                 "error": error}
        per_item[key] = entry
        if error is not None:
            errors[key] = error
            continue
        cases.append((text, reference, label))
        scored_keys.append(key)

    if not cases:
        first = next(iter(errors))
        raise RuntimeError(
            f"evaluate_ocr: the engine {engine_name!r} failed on all {len(items)} items, so there "
            f"is nothing to score. First failure, item {first!r}: {errors[first]}"
        )
    if errors:
        shown = ", ".join(repr(k) for k in list(errors)[:3]) + (", ..." if len(errors) > 3 else "")
        warnings.warn(
            f"evaluate_ocr: the engine {engine_name!r} failed on {len(errors)} of {len(items)} "
            f"items ({shown}); they are left out of the scores. See report.detail['errors'].",
            stacklevel=2,
        )

    sliced = any(label is not None for _, _, label in cases)
    report = evaluate(cases if sliced else [c[:2] for c in cases], metric=metric,
                      grammar=grammar, normalize=normalize)
    for key, score in zip(scored_keys, report.scores, strict=True):
        per_item[key]["score"] = score.value
        per_item[key]["detail"] = {k: v for k, v in score.detail.items() if k != "higher_is_better"}

    detail = {**report.detail, "engine": engine_name, "run_id": run_id, "per_item": per_item,
              "errors": errors, "n_errors": len(errors)}
    report = dataclasses.replace(report, detail=detail)
    if persist:
        _persist(report, rootdir=rootdir)
    return report


def add_gold_item(
    key: str,
    image: Any,
    reference_text: str,
    *,
    slice: Optional[str] = None,  # noqa: A002 - the spec's name for the stratum
    rootdir: Optional[str] = None,
    **extra: Any,
) -> None:
    """Store one gold example, ``{image, reference_text, slice, **extra}``, in the ``gold`` store.

    Args:
        key: unique id of the document (a plain file name: no ``/``, no leading ``.``).
        image: where the engine can find the image (a path or URL); a reference
            is stored, never image bytes. A ``pathlib.Path`` is stored as a str.
        reference_text: the true transcription.
        slice: optional stratum label (document type, language, scan quality, ...).
        rootdir: data root of the store (default: `ek.stores.app_folder`).
        **extra: more JSON-serializable metadata kept on the record.

    Raises:
        TypeError: ``image`` is bytes or not a reference, ``reference_text`` is
            not a str, or ``extra`` holds a value JSON cannot store.
        ValueError: ``key`` cannot be a store key.
    """
    if isinstance(image, (bytes, bytearray)):
        raise TypeError(
            f"add_gold_item({key!r}) got {len(image)} image bytes; the gold store keeps a "
            "reference, not the image. Save the image to a file and pass its path."
        )
    if isinstance(image, os.PathLike):
        image = os.fspath(image)
    if not isinstance(image, str):
        raise TypeError(
            f"add_gold_item({key!r}) image must be a path or URL string, got {type_name(image)}."
        )
    if not isinstance(reference_text, str):
        raise TypeError(
            f"add_gold_item({key!r}) reference_text must be the transcription as a str, "
            f"got {type_name(reference_text)}."
        )
    record = {"image": image, "reference_text": reference_text, "slice": slice, **extra}
    json_store("gold", rootdir=rootdir)[key] = record


# ---------------------------------------------------------------------------


def _gold_items(gold: Any, image_key: str, reference_key: str, slice_key: str) -> list[tuple]:
    """``(key, image, reference, slice)`` per record, checked before the engine runs."""
    if not isinstance(gold, Mapping):
        raise TypeError(
            f"evaluate_ocr() takes gold as a mapping key -> {{{image_key!r}: ..., "
            f"{reference_key!r}: ...}}, got {type_name(gold)}. Build a dict, or use "
            "ek.stores.json_store('gold') filled with add_gold_item()."
        )
    items = []
    for key in gold:
        record = gold[key]
        if not isinstance(record, Mapping):
            raise TypeError(
                f"gold item {key!r} is {type_name(record)}, not a mapping; each gold value must "
                f"be a dict with {image_key!r} and {reference_key!r}."
            )
        for field in (image_key, reference_key):
            if field not in record:
                option = "image_key" if field == image_key else "reference_key"
                raise ValueError(
                    f"gold item {key!r} has no {field!r} field (it has {sorted(map(str, record))}); "
                    f"pass {option}= if your records name it differently."
                )
        reference = record[reference_key]
        if not isinstance(reference, str):
            raise TypeError(
                f"gold item {key!r} field {reference_key!r} is {type_name(reference)}; the "
                "reference must be the true transcription as a str."
            )
        items.append((key, record[image_key], reference, record.get(slice_key)))
    if not items:
        raise ValueError(
            "evaluate_ocr() got an empty gold corpus, so there is nothing to benchmark; add "
            "items with add_gold_item() (check rootdir / EK_DATA_HOME) or pass a non-empty dict."
        )
    return items


def _check_run_id(run_id: Any) -> str:
    if run_id is None:
        return datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%S.%fZ")
    if not isinstance(run_id, str) or not run_id or "/" in run_id or "\\" in run_id or run_id.startswith("."):
        raise ValueError(
            f"run_id {run_id!r} cannot name a stored run; use a non-empty str without '/' or "
            "'\\' that does not start with '.', e.g. 'tesseract-2024-06-01'."
        )
    return run_id


def _check_workers(max_workers: Any) -> int:
    if max_workers is None:
        return 1
    if isinstance(max_workers, bool) or not isinstance(max_workers, int) or max_workers < 1:
        raise ValueError(
            f"max_workers must be a positive int (images read at once), got {max_workers!r}; "
            "use None or 1 to read them one by one."
        )
    return max_workers


def _bind_engine(engine: Any) -> tuple[Callable, str]:
    """The read callable and the engine's name for the records."""
    if isinstance(engine, str):
        from ek.ocr.bridge import ocracy_backend  # noqa: PLC0415 - ocracy only when asked

        read = ocracy_backend(engine)
        return read, read.backend  # type: ignore[attr-defined]
    if not callable(engine):
        raise TypeError(
            f"evaluate_ocr() engine must be an ocracy backend id such as 'tesseract' or a "
            f"callable image -> OcrResult, got {type_name(engine)}."
        )
    name = getattr(engine, "backend", None)
    if not isinstance(name, str) or not name:
        name = getattr(engine, "__name__", None) or type(engine).__name__
    return engine, name


def _read_all(read: Callable, images: list, *, workers: int, label: str,
              show: Optional[bool]) -> list[tuple]:
    """``(result, error message or None, seconds)`` per image, in input order."""
    n = len(images)
    outcomes: list = [None] * n
    bar = Progress(n, label=label, unit="images", enabled=show)
    if workers == 1 or n == 1:
        for i, image in enumerate(images):
            outcomes[i] = _read_one(read, image)
            bar.tick(outcomes[i][1] is None)
    else:
        with ThreadPoolExecutor(max_workers=min(workers, n)) as pool:
            futures = {pool.submit(_read_one, read, image): i for i, image in enumerate(images)}
            for future in as_completed(futures):
                outcomes[futures[future]] = future.result()
                bar.tick(outcomes[futures[future]][1] is None)
    bar.close()
    return outcomes


@contextlib.contextmanager
def _one_thread_per_engine(engine_id: str, workers: int) -> Iterator[None]:
    """Cap an OpenMP engine at one thread per call while several calls run at once.

    Tesseract parallelises each page with OpenMP; several such processes on
    the same cores spin against each other and run many times slower than
    one after another. ``OMP_THREAD_LIMIT`` is set only if the user has not
    set it, and restored afterwards.
    """
    if engine_id not in _OPENMP_ENGINES or workers == 1 or "OMP_THREAD_LIMIT" in os.environ:
        yield
        return
    os.environ["OMP_THREAD_LIMIT"] = "1"
    try:
        yield
    finally:
        os.environ.pop("OMP_THREAD_LIMIT", None)


def _read_one(read: Callable, image: Any) -> tuple:
    start = time.perf_counter()
    try:
        result = read(image)
    except Exception as exc:  # one bad image must not sink the run
        return None, f"{type(exc).__name__}: {exc}", time.perf_counter() - start
    return result, None, time.perf_counter() - start


def _text_of(result: Any) -> str:
    if isinstance(result, str):
        return result
    text = getattr(result, "text", None)
    if not isinstance(text, str):
        raise TypeError(
            f"the engine returned {type_name(result)} whose .text is {type_name(text)}; an OCR "
            "engine must return an OcrResult-shaped object with the recognized text in .text "
            "(or the text itself as a str)."
        )
    return text


def _mean_confidence(result: Any) -> Optional[float]:
    """The engine's mean confidence: ``.mean_confidence``, else the mean over ``.blocks``."""
    value = getattr(result, "mean_confidence", None)
    if value is None:
        confidences = [c for c in (getattr(b, "confidence", None) for b in getattr(result, "blocks", None) or ())
                       if isinstance(c, (int, float)) and not isinstance(c, bool)]
        value = sum(confidences) / len(confidences) if confidences else None
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
        return None
    return float(value)


def _backend_of(result: Any, engine_name: str) -> str:
    backend = getattr(result, "backend", None)
    return backend if isinstance(backend, str) and backend else engine_name


def _persist(report: Report, *, rootdir: Optional[str]) -> None:
    detail = report.detail
    run_id = detail["run_id"]
    items = {str(k): v for k, v in detail["per_item"].items()}
    json_store("results", rootdir=rootdir)[run_id] = {
        "run_id": run_id, "engine": detail["engine"], "metric": report.metric, "items": items,
    }
    json_store("runs", rootdir=rootdir)[run_id] = {
        "run_id": run_id,
        "engine": detail["engine"],
        "metric": report.metric,
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(),
        "n": report.n,
        "n_errors": detail["n_errors"],
        "aggregate": report.aggregate,
        "per_slice": {str(k): v for k, v in report.per_slice.items()},
        "slice_n": {str(k): v for k, v in detail.get("slice_n", {}).items()},
        "errors": {str(k): v for k, v in detail["errors"].items()},
    }
