"""ek.agents._stats and ek.agents._reliability: the estimators and intervals, cross-checked."""

import math
import random
import warnings
from math import comb

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ek._stats import binomial as _binomial
from ek._stats import mean_interval as _bootstrap_mean_ci
from ek._stats import ratio_interval as _ratio_bootstrap_ci
from ek.agents import (
    Episode,
    bootstrap_ci,
    difference_upper_bound,
    newcombe_difference,
    pass_at_k,
    pass_hat_k,
    reliability,
    wilson_interval,
)


def humaneval_pass_at_k(n, c, k):
    """The numerically stable form printed in the Codex/HumanEval paper (Chen et al. 2021)."""
    if n - c < k:
        return 1.0
    prod = 1.0
    for i in range(n - c + 1, n + 1):
        prod *= 1.0 - k / i
    return 1.0 - prod


@pytest.mark.parametrize(
    "n,c,k", [(10, 1, 1), (10, 3, 5), (20, 0, 4), (20, 20, 7), (8, 4, 2), (100, 37, 10), (5, 4, 5), (1, 1, 1)]
)
def test_pass_at_k_matches_the_humaneval_estimator(n, c, k):
    assert pass_at_k(n=n, c=c, k=k) == pytest.approx(humaneval_pass_at_k(n, c, k), abs=1e-12)
    assert pass_at_k(n=n, c=c, k=k) == pytest.approx(1 - comb(n - c, k) / comb(n, k), abs=1e-12)


@pytest.mark.parametrize("n,c,k", [(8, 4, 2), (8, 8, 8), (10, 9, 8), (10, 3, 4), (30, 27, 5)])
def test_pass_hat_k_is_the_ratio_of_binomials(n, c, k):
    assert pass_hat_k(n=n, c=c, k=k) == comb(c, k) / comb(n, k)


def test_pass_hat_k_hand_values():
    assert pass_hat_k(n=8, c=4, k=2) == 6 / 28
    assert pass_hat_k(n=10, c=9, k=8) == pytest.approx(0.2)  # C(9,8)/C(10,8) = 9/45
    assert pass_hat_k(n=10, c=3, k=4) == 0.0


def test_pass_hat_k_tends_to_p_to_the_k():
    rng = random.Random(7)
    p, n, k = 0.8, 400, 3
    vals = [pass_hat_k(n=n, c=sum(rng.random() < p for _ in range(n)), k=k) for _ in range(200)]
    assert sum(vals) / len(vals) == pytest.approx(p**k, abs=0.01)


@given(n=st.integers(1, 60), data=st.data())
def test_pass_hat_k_le_pass_at_1_le_pass_at_k(n, data):
    c = data.draw(st.integers(0, n))
    k = data.draw(st.integers(1, n))
    hat, one, at = pass_hat_k(n=n, c=c, k=k), pass_at_k(n=n, c=c, k=1), pass_at_k(n=n, c=c, k=k)
    assert hat <= one + 1e-12 <= at + 2e-12
    assert one == pytest.approx(c / n)


def test_k_larger_than_the_trials_run_is_refused():
    with pytest.raises(ValueError, match=r"k=5, larger than the n=3 trials run.*Run at least 5 trials"):
        pass_at_k(n=3, c=1, k=5)
    with pytest.raises(ValueError, match=r"k=9 is larger than the trials run: the most any task has is 8"):
        reliability({"t1": [True] * 8, "t2": [False] * 4}, k=9)


def test_zero_trials_is_refused():
    with pytest.raises(ValueError, match=r"n=0 trials; the estimate needs at least one trial"):
        pass_hat_k(n=0, c=0, k=1)
    with pytest.raises(ValueError, match="no trials; there is nothing to estimate"):
        reliability({"t1": []})
    with pytest.raises(ValueError, match="no trials"):
        reliability([])
    with pytest.raises(ValueError, match="an interval needs at least one trial"):
        wilson_interval(0, 0)


def test_estimator_argument_checks():
    with pytest.raises(ValueError, match="c must be in 0..n"):
        pass_at_k(n=3, c=4, k=1)
    with pytest.raises(ValueError, match="at least 1"):
        pass_at_k(n=3, c=1, k=0)
    with pytest.raises(TypeError, match="whole number"):
        pass_at_k(n=3.0, c=1, k=1)


