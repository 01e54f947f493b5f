"""Text and number formatting for the HTML report: escaping, rates, counts, p-values, intervals.

Every string that reaches the page goes through `esc` (attribute values, headings) or
`ek.cli._html._chars.show` (cell and diff text), so an id, a prediction or a slice label can
never open a tag, close a script, or reorder the page with a raw bidi control.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, TypeGuard

from ek._util import format_p_value
from ek.cli._html._chars import plain, show
from ek.metrics import as_metric
from ek.registry import get


def esc(value: Any) -> str:
    """``value`` as text safe inside an element or a double-quoted attribute (hidden characters as ``[U+202E]``)."""
    return plain("" if value is None else str(value))


def is_number(value: object) -> TypeGuard[float]:
    """Whether ``value`` is a real number (bools excluded) that is not NaN or infinite."""
    if type(value) is float:  # the common case, checked first: pages test 100,000s of values
        return math.isfinite(value)
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def is_interval(value: object) -> TypeGuard[Sequence[float]]:
    """Whether ``value`` is a ``[low, high]`` pair of finite numbers."""
    return isinstance(value, (list, tuple)) and len(value) == 2 and all(is_number(v) for v in value)


def uses_percent(data: Mapping[str, object]) -> bool:
    """Whether the page shows the metric's values as percentages.

    ``data["percent"]`` decides when present; otherwise the registered metric of
    that name does, by its declared ``percent`` (a metric that is not registered: no).
    """
    if data.get("percent") is not None:
        return bool(data["percent"])
    try:
        return as_metric(get("metrics", str(data.get("metric") or ""))).percent
    except KeyError:
        return False


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
    """A p-value as the command line prints it (`ek._util.format_p_value`), escaped: ``&lt;=0.001`` or ``0.042``."""
    return esc(format_p_value(value if is_number(value) else None))


def fmt_interval(interval: object, *, percent: bool, signed: bool = False) -> str:
    """``[lo, hi]`` as ``[2.90%, 3.40%]``, or a dash when there is none."""
    if not is_interval(interval):
        return "–"
    lo, hi = (fmt_value(v, percent=percent, signed=signed) for v in interval)
    return f"[{lo}, {hi}]"


def needs_more(interval: Any, n: Any) -> bool:
    """Whether an interval cannot be given for want of items: NaN bounds, or a single item."""
    if isinstance(interval, (list, tuple)) and any(isinstance(v, float) and math.isnan(v) for v in interval):
        return True
    return n == 1 and not isinstance(n, bool)


def drawable(interval: object, n: object) -> Sequence[float] | None:
    """``interval`` when a chart may draw it, None when it is missing for want of items (or is no interval)."""
    return interval if is_interval(interval) and not needs_more(interval, n) else None


def level_text(data: Mapping[str, object]) -> str:
    """``"95% interval"`` from the page's ``level``, or just ``"interval"``."""
    level = data.get("level")
    return f"{level:.0%} interval" if is_number(level) else "interval"


def noun(data: Mapping[str, object]) -> str:
    """What the page's n counts: ``data["noun"]``, by default ``"items"``."""
    return str(data.get("noun") or "items")


def interval_text(
    interval: Any, *, n: Any, percent: bool, noun: str = "items", signed: bool = False, why: Any = None
) -> str:
    """``[lo, hi]`` as text, or the sentence saying more items are needed (never a zero-width interval).

    ``why`` (the data's ``why`` of an interval with ``reliable: false``) marks it unreliable and says why.
    """
    if needs_more(interval, n):
        count = f" (n={n:,})" if isinstance(n, int) and not isinstance(n, bool) else ""
        return f'<span class="needs-more">an interval needs more {esc(noun)}{count}</span>'
    text = fmt_interval(interval, percent=percent, signed=signed)
    if isinstance(why, str) and why and is_interval(interval):
        text += f' <span class="needs-more unreliable">unreliable: {esc(why)}</span>'
    return text


def interval_cell(
    interval: Any, *, n: Any, percent: bool, noun: str = "items", signed: bool = False, why: Any = None
) -> str:
    """A ``<td>`` for an interval, sortable by its lower bound (``why``: see `interval_text`)."""
    sort = esc(repr(interval[0])) if is_interval(interval) and not needs_more(interval, n) else ""
    return (
        f'<td class="num" data-sort="{sort}">'
        f"{interval_text(interval, n=n, percent=percent, noun=noun, signed=signed, why=why)}</td>"
    )


def unreliable_why(data: Any) -> Any:
    """The ``why`` of an interval the data marks ``reliable: false``; None for a trusted one (or no verdict)."""
    return data.get("why") if isinstance(data, dict) and data.get("reliable") is False else None


def num_cell(value: Any, *, percent: bool, signed: bool = False, cls: str = "num") -> str:
    """A ``<td>`` for a number: readable text, the exact repr in ``title`` and ``data-sort``."""
    if not is_number(value):
        return f'<td class="{cls}" data-sort="">{fmt_value(value, percent=percent)}</td>'
    raw = esc(repr(value))
    return f'<td class="{cls}" data-sort="{raw}" title="{raw}">{fmt_value(value, percent=percent, signed=signed)}</td>'


def count_cell(value: Any) -> str:
    """A ``<td>`` for a count, sortable by its value."""
    sort = esc(repr(value)) if is_number(value) else ""
    return f'<td class="num" data-sort="{sort}">{fmt_count(value)}</td>'


def text_cell(value: Any, *, cls: str = "") -> str:
    """A ``<td>`` holding the text, hidden characters in code-point boxes."""
    attr = f' class="{cls}"' if cls else ""
    return f"<td{attr}>{show('' if value is None else str(value))}</td>"


def shown_note(shown: int, total: int, noun: str) -> str:
    """The visible note under a truncated list ("showing 200 of 10,000 items")."""
    if total <= shown:
        return ""
    return f'<p class="note truncated">showing {shown:,} of {total:,} {esc(noun)}</p>'


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, ending in an ellipsis when cut."""
    return text if len(text) <= limit else text[: max(1, limit - 1)] + "…"
