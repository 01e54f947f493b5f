"""Reference-based metrics: compare a prediction with its gold answer.

`StringMetric` and `FieldMetric` are in the core; the others need the
``metrics`` extra, which they import only when first called.

The metric contract
-------------------
`ek.base.Metric` asks only for ``__call__``, so any function
``(pred, gold, *, grammar=None) -> Score | number`` can be scored with. The
rest is what ek's own metrics (here and in `ek.agents`) promise, and what
`ek.evaluate`, `ek.merge_reports` and the regression gate rely on:

``name``
    The registered name; `merge_reports` finds the metric again by it.
``higher_is_better``
    A class-level bool. Direction belongs to the metric, not to its scores.
``statistics``
    The ``Score.detail`` keys the corpus figure sums, e.g.
    ``("edits", "ref_len")``. Class-level, or a property where it depends on
    configuration (`SpanF1Metric`: seqeval's or nervaluate's counts). Every
    score carries them as numbers.
``compute(totals) -> float``
    The headline value from a mapping of summed statistics. It accepts
    float totals (weighted sums, as a bootstrap replicate makes) and is the
    one place the 0/0 case is decided: a metric with a convention uses it
    (nothing predicted and nothing in the gold is F1 1.0; two empty graphs
    are at distance 0), and a mean of nothing is NaN.
``__call__(pred, gold, *, grammar=None) -> Score``
    One comparison.
``aggregate(scores) -> float``
    Exactly ``compute`` of each statistic summed over ``scores``, so shards,
    slices and resumed runs merge by addition. An empty corpus raises
    ValueError.
``options`` and ``with_options(**values)``
    Optional. The facade options a metric takes (``normalize``,
    ``weights``), mapped to the field that receives each, and a configured
    copy; an option a metric does not declare is a TypeError.
``score_many(preds, golds, *, grammar=None)``
    Optional: a sequence of scores for aligned lists, for speed.

A plain function declares its aggregation with `metric`; without one,
`ek.evaluate` falls back to the mean of the values and warns.
``Report.detail["aggregation"]`` says which rule made a figure:
``"statistics"`` (``compute`` of summed statistics), ``"sum_ratio"`` or
``"mean"`` (a `metric` wrapper, or the fallback), ``"custom"`` (an
``aggregate`` without statistics).

Default metrics by type
-----------------------
`ek.score` without ``metric=`` asks the rules registered in the
``"dispatch"`` namespace (see `ek._util.DispatchRule`), in order of
priority and then name, and the first that claims the pair names the metric:
`ek.agents.Episode` -> task success, `Table` -> TEDS, `TypedGraph` ->
typed-graph distance (priority 0), then str -> CER (100), mapping -> field
F1 (110), and an object with a str ``.text`` on both sides -> CER on the
texts (120).

>>> import ek
>>> StringMetric.higher_is_better, StringMetric().statistics
(False, ('edits', 'ref_len'))
>>> m = StringMetric()
>>> scores = [m("ct", "cat"), m("kitten", "sitting")]
>>> m.aggregate(scores) == m.compute({"edits": 4, "ref_len": 10}) == 0.4
True
"""

from ek.metrics._custom import metric
from ek.metrics.anls import AnlsMetric
from ek.metrics.fields import FieldMetric
from ek.metrics.graphs import TypedEdge, TypedGraph, TypedGraphMetric, TypedNode
from ek.metrics.spans import MatchScheme, SpanF1Metric
from ek.metrics.strings import StringMetric
from ek.metrics.tables import Cell, GritsMetric, Table, TedsMetric

__all__ = [
    "AnlsMetric",
    "Cell",
    "FieldMetric",
    "GritsMetric",
    "MatchScheme",
    "SpanF1Metric",
    "StringMetric",
    "Table",
    "TedsMetric",
    "TypedEdge",
    "TypedGraph",
    "TypedGraphMetric",
    "TypedNode",
    "metric",
]
