"""Running a command line: argv mapped onto a list of functions, each function's signature its options.

`run` is what ``ek`` does with the functions of `ek.tools` (``ek.__main__``
passes them in, so this package never imports the layer above it).

Structured results print as strict JSON: a non-finite number (a cost per
success with no success) is written as the string ``"Infinity"``,
``"-Infinity"`` or ``"NaN"``, which ``float()`` reads back.

Exit codes, for every command: 0 done, 1 a gate failed (``--max``,
``--fail-on-regression``, a command's own check), 2 bad input: a one-line
message on stderr, never a traceback or a usage block (a mistake on the
command line points to ``ek COMMAND --help``). A parameter annotated
``Annotated[T, check]`` is converted by ``check``, whose ValueError
message is the one printed.

A keyword-only parameter annotated with a dataclass (``options: Options =
Options()``) declares a group of flags: one flag per field, named and typed
by the field, listed where the parameter stands; the command gets the
dataclass built from them (its checks' ValueError printed as any other).
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import json
import math
import os
import re
import sys
import types
import typing
from collections.abc import Callable, Sequence
from typing import Any

from ek._util import MissingExtraError
from ek.cli._commands import Outcome

# Mistakes a user can make; anything else is a bug and keeps its traceback.
_USER_ERRORS = (ValueError, TypeError, KeyError, LookupError, MissingExtraError, OSError)


def run(funcs: Sequence[Callable[..., Any]], argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` (default: ``sys.argv[1:]``) against ``funcs``, call the one it names, print, and exit-code."""
    argv = sys.argv[1:] if argv is None else list(argv)
    # Only the named command's options are built (reading every command's signature costs a tenth
    # of a second); anything else (no command, --help, a typo) gets the full parser and its choices.
    named = [f for f in funcs if argv and f.__name__.replace("_", "-") == argv[0]]
    parser = _build_parser(named or list(funcs))
    parser.command = f"ek {argv[0]}" if named else None
    try:
        args = vars(parser.parse_args(argv))
    except SystemExit as done:  # --help, or a mistake argparse has printed
        return done.code if isinstance(done.code, int) else 2
    func = args.pop("_func", None)
    if func is None:
        parser.print_help(sys.stderr)
        return 2
    groups: list[tuple[str, type[Any]]] = args.pop("_groups")
    positional = args.pop("_varargs", None)
    call_args = [args.pop(n) for n in list(args) if n.startswith("_pos_")]
    try:
        for name, declared in groups:  # the flags a dataclass declares, built into it
            args[name] = declared(**{f.name: args.pop(f.name) for f in dataclasses.fields(declared)})
        result = func(*call_args, *(positional or ()), **{k: v for k, v in args.items()})
    except _USER_ERRORS as exc:
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        one_line = " ".join(str(message).split())
        print(f"ek {func.__name__.replace('_', '-')}: error: {one_line}", file=sys.stderr)
        return 2
    if isinstance(result, Outcome):  # a command that says what to print and how to exit
        try:
            for text, stream in ((result.stdout, sys.stdout), (result.stderr, sys.stderr)):
                if text:
                    print(text, file=stream, flush=True)
        except BrokenPipeError:  # the reader left (| head): not an error of ours
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return result.exit_code
    _print(result)
    return 0


class _Parser(argparse.ArgumentParser):
    """argparse, but a mistake prints one line and where to look, not the usage block."""

    command: str | None = None  # "ek evaluate" on the top parser when argv names a command

    def error(self, message: str) -> typing.NoReturn:
        one_line = re.sub(r"^argument (--[\w-]+): (?=\1\b)", "", " ".join(message.split()))  # no "--x: --x ..."
        prog = self.command or self.prog
        self.exit(2, f"{prog}: error: {one_line.rstrip('.')} (see {prog} --help)\n")


