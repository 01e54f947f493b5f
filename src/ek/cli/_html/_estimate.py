"""The ``ek estimate`` page: the prediction-powered, classical and plug-in figures drawn side by side.

The data (``metric`` and ``estimate`` required) is the ``--json`` report of
``ek estimate``::

    {"title", "metric", "higher_is_better", "percent", "level", "N", "n",
     "estimate": float, "interval": [low, high],
     "classical": {"estimate": float, "interval": [low, high]}, "plug_in": float,
     "lam": float, "effective_n": float,
     "per_slice": {label: {the same keys, and "note" when a slice has no interval}},
     "detail": {"design", "interval", "note", ...}}

plus the provenance keys of `ek.cli._html._provenance`. For the whole corpus and
each slice, three rows: the estimate with its interval, the audit alone
with its interval, and the plug-in figure, which has none. The headline's
figures carry their exact values (``data-value``, ``data-low``,
``data-high``), as the other pages' headlines do.
"""

from __future__ import annotations

from ek.cli._html._charts import dot_whisker
from ek.cli._html._data import JsonReport
from ek.cli._html._format import (
    count_cell,
    drawable,
    esc,
    fmt_count,
    fmt_value,
    interval_cell,
    interval_text,
    level_text,
    num_cell,
    text_cell,
    uses_percent,
)
from ek.cli._html._page import check_data, page, stat, table
from ek.cli._html._provenance import failures, generated, provenance, warnings_note

_MAX_SLICES = 40
_DIRECTIONS: dict[object, str] = {True: "higher is better", False: "lower is better"}  # else: unknown


def render_estimate(data: JsonReport) -> str:
    """The estimate page for ``data`` (see the module docstring) as one HTML string."""
    check_data(data, caller="render_estimate", required=("metric", "estimate"))
    pct = uses_percent(data)
    metric = str(data["metric"])
    title = str(data.get("title") or f"ek estimate: {metric}")
    better = _DIRECTIONS.get(data.get("higher_is_better"), "")
    detail = data.get("detail") or {}
    subtitle = (
        f"Metric <code>{esc(metric)}</code>{f' ({better})' if better else ''}: prediction-powered "
        f"estimate over N = {fmt_count(data.get('N'))} items from n = {fmt_count(data.get('n'))} audited. "
        f"{esc(detail.get('design', ''))}. {generated(data)}"
    )
    sections = [
        ("headline", "Headline", headline(data, pct=pct)),
        ("intervals", "Estimate, audit alone and plug-in", intervals(data, pct=pct)),
        ("slices", "Per slice", slices(data, pct=pct)),
        ("failures", "Files not scored", failures(data)),
        ("provenance", "Inputs and settings", provenance(data)),
    ]
    return page(title, subtitle, [s for s in sections if s[2]])


def headline(data: JsonReport, *, pct: bool) -> str:
    """The estimate and its interval, the classical interval, λ and the effective n."""
    n, value = data.get("n"), data["estimate"]
    raw = esc(repr(value))
    classical = data.get("classical") or {}
    eff = data.get("effective_n")
    figures = [
        stat(
            "estimate",
            fmt_value(value, percent=pct),
            big=True,
            attrs=f' id="headline-value" data-value="{raw}" title="{raw}"',
        ),
        stat(
            level_text(data),
            interval_text(data.get("interval"), n=n, percent=pct),
            attrs=' id="headline-interval"' + _bounds(data.get("interval")),
        ),
        stat(
            f"audit alone, {level_text(data)}",
            interval_text(classical.get("interval"), n=n, percent=pct),
            attrs=' id="headline-classical"' + _bounds(classical.get("interval")),
        ),
        stat(
            "plug-in (no interval)",
            fmt_value(data.get("plug_in"), percent=pct),
            attrs=f' id="headline-plug-in" data-value="{esc(repr(data.get("plug_in")))}"',
        ),
        stat("λ (weight of the proxy)", esc("–" if data.get("lam") is None else f"{data['lam']:.2f}")),
        stat(
            "effective n",
            esc("–" if not isinstance(eff, (int, float)) or eff != eff else f"{eff:,.0f}"),
            attrs=' id="headline-effective-n"',
        ),
    ]
    note = (data.get("detail") or {}).get("note")
    extra = f'<p class="note">{esc(note)}</p>' if note else ""
    why = _unreliable(data)
    extra += f'<p class="note" id="not-reliable">{esc(why[0].upper() + why[1:])}</p>' if why else ""
    return f'<div class="headline">{"".join(figures)}</div>{extra}{warnings_note(data)}'


