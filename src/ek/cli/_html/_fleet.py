"""The ``ek benchmark`` page: a fleet of OCR engines ranked, each paired with the best, and their readings.

Built from the evaluate and compare pages' pieces (tables, interval charts,
verdict badges, aligned diffs, provenance). The data (any key but ``metric``
and ``ranking`` may be absent)::

    {"title", "metric", "higher_is_better", "percent", "level", "n", "noun": "pages", "best": name,
     "ranking": [{"rank", "name", "engine", "aggregate", "interval", "n", "best", "consensus",
                  "delta", "delta_interval", "p_value", "n_compared", "verdict",
                  "seconds_median", "seconds_p95", "n_errors", "n_timeouts", "errors": {id: message},
                  "mean_confidence", "calibration": {"unit", "n", "ece", "curve": [...]} | None}],
     "per_slice": {label: {name: {"aggregate", "interval", "n", "delta", "delta_interval",
                                  "p_value", "verdict"}}},
     "worst": [{"name": name, "items": [{"id", "slice", "value", "gold", "pred", "ops", "unit",
                                          "confidence"}]}],
     "side_by_side": {"id", "slice", "gold", "readings": [{"name", "value", "pred", "ops", "unit"}]},
     "skipped": {engine: why}, "unreadable": {id: why},
     + the provenance keys of `ek.cli._html._provenance`}

``#headline-value`` holds the best engine's figure (its exact ``repr`` in
``data-value``), as on the other pages.
"""

from __future__ import annotations

from ek.cli._html._charts import dot_whisker
from ek.cli._html._compare import verdict_badge
from ek.cli._html._data import JsonReport
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
    num_cell,
    shown_note,
    text_cell,
    uses_percent,
)
from ek.cli._html._page import check_data, page, stat, table
from ek.cli._html._provenance import failures, failures_note, generated, provenance

_MAX_CHART_ROWS = 40


def render_fleet(data: JsonReport) -> str:
    """The fleet page for ``data`` (see the module docstring) as one HTML string."""
    check_data(data, caller="render_fleet", required=("metric", "ranking"))
    pct = uses_percent(data)
    metric = str(data["metric"])
    title = str(data.get("title") or f"ek benchmark: {metric}")
    better = "higher" if data.get("higher_is_better") else "lower"
    subtitle = (
        f"Metric <code>{esc(metric)}</code> ({better} is better); every engine read the same pages and is "
        f"compared with the best one, paired by page. {generated(data)}"
    )
    sections = [
        ("ranking", "Ranking", ranking(data, pct=pct)),
        ("slices", "Per slice", slices(data, pct=pct)),
        ("side-by-side", "One page, every engine", side_by_side(data, pct=pct)),
        ("worst", "Worst pages of each engine", worst_pages(data, pct=pct)),
        ("calibration", "Confidence and calibration", calibration(data)),
        ("failures", "Engines and pages left out", left_out(data)),
        ("provenance", "Inputs and settings", provenance(data)),
    ]
    return page(title, subtitle, [s for s in sections if s[2]])


def ranking(data: JsonReport, *, pct: bool) -> str:
    """The best engine's figure, the ranking table, and the charts of the figures and of the differences."""
    rows = list(data["ranking"])
    best = next((r for r in rows if r.get("best")), rows[0] if rows else {})
    counted = str(data.get("noun") or "pages")
    body = [_ranking_row(r, pct=pct, noun=counted) for r in rows]
    out = (
        _headline(data, rows, best, pct=pct)
        + failures_note(data)
        + table("ranking-table", [*_HEADERS[:3], level_text(data), *_HEADERS[3:]], body, sort_col=0)
    )
    return (
        out
        + _charts(data, rows, best.get("aggregate"), pct=pct)
        + (
            '<p class="note">Intervals need 40 or more pages; below that ek gives none and a p-value from an '
            "exact paired permutation test, which cannot call a difference on a handful of pages.</p>"
        )
    )


_HEADERS = [
    "rank",
    "engine",
    "value",
    "vs best",
    "interval of the difference",
    "p-value",
    "verdict",
    "s/page",
    "p95 s/page",
    "errors",
    "mean confidence",
    "ECE",
]


def _headline(data: JsonReport, rows: list[JsonReport], best: JsonReport, *, pct: bool) -> str:
    value, counted = best.get("aggregate"), str(data.get("noun") or "pages")
    head = [
        stat(
            f"best: {best.get('name', '–')}",
            fmt_value(value, percent=pct),
            big=True,
            attrs=f' id="headline-value" data-value="{esc(repr(value))}" title="{esc(repr(value))}"',
        ),
        stat(
            level_text(data),
            interval_text(best.get("interval"), n=best.get("n"), percent=pct, noun=counted, why=best.get("why")),
        ),
        stat(f"{counted} (n)", fmt_count(data.get("n")), attrs=' id="headline-n"'),
        stat("engines", fmt_count(sum(1 for r in rows if not r.get("consensus")))),
    ]
    return f'<div class="headline">{"".join(head)}</div>'


