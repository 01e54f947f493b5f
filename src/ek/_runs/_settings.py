"""Fingerprints: short stable descriptions of a run's settings and of each item's gold record.

A persisted run stores them, and a resume compares them (`ek._runs._records`):
a callable is named by its module and qualified name (a lambda has no name,
so a persisted run refuses it up front), a configured object by its repr,
a canonicalizer by its version.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any

from ek._json import encode
from ek._runs._records import digest

__all__ = ["callable_id", "fingerprint", "setting_id", "str_keys"]

_LONG = 80  # a description longer than this is stored as its type and a hash
_PLAIN = frozenset({str, int, float, bool, type(None)})


def fingerprint(value: tuple[Any, ...]) -> str:
    """A hash of the parts in ``value``: equal parts, equal fingerprints, in any process."""
    if all(type(v) in _PLAIN for v in value):  # the common case, and a fast one
        return digest(repr(value))
    return digest(json.dumps(encode(value), sort_keys=True, default=repr))


def callable_id(obj: Any, what: str, who: str) -> str:
    """``module.qualname`` of a function or class; a configured instance adds its repr.

    Raises:
        ValueError: ``obj`` is a lambda, which a later call cannot name again.
    """
    name = getattr(obj, "__qualname__", None)
    if isinstance(name, str):
        if name.endswith("<lambda>"):
            raise ValueError(
                f"{who}() {what} is a lambda; a persisted run records its {what} by name so that a "
                f"resume can check it is the same, and a lambda has none. Define it with def at module "
                "level (or register it by name), or run with persist=False."
            )
        owner = getattr(obj, "__self__", None)  # a bound method: its object's settings count too
        base = f"{getattr(obj, '__module__', None) or '?'}.{name}"
        return base if owner is None or isinstance(owner, type) else f"{base} of {_instance_id(owner)}"
    return _instance_id(obj)


def setting_id(value: Any, what: str, who: str) -> str:
    """The fingerprint of one setting; ``""`` when it is None (none given)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return repr(list(value))
    version = getattr(value, "version", None)  # a Canonicalizer names its steps
    if isinstance(version, str):
        return version
    if callable(value) and not dataclasses.is_dataclass(value):
        return callable_id(value, what, who)
    return _instance_id(value)


def str_keys(mapping: Mapping[Any, Any], what: str, who: str) -> dict[str, Any]:
    """``mapping`` with str keys, refusing two keys that would become the same string."""
    out: dict[str, Any] = {}
    seen: dict[str, Any] = {}
    for key, value in mapping.items():
        text = str(key)
        if text in seen:
            raise ValueError(
                f"{who}: the {what} labels {seen[text]!r} and {key!r} are both stored as {text!r} and "
                "would merge into one; rename one so the labels differ as text."
            )
        seen[text] = key
        out[text] = value
    return out


def _instance_id(obj: Any) -> str:
    cls = type(obj)
    name = f"{cls.__module__}.{cls.__qualname__}"
    if not dataclasses.is_dataclass(obj) and cls.__repr__ is object.__repr__:  # type: ignore[comparison-overlap]
        return name  # its repr is only an address
    text = repr(obj)
    return text if len(text) <= _LONG else f"{name}#{digest(text)}"