def intervals(data: JsonReport, *, pct: bool) -> str:
    """The three figures of the whole corpus as dots and whiskers on one axis."""
    return dot_whisker(
        _three("all", data),
        percent=pct,
        chart_id="estimate-chart",
        xlabel=str(data["metric"]),
        title="Prediction-powered estimate, the audit alone, and the proxy's plug-in figure",
    ) + (
        '<p class="note">The plug-in figure is the proxy scored as if it were gold: its bias is unknown, so it has no '
        "interval. The audit alone is honest but wide; the estimate corrects the proxy with the audit.</p>"
    )


def slices(data: JsonReport, *, pct: bool) -> str:
    """The per-slice table under an "all" row, and the slices' three figures drawn side by side."""
    per = data.get("per_slice") or {}
    if not per:
        return ""
    headers = ["slice", "N", "n", "estimate", level_text(data), "audit alone", "plug-in", "λ", "note"]
    rows = [_row(label, entry, pct=pct) for label, entry in per.items()]
    out = table("slice-table", headers, rows, pinned=_row("all", data, pct=pct, cls="all"))
    chart = [r for label, entry in list(per.items())[:_MAX_SLICES] for r in _three(str(label), entry)]
    return out + dot_whisker(
        chart,
        percent=pct,
        chart_id="slice-chart",
        xlabel=str(data["metric"]),
        title="Per slice: estimate, audit alone, plug-in",
    )


def _bounds(interval: object) -> str:
    """``data-low`` and ``data-high`` attributes holding an interval's exact ends (for scripts and tests)."""
    if not isinstance(interval, (list, tuple)) or len(interval) != 2:
        return ""
    return f' data-low="{esc(repr(interval[0]))}" data-high="{esc(repr(interval[1]))}"'


def _three(label: str, entry: JsonReport) -> list[tuple[str, object, object]]:
    classical = entry.get("classical") or {}
    n = entry.get("n")
    return [
        (f"{label}: estimate", entry.get("estimate"), drawable(entry.get("interval"), n)),
        (f"{label}: audit alone", classical.get("estimate"), drawable(classical.get("interval"), n)),
        (f"{label}: plug-in", entry.get("plug_in"), None),
    ]


def _row(label: object, entry: JsonReport, *, pct: bool, cls: str = "") -> str:
    classical = entry.get("classical") or {}
    n = entry.get("n")
    lam = entry.get("lam")
    return (
        "<tr>"
        + text_cell(str(label), cls=f"label {cls}".strip())
        + count_cell(entry.get("N"))
        + count_cell(n)
        + num_cell(entry.get("estimate"), percent=pct)
        + interval_cell(entry.get("interval"), n=n, percent=pct)
        + interval_cell(classical.get("interval"), n=n, percent=pct)
        + num_cell(entry.get("plug_in"), percent=pct)
        + text_cell("–" if lam is None else f"{lam:.2f}")
        + text_cell("; ".join(x for x in (_unreliable(entry), entry.get("note")) if x))
        + "</tr>"
    )


def _unreliable(entry: JsonReport) -> str:
    """Why a group's interval is flagged ``reliable: false`` ("" when it is not; the whole corpus's in detail)."""
    flags = entry if "reliable" in entry else (entry.get("detail") or {})
    why = flags.get("why")
    return f"not reliable: {why}" if flags.get("reliable") is False and isinstance(why, str) else ""
