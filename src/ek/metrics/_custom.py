"""`metric`: make a plain ``(pred, gold) -> number | Score`` function follow the metric contract.

The corpus figure of a function says nothing about how per-item results
combine: the mean of per-item CERs is not the corpus CER. `metric` makes the
caller say it once, and the wrapped function then has the ``statistics``,
``compute`` and ``aggregate`` of every ek metric (see `ek.metrics`), so its
reports merge exactly and say what their figure is
(``Report.detail["aggregation"]``).
"""

from __future__ import annotations

import dataclasses
import inspect
import math
from collections.abc import Callable, Iterable, Mapping, Sequence, Sized
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar

from ek._util import ratio, sum_detail, type_name
from ek.base import GraphGrammar, MetricContract, Score
from ek.metrics._contract import check_aligned

__all__ = ["metric"]

_MEAN_STATISTICS = ("value", "n")


@dataclass(frozen=True)
class _FunctionMetric:
    """A plain function with a declared aggregation; built by `metric`."""

    fn: Callable[..., Any]
    name: str
    aggregation: str
    statistics: tuple[str, ...]
    higher_is_better: bool | None = None
    custom: Callable[[Any], float] | None = None
    takes_grammar: bool = False

    options: ClassVar[Mapping[str, str]] = MappingProxyType({})
    declared: ClassVar[bool] = True
    unit: ClassVar[str | None] = None
    percent: ClassVar[bool] = False
    reads_documents: ClassVar[bool] = False

    def __call__(self, pred: Any, gold: Any, *, grammar: GraphGrammar | None = None) -> Score:
        out = self.fn(pred, gold, grammar=grammar) if self.takes_grammar else self.fn(pred, gold)
        if not isinstance(out, Score):
            if isinstance(out, bool) or not isinstance(out, (int, float)):
                raise TypeError(f"metric {self.name!r} returned {type_name(out)}; it must return a Score or a number.")
            if self.aggregation == "sum_ratio":
                raise TypeError(self._needs_statistics(f"returned the number {out!r}"))
            out = Score(float(out), metric=self.name)
        if self.aggregation == "mean":
            return dataclasses.replace(out, metric=self.name, detail={**out.detail, "value": float(out.value), "n": 1})
        if self.aggregation == "sum_ratio":
            missing = [k for k in self.statistics if not _is_number(out.detail.get(k))]
            if missing:
                raise TypeError(self._needs_statistics(f"returned a Score without a number under {missing[0]!r}"))
        return dataclasses.replace(out, metric=self.name)

    def compute(self, totals: Mapping[str, float]) -> float:
        """The corpus figure from summed statistics: numerator over denominator, or value over n.

        A zero denominator (or ``n``) gives NaN: the figure is undefined.

        Raises:
            TypeError: the metric aggregates with a custom function, which
                has no statistics to sum.
        """
        if self.custom is not None:
            raise TypeError(
                f"metric {self.name!r} aggregates with a custom function, so it has no compute(); "
                "declare aggregate='mean' or 'sum_ratio' to get one."
            )
        return ratio(totals[self.statistics[0]], totals[self.statistics[1]])

    def aggregate(self, scores: Iterable[Score]) -> float:
        """The corpus figure: `compute` of the summed statistics, or the custom function's value.

        Raises:
            ValueError: no scores (an empty corpus has no aggregate).
        """
        if self.custom is None:
            return self.compute(sum_detail(scores, self.statistics, metric=self.name))
        items = scores if isinstance(scores, Sized) else list(scores)
        if not len(items):
            raise ValueError(f"{self.name}.aggregate() got no scores; an empty corpus has no aggregate.")
        return float(self.custom(items))

    def score_many(
        self, preds: Sequence[Any], golds: Sequence[Any], *, grammar: GraphGrammar | None = None
    ) -> Sequence[Score]:
        """The scores of aligned lists, one call of the function each."""
        check_aligned(preds, golds)
        return tuple(self(p, g, grammar=grammar) for p, g in zip(preds, golds))

    def with_options(self, **values: Any) -> _FunctionMetric:
        """Refused: a function metric takes no facade options (its function applies its own).

        Raises:
            TypeError: always, naming the option.
        """
        raise TypeError(
            f"metric {self.name!r} does not take {min(values)}= (it takes no options); apply it inside the function."
        )

    def _needs_statistics(self, what: str) -> str:
        num, den = self.statistics
        return (
            f"metric {self.name!r} {what}; with aggregate='sum_ratio' the function must return a "
            f"Score whose detail holds the numbers {num!r} and {den!r}, e.g. "
            f"Score(value, detail={{{num!r}: ..., {den!r}: ...}})."
        )


