"""The share of ek's public annotations that mention ``Any``, and where they are.

    python scripts/any_share.py [--list] [--top N]

The surface is the one tests/test_public_hints.py checks: every name in the ``__all__`` of a public
module (no ``_``-part in its path), and for each such class its public methods (``__init__`` and
``__call__`` included; a property counts as its getter) and its own public class-level annotations (dataclass
fields, TypedDict keys, Protocol attributes). An object re-exported under several names counts once.
An annotation is one parameter's or one return's, or one field's, resolved by ``typing.get_type_hints``
(so an alias counts as what it stands for; hints that do not resolve are read as written, and
named); it mentions ``Any`` when the word appears in it (``dict[str, Any]``, ``Callable[..., Any]``). Methods made by ``@dataclass`` are left out (their
annotations are the fields'), and so are objects of other libraries that ek re-exports.

Prints the share, then (``--list``) every annotation mentioning ``Any`` and (``--top``) the modules holding most.
"""

from __future__ import annotations

import argparse
import collections
import importlib
import inspect
import pathlib
import re
import sys
import typing
from collections.abc import Callable, Iterator

SRC = pathlib.Path(__file__).resolve().parents[1] / "src" / "ek"
ANY = re.compile(r"\bAny\b")
UNRESOLVED: list[str] = []  # callables and classes whose hints raise NameError: read as written


def public_modules() -> list[str]:
    """Every module of ek with no ``_``-part in its dotted path."""
    out = []
    for path in sorted(SRC.rglob("*.py")):
        parts = path.relative_to(SRC.parent).with_suffix("").parts
        if any(part.startswith("_") and part != "__init__" for part in parts):
            continue
        out.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return out


def _text(annotation: object) -> str:
    """An annotation as written (a string) or as typing prints it (``typing.Any``, ``dict[str, typing.Any]``)."""
    if isinstance(annotation, str):
        return annotation
    return "typing.Any" if annotation is typing.Any else repr(annotation)


def _written(func: Callable[..., object]) -> bool:
    """Whether ``func`` was written in a file (not made by ``@dataclass`` or ``NamedTuple`` from a string)."""
    code = getattr(func, "__code__", None)
    return code is not None and not code.co_filename.startswith("<")


def _hints(label: str, obj: object) -> dict[str, object]:
    """``obj``'s own annotations, resolved when they can be."""
    own = inspect.get_annotations(obj)  # type: ignore[arg-type]
    try:
        hints = typing.get_type_hints(obj)
    except NameError:
        UNRESOLVED.append(label)
        return dict(own)
    return {name: hints[name] for name in own}


def _function(label: str, func: Callable[..., object]) -> Iterator[tuple[str, str]]:
    for name, annotation in _hints(label, func).items():
        yield f"{label}({name})" if name != "return" else f"{label}->", _text(annotation)


def _class(label: str, cls: type) -> Iterator[tuple[str, str]]:
    for name, annotation in _hints(label, cls).items():  # its own public fields (a private one is no surface)
        if not name.startswith("_"):
            yield f"{label}.{name}", _text(annotation)
    for member, value in vars(cls).items():
        if member.startswith("_") and member not in ("__init__", "__call__"):
            continue
        func = value.fget if isinstance(value, property) else getattr(value, "__func__", value)
        if inspect.isfunction(func) and _written(func):
            yield from _function(f"{label}.{member}", func)


def annotations() -> list[tuple[str, str]]:
    """(where, annotation text) for every public annotation, each object once."""
    seen: set[int] = set()
    out: list[tuple[str, str]] = []
    for module_name in public_modules():
        module = importlib.import_module(module_name)
        for attr in getattr(module, "__all__", ()):
            obj = getattr(module, attr)
            if id(obj) in seen or not (inspect.isclass(obj) or inspect.isfunction(obj)):
                continue
            if not str(getattr(obj, "__module__", "")).startswith("ek"):
                continue
            seen.add(id(obj))
            home = f"{getattr(obj, '__module__', module_name)}.{getattr(obj, '__qualname__', attr)}"
            out += _class(home, obj) if inspect.isclass(obj) else _function(home, obj)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="print every annotation that mentions Any")
    parser.add_argument("--top", type=int, default=0, help="print the N modules holding most of them")
    args = parser.parse_args(argv)
    found = annotations()
    with_any = [(where, text) for where, text in found if ANY.search(text)]
    share = len(with_any) / len(found) if found else 0.0
    print(f"public annotations mentioning Any: {len(with_any)} of {len(found)} ({share:.1%})")
    if UNRESOLVED:
        print(f"hints that do not resolve (read as written): {', '.join(UNRESOLVED)}")
    if args.list:
        for where, text in with_any:
            print(f"  {where}: {text}")
    if args.top:
        by_module = collections.Counter(where.split("(")[0].rsplit(".", 1)[0] for where, _ in with_any)
        for home, count in by_module.most_common(args.top):
            print(f"  {count:4d}  {home}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
