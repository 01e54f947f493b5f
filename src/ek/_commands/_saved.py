"""Runs kept by ``ek evaluate --save NAME``, for ``ek compare`` to use by name.

A saved run is a run of the engine (`ek._runs`) of kind ``evaluate``: its
header (``runs`` store, ``evaluate.NAME``) holds the settings a comparison
checks (the metric and its statistic names, a fingerprint of the gold set,
the normalize steps, the prediction file) and, once written, the summary
(figure, missing and extra ids); its items (``results`` store, in chunks)
map each id to its value, statistics and slice. Every record names its
kind and format version, as every run record does. A run is compared only
against the gold set it was scored on.
"""

from __future__ import annotations

import re

from ek._commands._inputs import Scored, item_rows, statistic_names
from ek._files import InputError
from ek._runs import CHUNK_ITEMS, open_run, read_run, stored_runs
from ek.base import Report, Score
from ek.facade import merge_reports

KIND = "evaluate"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")
_WHO = "ek evaluate --save"


def check_name(name: str) -> str:
    """``name`` if it can name a saved run; InputError otherwise."""
    if not _NAME.fullmatch(name):
        raise InputError(
            f"--save {name!r} cannot name a run; use letters, digits, '.', '_' and '-' (at most 100, "
            "starting with a letter or digit), e.g. --save baseline-2024-06."
        )
    return name


def save_run(name: str, scored: Scored, gold_digest: str, *, source: str, normalize: object) -> None:
    """Store ``scored`` as the run ``name``, replacing an earlier one."""
    report = scored.report
    names = statistic_names(report.metric)
    settings = {"metric": report.metric, "statistics": list(names), "gold": gold_digest, "source": source,
                "normalize": normalize, "higher_is_better": report.detail.get("higher_is_better")}
    run = open_run(KIND, who=_WHO, persist=True, run_id=check_name(name), rootdir=None, settings=settings,
                   resume=False, n_items=report.n)
    write = run.store.write  # a persisted run has its store
    ids = report.detail.get("ids") or range(report.n)
    slices = report.detail.get("slices") or (None,) * report.n
    chunk: dict = {}
    for item_id, label, (value, stats) in zip(ids, slices, item_rows(report)):
        chunk[str(item_id)] = {"value": value, "statistics": stats, "slice": label}
        if len(chunk) == CHUNK_ITEMS:
            write(chunk)
            chunk = {}
    if chunk:
        write(chunk)
    run.close({"aggregate": report.aggregate, "n": report.n, "missing": list(scored.missing),
               "extra": list(scored.extra)})


def load_run(name: str, gold_digest: str, *, role: str) -> Scored:
    """The saved run ``name`` as a scored side; InputError when there is none or its gold differs."""
    found = read_run(KIND, name, rootdir=None, who=_WHO) if _NAME.fullmatch(name) else None
    if found is None or found[0].get("status") != "complete":
        saved = stored_runs(KIND, rootdir=None)
        raise InputError(
            f"{role} {name!r} is neither a file nor a run saved with ek evaluate --save "
            f"(saved runs: {', '.join(saved[:10]) or 'none'}); check the path or the name."
        )
    header, items = found
    settings, summary = header["settings"], header["summary"]
    if settings["gold"] != gold_digest:
        raise InputError(
            f"{role} {name!r} was saved against another gold set than GOLD; compare runs scored on the same "
            "gold, or run ek evaluate --save again on this GOLD."
        )
    metric, names = settings["metric"], tuple(settings["statistics"])
    scores = tuple(Score(e["value"], metric=metric, detail={n: e["statistics"][n] for n in names})
                   for e in items.values())
    slices = tuple(e["slice"] for e in items.values())
    detail: dict = {"ids": tuple(items)}
    if any(s is not None for s in slices):
        detail["slices"] = slices
    flat = Report(metric=metric, n=len(scores), scores=scores, detail=detail)
    report = merge_reports(flat, metric=metric)  # re-aggregates, and carries the metric
    return Scored(name, report, None, tuple(summary["missing"]), tuple(summary["extra"]))
