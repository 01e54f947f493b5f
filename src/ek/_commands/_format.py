"""What ``ek evaluate`` and ``ek compare`` print and write: numbers, tables, JSON files, exit codes."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Optional

from ek._util import format_p_value as p_value, format_table  # noqa: F401 - p_value: one formatter, CLI and page

_SHOWN_IDS = 5


@dataclass(frozen=True)
class Outcome:
    """What a command prints and how it exits; ``ek.__main__`` writes it out."""

    stdout: str = ""
    stderr: str = ""
    exit_code: int = 0


def number(x: Any, *, signed: bool = False) -> str:
    """A figure with four decimals (``-`` for None, ``nan`` for NaN)."""
    if x is None:
        return "-"
    if isinstance(x, float) and math.isnan(x):
        return "nan"
    if abs(x) >= 1000:
        return f"{x:+.6g}" if signed else f"{x:.6g}"
    return f"{x:+.4f}" if signed else f"{x:.4f}"


def interval(bounds: Optional[Iterable], *, signed: bool = False, n: Optional[int] = None) -> str:
    """``[low, high]``; ``-`` for None; for a NaN interval (too few items for one, see `ek.Report.interval`)
    ``needs more items (n=K)`` given the count ``n``, else ``needs 40+ items``."""
    if bounds is None:
        return "-"
    low, high = bounds
    if _nan(low) and _nan(high):
        from ek._bootstrap import MIN_ITEMS

        return f"needs more items (n={n})" if n is not None else f"needs {MIN_ITEMS}+ items"
    return f"[{number(low, signed=signed)}, {number(high, signed=signed)}]"


def table(header: list, rows: list) -> str:
    """A plain-text table; cells are already strings."""
    return format_table(header, rows)


def ids_line(what: str, ids: tuple, note: str) -> str:
    """``missing: 2 gold ids without a prediction (scored as empty): 'a', 'b'``."""
    shown = ", ".join(map(repr, ids[:_SHOWN_IDS])) + (", ..." if len(ids) > _SHOWN_IDS else "")
    return f"{what}: {len(ids)} {note}" + (f": {shown}" if ids else "")


def clean(value: Any) -> Any:
    """``value`` with NaN and infinities as None and tuples as lists, so strict JSON can hold it."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {_key(k): clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean(v) for v in value]
    return value


def write_json(path: str, payload: dict) -> str:
    """Write ``payload`` as strict JSON to ``path``; ``-`` returns the text for standard output instead."""
    text = json.dumps(clean(payload), ensure_ascii=False, indent=2, allow_nan=False, default=str)
    if path == "-":
        return text
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text + "\n", encoding="utf-8")
    return ""


def _nan(x: Any) -> bool:
    return isinstance(x, float) and math.isnan(x)


def _key(key: Any) -> str:
    return key if isinstance(key, str) else json.dumps(clean(key), default=str)
