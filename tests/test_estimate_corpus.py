"""ek.estimate_corpus and ek.compare_estimates: agreement with ppi_py, the ratio formula, slices, pairing, bad input.

Reference numbers come from ppi_py (``ppi_mean_pointestimate`` /
``ppi_mean_ci``) for a mean metric, and from the ratio formula of issue 23
computed here independently for CER:
``Var = [λ² Var_U(ê - θ r̂) / N_U + Var_L((e - θ r) - λ (ê - θ r̂)) / n] / B²``.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import pytest

import ek

np = pytest.importorskip("numpy")

N, n = 3000, 250
Z95 = NormalDist().inv_cdf(0.975)


@pytest.fixture(scope="module")
def corpus():
    """A corpus of one-line documents, its engine output, a noisy stand-in for gold and the audited ids."""
    rng = np.random.default_rng(7)
    words = ["invoice", "total", "amount", "due", "customer", "account", "payment", "receipt", "order", "ship"]
    gold = [" ".join(rng.choice(words, size=rng.integers(2, 6))) for _ in range(N)]

    def noisy(text, rate):
        return "".join(c if rng.random() > rate else "x" for c in text)

    rates = rng.beta(2, 30, size=N)
    pred = [noisy(g, r) for g, r in zip(gold, rates)]
    stand_in = [noisy(g, r * 0.5) for g, r in zip(gold, rates)]
    ids = [f"doc-{i:05d}" for i in range(N)]
    slices = [("clean", "noisy")[int(r > 0.06)] for r in rates]
    audited = sorted(rng.choice(N, n, replace=False).tolist())
    return {"gold": gold, "pred": pred, "stand_in": stand_in, "ids": ids, "slices": slices, "audited": audited}


def reports(c, metric="cer", sliced=False):
    slices = c["slices"] if sliced else None
    proxy = ek.agreement_proxy(c["pred"], c["stand_in"], metric=metric, ids=c["ids"], slices=slices)
    cases = [(c["pred"][i], c["gold"][i]) + ((c["slices"][i],) if sliced else ()) for i in c["audited"]]
    audit = ek.evaluate(cases, metric=metric, ids=[c["ids"][i] for i in c["audited"]])
    return proxy, audit


def arrays(c, proxy, audit):
    """(e_L, r_L, ê_L, r̂_L, ê_U, r̂_U) as numpy arrays, from the reports' own scores."""

    def col(report, name):
        return np.array([s.detail[name] for s in report.scores], dtype=float)

    mask = np.zeros(N, dtype=bool)
    mask[c["audited"]] = True
    e_hat, r_hat = col(proxy, "edits"), col(proxy, "ref_len")
    return col(audit, "edits"), col(audit, "ref_len"), e_hat[mask], r_hat[mask], e_hat[~mask], r_hat[~mask]


# --- agreement with ppi_py on a mean metric ---------------------------------------------


def _mean_case():
    """A mean metric on N items, ``n`` of them audited: (proxy, audit, y, ŷ, ŷ_unlabelled)."""
    rng = np.random.default_rng(11)
    truth = rng.random(N) < 0.8
    guess = np.where(rng.random(N) < 0.85, truth, ~truth)
    exact = ek.metric(lambda p, g: float(p == g), aggregate="mean", name="exact_test", higher_is_better=True)
    ids = [f"i{k}" for k in range(N)]
    audited = rng.choice(N, n, replace=False)
    proxy = ek.evaluate([(1.0, float(x)) for x in guess], metric=exact, ids=ids)
    audit = ek.evaluate([(1.0, float(truth[k])) for k in audited], metric=exact, ids=[ids[k] for k in audited])
    mask = np.zeros(N, dtype=bool)
    mask[audited] = True
    y, y_hat, y_unlabelled = truth[audited].astype(float), guess[audited].astype(float), guess[~mask].astype(float)
    return proxy, audit, y, y_hat, y_unlabelled


