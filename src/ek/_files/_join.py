"""Join a GOLD side with a PRED side by id, in gold order."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import repeat
from typing import Any, Optional

from ek._files._errors import InputError
from ek._files._sides import Side


@dataclass(frozen=True)
class Joined:
    """The cases of a GOLD/PRED pair, in gold order.

    ``golds`` and ``preds`` run parallel to ``ids`` (and ``slices``, None
    when gold has no slice field). A gold id without a prediction is in
    ``missing`` and scored against an empty prediction of the gold value's
    type ("" for text, {} for a record, [] for a list, None otherwise); a
    prediction whose document failed to read scores the same way and is in
    ``pred_errors`` instead. Predictions without a gold id are in ``extra``
    and left out. Gold documents that failed to read are in ``gold_errors``
    and left out. ``documents`` maps each id to its ``(gold, pred)``
    `Document` pair (None where a side is not a document).
    """

    ids: tuple
    golds: tuple
    preds: tuple
    slices: Optional[tuple] = None
    missing: tuple = ()
    extra: tuple = ()
    gold_errors: Mapping[str, str] = field(default_factory=dict)
    pred_errors: Mapping[str, str] = field(default_factory=dict)
    documents: Mapping[str, tuple] = field(default_factory=dict)

    def cases(self) -> list:
        """``(pred, gold)`` tuples, or ``(pred, gold, slice)`` when gold has slices, for `ek.evaluate`."""
        if self.slices is None:
            return list(zip(self.preds, self.golds))
        return list(zip(self.preds, self.golds, self.slices))


def join(gold: Side, pred: Side) -> Joined:
    """Pair every gold id with its prediction; two single documents pair whatever their names."""
    if gold.role != "gold" or pred.role != "pred":
        raise ValueError(f"join() takes the gold side then the pred side, got {gold.role!r} then {pred.role!r}.")
    if pred.values and gold.whole_records != pred.whole_records:
        whole, field_side = (gold, pred) if gold.whole_records else (pred, gold)
        raise InputError(
            f"{whole.source} is compared as whole records (no value field found) but {field_side.source} "
            f"gives the field {field_side.value_field!r}; pass the value fields of both sides explicitly."
        )
    if gold.single and pred.single:
        pred = Side(pred.source, "pred", gold.ids, pred.values, documents=dict(zip(gold.ids, pred.documents.values())))
    by_id = dict(zip(pred.ids, pred.values))
    preds = list(map(by_id.get, gold.ids, repeat(None)))
    missing: list = []
    extra: tuple = ()
    pred_errors: dict = {}
    if None in preds or len(by_id) != len(preds) or pred.errors or gold.errors:  # else ids match one to one
        absent = set(gold.ids).difference(by_id)
        for k, (i, p) in enumerate(zip(gold.ids, preds)):
            if p is None:  # no prediction, or a null one
                if i in absent and i not in pred.errors:
                    missing.append(i)
                preds[k] = _empty_like(gold.values[k])
        known = set(gold.ids).union(gold.errors)
        extra = tuple(i for i in (*pred.ids, *pred.errors) if i not in known)
        pred_errors = {i: e for i, e in pred.errors.items() if i in known}
    documents = {}
    if gold.documents or pred.documents:
        documents = {i: (gold.documents.get(i), pred.documents.get(i)) for i in gold.ids}
    return Joined(
        ids=gold.ids,
        golds=gold.values,
        preds=tuple(preds),
        slices=gold.slices,
        missing=tuple(missing),
        extra=extra,
        gold_errors=dict(gold.errors),
        pred_errors=pred_errors,
        documents=documents,
    )


def _empty_like(value: Any) -> Any:
    if isinstance(value, str):
        return ""
    if isinstance(value, Mapping):
        return {}
    if isinstance(value, (list, tuple)):
        return type(value)()
    return None
