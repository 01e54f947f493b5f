"""Run the items of a run: reuse what is stored, run the rest, write finished ones as they come.

An adapter describes the work as a `Task` (a picklable object, see there):
``step`` runs one item, ``finish`` scores or grades a batch, ``failed``
records an item whose step raised and ``check`` refuses a damaged stored
entry. Entries are dicts with an ``"error"`` (None, or ``"Type: message"``),
each kind's a TypedDict of its own. Work runs as the `Plan` says, in one of
three ways, all giving the same entries in input order: serially in chunks;
with several workers, a timeout or an event loop (`Calls`), one call at a
time on threads or a loop (`ek._runs._calls`); or on any
``concurrent.futures.Executor``, in chunks sized to take about a quarter of
a second, each chunk stepped *and* finished in the worker.

A persisted run writes finished items as one chunk when a second has
passed since the last, at `CHUNK_ITEMS` items, and when the run ends or
raises, so a hard kill loses at most about a second of work.
"""

from __future__ import annotations

import concurrent.futures
import functools
import math
import os
import pickle
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Executor
from typing import Any, Protocol

from ek import _json
from ek._runs import _values  # noqa: F401 - registers how NodePath and Score are stored
from ek._runs._calls import run_calls
from ek._runs._options import Calls, Plan, RunOptions
from ek._runs._records import RunStore, check_run_id, digest, new_run_id
from ek._util import Progress, type_name

__all__ = [
    "CHUNK_ITEMS",
    "FLUSH_SECONDS",
    "Done",
    "Entry",
    "Finished",
    "Item",
    "Run",
    "Task",
    "describe",
    "execute",
    "open_run",
    "start_run",
]

CHUNK_ITEMS = 1000
"""Most items run (and held back from the store) in one chunk."""

FLUSH_SECONDS = 1.0
"""Longest time finished items wait before they are written."""

_TARGET_SECONDS = 0.25  # what one chunk sent to an executor should take

Entry = Mapping[str, Any]
"""One item's record: a kind's own TypedDict, with an ``"error"`` (None, or ``"Type: message"``)."""

Item = tuple[Any, Any, str | None]
"""``(key, payload, fingerprint)``: the item's key, what `Task.step` gets, and the fingerprint of its gold."""

Done = tuple[Any, Any, float]
"""``(payload, value, seconds)``: an item whose step returned ``value`` after ``seconds``."""

Finished = tuple[Sequence[Entry], BaseException | None]
"""What `Task.finish` returns: the entries of a batch, and the exception that stopped it early (or None)."""


class Task(Protocol):
    """How one kind of run runs an item and scores a batch (run in this process or in a worker).

    ``per_item``: finish each item at once (so a failing grader stops the run
    at the first trial). ``unsettled``: a setting is only known once the first
    batch is scored (a metric chosen by type); ``learned`` then holds it, for
    the run header, until the engine records it and sets it back to None.
    """

    per_item: bool
    unsettled: bool
    learned: dict[str, Any] | None

    def step(self, payload: Any) -> Any:
        """The expensive, fallible part of one item (predict, read an image, call an agent); raising fails it."""

    def finish(self, batch: Sequence[Done]) -> Finished:
        """Score or grade a batch; it may stop early, with the entries of the items before the one that stopped it."""

    def failed(self, payload: Any, exc: BaseException, seconds: float) -> Entry:
        """The entry of an item whose step raised ``exc``."""

    def check(self, entry: Mapping[str, Any]) -> None:
        """Raise ValueError, TypeError or KeyError saying what is wrong with a stored entry."""


class Run:
    """One run's identity and settings, and its store when persisted.

    Once `execute` is done, ``resumed`` says what a stored run took from
    earlier calls: ``{"reused": items taken from the store, "read": items run
    now}`` (None for a run not stored, or before `execute`); `close` records
    it in the run's header.
    """

    def __init__(
        self, kind: str, who: str, run_id: str | None, store: RunStore | None, settings: dict[str, Any]
    ) -> None:
        self.kind, self.who, self.run_id, self.store, self.settings = kind, who, run_id, store, settings
        self.resumed: dict[str, int] | None = None

    def learn(self, task: Task) -> None:
        """Record the settings ``task`` learned from its first scored batch."""
        learned = task.learned
        if learned:
            task.learned = None
            self.settings.update(learned)
            if self.store is not None:
                self.store.update(settings=dict(self.settings))

    def close(self, summary: dict[str, Any]) -> None:
        """Record the summary, mark the run complete, and release its lock."""
        if self.store is not None:
            self.store.close(summary, resumed=self.resumed)

    def release(self) -> None:
        """Release the run's lock without completing it (the run failed)."""
        if self.store is not None:
            self.store.release()


