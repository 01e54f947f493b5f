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

import dataclasses
import os
from collections.abc import Callable, Hashable, Mapping, Sequence
from concurrent.futures import Executor
from typing import Any, TypeVar

from ek._runs import (
    ErrorMode,
    RunOptions,
    check_executor,
    gold_items,
    new_run_id,
    run_options_of,
    run_scored,
)
from ek._stats import check_level
from ek._util import rehome, type_name
from ek.base import GraphGrammar, Report
from ek.canonicalize import Steps, resolve_canonicalizer
from ek.ocr._fleet.report import CONSENSUS, ConfidenceCalibration, EngineResult, FleetReport
from ek.ocr._fleet.settings import FleetSettings as FleetSettings  # noqa: PLC0414 - for ek benchmark (mypy: re-exported)
from ek.ocr._ocr_run import (
    OcrTask,
    bind_engine,
    check_reference,
    one_thread_per_engine,
    thread_pool,
    with_confusions,
    with_file_references,
)
from ek.registry import get
from ek.stores import json_store

__all__ = ["ConfidenceCalibration", "EngineResult", "FleetReport", "add_gold_item", "benchmark_fleet", "evaluate_ocr"]

_WHO = "evaluate_ocr"
_K = TypeVar("_K", bound=Hashable)

#: One OCR engine: an ocracy id (options after a colon, ``"tesseract:psm=6"``) or an ``image -> OcrResult``
#: callable, whose result is the engine's own object (ek reads its ``.text``, ``.blocks``, ...).
OcrEngine = str | Callable[..., object]
#: What `benchmark_fleet` runs: one engine, a sequence of them, or a mapping name -> engine or
#: ``(id, {options})`` (see `ek.ocr.engine_specs`).
Fleet = OcrEngine | Sequence[OcrEngine] | Mapping[str, OcrEngine | tuple[str, Mapping[str, object]]]


