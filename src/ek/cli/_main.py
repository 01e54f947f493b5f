"""Running a command line: argv mapped onto a list of functions, each function's signature its options.

`run` is what ``ek`` does with the table of commands (`ek.cli.COMMANDS`,
which ``ek.__main__`` passes in; a test may pass a table of its own).

Structured results print as strict JSON by ek's one convention (`ek._json`,
as ``--json`` files and the stores write it): a non-finite number (a cost per
success with no success) is ``{"$float": "Infinity"}``, ``"-Infinity"`` or
``"NaN"``, which `ek._json.loads` reads back as the float.

Exit codes, for every command: 0 done, 1 a gate failed (``--max``,
``--fail-on-regression``, a command's own check), 2 bad input: a one-line
message on stderr, never a traceback or a usage block (a mistake on the
command line points to ``ek COMMAND --help``). A parameter annotated
``Annotated[T, check]`` is converted by ``check``, whose ValueError
message is the one printed (reST markup dropped, as from --help); a check
with a ``choices`` attribute (`OneOf`), or a ``Literal[...]`` annotation,
lists its choices in --help. A positional-only parameter with a default is
an argument that may be left out (``[PRED]``). A flag is never abbreviated (``--htm`` is not
``--html``): an unknown flag or command is an error naming the closest
known one.

A keyword-only parameter annotated with a dataclass (``options: Options =
Options()``) declares a group of flags: one flag per field, named and typed
by the field, listed where the parameter stands; the command gets the
dataclass built from them (its checks' ValueError printed as any other).

--help is read from the docstrings (`ek.cli._help`): the function's
description, then one line per option from its ``Args:`` list or its
dataclass's field lists, with the choices and the default added from the
signature. A ``version`` function among the commands is also ``ek --version``.
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import math
import os
import re
import sys
import types
import typing
from collections.abc import Callable, Sequence
from typing import Any

from ek._json import report_text
from ek._util import MissingExtraError
from ek.cli._commands import OneOf, Outcome, did_you_mean
from ek.cli._commands._warned import caught, texts
from ek.cli._help import Entry, HelpFormatter, plain, read_docs

# Mistakes a user can make; anything else is a bug and keeps its traceback.
_USER_ERRORS = (ValueError, TypeError, KeyError, LookupError, MissingExtraError, OSError)
_DESCRIPTION = "ek, the Evaluation Kit: score extraction output against gold, and estimate it without."
_GIVEN_DEFAULT = re.compile(r"\s*\(default: ([^()]*)\)$")
_EPILOG = "Run ek COMMAND --help for the options of a command. Exit codes: 0 done, 1 a gate failed, 2 bad input."


@dataclasses.dataclass(frozen=True)
class Command:
    """One command of ``ek``: ``ek NAME ...`` calls ``function``."""

    name: str
    function: Callable[..., Any]

    def __post_init__(self) -> None:
        if not self.name or self.name != self.name.lower() or " " in self.name or "_" in self.name:
            raise ValueError(f"a command name is lower-case words joined by '-', got {self.name!r}")


def run(commands: Sequence[Command], argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` (default: ``sys.argv[1:]``) against ``commands``, call the one it names, print, exit-code."""
    argv = sys.argv[1:] if argv is None else list(argv)
    by_name = {c.name: c for c in commands}
    # Only the named command's options are built (reading every command's signature costs a tenth
    # of a second); anything else (no command, --help, a typo) gets the list of commands alone.
    named = [by_name[argv[0]]] if argv and argv[0] in by_name else []
    parser = _build_parser(named or list(commands), options=bool(named))
    parser.command = f"ek {argv[0]}" if named else None
    try:
        if argv and not named and not argv[0].startswith("-"):
            parser.error(f"unknown command {argv[0]!r}{did_you_mean(argv[0], list(by_name))}")
        args = vars(parser.parse_args(argv))
    except SystemExit as done:  # --help, or a mistake argparse has printed
        return done.code if isinstance(done.code, int) else 2
    command: Command | None = args.pop("_command", None)
    if command is None:
        parser.print_help(sys.stderr)
        return 2
    groups: list[tuple[str, type[Any]]] = args.pop("_groups")
    positional = args.pop("_varargs", None)
    call_args = [args.pop(n) for n in list(args) if n.startswith("_pos_")]
    try:
        with caught() as records:  # each warning one line in flag words, never Python's file:line and source
            try:
                for name, declared in groups:  # the flags a dataclass declares, built into it
                    args[name] = declared(**{f.name: args.pop(f.name) for f in dataclasses.fields(declared)})
                result = command.function(*call_args, *(positional or ()), **{k: v for k, v in args.items()})
            finally:
                for text in texts(records):
                    print(f"ek {command.name}: warning: {plain(text)}", file=sys.stderr)
    except _USER_ERRORS as exc:
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        one_line = plain(" ".join(str(message).split()))  # a Python message may quote code in reST
        print(f"ek {command.name}: error: {one_line}", file=sys.stderr)
        return 2
    outcome = result if isinstance(result, Outcome) else Outcome(stdout=_printed(result))
    try:  # a command that says what to print and how to exit, or a value printed as text or JSON
        for text, stream in ((outcome.stdout, sys.stdout), (outcome.stderr, sys.stderr)):
            if text:
                print(text, file=stream, flush=True)
    except BrokenPipeError:  # the reader left (| head): not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return outcome.exit_code


