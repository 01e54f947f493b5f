"""``ek COMMAND --help`` over every command: one line of its own per option, its choices and default, no markup.

The help is read from the docstrings (`ek.cli._help`); these tests hold
every command of `ek.cli.COMMANDS` to that contract, so a new
option without a line of help, or a docstring entry left behind by a
renamed parameter, fails here.
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import re
import typing

import pytest

import ek.cli
import ek.tools
from ek._files import MAX_FILE_MB, PRED_FORMATS, PROFILES, TEXT_LEVELS
from ek.cli import Options, run
from ek.cli._help import plain, read_docs
from ek.cli._main import _build_parser

COMMANDS = {c.name: c.function for c in ek.cli.COMMANDS}
MARKUP = re.compile(r"``|`|:\w+:")


def parser_of(command: str) -> argparse.ArgumentParser:
    """The parser of ``ek COMMAND`` as ``ek`` builds it."""
    sub = _build_parser([ek.cli.Command(command, COMMANDS[command])])._subparsers._group_actions[0]  # type: ignore[union-attr]
    return sub.choices[command]  # type: ignore[attr-defined,no-any-return]


def options_of(command: str) -> list[argparse.Action]:
    return [a for a in parser_of(command)._actions if a.dest != "help"]


def help_text(command: str | None, capsys: pytest.CaptureFixture[str], columns: int = 100) -> str:
    """What ``ek [COMMAND] --help`` prints at a terminal ``columns`` wide."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("COLUMNS", str(columns))
        assert run(ek.cli.COMMANDS, [*([command] if command else []), "--help"]) == 0
    return capsys.readouterr().out


def declared(func: typing.Callable[..., object]) -> dict[str, inspect.Parameter]:
    """The parameters a command's flags come from: its own, and the fields of a dataclass of flags."""
    out = {}
    for p in inspect.signature(func).parameters.values():
        hint = typing.get_type_hints(func).get(p.name)
        if isinstance(hint, type) and dataclasses.is_dataclass(hint):
            for f in dataclasses.fields(hint):
                out[f.name] = inspect.Parameter(f.name, p.KEYWORD_ONLY, default=f.default)
        else:
            out[p.name] = p
    return out


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_option_has_a_help_line_of_its_own(command):
    actions = options_of(command)
    assert len(actions) == len(declared(COMMANDS[command]))  # every parameter is an argument or a flag
    helps = [a.help for a in actions]
    assert all(h and h.strip() for h in helps), [a.dest for a in actions if not a.help]
    assert len(set(helps)) == len(helps)  # no two options share a line


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_docstring_entry_names_a_parameter(command):
    func = COMMANDS[command]
    names = set(inspect.signature(func).parameters) | set(declared(func))
    assert set(read_docs(func).entries) <= names
    assert set(read_docs(Options).entries) == {f.name for f in dataclasses.fields(Options)}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_defaults_and_choices_are_shown(command):
    params = declared(COMMANDS[command])
    for action in options_of(command):
        name = action.dest.removeprefix("_pos_")
        default = params[name].default if name in params else inspect.Parameter.empty
        text = action.help or ""
        if isinstance(default, bool) and default:
            assert text.endswith("(default: on)"), (command, name)
        elif default not in (None, False, inspect.Parameter.empty):
            shown = f"{default:g}" if isinstance(default, float) else ('""' if default == "" else str(default))
            assert f"default: {shown})" in text, (command, name, text)
        choices = getattr(action.type, "choices", None)
        if choices:
            assert f"(one of: {', '.join(choices)}" in text, (command, name, text)


def test_choices_come_from_what_the_code_checks():
    choices = {a.dest: getattr(a.type, "choices", None) for a in options_of("evaluate")}
    assert choices["text_level"] == TEXT_LEVELS and choices["profile"] == PROFILES
    assert choices["pred_format"] == PRED_FORMATS and choices["words"] == ("whitespace", "unicode")
    helps = {a.dest: a.help for a in options_of("evaluate")}
    assert helps["max_file_mb"].endswith(f"(default: {MAX_FILE_MB:g})")  # the readers' own default
    from ek._corpus_estimates import STRATEGIES
    from ek._corpus_estimates._corpus import INTERVALS

    assert {a.dest: getattr(a.type, "choices", None) for a in options_of("audit-plan")}["strategy"] == STRATEGIES
    assert {a.dest: getattr(a.type, "choices", None) for a in options_of("estimate")}["interval"] == INTERVALS


