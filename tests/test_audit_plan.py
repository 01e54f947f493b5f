"""ek.plan_audit, ek.AuditPlan and the planner of a pilot estimate (labels_for / half_width_for)."""

from __future__ import annotations

import math
from statistics import NormalDist

import pytest

import ek

np = pytest.importorskip("numpy")


def proxy_report(n_items=2000, seed=0, uncertainty=False):
    rng = np.random.default_rng(seed)
    slices = ["easy" if k % 4 else "hard" for k in range(n_items)]
    scores = []
    for label in slices:
        length = int(rng.integers(20, 60))
        edits = int(rng.binomial(length, 0.02 if label == "easy" else 0.15))
        detail = {"edits": edits, "ref_len": length}
        if uncertainty:
            detail["uncertainty"] = float(rng.random())
        scores.append(ek.Score(edits / length, detail=detail))
    report = ek.Report(
        metric="cer",
        n=n_items,
        scores=scores,
        detail={"ids": tuple(f"d{k}" for k in range(n_items)), "slices": tuple(slices)},
    )
    return ek.merge_reports(report, metric="cer")


def test_uniform_plan_draws_each_item_with_budget_over_n():
    plan = ek.plan_audit(proxy_report(), 200, seed=5)
    assert set(plan.probabilities) == {0.1} and plan.N == 2000 and plan.budget == 200.0
    assert 150 < len(plan.ids) < 250  # Poisson sampling: 200 on average (sd 13.4)
    assert plan == ek.plan_audit(proxy_report(), 200, seed=5)  # seeded
    assert plan.ids != ek.plan_audit(proxy_report(), 200, seed=6).ids
    assert plan.probability(plan.ids[0]) == 0.1


def test_active_plan_follows_the_given_uncertainty_above_the_floor():
    proxy = proxy_report(uncertainty=True)
    plan = ek.plan_audit(proxy, 200, strategy="active", seed=1, min_prob=0.02)
    assert plan.detail["uncertainty"] == "detail['uncertainty']"
    from ek._corpus_estimates._plan import probabilities

    spread = np.array([s.detail["uncertainty"] for s in proxy.scores])
    probs, _ = probabilities("active", spread, np.full(len(spread), -1), 200, 0.02)
    assert probs.sum() == pytest.approx(200, rel=1e-9) and probs.min() >= 0.02 and probs.max() <= 1
    free = probs > 0.02 + 1e-12
    ratio = probs[free] / spread[free]
    assert ratio.max() == pytest.approx(ratio.min(), rel=1e-9)  # proportional where the floor does not bind
    lookup = dict(zip((f"d{k}" for k in range(len(probs))), probs))
    assert all(p == pytest.approx(lookup[i]) for i, p in zip(plan.ids, plan.probabilities))


def test_active_plan_without_uncertainty_uses_the_poisson_rule():
    proxy = proxy_report()
    plan = ek.plan_audit(proxy, 200, strategy="active", seed=1)
    assert plan.detail["uncertainty"].startswith("Poisson rule")
    assert plan.min_prob == pytest.approx(0.25 * 200 / 2000)  # the default floor: a quarter of the uniform rate
    edits = {f"d{k}": s.detail["edits"] for k, s in enumerate(proxy.scores)}
    drawn = dict(zip(plan.ids, plan.probabilities))
    many = [p for i, p in drawn.items() if edits[i] >= 5]
    none = [p for i, p in drawn.items() if edits[i] == 0]
    assert min(many) > max(none) * 0.9  # more (proxy) errors, more uncertain, likelier drawn


def test_stratified_plan_is_the_neyman_allocation():
    proxy = proxy_report(uncertainty=True)
    plan = ek.plan_audit(proxy, 300, strategy="stratified", seed=2, min_prob=1e-6)
    spread = np.array([s.detail["uncertainty"] for s in proxy.scores])
    hard = np.array([k % 4 == 0 for k in range(2000)])
    weight = {
        "hard": hard.sum() * math.sqrt((spread[hard] ** 2).mean()),
        "easy": (~hard).sum() * math.sqrt((spread[~hard] ** 2).mean()),
    }
    expected = {k: 300 * w / sum(weight.values()) for k, w in weight.items()}
    assert plan.detail["allocation"] == pytest.approx(expected, rel=1e-9)


def test_estimates_from_a_plan_use_its_probabilities():
    proxy = proxy_report()
    plan = ek.plan_audit(proxy, 300, strategy="stratified", seed=4)
    audited = [s for s, i in zip(proxy.scores, proxy.detail["ids"]) if i in set(plan.ids)]
    audit = ek.merge_reports(
        ek.Report(metric="cer", n=len(audited), scores=audited, detail={"ids": plan.ids}), metric="cer"
    )
    est = ek.estimate_corpus(proxy, audit, plan=plan, lam=1.0)
    assert est.estimate == pytest.approx(proxy.aggregate, abs=1e-12)  # gold equal to the proxy: the figure is exact
    half = ek.AuditPlan(plan.ids[:10], plan.probabilities[:10], N=2000)
    with pytest.raises(ValueError, match="not drawn by the plan"):
        ek.estimate_corpus(proxy, audit, plan=half)
    with pytest.warns(UserWarning, match="not in the audit"):
        ek.estimate_corpus(
            proxy,
            ek.merge_reports(
                ek.Report(metric="cer", n=50, scores=audited[:50], detail={"ids": plan.ids[:50]}), metric="cer"
            ),
            plan=plan,
        )
    with pytest.raises(ValueError, match="drawn from a corpus of 10 items"):
        ek.estimate_corpus(proxy, audit, plan=ek.AuditPlan(plan.ids, plan.probabilities, N=10))


