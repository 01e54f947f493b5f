"""``ek evaluate WORKSPACE --gold-group GT --pred-group GROUP [--pred-group ...]``: an OCR-D workspace scored.

The workspace (a folder holding ``mets.xml``, or the METS file) is read by
`ek._files._mets`: its pages pair by the METS ``PHYSICAL`` structMap, and
the page ids are the item ids. With one pred group the run is ``ek
evaluate`` on two folders in every respect (the same figures, summary,
``--json``, ``--html``, ``--save`` and gates), the workspace's inputs and
processor added to the report. With several (or a glob, ``--pred-group
'OCR-D-OCR-*'``), the groups are ranked by `ek.ocr.workspace.evaluate_workspace`
as ``ek benchmark`` ranks engines: each group's figure and interval, its
difference to the best with the paired interval, p-value and verdict,
the processor that made it; ``--json`` is the fleet report
(`ek.cli._commands._benchmark.fleet_payload`) with a ``workspace`` key, and
``--html`` the fleet page. No engine runs.

The JSON's ``workspace`` key: ``{"mets", "gold_group", "groups": {group:
{"processor", "version", "parameters", "model", "source"} or None}}``, as
the METS agents and the PAGE files' metadata record them.
"""

from __future__ import annotations

import dataclasses
import datetime
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ek._files import (
    InputError,
    Skipped,
    Workspace,
    group_names,
    group_side,
    mets_path,
    no_group,
    processor_of,
    read_workspace,
)
from ek._version import __version__
from ek.cli._commands import _format as fmt
from ek.cli._commands._format import Outcome
from ek.cli._commands._options import Options
from ek.cli._commands._outputs import check_outputs, write_json, write_page

if TYPE_CHECKING:
    from ek.cli._html._data import Meta
    from ek.ocr import FleetReport

_GT_HINT = "GT"  # the part of a group name that marks ground truth (OCR-D-GT-PAGE), for the hint


def run_workspace(
    gold: str,
    pred: str | None,
    options: Options,
    *,
    gold_group: str | None,
    pred_groups: Sequence[str] | None,
    save: str | None,
    workers: int | None,
    scheduler: str | None,
    timeout: float | None,
    per_page: bool | None = None,
) -> Outcome:
    """``ek evaluate`` on a workspace: one pred group scored as a folder pair, several ranked."""
    ws = _workspace(gold, pred, gold_group, pred_groups)
    assert gold_group is not None and pred_groups  # checked by _workspace
    if gold_group not in ws.groups:
        raise InputError(no_group(ws, gold_group, "--gold-group"))
    groups, unknown = group_names(ws, pred_groups, exclude=gold_group)
    if unknown and not options.keep_going:
        raise InputError(" ".join(unknown.values()) + " Or pass --keep-going to rank the groups that exist.")
    if not groups:
        raise InputError(" ".join(unknown.values()))
    check_outputs(_inputs(ws, [gold_group, *groups]), options.json, options.html)
    if len(groups) > 1:
        _check_ranking(save, workers, scheduler, timeout, options)
        return _ranked(ws, gold_group, pred_groups, options)
    from ek.cli._commands._evaluate import Sides, run_evaluate

    reading = options.reading()
    gold_side = group_side(ws, gold_group, role="gold", read=reading)
    pred_side = group_side(ws, groups[0], role="pred", pages=(*gold_side.ids, *gold_side.errors), read=reading)
    left_out = tuple(Skipped(f"--pred-group {name}", why) for name, why in unknown.items())
    sides = Sides(
        gold_side, dataclasses.replace(pred_side, skipped=pred_side.skipped + left_out), _meta(ws, gold_group, groups)
    )
    return run_evaluate(
        ws.mets,
        groups[0],
        options,
        save=save,
        workers=workers,
        scheduler=scheduler,
        timeout=timeout,
        per_page=per_page,
        sides=sides,
    )


