"""The TypedDicts of the dict fields of `ek.CorpusEstimate`, `ek.AuditPlan`, `ek.Comparison` and the monitor's values.

Each names exactly the keys produced.
"""

from __future__ import annotations

import typing

import pytest

import ek
from ek._corpus_estimates._values import (
    AuditPlan,
    Classical,
    CorpusEstimate,
    Entry,
    EstimateDetail,
    NotedEntry,
    PlanDetail,
)
from ek.base import Comparison, SliceComparison

pytest.importorskip("numpy")


def _sliced_estimate() -> CorpusEstimate:
    # slice a: 4 audited items (an interval, noted "below 40"), b: 1 (no interval), c: none
    cases = [("ab", "ab", "a"), ("ax", "ab", "a"), ("ab", "ab", "b"), ("xb", "ab", "b"), ("ab", "ab", "c")] * 10
    proxy = ek.evaluate(cases, metric="cer", ids=list(range(len(cases))))
    audited = [0, 1, 5, 6, 2]
    audit = ek.evaluate([cases[k] for k in audited], metric="cer", ids=audited)
    return ek.estimate_corpus(proxy, audit)


def test_the_field_hints_name_the_typed_dicts():
    hints = typing.get_type_hints(CorpusEstimate)
    assert hints["classical"] is Classical
    assert typing.get_args(hints["per_slice"])[1] is NotedEntry


def test_classical_and_every_slice_hold_the_declared_keys():
    est = _sliced_estimate()
    assert set(est.classical) == Classical.__required_keys__ == {"estimate", "interval"}
    assert set(est.per_slice) == {"a", "b", "c"}
    for entry in est.per_slice.values():
        assert set(entry) - {"note"} == Entry.__required_keys__
        assert set(entry["classical"]) == Classical.__required_keys__
    assert NotedEntry.__optional_keys__ == {"note"}
    assert {label for label, entry in est.per_slice.items() if "note" in entry} == {"a", "b", "c"}


@pytest.mark.parametrize(("lam", "interval", "extra"), [(0.5, "clt", set()), ("tune", "clt", {"lam_folds", "df"})])
def test_the_detail_holds_the_declared_keys(lam, interval, extra):
    assert typing.get_type_hints(CorpusEstimate)["detail"] is EstimateDetail
    assert not EstimateDetail.__required_keys__
    cases = [(("ab", "ax", "xb", "ab")[k % 4], "ab") for k in range(400)]
    proxy = ek.evaluate(cases, metric="cer", ids=list(range(400)))
    audited = list(range(0, 400, 4)) + list(range(1, 400, 4))
    audit = ek.evaluate([cases[k] for k in audited], metric="cer", ids=audited)
    est = ek.estimate_corpus(proxy, audit, lam=lam, interval=interval)
    always = EstimateDetail.__optional_keys__ - {"lam_folds", "df", "note"}
    assert set(est.detail) - {"note"} == always | extra


def _sliced_proxy() -> ek.Report:
    n_items = 200
    slices = ["easy" if k % 4 else "hard" for k in range(n_items)]
    scores = [
        ek.Score(k % 3 / 10, detail={"edits": k % 3, "ref_len": 10, "uncertainty": k % 5 / 5}) for k in range(n_items)
    ]
    ids = tuple(f"d{k}" for k in range(n_items))
    return ek.merge_reports(
        ek.Report(metric="cer", n=n_items, scores=scores, detail={"ids": ids, "slices": tuple(slices)})
    )


@pytest.mark.parametrize(
    ("strategy", "keys"),
    [("uniform", set()), ("stratified", {"uncertainty", "allocation"}), ("active", {"uncertainty"})],
)
def test_a_plan_s_detail_holds_the_declared_keys(strategy, keys):
    assert typing.get_type_hints(AuditPlan)["detail"] is PlanDetail
    assert PlanDetail.__optional_keys__ == {"uncertainty", "allocation"} and not PlanDetail.__required_keys__
    plan = ek.plan_audit(_sliced_proxy(), 40, strategy=strategy, seed=1)
    assert set(plan.detail) == keys
    if "allocation" in keys:
        assert set(plan.detail["allocation"]) == {"easy", "hard"}
        assert isinstance(plan.detail["uncertainty"], str)
    assert AuditPlan(("a",), (0.5,)).detail == {}


def _keys(cls: type) -> tuple[frozenset[str], frozenset[str]]:
    return cls.__required_keys__, cls.__optional_keys__  # type: ignore[attr-defined]


def _has_keys(value: dict, cls: type) -> bool:
    required, optional = _keys(cls)
    return required <= set(value) <= required | optional


