"""The shared half of the metric contract, and the one place a foreign metric is wrapped into it.

`ek.base.MetricContract` is the contract as a type. `SummedStatistics` gives
ek's metric classes the members that are the same for all of them
(``aggregate`` from ``statistics`` and ``compute``, ``with_options`` from
``options``, a per-item ``score_many``, and the declared facts' defaults),
so none is written per metric.

`as_metric` is what the facade calls when it resolves a metric: an object
that already satisfies the contract is returned as it is, and anything else
(a plain function, a third-party object written to the prose contract) is
wrapped once into `_ForeignMetric`, whose attributes are read off the object
there and then. Everything downstream (the facade, the bootstrap, Dask, the
pages) reads attributes, never ``getattr`` defaults. A report carries the
resolved metric, so reports of one function merge and compare with that one
wrapper; two wrappers of one object are equal.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import (
    TYPE_CHECKING,
    Any,
    ClassVar,
)

from ek._util import ratio, sum_detail, type_name
from ek.base import GraphGrammar, MetricContract, Score

__all__ = ["SummedStatistics", "as_metric"]

_MEAN = ("value", "n")


class SummedStatistics:
    """The members of the metric contract (see `ek.metrics`) that are the same for every ek metric.

    A metric class declares ``name``, ``higher_is_better``, ``statistics`` and
    ``compute`` and, in ``options``, which facade options it takes (facade
    option -> the dataclass field that receives it); this mixin derives
    `aggregate`, `score_many` and `with_options` from those declarations.
    The facts the pages read default to "not a unit alignment, not a
    percentage, not a document metric"; a metric declares its own.
    """

    options: ClassVar[Mapping[str, str]] = MappingProxyType({})
    aggregation: ClassVar[str] = "statistics"
    declared: ClassVar[bool] = True
    percent: ClassVar[bool] = False
    reads_documents: ClassVar[bool] = False

    if TYPE_CHECKING:  # what each metric declares, for the type checker

        @property
        def name(self) -> str: ...

        @property
        def higher_is_better(self) -> bool | None: ...

        @property
        def statistics(self) -> tuple[str, ...]: ...

        @property
        def unit(self) -> str | None: ...

        def compute(self, totals: Mapping[str, float]) -> float: ...

        def __call__(self, pred: Any, gold: Any, /, *, grammar: GraphGrammar | None = None) -> Score: ...

    else:
        unit = None

    def aggregate(self, scores: Iterable[Score]) -> float:
        """The corpus figure: `compute` of each statistic summed over ``scores``.

        Raises:
            ValueError: ``scores`` is empty (an empty corpus has no
                aggregate), or holds a score without these statistics.
        """
        return self.compute(sum_detail(scores, self.statistics, metric=type(self).__name__))

    def score_many(
        self, preds: Sequence[Any], golds: Sequence[Any], *, grammar: GraphGrammar | None = None
    ) -> Sequence[Score]:
        """The scores of aligned lists, one comparison each (metrics with a faster path override it)."""
        check_aligned(preds, golds)
        return tuple(self(p, g, grammar=grammar) for p, g in zip(preds, golds))

    def with_options(self, **values: Any) -> MetricContract:
        """A copy of this metric with facade options (``normalize=``, ``weights=``) applied.

        Raises:
            TypeError: an option this metric does not declare in ``options``.
        """
        unknown = sorted(set(values) - set(self.options))
        if unknown:
            takes = ", ".join(f"{k}=" for k in self.options) or "no options"
            raise TypeError(
                f"{type(self).__name__} does not take {unknown[0]}= (it takes {takes}); drop it, "
                "or use a metric that declares it."
            )
        changed: MetricContract = dataclasses.replace(  # type: ignore[type-var]
            self, **{self.options[k]: v for k, v in values.items()}
        )
        return changed


def as_metric(obj: Any) -> MetricContract:
    """``obj`` as the metric contract: itself when it satisfies it, else its wrapper.

    Raises:
        TypeError: ``obj`` is not callable.
    """
    if isinstance(obj, (SummedStatistics, _ForeignMetric)):  # the common cases: nominal checks
        return obj
    if isinstance(obj, MetricContract):
        return obj
    if not callable(obj):
        raise TypeError(f"a metric must be callable (pred, gold, *, grammar=None) -> Score, got {type_name(obj)}.")
    return _ForeignMetric.of(obj)


@dataclass(frozen=True)
class _ForeignMetric:
    """A callable that is not an ek metric, with the contract's members read off it once (`as_metric`).

    What it declares is kept (``aggregate``, ``statistics``, ``compute``,
    ``options``, ``score_many``, the direction); without an ``aggregate`` its
    figure is the mean of its values (``declared`` is False: the facade
    warns), whose statistics are each value and a count of one.
    """

    target: Callable[..., Any]
    name: str
    higher_is_better: bool | None
    statistics: tuple[str, ...]
    aggregation: str
    options: Mapping[str, str]
    unit: str | None
    percent: bool
    reads_documents: bool
    _aggregate: Callable[[Iterable[Score]], float] | None
    _compute: Callable[[Mapping[str, float]], float] | None
    _score_many: Callable[..., Sequence[Score]] | None
    _with_options: Callable[..., Any] | None

    @classmethod
    def of(cls, obj: Callable[..., Any]) -> _ForeignMetric:
        """The wrapper of ``obj``: the one place a foreign metric's attributes are read."""
        read = _Reader(obj)
        aggregate, compute = read.method("aggregate"), read.method("compute")
        statistics = tuple(read.attr("statistics", tuple, ()))
        if aggregate is None:
            statistics, aggregation = _MEAN, "mean"
        else:
            kind = "statistics" if statistics and compute is not None else "custom"
            aggregation = read.attr("aggregation", str, kind)
        name = read.attr("name", str, "") or read.attr("__name__", str, "") or type(obj).__name__
        return cls(
            obj,
            name,
            read.attr("higher_is_better", bool, None),
            statistics,
            aggregation,
            MappingProxyType(dict(read.attr("options", Mapping, {}))),
            read.attr("unit", str, None),
            read.attr("percent", bool, False),
            read.attr("reads_documents", bool, False),
            aggregate,
            compute,
            read.method("score_many"),
            read.method("with_options"),
        )

    def __hash__(self) -> int:
        return hash((type(self), id(self.target)))

    @property
    def declared(self) -> bool:
        return self._aggregate is not None

    def __call__(self, pred: Any, gold: Any, /, *, grammar: GraphGrammar | None = None) -> Score:
        return _as_score(self.target(pred, gold, grammar=grammar), self.name)

    def compute(self, totals: Mapping[str, float]) -> float:
        """The target's ``compute``; the mean of the values for a function without an aggregate.

        Raises:
            TypeError: the target aggregates without summed statistics.
        """
        if self._compute is not None:
            return float(self._compute(totals))
        if self._aggregate is None:
            return ratio(totals["value"], totals["n"])
        raise TypeError(f"metric {self.name!r} has no compute(); it aggregates without summed statistics.")

    def aggregate(self, scores: Iterable[Score]) -> float:
        """The target's ``aggregate``, or the mean of the values.

        Raises:
            ValueError: no scores (an empty corpus has no aggregate).
        """
        if self._aggregate is not None:
            return float(self._aggregate(scores))
        values = [float(s.value) for s in scores]
        if not values:
            raise ValueError(f"{self.name}.aggregate() got no scores; an empty corpus has no aggregate.")
        return sum(values) / len(values)

    def score_many(
        self, preds: Sequence[Any], golds: Sequence[Any], *, grammar: GraphGrammar | None = None
    ) -> Sequence[Score]:
        if self._score_many is not None:
            return self._score_many(preds, golds, grammar=grammar)
        check_aligned(preds, golds)
        return tuple(self(p, g, grammar=grammar) for p, g in zip(preds, golds))

    def with_options(self, **values: Any) -> MetricContract:
        """The target's ``with_options``, wrapped in turn.

        Raises:
            TypeError: the target declares no options, or not these.
        """
        unknown = sorted(set(values) - set(self.options))
        if unknown or self._with_options is None:
            raise TypeError(
                f"metric {self.name!r} does not take {(unknown or sorted(values))[0]}=; drop it, or use a metric "
                "that declares it in its options (see the metric contract in ek.metrics)."
            )
        return as_metric(self._with_options(**values))


class _Reader:
    """Reads the optional members of a foreign object, each checked against the type it must have."""

    def __init__(self, obj: Any) -> None:
        self.obj = obj

    def attr(self, name: str, kind: Any, default: Any) -> Any:
        value = getattr(self.obj, name, None)
        return value if isinstance(value, kind) else default

    def method(self, name: str) -> Callable[..., Any] | None:
        value = getattr(self.obj, name, None)
        return value if callable(value) else None


def check_aligned(preds: Sequence[Any], golds: Sequence[Any]) -> None:
    """ValueError unless the two lists are as long as each other (one gold per prediction)."""
    if len(preds) != len(golds):
        raise ValueError(
            f"score_many() got {len(preds)} predictions but {len(golds)} references; "
            "pass one gold per prediction (aligned lists of equal length)."
        )


def _as_score(result: Any, name: str) -> Score:
    if isinstance(result, Score):
        return result
    if isinstance(result, (int, float)):
        return Score(float(result), metric=name)
    raise TypeError(f"metric {name!r} returned {type_name(result)}; a metric must return a Score or a number.")
