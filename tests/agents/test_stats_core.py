"""The statistics core (ek._stats) gives every figure main gave before the agents' and the bootstrap's copies
were folded into it.

Why literals: the fold moved Wilson, Newcombe, the seeded bootstraps (of a mean, of a ratio, of any
statistic), the binomial draws, the quantile and the Poisson bootstrap into one package. Their
agreement with statsmodels / scipy / numpy is tested where they are used (test_reliability.py,
test_harness.py, test_bootstrap.py); these figures were printed by main's code (commit 4c27bdd) on
the fixed inputs below, so a change of draw order, quantile rule or rounding in the move shows here.
"""

import math
import random
import warnings

import ek
from ek._stats import mean_interval, ratio_interval, smallest_detectable_drop
from ek.agents import (
    Cost,
    Episode,
    Step,
    TaskSpec,
    ToolCallMetric,
    bootstrap_ci,
    difference_upper_bound,
    newcombe_difference,
    pass_at_k,
    pass_hat_k,
    per_million,
    reliability,
    wilson_interval,
)
from ek.agents.harness import run_suite


def test_proportion_intervals_and_estimators_are_main_s():
    assert [wilson_interval(s, n) for s, n in [(0, 10), (3, 10), (10, 10), (17, 40), (1, 1), (123, 1000)]] == [
        (0.0, 0.2775401687666166),
        (0.10778928748621183, 0.6032267800204347),
        (0.7224598312333834, 1.0),
        (0.28509168524815875, 0.5780519956394001),
        (0.20654329147389294, 1.0),
        (0.10407382134719093, 0.14481166018694755),
    ]
    assert [newcombe_difference(*a) for a in [(50, 100, 90, 100), (3, 10, 7, 10), (0, 5, 5, 5)]] == [
        (-0.5060810320231057, -0.27843027585819957),
        (-0.6718269964703951, 0.028827424779621913),
        (-1.0, -0.3855362353858486),
    ]
    runs = [(10, 3, 2), (8, 4, 2), (200, 77, 9)]
    assert [(pass_at_k(n=n, c=c, k=k), pass_hat_k(n=n, c=c, k=k)) for n, c, k in runs] == [
        (0.5333333333333333, 0.06666666666666667),
        (0.7857142857142857, 0.21428571428571427),
        (0.9888046730926614, 0.0001372437884542868),
    ]
    assert difference_upper_bound(0.5, (0.4, 0.6), 0.8, (0.7, 0.9)) == -0.15857864376269049
    assert [smallest_detectable_drop(r, nb, nc) for r, nb, nc in [(0.8, 60, 60), (0.5, 200, 100)]] == [
        0.16101902127815648,
        0.1195720353103338,
    ]


