"""Field-level precision, recall and F1 for flat records (dicts); higher is better.

Keys are compared one by one: a matching value is a true positive, a key only
the prediction has is a false positive, a key only the gold has is a false
negative, and a wrong value is both (the usual slot-error accounting). A
``None`` value counts as an absent key. Corpus F1 is micro-averaged: the
counts are summed over all records and divided once.

Values are equal when Python says so, with two exceptions that keep JSON
records honest: NaN equals NaN (a record is identical to itself, so two
copies holding ``NaN`` score F1 1.0), and a bool equals only a bool
(``true`` is not ``1`` and ``false`` is not ``0``, though ``1`` equals
``1.0``). The same rules apply inside lists, tuples and dicts, item by item.

Per-field normalizers: with ``grammar=`` a `GraphGrammar`, a field whose
`FieldSpec` names a ``normalizer`` (a registered normalizer, or several
joined by ``+``) has both string values passed through it before they are
compared; it wins over the metric's ``canonicalizer`` (the call-level
``normalize=``) for that field, and the other fields keep the canonicalizer.
A flat record says nothing about node types, so a key is looked up by name
in every node type of the grammar: the normalizer applies when the node
types that declare one for that name all declare the same; two different
ones are an error, as the record does not say which applies.

>>> s = FieldMetric()({"a": 1, "b": 2}, {"a": 1, "b": 3, "c": 4})
>>> s.detail["tp"], s.detail["fp"], s.detail["fn"], round(s.value, 3)
(1, 1, 2, 0.4)
>>> from ek.base import FieldSpec, GraphGrammar, NodeType
>>> g = GraphGrammar(node_types={"invoice": NodeType("invoice", fields={"city": FieldSpec("city", normalizer="lower")})})
>>> FieldMetric()({"city": "PARIS", "zip": "75"}, {"city": "Paris", "zip": "75"}, grammar=g).value
1.0
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from ek._util import DispatchRule, prf, type_name
from ek.base import GraphGrammar, Normalizer, Score
from ek.canonicalize import resolve_canonicalizer
from ek.metrics._contract import SummedStatistics
from ek.registry import register

__all__ = ["FieldMetric"]


@dataclass(frozen=True)
class FieldMetric(SummedStatistics):
    """Per-field precision/recall/F1 of two dict records; ``value`` is F1.

    Args:
        canonicalizer: optional ``str -> str`` applied to string values
            before they are compared; a grammar's per-field normalizer wins
            for the fields it names (see the module docstring).

    ``detail`` holds ``tp``, ``fp``, ``fn`` and ``per_field``, mapping each
    key to its ``(tp, fp, fn)``, so a report can show which fields cost most.
    """

    canonicalizer: Normalizer | None = field(default=None, kw_only=True)

    name = "fields"
    higher_is_better = True
    percent = True  # a share or a rate: the pages show it as a percentage
    statistics = ("tp", "fp", "fn")
    options = MappingProxyType({"normalize": "canonicalizer"})

    def __call__(
        self, pred: Mapping[str, object], gold: Mapping[str, object], *, grammar: GraphGrammar | None = None
    ) -> Score:
        """Field F1 of ``pred`` against ``gold``, with ``grammar``'s per-field normalizers.

        Raises:
            TypeError: a record that is not a mapping, or a grammar that is
                not a `GraphGrammar`.
            ValueError: a record key whose normalizer the grammar declares
                differently in two node types.
            KeyError: a normalizer name that is not registered.
        """
        for side, value in (("pred", pred), ("gold", gold)):
            if not isinstance(value, Mapping):
                raise TypeError(
                    f"field F1 compares two dict records, but {side} is {type_name(value)}. "
                    "Pass mappings of field name to value, or pick a metric for this type."
                )
        keys = list(gold) + [k for k in pred if k not in gold]
        canon = _field_normalizers(grammar, keys) if grammar is not None else {}
        per_field: dict[str, tuple[int, int, int]] = {}
        for key in keys:
            p, g = pred.get(key), gold.get(key)
            if p is None and g is None:
                continue
            if p is None:
                per_field[key] = (0, 0, 1)
            elif g is None:
                per_field[key] = (0, 1, 0)
            elif _same(p, g, canon.get(key, self.canonicalizer)):
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


def _same(p: Any, g: Any, canon: Normalizer | None) -> bool:
    if canon is not None and isinstance(p, str) and isinstance(g, str):
        return canon(p) == canon(g)
    return _equal(p, g)


def _equal(p: Any, g: Any) -> bool:
    """``p == g``, except that NaN equals NaN and a bool equals only a bool, all the way down."""
    if isinstance(p, bool) or isinstance(g, bool):
        return type(p) is type(g) and p == g
    if isinstance(p, float) and isinstance(g, float) and p != p:
        return g != g
    if isinstance(p, Mapping) and isinstance(g, Mapping):
        return p.keys() == g.keys() and all(_equal(v, g[k]) for k, v in p.items())
    if isinstance(p, (list, tuple)) and type(p) is type(g):
        return len(p) == len(g) and all(_equal(a, b) for a, b in zip(p, g))
    return bool(p == g)


def _field_normalizers(grammar: GraphGrammar, keys: Iterable[Any]) -> dict[Any, Normalizer]:
    """The normalizer ``grammar`` declares for each of ``keys`` that has exactly one."""
    if not isinstance(grammar, GraphGrammar):
        raise TypeError(f"field F1's grammar must be a GraphGrammar, got {type_name(grammar)}.")
    declared: dict[str, dict[str, list[str]]] = {}  # field -> normalizer -> node types
    for node_name, node in grammar.node_types.items():
        for name, spec in node.fields.items():
            if spec.normalizer:
                declared.setdefault(name, {}).setdefault(spec.normalizer, []).append(node_name)
    out: dict[Any, Normalizer] = {}
    for key in keys:
        options = declared.get(key) if isinstance(key, str) else None
        if not options:
            continue
        if len(options) > 1:
            found = "; ".join(f"{n!r} in node type(s) {', '.join(map(repr, types))}" for n, types in options.items())
            raise ValueError(
                f"field {key!r} has different normalizers in the grammar ({found}); a flat record does "
                "not say which node type it belongs to. Declare one normalizer for the field in every "
                "node type, or score typed graphs with metric='typed_graph'."
            )
        name = next(iter(options))
        out[key] = resolve_canonicalizer(name.split("+") if "+" in name else name)
    return out


register("metrics", "fields", FieldMetric())
register(
    "dispatch",
    "mapping",
    DispatchRule(lambda obj: isinstance(obj, Mapping), metric="fields", pairs="same", priority=110),
)  # dict records get field F1