@pytest.mark.parametrize("lam", [0.0, 1.0, 0.35, "ppi_py's"])
def test_a_mean_metric_agrees_with_ppi_py(lam):
    """At a fixed λ, and at the λ ppi_py tunes (PPI++'s plug-in, handed to ek as a number), ek is ppi_py."""
    ppi = pytest.importorskip("ppi_py")
    proxy, audit, y, y_hat, y_unlabelled = _mean_case()
    ref_lam = None if lam == "ppi_py's" else lam
    if lam == "ppi_py's":
        lam = _ppi_py_lam(y, y_hat, y_unlabelled)
        assert 0 < lam < 1
    est = ek.estimate_corpus(proxy, audit, lam=lam)
    point = float(np.squeeze(ppi.ppi_mean_pointestimate(y, y_hat, y_unlabelled, lam=ref_lam)))
    low, high = (float(np.squeeze(v)) for v in ppi.ppi_mean_ci(y, y_hat, y_unlabelled, alpha=0.05, lam=ref_lam))
    assert est.estimate == pytest.approx(point, abs=1e-11)
    assert est.interval[0] == pytest.approx(low, abs=1e-11) and est.interval[1] == pytest.approx(high, abs=1e-11)
    assert est.lam == lam and est.n == n and est.N == N


def test_a_tuned_mean_is_cross_fitted_with_ppi_py_s_lambda_per_fold():
    """``lam="tune"``: fold ``i mod 5`` of the audit is corrected at ppi_py's λ tuned on the other four folds."""
    pytest.importorskip("ppi_py")
    proxy, audit, y, y_hat, y_unlabelled = _mean_case()
    est = ek.estimate_corpus(proxy, audit)
    fold = np.arange(n) % 5
    lams = [_ppi_py_lam(y[fold != f], y_hat[fold != f], y_unlabelled) for f in range(5)]
    assert est.detail["lam_folds"] == pytest.approx(lams, abs=1e-11)
    per_item = np.asarray(lams)[fold]
    theta = per_item.mean() * y_unlabelled.mean() + (y - per_item * y_hat).mean()
    within = sum(50 * (y - per_item * y_hat)[fold == f].var() for f in range(5)) / (n - 5)  # 5 folds of 50
    var = per_item.mean() ** 2 * y_unlabelled.var() / len(y_unlabelled) + within / n
    assert est.estimate == pytest.approx(theta, abs=1e-11) and est.lam == pytest.approx(per_item.mean(), abs=1e-12)
    t = pytest.importorskip("scipy.stats").t.ppf(0.975, n - 5)  # Student t, a degree of freedom per fold
    assert est.detail["df"] == n - 5 and "Student t" in est.detail["interval"]
    assert est.interval[1] - est.estimate == pytest.approx(t * math.sqrt(var), abs=1e-11)
    assert "cross-fitted" in est.detail["lam"] and est.detail["reliable"] is True


def _ppi_py_lam(y, y_hat, y_unlabelled):
    """ppi_py's PPI++ λ for a mean (`ppi_mean_ci` with ``lam=None``): at the λ = 1 estimate, clipped."""
    ppi = pytest.importorskip("ppi_py")
    from ppi_py.ppi import _calc_lam_glm

    theta = float(np.squeeze(ppi.ppi_mean_pointestimate(y, y_hat, y_unlabelled, lam=1)))
    tuned = _calc_lam_glm(
        (y - theta)[:, None], (y_hat - theta)[:, None], (y_unlabelled - theta)[:, None], np.eye(1), clip=True
    )
    return float(np.squeeze(tuned))


# --- the ratio formula for CER ----------------------------------------------------------


