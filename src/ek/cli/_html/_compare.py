"""The ``ek compare`` page: A against B overall and per slice, and the items that moved."""

from __future__ import annotations

import heapq

from ek.cli._html._charts import dot_whisker, histogram
from ek.cli._html._data import CompareItem, ComparePage, RunFigures, SliceDelta
from ek.cli._html._diff import LEGEND, render_diff
from ek.cli._html._format import (
    count_cell,
    drawable,
    esc,
    fmt_count,
    fmt_p,
    fmt_value,
    interval_cell,
    interval_text,
    is_number,
    level_text,
    noun,
    num_cell,
    shown_note,
    text_cell,
    unreliable_why,
    uses_percent,
)
from ek.cli._html._page import check_data, page, stat, table
from ek.cli._html._provenance import failures, failures_note, generated, provenance

_MAX_SLICE_ROWS = 1000
_MAX_CHART_ROWS = 40


def render_compare(data: ComparePage, *, max_items: int = 200) -> str:
    """The comparison page for ``data`` (see the package docstring) as one HTML string."""
    check_data(data, caller="render_compare", required=("metric", "a", "b", "delta"))
    pct = uses_percent(data)
    metric = str(data["metric"])
    a, b = _name(data, "a"), _name(data, "b")
    title = str(data.get("title") or f"ek compare: {metric}, {a} vs {b}")
    better = "higher" if data.get("higher_is_better") else "lower"
    subtitle = (
        f"Metric <code>{esc(metric)}</code> ({better} is better); difference = "
        f"B ({esc(b)}) − A ({esc(a)}), paired by item id. {generated(data)}"
    )
    worse, improved = _moved(data)
    sections = [
        ("headline", "Headline", headline(data, pct=pct)),
        ("slices", "Per-slice differences", slices(data, pct=pct)),
        ("distribution", "Per-item differences", distribution(data, pct=pct)),
        ("worse", "Items that got worse", moved_items(data, worse, pct=pct, limit=max_items, table_id="worse-table")),
        (
            "better",
            "Items that got better",
            moved_items(data, improved, pct=pct, limit=max_items, table_id="better-table"),
        ),
        ("failures", "Files not scored", failures(data)),
        ("provenance", "Inputs and settings", provenance(data)),
    ]
    return page(title, subtitle, [s for s in sections if s[2]])


def headline(data: ComparePage, *, pct: bool) -> str:
    """A and B with their intervals, the difference with its paired interval, p-value and verdict."""
    n, counted, interval_of = data.get("n"), noun(data), level_text(data)
    figures = []
    for side in ("a", "b"):
        run = _run(data, side)
        value = run.get("aggregate")
        raw = esc(repr(value))
        figures.append(
            stat(
                f"{side.upper()}: {_name(data, side)}",
                fmt_value(value, percent=pct),
                attrs=f' id="headline-{side}" data-value="{raw}" title="{raw}"',
            )
        )
        figures.append(
            stat(
                f"{side.upper()} {interval_of}",
                interval_text(run.get("interval"), n=n, percent=pct, noun=counted, why=unreliable_why(run)),
            )
        )
    delta = data["delta"]
    raw = esc(repr(delta))
    figures += [
        stat(
            "B − A",
            fmt_value(delta, percent=pct, signed=True),
            big=True,
            attrs=f' id="headline-value" data-value="{raw}" title="{raw}"',
        ),
        stat(
            f"paired {interval_of}",
            interval_text(data.get("interval"), n=n, percent=pct, noun=counted, signed=True, why=unreliable_why(data)),
            attrs=' id="headline-interval"',
        ),
        stat("p-value", fmt_p(data.get("p_value")), attrs=' id="headline-p"'),
        stat("verdict", verdict_badge(data.get("verdict")), attrs=' id="headline-verdict"'),
        stat("items (n)", fmt_count(data.get("n")), attrs=' id="headline-n"'),
    ]
    return f'<div class="headline">{"".join(figures)}</div>{failures_note(data)}'


def verdict_badge(verdict: str | None) -> str:
    """The verdict as a labelled badge: its words carry the meaning, the colour only repeats it."""
    if not verdict:
        return "–"
    cls = {"better": "verdict-better", "worse": "verdict-worse"}.get(str(verdict), "verdict-none")
    symbol = {"better": "▲ ", "worse": "▼ ", "no detectable difference": "= "}.get(str(verdict), "")
    return f'<span class="verdict {cls}">{symbol}{esc(verdict)}</span>'