def test_a_monitor_s_summaries_and_report_hold_the_declared_keys():
    np = pytest.importorskip("numpy")
    from ek.qe import CostSensitiveGate, PlattCalibrator
    from ek.qe.monitor import Monitor, MonitorReport, WindowSummary
    from ek.qe.monitor import _values as v

    rng = np.random.default_rng(3)
    monitor = Monitor(
        PlattCalibrator(a=8.0, b=-4.0), CostSensitiveGate(rho=9.0), calibration_signals={"conf": rng.beta(5, 2, 500)}
    )
    first = [{"id": f"f{k}", "signals": {"conf": c}} for k, c in enumerate([0.95, 0.9, 0.3])]
    empty = monitor.update(first, time=0)  # no audit: a risk from the probabilities alone, no calibration
    items = [{"id": f"i{k}", "signals": {"conf": float(c)}} for k, c in enumerate(rng.beta(5, 2, 60))]
    full = monitor.update(items, audit={f"i{k}": bool(k % 5) for k in range(40)}, time=1)
    report = monitor.report()
    hints = typing.get_type_hints(WindowSummary)
    assert (hints["shares"], hints["risk"], hints["sequence"]) == (v.Shares, v.Risk, v.SequenceState)
    assert typing.get_type_hints(MonitorReport)["settings"] is v.Settings
    for summary in (empty, full, *report.windows):
        assert _has_keys(summary.shares, v.Shares) and _has_keys(summary.risk, v.Risk)
        assert _has_keys(summary.calibration, v.Calibration) and _has_keys(summary.sequence, v.SequenceState)
        assert all(_has_keys(d, v.Drift) for d in summary.drift.values())
    assert set(full.risk) == v.Risk.__required_keys__ | {"std_error", "audit_only"}  # prediction-powered
    assert set(empty.risk) == v.RiskFigures.__required_keys__
    assert set(report.cumulative) == v.Cumulative.__required_keys__ and _has_keys(report.cumulative["risk"], v.Risk)
    assert set(report.settings) == v.Settings.__required_keys__
    assert set(report.sequence) == v.SequenceState.__required_keys__


def _sliced_cases(n_items: int) -> tuple[list[tuple[str, str, str]], list[tuple[str, str, str]]]:
    """Engine A's and B's (prediction, gold, slice) on the same items: A misreads every third item of slice x."""
    cases = [(f"{k % 10}ab", "x" if k % 2 else "y") for k in range(n_items)]
    engine_a = [("#" + g[1:] if s == "x" and k % 3 == 0 else g, g, s) for k, (g, s) in enumerate(cases)]
    return engine_a, [(g, g, s) for g, s in cases]


def test_the_comparison_field_hints_name_the_typed_dict():
    hints = typing.get_type_hints(Comparison)
    assert typing.get_args(hints["per_slice"])[1] is SliceComparison
    assert SliceComparison.__required_keys__ == {
        "a", "b", "delta", "interval", "p_value", "verdict", "reliable", "why", "n"
    }  # fmt: skip
    assert not SliceComparison.__optional_keys__


@pytest.mark.parametrize("n_items", [12, 120])  # the permutation test's rows, and the bootstrap's
def test_every_slice_of_a_report_comparison_holds_the_declared_keys(n_items):
    engine_a, engine_b = _sliced_cases(n_items)
    ids = list(range(n_items))
    result = ek.compare(ek.evaluate(engine_a, metric="cer", ids=ids), ek.evaluate(engine_b, metric="cer", ids=ids))
    assert set(result.per_slice) == {"x", "y"}
    for label, row in result.per_slice.items():
        assert set(row) == SliceComparison.__required_keys__, label
        assert row["n"] == n_items // 2
    assert result.per_slice["y"]["delta"] == 0.0 and result.per_slice["x"]["delta"] < 0


def test_every_slice_of_an_estimate_comparison_holds_the_declared_keys():
    engines = _sliced_cases(200)
    ids, audited = list(range(200)), list(range(0, 200, 4)) + list(range(1, 200, 4))  # 50 audited a slice
    estimates = [
        ek.estimate_corpus(
            ek.evaluate(cases, metric="cer", ids=ids),
            ek.evaluate([cases[k] for k in audited], metric="cer", ids=audited),
            lam=1.0,
        )
        for cases in engines
    ]
    result = ek.compare_estimates(*estimates)
    assert isinstance(result, Comparison) and result.n == 100
    assert set(result.per_slice) == {"x", "y"}
    for label, row in result.per_slice.items():
        assert set(row) == SliceComparison.__required_keys__, label
        assert row["n"] == 50 and row["reliable"] is True and row["why"] is None