def test_bad_plans_and_budgets_are_refused():
    proxy = proxy_report(n_items=100)
    for budget, pattern in ((101, "larger than the corpus"), (0, "positive number"), (True, "positive number")):
        with pytest.raises(ValueError, match=pattern):
            ek.plan_audit(proxy, budget)
    with pytest.raises(ValueError, match="strategy must be one of 'uniform', 'stratified', 'active'"):
        ek.plan_audit(proxy, 10, strategy="greedy")
    with pytest.raises(ValueError, match="min_prob must be in \\(0, 1\\]"):
        ek.plan_audit(proxy, 10, strategy="active", min_prob=0)
    with pytest.raises(ValueError, match="more than the budget"):
        ek.plan_audit(proxy, 10, strategy="active", min_prob=0.5)
    with pytest.raises(TypeError, match="seed must be an integer"):
        ek.plan_audit(proxy, 10, seed=1.5)
    for probs, pattern in (
        ((0.0,), "outside|must be in \\(0, 1\\]"),
        ((1.5,), "must be in \\(0, 1\\]"),
        ((float("nan"),), "must be in \\(0, 1\\]"),
    ):
        with pytest.raises(ValueError, match=pattern):
            ek.AuditPlan(("a",), probs)
    with pytest.raises(ValueError, match="2 ids and 1 probabilities"):
        ek.AuditPlan(("a", "b"), (0.5,))
    with pytest.raises(ValueError, match="twice"):
        ek.AuditPlan(("a", "a"), (0.5, 0.5))


def test_a_pilot_says_how_many_labels_a_half_width_needs():
    z = NormalDist().inv_cdf(0.975)
    pilot = ek.CorpusEstimate(
        "cer", 0.1, (0.09, 0.11), {}, 0.1, 0.5, 300.0, 100, 10_000, detail={"variance": (4e-6, 9e-5)}
    )
    assert pilot.half_width_for(100) == pytest.approx(z * math.sqrt(4e-6 + 9e-5))
    h = 0.01
    need = pilot.labels_for(h)
    assert need > math.ceil(9e-5 * 100 / ((h / z) ** 2 - 4e-6))  # the proxy's part grows as fewer stay unaudited
    assert pilot.half_width_for(need) <= h + 1e-12 < pilot.half_width_for(need - 1)
    with pytest.raises(ValueError, match="no audit reaches"):
        pilot.labels_for(0.0035)
    with pytest.raises(ValueError, match="positive half-width"):
        pilot.labels_for(-1)
    with pytest.raises(ValueError, match="no variance to plan from"):
        ek.CorpusEstimate("cer", 0.1, (0.0, 1.0), {}, 0.1, 0.5, 1.0, 10, 100).labels_for(0.01)


def test_labels_for_with_assurance_reaches_the_half_width_that_often():
    """Pilots of 30 audited items; the size each asks for, audited afresh: how often is the half-width reached?

    A corpus of 5,000 documents (lengths lognormal, σ = 0.5; error rates
    Beta(2, 38); a proxy of correlation 0.9), λ fixed at 0.5, the target the
    95% half-width of a 200-item audit. The default (the median size) reaches
    it about half the time, ``assurance=0.8`` at least 8 times in 10 (within
    the Monte Carlo error of 400 pilots, 2 points).
    """
    np = pytest.importorskip("numpy")
    from ek._stats._prediction_powered import estimate, moments, without

    rng = np.random.default_rng(3)
    length = np.maximum(1, np.round(np.exp(rng.normal(4, 0.5, 5000)))).astype(np.int64)
    edits = rng.binomial(length, rng.beta(2, 38, 5000)).astype(float)
    gold = np.column_stack([edits, length]).astype(float)
    noise = rng.normal(0, edits.std() * math.sqrt(1 / 0.81 - 1), 5000)
    proxy = np.column_stack([np.maximum(0.0, edits + noise), length]).astype(float)
    whole, z = moments(proxy), NormalDist().inv_cdf(0.975)

    def audit(n):
        at = rng.choice(5000, n, replace=False)
        return estimate(without(whole, moments(proxy[at])), proxy[at], gold[at], lambda t: t[0] / t[1], lam=0.5)

    h = z * audit(200).std_error
    hits = {0.5: 0, 0.8: 0}
    for _ in range(400):
        fig = audit(30)
        detail = {"variance": tuple(map(float, fig.variance)), "audit_kurtosis": fig.kurtosis}
        pilot = ek.CorpusEstimate("cer", fig.estimate, (0, 0), {}, fig.plug_in, 0.5, 0.0, 30, 5000, detail=detail)
        for assurance in hits:
            hits[assurance] += z * audit(pilot.labels_for(h, assurance=assurance)).std_error <= h
    assert 0.3 < hits[0.5] / 400 < 0.6 and hits[0.8] / 400 >= 0.78, hits


def test_labels_for_assurance_is_checked_and_grows_the_audit():
    pilot = ek.CorpusEstimate(
        "cer", 0.1, (0.09, 0.11), {}, 0.1, 0.5, 300.0, 100, 10_000, detail={"variance": (4e-6, 9e-5)}
    )
    sizes = [pilot.labels_for(0.01, assurance=a) for a in (0.5, 0.8, 0.95)]
    assert sizes == sorted(sizes) and sizes[0] < sizes[1] < sizes[2]
    for bad in (0.4, 1.0, "0.8", True):
        with pytest.raises(ValueError, match=r"assurance must be in \[0.5, 1\)"):
            pilot.labels_for(0.01, assurance=bad)