def open_run(
    kind: str,
    *,
    who: str,
    persist: bool,
    run_id: str | None,
    rootdir: Any,
    settings: dict[str, Any],
    resume: bool,
    n_items: int,
    inherit: tuple[str, ...] = (),
    lock: Any = None,
) -> Run:
    """Start a run: in memory, or in the stores, checked against what a stored one used.

    ``run_id`` is a checked one (`ek._runs.run_options`); a persisted run
    without one gets a new one (`new_run_id`), an unpersisted run has none.
    ``inherit`` names the settings a resume may leave as None to use the
    stored value. A persisted run holds its lock (`ek._runs._lock`) until
    `Run.close`, or until `execute` fails; ``lock`` is one the caller took
    earlier (`run_lock`), which the run then holds and releases.

    Raises:
        BlockingIOError: another process is writing the run ``run_id``.
    """
    if not persist:
        return Run(kind, who, None, None, dict(settings))
    run_id = new_run_id() if run_id is None else check_run_id(run_id, who)
    store = RunStore(kind, run_id, rootdir, who, lock)
    return Run(kind, who, run_id, store, store.open(settings, resume=resume, n_items=n_items, inherit=inherit))


def start_run(
    kind: str,
    options: RunOptions,
    *,
    who: str,
    settings: Callable[[], dict[str, Any]],
    n_items: int,
    inherit: tuple[str, ...] = (),
) -> Run:
    """`open_run` as a runner's checked ``options`` say; ``settings()`` is only called for a stored run."""
    return open_run(
        kind,
        who=who,
        persist=options.persist,
        run_id=options.run_id,
        rootdir=options.rootdir,
        settings=settings() if options.persist else {},
        resume=options.resume,
        n_items=n_items,
        inherit=inherit,
    )


def describe(exc: BaseException) -> str:
    """How an item's error is recorded."""
    return f"{type(exc).__name__}: {exc}"


def execute(run: Run, task: Task, items: Sequence[Item], plan: Plan) -> list[Any]:
    """The entry of every ``(key, payload, fingerprint)`` item, in order.

    A persisted run reuses each stored entry whose fingerprint still matches
    (and, with ``plan.retry_failed``, that did not fail) and runs the others,
    and says how many of each in ``run.resumed``; if this raises, the run's
    lock is released (what finished is stored).
    """
    try:
        return _execute(run, task, items, plan)
    except BaseException:
        run.release()
        raise


# ---------------------------------------------------------------------------


def _execute(run: Run, task: Task, items: Sequence[Item], plan: Plan) -> list[Any]:
    sink = _Sink(run, task, items, plan.retry_failed)
    pending = [i for i, entry in enumerate(sink.results) if entry is None]
    if run.store is not None:
        run.resumed = {"reused": sink.reused, "read": len(pending)}
    sink.bar = Progress(len(items), label=plan.label, unit=plan.unit, enabled=plan.progress, reused=sink.reused)
    payloads = [item[1] for item in items]
    try:
        if not pending:
            pass
        elif plan.executor is not None:
            _on_executor(run, task, pending, payloads, sink, plan)
        elif not plan.calls.one_by_one:
            _drive(
                task,
                [payloads[i] for i in pending],
                plan.errors,
                plan.calls,
                lambda pos, entry: sink.add(pending[pos], entry),
            )
        else:
            _serially(run, task, pending, payloads, sink, plan.errors)
    finally:
        try:
            sink.flush()
        finally:
            sink.bar.close()
    return sink.results