def _charts(data: JsonReport, rows: list[JsonReport], value: object, *, pct: bool) -> str:
    """Each engine's figure with its interval, then each engine's paired difference to the best."""
    chart = [(_label(r), r.get("aggregate"), drawable(r.get("interval"), r.get("n"))) for r in rows[:_MAX_CHART_ROWS]]
    out = (
        dot_whisker(
            chart,
            percent=pct,
            chart_id="ranking-chart",
            xlabel=str(data["metric"]),
            title="Each engine's figure with its interval; the dashed line is the best engine's",
            reference=(value, "best"),
        )
        if is_number(value)
        else ""
    )
    deltas = [
        (_label(r), r.get("delta"), drawable(r.get("delta_interval"), r.get("n_compared")))
        for r in rows[:_MAX_CHART_ROWS]
        if is_number(r.get("delta"))
    ]
    if deltas:
        out += dot_whisker(
            deltas,
            percent=pct,
            chart_id="delta-chart",
            signed=True,
            xlabel=f"difference to the best ({data['metric']})",
            reference=(0.0, "no difference"),
            title="Each engine minus the best, with its paired interval; the dashed line is zero",
        )
    return out


def slices(data: JsonReport, *, pct: bool) -> str:
    """Every slice's figure per engine, with the difference to the best in that slice."""
    per = data.get("per_slice") or {}
    if not per:
        return ""
    counted = str(data.get("noun") or "pages")
    rows, chart = [], []
    for label, by_name in sorted(per.items(), key=lambda kv: str(kv[0])):
        for name, s in by_name.items():
            rows.append(
                "<tr>"
                + text_cell(label)
                + text_cell(name)
                + count_cell(s.get("n"))
                + num_cell(s.get("aggregate"), percent=pct)
                + interval_cell(s.get("interval"), n=s.get("n"), percent=pct, noun=counted, why=s.get("why"))
                + num_cell(s.get("delta"), percent=pct, signed=True)
                + interval_cell(
                    s.get("delta_interval"),
                    n=s.get("n"),
                    percent=pct,
                    noun=counted,
                    signed=True,
                    why=s.get("delta_why"),
                )
                + f"<td>{verdict_badge(s.get('verdict'))}</td></tr>"
            )
            chart.append((f"{label} · {name}", s.get("aggregate"), drawable(s.get("interval"), s.get("n"))))
    out = table(
        "fleet-slice-table",
        ["slice", "engine", "n", "value", level_text(data), "vs best", "interval of the difference", "verdict"],
        rows,
        sort_col=0,
    )
    out += dot_whisker(
        chart[:_MAX_CHART_ROWS],
        percent=pct,
        chart_id="fleet-slice-chart",
        xlabel=str(data["metric"]),
        title="Each engine's figure per slice, with its interval",
    )
    return out + shown_note(min(len(chart), _MAX_CHART_ROWS), len(chart), "slice rows in the chart")


def side_by_side(data: JsonReport, *, pct: bool) -> str:
    """One page as every engine read it (the page on which their figures differ most), diff by diff."""
    page_data = data.get("side_by_side")
    if not page_data:
        return ""
    rows = [
        "<tr>"
        + text_cell(r.get("name"), cls="id")
        + num_cell(r.get("value"), percent=pct)
        + f'<td class="diffcell">{render_diff(r.get("ops"), unit=r.get("unit"), gold=page_data.get("gold"), pred=r.get("pred"))}</td></tr>'
        for r in page_data.get("readings") or []
    ]
    intro = (
        f'<p class="note">Page <code>{esc(page_data.get("id"))}</code>'
        + (f" (slice {esc(page_data.get('slice'))})" if page_data.get("slice") else "")
        + ": the page on which the engines' figures are furthest apart. Its true text:</p>"
        + f'<table><tbody><tr><td class="diffcell">{render_diff(None, unit="char", gold=page_data.get("gold"), pred=page_data.get("gold"))}</td></tr></tbody></table>'
    )
    return intro + LEGEND + table("side-by-side-table", ["engine", "value", "diff (gold → reading)"], rows)


