"""Exact, mergeable sums of statistic columns: what one partition sends for each statistic.

A tree reduction adds partial sums in an order the partitioning decides, so
a plain float ``+`` would make the corpus figure depend on how the data was
split. Here no sum is ever rounded on the way:

* a column of integers is summed as a Python ``int`` (exact whatever its size);
* a column holding floats becomes an *expansion*: a short tuple of floats
  whose exact (unrounded) sum is the exact sum of the column. It is built
  with `math.fsum`, which returns the correctly rounded sum of its inputs:
  the first term is that sum, the next the correctly rounded remainder, and
  so on until the remainder is exactly 0 (two or three terms in practice).

Adding two partial sums keeps them exact, so merging summaries in any tree
gives the same result, and `total` rounds once at the end: the float it
returns is ``math.fsum`` of the whole column, to the last bit.

>>> a, b = exact_sum([0.1, 0.2]), exact_sum([0.3])
>>> total(add(a, b)) == math.fsum([0.1, 0.2, 0.3]) == 0.6
True
>>> total(add(exact_sum([2, 3]), exact_sum([10**20])))
100000000000000000005
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any

__all__ = ["Sum", "add", "exact_sum", "total"]

Sum = int | tuple[float, ...]
"""A partial sum: an ``int`` (every value was an integer) or an expansion (a tuple of floats)."""

_INTS = {int, bool}


def exact_sum(values: Sequence[Any]) -> Sum:
    """The exact sum of one partition's column of a statistic."""
    quick = sum(values)
    if type(quick) is int:  # only ints (and bools) add up to an int: int + float is a float, + numpy a numpy scalar
        return quick
    kinds = set(map(type, values))
    if kinds <= _INTS:
        return int(sum(values))
    if all(issubclass(k, numbers.Integral) for k in kinds):  # numpy integers
        return sum(map(int, values))
    return _expand(list(values))


def add(a: Sum, b: Sum) -> Sum:
    """The exact sum of two partial sums."""
    if isinstance(a, int) and isinstance(b, int):
        return a + b
    return _expand([*_terms(a), *_terms(b)])


def total(s: Sum) -> int | float:
    """The corpus sum: an int stays an int; an expansion rounds once (``math.fsum`` of the column)."""
    return s if isinstance(s, int) else math.fsum(s)


def _terms(s: Sum) -> tuple[float, ...]:
    return (float(s),) if isinstance(s, int) else s


def _expand(values: list[Any]) -> tuple[float, ...]:
    """Non-overlapping floats whose exact sum is the exact sum of ``values`` (NaN/inf kept as one term)."""
    try:
        rest = math.fsum(values)
    except ValueError:  # inf + -inf
        return (math.nan,)
    except OverflowError:  # a partial sum left the float range: as a plain sum would
        return (float(sum(values)),)
    if not math.isfinite(rest):
        return (rest,)
    terms: list[float] = []
    while rest:
        terms.append(rest)
        rest = math.fsum([*values, *(-t for t in terms)])
    return tuple(terms)
