"""Runs kept by ``ek evaluate --save NAME``, for ``ek compare`` to use by name.

A saved run is a run of the engine (`ek._runs`) of kind ``evaluate``: its
header (``runs`` store, ``evaluate.NAME``) holds the settings a comparison
checks (`run_settings`: the metric and its statistic names, the options that
change what a figure measures), a fingerprint of the gold set and the
prediction file and, once written, the summary (missing and extra ids); its
items (``results`` store, in chunks) map each id to its value, statistics and
slice. Every record names its kind and format version, as every run record
does.

Writing: `reserve` checks the name and takes the run's lock as the command
starts, so a second ``ek evaluate --save NAME`` running meanwhile exits 2
saying the run is being written, rather than mixing its items into this one
(it does not wait: two writers of one name are a mistake to show, not a
queue). `save_run` writes the new run beside an existing one and switches
to it in one rename once it is complete, so a killed save leaves the old run
whole and readable; the next save removes what the killed one left.

Reading: `saved_name` tells a saved run from a file (``run:NAME`` is the run,
``./NAME`` or any other path the file, and a bare NAME that is both is
refused). `load_run` compares a run only against the gold set it was scored
on and under the settings it was saved with, and checks every field it
reads: a damaged record is one line naming its file and the field.
"""

from __future__ import annotations

import os
import re
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any, Protocol

from ek._files import InputError
from ek._runs import CHUNK_ITEMS, merge_settings, open_run, read_run, run_lock, stored_runs
from ek._util import type_name
from ek.base import Report, Score
from ek.cli._commands._inputs import Scored, is_path, item_rows, statistic_names
from ek.cli._commands._options import Options
from ek.facade import merge_reports
from ek.stores import data_dir, json_store

KIND = "evaluate"
PREFIX = "run:"
"""``ek compare GOLD run:NAME PRED`` names the saved run NAME, whatever files are about."""

_CHECKED = (  # the Options fields that change what a figure measures: recorded by --save, checked by compare
    "profile",  # first: a profile brings its own normalisation, so it is the difference to name
    "normalize",
    "text_level",
    "words",
)
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")
_RESERVED: dict[Path, Lock] = {}  # lock file -> the lock `reserve` took in this process, until `save_run` releases it
_WHO = "ek evaluate --save"
_NUMBER = (int, float, type(None))
_Field = tuple[tuple[str, ...], tuple[type, ...], str]  # (path, accepted types, what it holds)
_HEADER_FIELDS: tuple[_Field, ...] = (  # (path, accepted types, what it holds)
    (("settings", "metric"), (str,), "the metric name"),
    (("settings", "statistics"), (list,), "the names of the metric's statistics"),
    (("settings", "gold"), (str,), "the fingerprint of the gold set"),
    (("summary",), (dict,), "written when the save completed"),
    (("summary", "missing"), (list,), "the gold ids without a prediction"),
    (("summary", "extra"), (list,), "the predictions without gold"),
)
_ENTRY_FIELDS: tuple[_Field, ...] = (
    (("value",), _NUMBER, "the item's score"),
    (("statistics",), (dict,), "the item's statistics"),
    (("slice",), (str, int, float, type(None)), "the item's slice"),
)


class Lock(Protocol):
    """The lock of one saved run, as `ek._runs.run_lock` gives it."""

    @property
    def path(self) -> Path: ...

    def acquire(self) -> object: ...

    def release(self) -> None: ...


def check_name(name: str) -> str:
    """``name`` if it can name a saved run; InputError otherwise."""
    if not _NAME.fullmatch(name):
        raise InputError(
            f"--save {name!r} cannot name a run; use letters, digits, '.', '_' and '-' (at most 100, "
            "starting with a letter or digit), e.g. --save baseline-2024-06."
        )
    return name


def reserve(name: str) -> Lock:
    """Check ``name`` and lock its run for this command: until `save_run` is done, or the process ends.

    A command that fails before saving leaves the lock to the end of its
    process; as the commands of one process run one after another, a later
    one reserving the same run takes that lock over.

    Raises:
        InputError: a bad name, or another process is writing the run ``name``.
    """
    lock = run_lock(KIND, check_name(name), rootdir=None, who="--save")
    left = _RESERVED.pop(lock.path, None)
    if left is not None:
        left.release()
    try:
        lock.acquire()
    except BlockingIOError as exc:
        raise InputError(str(exc)) from None
    _RESERVED[lock.path] = lock
    return lock


