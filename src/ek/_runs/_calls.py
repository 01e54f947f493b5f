"""Run many fallible calls at once in this process: worker threads, or an event loop.

`run_calls` calls ``call(i)`` for each pending index, with at most
``max_workers`` calls in flight and an optional per-call ``timeout``,
and hands each outcome to ``on_done`` in the calling thread, one at a time,
in completion order. An outcome is ``(ok, value_or_exception, seconds)``.
An exception raised by a call, or a timeout, is an outcome, never a crash;
only ``KeyboardInterrupt`` (and other ``BaseException`` s) stop the batch,
as does an exception raised by ``on_done`` itself.

A timed-out synchronous call cannot be killed: its thread is abandoned (its
result discarded) and a fresh worker takes its place, so concurrency stays
at ``max_workers``. An async call is cancelled. A coroutine that blocks
the event loop (``time.sleep`` instead of ``await asyncio.sleep``) cannot be
interrupted either; when it returns past its timeout it counts as timed out.
A call's own ``TimeoutError`` (``socket.timeout`` too) is its outcome like
any other exception.
"""

from __future__ import annotations

import queue
import threading
import time
import types
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["run_calls", "settle"]


def run_calls(
    call: Callable[[int], Any],
    pending: Sequence[int],
    *,
    is_async: bool,
    max_workers: int,
    timeout: float | None,
    on_done: Callable[[int, tuple[Any, ...]], None],
) -> None:
    """Run ``call(i)`` for every ``i`` in ``pending``, reporting each outcome to ``on_done``."""
    if not pending:
        return
    if is_async:
        _run_async_blocking(call, pending, max_workers, timeout, on_done)
    else:
        _Threads(call, max_workers, timeout, on_done).run(pending)


def settle(value: Any) -> Any:
    """Await a coroutine returned by a synchronous call (in a thread with no running loop)."""
    if _awaitable(value):
        import asyncio

        async def wait() -> Any:
            return await value

        return asyncio.run(wait())
    return value


def _awaitable(value: Any) -> bool:
    # inspect.isawaitable goes through an ABC check; this runs once per call, so keep it cheap.
    return isinstance(value, types.CoroutineType) or hasattr(type(value), "__await__")


def _timed_out(timeout: float, how: str) -> TimeoutError:
    return TimeoutError(
        f"the trial did not finish within timeout={timeout} s{how}. Raise timeout= or make the agent give up sooner."
    )


class _Threads:
    """Worker threads pulling indices from a queue; the calling thread collects outcomes."""

    def __init__(
        self, call: Callable[..., Any], max_workers: int, timeout: float | None, on_done: Callable[..., Any]
    ) -> None:
        self.call, self.limit, self.timeout, self.on_done = call, max_workers, timeout, on_done
        self.jobs: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self.done: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self.lock = threading.Lock()
        self.started: dict[str, Any] = {}  # index -> monotonic start, for calls in flight
        self.abandoned: set[Any] = set()

    def run(self, pending: Sequence[int]) -> None:
        for i in pending:
            self.jobs.put(i)
        n_workers = min(self.limit, len(pending))
        for _ in range(n_workers):
            self._spawn()
        remaining = len(pending)
        try:
            while remaining:
                try:
                    i, out = self.done.get(timeout=self._wait())
                except queue.Empty:
                    remaining -= self._expire()
                    continue
                if out[0] is None:
                    raise out[1]
                remaining -= 1
                self.on_done(i, out)
        finally:
            while True:  # drop jobs not started yet (Ctrl-C, or an error in on_done)
                try:
                    self.jobs.get_nowait()
                except queue.Empty:
                    break
            for _ in range(n_workers):
                self.jobs.put(None)

    def _worker(self) -> None:
        while True:
            i = self.jobs.get()
            if i is None:
                return
            t0 = time.perf_counter()
            with self.lock:
                self.started[i] = time.monotonic()
            try:
                out = (True, settle(self.call(i)))
            except Exception as exc:
                out = (False, exc)
            except BaseException as exc:  # SystemExit and the like stop the whole batch
                self.done.put((i, (None, exc, 0.0)))
                return
            with self.lock:
                self.started.pop(i, None)
                if i in self.abandoned:
                    return  # timed out already; a replacement worker took over
            self.done.put((i, (out[0], out[1], time.perf_counter() - t0)))

    def _spawn(self) -> None:
        threading.Thread(target=self._worker, daemon=True, name="ek-run-call").start()

    def _wait(self) -> float | None:
        if self.timeout is None:
            return None
        with self.lock:
            oldest = min(self.started.values(), default=None)
        wait = self.timeout if oldest is None else max(0.0, oldest + self.timeout - time.monotonic())
        return min(wait, self.timeout) + 0.001

    def _expire(self) -> int:
        """Abandon the calls past their timeout, report them, and replace their workers."""
        now, expired = time.monotonic(), []
        with self.lock:
            for j, t0 in list(self.started.items()):
                if now - t0 >= self.timeout:
                    del self.started[j]
                    self.abandoned.add(j)
                    expired.append(j)
        timeout = self.timeout
        assert timeout is not None
        for j in expired:
            self._spawn()
            self.on_done(j, (False, _timed_out(timeout, "; its thread was abandoned"), float(timeout)))
        return len(expired)


def _run_async_blocking(
    call: Callable[..., Any],
    pending: Sequence[int],
    max_workers: int,
    timeout: float | None,
    on_done: Callable[..., Any],
) -> None:
    import asyncio  # loaded only when an async call runs

    def main() -> Any:
        return _run_async(call, pending, max_workers, timeout, on_done)

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        asyncio.run(main())
        return
    # Called from inside a running loop (a notebook): use a private loop on a helper thread.
    failure: list[Any] = []

    def target() -> None:
        try:
            asyncio.run(main())
        except BaseException as exc:  # re-raised in the caller's thread
            failure.append(exc)

    helper = threading.Thread(target=target, name="ek-run-loop")
    helper.start()
    helper.join()
    if failure:
        raise failure[0]


async def _run_async(
    call: Callable[..., Any],
    pending: Sequence[int],
    max_workers: int,
    timeout: float | None,
    on_done: Callable[..., Any],
) -> None:
    import asyncio

    it = iter(pending)
    clock = time.perf_counter

    async def one(i: int) -> tuple[Any, ...]:
        t0 = clock()
        try:
            awaitable = call(i)
            if not _awaitable(awaitable):
                return True, awaitable
            if timeout is None:
                return True, await awaitable
            task = asyncio.ensure_future(awaitable)
            finished, _ = await asyncio.wait({task}, timeout=timeout)
            if not finished:
                task.cancel()
                return False, _timed_out(timeout, " and was cancelled")
            value = task.result()  # the call's own exception, TimeoutError included, is raised here
            if clock() - t0 > timeout:
                return False, _timed_out(
                    timeout, " (it blocked the event loop, so it could not be cancelled; await instead of sleeping)"
                )
            return True, value
        except Exception as exc:
            return False, exc

    async def worker() -> None:
        for i in it:
            t0 = clock()
            ok, value = await one(i)
            on_done(i, (ok, value, clock() - t0))

    await asyncio.gather(*(worker() for _ in range(min(max_workers, len(pending)))))