def test_wilson_matches_statsmodels():
    sm = pytest.importorskip("statsmodels.stats.proportion")
    z = 1.959963984540054
    for s, n in [(0, 10), (1, 10), (5, 10), (10, 10), (37, 60), (3, 1000), (999, 1000)]:
        lo, hi = wilson_interval(s, n, z=z)
        ref = sm.proportion_confint(s, n, alpha=0.05, method="wilson")
        assert (lo, hi) == pytest.approx(ref, abs=1e-12)


def test_wilson_hand_value_and_exact_ends():
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0 and round(hi, 3) == 0.278
    assert wilson_interval(10, 10)[1] == 1.0


def test_newcombe_matches_statsmodels():
    pytest.importorskip("statsmodels")
    from statsmodels.stats.proportion import confint_proportions_2indep

    z = 1.959963984540054
    for a, na, b, nb in [
        (50, 100, 90, 100),
        (89, 100, 90, 100),
        (0, 20, 5, 20),
        (12, 60, 21, 60),
        (60, 60, 51, 60),
        (7, 13, 2, 29),
    ]:
        ref = confint_proportions_2indep(a, na, b, nb, method="newcomb", compare="diff", alpha=0.05)
        assert newcombe_difference(a, na, b, nb, z=z) == pytest.approx(ref, abs=1e-10)


def test_newcombe_examples():
    assert newcombe_difference(50, 100, 90, 100)[1] < 0
    assert newcombe_difference(89, 100, 90, 100)[1] > 0


def test_difference_upper_bound_is_the_mover_bound():
    # symmetric intervals: the combined standard error
    ub = difference_upper_bound(0.5, (0.4, 0.6), 0.8, (0.7, 0.9))
    assert ub == pytest.approx(-0.3 + math.sqrt(0.1**2 + 0.1**2))
    # asymmetric: only a's upper side and b's lower side matter
    ub = difference_upper_bound(0.5, (0.0, 0.55), 0.8, (0.78, 1.0))
    assert ub == pytest.approx(-0.3 + math.hypot(0.05, 0.02))
    assert difference_upper_bound(None, None, 0.5, (0.4, 0.6)) is None
    with pytest.raises(ValueError, match="inside its interval"):
        difference_upper_bound(0.7, (0.4, 0.6), 0.5, (0.4, 0.6))


def test_bootstrap_ci_is_deterministic_and_covers_the_mean():
    values = [float(i % 7) for i in range(50)]
    mean = lambda v: sum(v) / len(v)  # noqa: E731
    a = bootstrap_ci(values, mean, resamples=400, seed=3)
    assert a == bootstrap_ci(values, mean, resamples=400, seed=3)
    assert a[0] < mean(values) < a[1]
    assert bootstrap_ci([1.0] * 20, mean, resamples=50) == (1.0, 1.0)
    with pytest.raises(ValueError, match="no values"):
        bootstrap_ci([], mean)
    with pytest.raises(ValueError, match="alpha must be in"):
        bootstrap_ci([1.0], mean, alpha=1.5)


def test_bootstrap_ci_handles_an_infinite_statistic():
    ratio = lambda v: sum(d for d, _ in v) / s if (s := sum(w for _, w in v)) else math.inf  # noqa: E731
    lo, hi = bootstrap_ci([(1.0, 0)] * 3 + [(1.0, 1)], ratio, resamples=300)
    assert math.isfinite(lo) and hi == math.inf


def test_histogram_bootstrap_agrees_with_plain_resampling():
    rng = random.Random(0)
    values = [rng.choice([0.0, 0.25, 1.0]) for _ in range(300)]
    mean = sum(values) / len(values)
    fast = _bootstrap_mean_ci(values, resamples=4000, seed=1)
    slow = bootstrap_ci(values, lambda v: sum(v) / len(v), resamples=4000, seed=1)
    assert fast == pytest.approx(slow, abs=0.01)
    assert fast[0] < mean < fast[1]


def test_binomial_sampler_moments():
    rng = random.Random(5)
    for n, p in [(20, 0.1), (1000, 0.3), (5000, 0.9), (50, 0.5), (3000, 0.002), (600, 0.995)]:
        draws = [_binomial(rng, n, p) for _ in range(4000)]
        m = sum(draws) / len(draws)
        var = sum((d - m) ** 2 for d in draws) / len(draws)
        assert m == pytest.approx(n * p, rel=0.02, abs=0.05)
        assert var == pytest.approx(n * p * (1 - p), rel=0.1)
        assert all(0 <= d <= n for d in draws)


