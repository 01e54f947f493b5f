"""Regression baselines read back from damaged JSON files: one short line naming the file and the field."""

from __future__ import annotations

import json
import re

import pytest

from ek.facade import evaluate
from ek.harness import load_baseline, regression_gate, save_baseline


@pytest.fixture
def saved(tmp_path):
    report = evaluate([("ab", "ab", "s"), ("ab", "b", "s")], metric="cer")
    save_baseline(report, "main", rootdir=tmp_path)
    return report, tmp_path / "baselines" / "documents.main.json"


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize("call", ["load_baseline", "regression_gate"])
def test_a_baseline_file_nested_100000_deep_is_one_line_naming_the_file(saved, tmp_path, call):
    report, path = saved
    path.write_text(
        json.dumps({"format": 2, "kind": "documents", "metric": "cer"})[:-1] + f', "aggregate": {_nested(100_000)}}}'
    )
    run = (
        (lambda: load_baseline("main", rootdir=tmp_path))
        if call == "load_baseline"
        else (lambda: regression_gate(report, "main", rootdir=tmp_path))
    )
    with pytest.raises(ValueError, match=r"nests JSON arrays or objects too deeply to be read") as caught:
        run()
    assert str(caught.value).startswith(f"{path} nests") and "\n" not in str(caught.value)


@pytest.mark.parametrize(
    "field, says",
    [
        ("metric", "has metric [[[["),
        ("aggregate", "non-numeric aggregate figure ([[[["),
        ("higher_is_better", "has higher_is_better=[[[["),
    ],
)
def test_a_deep_value_the_parser_reads_is_named_in_a_short_message(saved, tmp_path, field, says):
    # 900 levels parse; the message names the field and shows the start of the value, not all 1,800 brackets.
    report, path = saved
    record = json.loads(path.read_text())
    record[field] = "DEEP"
    path.write_text(json.dumps(record).replace('"DEEP"', _nested(900)))
    with pytest.raises(ValueError, match=rf"{path} is a damaged documents baseline: .*{re.escape(says)}") as caught:
        regression_gate(report, "main", rootdir=tmp_path)
    assert len(str(caught.value)) < 600