def metric(
    fn: Callable[..., Any],
    *,
    aggregate: str | Callable[[Any], float] = "mean",
    higher_is_better: bool | None = None,
    statistics: Sequence[str] | None = None,
    name: str | None = None,
) -> MetricContract:
    """A metric following ek's contract, made from a plain ``(pred, gold) -> number | Score`` function.

    Args:
        fn: the per-item function; it gets ``grammar=`` too if it takes it.
        aggregate: how per-item results make the corpus figure:
            ``"mean"`` (the mean of the per-item values), ``"sum_ratio"``
            (the ratio of two summed statistics named by ``statistics``,
            which ``fn`` returns in its ``Score.detail``, as CER sums edits
            and reference lengths), or a callable ``scores -> float``.
        higher_is_better: the metric's direction, read by the regression gate.
        statistics: ``(numerator, denominator)`` detail keys, for ``"sum_ratio"``.
        name: the metric's name (default: the function's name).

    Raises:
        ValueError: an unknown ``aggregate``, or ``statistics`` that do not
            fit it.
        TypeError: ``fn`` is not callable or ``higher_is_better`` not a bool.

    >>> import ek
    >>> def cer_like(pred, gold):
    ...     edits = sum(a != b for a, b in zip(pred, gold)) + abs(len(pred) - len(gold))
    ...     return ek.Score(edits / len(gold), detail={"edits": edits, "ref_len": len(gold)})
    >>> m = metric(cer_like, aggregate="sum_ratio", statistics=("edits", "ref_len"), higher_is_better=False)
    >>> round(ek.evaluate([("abx", "abc"), ("a", "a"), ("b", "a")], metric=m).aggregate, 3)
    0.4
    """
    if not callable(fn):
        raise TypeError(f"metric() needs a function (pred, gold) -> number | Score, got {type_name(fn)}.")
    if higher_is_better is not None and not isinstance(higher_is_better, bool):
        raise TypeError(f"metric() higher_is_better must be True, False or None, got {higher_is_better!r}.")
    label = name or getattr(fn, "__name__", None) or type(fn).__name__
    custom = aggregate if callable(aggregate) else None
    if aggregate == "mean" or custom is not None:
        if statistics is not None:
            raise ValueError(
                "metric() statistics= names the numerator and denominator of aggregate='sum_ratio'; "
                "drop it, or pass aggregate='sum_ratio'."
            )
        kind, stats = ("custom", ()) if custom is not None else ("mean", _MEAN_STATISTICS)
    elif aggregate == "sum_ratio":
        if not (
            isinstance(statistics, (tuple, list))
            and len(statistics) == 2
            and all(isinstance(k, str) and k for k in statistics)
        ):
            raise ValueError(
                f"metric(aggregate='sum_ratio') needs statistics=(numerator, denominator), two detail "
                f"keys its function returns, got {statistics!r}; e.g. statistics=('edits', 'ref_len')."
            )
        kind, stats = "sum_ratio", tuple(statistics)
    else:
        raise ValueError(
            f"metric() aggregate must be 'mean', 'sum_ratio' or a callable scores -> float, got {aggregate!r}."
        )
    return _FunctionMetric(fn, label, kind, stats, higher_is_better, custom, _takes_grammar(fn))


def _takes_grammar(fn: Callable[..., Any]) -> bool:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):  # builtins without a signature
        return False
    return any(p.name == "grammar" or p.kind is p.VAR_KEYWORD for p in params)


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and not math.isnan(x)
