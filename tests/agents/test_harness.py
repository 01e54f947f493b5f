"""ek.agents.harness (with _suite and _runner): run_suite, persistence and resume, baselines, the gate."""

import asyncio
import io
import itertools
import json
import math
import random
import sys
import threading
import time
import warnings
from concurrent.futures import ThreadPoolExecutor

import pytest

from ek.agents import (
    Cost,
    Episode,
    ReliabilityReport,
    RunProvenance,
    TaskSpec,
    ToolCallMetric,
    ToolSpec,
    UnknownModelPrice,
    as_agent,
    per_million,
    reliability,
)
from ek.agents._suite import summary as _summary
from ek.agents.harness import (
    AgentGateResult,
    agent_regression_gate,
    load_agent_baseline,
    run_suite,
    save_agent_baseline,
)
from ek.stores import json_store

PRICE = per_million(1.0, 5.0)


def tasks(n=12, slices=("easy", "hard")):
    return [TaskSpec(f"t{i:02d}", input=i, gold=f"a{i}", slice=slices[i % len(slices)]) for i in range(n)]


def flaky(task, *, seed=None):
    """Deterministic in (task, seed): fails ~30% of trials, raises on ~5%, spends tokens."""
    rng = random.Random(f"{task.task_id}:{seed}")
    if rng.random() < 0.05:
        raise RuntimeError("tool backend unavailable")
    out = task.gold if rng.random() < 0.7 else "wrong"
    return Episode(output=out, cost=Cost(input_tokens=rng.randint(500, 1500), output_tokens=rng.randint(50, 150)))


# ---------------------------------------------------------------- basics


def test_doc_example_and_quickstart():
    def agent(task):
        return Episode(output={"2+2": "4", "3+3": "7"}[task.input], cost=Cost(input_tokens=10))

    r = run_suite(agent, [TaskSpec("t1", input="2+2", gold="4"), TaskSpec("t2", input="3+3", gold="6")])
    assert (r.success_rate, r.pass_hat_k, r.n_trials) == (0.5, 0.5, 2)
    assert run_suite(as_agent(str.upper), {"a": TaskSpec("a", input="hi", gold="HI")}).success_rate == 1.0


def test_report_figures_match_reliability_and_cost_by_hand():
    r = run_suite(flaky, tasks(), k=4, seed=0, price=PRICE)
    outcomes, spent, wins = {}, 0.0, 0
    for t in tasks():
        row = []
        for i in range(4):
            try:
                ep = flaky(t, seed=i)
            except RuntimeError:
                row.append(False)
                continue
            ok = ep.output == t.gold
            row.append(ok)
            spent += ep.cost.input_tokens * 1e-6 + ep.cost.output_tokens * 5e-6
            wins += ok
        outcomes[t.task_id] = row
    ref = reliability(outcomes, k=4, slices={t.task_id: t.slice for t in tasks()})
    assert (r.pass_at_k, r.pass_hat_k, r.success_rate, r.success_ci, r.pass_hat_k_ci) == (
        ref.pass_at_k,
        ref.pass_hat_k,
        ref.success_rate,
        ref.success_ci,
        ref.pass_hat_k_ci,
    )
    assert r.cost["total_dollars"] == pytest.approx(spent)
    assert r.cost["cost_per_success"] == pytest.approx(spent / wins)
    lo, hi = r.cost["cost_per_success_ci"]
    assert lo < spent / wins < hi
    assert set(r.per_slice) == {"easy", "hard"} and "cost_per_success" in r.per_slice["easy"]
    assert r.cost["value_delivered"] == wins


def test_a_raising_trial_is_a_failed_episode_carrying_its_error_and_cost():
    class Broke(RuntimeError):
        cost = Cost(input_tokens=10**6)

    def agent(task):
        if task.task_id == "t01":
            raise Broke("the planner crashed")
        return task.gold

    r = run_suite(agent, tasks(3), price=PRICE)
    assert r.n_trials == 3 and r.n_success == 2
    assert r.detail["errors"] == [{"task_id": "t01", "trial": 0, "error": "Broke: the planner crashed"}]
    assert r.cost["total_dollars"] == pytest.approx(1.0)  # the failed attempt is paid for
    assert r.cost["n"] == 3