class _Parser(argparse.ArgumentParser):
    """argparse, but a mistake prints one line and where to look, and an unknown flag names the closest one."""

    command: str | None = None  # "ek evaluate" on the top parser when argv names a command

    def parse_known_args(  # type: ignore[override]  # the same call; extras are refused here
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        parsed, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(self._unknown(extras))
        return parsed, extras

    def error(self, message: str) -> typing.NoReturn:
        one_line = " ".join(message.split())
        match = re.match(r"argument (\S+): (.*)", one_line)
        if match:  # "argument --level: --level must be ..." -> "--level must be ..."
            name, rest = match.groups()
            one_line = rest if rest.startswith(name.split("/")[0]) else f"{name} {rest}"
        prog = self.command or self.prog
        self.exit(2, f"{prog}: error: {one_line.rstrip('.')} (see {prog} --help)\n")

    def _unknown(self, extras: list[str]) -> str:
        """What is wrong with the arguments no option took: the first unknown flag (and the closest), else the rest."""
        flags = [a for a in extras if a.startswith("-") and a != "-"]
        if not flags:
            return f"unexpected argument{'s' if len(extras) > 1 else ''} {' '.join(map(repr, extras))}"
        flag = flags[0].split("=", 1)[0]
        known = [s for a in self._actions for s in a.option_strings if s.startswith("--")]
        return f"unknown option {flag}{did_you_mean(flag, known)}"


def _build_parser(commands: list[Command], *, options: bool = True) -> _Parser:
    """The parser of ``ek`` with a subparser per command (and, with ``options``, each command's arguments)."""
    parser = _Parser(
        prog="ek", description=_DESCRIPTION, epilog=_EPILOG, formatter_class=HelpFormatter, allow_abbrev=False
    )
    version = next((c.function for c in commands if c.name == "version"), None)
    if version is not None:  # ek --version prints what ek version does
        parser.add_argument("--version", action="version", version=str(version()), help="print the ek version")
    sub = parser.add_subparsers(title="commands", metavar="COMMAND")
    for command in commands:
        func = command.function
        docs = read_docs(func)
        p = sub.add_parser(
            command.name,
            help=docs.summary,
            description=docs.description,
            formatter_class=HelpFormatter,
            allow_abbrev=False,
        )
        p._positionals.title, p._optionals.title = "arguments", "options"
        if not options:
            continue
        hints = typing.get_type_hints(func, include_extras=True)
        groups = []
        for param in inspect.signature(func).parameters.values():
            declared = _flag_group(param, hints.get(param.name))
            if declared is None:
                _add_param(p, param, hints.get(param.name), docs.entries.get(param.name))
                continue
            groups.append((param.name, declared))
            field_docs = read_docs(declared).entries
            field_hints = typing.get_type_hints(declared, include_extras=True)
            for field in dataclasses.fields(declared):
                _add_param(p, _as_parameter(field), field_hints[field.name], field_docs.get(field.name))
        p.set_defaults(_command=command, _groups=groups)
        p.usage = _usage(p)
    return parser


def _usage(p: argparse.ArgumentParser) -> str:
    """``%(prog)s [options] GOLD PRED``: the arguments, the options only as a word (each is listed below)."""
    words = ["%(prog)s"]
    if any(a.option_strings and a.dest != "help" for a in p._actions):
        words.append("[options]")
    for action in p._actions:
        if not action.option_strings:
            metavar = str(action.metavar)
            words.append(
                f"{metavar} [{metavar} ...]"
                if action.nargs == "+"
                else f"[{metavar}]"
                if action.nargs == "?"
                else metavar
            )
    return " ".join(words)


def _flag_group(param: inspect.Parameter, hint: Any) -> type[Any] | None:
    """The dataclass whose fields are flags, when ``param`` is a keyword-only parameter annotated with one."""
    if param.kind is param.KEYWORD_ONLY and isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return hint
    return None


def _as_parameter(field: dataclasses.Field[Any]) -> inspect.Parameter:
    """A dataclass field as the keyword-only parameter its flag is built from."""
    default = inspect.Parameter.empty if field.default is dataclasses.MISSING else field.default
    return inspect.Parameter(field.name, inspect.Parameter.KEYWORD_ONLY, default=default)


def _add_param(p: argparse.ArgumentParser, param: inspect.Parameter, hint: Any, entry: Entry | None) -> None:
    """The argument or flag of ``param``, in the --help group its docstring entry names, with its one-line help."""
    flag = "--" + param.name.replace("_", "-")
    kind = _scalar(hint, param.default, flag)
    entry = entry or Entry("")
    target: Any = p if entry.group is None else _group(p, entry.group)
    metavar = entry.metavar or param.name.upper()
    text = _help_line(entry.text, param.default, getattr(kind, "choices", None))
    if param.kind is param.VAR_POSITIONAL:
        target.add_argument("_varargs", nargs="+", type=kind, metavar=metavar, help=text)
    elif param.kind in (param.POSITIONAL_ONLY, param.POSITIONAL_OR_KEYWORD) and param.default is param.empty:
        target.add_argument(f"_pos_{param.name}", type=kind, metavar=metavar, help=text)
    elif param.kind is param.POSITIONAL_ONLY:  # with a default: an argument that may be left out
        target.add_argument(
            f"_pos_{param.name}", nargs="?", type=kind, default=param.default, metavar=metavar, help=text
        )
    elif _is_list(hint):  # a repeatable option: --engine a --engine b
        default = None if param.default is param.empty else param.default
        target.add_argument(
            flag, dest=param.name, type=str, action="append", metavar=metavar, default=default, help=text
        )
    elif kind is bool:
        action = argparse.BooleanOptionalAction
        target.add_argument(flag, dest=param.name, action=action, default=param.default, help=text)
    else:
        default = None if param.default is param.empty else param.default
        required = param.default is param.empty
        target.add_argument(
            flag, dest=param.name, type=kind, default=default, required=required, metavar=metavar, help=text
        )


def _group(p: argparse.ArgumentParser, title: str) -> Any:
    """The argument group of --help titled ``title`` (made on first use, so groups keep the order they first appear)."""
    for group in p._action_groups:
        if group.title == title:
            return group
    return p.add_argument_group(title)


def _help_line(text: str, default: Any, choices: Sequence[str] | None) -> str:
    """The help of one option: its docstring entry, then its choices and default in one bracket.

    An entry that ends with its own ``(default: ...)`` (a default the
    signature cannot say, such as "cer for text") keeps it, after the choices.
    """
    given = _GIVEN_DEFAULT.search(text)
    shown = given.group(1) if given else _shown_default(default)
    notes = [f"one of: {', '.join(choices)}"] if choices else []
    notes += [f"default: {shown}"] if shown is not None else []
    line = text[: given.start()] if given else text
    return (line + (f" ({'; '.join(notes)})" if notes else "")).replace("%", "%%")  # argparse formats help with %


def _shown_default(default: Any) -> str | None:
    """A default as --help writes it; None when there is nothing to show (required, unset, or a switch that is off)."""
    if default is inspect.Parameter.empty or default is None or default is False:
        return None
    if default is True:
        return "on"
    if default == "":
        return '""'
    return f"{default:g}" if isinstance(default, float) else str(default)


def _is_list(hint: Any) -> bool:
    """Whether ``hint`` is ``list[str]`` (or ``Optional[list[str]]``)."""
    union = typing.get_origin(hint) in (typing.Union, types.UnionType)
    args = [a for a in typing.get_args(hint) if a is not type(None)] if union else [hint]
    return len(args) == 1 and typing.get_origin(args[0]) is list


def _scalar(hint: Any, default: Any, flag: str) -> Callable[[str], Any]:
    """The argparse converter for a parameter's annotation (a check, a choice of a ``Literal``, a number, text)."""
    if typing.get_origin(hint) is typing.Annotated:
        return _checked(typing.get_args(hint)[1])
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    if args and typing.get_origin(hint) is not typing.Literal:
        hint = args[0]
    if typing.get_origin(hint) is typing.Literal:
        return _checked(OneOf(flag, tuple(map(str, typing.get_args(hint)))))
    if hint is bool or isinstance(default, bool):
        return bool
    if hint in (int, float) or isinstance(default, (int, float)):
        return _number(int if hint is int or (hint is not float and isinstance(default, int)) else float)
    return str


def _number(kind: type[int | float]) -> Callable[[str], Any]:
    """``int`` or ``float`` as an argparse type whose error says what was expected."""
    what = "a whole number" if kind is int else "a number"

    def convert(text: str) -> Any:
        try:
            return kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {what}, got {text!r}") from None

    convert.__name__ = kind.__name__
    return convert


def _checked(check: Callable[[str], Any]) -> Callable[[str], Any]:
    """``check`` as an argparse type: its ValueError message becomes the error printed."""

    def convert(text: str) -> Any:
        try:
            return check(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    convert.__name__ = getattr(check, "__name__", type(check).__name__)
    convert.choices = getattr(check, "choices", None)  # type: ignore[attr-defined]  # listed by --help
    return convert


def _printed(result: Any) -> str:
    """A command's value as printed: text as it is, a float by repr (inf and nan by name), the rest as JSON."""
    if isinstance(result, str):
        return result
    if isinstance(result, float):
        return repr(result) if math.isfinite(result) else str(result)
    return report_text(result, ascii_only=True)  # ek's one JSON convention: NaN as {"$float": "NaN"}
