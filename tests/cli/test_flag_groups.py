"""The shared flags are declared once, in groups; ``ek audit-plan`` takes two of them instead of re-declaring five."""

from __future__ import annotations

import dataclasses
import json

import ek.cli
from ek.cli import Options, run
from ek.cli._commands._options import Documents, Gates, Outputs, Records, Scoring, grouped
from ek.cli._help import read_docs
from ek.cli._main import _build_parser

GROUPS = (Records, Scoring, Outputs, Gates, Documents)


def _flags(command):
    function = next(c.function for c in ek.cli.COMMANDS if c.name == command)
    sub = _build_parser([ek.cli.Command(command, function)])._subparsers._group_actions[0]
    return [a.option_strings[0] for a in sub.choices[command]._actions if a.option_strings and a.dest != "help"]


def _names(*groups):
    return ["--" + f.name.replace("_", "-") for g in groups for f in dataclasses.fields(g)]


def test_options_are_the_groups_fields_in_order_each_with_its_help_once():
    assert [f.name for f in dataclasses.fields(Options)] == [f.name for g in GROUPS for f in dataclasses.fields(g)]
    entries = read_docs(Options).entries
    for group in GROUPS:
        for f in dataclasses.fields(group):
            assert entries[f.name] == read_docs(group).entries[f.name] and entries[f.name].text
            assert entries[f.name].group == group.__name__.lower()
    assert "Records:" not in (Options.__doc__ or "")  # the help is written in the groups only


def test_evaluate_takes_every_group_and_audit_plan_two():
    shared, flags = _names(*GROUPS), _flags("evaluate")
    start = flags.index("--id")
    assert flags[start : start + len(shared)] == shared  # one flag per field, where the parameter stands
    own = ["--proxy", "--budget", "--strategy", "--seed", "--min-prob", "--out", "--proxy-field"]
    assert _flags("audit-plan") == own + _names(Records, Scoring)


def test_a_group_given_as_a_whole_options_gives_only_its_own_fields():
    options = grouped(Records(id="k"), Options(id="other", metric="wer", json="x.json"))
    assert (options.id, options.metric, options.json) == ("k", "wer", None)


def test_audit_plan_reads_the_shared_flags(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "g.jsonl").write_text('{"k": "a", "t": "the cat"}\n{"k": "b", "t": "a dog"}\n')
    (tmp_path / "p.jsonl").write_text('{"k": "a", "t": "the bat"}\n{"k": "b", "t": "a dog"}\n')
    argv = ["audit-plan", "p.jsonl", "--proxy", "g.jsonl", "--budget", "2", "--id", "k", "--proxy-field", "t"]
    assert run(ek.cli.COMMANDS, [*argv, "--pred-field", "t", "--metric", "wer"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["id"], r["probability"], r["text"]) for r in lines] == [("a", 1.0, "the bat"), ("b", 1.0, "a dog")]


def test_audit_plan_refuses_the_gold_field_it_would_not_read(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code = run(ek.cli.COMMANDS, ["audit-plan", "p.jsonl", "--proxy", "g.jsonl", "--budget", "1", "--gold-field", "t"])
    assert code == 2
    assert capsys.readouterr().err == (
        "ek audit-plan: error: --gold-field names the value field of a gold file, and ek audit-plan reads none; "
        "name the --proxy file's value field with --proxy-field.\n"
    )
