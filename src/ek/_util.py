"""Stdlib-only helpers shared by several subpackages (optional imports, checks)."""

from __future__ import annotations

import importlib
import importlib.util
import math
from functools import lru_cache
from typing import Any, Iterable, Sequence


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


def prf(matched: float, n_pred: float, n_gold: float) -> tuple[float, float, float]:
    """Precision, recall and F1 from matched credit and the two totals.

    The one place 0/0 is decided for every P/R/F1 metric: nothing predicted
    and nothing in the gold is perfect agreement (1, 1, 1); otherwise an
    empty side gives 0 for its ratio, and F1 is 0 when both ratios are 0.
    """
    if n_pred == 0 and n_gold == 0:
        return 1.0, 1.0, 1.0
    precision = matched / n_pred if n_pred else 0.0
    recall = matched / n_gold if n_gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def sum_detail(scores: Iterable[Any], keys: Sequence[str], *, metric: str = "") -> dict[str, Any]:
    """Sum the named ``Score.detail`` statistics over a corpus, the basis of every aggregate.

    A column-backed score sequence (one with ``column(name)``) is summed
    without building its scores. Raises ValueError for an empty corpus (it
    has no aggregate) and, naming the item, for a score lacking a key (scores
    of another metric mixed in).
    """
    who = f"{metric}.aggregate()" if metric else "aggregate()"
    column = getattr(scores, "column", None)
    if column is not None and len(scores):  # type: ignore[arg-type]
        try:
            return {k: sum(column(k)) for k in keys}
        except KeyError:
            pass  # fall through to the per-score path and its message
    totals = dict.fromkeys(keys, 0)
    n = 0
    for i, s in enumerate(scores):
        detail = getattr(s, "detail", None)
        try:
            for k in keys:
                totals[k] += detail[k]  # type: ignore[index]
        except (KeyError, TypeError):
            raise ValueError(
                f"score {i} ({getattr(s, 'metric', '?')!r}) has no {k!r} in its detail; "
                f"{who} needs scores produced by {metric or 'this metric'}."
            ) from None
        n += 1
    if n == 0:
        raise ValueError(f"{who} got no scores; an empty corpus has no aggregate.")
    return totals
