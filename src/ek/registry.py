"""Named strategies, optional-dependency guards and requirement checks.

Every swappable behaviour is registered under a namespace (``"metrics"``,
``"signals"``, ``"calibrators"``, ``"policies"``, ``"normalizers"``,
``"dispatch"``, ...) and looked up by name.

How to register: call ``register(namespace, name, obj)`` once the object
exists, in the module that defines it (built-ins do so at import time). The
call takes any object, a configured instance such as ``StringMetric("wer")``
as well as a function or a class, so it is the one form ek uses. Leaving out
``obj`` makes `register` a decorator for a function or a class; it stays
because the reference documents it, but ek itself does not use it. A
package that ek should find without being imported declares an entry point
in the group ``ek.<namespace>`` instead.

Errors: `get` raises `KeyError` listing the known names; a guarded feature
used without its extra raises `MissingExtraError` (an `ImportError`).

>>> def exact(pred, gold, *, grammar=None):
...     return pred == gold
>>> register("metrics", "exact_doc", exact) is exact
True
>>> get("metrics", "exact_doc")("a", "a")
True
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar, overload

from ek._util import MissingExtraError, install_hint, is_installed, rehome

__all__ = [
    "MissingExtraError",
    "check_requirements",
    "get",
    "names",
    "register",
    "requires_extra",
    "resolve",
]

# Import names that make up each extra; check_requirements reports on these.
_EXTRA_PACKAGES = {
    "metrics": ("numpy", "scipy", "networkx", "seqeval", "nervaluate", "anls_star", "regex"),
    "calibration": ("numpy", "sklearn", "crepes"),
    "netcal": ("numpy", "netcal"),
    "ocr": ("ocracy",),
    "rapidocr": ("ocracy", "rapidocr_onnxruntime", "onnxruntime"),
    "agents": (),
}

_registry: dict[str, dict[str, Any]] = {}
_entry_points: dict[str, dict[str, Any]] = {}


_T = TypeVar("_T")


@overload
def register(namespace: str, name: str, obj: None = None) -> Callable[[_T], _T]: ...


@overload
def register(namespace: str, name: str, obj: _T) -> _T: ...


def register(namespace: str, name: str, obj: object = None) -> object:
    """Register ``obj`` as ``name`` in ``namespace`` and return it (see the module docstring).

    Registering a name again replaces the earlier object. Without ``obj``,
    a decorator that registers the function or class it decorates. An
    exception registered as ``obj`` reserves the name for its message: `get`
    raises it (the name can't be used as is, and the message says what to
    use instead) and `names` does not list it.
    """
    if not isinstance(namespace, str) or not namespace:
        raise TypeError(f"register() namespace must be a non-empty str, got {namespace!r}.")
    if not isinstance(name, str) or not name:
        raise TypeError(f"register() name must be a non-empty str, got {name!r}.")
    if obj is None:
        return functools.partial(register, namespace, name)
    _registry.setdefault(namespace, {})[name] = obj
    return obj


def get(namespace: str, name: str) -> Any:
    """The strategy registered as ``name`` in ``namespace``.

    Raises:
        KeyError: ``name`` is unknown; the message lists the known names.
    """
    entries = _registry.get(namespace, {})
    if name in entries:
        entry = entries[name]
        if isinstance(entry, BaseException):  # a reserved name (see register)
            raise entry.with_traceback(None)
        return entry
    ep = _discover(namespace).get(name)
    if ep is not None:
        return register(namespace, name, ep.load())
    known = sorted(names(namespace))
    close = difflib.get_close_matches(str(name), known, n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    listing = ", ".join(repr(k) for k in known) or "none"
    raise KeyError(
        f"No {namespace!r} strategy is registered as {name!r}.{hint} "
        f"Registered names: {listing}. Register your own with ek.register({namespace!r}, name, obj)."
    )


def names(namespace: str) -> Iterable[str]:
    """Every name registered in ``namespace`` (entry points too, reserved names not), sorted."""
    usable = {n for n, obj in _registry.get(namespace, {}).items() if not isinstance(obj, BaseException)}
    return sorted(usable | set(_discover(namespace)))


def resolve(namespace: str, ref: object, *, default: object = None) -> Any:
    """Turn a strategy reference into the strategy.

    ``ref`` may be a registered name, the strategy itself, or None (then
    ``default``, itself a name or an object, is used).
    """
    if ref is None:
        ref = default
    if isinstance(ref, str):
        return get(namespace, ref)
    return ref


_P = ParamSpec("_P")
_R = TypeVar("_R")


def requires_extra(
    extra: str, *, packages: Iterable[str] | None = None
) -> Callable[[Callable[_P, _R]], Callable[_P, _R]]:
    """Decorator: run the function only if the extra's packages import.

    Otherwise raise `MissingExtraError` with the ``pip install "ek[extra]"``
    line. The check is one cached ``find_spec`` per package.
    """
    needed = tuple(packages) if packages is not None else (extra,)

    def decorate(func: Callable[_P, _R]) -> Callable[_P, _R]:
        @functools.wraps(func)
        def guarded(*args: _P.args, **kwargs: _P.kwargs) -> _R:
            missing = [p for p in needed if not is_installed(p)]
            if missing:
                raise MissingExtraError(
                    f"{func.__qualname__} needs the optional package(s) "
                    f"{', '.join(missing)}, which are not installed. "
                    f"Install them with: {install_hint(extra)}"
                )
            return func(*args, **kwargs)

        return guarded

    return decorate


def check_requirements(*, engine: str | None = None, extra: str | None = None) -> dict[str, object]:
    """Report, without raising, what an OCR engine or an extra needs.

    Returns a dict with at least ``{"ok": bool, "hint": str}``. An OCR
    ``engine`` is checked by the one engine check ek has (``ek.ocr``'s,
    found through the ``ek.engines`` entry point), which asks ocracy's own
    doctor when ocracy is installed.
    """
    if engine is not None:
        try:
            check = get("engines", "check")
        except KeyError:
            return {
                "ok": False,
                "engine": engine,
                "hint": "ek's OCR engine check is not registered; reinstall ek (pip install "
                "-e . from a checkout) so its entry points are declared.",
            }
        report: dict[str, object] = check(engine)
        return report
    if extra is not None:
        if extra not in _EXTRA_PACKAGES:
            known = ", ".join(sorted(_EXTRA_PACKAGES))
            return {
                "ok": False,
                "extra": extra,
                "missing": [],
                "hint": f"Unknown extra {extra!r}; known extras: {known}.",
            }
        missing = [p for p in _EXTRA_PACKAGES[extra] if not is_installed(p)]
        hint = f"Install with: {install_hint(extra)}" if missing else "Everything is installed."
        return {"ok": not missing, "extra": extra, "missing": missing, "hint": hint}
    return {"ok": True, "hint": "Name an engine=... or an extra=... to check."}


def _live(namespace: str) -> dict[str, Any]:
    """The namespace's registered objects as they stand, for in-package callers that cache on them.

    Read it, never write it: `register` is the way in.
    """
    return _registry.setdefault(namespace, {})


def _discover(namespace: str) -> dict[str, Any]:
    """Entry points in group ``ek.<namespace>``; every ``ek.*`` group is read at the first lookup."""
    if not _groups_read:
        try:
            groups = _read_entry_points("ek.")
        except Exception:  # a broken distribution must not break lookups
            groups = {}
        _entry_points.update(groups)
        _groups_read.append(True)
    return _entry_points.setdefault(namespace, {})


_groups_read: list[bool] = []  # set once `_discover` has read the entry points


@dataclass(frozen=True)
class _EntryPoint:
    """One entry point as ``importlib.metadata`` reads it (``module:attr.attr [extras]``); `load` imports it."""

    name: str
    value: str
    group: str

    def load(self) -> Any:
        import importlib

        target = self.value.split("[", 1)[0]  # extras say what to install, not what to load
        module, _, attrs = target.partition(":")
        return functools.reduce(
            getattr, filter(None, attrs.strip().split(".")), importlib.import_module(module.strip())
        )


def _read_entry_points(prefix: str) -> dict[str, dict[str, Any]]:
    """The entry points of every group named ``prefix...``, by namespace: what ``importlib.metadata`` finds.

    Importing ``importlib.metadata`` takes about 0.1 s, more than the rest of
    a command's start, so the usual layout (directories of ``*.dist-info``
    and ``*.egg-info`` folders on ``sys.path``, found by the path finder) is
    read directly, in its order: the first distribution of a name counts,
    and a later entry point of a name replaces an earlier one, as a dict
    of ``metadata.entry_points(group=...)`` would. Anything else on the path
    (a zip, an egg file, a finder of its own) goes to ``importlib.metadata``.
    """
    import os
    import sys

    finders = [f for f in sys.meta_path if hasattr(f, "find_distributions")]
    paths = [p or "." for p in sys.path if isinstance(p, str)]
    if not all(map(_reads_the_path, finders)) or any(os.path.isfile(p) for p in paths):
        return _read_with_metadata(prefix)
    found: dict[str, dict[str, Any]] = {}
    seen: set[str] = set()
    for folder in _distribution_folders(paths):
        stem = os.path.basename(folder).rsplit(".", 1)[0]
        name = re.sub(r"[-_.]+", "_", stem.partition("-")[0]).lower()
        if name in seen:
            continue
        seen.add(name)
        try:
            with open(os.path.join(folder, "entry_points.txt"), encoding="utf-8") as f:
                text = f.read()
        except OSError:
            continue
        if "[" + prefix in text:
            for group, ep_name, value in _sections(text):
                if group.startswith(prefix):
                    found.setdefault(group[len(prefix) :], {})[ep_name] = _EntryPoint(ep_name, value, group)
    return found


def _reads_the_path(finder: Any) -> bool:
    """The standard path finder, or the one the ``importlib_metadata`` backport puts in its place when imported."""
    from importlib.machinery import PathFinder

    kind = finder if isinstance(finder, type) else type(finder)
    return finder is PathFinder or (kind.__module__, kind.__name__) == ("importlib_metadata", "MetadataPathFinder")


def _distribution_folders(paths: list[str]) -> Iterable[str]:
    """The ``*.dist-info`` then ``*.egg-info`` folders of each directory on the path, in its order."""
    import os

    for path in paths:
        try:
            children = os.listdir(path)
        except OSError:
            continue
        for suffix in (".dist-info", ".egg-info"):
            yield from (os.path.join(path, c) for c in children if c.lower().endswith(suffix))


def _sections(text: str) -> Iterable[tuple[str, str, str]]:
    """``(section, name, value)`` of every ``name = value`` line of an ``entry_points.txt``, read as ``importlib.metadata`` reads it."""
    section = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line.strip("[]")
            continue
        name, equals, value = line.partition("=")
        if not equals:  # importlib.metadata fails on it too, and so every lookup finds no entry point
            raise ValueError(f"entry_points.txt line {line!r} has no '='")
        yield section or "", name.strip(), value.strip()


def _read_with_metadata(prefix: str) -> dict[str, dict[str, Any]]:
    from importlib import metadata

    groups = [g for g in metadata.entry_points().groups if g.startswith(prefix)]
    return {g[len(prefix) :]: {ep.name: ep for ep in metadata.entry_points(group=g)} for g in groups}


rehome(globals())  # MissingExtraError lives in ek._util, below the registry