def evaluate_ocr(
    engine: OcrEngine,
    gold: Mapping[_K, Mapping[str, object]],
    *,
    metric: str = "cer",
    normalize: Steps | None = None,
    grammar: GraphGrammar | None = None,
    image_key: str = "image",
    reference_key: str = "reference_text",
    slice_key: str = "slice",
    persist: bool = False,
    run_id: str | None = None,
    rootdir: str | os.PathLike[str] | None = None,
    resume: bool = True,
    errors: ErrorMode = "record",
    max_workers: int | None = None,
    timeout: float | None = None,
    executor: Executor | None = None,
    progress: bool | None = None,
    run_options: RunOptions | None = None,
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
        persist: store the run (implied by ``run_id``): each read item in the ``results`` store as it
            finishes (in chunks at most a second apart), the header and
            figures in the ``runs`` store, under ``ocr.<run_id>``. Calling
            again with the same ``run_id`` reads only the images with no
            stored result (or whose gold record changed, or that failed),
            and refuses another engine, engine options, metric, normalize
            or grammar.
        run_id: name of this run; a stored run without one gets a new one
            from the clock (`ek._runs.new_run_id`), a run not stored has none.
        rootdir: data root for the stores (default: `ek.stores.app_folder`).
        resume: reuse the stored items of ``run_id``; False starts it over.
        errors: ``"record"`` (default) records an image the engine fails on
            and goes on; ``"raise"`` stops at the first failure.
        max_workers: run the engine on this many images at once (a thread
            pool); None or 1 reads them one by one. Results keep the gold
            order. For Tesseract (an engine named or bound as
            ``"tesseract"``), ``OMP_THREAD_LIMIT=1`` is set during a
            concurrent run, unless already set, so the processes do not
            fight over the cores.
        timeout: seconds the engine may take on one image; an image past it
            is an error (``TimeoutError``).
        executor: any ``concurrent.futures.Executor`` to read and score
            chunks of images on (instead of ``max_workers``).
        progress: print ``done/total`` to stderr; None shows it only when
            stderr is a terminal.
        run_options: the run options as one `ek.harness.RunOptions` value, instead of
            the keywords ``persist`` to ``progress`` (passing both is refused).

    The run options (``persist`` to ``progress``) follow the one rule of
    every ek runner (`ek.harness.evaluate_store`, `ek.agents.run_suite`).

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
    options = run_options_of(_WHO, locals())
    items = _checked_items(gold, metric, normalize, (image_key, reference_key, slice_key), options.persist)
    read, engine_name = bind_engine(engine, _WHO)
    task = OcrTask(read, metric, {"normalize": normalize, "grammar": grammar}, _WHO, engine_name=engine_name)
    check_executor(options.executor, _WHO, task.parts("engine"))
    workers = options.max_workers
    with thread_pool(workers) as pool, one_thread_per_engine(engine_name, workers > 1 or options.executor is not None):
        plan = options.plan(f"evaluate_ocr[{engine_name}]", unit="images", executor=pool)
        report = run_scored("ocr", task, items, options, plan=plan)
    return with_confusions(report)


def benchmark_fleet(
    engines: Fleet,
    gold: Mapping[_K, Mapping[str, object]],
    *,
    metric: str = "cer",
    normalize: Steps | None = None,
    grammar: GraphGrammar | None = None,
    level: float = 0.95,
    image_key: str = "image",
    reference_key: str = "reference_text",
    slice_key: str = "slice",
    kind_key: str | None = "kind",
    strict: bool = False,
    consensus: bool = True,
    check_images: bool | None = None,
    persist: bool = False,
    run_id: str | None = None,
    rootdir: str | os.PathLike[str] | None = None,
    resume: bool = True,
    max_workers: int | None = None,
    timeout: float | None = None,
    executor: Executor | None = None,
    progress: bool | None = None,
    run_options: RunOptions | None = None,
) -> FleetReport:
    """Run a fleet of OCR engines over one gold corpus and rank them, each paired with the best (see `FleetReport`).

    Every engine reads every gold image through the run engine, exactly as
    `evaluate_ocr` reads them for one engine, and is scored the same way
    (CER by default, a corpus rate; lower is better). The engines are then
    ranked, and each is compared with the best by ``ek.compare(best,
    engine)``: the paired difference on the same pages with its interval,
    p-value and verdict, overall and per slice. Below 40 pages ek gives no
    interval (NaN) and says "too few items (n=K) to tell" where a handful of
    pages cannot show a difference; the report keeps that as given. With two
    engines or more, the ROVER consensus of the fleet (`ek.qe.rover`, the
    engines' word confidences breaking ties) is scored like one more engine:
    does combining them beat the best one? A fleet of one engine is a report
    without comparisons.

    Args:
        engines: an ocracy id (``"tesseract"``, ``"tesseract:lang=deu,psm=6"``),
            an ``image -> OcrResult`` callable, a sequence of those, or a
            mapping name -> id, callable or ``(id, {options})`` (see
            `ek.ocr.engine_specs`).
        gold: a mapping ``key -> {image, reference_text, slice, kind, ...}``,
            as for `evaluate_ocr`; ``kind`` (``"line"`` or ``"page"``) sends
            a line image to an engine's line mode.
        metric, normalize, grammar, image_key, reference_key, slice_key,
            rootdir, resume, progress, run_options: as for `evaluate_ocr`.
        level: the confidence level of every interval and comparison.
        persist: store each engine's run (kind ``fleet``, under
            ``<run_id>.<engine name>``; implied by ``run_id``); calling again
            with the same ``run_id`` reads only what is not stored yet,
            engine by engine.
        run_id: the fleet run's name; a stored fleet without one gets a new
            one from the clock, a fleet not stored has none.
        max_workers: how many pages are read at once, over all engines
            (None or 1: one engine after the other, one page at a time).
            Every engine then runs at once, each handing its pages to one
            pool, so a slow engine gets every worker once a fast one is done:
            ocracy engines to a pool of worker processes, each engine held to
            one thread per page there (``OMP_THREAD_LIMIT=1``, unless set, as
            for Tesseract; RapidOCR honours it too), so the engines share the
            cores; engines given as callables to a pool of threads (such an
            engine must then be thread-safe). The readings are the same
            either way. The worker processes are spawned, so a script that
            calls this with ``max_workers`` > 1 keeps its own work under
            ``if __name__ == "__main__":``, as for any process pool.
        kind_key: the record field giving a page's kind (None: never read).
        executor: a ``concurrent.futures.Executor`` the engines read their
            pages on, in chunks, all engines at once (in place of the pool
            of ``max_workers``).
        timeout: seconds an engine may take on one page; a page past it is
            that engine's error (recorded as timed out).
        strict: an engine that is not installed or not configured raises
            ImportError instead of being left out (with a warning).
        consensus: build the ROVER consensus row.
        check_images: look at every image path and byte string before any
            engine runs; one that is missing or cannot be decoded is listed
            in ``FleetReport.unreadable`` and is an error for every engine
            (none is asked to read it). None (default) checks when an engine
            of the fleet is an ocracy id (those read files); a fleet of
            callables gets its images as given.

    Returns:
        A `FleetReport`.

    Raises:
        KeyError: an engine id ocracy does not know (with a did-you-mean).
        ValueError, TypeError: bad gold, engines or options (checked before
            any engine runs).
        ImportError: with ``strict``, an engine that cannot run here.
        RuntimeError: no engine of the fleet could read the corpus, or its
            worker processes died (a script calling the fleet must do so under
            ``if __name__ == "__main__":``, since each worker imports it).
    """
    from ek.ocr._fleet.engines import engine_specs
    from ek.ocr._fleet.run import run_fleet

    specs = engine_specs(engines)
    if consensus and len(specs) > 1 and CONSENSUS in {spec.name for spec in specs}:
        raise ValueError(
            f"benchmark_fleet() engine name {CONSENSUS!r} is the name of the ROVER consensus row; "
            "name the engine otherwise, or pass consensus=False."
        )
    _check_fleet_options(metric, normalize, level)
    options = run_options_of("benchmark_fleet", locals())
    if options.persist and options.run_id is None:  # one id names every engine's run
        options = dataclasses.replace(options, run_id=new_run_id())
    settings = FleetSettings(
        metric=metric,
        normalize=normalize,
        grammar=grammar,
        level=float(level),
        image_key=image_key,
        reference_key=reference_key,
        slice_key=slice_key,
        kind_key=kind_key,
        strict=strict,
        consensus=consensus,
        check_images=check_images,
        run=options,
    )
    return run_fleet(specs, gold, settings)


def _checked_items(
    gold: Mapping[Any, Mapping[str, Any]],
    metric: str,
    normalize: Steps | None,
    keys: tuple[str, str, str],
    fingerprints: bool,
) -> list[Any]:
    """The gold corpus's items, with the metric and normalizer checked before the engine reads anything."""
    image_key, reference_key, slice_key = keys
    items = gold_items(
        with_file_references(gold, reference_key),
        ((image_key, "image_key"), (reference_key, "reference_key"), slice_key),
        _WHO,
        fingerprints=fingerprints,
        check=check_reference(reference_key),
    )
    if not items:
        raise ValueError(
            "evaluate_ocr() got an empty gold corpus, so there is nothing to benchmark; add "
            "items with add_gold_item() (check rootdir / EK_DATA_HOME) or pass a non-empty dict."
        )
    if isinstance(metric, str):
        get("metrics", metric)  # an unknown name fails now, not after the engine has run
    resolve_canonicalizer(normalize)
    return items


def add_gold_item(
    key: str,
    image: str | os.PathLike[str],
    reference_text: str,
    *,
    slice: str | None = None,
    rootdir: str | None = None,
    **extra: object,
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
        raise TypeError(f"add_gold_item({key!r}) image must be a path or URL string, got {type_name(image)}.")
    if not isinstance(reference_text, str):
        raise TypeError(
            f"add_gold_item({key!r}) reference_text must be the transcription as a str, "
            f"got {type_name(reference_text)}."
        )
    record = {"image": image, "reference_text": reference_text, "slice": slice, **extra}
    json_store("gold", rootdir=rootdir)[key] = record


# ---------------------------------------------------------------------------


def _check_fleet_options(metric: Any, normalize: Any, level: Any) -> None:
    """Refuse a bad option of `benchmark_fleet` before any engine runs."""
    if isinstance(metric, str):
        get("metrics", metric)
    resolve_canonicalizer(normalize)
    check_level(level, "benchmark_fleet()")


rehome(globals())  # FleetReport and EngineResult report this documented home
