"""``ek compare GOLD PRED_A PRED_B``: B - A with its paired interval, p-value and verdict."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ek._bootstrap import check_comparable
from ek._files import InputError, Side, leave_out
from ek.base import Comparison
from ek.cli._commands import _format as fmt
from ek.cli._commands._evaluate import gate, quiet_bound
from ek.cli._commands._format import Outcome
from ek.cli._commands._inputs import (
    Bounds,
    Scored,
    check_gold,
    gold_digest,
    options_for,
    read_gold,
    read_joined,
    score,
)
from ek.cli._commands._meta import has_documents, run_meta
from ek.cli._commands._options import Options, in_flags
from ek.cli._commands._outputs import check_outputs, write_json, write_page
from ek.facade import compare

if TYPE_CHECKING:
    from ek.cli._html._data import Meta


def run_compare(
    gold: str,
    pred_a: str,
    pred_b: str,
    options: Options,
    *,
    fail_on_regression: bool,
) -> Outcome:
    """The whole command: read GOLD once, score or load both runs, compare, then print, write and gate."""
    inputs = {"gold": gold, "pred_a": pred_a, "pred_b": pred_b}
    check_outputs(inputs, options.json, options.html)
    if pred_a == "-" and pred_b == "-":
        raise InputError("PRED_A and PRED_B are both - (stdin); standard input can give only one of them.")
    gold_side = read_gold(gold, options)
    options = options_for(gold_side, options)
    a, b = _runs(gold_side, ((pred_a, "PRED_A"), (pred_b, "PRED_B")), options)
    try:  # different metrics or items: say so before any resampling
        check_comparable(a.report, b.report)
    except ValueError as exc:
        raise in_flags(exc, "compare", {}) from None  # run A and run B, as --help calls them
    bounds = [
        quiet_bound(a.report, options.level, label="ek compare", other=b.report)[0],
        quiet_bound(b.report, options.level, label="ek compare")[0],
    ]
    result = compare(a.report, b.report, level=options.level)
    meta = run_meta(inputs, options, [a, b])
    text = write_json(options.json, payload(result, a, b, bounds, meta)) if options.json is not None else ""
    if options.html is not None:
        text += _write_page(options.html, result, a, b, bounds, options, meta)
    if "-" not in (options.json, options.html):
        text = summary(result, a, b, bounds, meta)
    failures = [gate(result.metric, b.report.aggregate, options.max, options.min)]
    if fail_on_regression and result.verdict == "worse":
        failures.append(
            f"FAIL: B ({b.name}) is significantly worse than A ({a.name}): "
            f"B - A = {fmt.number(result.delta, signed=True)}, p = {fmt.p_value(result.p_value)}."
        )
    failed = "\n".join(f for f in failures if f)
    return Outcome(stdout=text, stderr=failed, exit_code=1 if failed else 0)


def summary(result: Comparison, a: Scored, b: Scored, bounds: Sequence[Bounds], meta: Meta | None = None) -> str:
    """The printed table: A, B, B - A, its interval, p-value and verdict, overall and per slice."""
    way = fmt.direction(result.higher_is_better, unknown="direction unknown")
    head = [f"ek compare: {result.metric} ({way}) on {result.n} items"]
    if meta is not None and has_documents([a, b]):
        head.append(fmt.settings_line(meta))
    runs = [run.report.bounds(result.level) for run in (a, b)]
    head += [
        f"{side} = {run.name}: {fmt.number(run.report.aggregate)} {fmt.flagged_interval(fmt.interval(iv), judged)}"
        for side, run, iv, judged in (("A", a, bounds[0], runs[0]), ("B", b, bounds[1], runs[1]))
    ]
    rows = [_row("all", result.n, result.a, result.b, result.delta, result.interval, result.p_value, result.verdict)]
    rows[0][5] = _flagged(rows[0][5], result.interval, result.reliable)
    why = [("all", result.interval, result.reliable, result.why)]
    for label, s in result.per_slice.items():
        rows.append(_row(str(label), s.get("n"), s["a"], s["b"], s["delta"], s["interval"], s["p_value"], s["verdict"]))
        rows[-1][5] = _flagged(rows[-1][5], s["interval"], s.get("reliable", True))
        why.append((str(label), s["interval"], s.get("reliable", True), s.get("why")))
    header = ["slice", "n", "A", "B", "B - A", f"{result.level:.0%} interval of B - A", "p", "verdict"]
    lines = [*head, "", fmt.table(header, rows)]
    lines += [
        f"unreliable interval of {side} ({run.name}): {judged.why}"
        for side, run, judged in (("A", a, runs[0]), ("B", b, runs[1]))
        if not judged.reliable and judged.why and judged.low == judged.low
    ]
    lines += [
        f"unreliable interval of B - A ({name}): {reason}"
        for name, iv, ok, reason in why
        if not ok and reason and iv[0] == iv[0]
    ]
    for run, side in ((a, "A"), (b, "B")):
        if run.missing or run.extra:
            lines.append(
                f"{side}: "
                + fmt.ids_line("missing", run.missing, "gold ids without a prediction")
                + "; "
                + fmt.ids_line("extra", run.extra, "predictions without gold")
            )
    return "\n".join(lines + fmt.problem_lines(meta or {}))


def payload(
    result: Comparison, a: Scored, b: Scored, bounds: Sequence[Bounds], meta: Meta | None = None
) -> dict[str, object]:
    """The ``--json`` report: metric, a, b, delta, interval, p_value, verdict, per_slice, both runs, and the meta keys."""
    return {
        "metric": result.metric,
        "higher_is_better": result.higher_is_better,
        "level": result.level,
        "n": result.n,
        "a": result.a,
        "b": result.b,
        "delta": result.delta,
        "interval": list(result.interval),
        "reliable": result.reliable,
        "why": result.why,
        "p_value": result.p_value,
        "verdict": result.verdict,
        "per_slice": {label: dict(s) for label, s in result.per_slice.items()},
        "runs": {
            side: {
                "name": run.name,
                "aggregate": run.report.aggregate,
                "interval": list(iv),
                **fmt.verdict_fields(run.report.bounds(result.level)),
                "missing": list(run.missing),
                "extra": list(run.extra),
            }
            for side, run, iv in (("a", a, bounds[0]), ("b", b, bounds[1]))
        },
        **(meta or {}),
    }


def _row(
    label: str,
    n: int | None,
    a: float | None,
    b: float | None,
    delta: float | None,
    interval: Bounds | None,
    p: float | None,
    verdict: str,
) -> list[str]:
    return [
        label,
        "" if n is None else str(n),
        fmt.number(a),
        fmt.number(b),
        fmt.number(delta, signed=True),
        fmt.interval(interval, signed=True),
        fmt.p_value(p),
        verdict,
    ]


def _flagged(cell: str, interval: Bounds, reliable: bool) -> str:
    """The interval cell, marked ``(unreliable)`` when it has bounds that cannot be trusted."""
    return f"{cell} (unreliable)" if not reliable and interval[0] == interval[0] else cell


def _runs(gold_side: Side, sources: tuple[tuple[str, str], ...], options: Options) -> list[Scored]:
    """Each prediction file scored now (on the items every file could be read for), or a run saved by ``--save``.

    A source is a saved run when `ek.cli._commands._saved.saved_name` says so (``run:NAME``, or a bare NAME).
    """
    from ek.cli._commands._saved import load_run, saved_name

    names = {role: saved_name(source, role=role) for source, role in sources}
    read = {role: read_joined(gold_side, source, options) for source, role in sources if names[role] is None}
    if not read:
        check_gold(gold_side, options)
    failed = {f.id for joined in read.values() for f in joined.failures if f.side == "pred"}  # --keep-going
    digest = gold_digest(gold_side)
    runs = []
    for source, role in sources:
        saved = names[role]
        if saved is None:  # read above
            runs.append(score(leave_out(read[role], failed), options, name=os.path.basename(source) or source))
        else:
            runs.append(load_run(saved, digest, role=role, options=options))
    return runs


def _write_page(
    path: str, result: Comparison, a: Scored, b: Scored, bounds: Sequence[Bounds], options: Options, meta: Meta
) -> str:
    from ek.cli._commands._pages import compare_page
    from ek.cli._html import render_compare

    data: Any = compare_page(result, a, b, bounds, options, meta=meta)
    data.update(reliable=result.reliable, why=result.why)  # the page marks an unreliable interval
    for side, run in (("a", a), ("b", b)):
        data[side].update(fmt.verdict_fields(run.report.bounds(result.level)))
    for label, row in data.get("per_slice", {}).items():
        row.setdefault("reliable", result.per_slice[label].get("reliable", True))
        row.setdefault("why", result.per_slice[label].get("why"))
    return write_page(path, render_compare(data))