class _Sink:
    """Collects entries in input order, counts them, and writes them in chunks."""

    def __init__(self, run: Run, task: Task, items: Sequence[Item], retry_failed: bool) -> None:
        self.run, self.store, self.items = run, run.store, items
        self.results: list[Any] = [None] * len(items)
        self.ids = [digest(repr(item[0])) for item in items] if self.store is not None else []
        self.buffer: dict[str, Any] = {}
        self.last = time.monotonic()
        self.reused = self.errors = 0
        self.bar: Any = None
        if self.store is not None:
            self._reuse(self.store, task, retry_failed)
        self.done = self.reused

    def _reuse(self, store: RunStore, task: Task, retry_failed: bool) -> None:
        saved = store.saved()
        for i, item_id in enumerate(self.ids):
            entry = saved.get(item_id)
            if entry is None or entry.pop("fingerprint", None) != self.items[i][2]:
                continue
            entry.pop("key", None)
            try:
                if not isinstance(entry.get("error"), (str, type(None))):
                    raise ValueError(f"its error is {type_name(entry.get('error'))}, not a str or None")
                task.check(entry)
            except (ValueError, TypeError, KeyError) as exc:
                raise ValueError(
                    f"{store.where(item_id)} holds a damaged {self.run.kind} record for item "
                    f"{self.items[i][0]!r}: {exc}. Delete the file to run its items again, or pass "
                    "resume=False to start the run over."
                ) from None
            if retry_failed and entry["error"] is not None:
                continue
            self.results[i] = entry
            self.reused += 1
            self.errors += entry["error"] is not None

    def add(self, i: int, entry: Entry, *, show: bool = True) -> None:
        if self.store is not None:
            entry = self._buffer(i, entry)
        self.results[i] = entry
        self.done += 1
        if entry["error"] is not None:
            self.errors += 1
        if show:
            self.bar.update(self.done, self.errors)
        if self.store is not None and (
            len(self.buffer) >= CHUNK_ITEMS or time.monotonic() - self.last >= FLUSH_SECONDS
        ):
            self.flush()

    def add_all(self, pairs: Sequence[tuple[int, Entry]]) -> None:
        """`add` each ``(index, entry)``, the progress bar being up to date already."""
        if self.store is not None:
            for i, entry in pairs:
                self.add(i, entry, show=False)
            return
        results = self.results
        for i, entry in pairs:
            results[i] = entry
            self.errors += entry["error"] is not None
        self.done += len(pairs)

    def _buffer(self, i: int, entry: Entry) -> Entry:
        """Queue the stored form of ``entry``; return the entry as a resumed run will read it."""
        key, _, fingerprint = self.items[i]
        before = _json.fallbacks()
        try:
            coded = _json.encode(entry)
        except TypeError as exc:
            self.flush()
            raise TypeError(
                f"{exc}, so {self.run.who} cannot persist the run (item {key!r}); run it with "
                "persist=False, or keep plain values (numbers, strings, lists, dicts) in that detail."
            ) from None
        self.buffer[self.ids[i]] = {**coded, "key": _json.encode(key), "fingerprint": fingerprint}
        revived: Entry = _json.decode(coded) if _json.fallbacks() != before else entry
        return revived

    def flush(self) -> None:
        self.last = time.monotonic()
        if self.store is not None and self.buffer:
            batch, self.buffer = self.buffer, {}
            self.store.write(batch)


Placed = list[tuple[int, Entry]]  # entries with their positions in the batch they came from


def _serially(run: Run, task: Task, pending: list[int], payloads: list[Any], sink: _Sink, errors: str) -> None:
    """Chunks in this process: a chunk ends at `CHUNK_ITEMS` items or, when persisting, after a second."""
    pos = 0
    while pos < len(pending):
        chunk = pending[pos : pos + CHUNK_ITEMS]
        deadline = time.monotonic() + FLUSH_SECONDS if sink.store is not None else None
        tick = functools.partial(_tick, sink.bar, sink.done, sink.errors)

        consumed, out, exc = _process(
            task, [payloads[i] for i in chunk], errors, deadline, tick if sink.bar.enabled else None
        )
        sink.add_all([(chunk[j], entry) for j, entry in out])
        run.learn(task)
        if exc is not None:
            raise exc
        pos += consumed


def _tick(bar: Any, done: int, errors: int, n: int, failed: int) -> None:
    """Show ``n`` more items done (``failed`` of them failed) after ``done`` and ``errors`` so far."""
    bar.update(done + n, errors + failed)


def _process(
    task: Task,
    payloads: list[Any],
    errors: str,
    deadline: float | None = None,
    tick: Callable[[int, int], None] | None = None,
) -> tuple[int, Placed, BaseException | None]:
    """Step then finish ``payloads``: ``(items consumed, [(position, entry)], exception or None)``."""
    out: Placed = []
    done: list[tuple[int, Any, Any, float]] = []
    exc: BaseException | None = None
    step, per_item, clock = task.step, task.per_item, time.perf_counter
    n = failed = 0
    try:
        for pos, payload in enumerate(payloads):
            t0 = clock()
            try:
                value = step(payload)
            except Exception as error:
                if errors == "raise":
                    exc = error
                    break
                out.append((pos, task.failed(payload, error, clock() - t0)))
                failed += 1
            else:
                if per_item:  # finished at once, so a grader that stops the run stops it here
                    entries, stop = task.finish([(payload, value, clock() - t0)])
                    out.append((pos, entries[0]))
                    if stop is not None:
                        raise stop
                else:
                    done.append((pos, payload, value, clock() - t0))
            n += 1
            if tick is not None:
                tick(n, failed)
            if deadline is not None and time.monotonic() >= deadline:
                break
    except BaseException as error:  # Ctrl-C during a step, or a grader that stops the run
        exc = error
    if done:
        try:
            _finish(task, done, out)
        except BaseException as error:
            exc = exc or error
    return n, out, exc


