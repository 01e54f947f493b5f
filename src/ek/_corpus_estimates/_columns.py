"""A `Report` read as statistic columns, once: the array, the id index, the slices and the corpus moments.

A proxy of a million items is read into one ``(N, k)`` float array the first
time an estimate uses it, and the array, the index from id text to row and
the `ek._stats._prediction_powered.Moments` of the whole corpus and of each slice are kept
by the report's resampler (`ek._bootstrap.kept`; never pickled, never
compared, nothing written onto the report), so later estimates,
plans and comparisons pay only for their audit. Reports are read through
`ek._bootstrap` (which statistics a metric sums, column-backed scores), so
the rules and messages are those of `ek.Report.interval`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ek._bootstrap import id_text, kept, metric_of, statistic_table
from ek._stats._prediction_powered import Moments, moments
from ek._util import as_columns, first_repeat

__all__ = ["Columns", "columns", "detail_column", "examples"]

_KEY = "ppi_columns"


class Columns:
    """One report's items as arrays: ``table`` ``(n, k)``, the slice ``codes`` (-1: no slice) and ``labels``."""

    def __init__(
        self,
        report: Any,
        role: str,
        who: str,
        names: tuple[str, ...],
        compute: Callable[[Mapping[str, float]], float],
        table: Any,
    ) -> None:
        import numpy as np

        self.role, self.metric_name, self.n, self.who = role, report.metric, report.n, who
        self.metric = metric_of(report)
        self.names, self.compute, self.table = names, compute, table
        ids = report.detail.get("ids")
        self.ids: tuple[Any, ...] = tuple(range(report.n)) if ids is None else tuple(ids)
        slices = report.detail.get("slices")
        groups: dict[Any, int] = {}  # slice label -> code
        if slices is None:
            self.codes = np.full(report.n, -1, dtype=np.int64)
        else:
            self.codes = np.fromiter(
                (-1 if x is None else groups.setdefault(x, len(groups)) for x in slices), dtype=np.int64, count=report.n
            )
        self.labels = tuple(groups)
        self._index: dict[str, int] | None = None
        self._moments: dict[int | None, Moments] = {}

    def value(self, totals: Sequence[float]) -> float:
        """The metric's figure from totals given in column order."""
        return float(self.compute(dict(zip(self.names, totals))))

    def index(self, who: str | None = None) -> dict[str, int]:
        """Id text -> row (ValueError when two items share an id text: a join by id would be ambiguous)."""
        if self._index is None:
            texts = self.ids if set(map(type, self.ids)) <= {str} else list(map(id_text, self.ids))
            index = dict(zip(texts, range(self.n)))
            repeat = first_repeat(texts) if len(index) < self.n else None
            if repeat is not None:
                i, j = repeat
                raise ValueError(
                    f"{who or self.who}: the {self.role} holds the id {self.ids[j]!r} twice (items {i} and {j}); every "
                    "item needs its own id, or the audit cannot be joined to the corpus. Give each item one id."
                )
            self._index = index
        return self._index

    def rows(self, ids: Sequence[Any], *, who: str) -> Any:
        """The rows of ``ids`` (ValueError naming a few that are not among this report's items)."""
        import numpy as np

        index = self.index()
        texts = ids if set(map(type, ids)) <= {str} else list(map(id_text, ids))
        rows = np.fromiter((index.get(t, -1) for t in texts), dtype=np.int64, count=len(texts))
        unknown = [ids[i] for i in np.flatnonzero(rows < 0)[:4].tolist()]
        if unknown:
            count = int((rows < 0).sum())
            raise ValueError(
                f"{who}: {count} of the {len(ids)} audited ids are not in the corpus (the {self.role}'s "
                f"{self.n} ids){examples(unknown)}; audit items of the corpus only, under the ids the "
                f"{self.role} gives them."
            )
        return rows

    def moments(self, code: int | None = None) -> Moments:
        """`Moments` of every row (``code`` None) or of slice ``code``, computed once."""
        if code not in self._moments:
            self._moments[code] = moments(self.table if code is None else self.table[self.codes == code])
        return self._moments[code]


def columns(report: Any, *, role: str, who: str) -> Columns:
    """The `Columns` of ``report`` (made once), after checking every statistic is a finite number >= 0 and ids unique."""
    out: Columns = kept(report, _KEY, lambda: _read(report, role, who))
    out.index(who)
    return out


def detail_column(report: Any, name: str) -> Any | None:
    """The per-item ``detail[name]`` of ``report`` as floats, or None when some item has none."""
    import numpy as np

    scores = report.scores
    backed = as_columns(scores)
    if backed is not None:
        try:
            return np.asarray(backed.column(name), dtype=np.float64)
        except KeyError:
            return None
    values = [(s.detail or {}).get(name) for s in scores]
    if any(not isinstance(v, (int, float)) or isinstance(v, bool) for v in values):
        return None
    return np.asarray(values, dtype=np.float64)


def examples(values: Iterable[Any]) -> str:
    """`` ('a', 'b', 'c', ...)`` for an error message: the first three values."""
    shown = list(values)
    return f" ({', '.join(map(repr, shown[:3]))}{', ...' if len(shown) > 3 else ''})" if shown else ""


def _read(report: Any, role: str, who: str) -> Columns:
    import numpy as np

    if not report.n:
        raise ValueError(f"{who}: the {role} report is empty; score the items first.")
    try:
        names, compute, table = statistic_table(report)
    except ValueError as exc:
        raise ValueError(f"{who}: the {role} report cannot be used: {exc}") from None
    table = np.asarray(table, dtype=np.float64)
    bad = ~np.isfinite(table) | (table < 0)
    if bad.any():
        i, j = (int(x) for x in np.argwhere(bad)[0])
        out = Columns(report, role, who, names, compute, table)
        raise ValueError(
            f"{who}: {role} item {out.ids[i]!r} has {names[j]} = {float(table[i, j])!r}; every statistic must be a "
            f"finite number >= 0 (a count or a sum of them). Fix or drop that item before estimating."
        )
    return Columns(report, role, who, names, compute, table)
