"""Text and number formatting for the HTML report: escaping, rates, counts, p-values.

Every string that reaches the page goes through `esc` (text and attribute values alike),
so an id, a prediction or a slice label can never open a tag or close a script.
"""

from __future__ import annotations

import html
import math
from typing import Any, Optional

# Metrics whose values are fractions in [0, 1] (or error rates that can pass 1): shown as %.
_RATE_METRICS = {"cer", "wer", "mer", "wil", "wip", "fields", "anls", "teds", "teds_struct",
                 "grits", "grits_top", "task_success", "tool_call", "trajectory", "accuracy",
                 "f1", "precision", "recall", "exact_match"}


def esc(value: Any) -> str:
    """``value`` as text safe inside an element or a double-quoted attribute."""
    return html.escape("" if value is None else str(value), quote=True)


def is_number(value: Any) -> bool:
    """Whether ``value`` is a real number (bools excluded) that is not NaN or infinite."""
    if type(value) is float:  # the common case, checked first: pages test 100,000s of values
        return math.isfinite(value)
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def is_interval(value: Any) -> bool:
    """Whether ``value`` is a ``[low, high]`` pair of finite numbers."""
    return isinstance(value, (list, tuple)) and len(value) == 2 and all(is_number(v) for v in value)


def uses_percent(data: dict) -> bool:
    """Whether the page shows the metric's values as percentages.

    ``data["percent"]`` decides when present; otherwise rate-like metric names do.
    """
    if data.get("percent") is not None:
        return bool(data["percent"])
    name = str(data.get("metric") or "").lower()
    return name in _RATE_METRICS or name.startswith("span_f1")


def fmt_value(value: Any, *, percent: bool, signed: bool = False) -> str:
    """A metric value for reading: ``3.12%`` for rates, 4 significant digits otherwise."""
    if value is None:
        return "–"
    if not is_number(value):
        return esc(value)
    sign = "+" if signed and value > 0 else ""
    if percent:
        return f"{sign}{value * 100:.2f}%"
    if value != 0 and (abs(value) >= 1e5 or abs(value) < 1e-3):
        return f"{sign}{value:.3g}"
    return f"{sign}{value:.4g}"


def fmt_tick(value: float, *, percent: bool, step: float) -> str:
    """An axis label: as few decimals as the tick step needs."""
    if percent:
        value, step = value * 100, step * 100
    decimals = max(0, -math.floor(math.log10(step))) if step > 0 else 0
    text = f"{value:.{min(decimals, 6)}f}"
    if text.startswith("-") and float(text) == 0:
        text = text[1:]
    return text + ("%" if percent else "")


def fmt_count(value: Any) -> str:
    """An integer with thousands separators (``10,000``); anything else escaped."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return "–" if value is None else esc(value)
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.4g}"


def fmt_p(value: Any) -> str:
    """A p-value: ``p < 0.001`` below a thousandth, three decimals otherwise."""
    if not is_number(value):
        return "–"
    return "< 0.001" if value < 0.001 else f"{value:.3f}"


def fmt_interval(interval: Optional[list], *, percent: bool, signed: bool = False) -> str:
    """``[lo, hi]`` as ``[2.90%, 3.40%]``, or a dash when there is none."""
    if not is_interval(interval):
        return "–"
    lo, hi = (fmt_value(v, percent=percent, signed=signed) for v in interval)
    return f"[{lo}, {hi}]"


def num_cell(value: Any, *, percent: bool, signed: bool = False, cls: str = "num") -> str:
    """A ``<td>`` for a number: readable text, the exact repr in ``title`` and ``data-sort``."""
    if not is_number(value):
        return f'<td class="{cls}" data-sort="">{fmt_value(value, percent=percent)}</td>'
    raw = esc(repr(value))
    return (f'<td class="{cls}" data-sort="{raw}" title="{raw}">'
            f"{fmt_value(value, percent=percent, signed=signed)}</td>")


def count_cell(value: Any) -> str:
    """A ``<td>`` for a count, sortable by its value."""
    sort = esc(repr(value)) if is_number(value) else ""
    return f'<td class="num" data-sort="{sort}">{fmt_count(value)}</td>'


def text_cell(value: Any, *, cls: str = "") -> str:
    """A ``<td>`` holding escaped text."""
    attr = f' class="{cls}"' if cls else ""
    return f"<td{attr}>{esc(value)}</td>"


def shown_note(shown: int, total: int, noun: str) -> str:
    """The visible note under a truncated list ("showing 200 of 10,000 items")."""
    if total <= shown:
        return ""
    return f'<p class="note truncated">showing {shown:,} of {total:,} {esc(noun)}</p>'


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, ending in an ellipsis when cut."""
    return text if len(text) <= limit else text[: max(1, limit - 1)] + "…"
