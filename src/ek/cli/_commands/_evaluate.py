"""``ek evaluate GOLD PRED``: the figure with its interval, overall and per slice; JSON, page, gate."""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ek._files import Side, join, refuse_failures
from ek.cli._commands import _format as fmt
from ek.cli._commands._format import Outcome
from ek.cli._commands._inputs import (
    Bounds,
    Scored,
    bound,
    gold_digest,
    item_rows,
    options_for,
    read_gold,
    read_joined,
    score,
)
from ek.cli._commands._meta import has_documents, run_meta
from ek.cli._commands._options import Options
from ek.cli._commands._outputs import check_outputs, write_json, write_page

if TYPE_CHECKING:
    from ek.base import Report
    from ek.cli._commands._saved import Lock
    from ek.cli._html._data import Meta


@dataclass(frozen=True)
class Sides:
    """GOLD and PRED already read (an OCR-D workspace's two groups), and the meta keys the report adds about them."""

    gold: Side
    pred: Side
    meta: Mapping[str, object] = field(default_factory=dict)


def run_evaluate(
    gold: str,
    pred: str,
    options: Options,
    *,
    save: str | None,
    workers: int | None = None,
    scheduler: str | None = None,
    timeout: float | None = None,
    per_page: bool | None = None,
    sides: Sides | None = None,
) -> Outcome:
    """The whole command: read, score (here, or on a Dask cluster), bound, then print, write and gate.

    With ``sides``, GOLD and PRED are read already, ``gold`` and ``pred`` only name them.
    """
    inputs = {"gold": gold, "pred": pred}
    check_outputs(inputs, options.json, options.html)

    def holding(held: tuple[str, Lock] | None) -> Outcome:
        return _evaluate(
            inputs,
            options,
            save=held,
            workers=workers,
            scheduler=scheduler,
            timeout=timeout,
            per_page=per_page,
            sides=sides,
        )

    if save is None:
        return holding(None)
    from ek.cli._commands._saved import release, reserve

    lock = reserve(save)  # the name checked, and its run locked for the whole command
    try:
        return holding((save, lock))
    finally:
        release(lock)  # a command that failed before saving frees the name too


def _evaluate(
    inputs: dict[str, str],
    options: Options,
    *,
    save: tuple[str, Lock] | None,
    workers: int | None,
    scheduler: str | None,
    timeout: float | None,
    per_page: bool | None = None,
    sides: Sides | None = None,
) -> Outcome:
    """`run_evaluate` once the outputs are checked and the ``--save`` name (``save = (name, lock)``) is held."""
    if workers is not None or scheduler is not None or timeout is not None:
        from ek.cli._commands._dask import check_cluster

        check_cluster(workers, scheduler, timeout)
    gold_side = read_gold(inputs["gold"], options) if sides is None else sides.gold
    options = options_for(gold_side, options)
    pred = inputs["pred"]
    if sides is None:
        joined = read_joined(gold_side, pred, options)
    else:
        joined = refuse_failures(join(gold_side, sides.pred), keep_going=options.keep_going)
    name = os.path.basename(pred) or pred
    if workers is None and scheduler is None:
        scored = score(joined, options, name=name)
    else:
        from ek.cli._commands._dask import score_on_dask

        keep = options.json is not None or options.html is not None or save is not None  # they list every item
        scored = score_on_dask(
            joined, options, name=name, workers=workers, scheduler=scheduler, keep_items=keep, timeout=timeout
        )
    report = scored.report
    overall, per_slice = quiet_bound(report, options.level, label="ek evaluate")
    judged = fmt.verdicts(report, options.level)
    meta = run_meta(inputs, options, [scored])
    if sides is not None:
        meta.update(sides.meta)  # type: ignore[typeddict-item]  # a workspace's inputs and processors
    out = []
    if options.json is not None:
        out.append(write_json(options.json, payload(scored, overall, per_slice, options.level, meta, judged=judged)))
    if options.html is not None:
        out.append(_write_page(options.html, scored, overall, per_slice, options, meta, judged))
    if save is not None:
        from ek.cli._commands._saved import save_run

        save_run(save[0], scored, gold_digest(gold_side), source=pred, options=options, lock=save[1])
    text = (
        "\n".join(t for t in out if t)
        if "-" in (options.json, options.html)
        else summary(scored, overall, per_slice, options.level, meta, per_page=per_page, judged=judged)
    )
    failed = gate(report.metric, report.aggregate, options.max, options.min)
    return Outcome(stdout=text, stderr=failed, exit_code=1 if failed else 0)


