"""The one table of commands (`ek.cli.COMMANDS`): names, functions, and a command added by one row."""

from __future__ import annotations

import ast
import inspect
import pathlib
import re

import pytest

import ek.cli
import ek.tools
from ek.cli import COMMANDS, Command, run

SPEC_COMMANDS = {"cer", "wer", "where", "version", "rover", "pass-k", "cost-per-success", "engines", "check"}


def test_every_name_is_unique_and_the_documented_commands_are_there() -> None:
    names = [c.name for c in COMMANDS]
    assert len(names) == len(set(names))
    assert SPEC_COMMANDS | {"evaluate", "compare", "estimate", "audit-plan", "benchmark", "monitor", "demo"} == set(
        names
    )
    assert ek.tools._dispatch_funcs is COMMANDS  # the API reference's name for the same table


def test_the_help_lists_the_commands_in_table_order(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(COMMANDS, ["--help"]) == 0
    listed = capsys.readouterr().out
    positions = [re.search(rf"^  {re.escape(c.name)} ", listed, re.MULTILINE).start() for c in COMMANDS]
    assert positions == sorted(positions)


def test_the_python_functions_keep_their_documented_shapes() -> None:
    # ek.tools.check is the report (a dict); the ek check command wraps it with an exit code
    row = next(c for c in COMMANDS if c.name == "check")
    assert row.function is not ek.tools.check
    assert inspect.signature(row.function).parameters.keys() == inspect.signature(ek.tools.check).parameters.keys()
    for name in SPEC_COMMANDS - {"check"}:
        assert next(c for c in COMMANDS if c.name == name).function is getattr(ek.tools, name.replace("-", "_"))


def test_nothing_renames_a_function_to_make_a_command() -> None:
    src = pathlib.Path(ek.tools.__file__).parents[0]
    for path in (src / "tools.py", src / "cli" / "_table.py", src / "cli" / "_commands" / "_small.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    assert not (isinstance(target, ast.Attribute) and target.attr == "__name__"), path


def test_a_new_command_is_one_row(capsys: pytest.CaptureFixture[str]) -> None:
    def shout(text: str, *, times: int = 1) -> str:
        """Say TEXT louder.

        Args:
            text: what to say
            times (N): how often
        """
        return " ".join([text.upper()] * times)

    table = (*COMMANDS, Command("shout", shout))
    assert run(table, ["shout", "hi", "--times", "2"]) == 0
    assert capsys.readouterr().out == "HI HI\n"
    assert run(table, ["shout", "--help"]) == 0
    assert "--times N" in capsys.readouterr().out


@pytest.mark.parametrize("bad", ["", "Shout", "two words", "snake_case"])
def test_a_command_name_is_lower_case_words_joined_by_dashes(bad: str) -> None:
    with pytest.raises(ValueError, match="lower-case words joined by '-'"):
        Command(bad, print)
