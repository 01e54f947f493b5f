"""What ``ek COMMAND --help`` shows, read from docstrings: a short description, then one line per option.

The help of an option is written once, in the docstring of what declares
it: the ``Args:`` list of a command function, or the field list of a
dataclass of flags (`ek.cli.Options`). An entry is ``name: text`` or
``name (META): text``, continued on deeper-indented lines; ``META`` is the
placeholder --help shows (``--json PATH``), else the name in capitals. A
dataclass may split its fields over several headed lists (``Records:``,
``Scoring:``, ...): each heading is a group of --help, so shared flags are
listed together. ``Returns:``, ``Raises:`` and example sections are not
parameter lists; the text outside any list is the command's description.

Terminal text carries no reST: `plain` drops the markup (double and single
backquotes, ``:func:`` roles) from every line built here.
"""

from __future__ import annotations

import argparse
import inspect
import re
import textwrap
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Docs", "Entry", "HelpFormatter", "plain", "read_docs"]

_ROLE = re.compile(r":[\w.:-]+:`~?([^`<]*?)\s*(?:<[^`>]*>)?`")
_LITERAL = re.compile(r"``(.+?)``")
_INTERPRETED = re.compile(r"`([^`\n]+)`")
_HEADING = re.compile(r"^([A-Z][A-Za-z ]*):$")
_ENTRY = re.compile(r"^(\*{0,2}[A-Za-z_]\w*)(?:\s+\(([^)]*)\))?:(?:\s+(.*))?$")
_PLAIN_LISTS = frozenset({"Args", "Arguments", "Parameters", "Attributes", "Fields"})  # no group of their own
_NOT_PARAMETERS = frozenset(
    {"Returns", "Return", "Raises", "Yields", "Example", "Examples", "Note", "Notes", "See Also", "Warns", "Warnings"}
)


def plain(text: str) -> str:
    """``text`` without reST markup: ````x````, ```x``` and ``:role:`x``` become ``x``."""
    return _INTERPRETED.sub(r"\1", _LITERAL.sub(r"\1", _ROLE.sub(r"\1", text)))


@dataclass(frozen=True)
class Entry:
    """One parameter of a docstring's list: its help text (one line, no markup), placeholder and group."""

    text: str
    metavar: str | None = None
    group: str | None = None  # the heading of its list; None for Args/Attributes


@dataclass(frozen=True)
class Docs:
    """A docstring read for --help: the summary line, the description paragraphs, the parameter entries."""

    summary: str = ""
    description: str = ""
    entries: dict[str, Entry] = field(default_factory=dict)


def read_docs(obj: Any) -> Docs:
    """The docstring of ``obj`` (a function or a dataclass) split into description and parameter entries.

    A dataclass made of groups of flags (`ek.cli.Options`) has the entries
    of its bases too: each flag's help is written once, in its group.
    """
    docs = _read_docs(obj)
    if not isinstance(obj, type):
        return docs
    inherited = [_read_docs(base).entries for base in reversed(obj.__mro__[1:]) if base is not object]
    return Docs(docs.summary, docs.description, {k: v for e in (*inherited, docs.entries) for k, v in e.items()})


def _read_docs(obj: Any) -> Docs:
    doc = inspect.getdoc(obj) or ""
    prose: list[str] = []
    found: dict[str, tuple[str | None, list[str], str | None]] = {}
    heading: str | None = None
    current: list[str] | None = None
    entry_indent = 0
    for line in doc.splitlines():
        indent = len(line) - len(line.lstrip())
        stripped = line.strip()
        if not stripped or indent == 0:
            heading, current = _heading_or_prose(stripped, heading, prose)
            continue
        if heading is None:
            prose.append(stripped)
            continue
        if heading in _NOT_PARAMETERS:
            continue
        match = _ENTRY.match(stripped)
        if match and (current is None or indent <= entry_indent):
            name, metavar, text = match.groups()
            current, entry_indent = [text or ""], indent
            found[name.lstrip("*")] = (metavar, current, None if heading in _PLAIN_LISTS else heading.lower())
        elif current is not None:
            current.append(stripped)
    paragraphs = [" ".join(p.split()) for p in "\n".join(prose).split("\n\n") if p.strip()]
    entries = {name: Entry(plain(" ".join(" ".join(t).split())), m, g) for name, (m, t, g) in found.items()}
    summary = plain(paragraphs[0]) if paragraphs else ""
    return Docs(summary, "\n\n".join(plain(p) for p in paragraphs), entries)


class HelpFormatter(argparse.HelpFormatter):
    """argparse's layout, with paragraphs kept apart and a switch shown once (``--[no-]x`` when it is on)."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, max_help_position=24)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return "\n\n".join(
            textwrap.fill(p, width, initial_indent=indent, subsequent_indent=indent) for p in text.split("\n\n")
        )

    def _format_action(self, action: argparse.Action) -> str:
        if isinstance(action, argparse._SubParsersAction):  # the commands, without a "COMMAND" line above them
            return "".join(self._format_action(command) for command in action._get_subactions())
        return super()._format_action(action)

    def _format_action_invocation(self, action: argparse.Action) -> str:
        if isinstance(action, argparse.BooleanOptionalAction):
            flag = action.option_strings[0]
            return f"--[no-]{flag[2:]}" if action.default else flag
        return super()._format_action_invocation(action)


# ---------------------------------------------------------------------------


def _heading_or_prose(stripped: str, heading: str | None, prose: list[str]) -> tuple[str | None, None]:
    """A blank or unindented line: a list's heading, the blank that may end one, or description text."""
    match = _HEADING.match(stripped)
    if match:
        return match.group(1), None
    if not stripped:
        if heading is None:
            prose.append("")
        return heading, None
    prose.append(stripped)  # text after a list belongs to the description again
    return None, None