def test_ratio_bootstrap_paths_agree():
    rng = random.Random(2)
    dollars = [rng.uniform(0.5, 2.0) for _ in range(4000)]
    wins = [rng.randint(0, 4) for _ in range(4000)]
    exact = _ratio_bootstrap_ci(dollars, wins, resamples=100, seed=0)  # 400k draws: exact path
    grouped = _ratio_bootstrap_ci(dollars, wins, resamples=2000, seed=0)  # grouped normal path
    point = sum(dollars) / sum(wins)
    assert exact[0] < point < exact[1] and grouped[0] < point < grouped[1]
    assert grouped == pytest.approx(exact, rel=0.02)


def test_reliability_doc_example_and_per_task():
    r = reliability({"t1": [True, True, False], "t2": [True, True, True]}, k=2)
    assert (r.n_tasks, r.n_trials, r.n_success, r.k) == (2, 6, 5, 2)
    assert r.pass_hat_k == pytest.approx((1 / 3 + 1) / 2)
    assert r.pass_at_k == 1.0
    assert r.per_task["t1"] == {"n": 3, "successes": 2, "pass_at_k": 1.0, "pass_hat_k": 1 / 3}
    assert r.success_ci == wilson_interval(5, 6)
    assert r.stochastic


def test_reliability_skips_tasks_with_fewer_than_k_trials():
    with pytest.warns(UserWarning, match="fewer than k=2 trials"):
        r = reliability({"a": [True, False, True], "b": [True]}, k=2)
    assert r.detail["skipped"] == 1 and r.detail["skipped_tasks"] == ["b"]
    assert r.per_task["b"]["pass_hat_k"] is None
    assert r.pass_hat_k == pass_hat_k(n=3, c=2, k=2)
    assert r.n_trials == 4 and r.success_rate == 0.75  # skipped trials still count here


def test_reliability_from_episodes_and_slices():
    eps = [
        Episode(task_id=t, success=s)
        for t, s in [("a", True), ("a", False), ("b", True), ("b", True), ("c", False), ("c", False)]
    ]
    r = reliability(eps, k=2, slices={"a": "easy", "b": "easy", "c": "hard"}, cost={"n": 6})
    assert r.per_slice["easy"]["n_tasks"] == 2 and r.per_slice["easy"]["success_rate"] == 0.75
    assert r.per_slice["hard"]["pass_hat_k"] == 0.0
    assert r.cost == {"n": 6}


def test_reliability_refuses_ungraded_episodes():
    with pytest.raises(ValueError, match=r"ungraded \(success=None\)"):
        reliability([Episode(task_id="a")])


def test_reliability_warns_when_no_task_is_mixed():
    with pytest.warns(UserWarning, match="no task had mixed outcomes"):
        r = reliability({"a": [True, True], "b": [False, False]}, k=2)
    assert not r.stochastic and r.pass_hat_k == r.success_rate
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        reliability({"a": [True, True]}, k=2, warn_deterministic=False)
        reliability({"a": [True, True]}, k=1)


def test_pass_hat_k_interval_contains_the_estimate():
    rng = random.Random(11)
    outcomes = {f"t{i}": [rng.random() < 0.7 for _ in range(8)] for i in range(200)}
    r = reliability(outcomes, k=4)
    assert r.pass_hat_k_ci[0] < r.pass_hat_k < r.pass_hat_k_ci[1]
    assert r == reliability(outcomes, k=4)  # deterministic, bootstrap included


def test_pass_hat_k_interval_contains_the_estimate_when_every_task_agrees():
    # Ten tasks with one identical pass^2 of 0.1: the float mean (0.0999...) must not fall
    # outside its degenerate bootstrap interval, or the regression gate rejects the report.
    r = reliability({f"t{i}": [True, True, False, False, False] for i in range(10)}, k=2)
    lo, hi = r.pass_hat_k_ci
    assert lo <= r.pass_hat_k <= hi


def test_skipping_short_tasks_is_never_silent():
    outcomes = {"a": [True, False, True], "b": [True], "c": [False, False, True], "d": []}
    with pytest.warns(
        UserWarning,
        match=r"2 of 4 task\(s\) have fewer than k=3 trials .*: 'b', 'd'\. "
        r"They are listed in detail\['skipped_tasks'\]",
    ) as record:
        r = reliability(outcomes, k=3)
    assert record[0].filename == __file__  # points at the caller
    assert r.detail["skipped"] == 2 and r.detail["skipped_tasks"] == ["b", "d"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        full = {t: v for t, v in outcomes.items() if v}
        reliability(full, k=1, warn_deterministic=False)  # nothing skipped: no warning