@pytest.mark.parametrize("command", [None, *sorted(COMMANDS)])
def test_help_has_no_markup_and_one_line_per_option(command, capsys):
    text = help_text(command, capsys)
    assert not MARKUP.search(text), MARKUP.search(text)
    assert "None" not in text
    lines = text.splitlines()
    listed = [k for k, line in enumerate(lines) if re.match(r"  \S", line)]  # options, arguments, commands
    assert listed
    for k in listed:  # an entry's help is on its own line: nothing wraps onto the next at 100 columns
        assert k + 1 == len(lines) or not re.match(r" {8,}\S", lines[k + 1]), lines[k : k + 2]


def test_evaluate_help_groups_the_shared_flags(capsys):
    text = help_text("evaluate", capsys)
    assert text.startswith("usage: ek evaluate [options] GOLD [PRED]\n\nScore PRED against GOLD")
    titles = [line[:-1] for line in text.splitlines() if re.fullmatch(r"[a-z]+:", line)]
    assert titles == ["arguments", "options", "records", "scoring", "outputs", "gates", "documents"]
    assert (
        "\n  --text-level LEVEL    text level (one of: region, line, word, glyph; default: region, else line)\n" in text
    )
    assert "\n  --keep-going          score the other documents" in text and "--no-keep-going" not in text
    assert "\n  --max-file-mb MB      skip (and list) files over MB megabytes (default: 256)\n" in text


def test_commands_that_read_no_file_do_not_import_the_readers():
    import subprocess
    import sys

    code = "import sys, ek.__main__ as m; m.main(['cer', 'ab', 'ab']); m.main(['--help']); print('ek._files' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.splitlines()[-1] == "False", out.stderr


def test_top_help_lists_every_command_and_version(capsys):
    text = help_text(None, capsys)
    assert "  --version " in text
    for name, func in COMMANDS.items():
        summary = read_docs(func).summary
        assert re.search(rf"^  {re.escape(name)}\s+{re.escape(summary)}$", text, re.MULTILINE), name


def test_a_switch_that_is_on_shows_how_to_turn_it_off(capsys):
    text = help_text("rover", capsys)
    assert "  --[no-]confidence  blend each engine's confidence into the vote" in text
    assert run(ek.cli.COMMANDS, ["rover", "a b", "a c", "--no-confidence"]) == 0


# -- reading docstrings ---------------------------------------------------------------------------


def test_plain_drops_rest_markup():
    assert plain("``ek evaluate`` reads `Options` (:func:`ek.evaluate`, :class:`~ek.base.Report`)") == (
        "ek evaluate reads Options (ek.evaluate, ek.base.Report)"
    )
    assert plain("the user's file, it's fine") == "the user's file, it's fine"


def sample(gold: str, *, json: str | None = None, fast: bool = False) -> None:
    """Do a thing with ``gold``.

    A second paragraph, with `markup`.

    Args:
        gold: the gold file, over
            two lines
        json (PATH): write it to PATH
        fast: go fast

    Returns:
        nothing: not a parameter
    """


def test_read_docs_takes_the_summary_the_description_and_the_entries():
    docs = read_docs(sample)
    assert docs.summary == "Do a thing with gold."
    assert docs.description == "Do a thing with gold.\n\nA second paragraph, with markup."
    assert docs.entries["gold"].text == "the gold file, over two lines" and docs.entries["gold"].metavar is None
    assert docs.entries["json"].metavar == "PATH" and docs.entries["json"].group is None
    assert set(docs.entries) == {"gold", "json", "fast"}  # Returns: is not a parameter list
    assert read_docs(Options).entries["text_level"].group == "documents"