def release(lock: Lock) -> None:
    """Free a name `reserve` took (nothing happens once `save_run` has freed it)."""
    lock.release()
    _RESERVED.pop(lock.path, None)


def run_settings(metric: str, options: Options) -> dict[str, object]:
    """The settings that decide what a run's figures measure, for ``metric`` scored under ``options``."""
    settings: dict[str, object] = {"metric": metric, "statistics": list(statistic_names(metric))}
    checked = {
        "profile": options.profile,
        "normalize": options.steps,
        "text_level": options.text_level,
        "words": options.words,
    }
    settings.update((name, checked[name]) for name in _CHECKED)
    return settings


def save_run(name: str, scored: Scored, gold_digest: str, *, source: str, options: Options, lock: Lock) -> None:
    """Store ``scored`` as the run ``name`` (whose ``lock`` `reserve` took), replacing an earlier one once complete."""
    report = scored.report
    settings = {
        **run_settings(report.metric, options),
        "gold": gold_digest,
        "source": source,
        "higher_is_better": report.detail.get("higher_is_better"),
    }
    run = open_run(
        KIND,
        who=_WHO,
        persist=True,
        run_id=name,
        rootdir=None,
        settings=settings,
        resume=False,
        n_items=report.n,
        lock=lock,
    )
    try:
        assert run.store is not None  # a persisted run has its store
        write = run.store.write
        ids = report.detail.get("ids") or range(report.n)
        slices = report.detail.get("slices") or (None,) * report.n
        chunk: dict[str, object] = {}
        for item_id, label, (value, stats) in zip(ids, slices, item_rows(report)):
            chunk[str(item_id)] = {"value": value, "statistics": stats, "slice": label}
            if len(chunk) == CHUNK_ITEMS:
                write(chunk)
                chunk = {}
        if chunk:
            write(chunk)
        run.close(
            {"aggregate": report.aggregate, "n": report.n, "missing": list(scored.missing), "extra": list(scored.extra)}
        )
    finally:
        run.release()
        release(lock)


def saved_name(source: str, *, role: str) -> str | None:
    """The saved run ``source`` names, or None when it is a file (or ``-``) to score.

    Raises:
        InputError: ``source`` is both a file here and the name of a saved run.
    """
    if source.startswith(PREFIX):
        return source[len(PREFIX) :]
    if not is_path(source):
        return source
    if _NAME.fullmatch(source) and f"{KIND}.{source}" in _runs_store():
        raise InputError(
            f"{role} {source!r} is both a file or folder here ({os.path.abspath(source)}) and a run saved with "
            f"ek evaluate --save; write {PREFIX}{source} for the saved run, or ./{source} for the file."
        )
    return None


def load_run(name: str, gold_digest: str, *, role: str, options: Options) -> Scored:
    """The saved run ``name`` as a scored side.

    Raises:
        InputError: there is no such complete run, it is damaged (naming the
            file and the field), it was scored on another gold set, or under
            settings that differ from this command's (naming the setting).
    """
    fix = f"Save it again with ek evaluate GOLD PRED --save {name}."
    try:
        found = (
            read_run(KIND, name, rootdir=None, who=_WHO, check=_check_entry, fix=fix) if _NAME.fullmatch(name) else None
        )
    except ValueError as exc:
        raise InputError(f"{role} {name!r} cannot be used: {exc}") from None
    if found is None:
        saved = stored_runs(KIND, rootdir=None)
        raise InputError(
            f"{role} {name!r} is neither a file nor a run saved with ek evaluate --save "
            f"(saved runs: {', '.join(saved[:10]) or 'none'}); check the path or the name."
        )
    if found[0].get("status") != "complete":
        raise InputError(
            f"{role} {name!r} is a saved run whose first save did not finish (it was stopped while "
            f"writing), so it has no figures. {fix}"
        )
    header, items = found
    problem = _header_problem(header, items)
    if problem is not None:
        raise InputError(f"{role} {name!r} cannot be used: {data_dir('runs') / f'{KIND}.{name}.json'} {problem}. {fix}")
    settings, summary = header["settings"], header["summary"]
    if settings["gold"] != gold_digest:
        raise InputError(
            f"{role} {name!r} was saved against another gold set than GOLD; compare runs scored on the same "
            "gold, or run ek evaluate --save again on this GOLD."
        )
    _check_settings(name, role, settings, options)
    return Scored(name, _report(settings, items), None, tuple(summary["missing"]), tuple(summary["extra"]))