@pytest.mark.parametrize("lam", [0.0, 1.0, 0.6])
def test_cer_interval_is_the_ratio_formula(corpus, lam):
    proxy, audit = reports(corpus)
    e, r, e_hat, r_hat, e_u, r_u = arrays(corpus, proxy, audit)
    n_u = len(e_u)
    b = lam * r_u.mean() + (r - lam * r_hat).mean()
    theta = (lam * e_u.mean() + (e - lam * e_hat).mean()) / b
    var = (
        lam**2 * (e_u - theta * r_u).var() / n_u + ((e - theta * r) - lam * (e_hat - theta * r_hat)).var() / n
    ) / b**2
    est = ek.estimate_corpus(proxy, audit, lam=lam)
    assert est.estimate == pytest.approx(theta, abs=1e-12)
    assert est.interval[0] == pytest.approx(theta - Z95 * math.sqrt(var), abs=1e-9)
    assert est.interval[1] == pytest.approx(theta + Z95 * math.sqrt(var), abs=1e-9)
    assert est.lam == lam


def test_cer_tuned_lambda_is_ppi_plus_plus_plug_in_cross_fitted(corpus):
    """Each fold's λ is PPI++'s plug-in over the other folds, at their λ = 1 estimate (ppi_py's formula)."""
    proxy, audit = reports(corpus)
    e, r, e_hat, r_hat, e_u, r_u = arrays(corpus, proxy, audit)
    fold = np.arange(n) % 5

    def plug_in(keep):
        le, lr, lh, lrh = e[keep], r[keep], e_hat[keep], r_hat[keep]
        theta1 = (e_u.mean() + (le - lh).mean()) / (r_u.mean() + (lr - lrh).mean())  # the λ = 1 estimate
        psi, psi_hat = le - theta1 * lr, lh - theta1 * lrh
        everything = np.concatenate([psi_hat, e_u - theta1 * r_u])
        cov = ((psi - psi.mean()) * (psi_hat - psi_hat.mean())).mean()
        return min(1.0, max(0.0, cov / ((1 + len(le) / len(e_u)) * np.var(everything, ddof=1))))

    lams = [plug_in(fold != f) for f in range(5)]
    est = ek.estimate_corpus(proxy, audit)
    assert est.detail["lam_folds"] == pytest.approx(lams, abs=1e-9) and 0 < est.lam < 1
    per_item = np.asarray(lams)[fold]
    lam = per_item.mean()
    theta = (lam * e_u.mean() + (e - per_item * e_hat).mean()) / (lam * r_u.mean() + (r - per_item * r_hat).mean())
    assert est.estimate == pytest.approx(theta, abs=1e-10) and est.lam == pytest.approx(lam, abs=1e-9)
    assert est.interval[1] - est.interval[0] < est.classical["interval"][1] - est.classical["interval"][0]
    assert est.effective_n > n
    assert est.classical["estimate"] == pytest.approx(e.sum() / r.sum(), abs=1e-12)
    assert est.plug_in == pytest.approx(proxy.aggregate, abs=1e-12)


@pytest.mark.parametrize("lam", [0.0, 0.6])
def test_the_planner_is_the_ratio_formula_at_another_audit_size(corpus, lam):
    """A pilot's half-width for m labels: the audit's part of the ratio formula over m, the proxy's over N - m."""
    proxy, audit = reports(corpus)
    e, r, e_hat, r_hat, e_u, r_u = arrays(corpus, proxy, audit)
    b = lam * r_u.mean() + (r - lam * r_hat).mean()
    theta = (lam * e_u.mean() + (e - lam * e_hat).mean()) / b
    spread_u, spread_l = (e_u - theta * r_u).var(), ((e - theta * r) - lam * (e_hat - theta * r_hat)).var()
    pilot = ek.estimate_corpus(proxy, audit, lam=lam)
    assert pilot.half_width_for(n) == pytest.approx((pilot.interval[1] - pilot.interval[0]) / 2, rel=1e-9)
    for m in (40, 1000, 2900):
        var = (lam**2 * spread_u / (N - m) + spread_l / m) / b**2
        assert pilot.half_width_for(m) == pytest.approx(Z95 * math.sqrt(var), rel=1e-9), m
    need = pilot.labels_for(0.004)
    assert pilot.half_width_for(need) <= 0.004 < pilot.half_width_for(need - 1)
    if lam == 0:  # the audit alone: the half-width goes as 1 / sqrt(m), so 4x the labels halve it
        half = pilot.half_width_for(n)
        assert pilot.half_width_for(4 * n) == pytest.approx(half / 2, rel=1e-12)
        assert pilot.labels_for(half / 1.7) == math.ceil(n * 1.7**2)


