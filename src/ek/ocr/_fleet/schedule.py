"""Run every engine of a fleet over its pages, so that no core idles while pages wait.

Each engine reads its pages in a run of its own (`ek._runs`, kind
``fleet``, run id ``<run_id>.<engine name>``), so a persisted fleet that
dies resumes engine by engine. With ``max_workers`` N > 1 every engine's
run goes at once, each handing its pages, in chunks, to one shared pool:

* the ocracy engines (Tesseract, RapidOCR, ...) to a pool of N *processes*
  (`process_pool`). Each worker binds the engine itself from its
  `EngineSpec` (`SpecReader`) and holds every engine to one thread per page
  (``OMP_THREAD_LIMIT=1``, as tesstrain runs Tesseract side by side; RapidOCR's
  ONNX sessions honour it too). A worker takes the next chunk whichever
  engine it is for, so a slow engine gets every core once a fast one is
  done. Processes, not threads: RapidOCR's Python glue holds the GIL, and
  ONNX Runtime's own thread pool spins against Tesseract, so on threads two
  engines took longer side by side than one after the other;
* engines given as callables to a pool of N threads (a callable need not
  pickle; it must then be thread-safe);
* an ``executor`` given by the caller takes every engine's chunks.

A task that does not pickle (a lambda as ``normalize``) runs on the threads.
The pages, their order and every reading are the same however they run:
the run engine puts each entry back in gold order.
"""

from __future__ import annotations

import contextlib
import dataclasses
import multiprocessing
import os
import pickle
from collections.abc import Iterator, Mapping
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

from ek._runs import Item, RunOptions, check_executor, digest, execute, open_run, scored_report
from ek._util import THREADS_VARIABLE
from ek.ocr._fleet.engines import EngineSpec
from ek.ocr._fleet.pages import WHO, FleetTask
from ek.ocr._fleet.settings import FleetSettings
from ek.ocr._ocr_run import engine_label, engine_settings, one_thread_per_engine, thread_pool, with_confusions

KIND = "fleet"
"""The run kind of a fleet's engine runs (``ek._runs``)."""

_RUN_ID_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:=,+")
_BOUND: dict[EngineSpec, Any] = {}  # a worker process's readers, bound on their first page


@dataclass(frozen=True)
class EngineRun:
    """What one engine's run gave: its report and what a stored run reused, or why it read no page."""

    spec: EngineSpec
    engine: str
    report: Any = None
    resumed: Mapping[str, int] | None = None
    problem: str | None = None


@dataclass(frozen=True)
class SpecReader:
    """An ocracy engine's reader that pickles as its spec: a worker process binds it on its first page."""

    spec: EngineSpec

    def __call__(self, image: Any, **kind: Any) -> Any:
        read = _BOUND.get(self.spec)
        if read is None:
            from ek.ocr._fleet.engines import fleet_engine

            read = _BOUND[self.spec] = fleet_engine(self.spec)
        return read(image, **kind)


def run_engines(
    specs: list[EngineSpec], items: list[Item], unreadable: Mapping[Any, str], settings: FleetSettings, versions: Any
) -> list[EngineRun]:
    """Every engine's `EngineRun`, in the order of ``specs`` (see the module docstring for how they run)."""
    from ek.ocr._fleet.engines import fleet_engine  # looked up here, so a test can stand fakes in

    bound = [(spec, fleet_engine(spec)) for spec in specs]
    options = settings.run
    check_executor(options.executor, WHO, {**{f"engine {s.name!r}": r for s, r in bound}, "metric": settings.metric})
    workers = options.max_workers
    together = options.executor is not None or (workers > 1 and len(items) > 1)
    spread = together and options.executor is None  # onto pools of our own
    # A bound ocracy engine knows its spec, which a worker binds again; a callable (a test's fake too) stays here.
    remote = {i for i, (s, r) in enumerate(bound) if isinstance(getattr(r, "spec", s).engine, str)}
    remote = remote if spread and _pickles(settings) else set()
    ids = [spec.engine for spec in specs if isinstance(spec.engine, str)]
    progress = bool(options.progress) if together and len(bound) > 1 else options.progress  # one bar at once
    with process_pool(workers if remote else 0) as processes:
        remote = remote if processes is not None else set()
        with (
            thread_pool(workers if spread and len(remote) < len(bound) else 1, "ek-fleet") as threads,
            thread_pool(len(bound) if together else 1, "ek-fleet-engine") as engines,
            one_thread_per_engine(ids, together),
        ):

            def one(i: int) -> EngineRun:
                spec, read = bound[i]
                pool = options.executor or (processes if i in remote else threads)
                task = _task(spec, SpecReader(spec) if i in remote else read, unreadable, settings)
                run = dataclasses.replace(options, executor=pool, max_workers=1, progress=progress)
                return _run_one(spec, read, task, items, run, versions)

            order = range(len(bound))
            return list(engines.map(one, order)) if engines else [one(i) for i in order]