def slices(data: ComparePage, *, pct: bool) -> str:
    """The sortable per-slice table of A, B and B − A under an "all" row, and the chart of the differences."""
    per = data.get("per_slice") or {}
    if not per:
        return ""
    ordered = sorted(per.items(), key=lambda kv: str(kv[0]))
    whole: SliceDelta = {
        "a": (data.get("a") or {}).get("aggregate"),
        "b": (data.get("b") or {}).get("aggregate"),
        "delta": data["delta"],
        "interval": data.get("interval"),
        "p_value": data.get("p_value"),
        "verdict": data.get("verdict"),
        "n": data.get("n"),
    }
    counted = noun(data)
    rows = [_slice_row(label, s, pct=pct, noun=counted) for label, s in ordered[:_MAX_SLICE_ROWS]]
    out = table(
        "slice-table",
        ["slice", "n", "A", "B", "B − A", "interval of B − A", "p-value", "verdict"],
        rows,
        sort_col=0,
        pinned=_slice_row("all", whole, pct=pct, noun=counted, label_cls="all"),
    )
    out += shown_note(len(rows), len(per), "slices")
    chart_rows = [
        (label, s.get("delta"), drawable(s.get("interval"), s.get("n"))) for label, s in ordered[:_MAX_CHART_ROWS]
    ]
    out += dot_whisker(
        chart_rows,
        percent=pct,
        chart_id="slice-chart",
        signed=True,
        xlabel=f"B − A ({data['metric']})",
        reference=(0.0, "no difference"),
        title="Per-slice difference B − A with its paired interval; the dashed line is zero",
    )
    return out + shown_note(len(chart_rows), len(per), "slices in the chart")


def distribution(data: ComparePage, *, pct: bool) -> str:
    """The histogram of per-item differences among the items whose value changed."""
    deltas = [_delta(it) for it in data.get("items") or []]
    changed = [d for d in deltas if is_number(d) and d != 0]
    if not changed:
        return '<p class="note">No item changed value between A and B.</p>' if deltas else ""
    same = sum(1 for d in deltas if d == 0)
    return histogram(
        changed,
        percent=pct,
        chart_id="delta-histogram",
        xlabel=f"per-item B − A ({data['metric']})",
        title="Per-item differences B − A among the items that changed",
        marker=(0.0, "0"),
    ) + (f'<p class="note">{len(changed):,} items changed; {same:,} have the same value in A and B.</p>')


def moved_items(data: ComparePage, moved: list[CompareItem], *, pct: bool, limit: int, table_id: str) -> str:
    """The items that moved the most, A's diff next to B's diff."""
    if not moved:
        return '<p class="note">None.</p>' if data.get("items") else ""
    top = heapq.nlargest(limit, moved, key=lambda it: abs(_delta(it) or 0.0))  # moved: a non-zero delta
    rows = []
    for it in top:
        unit, gold = it.get("unit"), it.get("gold")
        rows.append(
            "<tr>"
            + text_cell(it.get("id"), cls="id")
            + text_cell(it.get("slice") or "–")
            + num_cell(it.get("a"), percent=pct)
            + num_cell(it.get("b"), percent=pct)
            + num_cell(_delta(it), percent=pct, signed=True)
            + f'<td class="diffcell">{render_diff(it.get("ops_a"), unit=unit, gold=gold, pred=it.get("pred_a"))}</td>'
            + f'<td class="diffcell">{render_diff(it.get("ops_b"), unit=unit, gold=gold, pred=it.get("pred_b"))}</td>'
            + "</tr>"
        )
    headers = ["id", "slice", "A", "B", "B − A", f"A: {_name(data, 'a')}", f"B: {_name(data, 'b')}"]
    out = LEGEND + table(table_id, headers, rows, filter_hint="filter by id, slice or text")
    return out + shown_note(len(rows), len(moved), "items (the largest changes first)")


def _slice_row(label: object, s: SliceDelta, *, pct: bool, noun: str, label_cls: str = "") -> str:
    p = s.get("p_value")
    return (
        "<tr>"
        + text_cell(label, cls=label_cls)
        + count_cell(s.get("n"))
        + num_cell(s.get("a"), percent=pct)
        + num_cell(s.get("b"), percent=pct)
        + num_cell(s.get("delta"), percent=pct, signed=True)
        + interval_cell(s.get("interval"), n=s.get("n"), percent=pct, noun=noun, signed=True, why=unreliable_why(s))
        + f'<td class="num" data-sort="{esc(repr(p)) if is_number(p) else ""}">{fmt_p(p)}</td>'
        + f'<td data-sort="{esc(s.get("verdict") or "")}">{verdict_badge(s.get("verdict"))}</td></tr>'
    )


def _moved(data: ComparePage) -> tuple[list[CompareItem], list[CompareItem]]:
    """The items that got worse and those that got better, in the metric's direction."""
    up_is_good = bool(data.get("higher_is_better"))
    worse: list[CompareItem] = []
    improved: list[CompareItem] = []
    for it in data.get("items") or []:
        d = _delta(it)
        if not is_number(d) or d == 0:
            continue
        (improved if (d > 0) == up_is_good else worse).append(it)
    return worse, improved


def _delta(item: CompareItem) -> float | None:
    d, a, b = item.get("delta"), item.get("a"), item.get("b")
    if d is None and is_number(a) and is_number(b):
        return b - a
    return d


def _name(data: ComparePage, side: str) -> str:
    return str(_run(data, side).get("name") or side.upper())


def _run(data: ComparePage, side: str) -> RunFigures:
    """Run ``a`` or ``b`` of the page, {} when it has none."""
    return (data.get("a") if side == "a" else data.get("b")) or {}