def test_a_small_pilot_predicts_the_half_width_of_the_full_audit(corpus):
    proxy, audit = reports(corpus)
    few = corpus["audited"][::5]  # 50 of the 250
    pilot_audit = ek.evaluate(
        [(corpus["pred"][k], corpus["gold"][k]) for k in few], metric="cer", ids=[corpus["ids"][k] for k in few]
    )
    pilot, full = ek.estimate_corpus(proxy, pilot_audit, lam=0.5), ek.estimate_corpus(proxy, audit, lam=0.5)
    predicted, actual = pilot.half_width_for(n), (full.interval[1] - full.interval[0]) / 2
    assert predicted == pytest.approx(actual, rel=0.25)  # a pilot of 50 knows its variance to about 20%
    assert predicted > (pilot.interval[1] - pilot.interval[0]) / 2 * math.sqrt(50 / n)  # the proxy's part stays


def test_the_bootstrap_agrees_with_the_clt_within_monte_carlo_error(corpus):
    proxy, audit = reports(corpus)
    clt = ek.estimate_corpus(proxy, audit)
    boot = ek.estimate_corpus(proxy, audit, interval="bootstrap")
    assert boot.estimate == clt.estimate and boot.lam == clt.lam
    width_clt, width_boot = (x.interval[1] - x.interval[0] for x in (clt, boot))
    assert width_boot == pytest.approx(width_clt, rel=0.12)  # 1,000 replicates: about 5% Monte Carlo error
    assert abs((boot.interval[0] + boot.interval[1]) / 2 - clt.estimate) < 0.15 * width_clt
    again = ek.estimate_corpus(proxy, audit, interval="bootstrap")
    assert again.interval == boot.interval  # id-hash weights: the same on every call


# --- slices, planned audits, small audits ----------------------------------------------


def test_each_slice_is_estimated_and_tuned_on_its_own(corpus):
    proxy, audit = reports(corpus, sliced=True)
    est = ek.estimate_corpus(proxy, audit)
    assert set(est.per_slice) == {"clean", "noisy"}
    for label, entry in est.per_slice.items():
        keep = [k for k, s in enumerate(corpus["slices"]) if s == label]
        part = {
            **corpus,
            "pred": [corpus["pred"][k] for k in keep],
            "gold": [corpus["gold"][k] for k in keep],
            "stand_in": [corpus["stand_in"][k] for k in keep],
            "ids": [corpus["ids"][k] for k in keep],
        }
        part["audited"] = [j for j, k in enumerate(keep) if k in set(corpus["audited"])]
        alone = ek.estimate_corpus(*reports(part))
        assert entry["estimate"] == pytest.approx(alone.estimate, abs=1e-12)
        assert entry["lam"] == pytest.approx(alone.lam, abs=1e-12)
        assert entry["interval"] == pytest.approx(alone.interval, abs=1e-12)
        assert entry["N"] == len(keep) and entry["n"] == alone.n
    assert set(est.per_slice["clean"]) >= {
        "estimate",
        "interval",
        "classical",
        "plug_in",
        "lam",
        "effective_n",
        "n",
        "N",
    }


