"""Run a fleet of OCR engines over one gold corpus: each engine one run of the run engine, side by side.

`run_fleet` is `ek.ocr.benchmark_fleet` once its arguments are checked.
Each engine reads every gold image in a run of its own (`ek._runs`, kind
``fleet``, run id ``<run_id>.<engine name>``), so a persisted fleet that
dies resumes engine by engine where it stopped, and ``max_workers`` engines
read at once (their calls release the GIL: Tesseract is a subprocess,
RapidOCR runs in onnxruntime). A page whose image cannot be read is found
before any engine runs and recorded as that page's error for every engine.
An engine that is not installed or not configured is left out, with the
install line, unless ``strict``; so is one that fails on every page. Each
engine that ran is asked once what it is (its version and model files,
`ek.ocr._fleet_versions`), and a stored run says how many pages it took
from earlier calls (``EngineResult.resumed``, from `ek._runs.Run.resumed`).
The engine run ids keep the engine's name as written (``tesseract:lang=frk``);
the run store turns them into safe file names (`ek._runs.store_key`).
"""

from __future__ import annotations

import dataclasses
import io
import os
import warnings
from collections.abc import Mapping
from typing import Any

from ek._runs import (
    DocumentEntry,
    Item,
    RunOptions,
    check_executor,
    digest,
    execute,
    fingerprint,
    gold_items,
    open_run,
    score_cases,
    scored_report,
)
from ek.canonicalize import resolve_canonicalizer
from ek.ocr._fleet_parts import blocks_of, consensus_texts, engine_parts
from ek.ocr._fleet_report import CONSENSUS, FleetReport, build_fleet_report
from ek.ocr._fleet_versions import engine_versions
from ek.ocr._ocr_run import (
    OcrTask,
    check_reference,
    engine_label,
    engine_settings,
    one_thread_per_engine,
    thread_pool,
    with_confusions,
    with_file_references,
)

KIND = "fleet"
"""The run kind of a fleet's engine runs (``ek._runs``)."""

_WHO = "benchmark_fleet"
_RUN_ID_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:=,+")


def run_fleet(
    specs: tuple[Any, ...], gold: Mapping[Any, Any], fields: tuple[Any, ...], settings: dict[str, Any]
) -> FleetReport:
    """Run every engine of ``specs`` over ``gold`` and build the report (arguments checked by the caller).

    ``fields`` are the gold record's ``(image, reference, slice, kind)`` field
    names; ``settings`` holds the other keyword arguments of `benchmark_fleet`.
    """
    image_key, reference_key, slice_key, kind_key = fields
    gold = with_file_references(gold, reference_key)
    items = gold_items(
        gold,
        ((image_key, "image_key"), (reference_key, "reference_key"), slice_key),
        _WHO,
        fingerprints=False,
        check=check_reference(reference_key),
    )
    if not items:
        raise ValueError(
            f"{_WHO}() got an empty gold corpus, so there is nothing to benchmark; pass a mapping "
            "key -> {image, reference_text, ...} with at least one record."
        )
    items = _with_kinds(items, gold, kind_key, settings["options"].persist)
    ready, skipped = _ready(specs, settings["strict"])
    check = settings["check_images"]
    if check is None:  # ocracy engines read files; a callable may take any key for an image
        check = any(isinstance(spec.engine, str) for spec in ready)
    unreadable = {
        key: problem for key, payload, _ in items if check and (problem := image_problem(payload[1][0])) is not None
    }
    versions = engine_versions(ready)  # once per run, before any page: each stored run records its engine's
    runs, failed = _run_engines(ready, items, unreadable, {**settings, "versions": versions})
    skipped.update(failed)
    if not runs:
        raise RuntimeError(  # no function name: the command line prints this as it is
            "no engine of the fleet could read the corpus: "
            + "; ".join(f"{name}: {why}" for name, why in skipped.items())
        )
    canon = resolve_canonicalizer(settings["normalize"])
    scored = {
        name: (
            engine,
            report,
            {**engine_parts(report.detail["per_item"], canon), "resumed": resumed, "version": versions[name]},
        )
        for name, (engine, report, resumed) in runs.items()
    }
    texts: dict[str, Any] = {}
    consensus = None
    if settings["consensus"] and len(runs) >= 2:
        texts = consensus_texts([k for k, _, _ in items], [r.detail["per_item"] for _, r, _ in runs.values()])
        report = _consensus_report(items, texts, settings)
        consensus = (report, engine_parts(report.detail["per_item"], canon))
    return build_fleet_report(
        scored,
        consensus,
        metric=settings["metric"],
        level=settings["level"],
        n_items=len(items),
        unreadable=unreadable,
        skipped=skipped,
        consensus_texts=texts,
        run_id=settings["options"].run_id,
    )


