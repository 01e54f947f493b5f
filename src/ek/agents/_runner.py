"""Run a batch of agent trials: inline, on worker threads, or on an event loop.

The engine knows nothing about tasks or grading. It calls ``call(index)``
for each pending index, with at most ``max_concurrency`` calls in flight and
an optional per-call ``timeout``, and hands each outcome to ``on_done`` *in
the thread that called* `run_trials`, one at a time, in completion order.
The caller is responsible for putting results back in index order.

An outcome is ``(ok, value_or_exception, wall_seconds)``. An exception from
the agent, or a timeout, is an outcome, never a crash; only
``KeyboardInterrupt`` (and other ``BaseException`` s) stop the batch, after
which the trials already handed to ``on_done`` are kept by the caller.

A timed-out synchronous call cannot be killed: its thread is abandoned (its
result discarded) and a fresh worker takes its place, so concurrency stays
at ``max_concurrency``. An async call is cancelled.
"""

from __future__ import annotations

import queue
import threading
import time
import types
from typing import Any, Callable, Sequence

Outcome = tuple  # (ok: bool, value_or_exception, wall_seconds: float)

_PROGRESS_EVERY_S = 0.2


def run_trials(call: Callable[[int], Any], pending: Sequence[int], *, is_async: bool,
               max_concurrency: int, timeout: float | None,
               on_done: Callable[[int, Outcome], None]) -> None:
    """Run ``call(i)`` for every ``i`` in ``pending``, reporting each outcome to ``on_done``."""
    if not pending:
        return
    if is_async:
        _run_async_blocking(call, pending, max_concurrency, timeout, on_done)
    elif max_concurrency == 1 and timeout is None:
        _run_inline(call, pending, on_done)
    else:
        _run_threads(call, pending, max_concurrency, timeout, on_done)


# --------------------------------------------------------------------------


def _settle(value: Any) -> Any:
    """Await a coroutine returned by a synchronous agent (in a thread with no running loop)."""
    if _awaitable(value):
        import asyncio

        async def wait() -> Any:
            return await value
        return asyncio.run(wait())
    return value


def _awaitable(value: Any) -> bool:
    # inspect.isawaitable goes through an ABC check; this runs once per trial, so keep it cheap.
    return isinstance(value, types.CoroutineType) or hasattr(type(value), "__await__")


def _run_inline(call: Callable, pending: Sequence[int], on_done: Callable) -> None:
    clock = time.perf_counter
    for i in pending:
        t0 = clock()
        try:
            out = (True, _settle(call(i)), 0.0)
        except Exception as exc:  # the agent failed: an outcome, not a crash
            out = (False, exc, 0.0)
        on_done(i, (out[0], out[1], clock() - t0))


def _run_threads(call: Callable, pending: Sequence[int], max_concurrency: int,
                 timeout: float | None, on_done: Callable) -> None:
    jobs: queue.SimpleQueue = queue.SimpleQueue()
    done: queue.SimpleQueue = queue.SimpleQueue()
    lock = threading.Lock()
    started: dict = {}     # index -> start time, for calls in flight
    abandoned: set = set()

    def worker() -> None:
        while True:
            i = jobs.get()
            if i is None:
                return
            t0 = time.perf_counter()
            with lock:
                started[i] = time.monotonic()
            try:
                out = (True, _settle(call(i)))
            except Exception as exc:
                out = (False, exc)
            except BaseException as exc:  # SystemExit and the like stop the whole batch
                done.put((i, (None, exc, 0.0)))
                return
            with lock:
                started.pop(i, None)
                if i in abandoned:
                    return  # timed out already; a replacement worker took over
            done.put((i, (out[0], out[1], time.perf_counter() - t0)))

    def spawn() -> None:
        threading.Thread(target=worker, daemon=True, name="ek-agent-trial").start()

    for i in pending:
        jobs.put(i)
    n_workers = min(max_concurrency, len(pending))
    for _ in range(n_workers):
        spawn()
    remaining = len(pending)
    try:
        while remaining:
            wait = None
            if timeout is not None:
                with lock:
                    oldest = min(started.values(), default=None)
                wait = timeout if oldest is None else max(0.0, oldest + timeout - time.monotonic())
                wait = min(wait, timeout) + 0.001
            try:
                i, out = done.get(timeout=wait)
            except queue.Empty:
                now = time.monotonic()
                expired = []
                with lock:
                    for j, t0 in list(started.items()):
                        if now - t0 >= timeout:
                            del started[j]
                            abandoned.add(j)
                            expired.append(j)
                for j in expired:
                    spawn()
                    remaining -= 1
                    on_done(j, (False, TimeoutError(
                        f"the trial did not finish within timeout={timeout} s; its thread was "
                        "abandoned. Raise timeout= or make the agent give up sooner."), float(timeout)))
                continue
            if out[0] is None:
                raise out[1]
            remaining -= 1
            on_done(i, out)
    finally:
        while True:  # drop jobs not started yet (Ctrl-C, or an error in on_done)
            try:
                jobs.get_nowait()
            except queue.Empty:
                break
        for _ in range(n_workers):
            jobs.put(None)


def _run_async_blocking(call: Callable, pending: Sequence[int], max_concurrency: int,
                        timeout: float | None, on_done: Callable) -> None:
    import asyncio  # loaded only when an async agent runs

    coro_factory = lambda: _run_async(call, pending, max_concurrency, timeout, on_done)  # noqa: E731
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        asyncio.run(coro_factory())
        return
    # Called from inside a running loop (a notebook): use a private loop on a helper thread.
    failure: list = []

    def target() -> None:
        try:
            asyncio.run(coro_factory())
        except BaseException as exc:  # re-raised in the caller's thread
            failure.append(exc)

    helper = threading.Thread(target=target, name="ek-agent-loop")
    helper.start()
    helper.join()
    if failure:
        raise failure[0]


async def _run_async(call: Callable, pending: Sequence[int], max_concurrency: int,
                     timeout: float | None, on_done: Callable) -> None:
    import asyncio

    it = iter(pending)
    clock = time.perf_counter

    async def worker() -> None:
        for i in it:
            t0 = clock()
            try:
                awaitable = call(i)
                if not _awaitable(awaitable):
                    value = awaitable
                elif timeout is None:
                    value = await awaitable
                else:
                    value = await asyncio.wait_for(awaitable, timeout)
                out = (True, value)
            except asyncio.TimeoutError:
                if timeout is not None and clock() - t0 >= timeout:
                    exc = TimeoutError(
                        f"the trial did not finish within timeout={timeout} s and was cancelled. "
                        "Raise timeout= or make the agent give up sooner.")
                out = (False, exc)
            except Exception as exc:
                out = (False, exc)
            on_done(i, (out[0], out[1], clock() - t0))

    await asyncio.gather(*(worker() for _ in range(min(max_concurrency, len(pending)))))
