"""Faithful JSON for run records: what goes into a record comes back equal.

A stored item must read back as the value the run held in memory, or a
resumed report would differ from an uninterrupted one. Plain JSON loses
types (a tuple becomes a list, a ``NodePath`` key cannot be a key at all), so
`encode` tags them and `decode` rebuilds them:

* ``{"$tuple": [...]}``, ``{"$set": [...]}`` (sorted by repr, so a set
  always writes the same text);
* ``{"$map": [[key, value], ...]}`` for a mapping with a non-str key, or
  whose only key starts with ``$`` (it would look like a tag);
* ``{"$score": {...}}`` for a `Score`, ``{"$<name>": {...}}`` for a frozen
  dataclass registered with `register` (``NodePath`` here; the agents
  adapter registers ``Cost``).

Non-finite floats are left to `ek.stores`, which writes them as strict JSON.
Anything else is kept as its ``repr`` (predictions a user's system made),
except inside a `Score`: a metric's detail feeds its aggregate, so a value
JSON cannot hold there raises ``TypeError`` rather than being altered.
"""

from __future__ import annotations

import dataclasses
import json
import numbers
from collections.abc import Mapping
from typing import Any, Callable

from ek.base import NodePath, Score

__all__ = ["decode", "encode", "fallbacks", "register", "revive"]

_TYPES: dict[type, str] = {}
_BUILDERS: dict[str, Callable[..., Any]] = {}
_REPRS = [0]  # values kept as their repr so far (see `fallbacks`)
_PLAIN = frozenset({str, int, float, bool, type(None)})


def register(cls: type, tag: str) -> None:
    """Store instances of the frozen dataclass ``cls`` as ``{"$<tag>": {field: value}}``."""
    _TYPES[cls] = "$" + tag
    _BUILDERS["$" + tag] = cls


register(NodePath, "path")


def encode(value: Any, *, strict: bool = False) -> Any:
    """A JSON-ready copy of ``value`` that `decode` turns back into an equal value.

    With ``strict`` a value with no JSON form raises ``TypeError``; otherwise
    it is kept as its repr.
    """
    t = type(value)
    if t in _PLAIN:
        return value
    if t is dict:
        for k in value:
            if type(k) is not str:
                break
        else:
            if len(value) != 1 or k[:1] != "$":
                return {k: v if type(v) in _PLAIN else encode(v, strict=strict) for k, v in value.items()}
        return {"$map": [[encode(k, strict=strict), encode(v, strict=strict)] for k, v in value.items()]}
    if t is list:
        return [v if type(v) in _PLAIN else encode(v, strict=strict) for v in value]
    if t is tuple:
        return {"$tuple": [v if type(v) in _PLAIN else encode(v, strict=strict) for v in value]}
    if t is Score:
        return _encode_score(value)
    tag = _TYPES.get(t)
    if tag is not None:
        return {tag: {f.name: encode(getattr(value, f.name), strict=strict) for f in dataclasses.fields(value)}}
    return _encode_other(value, strict)


def fallbacks() -> int:
    """How many values `encode` has kept as their repr in this process (to spot a lossy copy)."""
    return _REPRS[0]


def decode(value: Any) -> Any:
    """The value `encode` was given (a repr stays a str)."""
    return json.loads(json.dumps(value), object_hook=revive)


def revive(obj: dict) -> Any:
    """JSON object hook: rebuild a tagged value (its insides are rebuilt already, bottom-up).

    Raises ValueError for a tag whose contents are damaged.
    """
    if len(obj) != 1:
        return obj
    tag, inner = next(iter(obj.items()))
    if tag == "$tuple":
        return tuple(_list(inner, tag))
    if tag == "$score":
        return _score(_dict(inner, tag))
    if tag == "$map":
        pairs = _list(inner, tag)
        if not all(type(p) is list and len(p) == 2 for p in pairs):
            raise ValueError("a '$map' entry is not a list of [key, value] pairs")
        return {_hashable(k): v for k, v in pairs}
    if tag == "$set":
        return {_hashable(v) for v in _list(inner, tag)}
    build = _BUILDERS.get(tag)
    if build is None:
        return obj  # an ordinary one-key mapping
    try:
        return build(**_dict(inner, tag))
    except TypeError as exc:
        raise ValueError(f"a stored {tag[1:]!r} value has other fields than expected ({exc})") from None


# ---------------------------------------------------------------------------


def _encode_score(score: Score) -> dict:
    try:
        fields = {"value": score.value, "precision": score.precision, "recall": score.recall,
                  "f1": score.f1, "metric": score.metric, "detail": encode(score.detail, strict=True)}
        for name in ("value", "precision", "recall", "f1", "metric"):
            if type(fields[name]) not in _PLAIN:
                fields[name] = encode(fields[name], strict=True)
    except TypeError as exc:
        raise TypeError(f"metric {score.metric!r} put a value JSON cannot hold in Score.detail ({exc})") from None
    return {"$score": fields}


def _encode_other(value: Any, strict: bool) -> Any:
    if isinstance(value, str):  # a str subclass such as a str Enum
        return str.__str__(value)
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    if isinstance(value, Mapping):
        return encode(dict(value), strict=strict)
    if isinstance(value, (set, frozenset)):
        return {"$set": [encode(v, strict=strict) for v in sorted(value, key=repr)]}
    if isinstance(value, (list, tuple)):
        return encode(list(value) if isinstance(value, list) else tuple(value), strict=strict)
    if strict:
        raise TypeError(f"a {type(value).__name__}: {value!r:.60}")
    _REPRS[0] += 1
    return repr(value)


def _score(fields: dict) -> Score:
    value, detail = fields.get("value"), fields.get("detail", {})
    if type(value) is not float and (isinstance(value, bool) or not isinstance(value, (int, float))):
        raise ValueError(f"a stored Score has value {value!r:.40}, not a number")
    if type(detail) is not dict:
        raise ValueError("a stored Score has a detail that is not a mapping")
    get = fields.get
    return Score(value, get("precision"), get("recall"), get("f1"), get("metric", ""), detail)


def _list(inner: Any, tag: str) -> list:
    if type(inner) is not list:
        raise ValueError(f"a {tag!r} entry holds {type(inner).__name__}, not a list")
    return inner


def _dict(inner: Any, tag: str) -> dict:
    if type(inner) is not dict:
        raise ValueError(f"a {tag!r} entry holds {type(inner).__name__}, not a mapping")
    return inner


def _hashable(key: Any) -> Any:
    try:
        hash(key)
    except TypeError:
        raise ValueError(f"a stored mapping key {key!r:.40} cannot be a key (it is not hashable)") from None
    return key
