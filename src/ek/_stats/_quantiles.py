"""Quantiles of sorted values and the percentile interval they give: numpy's "linear" rule, in plain Python.

Every interval ek reads off resampled values (the Poisson bootstrap of
reports, the seeded bootstraps of agent figures) takes its ends here, so
the two agree with each other and with ``numpy.quantile`` bit for bit.

>>> quantile([0.0, 1.0, 2.0, 10.0], 0.5)
1.5
>>> interval_of([3.0, float("nan"), 1.0, 2.0], 0.5)
(1.5, 2.5)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

__all__ = ["interval_of", "nearest_rank", "quantile", "sorted_numbers"]


def quantile(sorted_values: Sequence[float], q: float) -> float:
    """numpy's "linear" quantile ``q`` of non-empty ascending ``sorted_values``.

    The value interpolates between the two values around position
    ``q * (n - 1)`` as numpy's ``lerp`` does (from the nearer end, so it is
    exact at both). An infinite end is kept rather than turned into NaN: a
    position on a value, or between two equal values, gives that value, and
    a position between a finite value and ``inf`` gives ``inf``.
    """
    v = sorted_values
    h = q * (len(v) - 1)
    below = min(int(h), len(v) - 1)
    above = min(below + 1, len(v) - 1)
    a, b, t = v[below], v[above], h - below
    if t == 0 or a == b:
        return float(a)
    if math.isinf(a) or math.isinf(b):
        return float(a + (b - a) * t)
    return float(b - (b - a) * (1 - t) if t >= 0.5 else a + (b - a) * t)


def interval_of(values: Iterable[float], level: float) -> tuple[float, float]:
    """The ``(1 - level) / 2`` and ``(1 + level) / 2`` quantiles of ``values``, NaN ones left out.

    ``(nan, nan)`` when no value is left. The tails are taken as
    ``scipy.stats.bootstrap``'s percentile method takes them.
    """
    v = sorted_numbers(values)
    if not v:
        return (math.nan, math.nan)
    tail = (1 - level) / 2
    return (quantile(v, tail), quantile(v, 1 - tail))


def sorted_numbers(values: Iterable[float]) -> list[float]:
    """``values`` as ascending floats, NaN left out (the one value unequal to itself)."""
    return sorted(float(v) for v in values if v == v)


def nearest_rank(sorted_values: Sequence[float], q: float) -> float | None:
    """The nearest-rank ``q`` quantile of ascending ``sorted_values``: the ``ceil(q n)``-th value (None for none).

    >>> nearest_rank([1.0, 2.0, 3.0, 4.0], 0.5), nearest_rank([1.0, 2.0, 3.0, 4.0], 0.95)
    (2.0, 4.0)
    """
    if not sorted_values:
        return None
    return float(sorted_values[max(0, math.ceil(q * len(sorted_values)) - 1)])
