"""Faithful JSON: the one codec of ek's files and printed JSON (stores, run records, ``--json``, stdout).

**Non-finite numbers**, everywhere ek writes JSON, are ``{"$float": "NaN"}``,
``{"$float": "Infinity"}`` and ``{"$float": "-Infinity"}``: never a bare
``NaN`` (not JSON), never ``null`` (which would read back as "no value") and
never the string ``"NaN"`` (which would read back as text). `loads` turns each
tag back into its float.

A tag is a mapping with one key starting with ``$``. Three layers share them:

* strict text (`dumps`, `loads`), what every store file is: str keys only,
  no cycles, and a non-finite float written as ``{"$float": "NaN"}`` (or
  ``"Infinity"``, ``"-Infinity"``), read back as the float;
* typed values (`encode`, `decode`, `revive`), what a run record holds, so
  that a resumed report equals an uninterrupted one: ``{"$tuple": [...]}``,
  ``{"$set": [...]}`` (sorted by repr, so a set always writes the same
  text), ``{"$map": [[key, value], ...]}`` for a mapping with a non-str key
  or whose only key starts with ``$`` (it would look like a tag), and
  ``{"$<tag>": {...}}`` for a class registered with `register` (the run
  engine registers ``NodePath``, ``Score``, the agents ``Cost``);
* reports (`plain`, `report_text`), what the CLI prints and writes with
  ``--json``: lenient, for people and their scripts, so a tuple is a list, a
  key that is not a str is its JSON text (``1`` -> ``"1"``) and a value JSON
  has no form for is its ``str``; only non-finite floats are tagged.

`encode` leaves non-finite floats to `dumps`. Anything else is kept as its
``repr`` (predictions a user's system made) unless ``strict``, where a value
JSON cannot hold raises ``TypeError`` rather than being altered.
"""

from __future__ import annotations

import dataclasses
import json
import math
import numbers
from collections.abc import Callable, Mapping
from typing import Any

__all__ = [
    "FLOAT_TAG",
    "BadTag",
    "decode",
    "dumps",
    "encode",
    "fallbacks",
    "loads",
    "plain",
    "register",
    "report_text",
    "revive",
    "revive_float",
]

FLOAT_TAG = "$float"
"""The tag of a non-finite float."""

_FLOAT_NAMES = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}
_PLAIN = frozenset({str, int, float, bool, type(None)})
_TYPES: dict[type, tuple[str, Callable[[Any], dict[str, Any]] | None]] = {}
_BUILDERS: dict[str, tuple[Callable[..., Any], bool]] = {}  # tag -> (builder, given the fields as keywords)
_REPRS = [0]  # values kept as their repr so far (see `fallbacks`)


class BadTag(ValueError):
    """A ``{"$float": ...}`` entry that names no float."""


def register(
    cls: type,
    tag: str,
    *,
    encode: Callable[[Any], dict[str, Any]] | None = None,
    build: Callable[[dict[str, Any]], Any] | None = None,
) -> None:
    """Store instances of ``cls`` as ``{"$<tag>": {field: value}}``.

    By default ``cls`` is a frozen dataclass, stored field by field and
    rebuilt with ``cls(**fields)``; ``encode(value) -> fields`` and
    ``build(fields) -> value`` replace those (they check what they are given).
    """
    _TYPES[cls] = ("$" + tag, encode)
    _BUILDERS["$" + tag] = (cls, True) if build is None else (build, False)


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
    registered = _TYPES.get(t)
    if registered is not None:
        tag, own = registered
        if own is not None:
            return {tag: own(value)}
        return {tag: {f.name: encode(getattr(value, f.name), strict=strict) for f in dataclasses.fields(value)}}
    return _encode_other(value, strict)


def fallbacks() -> int:
    """How many values `encode` has kept as their repr in this process (to spot a lossy copy)."""
    return _REPRS[0]


def decode(value: Any) -> Any:
    """The value `encode` was given (a repr stays a str)."""
    return json.loads(json.dumps(value), object_hook=revive)


def revive(obj: dict[str, Any]) -> Any:
    """JSON object hook rebuilding every tag (its insides are rebuilt already, bottom-up).

    Raises ValueError for a tag whose contents are damaged (`BadTag` for a float).
    """
    if len(obj) != 1:
        return obj
    tag, inner = next(iter(obj.items()))
    if tag == "$tuple":
        return tuple(_list(inner, tag))
    if tag == FLOAT_TAG:
        return revive_float(obj)
    if tag == "$map":
        pairs = _list(inner, tag)
        if not all(type(p) is list and len(p) == 2 for p in pairs):
            raise ValueError("a '$map' entry is not a list of [key, value] pairs")
        return {_hashable(k): v for k, v in pairs}
    if tag == "$set":
        return {_hashable(v) for v in _list(inner, tag)}
    builder = _BUILDERS.get(tag)
    if builder is None:
        return obj  # an ordinary one-key mapping
    build, by_keyword = builder
    try:
        return build(**_dict(inner, tag)) if by_keyword else build(_dict(inner, tag))
    except TypeError as exc:
        raise ValueError(f"a stored {tag[1:]!r} value has other fields than expected ({exc})") from None


