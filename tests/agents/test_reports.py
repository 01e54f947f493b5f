"""Agent figures as ek.Report s (ek.agents._reports): the engine of ek.evaluate, over tasks.

Success rate, cost per success and each run_suite metric come with a Report whose items are the tasks,
so Report.interval, ek.compare and ek.merge_reports work on them; the ReliabilityReport fields stay.
"""

import math
import random
import warnings

import pytest

import ek
from ek.agents import (
    Cost,
    CostPerSuccessMetric,
    Episode,
    Step,
    TaskSpec,
    ToolCallMetric,
    per_million,
    reliability,
    wilson_interval,
)
from ek.agents.harness import run_suite

PRICE = per_million(1.0, 5.0)


def outcomes(n_tasks, p, k=1, seed=0, prefix="t"):
    rng = random.Random(seed)
    return {f"{prefix}{i:03d}": [rng.random() < p for _ in range(k)] for i in range(n_tasks)}


def quiet_reliability(source, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return reliability(source, **kw)


def agent(skill):
    """Deterministic in (task, seed): succeeds with chance ``skill``, calls a tool, spends tokens."""

    def run(task, *, seed=None):
        rng = random.Random(f"{task.task_id}:{seed}:{skill}")
        ok = rng.random() < skill
        call = Step("search", {"q": task.input if rng.random() < skill else "?"})
        return Episode(
            output="ok" if ok else "no",
            trajectory=[call],
            cost=Cost(input_tokens=rng.randint(500, 1500), output_tokens=rng.randint(50, 150)),
        )

    return run


def suite(n, start=0):
    return [
        TaskSpec(f"t{i:03d}", input=f"q{i}", gold=[("search", {"q": f"q{i}"})], slice="ab"[i % 2])
        for i in range(start, start + n)
    ]


def run(skill, tasks, k=2):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return run_suite(
            agent(skill),
            tasks,
            k=k,
            seed=3,
            price=PRICE,
            check=lambda ep, gold: ep.output == "ok",
            metrics={"tool_call": ToolCallMetric()},
        )


# --- the success rate --------------------------------------------------------------------------


def test_the_success_report_holds_the_reliability_figures_over_tasks():
    source = outcomes(60, 0.6, k=3)
    slices = {t: "ab"[i % 2] for i, t in enumerate(source)}
    r = quiet_reliability(source, k=2, slices=slices)
    report = r.detail["reports"]["success_rate"]
    assert isinstance(report, ek.Report) and report.metric == "task_success"
    assert report.aggregate == r.success_rate and report.n == r.n_tasks == 60
    assert report.detail["ids"] == tuple(source) and report.detail["higher_is_better"] is True
    assert report.per_slice == {label: row["success_rate"] for label, row in r.per_slice.items()}
    assert report.scores[0].detail == {"successes": sum(source["t000"]), "n": 3}


def test_the_success_interval_agrees_with_wilson_at_one_trial_per_task():
    """Both estimate the same proportion; at k=1 the task bootstrap is the binomial bootstrap."""
    for p in (0.3, 0.8):
        r = quiet_reliability(outcomes(400, p, seed=int(p * 10)))
        low, high = r.detail["reports"]["success_rate"].interval()
        w_low, w_high = wilson_interval(r.n_success, r.n_trials)
        assert w_low == r.success_ci[0] and w_high == r.success_ci[1]
        # 95% ends of a proportion near 0.3 or 0.8 over 400 units: SE about 0.02; the bootstrap's Monte
        # Carlo error at 1,000 replicates is about 0.003, and Wilson's skew about as much.
        assert low == pytest.approx(w_low, abs=0.008) and high == pytest.approx(w_high, abs=0.008)


def test_trials_of_a_task_are_resampled_together():
    """Copies of a task's outcome are not new evidence: k identical trials give the k=1 interval exactly."""
    once = outcomes(80, 0.5, k=1)
    thrice = {t: v * 3 for t, v in once.items()}
    a = quiet_reliability(once)
    b = quiet_reliability(thrice, k=3)
    # The bootstrap-t's standard errors of 3x-scaled sums round differently in the last bit, hence approx.
    assert b.detail["reports"]["success_rate"].interval() == pytest.approx(
        a.detail["reports"]["success_rate"].interval(), rel=1e-12
    )
    assert b.success_ci[1] - b.success_ci[0] < a.success_ci[1] - a.success_ci[0]  # Wilson counts trials


def test_merging_success_reports_of_two_halves_gives_the_whole():
    source = outcomes(90, 0.55, k=2, seed=4)
    slices = {t: "xyz"[i % 3] for i, t in enumerate(source)}
    tasks = list(source)
    halves = [quiet_reliability({t: source[t] for t in part}, k=2, slices=slices) for part in (tasks[:37], tasks[37:])]
    whole = quiet_reliability(source, k=2, slices=slices).detail["reports"]["success_rate"]
    merged = ek.merge_reports(*(h.detail["reports"]["success_rate"] for h in halves))
    assert merged == whole
    assert merged.interval() == whole.interval() and merged.interval(slice="y") == whole.interval(slice="y")


def test_two_agents_compare_paired_by_task():
    weak, strong = (quiet_reliability(outcomes(100, p, k=1, seed=s)) for p, s in ((0.4, 1), (0.9, 2)))
    c = ek.compare(weak.detail["reports"]["success_rate"], strong.detail["reports"]["success_rate"])
    assert c.delta == pytest.approx(strong.success_rate - weak.success_rate)
    assert c.verdict == "better" and c.higher_is_better is True and c.n == 100
    same = ek.compare(weak.detail["reports"]["success_rate"], weak.detail["reports"]["success_rate"])
    assert same.delta == 0 and same.verdict == "no detectable difference"


# --- run_suite: cost per success and the metrics -------------------------------------------------


def test_a_priced_suite_reports_cost_per_success_over_tasks():
    r = run(0.6, suite(60))
    report = r.detail["reports"]["cost_per_success"]
    assert report.metric == "cost_per_success" and report.n == 60 and report.detail["higher_is_better"] is False
    assert report.aggregate == pytest.approx(r.cost["cost_per_success"], rel=1e-12)
    assert report.per_slice == pytest.approx({k: v["cost_per_success"] for k, v in r.per_slice.items()}, rel=1e-12)
    # The report's Poisson bootstrap (1,000 replicates) and the ratio bootstrap of cost_per_success_ci
    # (2,000 draws) resample the same tasks by different draws: on this skewed ratio over 60 tasks their
    # ends differ by the Monte Carlo error of a 2.5% quantile, 8% of the width here.
    low, high = report.interval()
    c_low, c_high = r.cost["cost_per_success_ci"]
    width = c_high - c_low
    assert low == pytest.approx(c_low, abs=0.12 * width) and high == pytest.approx(c_high, abs=0.12 * width)


def test_an_unpriced_suite_has_no_cost_report():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = run_suite(agent(0.5), suite(4), check=lambda ep, gold: ep.output == "ok")
    assert set(r.detail["reports"]) == {"success_rate"}


def test_suite_reports_of_two_halves_merge_into_the_whole_suite():
    whole, first, second = run(0.7, suite(50)), run(0.7, suite(21)), run(0.7, suite(29, start=21))
    for key, metric in (("success_rate", None), ("cost_per_success", CostPerSuccessMetric(price=PRICE))):
        merged = ek.merge_reports(first.detail["reports"][key], second.detail["reports"][key], metric=metric)
        assert merged.aggregate == pytest.approx(whole.detail["reports"][key].aggregate, rel=1e-12)
        assert merged.detail["ids"] == whole.detail["reports"][key].detail["ids"]
        assert merged.interval() == pytest.approx(whole.detail["reports"][key].interval(), rel=1e-12)
    parts = [r.detail["metrics"]["tool_call"]["report"] for r in (first, second)]
    merged = ek.merge_reports(*parts)  # "tool_call" is a registered name
    assert merged == whole.detail["metrics"]["tool_call"]["report"]
    assert merged.interval() == whole.detail["metrics"]["tool_call"]["report"].interval()


def test_the_tool_call_report_is_micro_f1_over_every_trial():
    r = run(0.6, suite(45), k=3)
    m = r.detail["metrics"]["tool_call"]
    report = m["report"]
    assert report.n == 45 and m["n"] == 135  # tasks are the items; 135 trials were scored
    assert m["aggregate"] == report.aggregate and m["per_slice"] == report.per_slice
    tp = sum(s.detail["tp"] for s in report.scores)
    fp = sum(s.detail["fp"] for s in report.scores)
    fn = sum(s.detail["fn"] for s in report.scores)
    assert report.aggregate == pytest.approx(2 * tp / (2 * tp + fp + fn))
    low, high = report.interval()
    assert low < report.aggregate < high


def test_two_suites_compare_on_every_figure():
    a, b = run(0.35, suite(80)), run(0.9, suite(80))
    for key in ("success_rate", "cost_per_success"):
        c = ek.compare(a.detail["reports"][key], b.detail["reports"][key])
        assert c.verdict == "better", key  # B succeeds more, and so pays less per success
    c = ek.compare(a.detail["metrics"]["tool_call"]["report"], b.detail["metrics"]["tool_call"]["report"])
    assert c.verdict == "better" and c.delta > 0


def test_a_plain_function_metric_is_the_mean_of_its_trials():
    def half(episode, gold, *, grammar=None):
        return 0.5 if episode.task_id.endswith(("1", "3")) else 1.0

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = run_suite(agent(0.5), suite(10), k=2, check=lambda ep, gold: True, metrics={"half": half})
    m = r.detail["metrics"]["half"]
    assert m["aggregate"] == (2 * 0.5 * 2 + 8 * 1.0 * 2) / 20 and m["report"].n == 10
    assert m["report"].detail["aggregation"] == "mean"
    assert m["report"].scores[1].detail == {"value": 1.0, "n": 2}


def test_a_custom_aggregate_keeps_trials_as_items_and_has_no_interval():
    lowest = ek.metric(
        lambda ep, gold: float(ep.output == "ok"), aggregate=lambda scores: min(s.value for s in scores), name="lowest"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = run_suite(agent(0.5), suite(6), k=2, check=lambda ep, gold: True, metrics={"lowest": lowest})
    report = r.detail["metrics"]["lowest"]["report"]
    assert report.aggregate == 0.0 and report.n == 12 and report.detail["ids"][:2] == (("t000", 0), ("t000", 1))
    with pytest.raises(ValueError, match="aggregates with a custom function"):
        report.interval()


def test_a_metric_that_scored_nothing_has_an_empty_report():
    def never(episode, gold, *, grammar=None):
        raise RuntimeError("down")

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = run_suite(agent(0.5), suite(3), check=lambda ep, gold: True, metrics={"never": never})
    m = r.detail["metrics"]["never"]
    assert (m["aggregate"], m["n"], m["errors"], m["per_slice"]) == (None, 0, 3, {})
    assert m["report"].n == 0 and m["report"].aggregate is None
    assert math.isnan(r.detail["reports"]["success_rate"].aggregate) is False