def test_a_raising_checker_fails_the_trial_loudly():
    def check(ep, gold):
        raise KeyError("db")

    r = run_suite(lambda t: t.gold, tasks(2), check=check)
    assert r.n_success == 0 and r.detail["errors"][0]["error"].startswith("check failed: KeyError")


@pytest.mark.filterwarnings("ignore:no task had mixed outcomes")
def test_seeds_reach_the_agent_and_the_episode():
    seen, graded = [], []

    def agent(task, seed):
        seen.append((task.task_id, seed))
        return task.gold

    def check(ep, gold):
        graded.append((ep.task_id, ep.run.seed, ep.run.simulator))
        return True

    run = RunProvenance(model="m", simulator="sim-v2")
    run_suite(agent, tasks(2), k=3, seed=100, check=check, run=run)
    assert sorted(seen) == [(t, s) for t in ("t00", "t01") for s in (100, 101, 102)]
    assert sorted(graded) == [(t, s, "sim-v2") for t in ("t00", "t01") for s in (100, 101, 102)]


def test_report_is_identical_whatever_the_completion_order():
    def jittery(task, *, seed=None):
        time.sleep(random.random() * 0.004)  # completion order differs run to run
        return flaky(task, seed=seed)

    async def ajittery(task, *, seed=None):
        await asyncio.sleep(random.random() * 0.004)
        return flaky(task, seed=seed)

    base = run_suite(flaky, tasks(), k=4, seed=7, price=PRICE)
    assert run_suite(jittery, tasks(), k=4, seed=7, price=PRICE, max_workers=8) == base
    assert run_suite(ajittery, tasks(), k=4, seed=7, price=PRICE, max_workers=16) == base
    assert run_suite(ajittery, tasks(), k=4, seed=7, price=PRICE) == base


def test_trials_run_concurrently_up_to_the_limit():
    state = {"now": 0, "peak": 0}
    lock = threading.Lock()

    def enter():
        with lock:
            state["now"] += 1
            state["peak"] = max(state["peak"], state["now"])

    def leave():
        with lock:
            state["now"] -= 1

    async def async_agent(task):
        enter()
        await asyncio.sleep(0.05)
        leave()
        return task.gold

    def sync_agent(task):
        enter()
        time.sleep(0.05)
        leave()
        return task.gold

    for agent, limit in ((async_agent, 7), (sync_agent, 5)):
        state["peak"] = 0
        assert run_suite(agent, tasks(30), max_workers=limit).success_rate == 1.0
        assert state["peak"] == limit
    state["peak"] = 0
    run_suite(async_agent, tasks(10))
    assert state["peak"] == 1  # the default runs one trial at a time


def test_run_suite_inside_a_running_event_loop():
    async def agent(task):
        return task.gold

    async def main():
        return run_suite(agent, tasks(3))

    assert asyncio.run(main()).success_rate == 1.0


def test_system_exit_in_a_worker_thread_stops_the_suite():
    def agent(task):
        if task.task_id == "t02":
            raise SystemExit(3)
        return task.gold

    with pytest.raises(SystemExit):
        run_suite(agent, tasks(6), max_workers=3)


def test_timeouts_fail_the_trial_not_the_suite():
    def sync_slow(task):
        if task.task_id == "t01":
            time.sleep(2)
        return task.gold

    async def async_slow(task):
        if task.task_id == "t01":
            await asyncio.sleep(2)
        return task.gold

    for agent in (sync_slow, async_slow):
        r = run_suite(agent, tasks(4), timeout=0.2, max_workers=2)
        assert r.n_success == 3
        [err] = r.detail["errors"]
        assert err["task_id"] == "t01" and "did not finish within timeout=0.2 s" in err["error"]


def test_metrics_get_the_suite_grammar():
    refund = ToolSpec("refund", destructive=True)
    suite = [TaskSpec("t", input=None, gold=[("refund", {})], tools=[refund])]
    r = run_suite(
        lambda t: Episode(output=None), suite, metrics={"tool_call": ToolCallMetric()}, check=lambda e, g: False
    )
    m = r.detail["metrics"]["tool_call"]
    assert m["aggregate"] == 0.0 and m["n"] == 1 and m["errors"] == 0
    # the missed destructive call weighed 10, which only the injected grammar knows
    assert ToolCallMetric()(Episode(), suite[0].gold, grammar=suite[0].grammar()).detail["fn"] == 10.0