def test_the_inner_calls_return_the_public_values():
    """`ek._corpus_estimates`' workers build the public values themselves: no dict is unpacked into one."""
    import ast
    import pathlib

    from ek._corpus_estimates import _compare, _corpus, _plan

    assert typing.get_type_hints(_corpus.estimate_corpus)["return"] is CorpusEstimate
    assert typing.get_type_hints(_compare.compare)["return"] is Comparison
    assert typing.get_type_hints(_plan.plan)["return"] is AuditPlan
    values = {"CorpusEstimate", "Comparison", "AuditPlan"}
    unpacked = []
    for path in sorted(pathlib.Path(_corpus.__file__).parent.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in values:
                unpacked += [f"{path.name}:{node.lineno}" for k in node.keywords if k.arg is None]
    assert not unpacked


def test_a_reliability_report_s_tasks_hold_the_declared_keys():
    from ek.agents import reliability
    from ek.agents._reliability import ReliabilityReport, TaskFigures

    hints = typing.get_type_hints(ReliabilityReport)
    assert typing.get_args(hints["per_task"])[1] is TaskFigures
    assert hints["success_ci"] == hints["pass_hat_k_ci"] == tuple[float, float]
    with pytest.warns(UserWarning, match="fewer than k=2 trials"):
        report = reliability({"t1": [True, True, False], "t2": [True]}, k=2)
    assert set(report.per_task) == {"t1", "t2"}
    assert all(set(row) == TaskFigures.__required_keys__ for row in report.per_task.values())
    assert report.per_task["t2"] == {"n": 1, "successes": 1, "pass_at_k": None, "pass_hat_k": None}
    assert report.per_task["t1"]["pass_hat_k"] == pytest.approx(1 / 3)  # C(2,2) / C(3,2)
    assert len(report.success_ci) == len(report.pass_hat_k_ci) == 2


def test_a_monitor_s_json_holds_the_declared_keys():
    np = pytest.importorskip("numpy")
    import json

    from ek.qe import CostSensitiveGate, PlattCalibrator
    from ek.qe.monitor import Alarm, AlarmRecord, Monitor, MonitorRecord, MonitorReport, WindowRecord, WindowSummary

    cal = PlattCalibrator(a=8.0, b=-4.0)
    monitor = Monitor(cal, CostSensitiveGate(rho=9.0), calibration_signals={"conf": [0.2, 0.5, 0.7, 0.9]}, promise=0.02)
    rng = np.random.default_rng(4)
    for w in range(12):  # wrong far more often than promised: both alarms fire
        s = rng.beta(5, 2, 200)
        y = rng.random(200) < cal(s) - 0.2
        items = [{"id": f"w{w}-{k}", "signals": {"conf": float(v)}} for k, v in enumerate(s)]
        monitor.update(items, audit={f"w{w}-{k}": bool(y[k]) for k in range(100)}, time=f"2026-12-{w + 1:02d}")
    report = monitor.report()
    assert {a.kind for a in report.alarms} == {"risk", "calibration"}
    assert typing.get_type_hints(Alarm.to_dict)["return"] is AlarmRecord
    assert typing.get_type_hints(WindowSummary.to_dict)["return"] is WindowRecord
    assert typing.get_type_hints(MonitorReport.to_dict)["return"] is MonitorRecord
    data = report.to_dict()
    assert set(data) == MonitorRecord.__required_keys__
    assert all(set(w) == WindowRecord.__required_keys__ for w in data["windows"])
    alarms = data["alarms"] + [a for w in data["windows"] for a in w["alarms"]]
    assert len(alarms) >= 4 and all(set(a) == AlarmRecord.__required_keys__ for a in alarms)
    first = report.alarms[0]
    assert first.to_dict() == {**vars(first), "bound": list(first.bound)}  # the fields, the band as a list
    assert data["windows"][3]["time"] == "2026-12-04" and json.loads(json.dumps(data))["notes"] == data["notes"]


def test_a_baseline_and_a_gate_s_regressions_hold_the_declared_keys(tmp_path):
    from ek.harness import BaselineRecord, GateResult, Regression, load_baseline, regression_gate, save_baseline

    cases = [("ab", "ab", "x"), ("ab", "ab", "y")]
    saved = save_baseline(ek.evaluate(cases, metric="cer"), "base", rootdir=tmp_path)
    assert set(saved) == BaselineRecord.__optional_keys__ and not BaselineRecord.__required_keys__
    assert load_baseline("base", rootdir=tmp_path) == saved and saved["per_slice"] == {"x": 0.0, "y": 0.0}
    assert typing.get_args(typing.get_type_hints(GateResult)["regressions"])[0] is Regression
    worse = ek.evaluate([("ab", "ab", "x"), ("xb", "ab", "y")], metric="cer")
    gate = regression_gate(worse, "base", rootdir=tmp_path)
    assert [set(r) for r in gate.regressions] == [Regression.__required_keys__] * 2
    assert gate.regressions[1] == {"slice": "y", "baseline": 0.0, "current": 0.5, "delta": 0.5}
