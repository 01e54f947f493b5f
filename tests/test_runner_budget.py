"""The runners stay small (issue 32, item 9), and the run engine scores with the `Scorer` its caller gives."""

from __future__ import annotations

import ast
import importlib.util
import pathlib

import pytest

from ek._runs import RunOptions, Scorer, ScoringTask, gold_items, run_scored
from ek.base import Report, Score
from ek.facade import evaluate, merge_reports

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _script():
    spec = importlib.util.spec_from_file_location("runner_lines", ROOT / "scripts" / "runner_lines.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_code_lines_leave_out_docstrings_comments_and_blank_lines():
    text = 'def f(a,\n      b):\n    """Doc.\n\n    More."""\n    # why\n\n    x = (a +\n         b)\n    return x\n'
    node = ast.parse(text).body[0]
    assert _script().code_lines(text, node) == 5  # the two signature lines, the two of x, the return


@pytest.mark.parametrize("module, name", _script().RUNNERS)
def test_each_runner_is_at_most_60_code_lines_with_its_own_helpers(module, name):
    lines, _ = _script().runner_lines(ROOT / "src" / module, name)
    assert lines <= 60, f"{name} has {lines} code lines"


def test_a_scored_run_scores_with_the_scorer_it_is_given():
    calls = []

    def counting(cases, **options):
        calls.append(len(cases))
        return evaluate(cases, **options)

    gold = {"a": {"input": "cat", "reference": "cat"}, "b": {"input": "dgo", "reference": "dog"}}
    items = gold_items(gold, (("input", "input_key"), ("reference", "reference_key"), "slice"), "t", fingerprints=False)
    task = ScoringTask(str.lower, "cer", {}, "t", scorer=Scorer(counting, merge_reports))
    report = run_scored("documents", task, items, RunOptions())
    assert calls == [2]  # one chunk of both items
    assert report.aggregate == pytest.approx(2 / 6)  # 'dgo' -> 'dog': 2 edits; 6 reference characters in all


def test_a_scorer_is_what_merges_the_report():
    def merge(report, *, metric):
        return Report(metric="merged", aggregate=0.5, n=report.n, scores=report.scores, detail=dict(report.detail))

    gold = {"a": {"input": "cat", "reference": "cat"}}
    items = gold_items(gold, (("input", "input_key"), ("reference", "reference_key"), "slice"), "t", fingerprints=False)
    task = ScoringTask(str.lower, "cer", {}, "t", scorer=Scorer(evaluate, merge))
    report = run_scored("documents", task, items, RunOptions())
    assert (report.metric, report.aggregate) == ("merged", 0.5)
    assert isinstance(report.detail["per_item"]["a"]["score"], float) and isinstance(report.scores[0], Score)