def test_unknown_model_stops_the_run_early():
    calls = []

    def agent(task):
        calls.append(task)
        return Episode(output=task.gold, cost=Cost(input_tokens=5), run=RunProvenance(model="gpt-x"))

    with pytest.raises(UnknownModelPrice, match="'gpt-x' is not in the price catalog"):
        run_suite(agent, tasks(5), prices={"gpt-4o": PRICE})
    assert len(calls) == 1


def test_progress_only_on_a_terminal(capsys, monkeypatch):
    run_suite(lambda t: t.gold, tasks(3))
    assert capsys.readouterr().err == ""

    class Tty(io.StringIO):
        def isatty(self):
            return True

    fake = Tty()
    monkeypatch.setattr(sys, "stderr", fake)
    run_suite(lambda t: t.gold, tasks(3))
    assert "run_suite |" in fake.getvalue() and "3/3 trials" in fake.getvalue()


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"k": 0}, r"k=0: k is the number of trials per task"),
        ({"max_workers": 0}, r"run_suite\(\) max_workers must be a whole number >= 1"),
        ({"timeout": -1}, "timeout"),
        ({"run_id": "a/b"}, r"run_suite\(\) run_id must be a non-empty str"),
    ],
)
def test_bad_settings(kwargs, match):
    with pytest.raises(ValueError, match=match):
        run_suite(lambda t: t.gold, tasks(2), **kwargs)


def test_bad_task_lists():
    with pytest.raises(ValueError, match="got no tasks"):
        run_suite(lambda t: t, [])
    with pytest.raises(ValueError, match="appears twice"):
        run_suite(lambda t: t, [TaskSpec("a"), TaskSpec("a")])
    with pytest.raises(TypeError, match="wrap it as TaskSpec"):
        run_suite(lambda t: t, ["a"])


# ---------------------------------------------------------------- persistence and resume


def _stored(root, run_id):
    """Every stored trial record of an agent run, by (task_id, trial)."""
    results = json_store("results", rootdir=root)
    chunks = [results[k] for k in results if k.startswith(f"agents.{run_id}.")]
    return {tuple(item["key"]["$tuple"]): item for c in chunks for item in c["items"].values()}


def test_persist_stores_each_trial_and_resumes(tmp_path):
    calls = []

    def agent(task, *, seed=None):
        calls.append((task.task_id, seed))
        if len(calls) == 10 and not resumed:
            raise KeyboardInterrupt
        return flaky(task, seed=seed)

    resumed = False
    with pytest.raises(KeyboardInterrupt):
        run_suite(agent, tasks(), k=4, seed=0, price=PRICE, persist=True, run_id="r1", rootdir=tmp_path)
    assert len(_stored(tmp_path, "r1")) == 9  # the finished trials were written as the run stopped
    assert json_store("runs", rootdir=tmp_path)["agents.r1"]["status"] == "running"
    resumed, calls[:] = True, []
    report = run_suite(agent, tasks(), k=4, seed=0, price=PRICE, persist=True, run_id="r1", rootdir=tmp_path)
    assert len(calls) == 48 - 9
    fresh = run_suite(flaky, tasks(), k=4, seed=0, price=PRICE, persist=True, run_id="r1", rootdir=tmp_path / "other")
    assert report == fresh
    assert report.detail["run_id"] == "r1"
    header = json_store("runs", rootdir=tmp_path)["agents.r1"]
    assert (header["kind"], header["status"]) == ("agents", "complete")
    assert header["summary"]["n_trials"] == 48
    stored = _stored(tmp_path, "r1")[("t00", 0)]
    assert stored["episode"]["task_id"] == "t00" and "wall_s" in stored
    calls[:] = []
    assert run_suite(agent, tasks(), k=4, seed=0, price=PRICE, persist=True, run_id="r1", rootdir=tmp_path) == report
    assert calls == []  # a finished run costs nothing to re-read