def summary(
    scored: Scored,
    overall: Bounds,
    per_slice: Mapping[object, Bounds],
    level: float,
    meta: Meta | None = None,
    *,
    per_page: bool | None = None,
    judged: fmt.Verdicts | None = None,
) -> str:
    """The printed table: overall and per slice, n, value and interval, then missing, extra, failed and skipped.

    An interval ``judged`` unreliable is marked in the table, its reason on a
    line below it. Documents add the measures line and, after it, the
    per-page table (`ek.cli._commands._format.per_page_lines`; ``per_page``
    is ``--per-page``).
    """
    report = scored.report
    way = fmt.direction(report.detail.get("higher_is_better"))
    head = [f"ek evaluate: {report.metric}" + (f" ({way})" if way else "") + f" on {report.n} items"]
    if meta is not None and has_documents([scored]):
        head.append(fmt.settings_line(meta))
    slice_n = report.detail.get("slice_n") or {}
    judged = judged or fmt.verdicts(report, level)
    rows = [
        [
            "all",
            str(report.n),
            fmt.number(report.aggregate),
            fmt.flagged_interval(fmt.interval(overall), judged.overall),
        ]
    ]
    rows += [
        [
            str(label),
            str(slice_n.get(label, "")),
            fmt.number(value),
            fmt.flagged_interval(fmt.interval(per_slice.get(label)), judged.per_slice.get(label)),
        ]
        for label, value in report.per_slice.items()
    ]
    lines = [
        *head,
        "",
        fmt.table(["slice", "n", report.metric, f"{level:.0%} interval"], rows),
        *judged.lines(),
        "",
        fmt.ids_line("missing", scored.missing, "gold ids without a prediction (scored as empty)")
        + fmt.left_out_words((meta or {}).get("errors") or []),
        fmt.ids_line("extra", scored.extra, "predictions without a gold id (ignored)"),
    ]
    lines += fmt.problem_lines(meta or {})
    lines += fmt.measure_lines(scored.documents)
    lines += fmt.per_page_lines(scored.documents.get("per_page"), per_page)
    return "\n".join(lines)


def payload(
    scored: Scored,
    overall: Bounds,
    per_slice: Mapping[object, Bounds],
    level: float,
    meta: Meta | None = None,
    *,
    judged: fmt.Verdicts | None = None,
) -> dict[str, object]:
    """The ``--json`` report: metric, aggregate, interval (with ``reliable``, ``why``, ``effective_n``), level, n,
    missing, extra, per_slice (each with its interval's verdict too), items, and the meta keys."""
    report = scored.report
    judged = judged or fmt.verdicts(report, level)
    slice_n = report.detail.get("slice_n") or {}
    ids = report.detail.get("ids") or range(report.n)
    out = {
        "metric": report.metric,
        "higher_is_better": report.detail.get("higher_is_better"),
        "aggregate": report.aggregate,
        "interval": list(overall),
        **fmt.verdict_fields(judged.overall),
        "level": level,
        "n": report.n,
        "missing": list(scored.missing),
        "extra": list(scored.extra),
        "per_slice": {
            label: {
                "aggregate": value,
                "interval": list(per_slice[label]),
                **fmt.verdict_fields(judged.per_slice[label]),
                "n": slice_n.get(label),
            }
            for label, value in report.per_slice.items()
        },
        "items": {
            str(i): {"value": value, **stats} for i, (value, stats) in zip(ids, item_rows(report, scored.facts()))
        },
    }
    out.update(scored.documents)
    out.update(meta or {})
    return out


def gate(metric: str, value: float | None, upper: float | None, lower: float | None) -> str:
    """The failure message of a ``--max`` / ``--min`` gate, or "" when the figure is within bounds."""
    if upper is None and lower is None:
        return ""
    if value is None or value != value:
        return f"FAIL: {metric} has no value to check against the bound."
    if upper is not None and value > upper:
        return f"FAIL: {metric} {fmt.number(value)} is above --max {upper:g}."
    if lower is not None and value < lower:
        return f"FAIL: {metric} {fmt.number(value)} is below --min {lower:g}."
    return ""


# ---------------------------------------------------------------------------


def quiet_bound(report: Report, level: float, *, label: str, other: Report | None = None) -> tuple[Any, Any]:
    """`bound`, without the `UserWarning` of an unreliable interval: the command prints its verdict instead."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=UserWarning, module=r"ek\.cli\._commands\._inputs")
        return bound(report, level, label=label, other=other)


def _write_page(
    path: str,
    scored: Scored,
    overall: Bounds,
    per_slice: Mapping[object, Bounds],
    options: Options,
    meta: Meta,
    judged: fmt.Verdicts,
) -> str:
    from ek.cli._commands._pages import evaluate_page
    from ek.cli._html import render_evaluate

    data: Any = evaluate_page(scored, overall, per_slice, options, meta=meta)
    data.update(fmt.verdict_fields(judged.overall))  # the page marks an unreliable interval (see _html._format)
    for label, row in data["per_slice"].items():
        row.update(fmt.verdict_fields(judged.per_slice[label]))
    return write_page(path, render_evaluate(data))
