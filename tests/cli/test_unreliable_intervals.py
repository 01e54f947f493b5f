"""An interval ek cannot trust is printed flagged, with the reason in numbers: terminal, JSON and page.

The corpus: 60 short documents (3, 3 and 4 characters) and one of 900 that
holds 900 / 1,100 = 82% of the reference length, so Kish's effective size
is 1,100² / (40·9 + 20·16 + 900²) ≈ 1.5.
"""

from __future__ import annotations

import json

import pytest

import ek
from ek.__main__ import main

WHY = "1 of 61 documents hold 82% of the reference length: effective n ≈ 1.5"
SHORT = ["cat", "dog", "bird"] * 20


def _jsonl(path, texts, ids):
    path.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in zip(ids, texts)), encoding="utf-8")
    return str(path)


@pytest.fixture
def files(tmp_path):
    ids = [f"d{i}" for i in range(60)] + ["huge"]
    gold = _jsonl(tmp_path / "gold.jsonl", [*SHORT, "y" * 900], ids)
    a = _jsonl(tmp_path / "a.jsonl", [*(t[1:] if i % 3 == 0 else t for i, t in enumerate(SHORT)), "x" * 900], ids)
    b = _jsonl(tmp_path / "b.jsonl", [*SHORT, "y" * 800 + "x" * 100], ids)
    even = _jsonl(tmp_path / "even.jsonl", SHORT, ids[:60])
    return {"gold": gold, "a": a, "b": b, "even": even}


def run(capsys, *argv):
    code = main([str(x) for x in argv])
    out = capsys.readouterr()
    assert code == 0, out.err
    return out.out, out.err


def test_evaluate_marks_the_interval_and_says_why(files, capsys):
    out, err = run(capsys, "evaluate", files["gold"], files["a"])
    row = next(line for line in out.splitlines() if line.startswith("all "))
    assert row.endswith("] (unreliable)")
    assert f"unreliable interval (all): {WHY}" in out.splitlines()
    assert "Warning" not in err and WHY not in err  # the command prints the verdict; no Python warning


def test_evaluate_json_carries_reliable_why_and_effective_n(files, capsys):
    out, _ = run(capsys, "evaluate", files["gold"], files["a"], "--json", "-")
    data = json.loads(out)
    assert data["reliable"] is False and data["why"] == WHY and data["effective_n"] == 1.5
    assert all(x == x for x in data["interval"])  # the interval is still given, flagged


def test_an_even_corpus_is_not_flagged(files, capsys):
    even = files["gold"].replace("gold", "even")
    out, _ = run(capsys, "evaluate", even, even, "--json", "-")
    data = json.loads(out)
    # every document is perfect, so the figure is 0 whatever the weights: they are undetermined and count
    # equally (Kish of 60 equal weights is 60; with errors it would be 200² / (40·9 + 20·16) ≈ 58.8)
    assert data["reliable"] is True and data["why"] is None and data["effective_n"] == 60.0
    text, _ = run(capsys, "evaluate", even, even)
    assert "unreliable" not in text


def test_too_few_items_are_not_reliable_and_print_as_before(tmp_path, capsys):
    gold = _jsonl(tmp_path / "g.jsonl", SHORT[:12], [f"d{i}" for i in range(12)])
    out, _ = run(capsys, "evaluate", gold, gold, "--json", "-")
    data = json.loads(out)
    assert data["reliable"] is False and data["why"] == "12 items: an interval needs 40+"
    text, _ = run(capsys, "evaluate", gold, gold)
    assert "needs 40+ items" in text and "unreliable" not in text


def test_compare_flags_the_paired_interval_and_both_runs(files, capsys):
    out, err = run(capsys, "compare", files["gold"], files["a"], files["b"])
    lines = out.splitlines()
    assert next(x for x in lines if x.startswith("all ")).count("(unreliable)") == 1
    assert f"unreliable interval of B - A (all): {WHY}" in lines
    assert f"unreliable interval of A (a.jsonl): {WHY}" in lines
    assert lines[1].startswith("A = a.jsonl: ") and lines[1].endswith("] (unreliable)")
    assert WHY not in err
    data = json.loads(run(capsys, "compare", files["gold"], files["a"], files["b"], "--json", "-")[0])
    assert data["reliable"] is False and data["why"] == WHY
    assert data["runs"]["a"]["reliable"] is False and data["runs"]["a"]["why"] == WHY


def test_ek_compare_judges_the_paired_items():
    short = [("ct", "cat"), ("dog", "dog"), ("bird", "bird")] * 20
    a = ek.evaluate([*short, ("x" * 900, "y" * 900)], metric="cer")
    b = ek.evaluate([*short, ("y" * 800 + "x" * 100, "y" * 900)], metric="cer")
    c = ek.compare(a, b)
    assert c.reliable is False and c.why == WHY
    even = ek.compare(ek.evaluate(short, metric="cer"), ek.evaluate(short[::-1], metric="cer"))
    assert even.reliable is True and even.why is None


def test_pages_say_why(files, tmp_path, capsys):
    page = tmp_path / "e.html"
    run(capsys, "evaluate", files["gold"], files["a"], "--html", page)
    assert page.read_text(encoding="utf-8").count(f"unreliable: {WHY}") == 1
    page = tmp_path / "c.html"
    run(capsys, "compare", files["gold"], files["a"], files["b"], "--html", page)
    html = page.read_text(encoding="utf-8")
    assert html.count(f"unreliable: {WHY}") == 3  # the paired interval and both runs'