def worst_pages(data: JsonReport, *, pct: bool) -> str:
    """Each engine's worst pages with their aligned diffs."""
    out = []
    for k, block in enumerate(data.get("worst") or []):
        items = block.get("items") or []
        if not items:
            continue
        rows = [
            "<tr>"
            + text_cell(it.get("id"), cls="id")
            + text_cell(it.get("slice") or "–")
            + num_cell(it.get("value"), percent=pct)
            + num_cell(it.get("confidence"), percent=False)
            + f'<td class="diffcell">{render_diff(it.get("ops"), unit=it.get("unit"), gold=it.get("gold"), pred=it.get("pred"))}</td></tr>'
            for it in items
        ]
        out.append(
            f"<h3>{esc(block.get('name'))}</h3>"
            + table(
                f"worst-table-{k}",
                ["page", "slice", "value", "confidence", "diff (gold → reading)"],
                rows,
                sort_col=2,
                descending=not data.get("higher_is_better"),
                filter_hint="filter by page or text",
            )
        )
    return LEGEND + "".join(out) if out else ""


def calibration(data: JsonReport) -> str:
    """Each engine's mean confidence, ECE and reliability points: does it know when it is wrong?"""
    rows, points = [], []
    for r in data.get("ranking") or []:
        cal = r.get("calibration")
        if not cal:
            continue
        rows.append(
            "<tr>"
            + text_cell(r.get("name"))
            + text_cell(cal.get("unit"))
            + count_cell(cal.get("n"))
            + num_cell(r.get("mean_confidence"), percent=False)
            + num_cell(cal.get("ece"), percent=False)
            + "</tr>"
        )
        points += [
            "<tr>"
            + text_cell(r.get("name"))
            + num_cell(p.get("confidence"), percent=False)
            + num_cell(p.get("accuracy"), percent=False)
            + count_cell(p.get("count"))
            + "</tr>"
            for p in cal.get("curve") or []
        ]
    if not rows:
        return ""
    return (
        table("calibration-table", ["engine", "unit", "n", "mean confidence", "ECE"], rows)
        + '<p class="note">ECE: the gap between the engine\'s confidence and how often it was right, weighted over '
        "confidence bins (0 is perfect). A unit (word or line) is right when every word of it matches the "
        "reference, word-aligned.</p>"
        + "<h3>Reliability curve points</h3>"
        + table("reliability-table", ["engine", "mean confidence in bin", "share read right", "units"], points)
    )


def left_out(data: JsonReport) -> str:
    """The engines that did not run, the pages no engine could read, and the pages each engine failed on."""
    out = ""
    skipped = data.get("skipped") or {}
    if skipped:
        rows = ["<tr>" + text_cell(name, cls="id") + text_cell(why) + "</tr>" for name, why in skipped.items()]
        out += f"<h3>Engines left out ({fmt_count(len(skipped))})</h3>" + table(
            "skipped-engines", ["engine", "why"], rows
        )
    out += failures(data)
    unreadable = set(data.get("unreadable") or {})
    rows = [
        "<tr>" + text_cell(r.get("name"), cls="id") + text_cell(key, cls="id") + text_cell(message) + "</tr>"
        for r in data.get("ranking") or []
        for key, message in (r.get("errors") or {}).items()
        if key not in unreadable
    ]
    if rows:
        out += f"<h3>Pages an engine could not read ({fmt_count(len(rows))})</h3>" + table(
            "engine-errors", ["engine", "page", "message"], rows, filter_hint="filter by engine or page"
        )
    return out


# ---------------------------------------------------------------------------


def _ranking_row(r: JsonReport, *, pct: bool, noun: str) -> str:
    verdict = r.get("verdict")
    badge = '<span class="verdict verdict-better">best</span>' if r.get("best") else verdict_badge(verdict)
    cal = r.get("calibration") or {}
    errors = fmt_count(r.get("n_errors")) + (
        f" ({fmt_count(r.get('n_timeouts'))} timed out)" if r.get("n_timeouts") else ""
    )
    return (
        "<tr>"
        + count_cell(r.get("rank"))
        + text_cell(_label(r), cls="id")
        + num_cell(r.get("aggregate"), percent=pct)
        + interval_cell(r.get("interval"), n=r.get("n"), percent=pct, noun=noun, why=r.get("why"))
        + num_cell(r.get("delta"), percent=pct, signed=True)
        + interval_cell(
            r.get("delta_interval"), n=r.get("n_compared"), percent=pct, noun=noun, signed=True, why=r.get("delta_why")
        )
        + _p_cell(r.get("p_value"))
        + f'<td data-sort="{esc(verdict or "")}">{badge}</td>'
        + num_cell(r.get("seconds_median"), percent=False)
        + num_cell(r.get("seconds_p95"), percent=False)
        + f'<td class="num">{errors}</td>'
        + num_cell(r.get("mean_confidence"), percent=False)
        + num_cell(cal.get("ece"), percent=False)
        + "</tr>"
    )


def _p_cell(p: float | None) -> str:
    return (
        f'<td class="num" data-sort="{esc(repr(p)) if is_number(p) else ""}">{fmt_p(p) if p is not None else "–"}</td>'
    )


def _label(row: JsonReport) -> str:
    return str(row.get("name")) + (" (consensus)" if row.get("consensus") else "")
