"""The ``ek evaluate`` page: headline, slices, distribution, worst items, confusions, fields."""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Mapping
from typing import TypeVar

from ek.cli._html._chars import show
from ek.cli._html._charts import dot_whisker, histogram
from ek.cli._html._data import EvaluatePage, Item, SliceFigures
from ek.cli._html._diff import LEGEND, confusions_from_items, render_diff
from ek.cli._html._format import (
    count_cell,
    drawable,
    esc,
    fmt_count,
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
from ek.cli._html._measures import left_out_note, measures_table, reading_order_note
from ek.cli._html._page import check_data, id_list, page, stat, table
from ek.cli._html._provenance import failures, failures_note, generated, provenance

_MAX_SLICE_ROWS = 1000
_MAX_CHART_ROWS = 40
_MAX_CONFUSIONS = 50
_MAX_IDS = 1000


def render_evaluate(data: EvaluatePage, *, max_items: int = 200) -> str:
    """The evaluate page for ``data`` (see the package docstring) as one HTML string."""
    check_data(data, caller="render_evaluate", required=("metric", "aggregate"))
    pct = uses_percent(data)
    metric = str(data["metric"])
    title = str(data.get("title") or f"ek evaluate: {metric}")
    better = "higher" if data.get("higher_is_better") else "lower"
    subtitle = f"Metric <code>{esc(metric)}</code> ({better} is better). {generated(data)}"
    sections = [
        ("headline", "Headline", headline(data, pct=pct)),
        ("slices", "Per slice", slices(data, pct=pct)),
        ("distribution", "Per-item distribution", distribution(data, pct=pct)),
        ("worst", "Worst items", worst_items(data, pct=pct, limit=max_items)),
        ("confusions", "Most frequent confusions", confusions(data)),
        ("fields", "Fields", fields(data)),
        ("failures", "Files not scored", failures(data)),
        ("provenance", "Inputs and settings", provenance(data)),
    ]
    return page(title, subtitle, [s for s in sections if s[2]])


def headline(data: EvaluatePage, *, pct: bool) -> str:
    """The big number with its interval, n, the missing and extra ids, and the OCR measures when present."""
    agg = data["aggregate"]
    figures = [
        stat(
            str(data["metric"]),
            fmt_value(agg, percent=pct),
            big=True,
            attrs=f' id="headline-value" data-value="{esc(repr(agg))}" title="{esc(repr(agg))}"',
        ),
        stat(
            level_text(data),
            interval_text(
                data.get("interval"), n=data.get("n"), percent=pct, noun=noun(data), why=unreliable_why(data)
            ),
            attrs=' id="headline-interval"',
        ),
        stat("items (n)", fmt_count(data.get("n")), attrs=' id="headline-n"'),
        stat("missing", fmt_count(len(data.get("missing") or [])), attrs=' id="headline-missing"'),
        stat("extra", fmt_count(len(data.get("extra") or [])), attrs=' id="headline-extra"'),
    ]
    if data.get("errors"):  # unreadable documents are left out: never let "missing 0" read as "all scored"
        left = len({e.get("id") if isinstance(e, dict) else e for e in data["errors"]})
        figures.append(stat("left out (unreadable)", fmt_count(left), attrs=' id="headline-left-out"'))
    notes = failures_note(data) + reading_order_note(data) + measures_table(data) + left_out_note(data)
    if data.get("missing"):
        notes += '<p class="note">Missing: gold ids with no prediction, scored as empty predictions.</p>' + id_list(
            "missing ids", data["missing"], limit=_MAX_IDS
        )
    if data.get("extra"):
        notes += '<p class="note">Extra: predictions with no gold id, ignored.</p>' + id_list(
            "extra ids", data["extra"], limit=_MAX_IDS
        )
    return f'<div class="headline">{"".join(figures)}</div>{notes}'


def slices(data: EvaluatePage, *, pct: bool) -> str:
    """The sortable per-slice table under an "all" row, and the dot-and-whisker chart of slice intervals."""
    per = data.get("per_slice") or {}
    if not per:
        return ""
    worst_first = _order(per.items(), value=lambda kv: kv[1].get("aggregate"), data=data)
    counted = noun(data)
    whole: SliceFigures = {"aggregate": data["aggregate"], "interval": data.get("interval"), "n": data.get("n")}
    rows = [_slice_row(label, s, pct=pct, noun=counted) for label, s in worst_first[:_MAX_SLICE_ROWS]]
    out = table(
        "slice-table",
        ["slice", "n", "value", level_text(data)],
        rows,
        sort_col=2,
        descending=not data.get("higher_is_better"),
        pinned=_slice_row("all", whole, pct=pct, noun=counted, label_cls="all"),
    )
    out += shown_note(len(rows), len(per), "slices")
    chart_rows = [
        (label, s.get("aggregate"), drawable(s.get("interval"), s.get("n")))
        for label, s in worst_first[:_MAX_CHART_ROWS]
    ]
    out += dot_whisker(
        chart_rows,
        percent=pct,
        chart_id="slice-chart",
        xlabel=str(data["metric"]),
        title="Per-slice value with its interval; the dashed line is the overall value",
        reference=(data["aggregate"], "overall"),
    )
    return out + shown_note(len(chart_rows), len(per), "slices in the chart (worst first)")


def distribution(data: EvaluatePage, *, pct: bool) -> str:
    """The histogram of per-item values, with the corpus aggregate marked."""
    values = [it.get("value") for it in data.get("items") or []]
    if not values:
        return ""
    skipped = sum(1 for v in values if not is_number(v))
    note = f'<p class="note">{skipped:,} items without a finite value are left out.</p>' if skipped else ""
    return (
        histogram(
            values,
            percent=pct,
            chart_id="value-histogram",
            xlabel=f"per-item {data['metric']}",
            title="How many items fall in each range of the per-item value",
            marker=(data["aggregate"], "aggregate"),
        )
        + note
        + (
            '<p class="note">The aggregate is computed from summed statistics, so it need not be '
            "the mean of the per-item values.</p>"
        )
    )


def worst_items(data: EvaluatePage, *, pct: bool, limit: int) -> str:
    """The worst items in the metric's direction, each with its aligned diff."""
    items = [it for it in data.get("items") or [] if is_number(it.get("value"))]
    if not items:
        return ""
    pick = heapq.nsmallest if data.get("higher_is_better") else heapq.nlargest
    worst = pick(limit, items, key=_finite_value)
    rows = []
    for it in worst:
        rows.append(
            "<tr>"
            + text_cell(it.get("id"), cls="id")
            + text_cell(it.get("slice") or "–")
            + num_cell(it["value"], percent=pct)
            + text_cell(_stats(it.get("statistics")), cls="stats")
            + '<td class="diffcell">'
            + render_diff(it.get("ops"), unit=it.get("unit"), gold=it.get("gold"), pred=it.get("pred"))
            + "</td></tr>"
        )
    out = LEGEND + table(
        "items-table",
        ["id", "slice", "value", "statistics", "diff (gold → prediction)"],
        rows,
        sort_col=2,
        descending=not data.get("higher_is_better"),
        filter_hint="filter by id, slice or text",
    )
    return out + shown_note(len(rows), len(items), "items (the worst first)")


def confusions(data: EvaluatePage) -> str:
    """The most frequent substituted pairs and dropped or inserted units, with counts."""
    found = data.get("confusions")
    if found is None:
        found = confusions_from_items(data.get("items") or [])
    if not found:
        return ""
    top = sorted(found, key=lambda c: -(c.get("count") or 0))[:_MAX_CONFUSIONS]
    rows = [
        "<tr>"
        + text_cell(c.get("kind"))
        + _unit_cell(c.get("gold"))
        + _unit_cell(c.get("pred"))
        + count_cell(c.get("count"))
        + "</tr>"
        for c in top
    ]
    out = table("confusion-table", ["kind", "gold", "prediction", "count"], rows, sort_col=3, descending=True)
    return out + shown_note(len(rows), len(found), "confusions")


def fields(data: EvaluatePage) -> str:
    """Per-field precision, recall and F1, and a chart of the worst fields."""
    per = data.get("fields") or {}
    if not per:
        return ""
    ranked = sorted(
        per.items(), key=lambda kv: (_num(kv[1].get("f1"), 2.0), -((kv[1].get("fp") or 0) + (kv[1].get("fn") or 0)))
    )
    rows = [
        "<tr>"
        + text_cell(name)
        + num_cell(f.get("precision"), percent=True)
        + num_cell(f.get("recall"), percent=True)
        + num_cell(f.get("f1"), percent=True)
        + count_cell(f.get("tp"))
        + count_cell(f.get("fp"))
        + count_cell(f.get("fn"))
        + "</tr>"
        for name, f in ranked
    ]
    out = table("field-table", ["field", "precision", "recall", "F1", "TP", "FP", "FN"], rows, sort_col=3)
    worst = [(name, f.get("f1"), None) for name, f in ranked[:15]]
    out += "<h3>Worst fields</h3>" + dot_whisker(
        worst, percent=True, chart_id="field-chart", xlabel="F1", title="F1 of the fields with the lowest F1"
    )
    return out


def _slice_row(label: object, s: SliceFigures, *, pct: bool, noun: str, label_cls: str = "") -> str:
    return (
        "<tr>"
        + text_cell(label, cls=label_cls)
        + count_cell(s.get("n"))
        + num_cell(s.get("aggregate"), percent=pct)
        + interval_cell(s.get("interval"), n=s.get("n"), percent=pct, noun=noun, why=unreliable_why(s))
        + "</tr>"
    )


def _order(pairs: Iterable[_Pair], *, value: Callable[[_Pair], object], data: EvaluatePage) -> list[_Pair]:
    """``pairs`` worst first in the metric's direction; pairs without a value go last."""
    sign = 1 if data.get("higher_is_better") else -1
    return sorted(pairs, key=lambda kv: (not is_number(value(kv)), sign * _num(value(kv), 0.0), str(kv[0])))


_Pair = TypeVar("_Pair", bound=tuple[object, object])


def _finite_value(item: Item) -> float:
    """The item's value, for ranking the items that have a finite one."""
    value = item.get("value")
    return value if is_number(value) else 0.0


def _num(value: object, default: float) -> float:
    return value if is_number(value) else default


def _stats(statistics: Mapping[str, object] | None) -> str:
    if not statistics:
        return ""
    return " · ".join(f"{k} {fmt_count(v) if is_number(v) else v}" for k, v in statistics.items())


def _unit_cell(text: object) -> str:
    if text in (None, ""):
        return '<td class="note">–</td>'
    raw = str(text)
    return f'<td title="{esc(repr(raw))}"><code>{show(raw, changed=True)}</code></td>'
