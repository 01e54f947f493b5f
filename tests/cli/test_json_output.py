"""The JSON the commands print and write (``--json``): strict, with ek's one convention for NaN and infinity.

Run in a real subprocess, as a user's script would read it: a non-finite
number is ``{"$float": ...}`` on standard output and in a saved file alike,
and `ek._json.loads` reads it back as the float.
"""

import json
import math
import os
import subprocess
import sys

import pytest

from ek import _json


def run(*args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "ek", *args], capture_output=True, text=True, cwd=cwd, env=dict(os.environ), timeout=600
    )


def strict(text):
    return json.loads(text, parse_constant=lambda c: pytest.fail(f"bare {c} is not JSON"))


def test_infinity_on_standard_output_reads_back(tmp_path):
    out = run("cost-per-success", "12.5", "0", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert strict(out.stdout)["cost_per_success"] == {"$float": "Infinity"}
    assert _json.loads(out.stdout)["cost_per_success"] == math.inf


@pytest.mark.parametrize("target", ["-", "report.json"])
def test_a_nan_interval_reads_back_from_stdout_and_from_the_file(tmp_path, target):
    # One item has no interval: the report says NaN, not null (which would mean "not computed").
    (tmp_path / "gold.jsonl").write_text('{"id": "a", "text": "cat"}\n')
    (tmp_path / "pred.jsonl").write_text('{"id": "a", "text": "cut"}\n')
    out = run("evaluate", "gold.jsonl", "pred.jsonl", "--json", target, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    text = out.stdout if target == "-" else (tmp_path / target).read_text(encoding="utf-8")
    assert strict(text)["interval"] == [{"$float": "NaN"}, {"$float": "NaN"}]
    report = _json.loads(text)
    assert all(math.isnan(bound) for bound in report["interval"]) and report["aggregate"] == pytest.approx(1 / 3)
