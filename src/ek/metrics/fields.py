"""Field-level precision, recall and F1 for flat records (dicts); higher is better.

Keys are compared one by one: a matching value is a true positive, a key only
the prediction has is a false positive, a key only the gold has is a false
negative, and a wrong value is both (the usual slot-error accounting). A
``None`` value counts as an absent key. Corpus F1 is micro-averaged: the
counts are summed over all records and divided once.

>>> s = FieldMetric()({"a": 1, "b": 2}, {"a": 1, "b": 3, "c": 4})
>>> s.detail["tp"], s.detail["fp"], s.detail["fn"], round(s.value, 3)
(1, 1, 2, 0.4)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Callable, Optional

from ek._util import DispatchRule, SummedStatistics, prf, type_name
from ek.base import Score
from ek.registry import register

__all__ = ["FieldMetric"]


@dataclass(frozen=True)
class FieldMetric(SummedStatistics):
    """Per-field precision/recall/F1 of two dict records; ``value`` is F1.

    Args:
        canonicalizer: optional ``str -> str`` applied to string values
            before they are compared.

    ``detail`` holds ``tp``, ``fp``, ``fn`` and ``per_field``, mapping each
    key to its ``(tp, fp, fn)``, so a report can show which fields cost most.
    """

    canonicalizer: Optional[Callable[[str], str]] = field(default=None, kw_only=True)

    name = "fields"
    higher_is_better = True
    statistics = ("tp", "fp", "fn")
    options = MappingProxyType({"normalize": "canonicalizer"})

    def __call__(self, pred: Mapping, gold: Mapping, *, grammar: Any = None) -> Score:
        """Field F1 of ``pred`` against ``gold``."""
        for side, value in (("pred", pred), ("gold", gold)):
            if not isinstance(value, Mapping):
                raise TypeError(
                    f"field F1 compares two dict records, but {side} is {type_name(value)}. "
                    "Pass mappings of field name to value, or pick a metric for this type."
                )
        per_field: dict[str, tuple[int, int, int]] = {}
        for key in list(gold) + [k for k in pred if k not in gold]:
            p, g = pred.get(key), gold.get(key)
            if p is None and g is None:
                continue
            if p is None:
                per_field[key] = (0, 0, 1)
            elif g is None:
                per_field[key] = (0, 1, 0)
            elif self._same(p, g):
                per_field[key] = (1, 0, 0)
            else:
                per_field[key] = (0, 1, 1)
        tp = sum(c[0] for c in per_field.values())
        fp = sum(c[1] for c in per_field.values())
        fn = sum(c[2] for c in per_field.values())
        precision, recall, f1 = prf(tp, tp + fp, tp + fn)
        detail = {"tp": tp, "fp": fp, "fn": fn, "per_field": per_field}
        return Score(f1, precision=precision, recall=recall, f1=f1, metric="fields", detail=detail)

    def compute(self, totals: Mapping[str, float]) -> float:
        """Micro-averaged F1 from TP/FP/FN summed over the corpus (1.0 when all are 0)."""
        tp, fp, fn = totals["tp"], totals["fp"], totals["fn"]
        return prf(tp, tp + fp, tp + fn)[2]

    def _same(self, p: Any, g: Any) -> bool:
        canon = self.canonicalizer
        if canon is not None and isinstance(p, str) and isinstance(g, str):
            return canon(p) == canon(g)
        return p == g


register("metrics", "fields", FieldMetric())
register("dispatch", "mapping", DispatchRule(lambda obj: isinstance(obj, Mapping), metric="fields",
                                             pairs="same", priority=110))  # dict records get field F1
