"""The one check of a confidence level: a real number strictly between 0 and 1.

Every public function that takes ``level`` refuses a bad one here, so the
message reads the same everywhere; ``who`` names the caller (the public
function's name, or "" where the caller adds its own context).

>>> check_level(0.9, "f()")
0.9
"""

from __future__ import annotations

from typing import Literal, overload

from ek._util import is_real

__all__ = ["check_level"]


@overload
def check_level(level: object, who: str, *, allow_none: Literal[False] = False) -> float: ...
@overload
def check_level(level: object, who: str, *, allow_none: bool) -> float | None: ...
def check_level(level: object, who: str, *, allow_none: bool = False) -> float | None:
    """``level`` as a float, refused unless a real number in ``(0, 1)`` (or None with ``allow_none``).

    Raises:
        ValueError: a bool, a non-number, NaN, or a number outside ``(0, 1)``.
    """
    if level is None and allow_none:
        return None
    if is_real(level) and 0 < level < 1:  # NaN fails both comparisons
        return float(level)
    prefix = f"{who} " if who else ""
    alternative = " or None" if allow_none else ""
    raise ValueError(
        f"{prefix}level must be a number between 0 and 1 (e.g. 0.95 for a 95% interval){alternative}, got {level!r}."
    )
