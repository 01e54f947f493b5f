"""How many items a weighted figure really rests on: Kish's effective sample size.

A ratio over documents (summed edits over summed reference length) is
driven by its long documents: when a few of them hold most of the length,
the interval behaves as if the audit had only a handful of items, whatever
``n`` says. Kish's effective size ``(Σw)² / Σw²`` of the weights (the
denominator each item contributes) measures that; it is ``n`` for equal
weights and 1 when one item holds everything. The intervals of
`ek._bootstrap` and `ek._corpus_estimates` flag themselves with it, and `Concentration.why`
says the reason in numbers.

>>> c = concentration([100, 100, 5000, 4000, 100, 100])
>>> c.n, round(c.effective_n, 2), c.top_k, round(c.top_share, 3)
(6, 2.15, 1, 0.532)
>>> c.why("documents", "reference length")
'1 of 6 documents hold 53% of the reference length: effective n ≈ 2.2'
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable

__all__ = ["Concentration", "concentration", "effective_size"]


def effective_size(weights: Iterable[float]) -> float:
    """Kish's ``(Σw)² / Σw²`` of non-negative weights; 0.0 when they sum to 0.

    >>> effective_size([1, 1, 1, 1]), effective_size([1, 0, 0, 0])
    (4.0, 1.0)
    """
    total = squares = 0.0
    for w in weights:
        w = float(w)
        if w < 0 or math.isnan(w):
            raise ValueError(f"a weight must be a non-negative number, got {w!r}")
        total += w
        squares += w * w
    return 0.0 if squares == 0.0 else total * total / squares


@dataclasses.dataclass(frozen=True)
class Concentration:
    """``n`` weights, their effective size, and the fewest (``top_k``) holding at least half the total."""

    n: int
    effective_n: float
    top_k: int
    top_share: float

    def why(self, noun: str = "items", of: str = "weight") -> str:
        """The reason an interval is not trusted, in numbers."""
        return (
            f"{self.top_k} of {self.n} {noun} hold {self.top_share:.0%} of the {of}: "
            f"effective n ≈ {_figure(self.effective_n)}"
        )


def concentration(weights: Iterable[float]) -> Concentration:
    """The `Concentration` of ``weights`` (non-negative; all zero gives effective size 0 and ``top_k`` 0)."""
    values = sorted((float(w) for w in weights), reverse=True)
    size = effective_size(values)
    total = sum(values)
    held, k = 0.0, 0
    if total > 0:
        for k, w in enumerate(values, start=1):  # k is read after the loop
            held += w
            if held >= total / 2:
                break
    return Concentration(len(values), size, k, held / total if total > 0 else 0.0)


def _figure(x: float) -> str:
    """One decimal below 10, whole numbers from 10."""
    return f"{x:.1f}" if x < 10 else f"{x:.0f}"