def revive_float(obj: dict[str, Any]) -> Any:
    """JSON object hook of plain store values: only a ``{"$float": name}`` entry becomes its float."""
    if len(obj) == 1 and FLOAT_TAG in obj:
        name = obj[FLOAT_TAG]
        try:
            return _FLOAT_NAMES[name]
        except (KeyError, TypeError):
            raise BadTag(
                f"{{{FLOAT_TAG!r}: {name!r:.40}}}, which names no float (expected {', '.join(map(repr, _FLOAT_NAMES))})"
            ) from None
    return obj


def loads(text: str, hook: Callable[[dict[str, Any]], Any] = revive_float) -> Any:
    """The value of strict JSON ``text`` (``hook``: `revive_float`, or `revive` for typed values)."""
    return json.loads(text, object_hook=hook)


def dumps(value: Any, *, key: str, ascii_only: bool = False) -> str:
    """Strict JSON text of ``value``: str keys only, non-finite floats tagged; errors name ``key``."""
    offending: list[Any] = []

    def refuse(obj: Any) -> Any:
        offending.append(obj)
        raise TypeError(type(obj).__name__)

    try:
        try:  # the common case: plain JSON already, checked by reading it back
            text = json.dumps(value, ensure_ascii=ascii_only, allow_nan=False, default=refuse)
            if loads(text) == value:
                return text
        except (ValueError, TypeError):  # NaN, a cycle, a non-str key...: _strict says which
            if offending:
                raise
        return json.dumps(_strict(value, key, (), set()), ensure_ascii=ascii_only, allow_nan=False, default=refuse)
    except TypeError:
        if not offending:
            raise
        obj = offending[0]
        raise TypeError(
            f"the value for key {key!r} contains a value of type "
            f"{type(obj).__name__} ({obj!r:.60}), which JSON cannot store; convert it "
            "to dict, list, str, int, float, bool or None first. Nothing was written."
        ) from None


def plain(value: Any) -> Any:
    """A copy of a report that JSON holds: non-finite floats tagged, tuples as lists, keys as str.

    >>> plain({"cer": float("nan"), 2: (1.0, float("-inf"))})
    {'cer': {'$float': 'NaN'}, '2': [1.0, {'$float': '-Infinity'}]}
    """
    if isinstance(value, float):
        return value if math.isfinite(value) else _float_tag(value)
    if isinstance(value, dict):
        return {k if isinstance(k, str) else json.dumps(plain(k), default=str): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def report_text(value: Any, *, indent: int | None = 2, ascii_only: bool = False) -> str:
    """The JSON text of a report (`plain` of it; anything else JSON has no form for as its ``str``).

    `loads` reads it back, the non-finite numbers as floats.
    """
    return json.dumps(plain(value), ensure_ascii=ascii_only, indent=indent, allow_nan=False, default=str)


# ---------------------------------------------------------------------------


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


def _strict(value: Any, key: str, path: tuple[Any, ...], active: set[int]) -> Any:
    """A copy of ``value`` that JSON stores faithfully, or an error naming what it cannot hold."""
    if isinstance(value, float):
        return value if math.isfinite(value) else _float_tag(value)
    if not isinstance(value, (dict, list, tuple)):
        return value
    if id(value) in active:
        raise ValueError(
            f"the value for key {key!r} cannot be written as JSON: Circular reference "
            f"at {_path(path)}. Store a tree of plain values, without cycles. "
            "Nothing was written."
        )
    active.add(id(value))
    try:
        if not isinstance(value, dict):
            return [_strict(v, key, path + (i,), active) for i, v in enumerate(value)]
        for k in value:
            if not isinstance(k, str):
                became = (
                    f"would read back as the string {json.dumps(json.dumps(k))} and could merge with a key of that name"
                    if k is None or isinstance(k, (int, float))
                    else "JSON cannot hold as a key"
                )
                raise TypeError(
                    f"the value for key {key!r} cannot be written as JSON: keys must be str, but "
                    f"the mapping at {_path(path)} has the {type(k).__name__} key {k!r:.40}, which "
                    f"{became}. Convert the keys to distinct strings. Nothing was written."
                )
        if len(value) == 1 and FLOAT_TAG in value:
            raise ValueError(
                f"the value for key {key!r} has a mapping at {_path(path)} whose only key is "
                f"{FLOAT_TAG!r}, which ek stores reserve for non-finite numbers; rename the key. "
                "Nothing was written."
            )
        return {k: _strict(v, key, path + (k,), active) for k, v in value.items()}
    finally:
        active.discard(id(value))


def _float_tag(value: float) -> dict[str, str]:
    """The tag of a non-finite float (the one spelling for NaN and the infinities)."""
    return {FLOAT_TAG: "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")}


def _path(path: tuple[Any, ...]) -> str:
    return "the top level" if not path else "value" + "".join(f"[{p!r}]" for p in path)


def _list(inner: Any, tag: str) -> list[Any]:
    if type(inner) is not list:
        raise ValueError(f"a {tag!r} entry holds {type(inner).__name__}, not a list")
    return inner


def _dict(inner: Any, tag: str) -> dict[str, Any]:
    if type(inner) is not dict:
        raise ValueError(f"a {tag!r} entry holds {type(inner).__name__}, not a mapping")
    return inner


def _hashable(key: Any) -> Any:
    try:
        hash(key)
    except TypeError:
        raise ValueError(f"a stored mapping key {key!r:.40} cannot be a key (it is not hashable)") from None
    return key
