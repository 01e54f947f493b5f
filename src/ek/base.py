"""The data model every part of ek shares, and the strategy Protocols.

Two layers ride on one object:

* Layer A, the schema: `GraphGrammar` with its `NodeType`, `EdgeType` and
  `FieldSpec` entries. It is frozen and carries the importance weight of every
  type, which cost-sensitive metrics and validators read.
* Layer B, the verification metadata: `AnnotatedExtraction` maps a `NodePath`
  into the schema to a `FieldEstimate` (value, raw signals, confidence,
  findings, provenance, decision). It points at the grammar and never edits it.

Results are values too: `Score` for one comparison, `Report` for a corpus and
`QualityReport` for a reference-free estimate.

This module holds data and contracts only and imports nothing outside the
standard library; a `Report` carries the object that computes its interval.

>>> g = GraphGrammar(node_types={"donation": NodeType("donation", fields={
...     "amount": FieldSpec("amount", "number", importance=10.0)})})
>>> g.field_cost("donation", "amount"), g.field_cost("donation", "city")
(10.0, 1.0)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from types import MappingProxyType
from typing import (
    Any,
    Protocol,
    TypedDict,
    TypeVar,
    runtime_checkable,
)

from ek._util import FieldsOnlyState, FrozenMappings

__all__ = [
    "AnnotatedExtraction",
    "Bounds",
    "Calibrator",
    "Comparison",
    "ConfidenceSource",
    "CostWeight",
    "Decision",
    "DecisionPolicy",
    "EdgeType",
    "FieldEstimate",
    "FieldSpec",
    "Finding",
    "GraphGrammar",
    "Metric",
    "MetricContract",
    "NodePath",
    "NodeType",
    "Normalizer",
    "OcrBackend",
    "OcrBlock",
    "OcrResult",
    "Provenance",
    "QualityReport",
    "Report",
    "Score",
    "Severity",
    "Signal",
    "TypeRef",
    "Validator",
    "default_cost_weight",
]

_DEFAULT_IMPORTANCE = 1.0
_K = TypeVar("_K")
_V = TypeVar("_V")


def _frozen_mapping(value: Mapping[_K, _V] | None) -> Mapping[_K, _V]:
    """A read-only copy, so a value object cannot be changed through its dict."""
    return MappingProxyType(dict(value or {}))


def _check_importance(owner: str, importance: float) -> None:
    if not isinstance(importance, (int, float)) or isinstance(importance, bool):
        raise TypeError(f"{owner} importance must be a number, got {importance!r}.")
    if not math.isfinite(importance) or importance < 0:
        raise ValueError(
            f"{owner} importance must be a finite number >= 0, got {importance!r}; "
            "use 0 to make edits on it free and larger values to make them costlier."
        )


# --------------------------------------------------------------------------
# Layer A: the schema
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class FieldSpec:
    """A leaf attribute of a node: its type tag, allowed domain and cost weight.

    ``domain`` is for validators (an enum tuple, a ``(lo, hi)`` range or a
    regex string); ``normalizer`` names a registered canonicalizer applied to
    this field before comparison.
    """

    name: str
    type: str = "string"
    importance: float = _DEFAULT_IMPORTANCE
    domain: Any = ()
    normalizer: str | None = None

    def __post_init__(self) -> None:
        _check_importance(f"FieldSpec {self.name!r}", self.importance)


@dataclass(frozen=True)
class NodeType(FrozenMappings):
    """A kind of node in the typed graph (an invoice, a line item) and its fields."""

    name: str
    fields: Mapping[str, FieldSpec] = field(default_factory=dict)
    importance: float = _DEFAULT_IMPORTANCE

    def __post_init__(self) -> None:
        _check_importance(f"NodeType {self.name!r}", self.importance)
        object.__setattr__(self, "fields", _frozen_mapping(self.fields))


@dataclass(frozen=True)
class EdgeType:
    """A directed relation kind from node type ``src`` to node type ``dst``."""

    name: str
    src: str
    dst: str
    importance: float = _DEFAULT_IMPORTANCE

    def __post_init__(self) -> None:
        _check_importance(f"EdgeType {self.name!r}", self.importance)


@dataclass(frozen=True)
class TypeRef:
    """Points at one schema element so a cost function can look up its weight.

    ``kind`` is ``"node"``, ``"edge"`` or ``"field"``; for a field, ``name`` is
    the node type and ``field`` the field name.
    """

    kind: str
    name: str
    field: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in ("node", "edge", "field"):
            raise ValueError(f"TypeRef kind must be 'node', 'edge' or 'field', got {self.kind!r}.")
        if self.kind == "field" and self.field is None:
            raise ValueError("TypeRef(kind='field') needs field=<field name>; name is the node type.")


@dataclass(frozen=True)
class GraphGrammar(FrozenMappings):
    """The frozen schema: node and edge types with their importance weights.

    Anything not declared weighs 1.0, so a partial grammar always works.
    """

    node_types: Mapping[str, NodeType] = field(default_factory=dict)
    edge_types: Mapping[str, EdgeType] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "node_types", _frozen_mapping(self.node_types))
        object.__setattr__(self, "edge_types", _frozen_mapping(self.edge_types))

    def node_cost(self, name: str) -> float:
        """Importance of node type ``name`` (1.0 if undeclared)."""
        node = self.node_types.get(name)
        return float(node.importance) if node is not None else _DEFAULT_IMPORTANCE

    def edge_cost(self, name: str) -> float:
        """Importance of edge type ``name`` (1.0 if undeclared)."""
        edge = self.edge_types.get(name)
        return float(edge.importance) if edge is not None else _DEFAULT_IMPORTANCE

    def field_cost(self, node: str, field_name: str) -> float:
        """Importance of field ``field_name`` on node type ``node`` (1.0 if undeclared)."""
        spec = self.field_spec(node, field_name)
        return float(spec.importance) if spec is not None else _DEFAULT_IMPORTANCE

    def field_spec(self, node: str, field_name: str) -> FieldSpec | None:
        """The declared `FieldSpec`, or None when the grammar does not know it."""
        node_type = self.node_types.get(node)
        return None if node_type is None else node_type.fields.get(field_name)

    def cost(self, ref: TypeRef) -> float:
        """Importance of whatever ``ref`` points at."""
        if ref.kind == "node":
            return self.node_cost(ref.name)
        if ref.kind == "edge":
            return self.edge_cost(ref.name)
        assert ref.field is not None  # TypeRef.__post_init__ requires it for kind "field"
        return self.field_cost(ref.name, ref.field)


def default_cost_weight(grammar: GraphGrammar, ref: TypeRef) -> float:
    """The default `CostWeight`: the importance the grammar declares for ``ref``."""
    return grammar.cost(ref)


# --------------------------------------------------------------------------
# Layer B: verification metadata
# --------------------------------------------------------------------------


class Severity(str, Enum):
    """Whether a `Finding` only flags a value or also proposes a correction."""

    FLAG = "flag"
    CORRECT = "correct"

    __str__ = str.__str__  # numpy and f-strings see "flag", not "Severity.FLAG"


class Decision(str, Enum):
    """What a selective-prediction gate does with a value."""

    ACCEPT = "accept"
    FLAG = "flag"
    BLOCK = "block"

    __str__ = str.__str__  # numpy and f-strings see "block", not "Decision.BLOCK"


@dataclass(frozen=True)
class NodePath:
    """Address of a node, or of one field on it, in an extracted graph."""

    node_id: str
    node_type: str
    field: str | None = None


@dataclass(frozen=True)
class Provenance:
    """Where a value came from: engine, source span, bbox and raw transcripts.

    ``bbox`` is typed ``Any`` so the core never depends on an OCR package.
    """

    engine: str = ""
    source_span: tuple[Any, ...] | None = None
    bbox: Any = None
    raw_transcripts: tuple[str, ...] = ()


@dataclass(frozen=True)
class Finding:
    """One validator observation about a value; ``suggestion`` only when it corrects."""

    field: str
    layer: str
    severity: Severity = Severity.FLAG
    message: str = ""
    suggestion: Any = None


@dataclass(frozen=True)
class FieldEstimate(FrozenMappings):
    """One extracted value with its reference-free verification metadata."""

    value: Any
    raw_signals: Mapping[str, float] = field(default_factory=dict)
    confidence: float | None = None
    findings: tuple[Finding, ...] = ()
    provenance: Provenance | None = None
    decision: Decision | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "raw_signals", _frozen_mapping(self.raw_signals))
        object.__setattr__(self, "findings", tuple(self.findings))
        c = self.confidence
        if c is not None and (not isinstance(c, (int, float)) or isinstance(c, bool) or not math.isfinite(c)):
            raise ValueError(
                f"FieldEstimate confidence must be a finite number or None, got {c!r}; "
                "drop the value or pass confidence=None."
            )


@dataclass(frozen=True)
class AnnotatedExtraction(FrozenMappings):
    """Layer B: per-field estimates keyed by `NodePath`, beside a frozen grammar."""

    grammar: GraphGrammar
    estimates: Mapping[NodePath, FieldEstimate] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "estimates", _frozen_mapping(self.estimates))


# --------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Score:
    """The result of comparing one prediction with one reference.

    ``value`` is the headline; whether higher is better is the metric's call
    (its ``higher_is_better``). ``detail`` carries the statistics the
    metric's ``aggregate`` sums (its ``statistics``), so corpus figures are
    computed correctly. ``float(score)`` gives ``value``.
    """

    value: float
    precision: float | None = None
    recall: float | None = None
    f1: float | None = None
    metric: str = ""
    detail: Mapping[str, Any] = field(default_factory=dict)

    def __float__(self) -> float:
        return float(self.value)


@dataclass(frozen=True)
class Bounds:
    """An interval ``[low, high]`` at ``level``, and whether it can be trusted (see `Report.bounds`).

    ``reliable`` is False when the interval is NaN (too few items) or covers
    less than it says on the simulation grid; ``why`` then says the reason
    in numbers. ``effective_n`` is Kish's effective number of items the
    figure rests on (NaN when the report kept no items to weigh).
    """

    low: float
    high: float
    level: float
    reliable: bool
    why: str | None
    effective_n: float

    def pair(self) -> tuple[float, float]:
        """``(low, high)``, as `Report.interval` gives them."""
        return (self.low, self.high)


@dataclass(frozen=True)
class Report(FieldsOnlyState):
    """A corpus of `Score` s, its aggregate and its per-slice aggregates.

    ``aggregate`` comes from the metric's own ``aggregate`` (summed statistics,
    never a mean of per-item rates); it is None for an empty corpus.
    ``detail["slices"]`` holds each score's slice label so that reports over
    disjoint parts merge exactly (see `ek.merge_reports`), ``detail["ids"]``
    the item ids (if given; else items are numbered by position),
    ``detail["higher_is_better"]`` the metric's direction (or None) and
    ``detail["aggregation"]`` the rule that made the figure (see
    `ek.metrics`). A report whose items were dropped keeps its replicate
    sums: it still gives its `interval` and merges. The interval state (the
    metric, the replicate sums made on first use or stored) lives in one
    place, the private ``_resampler`` the facade gives the report; nothing
    is ever written onto the report itself.
    """

    metric: str = ""
    aggregate: float | None = None
    n: int = 0
    scores: Sequence[Score] = field(default_factory=tuple)
    per_slice: Mapping[Hashable, float] = field(default_factory=dict)
    detail: Mapping[str, Any] = field(default_factory=dict)
    _resampler: Any = field(default=None, compare=False, repr=False)  # set by the facade: owns the interval state
    _optional_state = ("_resampler",)  # travels as None if it cannot be pickled

    def interval(self, level: float = 0.95, *, slice: Hashable = None) -> tuple[float, float]:
        """A ``level`` percentile-bootstrap interval of ``aggregate``, or of slice ``slice``'s figure: `bounds`' ends.

        Items are resampled (documents, not characters) under Poisson
        weights derived from a hash of each id and the replicate number
        (1,000 replicates); the metric recomputes its figure on each. So the
        interval is the same on every machine, merged reports give the
        interval of the whole, and runs over the same ids pair up in
        `ek.compare`. Needs numpy.

        Fewer than 40 items (in the report, or in the slice) give no
        interval: ``(nan, nan)``, which ``ek evaluate`` shows as ``needs 40+
        items``. The percentile bootstrap is too narrow on so few documents
        (one document would give a zero-width interval); the minimum was
        chosen by simulation (``ek._bootstrap.MIN_ITEMS``). An interval that
        `bounds` finds unreliable comes with a `UserWarning` saying why.

        Raises:
            ValueError: an empty report, an unknown slice, a ``level``
                outside (0, 1), or a metric that aggregates without summed
                statistics.

        >>> import ek
        >>> r = ek.evaluate([("ct", "cat"), ("dog", "dog"), ("bird", "bird")] * 20, metric="cer")
        >>> r.interval()[0] < r.aggregate < r.interval()[1]
        True
        >>> ek.evaluate([("ct", "cat"), ("dog", "dog")], metric="cer").interval()
        (nan, nan)
        """
        b = self._bounds(level, slice, "Report.interval()")
        if not b.reliable and b.why is not None and b.low == b.low:  # NaN bounds say it themselves
            import warnings

            warnings.warn(b.why, UserWarning, stacklevel=2)
        return float(b.low), float(b.high)

    def bounds(self, level: float = 0.95, *, slice: Hashable = None) -> Bounds:
        """The interval of `interval` with its verdict: ``reliable`` False, and ``why``, when it cannot be trusted.

        The figure is a ratio of summed statistics, and each item weighs in
        it by its share of the denominator (reference length for CER and
        WER). When Kish's effective size of those weights, ``(Σw)² / Σw²``,
        is under 30 (as when 1 of 200 documents holds most of the reference
        length), or when the largest tenth of them falls off like a power
        law of index under 2 (a few documents the audit did not draw could
        then hold most of the corpus), the bootstrap interval covers less
        than it says; ``why`` gives the numbers. Fewer than 40 items give
        NaN bounds, not reliable. The simulation behind both thresholds is
        ``scripts/coverage_grid.py``. Needs numpy.

        Raises:
            ValueError: as `interval`.

        >>> import ek
        >>> pairs = [("ct", "cat"), ("dog", "dog"), ("bird", "bird")] * 20
        >>> b = ek.evaluate(pairs, metric="cer").bounds()
        >>> b.reliable, b.why, b.low < 1 / 9 < b.high
        (True, None, True)
        >>> b = ek.evaluate(pairs + [("x" * 900, "y" * 900)], metric="cer").bounds()
        >>> b.reliable, b.why
        (False, '1 of 61 documents hold 82% of the reference length: effective n ≈ 1.5')
        """
        return self._bounds(level, slice, "Report.bounds()")

    def _bounds(self, level: float, slice: Hashable, who: str) -> Bounds:
        if not self.n or self._resampler is None:
            raise ValueError(
                f"this {self.metric!r} report "
                + (
                    "is empty: score some items first."
                    if not self.n
                    else "does not know its metric (built by hand?); pass it through ek.merge_reports(report, "
                    "metric=...)."
                )
            )
        bounds: Bounds = self._resampler.bounds(self, level, slice, who=who)
        return bounds


class SliceComparison(TypedDict):
    """One row of `Comparison.per_slice`: B against A over one slice, in the comparison's own keys, and ``n``."""

    a: float | None
    b: float | None
    delta: float | None
    interval: tuple[float, float]
    p_value: float
    verdict: str
    reliable: bool
    why: str | None
    n: int | None  # the slice's items (None: a summary report does not say); its audited ones for estimates


