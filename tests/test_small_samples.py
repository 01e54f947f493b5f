"""ek evaluate / ek compare on a handful of documents: no interval, no verdict the data cannot support.

Issue 20 item 14: on two documents ``ek compare`` said "significantly worse,
p=0.002", ``--fail-on-regression`` exited 1, and single-document intervals
had zero width. The statistics are tested in tests/test_bootstrap.py and
tests/test_bootstrap_simulation.py; this file checks what the commands show.
"""

from __future__ import annotations

import json
import math
import re

from ek.__main__ import main
from ek.cli._commands import _format as fmt


def write_jsonl(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return str(path)


def two_documents(tmp_path):
    gold = write_jsonl(
        tmp_path / "gold.jsonl",
        [{"id": "a", "gold": "the cat sat on the mat"}, {"id": "b", "gold": "a dog ran in the park"}],
    )
    good = write_jsonl(
        tmp_path / "good.jsonl",
        [{"id": "a", "prediction": "the cat sat on the mat"}, {"id": "b", "prediction": "a dog ran in the park"}],
    )
    bad = write_jsonl(
        tmp_path / "bad.jsonl",
        [{"id": "a", "prediction": "the cot sat on tho mat"}, {"id": "b", "prediction": "a dag ran in th park"}],
    )
    return gold, good, bad


def test_compare_on_two_documents_cannot_fail_the_regression_gate(tmp_path, capsys):
    gold, good, bad = two_documents(tmp_path)
    code = main(["compare", gold, good, bad, "--fail-on-regression"])
    out = capsys.readouterr()
    assert code == 0 and "FAIL" not in out.err
    row = next(line for line in out.out.splitlines() if line.startswith("all"))
    # B has 4 edits on 43 characters, A none; of the 4 ways to swap the two documents' outputs, two
    # give a difference as large: p = 0.5.
    assert re.search(r"\+0\.0930\s+needs 40\+ items\s+0\.500\s+too few items \(n=2\) to tell$", row), row
    assert "A = good.jsonl: 0.0000 needs 40+ items" in out.out


def test_compare_json_holds_no_interval_and_the_exact_p_value(tmp_path, capsys):
    gold, good, bad = two_documents(tmp_path)
    assert main(["compare", gold, good, bad, "--json", "-"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["interval"] == [{"$float": "NaN"}] * 2 and data["p_value"] == 0.5
    assert data["verdict"] == "too few items (n=2) to tell" and data["runs"]["a"]["interval"] == [{"$float": "NaN"}] * 2


def test_evaluate_on_two_documents_shows_that_more_are_needed(tmp_path, capsys):
    gold, _, bad = two_documents(tmp_path)
    assert main(["evaluate", gold, bad]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^all\s+2\s+0\.0930\s+needs 40\+ items$", out, re.MULTILINE), out
    assert "[0.0930, 0.0930]" not in out


def test_interval_cell_text():
    assert fmt.interval((math.nan, math.nan)) == "needs 40+ items"
    assert fmt.interval((math.nan, math.nan), n=3) == "needs more items (n=3)"
    assert fmt.interval((math.nan, math.nan), signed=True, n=12) == "needs more items (n=12)"
    assert fmt.interval((0.01, 0.02)) == "[0.0100, 0.0200]" and fmt.interval(None) == "-"
    assert fmt.interval((-0.01, 0.02), signed=True, n=50) == "[-0.0100, +0.0200]"