def test_a_planned_audit_is_weighed_by_inverse_inclusion_probability(corpus):
    proxy, _ = reports(corpus)
    plan = ek.plan_audit(proxy, 300, strategy="active", seed=3)
    where = {i: k for k, i in enumerate(corpus["ids"])}
    rows = [where[i] for i in plan.ids]
    audit = ek.evaluate([(corpus["pred"][k], corpus["gold"][k]) for k in rows], metric="cer", ids=list(plan.ids))
    est = ek.estimate_corpus(proxy, audit, plan=plan, lam=0.5)
    pi = np.array(plan.probabilities)
    e = np.array([s.detail["edits"] for s in audit.scores], dtype=float)
    r = np.array([s.detail["ref_len"] for s in audit.scores], dtype=float)
    e_all = np.array([s.detail["edits"] for s in proxy.scores], dtype=float)
    r_all = np.array([s.detail["ref_len"] for s in proxy.scores], dtype=float)
    e_hat, r_hat = e_all[rows], r_all[rows]
    edits = 0.5 * e_all.sum() + ((e - 0.5 * e_hat) / pi).sum()
    length = 0.5 * r_all.sum() + ((r - 0.5 * r_hat) / pi).sum()
    assert est.estimate == pytest.approx(edits / length, abs=1e-12)
    assert est.classical["estimate"] == pytest.approx((e / pi).sum() / (r / pi).sum(), abs=1e-12)
    assert "Poisson sample" in est.detail["design"]


def test_a_slice_with_fewer_than_two_audited_items_has_no_interval_and_says_why():
    cases = [("ab", "ab", "a"), ("ax", "ab", "a"), ("ab", "ab", "b"), ("xb", "ab", "b"), ("ab", "ab", "c")] * 10
    ids = list(range(len(cases)))
    proxy = ek.evaluate([(p, g, s) for p, g, s in cases], metric="cer", ids=ids)
    audited = [0, 1, 5, 6, 2]  # slice a: 4 items, b: 1, c: none
    audit = ek.evaluate([cases[k] for k in audited], metric="cer", ids=audited)
    est = ek.estimate_corpus(proxy, audit)
    b, c = est.per_slice["b"], est.per_slice["c"]
    assert math.isnan(b["interval"][0]) and "at least 2" in b["note"] and b["n"] == 1 and b["lam"] == 1.0
    assert c["estimate"] is None and c["n"] == 0 and "no audited item" in c["note"]
    assert not math.isnan(est.per_slice["a"]["interval"][0]) and "below 40" in est.per_slice["a"]["note"]


def test_a_bootstrap_of_fewer_than_40_audited_items_gives_no_interval(corpus):
    proxy, _ = reports(corpus)
    few = corpus["audited"][:30]
    audit = ek.evaluate(
        [(corpus["pred"][k], corpus["gold"][k]) for k in few], metric="cer", ids=[corpus["ids"][k] for k in few]
    )
    est = ek.estimate_corpus(proxy, audit, interval="bootstrap")
    assert math.isnan(est.interval[0]) and "from 40" in est.detail["note"]


def test_columns_are_read_once_and_kept_on_the_report(corpus):
    proxy, audit = reports(corpus)
    from ek._corpus_estimates._columns import columns

    ek.estimate_corpus(proxy, audit)
    kept = columns(proxy, role="proxy", who="test")
    ek.estimate_corpus(proxy, audit, lam=0.2)
    assert columns(proxy, role="proxy", who="test") is kept
    assert "_ppi_columns" not in proxy.__dict__  # kept by the report's resampler: nothing is written onto a report
    assert proxy == reports(corpus)[0]  # the cache is no field: reports still compare equal


# --- pairing ----------------------------------------------------------------------------