@dataclass(frozen=True)
class Comparison:
    """Run B against run A on the same items (`ek.compare`): the paired difference of one metric.

    ``delta`` is ``b - a``; ``interval`` its paired bootstrap interval at
    ``level``, or ``(nan, nan)`` below 40 items; ``p_value`` the two-sided
    p-value of no difference. ``verdict`` is ``"better"`` / ``"worse"`` (B,
    in the metric's direction; ``"higher"`` / ``"lower"`` when it has none)
    when the difference is significant at ``level``, ``"too few items
    (n=K) to tell"`` when K items cannot make it so (5 or fewer at 0.95),
    else ``"no detectable difference"``. ``reliable`` is False when the
    interval cannot be trusted (below 40 items, or on items of very unequal
    weight, as `Report.bounds` judges it over both runs' weights), and
    ``why`` says why. ``per_slice`` maps each slice to a dict of these keys
    and ``n`` (a `SliceComparison`).
    """

    metric: str
    a: float | None
    b: float | None
    delta: float | None
    interval: tuple[float, float]
    p_value: float
    verdict: str
    per_slice: Mapping[Hashable, SliceComparison] = field(default_factory=dict)
    level: float = 0.95
    n: int = 0
    higher_is_better: bool | None = None
    reliable: bool = True
    why: str | None = None


