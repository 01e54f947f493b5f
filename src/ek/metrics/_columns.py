"""A lazy, column-backed sequence of `Score` s for fast corpus evaluation.

Building a frozen `Score` per item costs more than the edit distance itself,
so batch scoring keeps the per-item statistics in columns and builds a
`Score` only when one is read. Aggregators sum the columns directly.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, overload

from ek.base import Score


class ScoreColumns(Sequence[Score]):
    """Read-only ``Sequence[Score]`` whose rows are built on access.

    ``columns`` maps a statistic name to one list per item; ``make`` turns a
    row (keyword arguments named like the columns) into a `Score`.
    """

    __slots__ = ("_columns", "_make", "_n")

    def __init__(self, columns: Mapping[str, Sequence[Any]], make: Callable[..., Score]):
        lengths = {len(c) for c in columns.values()}
        if len(lengths) > 1:
            raise ValueError(f"ScoreColumns needs columns of one length, got lengths {sorted(lengths)}.")
        self._columns = {k: tuple(v) for k, v in columns.items()}
        self._make = make
        self._n = lengths.pop() if lengths else 0

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, index: int) -> Score: ...

    @overload
    def __getitem__(self, index: slice) -> ScoreColumns: ...

    def __getitem__(self, index: int | slice) -> Score | ScoreColumns:
        if isinstance(index, slice):
            return self.take(range(self._n)[index])
        if index < 0:
            index += self._n
        if not 0 <= index < self._n:
            raise IndexError(f"score index {index} out of range for {self._n} scores")
        return self._make(**{k: col[index] for k, col in self._columns.items()})

    def __iter__(self) -> Iterator[Score]:
        keys = list(self._columns)
        make = self._make
        for row in zip(*self._columns.values()):
            yield make(**dict(zip(keys, row)))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ScoreColumns):
            return self._make == other._make and self._columns == other._columns
        if isinstance(other, Sequence) and not isinstance(other, (str, bytes)):
            return len(other) == self._n and all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # unhashable, as list is; typeshed does the same

    def __repr__(self) -> str:
        return f"<{self._n} scores: {', '.join(self._columns)}>"

    def __add__(self, other: object) -> ScoreColumns:
        """The scores of ``self`` then ``other``, still column-backed when both are of one kind."""
        if not (
            isinstance(other, ScoreColumns)
            and other._make == self._make
            and other._columns.keys() == self._columns.keys()
        ):
            return NotImplemented
        return ScoreColumns({k: c + other._columns[k] for k, c in self._columns.items()}, self._make)

    def column(self, name: str) -> tuple[Any, ...]:
        """One statistic for every item."""
        return self._columns[name]

    def take(self, indices: Iterable[int]) -> ScoreColumns:
        """The scores at ``indices``, still column-backed."""
        idx = list(indices)
        return ScoreColumns({k: [c[i] for i in idx] for k, c in self._columns.items()}, self._make)
