"""Runs saved by ``ek evaluate --save`` (ek.cli._commands._saved): one writer, atomic replacement, checked reads.

Writers run as real processes where the point is what two processes or a
kill do; everything else goes through ``ek.__main__.main`` in-process.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from importlib import resources
from pathlib import Path

import pytest

from ek.__main__ import main

DATA = Path(str(resources.files("ek") / "data"))
GOLD = DATA / "demo_ocr.jsonl"
PRED_B = DATA / "demo_ocr_b.jsonl"
CORE = ("a", "b", "delta", "interval", "p_value", "verdict")


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def compared(capsys, *argv):
    code, out, err = run(capsys, "compare", *argv, "--json", "-")
    assert code == 0, err
    data = json.loads(out)
    return {k: data[k] for k in CORE}


def home() -> Path:
    return Path(os.environ["EK_DATA_HOME"])


def header(name: str) -> dict:
    return json.loads((home() / "runs" / f"evaluate.{name}.json").read_text())


def chunks(name: str) -> list:
    return sorted(p.name for p in (home() / "results").glob(f"evaluate.{name}.*.json"))


def ek(*argv, **kwargs) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "ek", *map(str, argv)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kwargs,
    )


def lines(path: Path, n: int, text: str) -> Path:
    path.write_text("".join(json.dumps({"id": f"d{i}", "text": text}) + "\n" for i in range(n)))
    return path


def until(condition, what: str, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"gave up waiting for {what}")
        time.sleep(0.002)


# --- one writer per name ------------------------------------------------------------------


@pytest.mark.skipif(sys.platform == "win32", reason="flock")
def test_two_saves_of_one_name_started_together_one_is_refused_and_the_run_is_the_other_ones(tmp_path):
    gold = lines(tmp_path / "gold.jsonl", 50, "cat")
    preds = {"cut": lines(tmp_path / "cut.jsonl", 50, "cut"), "cat": lines(tmp_path / "cat.jsonl", 50, "cat")}
    # Both read PRED from a pipe the test holds open, so both are still running when the second reaches the lock.
    procs = {text: ek("evaluate", gold, "-", "--save", "shared", stdin=subprocess.PIPE) for text in preds}
    lock = home() / "runs" / ".evaluate.shared.lock"
    until(lambda: lock.exists() and lock.read_text().startswith("pid "), "a writer to take the lock")
    holder = int(lock.read_text().split()[1])
    loser = next(text for text, p in procs.items() if p.pid != holder)
    _, err = procs[loser].communicate(preds[loser].read_text(), timeout=60)
    assert procs[loser].returncode == 2 and err.count("\n") == 1
    assert re.fullmatch(
        rf"ek evaluate: error: --save: run 'shared' is being written by another process \(pid "
        rf"{holder} since [0-9-]+ [0-9:]+ UTC\); a run has one writer at a time, so wait for that "
        r"one to finish, or use another name\.\n",
        err,
    ), err
    winner = next(text for text in procs if text != loser)
    _out, err = procs[winner].communicate(preds[winner].read_text(), timeout=60)
    assert procs[winner].returncode == 0, err
    saved = header("shared")
    assert saved["status"] == "complete" and saved["settings"]["source"] == "-"
    assert saved["summary"]["aggregate"] == (1 / 3 if winner == "cut" else 0.0)
    items = {}
    for name in chunks("shared"):
        items.update(json.loads((home() / "results" / name).read_text())["items"])
    assert len(items) == 50 and {e["value"] for e in items.values()} == {1 / 3 if winner == "cut" else 0.0}


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_a_killed_writer_leaves_no_lock_behind(tmp_path, capsys):
    gold = lines(tmp_path / "gold.jsonl", 5, "cat")
    stuck = ek("evaluate", gold, "-", "--save", "k1", stdin=subprocess.PIPE)
    lock = home() / "runs" / ".evaluate.k1.lock"
    until(lambda: lock.exists() and lock.read_text().startswith(f"pid {stuck.pid} "), "the writer to take the lock")
    code, _, err = run(capsys, "evaluate", gold, gold, "--save", "k1")
    assert code == 2 and f"being written by another process (pid {stuck.pid} since" in err
    stuck.kill()
    stuck.communicate(timeout=60)
    assert run(capsys, "evaluate", gold, gold, "--save", "k1")[0] == 0
    assert header("k1")["status"] == "complete"


def test_a_failed_command_releases_its_name_in_the_same_process(capsys, tmp_path):
    gold = lines(tmp_path / "gold.jsonl", 5, "cat")
    code, _, err = run(capsys, "evaluate", gold, tmp_path / "absent.jsonl", "--save", "again")
    assert code == 2 and "does not exist" in err
    assert run(capsys, "evaluate", gold, gold, "--save", "again")[0] == 0


def test_a_failed_command_frees_its_name_for_other_processes(capsys, tmp_path):
    # the lock of a --save that failed before saving must not outlive the command (a long-lived caller of main())
    gold = lines(tmp_path / "gold.jsonl", 5, "cat")
    code, _, err = run(capsys, "evaluate", gold, tmp_path / "absent.jsonl", "--save", "freed")
    assert code == 2 and "does not exist" in err
    other = ek("evaluate", gold, gold, "--save", "freed")
    _out, err = other.communicate(timeout=120)
    assert other.returncode == 0, err


# --- a re-save replaces the run only once complete -------------------------------------------


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_a_resave_killed_mid_write_leaves_the_old_run_whole_and_the_next_save_cleans_up(tmp_path, capsys):
    assert run(capsys, "evaluate", GOLD, GOLD, "--save", "base")[0] == 0
    before = compared(capsys, GOLD, "base", PRED_B)
    old_chunks, old_header = chunks("base"), header("base")
    big = lines(tmp_path / "big.jsonl", 100_000, "ab")
    writer = ek("evaluate", big, big, "--save", "base")
    staged = lambda: [n for n in chunks("base") if n not in old_chunks]  # noqa: E731
    until(lambda: staged() or writer.poll() is not None, "the re-save to write its first chunk")
    writer.send_signal(signal.SIGKILL)
    writer.communicate(timeout=60)
    assert writer.returncode == -signal.SIGKILL, "the re-save finished before it could be killed"
    interrupted = header("base")
    assert interrupted["staging"]["status"] == "running" and interrupted["staging"]["n_items"] == 100_000
    assert {k: v for k, v in interrupted.items() if k != "staging"} == old_header
    assert set(old_chunks) < set(chunks("base")) and staged()
    assert compared(capsys, GOLD, "base", PRED_B) == before  # ek compare reads the old run, as before
    assert run(capsys, "evaluate", GOLD, PRED_B, "--save", "base")[0] == 0
    replaced = header("base")
    assert "staging" not in replaced and replaced["settings"]["source"] == str(PRED_B)
    assert chunks("base") == [f"evaluate.base.000000.{replaced['generation']}.json"]  # old and killed ones gone
    assert compared(capsys, GOLD, "base", GOLD)["a"] == before["b"]


def test_a_resave_switches_runs_in_one_step(capsys, tmp_path):
    gold = lines(tmp_path / "gold.jsonl", 2500, "cat")
    assert run(capsys, "evaluate", gold, gold, "--save", "twice")[0] == 0
    first = chunks("twice")
    assert first == [f"evaluate.twice.00000{i}.json" for i in range(3)] and "generation" not in header("twice")
    assert run(capsys, "evaluate", gold, lines(tmp_path / "p.jsonl", 2500, "cut"), "--save", "twice")[0] == 0
    generation = header("twice")["generation"]
    assert re.fullmatch(r"v[0-9a-f]{12}", generation)
    assert chunks("twice") == [f"evaluate.twice.00000{i}.{generation}.json" for i in range(3)]
    assert compared(capsys, gold, "twice", gold)["a"] == pytest.approx(1 / 3)


def test_a_first_save_that_did_not_finish_says_so(capsys, tmp_path):
    assert run(capsys, "evaluate", GOLD, GOLD, "--save", "half")[0] == 0
    path = home() / "runs" / "evaluate.half.json"
    record = json.loads(path.read_text())
    record["status"] = "running"
    del record["summary"]
    path.write_text(json.dumps(record))
    code, _, err = run(capsys, "compare", GOLD, "half", PRED_B)
    assert code == 2 and err == (
        "ek compare: error: PRED_A 'half' is a saved run whose first save did not finish "
        "(it was stopped while writing), so it has no figures. Save it again with ek "
        "evaluate GOLD PRED --save half.\n"
    )


# --- settings checked on compare -------------------------------------------------------------


def test_compare_refuses_a_run_saved_under_other_settings_naming_the_setting_and_both_values(capsys):
    assert run(capsys, "evaluate", GOLD, GOLD, "--save", "lower", "--normalize", "nfc,lower")[0] == 0
    assert header("lower")["settings"]["normalize"] == ["nfc", "lower"]
    code, out, err = run(capsys, "compare", GOLD, "lower", PRED_B)
    assert (code, out) == (2, "") and err == (
        "ek compare: error: PRED_A 'lower' was saved with normalize='nfc,lower', but this ek compare has "
        "normalize=None, so the two runs' figures would measure different things; compare under the settings it "
        "was saved with, or save it again with these.\n"
    )
    code, _, err = run(capsys, "compare", GOLD, PRED_B, "lower", "--normalize", "lower")
    assert (
        code == 2
        and "PRED_B 'lower' was saved with normalize='nfc,lower', but this ek compare has normalize='lower'" in err
    )
    assert compared(capsys, GOLD, "lower", PRED_B, "--normalize", "nfc,lower") == compared(
        capsys, GOLD, GOLD, PRED_B, "--normalize", "nfc,lower"
    )


@pytest.mark.parametrize(
    "option, value",
    [
        ("--text-level", "line"),
        pytest.param("--profile", "dinglehopper", marks=pytest.mark.needs("regex")),
        pytest.param("--words", "unicode", marks=pytest.mark.needs("regex")),
    ],
)
def test_compare_refuses_a_run_saved_at_another_text_level_profile_or_word_rule(capsys, tmp_path, option, value):
    # issue 20 item 8: a run of documents read or cut another way measures something else
    gold, pred = tmp_path / "gold", tmp_path / "pred"
    for folder, text in ((gold, "Der Hund lief"), (pred, "Der Hnnd lief")):
        folder.mkdir()
        (folder / "p1.txt").write_text(text + "\n", encoding="utf-8")
    assert run(capsys, "evaluate", gold, pred, "--save", "doc", option, value)[0] == 0
    code, _, err = run(capsys, "compare", gold, "doc", pred)
    name = option[2:].replace("-", "_")
    assert code == 2 and f"PRED_A 'doc' was saved with {name}={value!r}, but this ek compare has {name}=None" in err
    assert run(capsys, "compare", gold, "doc", pred, option, value)[0] == 0


def test_compare_refuses_a_metric_other_than_the_saved_one(capsys):
    assert run(capsys, "evaluate", GOLD, GOLD, "--save", "chars")[0] == 0
    code, _, err = run(capsys, "compare", GOLD, "chars", PRED_B, "--metric", "wer")
    assert code == 2 and "PRED_A 'chars' was saved with metric='cer', but this ek compare has metric='wer'" in err


def test_the_settings_a_run_records_are_those_compare_checks():
    from ek.cli._commands._inputs import Options
    from ek.cli._commands._saved import _CHECKED, run_settings

    settings = run_settings("cer", Options(normalize="nfc", words="unicode"))
    assert settings == {
        "metric": "cer",
        "statistics": ["edits", "ref_len"],
        "profile": None,
        "normalize": ["nfc"],
        "text_level": None,
        "words": "unicode",
    }
    assert set(_CHECKED) <= set(Options.__dataclass_fields__)


def test_a_run_saved_before_statistics_changed_is_refused(capsys):
    assert run(capsys, "evaluate", GOLD, GOLD, "--save", "old")[0] == 0
    path = home() / "runs" / "evaluate.old.json"
    record = json.loads(path.read_text())
    record["settings"]["statistics"] = ["edits"]
    path.write_text(json.dumps(record))
    code, _, err = run(capsys, "compare", GOLD, "old", PRED_B)
    assert (
        code == 2
        and "'old' was saved with statistics=['edits'], but this ek compare has statistics=['edits', 'ref_len']" in err
    )


# --- a name or a file ------------------------------------------------------------------------


def test_a_file_named_like_a_saved_run_is_refused_and_run_or_dot_slash_picks_one(capsys, tmp_path, monkeypatch):
    assert run(capsys, "evaluate", GOLD, GOLD, "--save", "base")[0] == 0
    monkeypatch.chdir(tmp_path)
    (tmp_path / "base").write_text(PRED_B.read_text())
    code, out, err = run(capsys, "compare", GOLD, "base", GOLD)
    assert (code, out) == (2, "") and err == (
        f"ek compare: error: PRED_A 'base' is both a file or folder here ({tmp_path / 'base'}) and a run saved with "
        "ek evaluate --save; write run:base for the saved run, or ./base for the file.\n"
    )
    assert compared(capsys, GOLD, "run:base", GOLD) == compared(capsys, GOLD, GOLD, GOLD)
    assert compared(capsys, GOLD, "./base", GOLD) == compared(capsys, GOLD, PRED_B, GOLD)
    code, _, err = run(capsys, "compare", GOLD, "run:nothing", GOLD)
    assert (
        code == 2
        and "PRED_A 'nothing' is neither a file nor a run saved with ek evaluate --save (saved runs: base)" in err
    )


def test_run_prefix_names_a_run_even_without_a_file(capsys):
    assert run(capsys, "evaluate", GOLD, GOLD, "--save", "plain")[0] == 0
    assert compared(capsys, GOLD, "run:plain", PRED_B) == compared(capsys, GOLD, "plain", PRED_B)


# --- damaged saved runs: one line naming the file and the field, exit 2 ----------------------


def _edit_header(change):
    path = home() / "runs" / "evaluate.dmg.json"
    record = json.loads(path.read_text())
    change(record)
    path.write_text(json.dumps(record))
    return path


def _edit_item(change):
    path = home() / "results" / "evaluate.dmg.000000.json"
    record = json.loads(path.read_text())
    change(next(iter(record["items"].values())))
    path.write_text(json.dumps(record))
    return path


def _write(folder, name, text):
    path = home() / folder / name
    path.write_text(text)
    return path


DEEP = "[" * 100_000 + "]" * 100_000
DAMAGES = {
    "header not JSON": (lambda: _write("runs", "evaluate.dmg.json", '{"format": 2, "kind'), r"is not valid UTF-8 JSON"),
    "header 100,000 deep": (
        lambda: _write("runs", "evaluate.dmg.json", DEEP),
        r"nests JSON arrays or objects too deeply",
    ),
    "chunk 100,000 deep": (
        lambda: _write("results", "evaluate.dmg.000000.json", DEEP),
        r"nests JSON arrays or objects too deeply",
    ),
    "no summary": (lambda: _edit_header(lambda r: r.pop("summary")), r"has no 'summary' field"),
    "no gold": (
        lambda: _edit_header(lambda r: r["settings"].pop("gold")),
        r"has no 'settings\.gold' field \(the fingerprint of the gold set\)",
    ),
    "no missing": (lambda: _edit_header(lambda r: r["summary"].pop("missing")), r"has no 'summary\.missing' field"),
    "summary a list": (
        lambda: _edit_header(lambda r: r.update(summary=[1])),
        r"has list for 'summary' \(written when the save completed\), not dict",
    ),
    "no value": (
        lambda: _edit_item(lambda e: e.pop("value")),
        r"damaged evaluate run chunk: item '[^']+' has no 'value' field \(the item's score\)",
    ),
    "value text": (lambda: _edit_item(lambda e: e.update(value="high")), r"item '[^']+' has str for 'value'"),
    "no statistic": (
        lambda: _edit_item(lambda e: e["statistics"].pop("edits")),
        r"item '[^']+' has no 'statistics\.edits' field",
    ),
    "no slice": (lambda: _edit_item(lambda e: e.pop("slice")), r"item '[^']+' has no 'slice' field"),
    "chunk deleted": (
        lambda: _edit_header(lambda r: r.update(n_items=81)),
        r"has 'n_items' 81, but its chunks hold 80 items \(a chunk file is missing or was edited\)",
    ),
}


@pytest.mark.parametrize("damage", sorted(DAMAGES))
def test_a_damaged_saved_run_is_one_line_naming_the_file_and_the_field(capsys, damage):
    assert run(capsys, "evaluate", GOLD, GOLD, "--save", "dmg")[0] == 0
    make, problem = DAMAGES[damage]
    path = make()
    code, out, err = run(capsys, "compare", GOLD, "dmg", PRED_B)
    assert (code, out, err.count("\n")) == (2, "", 1), err
    assert err.startswith("ek compare: error: PRED_A 'dmg' cannot be used: ") and len(err) < 600, err
    assert re.search(rf"{re.escape(str(path))}.*{problem}", err), err