def _build_parser(funcs: list[Callable[..., Any]]) -> _Parser:
    parser = _Parser(prog="ek", description="ek, the Evaluation Kit.")
    sub = parser.add_subparsers(title="commands", metavar="COMMAND")
    for func in funcs:
        name = func.__name__.replace("_", "-")
        doc = inspect.getdoc(func) or ""
        p = sub.add_parser(name, help=doc.splitlines()[0] if doc else "", description=doc)
        hints = typing.get_type_hints(func, include_extras=True)
        groups = []
        for param in inspect.signature(func).parameters.values():
            declared = _flag_group(param, hints.get(param.name))
            if declared is None:
                _add_param(p, param, hints.get(param.name))
                continue
            groups.append((param.name, declared))
            field_hints = typing.get_type_hints(declared, include_extras=True)
            for field in dataclasses.fields(declared):
                _add_param(p, _as_parameter(field), field_hints[field.name])
        p.set_defaults(_func=func, _groups=groups)
    return parser


def _flag_group(param: inspect.Parameter, hint: Any) -> type[Any] | None:
    """The dataclass whose fields are flags, when ``param`` is a keyword-only parameter annotated with one."""
    if param.kind is param.KEYWORD_ONLY and isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return hint
    return None


def _as_parameter(field: dataclasses.Field[Any]) -> inspect.Parameter:
    """A dataclass field as the keyword-only parameter its flag is built from."""
    default = inspect.Parameter.empty if field.default is dataclasses.MISSING else field.default
    return inspect.Parameter(field.name, inspect.Parameter.KEYWORD_ONLY, default=default)


def _add_param(p: argparse.ArgumentParser, param: inspect.Parameter, hint: Any) -> None:
    kind = _scalar(hint, param.default)
    if param.kind is param.VAR_POSITIONAL:
        p.add_argument("_varargs", nargs="+", type=kind, metavar=param.name.upper())
    elif param.kind in (param.POSITIONAL_ONLY, param.POSITIONAL_OR_KEYWORD) and param.default is param.empty:
        p.add_argument(f"_pos_{param.name}", type=kind, metavar=param.name.upper())
    else:
        flag = "--" + param.name.replace("_", "-")
        if _is_list(hint):  # a repeatable option: --engine a --engine b
            p.add_argument(
                flag,
                dest=param.name,
                type=str,
                action="append",
                metavar=param.name.upper(),
                default=None if param.default is param.empty else param.default,
            )
        elif kind is bool:
            p.add_argument(flag, dest=param.name, action=argparse.BooleanOptionalAction, default=param.default)
        else:
            default = None if param.default is param.empty else param.default
            p.add_argument(
                flag,
                dest=param.name,
                type=kind,
                default=default,
                required=param.default is param.empty,
                metavar=param.name.upper(),
            )


def _is_list(hint: Any) -> bool:
    """Whether ``hint`` is ``list[str]`` (or ``Optional[list[str]]``)."""
    union = typing.get_origin(hint) in (typing.Union, types.UnionType)
    args = [a for a in typing.get_args(hint) if a is not type(None)] if union else [hint]
    return len(args) == 1 and typing.get_origin(args[0]) is list


def _scalar(hint: Any, default: Any) -> Callable[[str], Any]:
    """The argparse converter for a parameter's annotation."""
    if typing.get_origin(hint) is typing.Annotated:
        return _checked(typing.get_args(hint)[1])
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    if args:
        hint = args[0]
    if hint in (int, float, bool, str):
        converter: Callable[[str], Any] = hint
        return converter
    if isinstance(default, (bool, int, float)):
        return type(default)
    return str


def _checked(check: Callable[[str], Any]) -> Callable[[str], Any]:
    """``check`` as an argparse type: its ValueError message becomes the error printed."""

    def convert(text: str) -> Any:
        try:
            return check(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    convert.__name__ = check.__name__
    return convert


def _print(result: Any) -> None:
    if isinstance(result, str):
        print(result)
    elif isinstance(result, float):
        print(repr(result) if math.isfinite(result) else str(result))
    else:
        print(json.dumps(_finite(result), indent=2, default=str, allow_nan=False))


def _finite(value: Any) -> Any:
    """``value`` with each non-finite float as its JSON-safe name."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if value != value else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value