@dataclass(frozen=True)
class QualityReport:
    """A reference-free quality estimate for one value or a whole extraction.

    For a whole `AnnotatedExtraction`, ``per_field`` holds each updated
    `FieldEstimate`; the scalars then summarise it (weakest confidence, most
    severe decision).
    """

    calibrated_confidence: float | None = None
    decision: Decision | None = None
    findings: tuple[Finding, ...] = ()
    raw_signals: Mapping[str, float] = field(default_factory=dict)
    provenance: Mapping[str, Any] = field(default_factory=dict)
    per_field: Mapping[NodePath, FieldEstimate] | None = None


# --------------------------------------------------------------------------
# Strategy Protocols and callable aliases
# --------------------------------------------------------------------------

Normalizer = Callable[[str], str]
"""Type of one normalize step, ``str -> str``: what a metric's ``canonicalizer`` takes.

Use it to annotate your own steps. To build or name steps, use
`ek.canonicalize` (``resolve_canonicalizer``, registered names such as
``"lower"``); to pass them, use ``normalize=`` on `ek.score` / `ek.evaluate`.
"""

ConfidenceSource = Callable[[FieldEstimate], Mapping[str, float]]
"""Type of a function that reads named raw signals off a `FieldEstimate`.

A typing aid only. Signals that compute a score from an extraction are
`Signal` strategies (see `ek.qe.signals`); use this alias for a small adapter
that pulls signals an extractor already attached to its fields.
"""

