"""Stdlib-only helpers shared by several subpackages (optional imports, checks)."""

from __future__ import annotations

import importlib
import importlib.util
import math
from functools import lru_cache
from typing import Any, Iterable


class MissingExtraError(ImportError):
    """An optional feature was used without its extra installed."""


def install_hint(extra: str) -> str:
    """The exact command that installs an extra."""
    return f'pip install "ek[{extra}]"'


@lru_cache(maxsize=None)
def is_installed(package: str) -> bool:
    """Whether ``package`` can be imported, without importing it."""
    try:
        return importlib.util.find_spec(package) is not None
    except (ImportError, ValueError):
        return False


def import_optional(package: str, *, extra: str, feature: str = "") -> Any:
    """Import ``package`` or raise `MissingExtraError` naming the extra to install."""
    try:
        return importlib.import_module(package)
    except ImportError as exc:
        what = feature or "this feature"
        raise MissingExtraError(
            f"{what} needs the optional package {package!r}, which is not installed. "
            f"Install it with: {install_hint(extra)}"
        ) from exc


def check_finite(values: Iterable[float], *, name: str) -> None:
    """Raise ValueError naming the first NaN or infinite entry of ``values``."""
    for i, v in enumerate(values):
        if not math.isfinite(v):
            raise ValueError(
                f"{name}[{i}] is {v!r}; every entry must be a finite number. "
                "Drop or impute the missing values first."
            )


def type_name(obj: Any) -> str:
    """Short type name for error messages."""
    return "None" if obj is None else type(obj).__name__


def format_table(header: list[str], rows: list[list[Any]]) -> str:
    """A plain-text table: first column left-aligned, the rest right-aligned.

    Floats print as percentages and None as ``-``.
    """
    cells = [header] + [[_cell(v) for v in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = []
    for k, row in enumerate(cells):
        lines.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))))
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    return f"{value:.2%}" if isinstance(value, float) else str(value)
