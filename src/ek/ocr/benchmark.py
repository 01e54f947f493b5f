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

import datetime
import os
import warnings
from collections.abc import Mapping
from concurrent.futures import Executor
from typing import Any, Callable, Optional, Union

from ek._runs import check_errors, check_executor, check_run_id, execute, gold_items, open_run, scored_report
from ek._util import type_name
from ek.base import GraphGrammar, Report
from ek.canonicalize import Steps, resolve_canonicalizer
from ek.ocr._ocr_run import (OcrTask, bind_engine, check_reference, engine_settings, one_thread_per_engine, thread_pool,
                             with_confusions, with_file_references)
from ek.registry import get
from ek.stores import json_store

__all__ = ["add_gold_item", "evaluate_ocr"]

_WHO = "evaluate_ocr"


def evaluate_ocr(
    engine: Union[str, Callable],
    gold: Mapping,
    *,
    metric: str = "cer",
    normalize: Optional[Steps] = None,
    grammar: Optional[GraphGrammar] = None,
    image_key: str = "image",
    reference_key: str = "reference_text",
    slice_key: str = "slice",
    persist: bool = False,
    run_id: Optional[str] = None,
    rootdir: Optional[str] = None,
    max_workers: Optional[int] = None,
    progress: Optional[bool] = None,
    executor: Optional[Executor] = None,
    errors: str = "record",
    resume: bool = True,
) -> Report:
    """Run ``engine`` over a gold corpus and score its text (CER by default; lower is better).

    Args:
        engine: an ``image -> OcrResult`` callable, or an ocracy backend id
            such as ``"tesseract"`` (bound with `ek.ocr.ocracy_backend`).
        gold: a mapping ``key -> {image, reference_text, slice, ...}``; a plain
            dict or ``ek.stores.json_store("gold")``. Items are read in its order.
            A record may give ``reference_file`` (a PAGE-XML, ALTO, hOCR or
            text file, told by its content) in place of ``reference_text``.
        metric: ``"cer"``, ``"wer"`` or another registered string metric.
        normalize: canonicalizer applied to both sides before scoring.
        grammar: passed on to the metric.
        image_key, reference_key, slice_key: field names inside each record.
        persist: store the run: each read item in the ``results`` store as it
            finishes (in chunks at most a second apart), the header and
            figures in the ``runs`` store, under ``ocr.<run_id>``. Calling
            again with the same ``run_id`` reads only the images with no
            stored result (or whose gold record changed, or that failed),
            and refuses another engine, engine options, metric, normalize
            or grammar.
        run_id: name of this run; by default a UTC timestamp.
        rootdir: data root for the stores (default: `ek.stores.app_folder`).
        max_workers: run the engine on this many images at once (a thread
            pool); None or 1 reads them one by one. Results keep the gold
            order. For Tesseract (an engine named or bound as
            ``"tesseract"``), ``OMP_THREAD_LIMIT=1`` is set during a
            concurrent run, unless already set, so the processes do not
            fight over the cores.
        progress: print ``done/total`` to stderr; None shows it only when
            stderr is a terminal.
        executor: any ``concurrent.futures.Executor`` to read and score
            chunks of images on (instead of ``max_workers``).
        errors: ``"record"`` (default) records an image the engine fails on
            and goes on; ``"raise"`` stops at the first failure.
        resume: reuse the stored items of ``run_id``; False starts it over.

    Returns:
        A `Report` over the items the engine read. ``detail["per_item"]`` maps
        every gold key, in gold order, to ``prediction``, ``reference``,
        ``slice``, ``score``, ``detail`` (the metric's counts), ``confidence``
        (the engine's mean confidence, None when it reports none),
        ``backend``, ``seconds`` and ``error`` (None, or the failure message,
        in which case prediction and score are None). A result whose
        ``.text`` is None is an empty reading (prediction ``""``, a full
        miss), not a failure. ``detail`` also holds ``engine``, ``run_id``,
        ``errors`` (key -> message), ``n_errors`` and ``confusions``: the
        corpus's most frequent character and word confusions (``{"char":
        rows, "word": rows}``, rows as `ek.ocr.files.evaluate_files` gives
        them); each item's five most frequent are under its ``confusions``.

    Raises:
        TypeError, ValueError: ``gold``, ``engine`` or an option is malformed,
            or a stored run of other settings is under ``run_id``.
        KeyError: an engine id ocracy does not know, or an unknown metric or
            normalizer name (the message lists the known ones). All of these
            are checked before the engine reads anything.
        RuntimeError: the engine failed on every item.
    """
    gold = with_file_references(gold, reference_key)
    items = gold_items(gold, ((image_key, "image_key"), (reference_key, "reference_key"), slice_key), _WHO,
                       fingerprints=persist, check=check_reference(reference_key))
    if not items:
        raise ValueError(
            "evaluate_ocr() got an empty gold corpus, so there is nothing to benchmark; add "
            "items with add_gold_item() (check rootdir / EK_DATA_HOME) or pass a non-empty dict."
        )
    if isinstance(metric, str):
        get("metrics", metric)  # an unknown name fails now, not after the engine has run
    resolve_canonicalizer(normalize)
    check_errors(errors, _WHO)
    run_id = check_run_id(run_id, _WHO) if run_id is not None else \
        datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%S.%fZ")
    workers = _check_workers(max_workers, executor)
    read, engine_name = bind_engine(engine, _WHO)
    check_executor(executor, _WHO, {"engine": read, "metric": metric, "normalize": normalize, "grammar": grammar})
    run = open_run("ocr", who=_WHO, persist=persist, run_id=run_id, rootdir=rootdir, resume=resume,
                   settings=engine_settings(read, engine_name, metric, normalize, grammar, _WHO) if persist else {},
                   n_items=len(items))
    task = OcrTask(read, metric, {"normalize": normalize, "grammar": grammar}, _WHO, errors)
    task.engine_name = engine_name
    with thread_pool(workers) as pool, one_thread_per_engine(engine_name, workers > 1 or executor is not None):
        entries = execute(run, task, items, label=f"evaluate_ocr[{engine_name}]", unit="images",
                          errors=errors, executor=executor or pool, progress=progress)
    report, summary = scored_report(items, entries, label=metric if isinstance(metric, str) else None,
                                    metric=metric, who=_WHO, detail={"engine": engine_name, "run_id": run_id})
    failures = report.detail["errors"]
    if not report.n:
        first = next(iter(failures))
        raise RuntimeError(
            f"evaluate_ocr: the engine {engine_name!r} failed on all {len(items)} items, so there "
            f"is nothing to score. First failure, item {first!r}: {failures[first]}"
        )
    if failures:
        shown = ", ".join(repr(k) for k in list(failures)[:3]) + (", ..." if len(failures) > 3 else "")
        warnings.warn(
            f"evaluate_ocr: the engine {engine_name!r} failed on {len(failures)} of {len(items)} "
            f"items ({shown}); they are left out of the scores. See report.detail['errors'].",
            stacklevel=2,
        )
    run.close({"engine": engine_name, **summary})
    return with_confusions(report)


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


def _check_workers(max_workers: Any, executor: Any) -> int:
    if max_workers is None:
        return 1
    if isinstance(max_workers, bool) or not isinstance(max_workers, int) or max_workers < 1:
        raise ValueError(
            f"max_workers must be a positive int (images read at once), got {max_workers!r}; "
            "use None or 1 to read them one by one."
        )
    if executor is not None:
        raise ValueError("evaluate_ocr() got both max_workers= and executor=; max_workers is a shorthand "
                         "for a thread pool of that size, so pass one or the other.")
    return max_workers