@pytest.mark.filterwarnings("ignore:no task had mixed outcomes")
def test_resume_refuses_changed_settings(tmp_path):
    run_suite(lambda t: t.gold, tasks(3), k=2, persist=True, run_id="r", rootdir=tmp_path)
    with pytest.raises(ValueError, match=r"run_id 'r' was started with k=2, but this call has k=3"):
        run_suite(lambda t: t.gold, tasks(3), k=3, persist=True, run_id="r", rootdir=tmp_path)
    with pytest.raises(ValueError, match="task_ids"):
        run_suite(lambda t: t.gold, tasks(4), k=2, persist=True, run_id="r", rootdir=tmp_path)


def test_unusable_run_id_is_refused_before_any_trial(tmp_path):
    calls = []
    with pytest.raises(ValueError, match="cannot name a stored run"):
        run_suite(lambda t: calls.append(t), tasks(2), persist=True, run_id="../escape", rootdir=tmp_path)
    assert calls == []


def test_persist_without_run_id_generates_one(tmp_path):
    r = run_suite(lambda t: t.gold, tasks(2), persist=True, rootdir=tmp_path)
    assert r.detail["run_id"].startswith("run-")
    assert f"agents.{r.detail['run_id']}" in json_store("runs", rootdir=tmp_path)


# ---------------------------------------------------------------- baselines and the gate


def sim_report(ps, k, rng, **run):
    outcomes = {f"t{i}": [rng.random() < p for _ in range(k)] for i, p in enumerate(ps)}
    r = reliability(outcomes, k=k, warn_deterministic=False)
    detail = dict(r.detail, run=run or None)
    return ReliabilityReport(**{**r.__dict__, "detail": detail})


def test_save_and_load_baseline(tmp_path):
    r = run_suite(flaky, tasks(), k=2, seed=0, price=PRICE, run=RunProvenance(simulator="s1"))
    saved = save_agent_baseline(r, "v1", rootdir=tmp_path)
    loaded = load_agent_baseline("v1", rootdir=tmp_path)
    assert loaded == saved and loaded["n_trials"] == 24 and loaded["run"]["simulator"] == "s1"
    assert load_agent_baseline("nope", rootdir=tmp_path) is None
    gate = agent_regression_gate(r, "v1", rootdir=tmp_path)
    assert isinstance(gate, AgentGateResult) and gate and gate.passed and not gate.reasons


def test_empty_runs_and_baselines_are_refused(tmp_path):
    with pytest.raises(ValueError, match="permanent free pass"):
        save_agent_baseline(ReliabilityReport(), "empty", rootdir=tmp_path)
    r = run_suite(lambda t: t.gold, tasks(4))
    bogus = save_agent_baseline(r, "x", rootdir=tmp_path) | {"n_trials": 0, "n_success": 0}
    with pytest.raises(ValueError, match="recorded zero trials"):
        agent_regression_gate(r, bogus)
    with pytest.raises(ValueError, match="current report has no trials"):
        agent_regression_gate(ReliabilityReport(), r)
    with pytest.raises(ValueError, match="no agents baseline named 'missing'"):
        agent_regression_gate(r, "missing", rootdir=tmp_path)


def test_malformed_and_foreign_baselines_are_refused():
    r = run_suite(lambda t: t.gold, tasks(4))
    with pytest.raises(ValueError, match="not an agent baseline"):
        agent_regression_gate(r, {"metric": "cer", "aggregate": 0.1})
    good = _summary(r)
    with pytest.raises(ValueError, match="lacks pass_hat_k"):
        agent_regression_gate(r, {k: v for k, v in good.items() if k != "pass_hat_k"})


@pytest.mark.parametrize(
    "field,label", [("simulator", "user simulator"), ("suite_version", "suite version"), ("scaffold", "scaffold")]
)
def test_a_baseline_from_a_different_simulator_or_suite_is_not_comparable(tmp_path, field, label):
    base = run_suite(lambda t: t.gold, tasks(4), run=RunProvenance(**{field: "v1"}))
    save_agent_baseline(base, "b", rootdir=tmp_path)
    now = run_suite(lambda t: t.gold, tasks(4), run=RunProvenance(**{field: "v2"}))
    with pytest.raises(ValueError, match=f"baseline was run with {label} 'v1' but this run used 'v2'.*not comparable"):
        agent_regression_gate(now, "b", rootdir=tmp_path)
    # a different model is what a comparison is for: allowed
    other_model = run_suite(lambda t: t.gold, tasks(4), run=RunProvenance(model="new", **{field: "v1"}))
    assert agent_regression_gate(other_model, "b", rootdir=tmp_path).passed