CostWeight = Callable[[GraphGrammar, TypeRef], float]
"""Cost of an edit on a schema element; `default_cost_weight` reads importance."""

OcrBackend = Callable[[Any], Any]
"""Type of an OCR engine as ek runs it: image in, an object with ``.text`` (and ``.blocks``) out.

A typing aid for your own engines; `ek.ocr.ocracy_backend` builds one from an
ocracy engine id, and `ek.ocr.evaluate_ocr` accepts either.
"""


class OcrBlock(Protocol):
    """What ek reads from one block of an `OcrResult`: its text, confidence and granularity.

    ``level`` is ``"glyph"``, ``"word"``, ``"line"``, ... (the finest level is
    scored when an engine mixes them); ``confidence`` is in [0, 1] or None.
    """

    @property
    def text(self) -> str: ...
    @property
    def confidence(self) -> float | None: ...
    @property
    def level(self) -> str | None: ...


class OcrResult(Protocol):
    """What ek reads from an OCR engine's reading (ocracy's ``OcrResult`` has this shape).

    A typing aid: ek reads engines' objects through ``getattr``, so a missing
    attribute is tolerated where the caller has a fallback.
    """

    @property
    def text(self) -> str: ...
    @property
    def blocks(self) -> Sequence[OcrBlock]: ...
    @property
    def mean_confidence(self) -> float | None: ...