def _finish(task: Task, done: list[tuple[int, Any, Any, float]], out: Placed) -> None:
    entries, exc = task.finish([d[1:] for d in done])
    out.extend(zip([d[0] for d in done], entries))
    if exc is not None:
        raise exc


def _drive(task: Task, payloads: list[Any], errors: str, calls: Calls, emit: Callable[[int, Entry], None]) -> None:
    """One call at a time on threads or an event loop, each finished as it completes."""

    def on_done(pos: int, outcome: tuple[Any, Any, float]) -> None:
        ok, value, wall = outcome
        if not ok:
            if errors == "raise":
                raise value
            emit(pos, task.failed(payloads[pos], value, wall))
            return
        entries, exc = task.finish([(payloads[pos], value, wall)])
        if exc is not None:
            raise exc
        emit(pos, entries[0])

    run_calls(
        lambda pos: task.step(payloads[pos]),
        range(len(payloads)),
        is_async=calls.is_async,
        max_workers=calls.workers,
        timeout=calls.timeout,
        on_done=on_done,
    )


def _parallelism(executor: Executor) -> int:
    """How many chunks ``executor`` runs at once: a pool's size, a Dask cluster's threads, else the cores here."""
    n = getattr(executor, "_max_workers", None)
    client = getattr(executor, "_client", None)  # a Dask client's get_executor()
    if n is None and client is not None:
        try:
            n = sum(client.nthreads().values())
        except Exception:  # a client that cannot say: fall back to this machine's cores
            n = None
    return int(n or os.cpu_count() or 1)


def _chunk_job(
    task: Task, payloads: list[Any], errors: str, calls: Calls
) -> tuple[Placed, BaseException | None, float]:
    """What an executor's worker runs: ``([(position, entry)], exception or None, seconds)``."""
    t0 = time.perf_counter()
    exc: BaseException | None
    if calls.timeout is not None or calls.is_async:
        out: Placed = []
        exc = None
        try:
            _drive(task, payloads, errors, Calls(1, calls.timeout, calls.is_async), lambda pos, e: out.append((pos, e)))
        except Exception as error:
            exc = error
    else:
        _, out, exc = _process(task, payloads, errors)
    if exc is not None:
        try:
            pickle.dumps(exc)
        except Exception:
            exc = RuntimeError(describe(exc))
    return out, exc, time.perf_counter() - t0


def _on_executor(run: Run, task: Task, pending: list[int], payloads: list[Any], sink: _Sink, plan: Plan) -> None:
    """Chunks on the plan's executor, a bounded number in flight, sized from the time the last ones took."""
    executor, errors = plan.executor, plan.errors
    assert executor is not None
    while pending and task.unsettled:  # learn the setting here, then fan out
        _, out, exc = _process(task, [payloads[pending[0]]], errors)
        for _, entry in out:
            sink.add(pending[0], entry)
        run.learn(task)
        if exc is not None:
            raise exc
        pending = pending[1:]
    workers = _parallelism(executor)
    in_flight: dict[concurrent.futures.Future[Any], list[int]] = {}
    pos, per_item = 0, None
    try:
        while pos < len(pending) or in_flight:
            while pos < len(pending) and len(in_flight) < 2 * workers:
                left = len(pending) - pos
                size = 1 if per_item is None else int(_TARGET_SECONDS / max(per_item, 1e-7))
                size = max(1, min(size, CHUNK_ITEMS, math.ceil(left / (2 * workers))))
                chunk = pending[pos : pos + size]
                pos += size
                future = executor.submit(_chunk_job, task, [payloads[i] for i in chunk], errors, plan.calls)
                in_flight[future] = chunk
            finished, _ = concurrent.futures.wait(in_flight, return_when=concurrent.futures.FIRST_COMPLETED)
            for future in finished:
                chunk = in_flight.pop(future)
                out, exc, seconds = future.result()
                per_item = seconds / len(chunk)
                for j, entry in out:
                    sink.add(chunk[j], entry)
                if exc is not None:
                    raise exc
    finally:
        for future in in_flight:
            future.cancel()