def test_gate_flags_a_confident_drop_and_reports_both_sides():
    rng = random.Random(1)
    base = sim_report([0.9] * 60, 8, rng)
    worse = sim_report([0.5] * 60, 8, rng)
    g = agent_regression_gate(worse, base)
    assert not g and len(g.reasons) == 2  # success rate and pass^8
    assert "success rate fell" in g.reasons[0] and "pass^8 fell" in g.reasons[1]
    assert g.success_rate_baseline == base.success_rate and g.pass_hat_k == worse.pass_hat_k
    with pytest.warns(UserWarning, match="not significant"):
        assert agent_regression_gate(worse, base, tolerance=0.5).passed


def test_gate_calls_a_small_insignificant_drop_underpowered():
    base = reliability({f"t{i}": [True] for i in range(10)})
    now = reliability({f"t{i}": [i != 0] for i in range(10)})
    with pytest.warns(UserWarning, match="not significant"):
        g = agent_regression_gate(now, base)
    assert g.passed and g.underpowered


def test_gate_on_cost_per_success():
    def agent(tokens):
        return lambda t: Episode(output=t.gold, cost=Cost(input_tokens=tokens + (hash(t.task_id) % 7) * 100))

    cheap = run_suite(agent(10_000), tasks(40), price=PRICE)
    dear = run_suite(agent(30_000), tasks(40), price=PRICE)
    g = agent_regression_gate(dear, cheap)
    assert not g.passed and "cost per success rose" in g.reasons[0]
    assert agent_regression_gate(dear, cheap, cost_tolerance=3.0).passed
    assert agent_regression_gate(cheap, dear).passed