def test_seeded_bootstraps_are_main_s():
    assert bootstrap_ci([1.0, 2.0, 5.0, 0.5, 3.0, 8.0, 1.5], lambda v: sum(v) / len(v), resamples=500) == (
        1.4285714285714286,
        4.928571428571429,
    )
    rng = random.Random(7)
    hat = [rng.choice([0.0, 1 / 3, 2 / 3, 1.0]) for _ in range(300)]
    assert mean_interval(hat) == (0.44444444444444436, 0.5333333333333333)
    num = [rng.random() * 3 for _ in range(40)]
    den = [rng.randint(0, 3) for _ in range(40)]
    assert ratio_interval(num, den) == (0.7509426512993493, 1.6109433865583995)  # every unit drawn
    num2 = [rng.random() * 3 for _ in range(2000)]
    den2 = [rng.randint(0, 3) for _ in range(2000)]
    assert ratio_interval(num2, den2) == (0.9759473930330764, 1.0584304855050128)  # grouped by denominator
    den3 = [rng.random() for _ in range(2000)]
    assert ratio_interval(num2, den3) == (2.850297851170717, 3.044873978984335)  # fewer resamples
    outcomes = {f"t{i}": [rng.random() < 0.6 for _ in range(3)] for i in range(50)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = reliability(outcomes, k=2, slices={f"t{i}": "ab"[i % 2] for i in range(50)})
    assert [r.success_rate, r.success_ci, r.pass_at_k, r.pass_hat_k, r.pass_hat_k_ci] == [
        0.5666666666666667,
        (0.4866784070665957, 0.6433254410473084),
        0.8266666666666667,
        0.30666666666666675,
        (0.21333333333333332, 0.4066666666666666),
    ]
    assert {k: v["success_ci"] for k, v in r.per_slice.items()} == {
        "a": (0.44746569425928456, 0.6666872402321515),
        "b": (0.46052588692688007, 0.6789943663404308),
    }


def test_report_intervals_and_comparisons_are_main_s():
    cases = [("the cat sat"[: i % 11], "the cat sat", "ab"[i % 2]) for i in range(60)]
    ids = [f"d{i}" for i in range(60)]
    a = ek.evaluate(cases, metric="cer", ids=ids)
    # issue 30: the printed interval is the bootstrap-t (was the percentile (0.50783, 0.65786))
    assert a.interval() == (0.5079484722254853, 0.6589225398760894)
    assert all(math.isnan(x) for x in a.interval(0.9, slice="a"))  # 30 items: below the minimum
    b = ek.evaluate(
        [("the cat sat"[: (i * 7) % 11], "the cat sat", "ab"[i % 2]) for i in range(60)], metric="cer", ids=ids
    )
    c = ek.compare(a, b)
    # issue 30: the paired interval is the symmetric bootstrap-t (was the percentile (-0.12592, 0.07870), p 0.59259)
    assert (c.delta, c.interval, c.p_value, c.verdict) == (
        -0.025757575757575757,
        (-0.13212593068723566, 0.08061077917208413),
        0.600384762301463,
        "no detectable difference",
    )


def test_a_suite_s_figures_are_main_s():
    def agent(task, *, seed=None):
        g = random.Random(f"{task.task_id}:{seed}")
        out = task.gold if g.random() < 0.6 else "wrong"
        return Episode(
            output=out,
            trajectory=[Step("search", {"q": task.gold if g.random() < 0.7 else "x"})],
            cost=Cost(input_tokens=g.randint(500, 1500), output_tokens=g.randint(50, 150)),
        )

    def calls(ep, gold, grammar=None):
        return ToolCallMetric()(ep, [("search", {"q": gold})], grammar=grammar)

    tasks = [TaskSpec(f"t{i:02d}", input=i, gold=f"a{i}", slice="ab"[i % 2]) for i in range(30)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = run_suite(agent, tasks, k=3, seed=5, price=per_million(1.0, 5.0), metrics={"tool_call": calls})
    assert [
        s.success_rate,
        s.success_ci,
        s.cost["cost_per_success"],
        s.cost["cost_per_success_ci"],
        s.pass_hat_k_ci,
    ] == [
        0.6,
        (0.4967011780834921, 0.6951114082321718),
        0.002487796296296296,
        (0.002106924920634921, 0.0029830994565217387),
        (0.1, 0.4),
    ]
    m = s.detail["metrics"]["tool_call"]
    assert (m["aggregate"], m["n"], m["per_slice"]) == (
        0.8222222222222222,
        90,
        {"a": 0.8222222222222222, "b": 0.8222222222222222},
    )


def test_one_quantile_numpy_s_rule_and_safe_at_infinity():
    import numpy as np

    from ek._stats import quantile

    rng = np.random.default_rng(3)
    for n in (1, 2, 5, 2000):
        v = sorted(rng.normal(size=n).tolist())
        for q in (0.0, 0.025, 0.5, 0.975, 1.0):
            assert quantile(v, q) == float(np.quantile(v, q))  # bit for bit, both halves of numpy's lerp
    inf = math.inf
    # A cost per success is inf in resamples without a success: the ends stay inf, never NaN (numpy: NaN).
    assert quantile([1.0, inf], 0.5) == inf and quantile([1.0, inf], 0.0) == 1.0 and quantile([inf, inf], 0.3) == inf
    assert quantile([1.0, 2.0, inf], 0.25) == 1.5