def summary(report: FleetReport, meta: Meta) -> str:
    """The printed ranking: each group's figure, interval, difference to the best, verdict and processor."""
    groups = meta["workspace"]["groups"]  # type: ignore[typeddict-item]
    title = (
        f"ek evaluate: {report.metric} ({fmt.direction(report.higher_is_better)}) on {report.n_items} pages, "
        f"{len(report.engines)} groups of {meta['inputs']['workspace']} against {meta['inputs']['gold_group']}"
    )
    head = [
        title,
        fmt.settings_line(meta),
    ]
    from ek.cli._commands._benchmark import fleet_rows, ranking_cells

    rows = [ranking_cells(row, row["name"]) for row in fleet_rows(report)]
    header = ["rank", "group", report.metric, f"{report.level:.0%} interval", "vs best"]
    header += ["interval of difference", "p", "verdict"]
    lines = [*head, "", fmt.table(header, rows), "", "made by (as the METS agents and the PAGE metadata say):"]
    lines += [f"  {row.name}: {made_by(groups.get(row.name))}" for row in report.rows]
    if report.skipped:
        lines += ["", f"left out: {len(report.skipped)} group(s):"]
        lines += [f"  {name}: {why}" for name, why in report.skipped.items()]
    return "\n".join(lines + fmt.problem_lines(meta))


def made_by(record: Mapping[str, Any] | None) -> str:
    """``ocrd-tesserocr-recognize 0.8.3, model frk``: a group's processor as one short phrase ("-" when unknown)."""
    if not record:
        return "-"
    text = " ".join(str(record[k]) for k in ("processor", "version") if record.get(k))
    model = str(record.get("model") or "")
    if model.startswith("/"):  # a path on the machine that ran it: its last two parts say which model
        model = ".../" + "/".join(model.rstrip("/").split("/")[-2:])
    return text + (f", model {model}" if model else "")


# ---------------------------------------------------------------------------


def _workspace(gold: str, pred: str | None, gold_group: str | None, pred_groups: Sequence[str] | None) -> Workspace:
    """The workspace GOLD names, once the flags are known to fit together (InputError naming the fix)."""
    mets = mets_path(gold) if os.path.exists(gold) else None
    if mets is None:
        if gold_group is None and pred_groups is None:
            raise InputError(  # as argparse says it, PRED being optional only for a workspace
                "the following arguments are required: PRED; an OCR-D workspace as GOLD takes --gold-group and "
                "--pred-group instead (see ek evaluate --help)"
            )
        raise InputError(
            f"--gold-group and --pred-group name file groups of an OCR-D workspace, and {gold} is none: give "
            "a folder holding mets.xml (or the METS file) as GOLD, or two folders as GOLD and PRED without them."
        )
    if pred is not None:
        raise InputError(
            f"{gold} is an OCR-D workspace scored by --gold-group and --pred-group, so PRED ({pred}) has no "
            "place: drop it, or name its group with --pred-group."
        )
    ws = read_workspace(mets)
    if gold_group is None:
        gt = [g for g in ws.groups if _GT_HINT in g.upper().split("-")]
        hint = f" (it has {', '.join(gt)})" if gt else ""
        raise InputError(
            f"name the ground-truth group of {ws.mets} with --gold-group{hint}, e.g. --gold-group OCR-D-GT-PAGE."
        )
    if not pred_groups:
        raise InputError(
            f"name the groups of {ws.mets} to score with --pred-group (once per group, or a glob such as "
            "--pred-group 'OCR-D-OCR-*')."
        )
    return ws


def _check_ranking(
    save: str | None, workers: int | None, scheduler: str | None, timeout: float | None, options: Options
) -> None:
    """InputError for the flags of one run (``--save``, gates, a Dask cluster) given with several pred groups."""
    one_run = [
        flag
        for flag, value in (
            ("--save", save),
            ("--max", options.max),
            ("--min", options.min),
            ("--workers", workers),
            ("--scheduler", scheduler),
            ("--timeout", timeout),
        )
        if value is not None
    ]
    if one_run:
        raise InputError(
            f"{', '.join(one_run)} work{'s' if len(one_run) == 1 else ''} on one run, and several --pred-group "
            "groups are ranked; name one --pred-group to use it."
        )


def _inputs(ws: Workspace, groups: Sequence[str]) -> dict[str, str]:
    """The METS and the folders of the groups read, which no output may overwrite."""
    folders = {
        os.path.dirname(os.path.normpath(os.path.join(ws.folder, f.href)))
        for g in groups
        for files in ws.page_files(g).values()
        for f in files
        if f.href and "://" not in f.href
    }
    return {"workspace": ws.mets, **{f"group folder {k}": path for k, path in enumerate(sorted(folders))}}


def _meta(ws: Workspace, gold_group: str, groups: Sequence[str]) -> dict[str, Any]:
    """The report keys a workspace adds: its inputs (the groups with their processors), and ``workspace``."""
    records = {g: processor_of(ws, g) for g in groups}
    inputs = {"workspace": ws.mets, "gold_group": gold_group}
    if len(groups) == 1:
        made = made_by(records[groups[0]])
        inputs["pred_group"] = groups[0] + ("" if made == "-" else f" ({made})")
    return {"inputs": inputs, "workspace": {"mets": ws.mets, "gold_group": gold_group, "groups": records}}