def test_gate_false_alarm_rate_and_power_on_a_60_task_suite():
    """Identical agents rarely fail the gate; a 15-point drop is caught; CI overlap would miss it."""
    rng = random.Random(2024)
    ps = [rng.uniform(0.55, 0.95) for _ in range(60)]  # mean 0.75, heterogeneous tasks
    k = 4
    chain = [sim_report(ps, k, rng) for _ in range(201)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        alarms = sum(not agent_regression_gate(b, a).passed for a, b in itertools.pairwise(chain))
        dropped = [sim_report([p - 0.15 for p in ps], k, rng) for _ in range(100)]
        caught = sum(not agent_regression_gate(d, b).passed for d, b in zip(dropped, chain))
    overlap_caught = sum(d.success_ci[1] < b.success_ci[0] for d, b in zip(dropped, chain))
    assert alarms / 200 <= 0.06  # nominal: 2.5% one-sided per figure
    assert caught / 100 >= 0.85
    assert overlap_caught < caught


def test_gate_compares_a_run_whose_tasks_all_share_one_pass_hat_k():
    from ek.agents import reliability

    r = reliability({f"t{i}": [True, True, False, False, False] for i in range(10)}, k=2)
    gate = agent_regression_gate(r, r)
    assert gate.passed and not gate.underpowered


@pytest.mark.filterwarnings("ignore:no task had mixed outcomes")
def test_resume_refuses_changed_prices(tmp_path):
    # Stored trials carry dollars at the old rates; resuming at new rates would mix two price lists.
    run_suite(
        lambda t: Episode(output=t.gold, cost=Cost(input_tokens=10)),
        tasks(3),
        k=1,
        price=PRICE,
        persist=True,
        run_id="p",
        rootdir=tmp_path,
    )
    with pytest.raises(ValueError, match=r"run_id 'p' was started with price"):
        run_suite(
            lambda t: Episode(output=t.gold, cost=Cost(input_tokens=10)),
            tasks(3),
            k=1,
            price=per_million(2.0, 5.0),
            persist=True,
            run_id="p",
            rootdir=tmp_path,
        )
    again = run_suite(
        lambda t: Episode(output=t.gold, cost=Cost(input_tokens=10)),
        tasks(3),
        k=1,
        price=per_million(1.0, 5.0),
        persist=True,
        run_id="p",
        rootdir=tmp_path,
    )
    assert again.cost["total_dollars"] == pytest.approx(30e-6)


# ---------------------------------------------------------------- faults found by a hostile user


@pytest.mark.parametrize("raised", [TimeoutError("the model API timed out"), TimeoutError("read timed out")])
@pytest.mark.parametrize("timeout", [None, 5.0])
def test_an_async_agent_raising_timeout_error_is_that_trials_error(tmp_path, raised, timeout):
    async def agent(task):
        if task.task_id == "t01":
            raise raised
        return task.gold

    r = run_suite(agent, tasks(3), timeout=timeout, persist=True, run_id="r", rootdir=tmp_path)
    assert r.n_success == 2
    assert r.detail["errors"] == [{"task_id": "t01", "trial": 0, "error": f"TimeoutError: {raised}"}]
    assert run_suite(agent, tasks(3), timeout=timeout, persist=True, run_id="r", rootdir=tmp_path) == r


def test_an_async_agent_that_blocks_the_loop_past_its_timeout_timed_out():
    async def agent(task):
        if task.task_id == "t01":
            time.sleep(0.3)  # blocks the event loop: nothing can cancel it
        return task.gold

    r = run_suite(agent, tasks(3), timeout=0.1)
    assert r.n_success == 2
    [err] = r.detail["errors"]
    assert err["task_id"] == "t01" and "did not finish within timeout=0.1 s" in err["error"]
    assert "blocked the event loop" in err["error"]


def test_a_checker_returning_a_non_bool_fails_the_trial_with_an_error():
    r = run_suite(lambda t: t.gold, tasks(3), check=lambda ep, gold: "no")
    assert r.n_success == 0 and len(r.detail["errors"]) == 3
    assert r.detail["errors"][0]["error"].startswith("check failed: the checker returned 'no' (str) instead of True")


def test_an_episode_metric_returning_a_non_number_is_recorded_not_fatal():
    calls = []

    def odd(episode, gold, *, grammar=None):
        calls.append(episode.task_id)
        return "great" if episode.task_id == "t01" else 1.0

    r = run_suite(lambda t: t.gold, tasks(4), metrics={"odd": odd})
    assert len(calls) == 4 and r.n_success == 4
    m = r.detail["metrics"]["odd"]
    assert (m["n"], m["errors"], m["aggregate"]) == (3, 1, 1.0)


def test_an_unhashable_slice_is_refused_before_any_trial():
    calls = []
    bad = tasks(3) + [TaskSpec("t99", input=0, gold="a", slice=["easy"])]
    with pytest.raises(TypeError, match=r"task 't99' has slice \['easy'\] \(list\).*not hashable.*use a str"):
        run_suite(lambda t: calls.append(t) or t.gold, bad)
    assert calls == []


def test_nan_figures_are_refused_by_the_agent_baseline_and_gate(tmp_path):
    r = run_suite(lambda t: t.gold, tasks(4))
    nan_report = ReliabilityReport(**{**r.__dict__, "success_rate": math.nan})
    with pytest.raises(ValueError, match=r"success_rate=nan, not a proportion"):
        save_agent_baseline(nan_report, "x", rootdir=tmp_path)
    assert load_agent_baseline("x", rootdir=tmp_path) is None
    with pytest.raises(ValueError, match=r"current report has success_rate=nan"):
        agent_regression_gate(nan_report, r)
    with pytest.raises(ValueError, match=r"baseline has pass_hat_k=nan"):
        agent_regression_gate(r, {**_summary(r), "pass_hat_k": math.nan})


def test_a_damaged_agent_baseline_names_its_file(tmp_path):
    save_agent_baseline(run_suite(lambda t: t.gold, tasks(4)), "v1", rootdir=tmp_path)
    path = tmp_path / "baselines" / "agents.v1.json"
    path.write_text(path.read_text().replace('"n_success": 4', '"n_success": 40'))
    with pytest.raises(ValueError, match=rf"{path} is a damaged agents baseline: has n_success=40 of n_trials=4"):
        load_agent_baseline("v1", rootdir=tmp_path)


def test_gate_is_underpowered_when_the_interval_reaches_past_the_tolerance():
    # A 3-point drop is inside tolerance=0.05, but on 40 trials the interval of the change
    # reaches far below -0.05: the run cannot show the drop stays inside the tolerance.
    base = reliability({f"t{i}": [True] for i in range(40)})
    now = reliability({f"t{i}": [i != 0] for i in range(40)})
    with pytest.warns(UserWarning, match=r"not significant.*tolerance=0.05"):
        g = agent_regression_gate(now, base, tolerance=0.05)
    assert g.passed and g.underpowered
    big_base = reliability({f"t{i}": [True] * 4 for i in range(2000)})
    big_now = reliability({f"t{i}": [True] * 4 if i % 100 else [True, True, True, False] for i in range(2000)})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g = agent_regression_gate(big_now, big_base, tolerance=0.05)  # interval inside the tolerance
    assert g.passed and not g.underpowered


def test_smallest_detectable_drop_by_hand_and_by_statsmodels():
    from scipy.stats import norm
    from statsmodels.stats.proportion import confint_proportions_2indep

    from ek._stats import smallest_detectable_drop as _smallest_detectable_drop

    # 10 of 10 against 10 trials: the baseline's Wilson lower bound is 10 / (10 + 1.96**2) = 0.72246, so
    # Newcombe's upper bound of the change is -d + hypot(u(1 - d) - (1 - d), 0.27754). At d = 0.35 the
    # Wilson upper bound of 6.5 / 10 is 0.60837 + 0.25470 = 0.86307: hypot(0.21307, 0.27754) = 0.34990.
    d = _smallest_detectable_drop(1.0, 10, 10)
    assert d == pytest.approx(0.3499, abs=2e-4)
    alpha = 2 * (1 - norm.cdf(1.96))  # statsmodels at the gate's z
    for rate, n_base, n_cur in ((1.0, 10, 10), (0.5, 100, 100), (0.8, 200, 120), (28 / 45, 20, 20)):
        d = _smallest_detectable_drop(rate, n_base, n_cur)
        for step, sign in ((-1e-4, 1), (1e-4, -1)):  # just below it the drop is not significant, just above it is
            _, upper = confint_proportions_2indep(
                (rate - d - step) * n_cur, n_cur, rate * n_base, n_base, method="newcomb", compare="diff", alpha=alpha
            )
            assert sign * upper > 0, (rate, n_base, n_cur, step)
    # 1 task of 1: a fall from 1 to 0 leaves Newcombe's upper bound at -1 + hypot(0.7935, 0.7935) = 0.12 > 0.
    assert _smallest_detectable_drop(1.0, 1, 1) is None and _smallest_detectable_drop(0.0, 50, 50) is None


def test_gate_is_underpowered_when_the_suite_cannot_resolve_a_drop_of_the_tolerances_size():
    # 20 tasks that all score alike: 8 of 10 trials each in the baseline, 7 of 10 now (k=2). Every task's
    # pass^2 is 28/45 = 0.622, then 21/45 = 0.467, so both bootstrap intervals have zero width and the
    # change -0.156 looks certain, inside tolerance=0.2. But 20 tasks cannot resolve drops below 0.307
    # (Newcombe over 20 tasks from 0.622): -0.156 - 0.307 is past -0.2, so the pass is underpowered.
    base = reliability({f"t{i}": [True] * 8 + [False] * 2 for i in range(20)}, k=2)
    now = reliability({f"t{i}": [True] * 7 + [False] * 3 for i in range(20)}, k=2)
    assert now.pass_hat_k_ci[1] - now.pass_hat_k_ci[0] < 1e-12 and base.pass_hat_k == pytest.approx(28 / 45)
    with pytest.warns(
        UserWarning,
        match=r"pass\^2 -0\.156, 95% interval \[-0\.156, -0\.156\], the smallest "
        r"detectable drop at 20 tasks is 0\.307.*tolerance=0\.2",
    ):
        g = agent_regression_gate(now, base, tolerance=0.2)
    assert g.passed and g.underpowered
    # The success rate, 0.8 -> 0.7 over 200 trials each, stays clean: its interval [-0.183, -0.015] and the
    # drop plus the smallest detectable one (0.1 + 0.084) both stay above -0.2.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        agent_regression_gate(now, base, tolerance=0.2)
    assert "success rate" not in str(caught[0].message)
    # With 500 such tasks the smallest detectable pass^2 drop is 0.06: -0.156 - 0.06 stays inside 0.25.
    wide_base = reliability({f"t{i}": [True] * 8 + [False] * 2 for i in range(500)}, k=2)
    wide_now = reliability({f"t{i}": [True] * 7 + [False] * 3 for i in range(500)}, k=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g = agent_regression_gate(wide_now, wide_base, tolerance=0.25)
    assert g.passed and not g.underpowered


def test_the_underpowered_warning_names_the_smallest_detectable_drop():
    base = reliability({f"t{i}": [True] for i in range(10)})
    now = reliability({f"t{i}": [i != 0] for i in range(10)})
    with pytest.warns(
        UserWarning,
        match=r"success rate -0\.100, .*the smallest detectable drop at 10 trials is "
        r"0\.350",
    ):
        assert agent_regression_gate(now, base, tolerance=0.1).underpowered
    one = reliability({"t0": [True]})
    with pytest.warns(UserWarning, match="no drop is detectable at 1 trials"):
        assert agent_regression_gate(reliability({"t0": [False]}), one, tolerance=0.5).underpowered


def test_gate_fails_a_run_over_fewer_tasks_than_its_baseline():
    base = reliability({f"t{i}": [True] for i in range(40)})
    fewer = reliability({f"t{i}": [True] for i in range(30)})
    g = agent_regression_gate(fewer, base)
    assert not g and "the suite shrank from 40 tasks to 30" in g.reasons[0]


def test_goldless_tasks_are_left_out_of_extra_metrics_and_named():
    def exact(episode, gold, *, grammar=None):
        if gold is None:
            raise AssertionError("a goldless task reached the metric")
        return float(episode.output == gold)

    suite = tasks(4) + [TaskSpec("open1", input=0, gold=None), TaskSpec("open2", input=1, gold=None)]
    with pytest.warns(UserWarning, match=r"2 task\(s\) have no gold \('open1', 'open2'\).*'exact'"):
        r = run_suite(lambda t: Episode(output=t.gold), suite, metrics={"exact": exact}, check=lambda ep, gold: True)
    m = r.detail["metrics"]["exact"]
    assert m["skipped"] == ["open1", "open2"] and m["n"] == 4 and m["errors"] == 0 and m["aggregate"] == 1.0


def test_the_persisted_run_stores_its_cost_headline_as_strict_json(tmp_path):
    run_suite(
        lambda t: Episode(output="no", cost=Cost(input_tokens=1000)),
        tasks(3),
        price=PRICE,
        persist=True,
        run_id="r",
        rootdir=tmp_path,
    )
    text = (tmp_path / "runs" / "agents.r.json").read_text()
    summary = json.loads(text, parse_constant=lambda c: pytest.fail(f"bare {c}"))["summary"]
    assert summary["total_dollars"] == pytest.approx(3 * 1000 * 1e-6)
    assert summary["cost_per_success"] is None  # infinite: nothing succeeded
    assert (summary["n_trials"], summary["n_success"], summary["success_rate"]) == (3, 0, 0.0)


def test_an_executor_runs_async_agents_and_timeouts_in_its_workers():
    async def ajittery(task, *, seed=None):
        await asyncio.sleep(0.001)
        if task.task_id == "t03" and seed == 8:
            await asyncio.sleep(2)  # past the timeout: cancelled in the worker
        return flaky(task, seed=seed)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        serial = run_suite(ajittery, tasks(8), k=3, seed=7, price=PRICE, timeout=0.5)
        with ThreadPoolExecutor(3) as pool:
            pooled = run_suite(ajittery, tasks(8), k=3, seed=7, price=PRICE, timeout=0.5, executor=pool)
    assert pooled == serial
    [timed_out] = [e for e in pooled.detail["errors"] if e["task_id"] == "t03"]
    assert timed_out["trial"] == 1 and timed_out["error"].startswith(
        "TimeoutError: the trial did not finish within timeout=0.5 s and was cancelled"
    )
