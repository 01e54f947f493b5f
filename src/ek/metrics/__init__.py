"""Reference-based metrics: compare a prediction with its gold answer.

`StringMetric` and `FieldMetric` are in the core; the others need the
``metrics`` extra, which they import only when first called.

The metric contract
-------------------
`ek.base.Metric` asks only for ``__call__``, so any function
``(pred, gold, *, grammar=None) -> Score | number`` can be scored with. The
rest is what ek's own metrics (here and in `ek.agents`) promise, and what
`ek.evaluate`, `ek.merge_reports` and the regression gate rely on; as a
type, it is `ek.base.MetricContract`. `SummedStatistics` (here) gives a
metric class the members that are the same for all (``aggregate``,
``score_many``, ``with_options`` and the defaults of the facts below), and
`as_metric` is where the facade wraps, once, any callable that does not
satisfy the contract (a plain function gets the mean of its values, with a
warning):

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
    A sequence of scores for aligned lists: one call each, or a faster
    path where a metric declares one (`StringMetric`).
``aggregation`` and ``declared``
    The rule that makes the figure (below), and False only for a function
    that declared none (its figure is then the mean, and ek warns).
``unit``, ``percent``, ``reads_documents``
    Facts the pages read: what an edit counts (``"char"``, ``"grapheme"``,
    ``"word"``, ``"unicode_word"``; None when the metric aligns no units),
    whether values read as percentages, whether the metric scores OCR
    documents. A user metric gets None, False, False.

A plain function declares its aggregation with `metric`; without one,
`ek.evaluate` falls back to the mean of the values and warns.
``Report.detail["aggregation"]`` says which rule made a figure:
``"statistics"`` (``compute`` of summed statistics), ``"sum_ratio"`` or
``"mean"`` (a `metric` wrapper, or the fallback), ``"custom"`` (an
``aggregate`` without statistics).

Default metrics by type
-----------------------
`ek.score` without ``metric=`` asks the rules registered in the
``"dispatch"`` namespace. A rule is a predicate ``obj -> bool`` (is this
object of my kind?) with optional attributes: ``metric``, the metric it
picks (default: the rule's registered name); ``pairs``, when it claims a
pair (``"either"``, the default: one side of its kind is enough and the
metric checks the other; ``"same"``: one side claims the pair and the other
must be of the kind too, else TypeError "pred is X but gold is Y";
``"both"``: both sides must be); ``prepare``, a conversion of each side
before scoring; and ``priority`` (default 0). Rules are tried by priority,
then by name, and the first to claim the pair wins:

====================  ========  ====================================
rule                  priority  pair -> metric
====================  ========  ====================================
``task_success``      0         an `ek.agents.Episode` -> task success
``teds``              0         a `Table` -> TEDS
``typed_graph``       0         a `TypedGraph` -> typed-graph distance
``str``               100       str and str -> CER
``mapping``           110       dict and dict -> field F1
``text``              120       str ``.text`` on both sides -> CER of the texts
====================  ========  ====================================

A named metric still gets the ``prepare`` of a rule that claims both
sides, so ``metric="wer"`` reads the text of two OCR results.

>>> import ek
>>> StringMetric.higher_is_better, StringMetric().statistics
(False, ('edits', 'ref_len'))
>>> m = StringMetric()
>>> scores = [m("ct", "cat"), m("kitten", "sitting")]
>>> m.aggregate(scores) == m.compute({"edits": 4, "ref_len": 10}) == 0.4
True
"""

from ek._util import rehome
from ek.metrics import reading_order  # noqa: F401 - registers "fca" and "bow"

# the contract's shared half and the wrapper of foreign metrics, for ek's own packages (not in __all__)
from ek.metrics._contract import SummedStatistics as SummedStatistics
from ek.metrics._contract import as_metric as as_metric
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


rehome(globals())  # ek.metric is defined in a private module
