"""How the data model's values are kept in run records, on ek's one tag codec (`ek._json`).

A ``NodePath`` is stored field by field (``{"$path": {...}}``). A `Score` is
``{"$score": {value, precision, recall, f1, metric, detail}}``, strictly: a
metric's detail feeds its aggregate, so a value JSON cannot hold there raises
``TypeError`` rather than being kept as its repr; a stored Score whose value
is not a number, or whose detail is not a mapping, is damaged (ValueError).
"""

from __future__ import annotations

from typing import Any

from ek._json import encode, register
from ek.base import NodePath, Score

__all__: list[str] = []

_PLAIN = frozenset({str, int, float, bool, type(None)})


def _encode_score(score: Score) -> dict[str, Any]:
    try:
        fields = {
            "value": score.value,
            "precision": score.precision,
            "recall": score.recall,
            "f1": score.f1,
            "metric": score.metric,
            "detail": encode(score.detail, strict=True),
        }
        for name in ("value", "precision", "recall", "f1", "metric"):
            if type(fields[name]) not in _PLAIN:
                fields[name] = encode(fields[name], strict=True)
    except TypeError as exc:
        raise TypeError(f"metric {score.metric!r} put a value JSON cannot hold in Score.detail ({exc})") from None
    return fields


def _score(fields: dict[str, Any]) -> Score:
    value, detail = fields.get("value"), fields.get("detail", {})
    if type(value) is not float and (isinstance(value, bool) or not isinstance(value, (int, float))):
        raise ValueError(f"a stored Score has value {value!r:.40}, not a number")
    if type(detail) is not dict:
        raise ValueError("a stored Score has a detail that is not a mapping")
    get = fields.get
    return Score(value, get("precision"), get("recall"), get("f1"), get("metric", ""), detail)


register(NodePath, "path")
register(Score, "score", encode=_encode_score, build=_score)