def engine_run_id(run_id: str, name: str) -> str:
    """The run id of engine ``name`` in the fleet run ``run_id`` (names other than plain ids are hashed)."""
    if name and all(ch in _RUN_ID_CHARS for ch in name) and not name.startswith("."):
        return f"{run_id}.{name}"
    safe = "".join(ch if ch in _RUN_ID_CHARS else "_" for ch in name)[:40]
    return f"{run_id}.{safe}-{digest(name)[:8]}"


@contextlib.contextmanager
def process_pool(workers: int) -> Iterator[Executor | None]:
    """A pool of ``workers`` fresh worker processes, each held to one thread per engine call (None for 0).

    Spawned, not forked: a parent that already runs ONNX Runtime's threads
    cannot fork safely. A spawned worker imports the parent's main module,
    so a script keeps its work under ``if __name__ == "__main__":``. The pool is shut down (its workers reaped) on exit,
    so their CPU time shows in ``resource.getrusage(RUSAGE_CHILDREN)``.
    """
    if workers < 1:
        yield None
        return
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_one_thread) as pool:
        try:
            yield pool
        except BrokenProcessPool as exc:
            raise RuntimeError(_BROKEN) from exc


_BROKEN = (
    f"{WHO}()'s worker processes died before the engines' pages were read. Each worker is a fresh Python "
    "that imports your main module first: if that module calls the fleet when it is imported, the worker "
    'runs the fleet again and fails; put the call under `if __name__ == "__main__":`. Otherwise a worker '
    "was killed (out of memory?): pass max_workers=1 to read every page in this process."
)


# ---------------------------------------------------------------------------


def _one_thread() -> None:
    """A worker's start: one OpenMP / ONNX Runtime thread per call and one for ek's loops, unless the user set them."""
    os.environ.setdefault("OMP_THREAD_LIMIT", "1")
    os.environ.setdefault(THREADS_VARIABLE, "1")


def _task(spec: EngineSpec, read: Any, unreadable: Mapping[Any, str], settings: FleetSettings) -> FleetTask:
    task = FleetTask(read, settings.metric, settings.scoring, unreadable, settings.run.timeout)
    task.engine_name = spec.name
    return task


def _pickles(settings: FleetSettings) -> bool:
    """Whether an engine's task can go to a worker process (its reader aside, which the worker binds itself)."""
    try:
        pickle.dumps((settings.metric, settings.scoring))
    except Exception:  # anything pickle refuses: a lambda, a lock, a local class
        return False
    return True


def _run_one(
    spec: EngineSpec, read: Any, task: FleetTask, items: list[Item], options: RunOptions, versions: Any
) -> EngineRun:
    """One engine's run over the pages: its report, or why it read no page (``read``: as bound here)."""
    name = spec.name
    engine_id = spec.engine if isinstance(spec.engine, str) else engine_label(spec.engine)
    stored = {}
    if options.persist:
        metric, scoring = task.metric, task.options
        stored = {
            **engine_settings(read, engine_id, metric, scoring["normalize"], scoring["grammar"], WHO),
            "options": repr(sorted(dict(spec.options).items())),
        }
    run = open_run(
        KIND,
        who=WHO,
        persist=options.persist,
        run_id=None if options.run_id is None else engine_run_id(options.run_id, name),
        rootdir=options.rootdir,
        resume=options.resume,
        settings=stored,
        n_items=len(items),
    )
    entries = execute(run, task, items, options.plan(f"{WHO}[{name}]", unit="images"))
    metric = task.metric
    report, summary = scored_report(
        items,
        entries,
        label=metric if isinstance(metric, str) else None,
        metric=metric,
        who=WHO,
        detail={"engine": name, "run_id": run.run_id},
        scorer=task.scorer,
    )
    run.close({"engine": name, "version": versions.get(name), **summary})
    if not report.n:
        failures = report.detail["errors"]
        first = next(iter(failures))
        return EngineRun(
            spec, engine_id, problem=f"failed on all {len(items)} pages; first, {first!r}: {failures[first]}"
        )
    return EngineRun(spec, engine_id, with_confusions(report), run.resumed)
