"""The ``ek monitor --html`` page: a monitor's history, one self-contained file.

The data is `ek.qe.monitor.MonitorReport.to_dict()` (plus ``name``). The
page draws, over the windows: the accepted and flagged shares; the
estimated error rate among accepted items with each window's fixed-time
interval, the anytime-valid band of the promised quantity after each
update and the promised level; calibration-in-the-large with its band; the
PSI of each signal; alarms are marked where they were raised. A table lists
every window's figures (``data-`` attributes hold the exact numbers).
Charts are SVG drawn here with presentation attributes only, so the page's
Content-Security-Policy (`ek.cli._html._page`) needs nothing new.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ek.cli._html._format import esc, fmt_count
from ek.cli._html._page import page, stat, table

__all__ = ["render_monitor"]

_W, _H, _LEFT, _RIGHT, _TOP, _BOTTOM = 860, 220, 64, 16, 12, 34
_COLORS = ("#2f5d9e", "#b3261e", "#1e7a3c", "#a07a00", "#6b3fa0")


def render_monitor(data: dict[str, Any]) -> str:
    """The history page of the report ``data`` as one HTML string."""
    windows = data.get("windows") or []
    settings = data.get("settings") or {}
    title = f"ek monitor: {data.get('name') or 'history'}"
    subtitle = (
        f"{fmt_count(len(windows))} windows, {fmt_count((data.get('cumulative') or {}).get('n'))} items; "
        f"calibrator {esc(settings.get('calibrator'))}, gate {esc(settings.get('gate'))}. "
        f"Alarms are anytime-valid: at most {esc(settings.get('alpha'))} false-alarm probability over the whole stream."
    )
    sections = [
        ("headline", "Now", _headline(data)),
        ("alarms", "Alarms", _alarms(data)),
        ("shares", "Accepted and flagged shares", _shares(windows)),
        ("risk", "Error rate among accepted items", _risk(data)),
        ("calibration", "Calibration", _calibration(data)),
        ("drift", "Drift of the raw signals", _drift(data)),
        ("windows", "Windows", _table(data)),
        ("notes", "Notes and settings", _notes(data)),
    ]
    return page(title, subtitle, sections)


def _headline(data: dict[str, Any]) -> str:
    cum, seq = data["cumulative"], data["sequence"]
    risk = cum.get("risk") or {}
    promise = (data.get("settings") or {}).get("promise")
    figures = [
        stat(
            "accepted share",
            _pct(cum["shares"]["accept"]),
            big=True,
            attrs=_attr("cum-accept", cum["shares"]["accept"]),
        ),
        stat(
            "error among accepted", _pct(risk.get("estimate")), big=True, attrs=_attr("cum-risk", risk.get("estimate"))
        ),
        stat(
            "its interval (fixed-time)",
            _band(risk.get("interval")),
            attrs=_bounds("cum-risk-interval", risk.get("interval")),
        ),
        stat(
            "anytime band of the promise",
            _band(seq["risk"]) if promise else "–",
            attrs=_bounds("seq-risk", seq["risk"]),
        ),
        stat(
            "promised",
            _pct(promise["level"]) if promise else "none",
            attrs=_attr("promise", promise and promise["level"]),
        ),
        stat(
            "calibration gap band", _band(seq["calibration"], pct=False), attrs=_bounds("seq-cal", seq["calibration"])
        ),
    ]
    basis = f'<p class="note">{esc(risk.get("basis", ""))}</p>'
    return f'<div class="headline">{"".join(figures)}</div>{basis}'


def _alarms(data: dict[str, Any]) -> str:
    alarms = data.get("alarms") or []
    if not alarms:
        return '<p class="note" id="no-alarms">No alarm: the promise is kept and calibration holds, as far as the audits show.</p>'
    items = "".join(
        f'<li class="alarm" data-kind="{esc(a["kind"])}" data-update="{a["update"]}"><strong>{esc(a["kind"])}</strong> '
        f"at {esc(a['time'])}: {esc(a['message'])}</li>"
        for a in alarms
    )
    return f'<ul id="alarm-list">{items}</ul>'


def _shares(windows: list[dict[str, Any]]) -> str:
    lines = [
        ("accepted", [w["shares"]["accept"] for w in windows]),
        ("flagged", [w["shares"]["flag"] for w in windows]),
    ]
    return _chart("shares-chart", "Accepted and flagged shares per window", windows, lines=lines, pct=True)


def _risk(data: dict[str, Any]) -> str:
    windows = data["windows"]
    promise = (data.get("settings") or {}).get("promise")
    estimates = [w["risk"].get("estimate") for w in windows]
    intervals = [w["risk"].get("interval") for w in windows]
    bands = [("window interval (fixed-time)", intervals, "#2f5d9e")]
    hlines = []
    if promise:
        bands.append(("anytime band of the promise", [w["sequence"]["risk"] for w in windows], "#b3261e"))
        hlines.append((f"promised {promise['means']}", promise["level"]))
    marks = _alarm_marks(data, "risk")
    chart = _chart(
        "risk-chart",
        "Estimated error rate among accepted items",
        windows,
        lines=[("estimate", estimates)],
        bands=bands,
        hlines=hlines,
        marks=marks,
        pct=True,
    )
    note = (
        '<p class="note">Dots: each window\'s estimate (prediction-powered where it has audited accepted items, '
        "else the calibrated probabilities' claim). Blue band: its fixed-time interval. Red band: the anytime-valid "
        f"band of the promised quantity ({esc(promise['means']) if promise else 'none'}) after each update.</p>"
    )
    return chart + note


def _calibration(data: dict[str, Any]) -> str:
    windows = data["windows"]
    gaps = [w["calibration"].get("gap") for w in windows]
    eces = [w["calibration"].get("ece") for w in windows]
    bands = [("anytime band of the gap", [w["sequence"]["calibration"] for w in windows], "#b3261e")]
    return _chart(
        "calibration-chart",
        "Calibration on the audited items: mean of p - correct, and ECE",
        windows,
        lines=[("gap (p - correct)", gaps), ("ECE", eces)],
        bands=bands,
        hlines=[("0", 0.0)],
        marks=_alarm_marks(data, "calibration"),
        pct=False,
    )


def _drift(data: dict[str, Any]) -> str:
    windows = data["windows"]
    names = (data.get("settings") or {}).get("signals") or []
    psi = [(f"PSI {n}", [w["drift"][n]["psi"] for w in windows]) for n in names]
    ks = [(f"KS {n}", [w["drift"][n]["ks"] for w in windows]) for n in names]
    note = (
        '<p class="note">PSI over the calibration set\'s deciles (0.1 and 0.25 drawn); KS statistics per window. '
        "KS p-values (in the table) are per window and not valid under repeated looks: drift is a diagnostic.</p>"
    )
    return (
        _chart("psi-chart", "PSI per signal", windows, lines=psi, hlines=[("0.1", 0.1), ("0.25", 0.25)], pct=False)
        + _chart("ks-chart", "KS statistic per signal", windows, lines=ks, pct=False)
        + note
    )


def _table(data: dict[str, Any]) -> str:
    names = (data.get("settings") or {}).get("signals") or []
    headers = ["#", "time", "items", "accepted", "flagged", "error among accepted", "interval", "audited", "ECE", "gap"]
    headers += [f"PSI {n}" for n in names] + [f"KS p {n}" for n in names] + ["alarms"]
    rows = []
    for w in data["windows"]:
        risk, cal = w["risk"], w["calibration"]
        cells = [
            f'<td class="num">{w["index"]}</td>',
            f"<td>{esc(w['time'])}</td>",
            f'<td class="num">{fmt_count(w["n"])}</td>',
            _cell(w["shares"]["accept"], "accept", pct=True),
            _cell(w["shares"]["flag"], "flag", pct=True),
            _cell(risk.get("estimate"), "risk", pct=True),
            f'<td class="num"{_bounds("", risk.get("interval"))}>{_band(risk.get("interval"))}</td>',
            f'<td class="num">{risk.get("n_audited", 0)}</td>',
            _cell(cal.get("ece"), "ece", pct=True),
            _cell(cal.get("gap"), "gap", pct=False),
        ]
        cells += [_cell(w["drift"][n]["psi"], f"psi-{n}", pct=False) for n in names]
        cells += [_cell(w["drift"][n]["p_value"], f"ks-p-{n}", pct=False) for n in names]
        cells.append(f"<td>{esc(', '.join(a['kind'] for a in w['alarms']))}</td>")
        rows.append(f'<tr data-window="{w["index"]}">{"".join(cells)}</tr>')
    return table("window-table", headers, rows, sort_col=0)


def _notes(data: dict[str, Any]) -> str:
    notes = "".join(f"<li>{esc(n)}</li>" for n in data.get("notes") or [])
    settings = data.get("settings") or {}
    meta = "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in settings.items())
    return f'<ul>{notes}</ul><dl class="meta">{meta}</dl>'


# -- drawing ------------------------------------------------------------------


def _chart(
    chart_id: str,
    title: str,
    windows: list[dict[str, Any]],
    *,
    lines: Sequence[tuple[str, list[Any]]] = (),
    bands: Sequence[tuple[str, list[Any], str]] = (),
    hlines: Sequence[tuple[str, float]] = (),
    marks: Sequence[tuple[str, int]] = (),
    pct: bool,
) -> str:
    """A time-series chart over the window index: lines with dots, shaded bands, horizontal rules, alarm marks."""
    n = len(windows)
    if not n:
        return '<p class="note">No windows yet.</p>'
    values = [v for _, vs in lines for v in vs if v is not None]
    values += [b for _, bs, _ in bands for band in bs if band for b in band] + [y for _, y in hlines]
    low, high = (min(values), max(values)) if values else (0.0, 1.0)
    if high - low < 1e-9:
        low, high = low - 0.5, high + 0.5
    pad = 0.05 * (high - low)
    low, high = low - pad, high + pad

    def x(i: int) -> float:
        return _LEFT + (i + 0.5) * (_W - _LEFT - _RIGHT) / n

    def y(v: float) -> float:
        return _TOP + (high - v) * (_H - _TOP - _BOTTOM) / (high - low)

    body = _axes(windows, low, high, x, y, pct)
    for label, band, color in bands:
        body.append(_band_polygon(label, band, color, x, y))
    for label, level in hlines:
        body.append(
            f'<line class="rule" x1="{_LEFT}" x2="{_W - _RIGHT}" y1="{y(level):.1f}" y2="{y(level):.1f}" '
            f'stroke="#5b6270" stroke-dasharray="5 4"><title>{esc(label)}</title></line>'
        )
    for k, (label, vs) in enumerate(lines):
        body.append(_line(label, vs, _COLORS[k % len(_COLORS)], x, y, pct, dots=n <= 120))
    for label, i in marks:
        body.append(
            f'<line class="mark alarm-mark" x1="{x(i):.1f}" x2="{x(i):.1f}" y1="{_TOP}" y2="{_H - _BOTTOM}" '
            f'stroke="#b3261e" stroke-width="2" data-window="{i}"><title>{esc(label)}</title></line>'
        )
    legend = " · ".join(esc(label) for label, _ in lines)
    return (
        f'<svg class="chart" id="{esc(chart_id)}" role="img" viewBox="0 0 {_W} {_H}" width="{_W}" height="{_H}" '
        f'xmlns="http://www.w3.org/2000/svg"><title>{esc(title)}</title>{"".join(body)}</svg>'
        f'<p class="legend">{legend}</p>'
    )


def _axes(windows: list[dict[str, Any]], low: float, high: float, x: Any, y: Any, pct: bool) -> list[str]:
    out = [
        f'<line class="axis" x1="{_LEFT}" x2="{_W - _RIGHT}" y1="{_H - _BOTTOM}" y2="{_H - _BOTTOM}"/>',
        f'<line class="axis" x1="{_LEFT}" x2="{_LEFT}" y1="{_TOP}" y2="{_H - _BOTTOM}"/>',
    ]
    for k in range(5):
        v = low + (high - low) * k / 4
        out.append(f'<text x="{_LEFT - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{esc(_fmt(v, pct))}</text>')
    n = len(windows)
    step = max(1, n // 6)
    for i in range(0, n, step):
        out.append(
            f'<text x="{x(i):.1f}" y="{_H - _BOTTOM + 16}" text-anchor="middle">{esc(windows[i]["time"])}</text>'
        )
    return out


def _band_polygon(label: str, band: list[Any], color: str, x: Any, y: Any) -> str:
    points = [(i, b) for i, b in enumerate(band) if b]
    if not points:
        return ""
    upper = " ".join(f"{x(i):.1f},{y(b[1]):.1f}" for i, b in points)
    lower = " ".join(f"{x(i):.1f},{y(b[0]):.1f}" for i, b in reversed(points))
    return (
        f'<polygon class="band" points="{upper} {lower}" fill="{color}" fill-opacity="0.15" stroke="{color}" '
        f'stroke-opacity="0.5"><title>{esc(label)}</title></polygon>'
    )


def _line(label: str, values: list[Any], color: str, x: Any, y: Any, pct: bool, *, dots: bool) -> str:
    points = [(i, v) for i, v in enumerate(values) if v is not None]
    if not points:
        return ""
    path = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in points)
    out = [
        f'<polyline class="series" points="{path}" fill="none" stroke="{color}" stroke-width="1.6">'
        + f"<title>{esc(label)}</title></polyline>"
    ]
    if dots:
        out += [
            f'<circle class="mark dot" cx="{x(i):.1f}" cy="{y(v):.1f}" r="3" fill="{color}">'
            f"<title>{esc(label)}: {esc(_fmt(v, pct))}</title></circle>"
            for i, v in points
        ]
    return "".join(out)


def _alarm_marks(data: dict[str, Any], kind: str) -> list[tuple[str, int]]:
    return [
        (f"{kind} alarm: {a['message'][:160]}", w["index"])
        for w in data["windows"]
        for a in w["alarms"]
        if a["kind"] == kind
    ]


# -- text ---------------------------------------------------------------------


def _fmt(value: Any, pct: bool) -> str:
    if value is None:
        return "–"
    return f"{100 * value:.2f}%" if pct else f"{value:.3f}"


def _pct(value: Any) -> str:
    return esc(_fmt(value, True))


def _band(interval: Sequence[float] | None, *, pct: bool = True) -> str:
    if not interval:
        return "–"
    return esc(f"[{_fmt(interval[0], pct)}, {_fmt(interval[1], pct)}]")


def _attr(element_id: str, value: Any) -> str:
    return f' id="{esc(element_id)}" data-value="{esc(repr(value))}"'


def _bounds(element_id: str, interval: Any) -> str:
    ident = f' id="{esc(element_id)}"' if element_id else ""
    if not interval:
        return ident
    return f'{ident} data-low="{esc(repr(interval[0]))}" data-high="{esc(repr(interval[1]))}"'


def _cell(value: Any, name: str, *, pct: bool) -> str:
    return f'<td class="num" data-name="{esc(name)}" data-value="{esc(repr(value))}">{esc(_fmt(value, pct))}</td>'