@runtime_checkable
class Metric(Protocol):
    """Compares one prediction with one gold reference.

    Structurally only ``__call__`` is required, so a plain function
    ``(pred, gold, *, grammar=None) -> Score | number`` is a Metric. ek's
    own metrics satisfy the whole contract, `MetricContract` (``name``,
    ``higher_is_better``, ``statistics``, ``compute(totals)``,
    ``aggregate(scores) == compute(summed statistics)``, ...), written out in
    `ek.metrics`. Wrap a plain function with `ek.metric` to declare it.
    """

    def __call__(self, pred: Any, gold: Any, /, *, grammar: GraphGrammar | None = None) -> Score | float: ...


@runtime_checkable
class MetricContract(Protocol):
    """A metric as ek reads it once resolved: the contract `ek.metrics` writes out.

    Every registered metric satisfies it (their shared half comes from
    `ek.metrics.SummedStatistics`), and the facade wraps any other callable
    into it once, when it resolves the metric (`ek.metrics.as_metric`;
    `ek.metric` builds one directly). So the facade, the bootstrap, the Dask
    path and the pages read these attributes and never guess from a name.

    Attributes:
        name: the registered name (`ek.merge_reports` finds the metric by it).
        higher_is_better: the direction, or None when it is not declared.
        statistics: the ``Score.detail`` keys the corpus figure sums.
        aggregation: the rule that makes the corpus figure: ``"statistics"``,
            ``"sum_ratio"``, ``"mean"`` or ``"custom"`` (see `ek.metrics`).
        declared: False only for a function that declared no aggregation, whose
            figure falls back to the mean of its values (the facade warns).
        options: the facade options it takes, mapped to the field receiving each.
        unit: what an edit counts (``"char"``, ``"grapheme"``, ``"word"``,
            ``"unicode_word"``), or None when it is not an alignment of units.
        percent: whether its values read as percentages (rates and shares).
        reads_documents: whether it scores OCR documents (their measures and
            confusions come with it).
    """

    @property
    def name(self) -> str: ...

    @property
    def higher_is_better(self) -> bool | None: ...

    @property
    def statistics(self) -> tuple[str, ...]: ...

    @property
    def aggregation(self) -> str: ...

    @property
    def declared(self) -> bool: ...

    @property
    def options(self) -> Mapping[str, str]: ...

    @property
    def unit(self) -> str | None: ...

    @property
    def percent(self) -> bool: ...

    @property
    def reads_documents(self) -> bool: ...

    def __call__(self, pred: Any, gold: Any, /, *, grammar: GraphGrammar | None = None) -> Score:
        """One comparison."""

    def compute(self, totals: Mapping[str, float]) -> float:
        """The headline value from summed statistics (float totals too); the one place 0/0 is decided."""

    def aggregate(self, scores: Iterable[Score]) -> float:
        """The corpus figure: `compute` of the statistics summed over ``scores``."""

    def score_many(
        self, preds: Sequence[Any], golds: Sequence[Any], *, grammar: GraphGrammar | None = None
    ) -> Sequence[Score]:
        """The scores of aligned lists (one pass where the metric declares a batch path)."""

    def with_options(self, **values: object) -> MetricContract:
        """A copy with facade options (``normalize=``, ``weights=``) applied; TypeError for undeclared ones."""


@runtime_checkable
class Signal(Protocol):
    """A reference-free signal: extractor output in, raw score (or named scores) out.

    ``cost_tier`` (lower is cheaper) orders the signals of one estimate.
    """

    @property
    def cost_tier(self) -> int: ...

    def __call__(self, target: Any, /) -> float | Mapping[str, float]: ...


@runtime_checkable
class Validator(Protocol):
    """A reference-free check on a value that yields `Finding` s."""

    def __call__(self, value: Any, /, *, spec: FieldSpec | None = None) -> Iterable[Finding]: ...


@runtime_checkable
class Calibrator(Protocol):
    """Maps a raw score to a probability once fitted on labelled outcomes."""

    def fit(self, scores: Iterable[float], correct: Iterable[bool | int], /) -> Calibrator: ...

    def __call__(self, score: Any, /) -> Any: ...  # a float, or a batch of them for a batch


@runtime_checkable
class DecisionPolicy(Protocol):
    """Turns a calibrated confidence into a `Decision`."""

    def __call__(self, confidence: float, /) -> Decision: ...