def _ranked(ws: Workspace, gold_group: str, pred_groups: Sequence[str], options: Options) -> Outcome:
    """Several groups ranked: the summary, ``--json`` (the fleet report) and ``--html`` (the fleet page)."""
    from ek.cli._commands._benchmark import fleet_payload
    from ek.cli._commands._inputs import _document_scoring
    from ek.ocr.workspace import evaluate_workspace

    scoring = _document_scoring(options)
    fleet = evaluate_workspace(
        ws.mets,
        gold_group=gold_group,
        pred_groups=pred_groups,
        level=options.level,
        keep_going=options.keep_going,
        read=options.reading(),
        **{k: v for k, v in scoring.items() if k != "profile"},  # the profile is read's
    )
    meta = _fleet_meta(ws, gold_group, fleet, options)
    payload = fleet_payload(fleet, meta)
    payload["groups"] = {
        row.name: {k: row.report.detail.get(k) for k in ("measures", "document_mean", "text_level")}
        for row in fleet.rows
    }
    text = write_json(options.json, payload) if options.json is not None else ""
    if options.html is not None:
        text += _write_page(options.html, fleet, payload, ws, scoring)
    return Outcome(stdout=text if "-" in (options.json, options.html) else summary(fleet, meta))


def _fleet_meta(ws: Workspace, gold_group: str, fleet: FleetReport, options: Options) -> Meta:
    """Inputs, settings, the text level read, ek version, date, the pages not read, and ``workspace``."""
    detail = fleet.rows[0].report.detail
    extra = _meta(ws, gold_group, [row.name for row in fleet.rows])
    errors = [
        {"side": side, "path": row.name if side == "pred" else gold_group, "id": str(i), "message": message}
        for row in fleet.rows
        for side, by_id in (row.report.detail.get("errors") or {}).items()
        for i, message in by_id.items()
    ]
    fallbacks = [f for row in fleet.rows for f in row.report.detail.get("fallbacks") or []]
    meta: dict[str, Any] = {  # the fleet report's "skipped" (group -> why) stays: no file was skipped
        "inputs": extra["inputs"],
        "settings": {
            "metric": fleet.metric,
            "normalize": detail.get("normalize"),
            "text_level": options.text_level,
            "profile": detail.get("profile"),
            "words": detail.get("words"),
            "segment": detail.get("segment"),
            "level": options.level,
        },
        "text_level": _levels_read(fleet),
        "ek_version": __version__,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "errors": [e for k, e in enumerate(errors) if e not in errors[:k]],
        "fallbacks": [f for k, f in enumerate(fallbacks) if f not in fallbacks[:k]],
        "workspace": extra["workspace"],
    }
    return meta  # type: ignore[return-value]  # Meta, with the workspace key


def _levels_read(fleet: FleetReport) -> object:
    """The text level read: one name when every document was read at it, else ``{"gold": ..., "pred": ...}``.

    A side read at several levels (groups read at their own) lists them, comma-separated.
    """
    sides: dict[str, set[str]] = {"gold": set(), "pred": set()}
    for row in fleet.rows:
        level = row.report.detail.get("text_level")
        for side, found in sides.items():
            value = level.get(side) if isinstance(level, dict) else level
            if value is not None:
                found.update(value if isinstance(value, dict) else [str(value)])
    if sides["gold"] == sides["pred"] and len(sides["gold"]) <= 1:
        return next(iter(sides["gold"]), None)
    return {side: ", ".join(sorted(found)) for side, found in sides.items()}


def _write_page(
    path: str, fleet: FleetReport, payload: Mapping[str, object], ws: Workspace, scoring: Mapping[str, Any]
) -> str:
    from ek.cli._commands._benchmark_gold import BenchmarkGold
    from ek.cli._commands._benchmark_page import fleet_page
    from ek.cli._html._fleet import render_fleet

    steps = scoring.get("normalize") or (["dinglehopper"] if scoring.get("profile") else ["nfc"])
    data = fleet_page(fleet, BenchmarkGold(records={}, documents=True, source=ws.mets), payload, list(steps))
    data["title"] = f"ek evaluate: {ws.mets}"
    return write_page(path, render_fleet(data))