# ---------------------------------------------------------------------------


def _runs_store() -> MutableMapping[str, Any]:
    return json_store("runs")


def _check_settings(name: str, role: str, stored: dict[str, Any], options: Options) -> None:
    """InputError naming the first setting of the run ``name`` that differs from this command's."""
    now = run_settings(options.metric or stored["metric"], options)
    _, differs = merge_settings({key: stored.get(key) for key in now}, now)
    if differs is not None:
        setting, was, is_now = differs
        raise InputError(
            f"{role} {name!r} was saved with {setting}={_shown(setting, was)}, but this ek compare has "
            f"{setting}={_shown(setting, is_now)}, so the two runs' figures would measure different things; compare "
            f"under the settings it was saved with, or save it again with these."
        )


def _report(settings: dict[str, Any], items: dict[str, Any]) -> Report:
    metric, names = settings["metric"], tuple(settings["statistics"])
    scores = tuple(
        Score(e["value"], metric=metric, detail={n: e["statistics"][n] for n in names}) for e in items.values()
    )
    slices = tuple(e["slice"] for e in items.values())
    detail: dict[str, object] = {"ids": tuple(items)}
    if any(s is not None for s in slices):
        detail["slices"] = slices
    flat = Report(metric=metric, n=len(scores), scores=scores, detail=detail)
    return merge_reports(flat, metric=metric)  # re-aggregates, and carries the metric


def _check_entry(entry: dict[str, Any], header: dict[str, Any]) -> None:
    """Raise ValueError saying what a stored item lacks (a phrase that follows the item's id)."""
    problem = _fields_problem(entry, _ENTRY_FIELDS)
    names = (header.get("settings") or {}).get("statistics")
    for n in names if problem is None and isinstance(names, list) else ():
        value = entry["statistics"].get(n, KeyError)
        if value is KeyError:
            problem = f"has no 'statistics.{n}' field (one of the metric's statistics)"
        elif isinstance(value, bool) or not isinstance(value, _NUMBER):
            problem = f"has {type_name(value)} for 'statistics.{n}', not a number"
        if problem is not None:
            break
    if problem is not None:
        raise ValueError(problem)


def _fields_problem(record: dict[str, Any], fields: tuple[_Field, ...]) -> str | None:
    """What ``record`` lacks of ``fields``, or None."""
    for path, kinds, what in fields:
        value: Any = record
        for key in path:
            if not isinstance(value, dict) or key not in value:
                return f"has no {'.'.join(path)!r} field ({what})"
            value = value[key]
        if (isinstance(value, bool) and bool not in kinds) or not isinstance(value, kinds):
            kinds_named = " or ".join("None" if k is type(None) else k.__name__ for k in kinds)
            return f"has {type_name(value)} for {'.'.join(path)!r} ({what}), not {kinds_named}"
    return None


def _header_problem(header: dict[str, Any], items: dict[str, Any]) -> str | None:
    """What a complete saved run's header lacks, or None."""
    problem = _fields_problem(header, _HEADER_FIELDS)
    if problem is None and not all(isinstance(n, str) for n in header["settings"]["statistics"]):
        problem = "has a 'settings.statistics' entry that is not a statistic's name"
    n = header.get("n_items")
    if problem is None and isinstance(n, int) and n != len(items):
        problem = f"has 'n_items' {n}, but its chunks hold {len(items)} items (a chunk file is missing or was edited)"
    return problem


def _shown(setting: str, value: Any) -> str:
    """A setting's value; an option's as the command line spells it (``["nfc", "lower"]`` -> ``'nfc,lower'``)."""
    if setting in _CHECKED and isinstance(value, list) and all(isinstance(v, str) for v in value):
        return repr(",".join(value))
    return repr(value)
