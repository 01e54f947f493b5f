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
from collections.abc import Callable, Iterable
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
    """Entry points in group ``ek.<namespace>``, read once per namespace."""
    found = _entry_points.get(namespace)
    if found is None:
        from importlib import metadata  # slow to import; only needed on a miss

        try:
            found = {ep.name: ep for ep in metadata.entry_points(group=f"ek.{namespace}")}
        except Exception:  # a broken distribution must not break lookups
            found = {}
        _entry_points[namespace] = found
    return found


rehome(globals())  # MissingExtraError lives in ek._util, below the registry
