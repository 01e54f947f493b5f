"""The shapes of the page data, as types: what `ek.cli._commands` builds and the renderers read.

The package docstring of `ek.cli._html` describes each key; these TypedDicts declare
them. Every key may be absent (``total=False``): a renderer reads each with
``.get`` and checks a value before drawing it, so data a user writes by hand, or
reads back from a ``--json`` file, draws as far as it goes. An alignment op is any
``[tag, gold, pred]`` sequence (the `ek._align.Op` named tuples are one).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypedDict

Interval = Sequence[float]
"""``[low, high]`` (NaN bounds: too few items for an interval)."""

Ops = Sequence[Sequence[object]]
"""An alignment: ``[tag, gold_segment, pred_segment]`` per op."""


class ReadError(TypedDict):
    """A document that failed to read (`ek._files.Failure` as a dict)."""

    side: str
    path: str
    id: str
    message: str


class Skip(TypedDict):
    """A file that was not read, and why."""

    path: str
    reason: str


class Note(TypedDict):
    """A file that was read and scored, with something the reader should know (an empty prediction)."""

    id: str
    path: str
    note: str


class Fallback(TypedDict):
    """A region read at another text level than the run's (the level it had text at)."""

    side: str
    id: str
    region: str
    level: str


class LevelDisagreement(TypedDict):
    """A region whose text at two levels differs: the level read, the other, and the CER between them."""

    side: str
    id: str
    region: str
    level: str
    other_level: str
    cer: float


class Meta(TypedDict, total=False):
    """The provenance keys every page takes (`ek.cli._html._provenance`)."""

    inputs: dict[str, str]
    settings: dict[str, object]
    text_level: object  # the level read: a name, or {level: number of documents}, or one per side
    ek_version: str
    date: str
    errors: list[ReadError]
    skipped: list[Skip]
    fallbacks: list[Fallback]
    notes: list[Note]
    level_disagreements: list[LevelDisagreement]
    warnings: list[str]  # the run's warnings, one line each in command-line words


class Page(Meta, total=False):
    """The keys the evaluate and compare pages share."""

    title: str
    metric: str
    higher_is_better: bool | None
    percent: bool
    level: float
    n: int
    noun: str
    interval: Interval | None


class SliceFigures(TypedDict, total=False):
    """One slice of the evaluate page."""

    aggregate: float | None
    interval: Interval | None
    n: int | None


class Item(TypedDict, total=False):
    """One item of the evaluate page: its value and statistics, and for the items shown, texts and diff."""

    id: str
    slice: str | None
    value: float | None
    statistics: dict[str, object]
    gold: str | None
    pred: str | None
    ops: Ops
    unit: str


class FieldFigures(TypedDict):
    """Precision, recall and F1 of one field, from its summed counts."""

    precision: float
    recall: float
    f1: float
    tp: int
    fp: int
    fn: int


class EvaluatePage(Page, total=False):
    """The data of `render_evaluate` (``metric`` and ``aggregate`` required at run time)."""

    aggregate: float | None
    missing: list[object]
    extra: list[object]
    per_slice: dict[object, SliceFigures]
    items: list[Item]
    confusions: Sequence[Mapping[str, Any]]  # kind, gold, pred, count: the rows of `ek._align.confusion_table`
    fields: dict[str, FieldFigures]
    measures: dict[str, float]
    measures_left_out: dict[str, dict[str, Any]]  # "fca": the pages it was not computed on (ek.ocr.files)


class RunFigures(TypedDict, total=False):
    """Run A or B on the compare page."""

    name: str
    aggregate: float | None
    interval: Interval | None


class SliceDelta(TypedDict, total=False):
    """One slice of the compare page."""

    a: float | None
    b: float | None
    delta: float | None
    interval: Interval | None
    p_value: float | None
    verdict: str | None
    n: int | None


class CompareItem(TypedDict, total=False):
    """One item of the compare page, with both predictions and diffs for the items shown."""

    id: str
    slice: str | None
    a: float | None
    b: float | None
    delta: float | None
    gold: str | None
    pred_a: str | None
    pred_b: str | None
    ops_a: Ops
    ops_b: Ops
    unit: str


class ComparePage(Page, total=False):
    """The data of `render_compare` (``metric``, ``a``, ``b`` and ``delta`` required at run time)."""

    a: RunFigures
    b: RunFigures
    delta: float | None
    p_value: float
    verdict: str
    per_slice: dict[object, SliceDelta]
    items: list[CompareItem]


JsonReport = Mapping[str, Any]
"""The data of the estimate and fleet pages: a ``--json`` report of ``ek estimate`` or ``ek benchmark``
as JSON holds it (their keys are in `ek.cli._html._estimate` and `ek.cli._html._fleet`); each value
is checked where it is drawn."""