def test_two_engines_on_one_audit_pair_up(corpus):
    proxy_a, audit_a = reports(corpus)
    better = {
        **corpus,
        "pred": [
            p.replace("x", g[k]) if len(p) == len(g) else p for p, g in zip(corpus["pred"], corpus["gold"]) for k in [0]
        ],
    }
    proxy_b, audit_b = reports(better)
    a, b = ek.estimate_corpus(proxy_a, audit_a, lam=0.4), ek.estimate_corpus(proxy_b, audit_b, lam=0.7)
    result = ek.compare_estimates(a, b)
    assert result.delta == pytest.approx(b.estimate - a.estimate, abs=1e-12)
    assert result.a == a.estimate and result.b == b.estimate and result.n == n
    unpaired = math.hypot(*((x.interval[1] - x.interval[0]) / 2 for x in (a, b)))
    assert (result.interval[1] - result.interval[0]) / 2 < unpaired
    assert result.verdict in ("better", "no detectable difference") and result.p_value <= 1
    assert (result.reliable, result.why) == (a.detail["reliable"] and b.detail["reliable"], None)
    # λ = 0 for both: the paired classical difference, Var_L(ψ_B - ψ_A) / n
    a0, b0 = ek.estimate_corpus(proxy_a, audit_a, lam=0.0), ek.estimate_corpus(proxy_b, audit_b, lam=0.0)
    cmp0 = ek.compare_estimates(a0, b0)
    ea, ra = (np.array([s.detail[k] for s in audit_a.scores], dtype=float) for k in ("edits", "ref_len"))
    eb, rb = (np.array([s.detail[k] for s in audit_b.scores], dtype=float) for k in ("edits", "ref_len"))
    ta, tb = ea.sum() / ra.sum(), eb.sum() / rb.sum()
    var = ((eb - tb * rb) / rb.mean() - (ea - ta * ra) / ra.mean()).var() / n
    assert cmp0.interval[1] - cmp0.delta == pytest.approx(Z95 * math.sqrt(var), abs=1e-9)
    boot = ek.compare_estimates(
        *(ek.estimate_corpus(p, q, interval="bootstrap") for p, q in ((proxy_a, audit_a), (proxy_b, audit_b)))
    )
    assert boot.interval[0] < boot.delta < boot.interval[1]


def test_compare_estimates_refuses_estimates_of_different_audits(corpus):
    proxy, audit = reports(corpus)
    other = ek.evaluate(list(zip(corpus["pred"][:50], corpus["gold"][:50])), metric="cer", ids=corpus["ids"][:50])
    with pytest.raises(ValueError, match="same items"):
        ek.compare_estimates(ek.estimate_corpus(proxy, audit), ek.estimate_corpus(proxy, other))
    with pytest.raises(TypeError, match="not a CorpusEstimate"):
        ek.compare_estimates(ek.estimate_corpus(proxy, audit), audit)


# --- proxies ----------------------------------------------------------------------------


def test_agreement_proxy_scores_against_the_rover_consensus_of_several_engines():
    proxy = ek.agreement_proxy(
        ["the cat sat", "a dog"], [["the cat sit", "the cat sat", "the bat sat"], "a dig"], metric="cer", ids=["x", "y"]
    )
    assert [s.detail["edits"] for s in proxy.scores] == [0, 1]
    with pytest.raises(ValueError, match="2 predictions and 1 references"):
        ek.agreement_proxy(["a", "b"], ["a"])
    with pytest.raises(TypeError, match="ROVER fuses transcriptions only"):
        ek.agreement_proxy([{"a": 1}], [[{"a": 1}, {"a": 2}]], metric="fields")


def test_confidence_proxy_gives_expected_statistics_through_a_calibrator():
    cal = ek.PlattCalibrator().fit([0.9, 0.8, 0.95, 0.3, 0.2, 0.4, 0.85, 0.1], [1, 1, 1, 0, 0, 0, 1, 0])
    proxy = ek.confidence_proxy([[0.9, 0.2], [0.95]], metric="cer", calibrator=cal, ids=["a", "b"])
    p = [float(x) for x in cal([0.9, 0.2, 0.95])]
    first = proxy.scores[0].detail
    assert first["edits"] == pytest.approx((1 - p[0]) + (1 - p[1]))
    assert first["ref_len"] == 2
    assert first["uncertainty"] == pytest.approx(math.sqrt(p[0] * (1 - p[0]) + p[1] * (1 - p[1])))
    fields = ek.confidence_proxy([{"total": 0.5, "date": 1.0}], metric="fields")
    assert dict(fields.scores[0].detail) == {"tp": 1.5, "fp": 0.5, "fn": 0.5, "uncertainty": 0.5}
    assert fields.aggregate == pytest.approx(0.75)
    with pytest.raises(ValueError, match="not a probability"):
        ek.confidence_proxy([[1.5]], metric="cer")
    with pytest.raises(ValueError, match="sums \\('distance', 'max_distance'\\)"):
        ek.confidence_proxy([[0.5]], metric="typed_graph")


