"""Reference-based metrics: compare a prediction with its gold answer.

Each metric is registered in the ``"metrics"`` namespace and picked by name
or by the type of the objects compared (`ek.score` dispatches: str -> CER,
dict -> field F1, `Table` -> TEDS, `TypedGraph` -> typed-graph distance).

A metric is a callable ``(pred, gold, *, grammar=None) -> Score`` with an
``aggregate(scores)`` that sums the raw counts in each ``Score.detail`` and
divides once. `StringMetric` and `FieldMetric` are in the core; the others
need the ``metrics`` extra, which they import only when first called.
"""

from ek.metrics.anls import AnlsMetric
from ek.metrics.fields import FieldMetric
from ek.metrics import reading_order  # noqa: F401 - registers "fca" and "bow"
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
]
