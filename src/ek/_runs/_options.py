"""The run options every runner takes, checked by one validator (the rule is in `ek._runs`).

`run_options` turns a runner's keyword arguments into a `RunOptions`, or
raises naming the option, what it must be and the fix. `RunOptions.plan`
then says how `ek._runs.execute` runs the items (`Plan`, with its `Calls`).
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import math
import numbers
import os
from collections.abc import Mapping
from concurrent.futures import Executor
from typing import Any, Literal

from ek._runs._records import check_run_id
from ek._util import type_name

__all__ = [
    "RUN_KEYWORDS",
    "Calls",
    "ErrorMode",
    "Plan",
    "RunOptions",
    "check_errors",
    "check_executor",
    "persisted",
    "run_options",
    "run_options_of",
]

ErrorMode = Literal["record", "raise"]
"""``"record"``: a failing item is recorded and the run goes on; ``"raise"``: the first one stops it."""

_ERROR_MODES = ("record", "raise")


@dataclasses.dataclass(frozen=True)
class Calls:
    """How items are called in this process: how many at once, for how long at most, on an event loop or not."""

    workers: int = 1
    timeout: float | None = None
    is_async: bool = False

    @property
    def one_by_one(self) -> bool:
        """True when nothing asks for threads, a timeout or an event loop (items run in chunks here)."""
        return self.workers <= 1 and self.timeout is None and not self.is_async


@dataclasses.dataclass(frozen=True)
class Plan:
    """How `ek._runs.execute` runs the items of one run."""

    label: str
    unit: str = "items"
    errors: ErrorMode = "record"
    executor: Executor | None = None
    calls: Calls = Calls()
    progress: bool | None = None
    retry_failed: bool = True


@dataclasses.dataclass(frozen=True)
class RunOptions:
    """The run options of one call, as one value: ``run_options=RunOptions(persist=True, max_workers=4)``.

    Every runner (`ek.harness.evaluate_store`, `ek.ocr.evaluate_ocr`,
    `ek.ocr.benchmark_fleet`, `ek.agents.run_suite`) takes it as
    ``run_options=``, in place of its keywords ``persist`` to ``progress``;
    the runner checks it as it checks them (`run_options`).

    >>> RunOptions(persist=True, max_workers=4).max_workers
    4
    """

    persist: bool = False
    run_id: str | None = None
    rootdir: str | os.PathLike[str] | None = None
    resume: bool = True
    errors: ErrorMode = "record"
    max_workers: int = 1
    timeout: float | None = None
    executor: Executor | None = None
    progress: bool | None = None

    def plan(
        self,
        label: str,
        *,
        unit: str = "items",
        is_async: bool = False,
        retry_failed: bool = True,
        executor: Executor | None = None,
    ) -> Plan:
        """How to run the items: ``executor`` (e.g. the runner's own thread pool) stands in for the given one."""
        workers = 1 if executor is not None else self.max_workers
        return Plan(
            label=label,
            unit=unit,
            errors=self.errors,
            executor=executor or self.executor,
            calls=Calls(workers, self.timeout, is_async),
            progress=self.progress,
            retry_failed=retry_failed,
        )


RUN_KEYWORDS: dict[str, Any] = {
    "persist": False,
    "run_id": None,
    "rootdir": None,
    "resume": True,
    "errors": "record",
    "max_workers": None,
    "timeout": None,
    "executor": None,
    "progress": None,
}
"""The run keywords every runner takes, after its own, with their defaults (the fields of `RunOptions`)."""


def run_options_of(who: str, given: Mapping[str, Any], *, parts: Mapping[str, Any] | None = None) -> RunOptions:
    """The checked run options of a runner's call, from its arguments ``given`` (the runner's ``locals()``).

    They are ``given["run_options"]`` when that is a `RunOptions`, else the
    run keywords among ``given``; a call that passes both ways is refused,
    naming the keywords, so no option is silently overridden.
    """
    chosen = given.get("run_options")
    keywords = {name: given[name] for name in RUN_KEYWORDS if name in given}
    if chosen is not None:
        if not isinstance(chosen, RunOptions):
            raise TypeError(
                f"{who}() run_options must be an ek.harness.RunOptions, got {type_name(chosen)}; "
                "e.g. run_options=RunOptions(persist=True, max_workers=4)."
            )
        also = [
            name for name, value in keywords.items() if value is not RUN_KEYWORDS[name] and value != RUN_KEYWORDS[name]
        ]
        if also:
            raise ValueError(
                f"{who}() got run_options= and {', '.join(f'{n}=' for n in also)} too; pass the run options "
                "one way: as keywords, or as fields of the RunOptions."
            )
        keywords = {name: getattr(chosen, name) for name in keywords}
    return run_options(who, **keywords, parts=parts)


def run_options(
    who: str,
    *,
    persist: Any = False,
    run_id: Any = None,
    rootdir: Any = None,
    resume: Any = True,
    errors: Any = "record",
    max_workers: Any = None,
    timeout: Any = None,
    executor: Any = None,
    progress: Any = None,
    parts: Mapping[str, Any] | None = None,
) -> RunOptions:
    """The run options of a ``who()`` call, checked; ``parts`` are what a process pool must pickle.

    Raises:
        ValueError: a bad ``run_id``, ``errors``, ``max_workers`` or ``timeout``, or
            ``max_workers`` above 1 together with an ``executor``.
        TypeError: ``executor`` is not a ``concurrent.futures.Executor``, or a part
            cannot travel to a process pool's workers.
    """
    if run_id is not None:
        run_id = check_run_id(run_id, who)
    for name, value in (("persist", persist), ("resume", resume)):
        if not isinstance(value, bool):
            raise TypeError(f"{who}() {name} must be True or False, got {type_name(value)}.")
    if progress is not None and not isinstance(progress, bool):
        raise TypeError(
            f"{who}() progress must be True, False or None (a bar when stderr is a terminal), "
            f"got {type_name(progress)}."
        )
    workers = _check_workers(max_workers, who)
    if timeout is not None and (
        isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not math.isfinite(timeout) or timeout <= 0
    ):
        raise ValueError(f"{who}() timeout must be a positive number of seconds per item or None, got {timeout!r}.")
    check_executor(executor, who, parts or {})
    if executor is not None and workers > 1:
        raise ValueError(
            f"{who}() got both max_workers={workers} and executor=; max_workers is a shorthand for "
            "a thread pool of that size, so pass one or the other."
        )
    return RunOptions(
        persist=persisted(persist, run_id),
        run_id=run_id,
        rootdir=rootdir,
        resume=resume,
        errors=check_errors(errors, who),
        max_workers=workers,
        timeout=None if timeout is None else float(timeout),
        executor=executor,
        progress=progress,
    )


def persisted(persist: Any, run_id: Any) -> bool:
    """Whether a run is stored: ``persist=True``, or any ``run_id`` (it names a stored run)."""
    return persist is True or run_id is not None


def check_errors(errors: Any, who: str) -> ErrorMode:
    """``errors`` if it is ``"record"`` or ``"raise"``, else a ValueError saying what each does."""
    if errors == "record":
        return "record"
    if errors == "raise":
        return "raise"
    raise ValueError(
        f"{who}() errors must be 'record' or 'raise', got {errors!r}; 'record' keeps going past "
        "a failing item and lists it under the report's errors, 'raise' stops at the first one."
    )


def check_executor(executor: Any, who: str, parts: Mapping[str, Any]) -> None:
    """Refuse a non-executor, and, for a process pool, parts that cannot travel to its workers."""
    if executor is None:
        return
    if not isinstance(executor, concurrent.futures.Executor):
        raise TypeError(
            f"{who}() executor must be a concurrent.futures.Executor (ThreadPoolExecutor, "
            f"ProcessPoolExecutor, or e.g. a Dask client's get_executor()), got {type_name(executor)}."
        )
    if not isinstance(executor, concurrent.futures.ProcessPoolExecutor):
        return
    from multiprocessing.reduction import ForkingPickler

    for name, value in parts.items():
        try:
            ForkingPickler.dumps(value)
        except Exception as exc:
            label = getattr(value, "__qualname__", None) or type_name(value)
            fix = (
                "Define it at module level (not a lambda or a nested function)"
                if callable(value)
                else "Make it picklable"
            )
            raise TypeError(
                f"{who}() {name} ({label}) cannot be pickled ({exc}), so a ProcessPoolExecutor cannot "
                f"send it to its worker processes. {fix}, or use a ThreadPoolExecutor."
            ) from None


# ---------------------------------------------------------------------------


def _check_workers(max_workers: Any, who: str) -> int:
    if max_workers is None:
        return 1
    if isinstance(max_workers, bool) or not isinstance(max_workers, numbers.Integral) or max_workers < 1:
        raise ValueError(
            f"{who}() max_workers must be a whole number >= 1 (items run at once), got "
            f"{max_workers!r}; use None or 1 to run them one after the other."
        )
    return int(max_workers)