# --- bad input --------------------------------------------------------------------------


def test_bad_input_is_refused_with_the_problem_and_the_fix(corpus):
    proxy, audit = reports(corpus)
    stranger = ek.evaluate([("a", "a"), ("b", "c")], metric="cer", ids=["nope-1", "nope-2"])
    with pytest.raises(ValueError, match=r"2 of the 2 audited ids are not in the corpus.*'nope-1', 'nope-2'"):
        ek.estimate_corpus(proxy, stranger)
    wer = ek.evaluate(
        [(corpus["pred"][k], corpus["gold"][k]) for k in corpus["audited"]],
        metric="wer",
        ids=[corpus["ids"][k] for k in corpus["audited"]],
    )
    with pytest.raises(ValueError, match="'cer' proxy and a 'wer' audit"):
        ek.estimate_corpus(proxy, wer)
    lowered = ek.evaluate(
        [(corpus["pred"][k], corpus["gold"][k]) for k in corpus["audited"]],
        metric="cer",
        normalize=["lower"],
        ids=[corpus["ids"][k] for k in corpus["audited"]],
    )
    with pytest.raises(ValueError, match="another normalisation"):
        ek.estimate_corpus(proxy, lowered)
    one = ek.evaluate([(corpus["pred"][0], corpus["gold"][0])], metric="cer", ids=[corpus["ids"][0]])
    with pytest.raises(ValueError, match="at least 2 audited items"):
        ek.estimate_corpus(proxy, one)
    for options, pattern in (
        ({"lam": 2}, "lam must be"),
        ({"lam": "best"}, "lam must be 'tune'"),
        (
            {"level": 95},
            r"^estimate_corpus\(\) level must be a number between 0 and 1 \(e\.g\. 0\.95 for a 95% interval\), got 95\.$",
        ),
        ({"interval": "exact"}, "interval must be 'clt'"),
        ({"plan": [1]}, "ek.AuditPlan"),
    ):
        with pytest.raises((ValueError, TypeError), match=pattern):
            ek.estimate_corpus(proxy, audit, **options)
    with pytest.raises(TypeError, match="not a Report"):
        ek.estimate_corpus([1, 2], audit)


def test_a_proxy_without_summed_statistics_or_with_bad_statistics_is_refused():
    custom = ek.metric(lambda p, g: float(p == g), aggregate=lambda scores: 0.5, name="custom_test")
    proxy = ek.evaluate([("a", "a"), ("b", "c")], metric=custom, ids=["a", "b"])
    with pytest.raises(ValueError, match="the proxy report cannot be used.*custom function"):
        ek.estimate_corpus(proxy, proxy)
    for bad, word in ((float("nan"), "nan"), (-1.0, "-1.0")):
        scores = [
            ek.Score(0.1, detail={"edits": bad, "ref_len": 10}),
            ek.Score(0.1, detail={"edits": 1, "ref_len": 10}),
        ]
        report = ek.merge_reports(ek.Report(metric="cer", n=2, scores=scores, detail={"ids": ("p", "q")}), metric="cer")
        with pytest.raises(ValueError, match=f"proxy item 'p' has edits = {word}; every statistic must be a finite"):
            ek.estimate_corpus(report, report)
        good = ek.merge_reports(
            ek.Report(metric="cer", n=2, scores=scores[::-1], detail={"ids": ("q", "p")}), metric="cer"
        )
        good_proxy = ek.merge_reports(
            ek.Report(metric="cer", n=2, scores=[scores[1]] * 2, detail={"ids": ("p", "q")}), metric="cer"
        )
        with pytest.raises(ValueError, match=f"audit item 'p' has edits = {word}.*Fix or drop that item"):
            ek.estimate_corpus(good_proxy, good)
