"""Server-rendered SVG charts: a histogram and a dot-and-whisker plot.

No plotting library and no script: each chart is a string of SVG built here, so the page
draws offline and the same data always gives the same bytes. Every drawn datum carries
``class="mark"`` and a ``<title>`` tooltip; axes and labels do not.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ek.cli._html._format import clip, esc, fmt_count, fmt_interval, fmt_tick, fmt_value, is_interval, is_number

_WIDTH = 720
_ROW = 22  # height of one dot-and-whisker row
_LABEL_W = 190  # room for slice labels on the left
_MAX_BINS = 40


def nice_step(span: float, target: int) -> float:
    """A round step (1, 2 or 5 times a power of ten) cutting ``span`` into about ``target`` parts."""
    if span <= 0 or not math.isfinite(span):
        return 1.0
    raw = span / max(1, target)
    if raw < 1e-300:  # a subnormal step: log10 and the powers below lose all precision
        return 1e-300
    power: float = 10 ** math.floor(math.log10(raw))  # an int from 1 up, a float below
    for factor in (1, 2, 5, 10):
        if raw <= factor * power * (1 + 1e-9):
            return factor * power
    return 10 * power


def _domain(values: Sequence[object], *, include: Sequence[object] = ()) -> tuple[float, float, float]:
    """A rounded ``(lo, hi, step)`` covering the finite numbers of ``values`` and ``include``."""
    pts = [v for v in list(values) + list(include) if is_number(v)]
    lo, hi = (min(pts), max(pts)) if pts else (0.0, 1.0)
    if hi - lo <= 1e-12 * max(1.0, abs(lo), abs(hi)):  # equal for drawing purposes
        pad = abs(lo) * 0.5 or 0.5
        lo, hi = lo - pad, hi + pad
    step = nice_step(hi - lo, 5)
    return math.floor(lo / step + 1e-9) * step, math.ceil(hi / step - 1e-9) * step, step


def _x_axis(
    lo: float, hi: float, step: float, *, x0: float, x1: float, y: float, percent: bool, label: str
) -> list[str]:
    """An axis from ``x0`` (value ``lo``) to ``x1`` (value ``hi``), ticked at multiples of ``step``."""
    scale = (x1 - x0) / (hi - lo)
    out = [f'<line class="axis" x1="{x0:.1f}" y1="{y:.1f}" x2="{x1:.1f}" y2="{y:.1f}"/>']
    first = math.ceil(lo / step - 1e-9)
    for k in range(first, math.floor(hi / step + 1e-9) + 1):
        x = x0 + (k * step - lo) * scale
        out.append(f'<line class="tick" x1="{x:.1f}" y1="{y:.1f}" x2="{x:.1f}" y2="{y + 4:.1f}"/>')
        out.append(
            f'<text class="tick-label" x="{x:.1f}" y="{y + 16:.1f}" text-anchor="middle">'
            f"{esc(fmt_tick(k * step, percent=percent, step=step))}</text>"
        )
    if label:
        out.append(
            f'<text class="axis-label" x="{(x0 + x1) / 2:.1f}" y="{y + 32:.1f}" '
            f'text-anchor="middle">{esc(label)}</text>'
        )
    return out


def _svg(body: list[str], *, height: float, title: str, chart_id: str) -> str:
    return (
        f'<svg class="chart" id="{esc(chart_id)}" role="img" aria-labelledby="{esc(chart_id)}-t" '
        f'viewBox="0 0 {_WIDTH} {height:.0f}" width="{_WIDTH}" height="{height:.0f}" '
        f'xmlns="http://www.w3.org/2000/svg"><title id="{esc(chart_id)}-t">{esc(title)}</title>'
        + "".join(body)
        + "</svg>"
    )


def bin_counts(values: Sequence[object]) -> tuple[float, float, list[int]]:
    """``(first edge, bin width, counts)`` of the finite ``values`` on round bin edges (the rest left out)."""
    finite = [v for v in values if is_number(v)]
    if not finite:
        return 0.0, 1.0, []
    lo, hi = min(finite), max(finite)
    target = min(_MAX_BINS, max(5, round(math.sqrt(len(finite)))))
    width = nice_step(hi - lo, target) if hi > lo else (abs(lo) * 0.1 or 0.1)
    start = math.floor(lo / width + 1e-9) * width
    n_bins = max(1, math.ceil((hi - start) / width - 1e-9))
    if start + n_bins * width <= hi:
        n_bins += 1  # the maximum sits on the last edge: give it a bin of its own
    counts = [0] * n_bins
    last = n_bins - 1
    for v in finite:
        k = int((v - start) / width)
        counts[min(last, k)] += 1
    return start, width, counts


def histogram(
    values: Sequence[object],
    *,
    percent: bool,
    title: str,
    xlabel: str,
    chart_id: str,
    marker: tuple[object, str] | None = None,
) -> str:
    """An SVG histogram of ``values``; ``marker`` draws a labelled vertical line (e.g. the aggregate)."""
    start, width, counts = bin_counts(values)
    if not counts:
        return '<p class="note">No finite per-item values to plot.</p>'
    x0, x1, top, base = 60.0, _WIDTH - 20.0, 14.0, 190.0
    lo, hi = start, start + width * len(counts)
    step = nice_step(hi - lo, 6)
    sx = (x1 - x0) / (hi - lo)
    peak = max(counts)
    ystep = nice_step(peak, 4)
    ymax = math.ceil(peak / ystep) * ystep
    body = [f'<line class="axis" x1="{x0}" y1="{top}" x2="{x0}" y2="{base}"/>']
    for k in range(round(ymax / ystep) + 1):
        y = base - (base - top) * k * ystep / ymax
        body.append(
            f'<line class="grid" x1="{x0}" y1="{y:.1f}" x2="{x1}" y2="{y:.1f}"/>'
            f'<text class="tick-label" x="{x0 - 6}" y="{y + 4:.1f}" text-anchor="end">'
            f"{fmt_count(k * ystep)}</text>"
        )
    for k, c in enumerate(counts):
        if not c:
            continue
        h = max(1.0, (base - top) * c / ymax)
        left, right = start + k * width, start + (k + 1) * width
        tip = (
            f"{fmt_value(left, percent=percent)} to {fmt_value(right, percent=percent)}: "
            f"{c:,} item{'s' if c != 1 else ''}"
        )
        body.append(
            f'<rect class="mark bar" x="{x0 + (left - lo) * sx + 0.5:.1f}" y="{base - h:.1f}" '
            f'width="{max(1.0, width * sx - 1):.1f}" height="{h:.1f}"><title>{esc(tip)}</title></rect>'
        )
    if marker is not None and is_number(marker[0]) and lo <= marker[0] <= hi:
        mx = x0 + (marker[0] - lo) * sx
        body.append(
            f'<line class="marker" x1="{mx:.1f}" y1="{top}" x2="{mx:.1f}" y2="{base}"/>'
            f'<text class="marker-label" x="{mx + 4:.1f}" y="{top + 10}">{esc(marker[1])}</text>'
        )
    body += _x_axis(lo, hi, step, x0=x0, x1=x1, y=base, percent=percent, label=xlabel)
    return _svg(body, height=base + 40, title=title, chart_id=chart_id)


def dot_whisker(
    rows: Sequence[tuple[object, object, object]],
    *,
    percent: bool,
    title: str,
    xlabel: str,
    chart_id: str,
    reference: tuple[object, str] | None = None,
    signed: bool = False,
) -> str:
    """One row per ``(label, value, [lo, hi] or None)``: a dot at the value, a whisker over the interval.

    Rows whose value is not a finite number are left out, as are whiskers that are no ``[lo, hi]``.

    ``reference`` draws a dashed vertical line (the overall value, or zero for differences).
    """
    points = [(label, value, interval) for label, value, interval in rows if is_number(value)]
    if not points:
        return '<p class="note">No values to plot.</p>'
    pts = [value for _, value, _ in points] + [
        v for _, _, interval in points if is_interval(interval) for v in interval
    ]
    lo, hi, step = _domain(pts, include=[reference[0]] if reference else [])
    x0, x1, top = float(_LABEL_W), _WIDTH - 24.0, 8.0
    sx = (x1 - x0) / (hi - lo)
    base = top + _ROW * len(points) + 6
    body = []
    if reference is not None and is_number(reference[0]):
        rx = x0 + (reference[0] - lo) * sx
        body.append(
            f'<line class="reference" x1="{rx:.1f}" y1="{top}" x2="{rx:.1f}" y2="{base}">'
            f"<title>{esc(reference[1])}</title></line>"
        )
    for i, (label, value, interval) in enumerate(points):
        y = top + _ROW * i + _ROW / 2
        body.append(
            f'<text class="row-label" x="{x0 - 8}" y="{y + 4:.1f}" text-anchor="end">'
            f"<title>{esc(label)}</title>{esc(clip(str(label), 26))}</text>"
        )
        tip = f"{label}: {fmt_value(value, percent=percent, signed=signed)}"
        if is_interval(interval):
            a, b = (x0 + (v - lo) * sx for v in interval)
            tip += f" {fmt_interval(interval, percent=percent, signed=signed)}"
            body.append(
                f'<line class="mark whisker" x1="{a:.1f}" y1="{y:.1f}" x2="{max(b, a + 1):.1f}" '
                f'y2="{y:.1f}"><title>{esc(tip)}</title></line>'
            )
        cx = x0 + (value - lo) * sx
        body.append(f'<circle class="mark dot" cx="{cx:.1f}" cy="{y:.1f}" r="4.5"><title>{esc(tip)}</title></circle>')
    body += _x_axis(lo, hi, step, x0=x0, x1=x1, y=base, percent=percent, label=xlabel)
    return _svg(body, height=base + 40, title=title, chart_id=chart_id)
