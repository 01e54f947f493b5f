"""Runs kept by ``ek evaluate --save NAME``, for ``ek compare`` to use by name.

A saved run is one record of the ``runs`` store under ``evaluate.NAME``,
holding what a paired comparison needs and nothing it does not: the
metric, its statistic names and direction, every item's id, slice, value
and statistics, the missing and extra ids, and a fingerprint of the gold
set it was scored on (a run is compared only against the same gold). Like
every run record it names its ``kind`` and format version.

This is the one place that knows how a run is stored, so that it can move
onto the run engine (``ek._runs``) without touching the commands.
"""

from __future__ import annotations

import re

from ek._commands._inputs import Scored, item_rows, statistic_names
from ek._files import InputError
from ek._runs import now
from ek.base import Report, Score
from ek.facade import merge_reports
from ek.stores import json_store

KIND = "evaluate"
FORMAT = 1
_PREFIX = "evaluate."
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")


def check_name(name: str) -> str:
    """``name`` if it can name a saved run; InputError otherwise."""
    if not _NAME.fullmatch(name):
        raise InputError(
            f"--save {name!r} cannot name a run; use letters, digits, '.', '_' and '-' (at most 100, "
            "starting with a letter or digit), e.g. --save baseline-2024-06."
        )
    return name


def save_run(name: str, scored: Scored, gold_digest: str, *, source: str, normalize: object) -> dict:
    """Store ``scored`` as the run ``name`` (replacing an earlier one) and return the record."""
    report = scored.report
    rows = item_rows(report)
    names = statistic_names(report.metric)
    record = {
        "kind": KIND, "format": FORMAT, "name": check_name(name), "saved_at": now(), "source": source,
        "metric": report.metric, "statistics": list(names), "normalize": normalize,
        "higher_is_better": report.detail.get("higher_is_better"), "gold": gold_digest,
        "ids": list(report.detail.get("ids") or range(report.n)),
        "slices": None if report.detail.get("slices") is None else list(report.detail["slices"]),
        "values": [value for value, _ in rows],
        "statistic_values": {n: [stats[n] for _, stats in rows] for n in names},
        "missing": list(scored.missing), "extra": list(scored.extra),
    }
    json_store("runs")[_PREFIX + name] = record
    return record


def load_run(name: str, gold_digest: str, *, role: str) -> Scored:
    """The saved run ``name`` as a scored side; InputError when there is none or its gold differs."""
    store = json_store("runs")
    record = store.get(_PREFIX + name) if _NAME.fullmatch(name) else None
    if record is None:
        saved = sorted(k[len(_PREFIX):] for k in store if k.startswith(_PREFIX))
        raise InputError(
            f"{role} {name!r} is neither a file nor a run saved with ek evaluate --save "
            f"(saved runs: {', '.join(saved[:10]) or 'none'}); check the path or the name."
        )
    if record.get("kind") != KIND or record.get("format") != FORMAT:
        raise InputError(f"{role} {name!r} is a {record.get('kind')!r} record of format {record.get('format')!r}, "
                         f"not a saved ek evaluate run (format {FORMAT}); save it again with this ek version.")
    if record["gold"] != gold_digest:
        raise InputError(
            f"{role} {name!r} was saved against another gold set than GOLD; compare runs scored on the same "
            "gold, or run ek evaluate --save again on this GOLD."
        )
    names = record["statistics"]
    columns = [record["statistic_values"][n] for n in names]
    scores = tuple(Score(value, metric=record["metric"], detail=dict(zip(names, row)))
                   for value, row in zip(record["values"], zip(*columns)))
    detail = {"ids": tuple(record["ids"])}
    if record["slices"] is not None:
        detail["slices"] = tuple(record["slices"])
    flat = Report(metric=record["metric"], n=len(scores), scores=scores, detail=detail)
    report = merge_reports(flat, metric=record["metric"])  # re-aggregates, and carries the metric
    return Scored(name, report, None, tuple(record["missing"]), tuple(record["extra"]))
