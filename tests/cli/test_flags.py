"""The shared flags of ``ek evaluate``, ``compare`` and ``estimate`` come from one declaration, `ek.cli.Options`.

The dispatcher (`ek.cli._main`) turns a keyword-only parameter annotated
with a dataclass into one flag per field, and builds the dataclass from
them; nothing patches a command's signature.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
from dataclasses import dataclass
from typing import Annotated

import pytest

import ek.tools
from ek.cli import Command, Options, run
from ek.cli._main import _build_parser

OWN = {  # each command's own keyword-only options, after the shared ones, as --help lists them
    "evaluate": ["gold_group", "pred_group", "save", "workers", "scheduler", "timeout", "per_page"],
    "compare": ["fail_on_regression"],
    "estimate": ["proxy", "audit", "proxy_field", "plan", "lam", "interval"],
}


def options_of(command: str) -> list[tuple[str, str]]:
    """``(dest, first option string)`` of each option of ``ek COMMAND``, in --help order."""
    func = getattr(ek.tools, command)
    sub = _build_parser([Command(command, func)])._subparsers._group_actions[0].choices[command]  # type: ignore[union-attr]
    return [(a.dest, a.option_strings[0]) for a in sub._actions if a.option_strings and a.dest != "help"]


@pytest.mark.parametrize("command", sorted(OWN))
def test_the_shared_flags_are_the_fields_of_options_in_order(command):
    names = [f.name for f in dataclasses.fields(Options)]
    assert names[:4] == ["id", "gold_field", "pred_field", "slice"] and len(names) == 22
    expected = [(n, "--" + n.replace("_", "-")) for n in [*names, *OWN[command]]]
    assert options_of(command) == expected


@pytest.mark.parametrize("command", sorted(OWN))
def test_no_command_patches_its_signature(command):
    func = getattr(ek.tools, command)
    assert "__signature__" not in vars(func)
    kinds = {p.kind for p in inspect.signature(func).parameters.values()}
    assert inspect.Parameter.VAR_KEYWORD not in kinds
    assert inspect.signature(func).parameters["options"].default == Options()


def test_no_dispatched_function_has_a_patched_signature():
    assert [c.name for c in ek.cli.COMMANDS if "__signature__" in vars(c.function)] == []


def test_a_python_call_passes_options_as_the_command_line_does(tmp_path, capsys):
    gold, pred = tmp_path / "g.jsonl", tmp_path / "p.jsonl"
    gold.write_text('{"key": "a", "text": "the cat sat"}\n{"key": "b", "text": "a dog"}\n')
    pred.write_text('{"key": "a", "text": "the bat sat"}\n{"key": "b", "text": "a dog"}\n')
    out = ek.tools.evaluate(str(gold), str(pred), options=Options(id="key", metric="wer", json="-"))
    report = json.loads(out.stdout)
    assert report["aggregate"] == pytest.approx(1 / 5)  # one word of five substituted
    argv = ["evaluate", str(gold), str(pred), "--id", "key", "--metric", "wer", "--json", "-"]
    assert run(ek.cli.COMMANDS, argv) == 0
    assert json.loads(capsys.readouterr().out)["aggregate"] == report["aggregate"]


def test_options_checks_its_values_for_python_callers_too():
    with pytest.raises(ValueError, match=r"^--max must be a finite number \(the bound of the gate\), got nan"):
        Options(max=float("nan"))
    with pytest.raises(ValueError, match=r"^--words must be one of whitespace, unicode"):
        Options(words="spaces")
    assert Options(normalize="nfc, lower").steps == ["nfc", "lower"] and Options().steps is None
    assert Options(id="").reading().id_field is None and Options(slice="s").reading().slice_field == "s"
    assert Options().for_documents().steps == ["nfc"] and Options(profile="dinglehopper").for_documents().steps is None


# -- the dispatcher expands any dataclass of flags -------------------------------------------------


def _even(text: str) -> int:
    value = int(text)
    if value % 2:
        raise ValueError(f"--size must be even, got {value}")
    return value


@dataclass(frozen=True)
class Knobs:
    size: Annotated[int, _even] = 2
    loud: bool = False
    label: str | None = None

    def __post_init__(self) -> None:
        if self.loud and self.label is None:
            raise ValueError("--loud needs a --label to shout")


def spin(name: str, *, knobs: Knobs = Knobs(), times: int = 1) -> dict[str, object]:
    """Spin NAME."""
    return {"name": name, "knobs": dataclasses.asdict(knobs), "times": times}


SPIN = (Command("spin", spin),)


def test_a_dataclass_parameter_becomes_one_flag_per_field(capsys):
    assert run(SPIN, ["spin", "x", "--size", "4", "--loud", "--label", "hey", "--times", "3"]) == 0
    assert json.loads(capsys.readouterr().out) == {
        "name": "x",
        "knobs": {"size": 4, "loud": True, "label": "hey"},
        "times": 3,
    }
    assert run(SPIN, ["spin", "y"]) == 0
    assert json.loads(capsys.readouterr().out)["knobs"] == {"size": 2, "loud": False, "label": None}
    sub = _build_parser(list(SPIN))._subparsers._group_actions[0].choices["spin"]  # type: ignore[union-attr]
    assert [a.dest for a in sub._actions if a.option_strings][1:] == ["size", "loud", "label", "times"]


def test_a_dataclass_of_flags_reports_its_errors_in_one_line(capsys):
    assert run(SPIN, ["spin", "x", "--size", "3"]) == 2
    assert capsys.readouterr().err == "ek spin: error: --size must be even, got 3 (see ek spin --help)\n"
    assert run(SPIN, ["spin", "x", "--loud"]) == 2
    assert capsys.readouterr().err == "ek spin: error: --loud needs a --label to shout\n"
