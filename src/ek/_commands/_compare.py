"""``ek compare GOLD PRED_A PRED_B``: B - A with its paired interval, p-value and verdict."""

from __future__ import annotations

import os
from typing import Optional

from ek._commands import _format as fmt
from ek._commands._format import Outcome
from ek._commands._evaluate import gate
from ek._commands._inputs import Options, Scored, bound, gold_digest, read_gold, read_joined, score
from ek._bootstrap import check_comparable
from ek._files import InputError
from ek.base import Comparison
from ek.facade import compare


def run_compare(gold: str, pred_a: str, pred_b: str, options: Options, *, json_path: Optional[str],
                html_path: Optional[str], upper: Optional[float], lower: Optional[float],
                fail_on_regression: bool) -> Outcome:
    """The whole command: read GOLD once, score or load both runs, compare, then print, write and gate."""
    if pred_a == "-" and pred_b == "-":
        raise InputError("PRED_A and PRED_B are both - (stdin); standard input can give only one of them.")
    gold_side = read_gold(gold, options)
    digest = gold_digest(gold_side)
    runs = [_run(gold_side, digest, source, options, role) for source, role in ((pred_a, "PRED_A"), (pred_b, "PRED_B"))]
    a, b = runs
    check_comparable(a.report, b.report)  # different metrics or items: say so before any resampling
    bounds = [bound(a.report, options.level, label="ek compare", other=b.report)[0],
              bound(b.report, options.level, label="ek compare")[0]]
    result = compare(a.report, b.report, level=options.level)
    if json_path is not None:
        text = fmt.write_json(json_path, payload(result, a, b, bounds))
    else:
        text = ""
    if html_path is not None:
        from ek._commands._pages import compare_page
        from ek._html import render_compare, write_page

        write_page(html_path, render_compare(compare_page(result, a, b, bounds, options)))
    if json_path != "-":
        text = summary(result, a, b, bounds)
    failures = [gate(result.metric, b.report.aggregate, upper, lower)]
    if fail_on_regression and result.verdict == "worse":
        failures.append(f"FAIL: B ({b.name}) is significantly worse than A ({a.name}): "
                        f"B - A = {fmt.number(result.delta, signed=True)}, p = {fmt.p_value(result.p_value)}.")
    failed = "\n".join(f for f in failures if f)
    return Outcome(stdout=text, stderr=failed, exit_code=1 if failed else 0)


def summary(result: Comparison, a: Scored, b: Scored, bounds: list) -> str:
    """The printed table: A, B, B - A, its interval, p-value and verdict, overall and per slice."""
    way = {True: "higher is better", False: "lower is better"}.get(result.higher_is_better, "direction unknown")
    head = (f"ek compare: {result.metric} ({way}) on {result.n} items\n"
            f"A = {a.name}: {fmt.number(a.report.aggregate)} {fmt.interval(bounds[0])}\n"
            f"B = {b.name}: {fmt.number(b.report.aggregate)} {fmt.interval(bounds[1])}")
    rows = [_row("all", result.n, result.a, result.b, result.delta, result.interval, result.p_value, result.verdict)]
    for label, s in result.per_slice.items():
        rows.append(_row(str(label), s.get("n"), s["a"], s["b"], s["delta"], s["interval"], s["p_value"],
                         s["verdict"]))
    header = ["slice", "n", "A", "B", "B - A", f"{result.level:.0%} interval of B - A", "p", "verdict"]
    lines = [head, "", fmt.table(header, rows)]
    for run, side in ((a, "A"), (b, "B")):
        if run.missing or run.extra:
            lines.append(f"{side}: " + fmt.ids_line("missing", run.missing, "gold ids without a prediction")
                         + "; " + fmt.ids_line("extra", run.extra, "predictions without gold"))
    return "\n".join(lines)


def payload(result: Comparison, a: Scored, b: Scored, bounds: list) -> dict:
    """The ``--json`` report: metric, a, b, delta, interval, p_value, verdict, per_slice, and both runs."""
    return {
        "metric": result.metric, "higher_is_better": result.higher_is_better, "level": result.level,
        "n": result.n, "a": result.a, "b": result.b, "delta": result.delta, "interval": list(result.interval),
        "p_value": result.p_value, "verdict": result.verdict,
        "per_slice": {label: dict(s) for label, s in result.per_slice.items()},
        "runs": {side: {"name": run.name, "aggregate": run.report.aggregate, "interval": list(iv),
                        "missing": list(run.missing), "extra": list(run.extra)}
                 for side, run, iv in (("a", a, bounds[0]), ("b", b, bounds[1]))},
    }


def _row(label, n, a, b, delta, interval, p, verdict) -> list:
    return [label, "" if n is None else str(n), fmt.number(a), fmt.number(b), fmt.number(delta, signed=True),
            fmt.interval(interval, signed=True), fmt.p_value(p), verdict]


def _run(gold_side, digest: str, source: str, options: Options, role: str) -> Scored:
    """A prediction file scored now, or a run saved with ``ek evaluate --save`` (``run:NAME``, or a bare NAME)."""
    from ek._commands._saved import load_run, saved_name

    name = saved_name(source, role=role)
    if name is None:
        return score(read_joined(gold_side, source, options), options, name=os.path.basename(source) or source)
    return load_run(name, digest, role=role, options=options)
