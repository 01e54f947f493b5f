"""Calling user-supplied strategies, and checking the numbers they return.

Signals, validators, calibrators and policies are plain callables; some take
an optional keyword (``spec=``, ``group=``) and some do not. The helpers here
call each one the way it accepts and turn a bad return value into an error
that names the strategy. Stdlib only: `ek.qe`, `ek.validate` and the
`ek.estimate_quality` pipeline all use them.
"""

from __future__ import annotations

import inspect
import math
import numbers
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from ek._util import type_name

__all__ = ["accepts_keyword", "call_maybe_group", "number", "probability"]


def accepts_keyword(func: Callable[..., Any], name: str) -> bool:
    """Whether ``func`` can be called with the keyword argument ``name``.

    >>> accepts_keyword(lambda v, *, spec=None: v, "spec"), accepts_keyword(len, "spec")
    (True, False)
    """
    try:
        return _accepts(func, name)
    except TypeError:  # unhashable callable: inspect directly
        return _inspect_accepts(func, name)


def call_maybe_group(func: Callable[..., Any], value: Any, group: Any | None) -> Any:
    """Call ``func(value, group=group)`` when it takes ``group``, else ``func(value)``."""
    if group is not None and accepts_keyword(func, "group"):
        return func(value, group=group)
    return func(value)


def number(value: Any, *, what: str) -> float:
    """``value`` as a finite float, or a ValueError/TypeError naming ``what``.

    >>> number(3, what="x")
    3.0
    """
    if getattr(value, "ndim", None) == 0 and hasattr(value, "item"):
        value = value.item()  # a 0-d array or numpy scalar
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{what} must be a real number, got {type_name(value)} {value!r:.60}.")
    v = float(value)
    if not math.isfinite(v):
        raise ValueError(f"{what} is {v!r}; it must be a finite number. Drop or impute missing values first.")
    return v


def probability(value: Any, *, what: str) -> float:
    """``value`` as a float in [0, 1], or an error saying why it is not one."""
    v = number(value, what=what)
    if not 0.0 <= v <= 1.0:
        raise ValueError(
            f"{what} is {v!r}, outside [0, 1]; a probability is needed here. "
            "Pass the score through a fitted calibrator first."
        )
    return v


@lru_cache(maxsize=512)
def _accepts(func: Callable[..., Any], name: str) -> bool:
    return _inspect_accepts(func, name)


def _inspect_accepts(func: Callable[..., Any], name: str) -> bool:
    try:
        params = inspect.signature(func).parameters
    except (TypeError, ValueError):
        return False
    for p in params.values():
        if p.kind is inspect.Parameter.VAR_KEYWORD:
            return True
        if p.name == name and p.kind in (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
            return True
    return False