def image_problem(image: Any) -> str | None:
    """Why ``image`` cannot be read (a missing file, a folder, bytes no image decoder knows), or None.

    Paths and bytes are checked (Pillow, when installed, decodes the header
    and verifies the data); URLs, in-memory images and arrays are left to
    the engines.
    """
    if isinstance(image, (str, os.PathLike)):
        path = os.fspath(image)
        if isinstance(path, str) and path.lower().startswith(("http://", "https://")):
            return None
        if not os.path.exists(path):
            return (
                f"image file {path!r} does not exist (relative paths are read from {os.getcwd()!r}); fix the "
                "path in the gold record"
            )
        if os.path.isdir(path):
            return f"image path {path!r} is a folder; the gold record must name one image file"
        source: Any = path
    elif isinstance(image, (bytes, bytearray)):
        source = io.BytesIO(bytes(image))
    else:
        return None
    try:
        from PIL import Image
    except ImportError:
        return None
    try:
        with Image.open(source) as opened:
            opened.verify()
    except Exception as exc:  # Pillow raises many kinds for a bad file
        what = f"image file {path!r}" if isinstance(source, str) else f"the {len(image)} image bytes"
        return f"{what} cannot be read as an image ({type(exc).__name__}: {exc}); check that it is a PNG, JPEG or TIFF"
    return None


def engine_run_id(run_id: str, name: str) -> str:
    """The run id of engine ``name`` in the fleet run ``run_id`` (names other than plain ids are hashed)."""
    if name and all(ch in _RUN_ID_CHARS for ch in name) and not name.startswith("."):
        return f"{run_id}.{name}"
    safe = "".join(ch if ch in _RUN_ID_CHARS else "_" for ch in name)[:40]
    return f"{run_id}.{safe}-{digest(name)[:8]}"


# ---------------------------------------------------------------------------


class FleetTask(OcrTask):
    """`OcrTask` for one engine of a fleet: a page's kind goes to the engine, its blocks are kept."""

    def __init__(
        self, call: Any, metric: Any, options: dict[str, Any], unreadable: Mapping[str, str], timeout: float | None
    ) -> None:
        super().__init__(call, metric, options, _WHO, "record")
        self.unreadable, self.timeout = dict(unreadable), timeout

    def step(self, payload: tuple[Any, ...]) -> Any:
        key, (image, kind) = payload[0], payload[1]
        problem = self.unreadable.get(key)
        if problem is not None:
            raise ValueError(problem)
        return self.call(image) if kind is None else self.call(image, kind=kind)

    def extra(self, value: Any, seconds: float) -> dict[str, Any]:
        return {**super().extra(value, seconds), "blocks": None if value is None else blocks_of(value)}

    def failed(self, payload: Any, exc: BaseException, seconds: float) -> DocumentEntry:
        timed_out = isinstance(exc, TimeoutError) and self.timeout is not None and seconds >= self.timeout
        if timed_out:
            exc = TimeoutError(
                f"the engine did not read the image within timeout={self.timeout:g} s; raise the "
                "timeout (--timeout on the command line) or give the engine a smaller image"
            )
        entry = super().failed(payload, exc, seconds)
        entry["timed_out"] = timed_out  # type: ignore[typeddict-unknown-key]  # a fleet page's own field
        return entry

    def check(self, entry: Mapping[str, Any]) -> None:
        super().check(entry)
        blocks = entry.get("blocks")
        if blocks is not None and not (
            isinstance(blocks, list)
            and all(isinstance(b, list) and len(b) == 3 and isinstance(b[0], str) for b in blocks)
        ):
            raise ValueError(f"its blocks are {blocks!r:.60}, not a list of [text, confidence, level]")


def _with_kinds(items: list[Any], gold: Mapping[Any, Any], kind_key: str | None, persist: bool) -> list[Any]:
    """Each item's input as ``(image, kind)``: the record's ``kind_key`` field ("line" or "page"), else None."""
    out = []
    for key, (k, image, reference, label), _ in items:
        kind = gold[key].get(kind_key) if kind_key else None
        if kind is not None and kind not in ("line", "page"):
            raise ValueError(
                f"gold record {key!r} field {kind_key!r} is {kind!r}; it must be 'line' or 'page' "
                "(or absent, for the engine to tell by the image's size)."
            )
        page = (image, kind)
        out.append(
            (key, (k, page, reference, label), fingerprint((image, reference, label, kind)) if persist else None)
        )
    return out


def _ready(specs: tuple[Any, ...], strict: bool) -> tuple[list[Any], dict[str, Any]]:
    """The specs that can run here, and ``name -> why not`` for the others (``strict``: ImportError)."""
    from ek.ocr._engines import check_engine

    ready, skipped = [], {}
    for spec in specs:
        if callable(spec.engine):
            ready.append(spec)
            continue
        status = check_engine(spec.engine)
        if status["ok"]:
            ready.append(spec)
        elif strict:
            raise ImportError(f"{_WHO}(strict=True): engine {spec.name!r} is {status['state']}: {status['hint']}")
        else:
            skipped[spec.name] = f"{status['state']}: {status['hint']}"
    if skipped:
        warnings.warn(
            f"{_WHO}: {len(skipped)} engine(s) left out: "
            + "; ".join(f"{name} ({why})" for name, why in skipped.items()),
            stacklevel=4,
        )
    return ready, skipped


def _run_engines(
    specs: list[Any], items: list[Any], unreadable: Mapping[str, str], settings: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(name -> (engine id, report, what its run reused), name -> why it failed)``.

    With ``max_workers`` N > 1 (or an ``executor``) every engine runs at once,
    each handing its pages in chunks to one pool of N threads (or to the
    executor), so N pages are read at any time, whichever engines they are
    for: a slow engine gets every thread once a fast one is done.
    """
    from ek.ocr._fleet_engines import fleet_engine

    bound = [(spec, fleet_engine(spec)) for spec in specs]
    options: RunOptions = settings["options"]
    check_executor(
        options.executor, _WHO, {**{f"engine {s.name!r}": read for s, read in bound}, "metric": settings["metric"]}
    )
    workers = options.max_workers
    together = options.executor is not None or (workers > 1 and len(items) > 1)
    ids = [spec.engine for spec in specs if isinstance(spec.engine, str)]
    progress = bool(options.progress) if together and len(bound) > 1 else options.progress  # one bar at once
    with (
        thread_pool(workers if together and options.executor is None else 1, "ek-fleet") as pages,
        thread_pool(len(bound) if together else 1, "ek-fleet-engine") as engines,
        one_thread_per_engine(ids, together),
    ):
        run = {
            **settings,
            "options": dataclasses.replace(
                options, executor=options.executor or pages, max_workers=1, progress=progress
            ),
        }
        jobs = [(spec, read) for spec, read in bound]
        outcomes = (
            list(engines.map(lambda job: _run_one(job[0], job[1], items, unreadable, run), jobs))
            if engines
            else [_run_one(spec, read, items, unreadable, run) for spec, read in jobs]
        )
    runs, failed = {}, {}
    for (spec, _), (report, resumed, problem) in zip(jobs, outcomes):
        if problem is None:
            engine_id = spec.engine if isinstance(spec.engine, str) else engine_label(spec.engine)
            runs[spec.name] = (engine_id, report, resumed)
        else:
            failed[spec.name] = problem
    return runs, failed


def _run_one(
    spec: Any, read: Any, items: list[Item], unreadable: Mapping[str, str], settings: dict[str, Any]
) -> tuple[Any, Any, str | None]:
    """``(report, what the run reused, None)`` of one engine's run, or ``(None, None, why)`` when it read no page."""
    metric, normalize, grammar = settings["metric"], settings["normalize"], settings["grammar"]
    options: RunOptions = settings["options"]
    name = spec.name
    run_id = None if options.run_id is None else engine_run_id(options.run_id, name)
    engine_id = spec.engine if isinstance(spec.engine, str) else engine_label(spec.engine)
    stored = (
        {
            **engine_settings(read, engine_id, metric, normalize, grammar, _WHO),
            "options": repr(sorted(dict(spec.options).items())),
        }
        if options.persist
        else {}
    )
    run = open_run(
        KIND,
        who=_WHO,
        persist=options.persist,
        run_id=run_id,
        rootdir=options.rootdir,
        resume=options.resume,
        settings=stored,
        n_items=len(items),
    )
    task = FleetTask(read, metric, {"normalize": normalize, "grammar": grammar}, unreadable, options.timeout)
    task.engine_name = name
    entries = execute(run, task, items, options.plan(f"{_WHO}[{name}]", unit="images"))
    report, summary = scored_report(
        items,
        entries,
        label=metric if isinstance(metric, str) else None,
        metric=metric,
        who=_WHO,
        detail={"engine": name, "run_id": run.run_id},
    )
    run.close({"engine": name, "version": settings["versions"].get(name), **summary})
    if not report.n:
        failures = report.detail["errors"]
        first = next(iter(failures))
        return None, None, f"failed on all {len(items)} pages; first, {first!r}: {failures[first]}"
    return with_confusions(report), run.resumed, None


def _consensus_report(items: list[Any], texts: Mapping[str, str | None], settings: dict[str, Any]) -> Any:
    """The ROVER consensus scored like one more engine: a report over the pages it has a text for."""
    metric = settings["metric"]
    options = {"normalize": settings["normalize"], "grammar": settings["grammar"]}
    keys = [key for key, _, _ in items if texts.get(key) is not None]
    by_key = {key: payload for key, payload, _ in items}
    cases = [(texts[key], by_key[key][2]) for key in keys]
    scores, _, error = score_cases(cases, keys, metric=metric, options=options, who=_WHO)
    if error is not None:
        raise error
    scored = dict(zip(keys, scores))
    entries = []
    for key, payload, _ in items:
        entry = {
            "prediction": texts.get(key),
            "reference": payload[2],
            "slice": payload[3],
            "score": scored.get(key),
            "error": None,
            "confidence": None,
            "seconds": None,
            "blocks": None,
            "backend": CONSENSUS,
        }
        if key not in scored:
            entry["error"] = "ValueError: no engine read this page, so there is no consensus"
        entries.append(entry)
    report, _ = scored_report(
        items,
        entries,
        label=metric if isinstance(metric, str) else None,
        metric=metric,
        who=_WHO,
        detail={"engine": CONSENSUS, "run_id": None},
    )
    return with_confusions(report)
