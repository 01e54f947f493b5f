"""The tuned λ of ek.estimate_corpus (issue 30): no small-sample bias, one λ for a paired difference, degenerate cases.

Seeded simulations of a few seconds each, on statistic columns through
`ek._stats._prediction_powered.estimate` (what `ek.estimate_corpus` runs): a corpus of
N = 5,000 documents, lengths lognormal (median 55, σ = 0.5), error rates
Beta(2, 38), edits Binomial(length, rate), a proxy of the edits of
correlation 0.9 and the true lengths. CER is summed edits over summed length.
``scripts/ppi_grid.py`` runs the whole grid of the issue.
"""

from __future__ import annotations

import math

import pytest

import ek

np = pytest.importorskip("numpy")

from ek._stats._prediction_powered import estimate, moments, normal_interval, without  # noqa: E402

N = 5_000


def cer(t):
    return t[0] / t[1]


def documents(rng, size=N):
    length = np.maximum(1, np.round(np.exp(rng.normal(4, 0.5, size)))).astype(np.int64)
    return length, rng.beta(2, 38, size)


def proxy_of(edits, rng, rho=0.9):
    return np.maximum(0.0, edits + rng.normal(0, edits.std() * math.sqrt(1 / rho**2 - 1), edits.shape))


def relative_errors(n, lam, reps, seed):
    """``(estimate - truth) / truth`` of ``reps`` uniform audits of ``n`` items of one corpus."""
    rng = np.random.default_rng(seed)
    length, rate = documents(rng)
    edits = rng.binomial(length, rate).astype(float)
    gold = np.column_stack([edits, length]).astype(float)
    proxy = np.column_stack([proxy_of(edits, rng), length]).astype(float)
    truth, whole = cer(gold.sum(axis=0)), moments(proxy)
    out = []
    for _ in range(reps):
        rows = rng.choice(N, n, replace=False)
        fig = estimate(without(whole, moments(proxy[rows])), proxy[rows], gold[rows], cer, lam=lam)
        out.append(fig.estimate / truth - 1)
    return np.asarray(out)


@pytest.mark.parametrize("n", [20, 60])
def test_the_tuned_estimate_has_no_small_sample_bias(n):
    """PPI++'s plug-in λ, tuned on the audit it corrects, is biased low (-2% at n = 20); "tune" is not.

    The plug-in λ grows with the audit's own proxy mean, so audits whose
    proxy errors run high get corrected down more. "tune" corrects each of
    5 folds at the λ tuned on the other 4. Both on the same audits.
    """
    reps = 3000 if n == 20 else 1500
    plug_in, tuned = relative_errors(n, "plug-in", reps, 5), relative_errors(n, "tune", reps, 5)
    se = tuned.std() / math.sqrt(reps)
    assert abs(tuned.mean()) < 3 * se, (tuned.mean(), se)
    if n == 20:
        assert plug_in.mean() < -4 * plug_in.std() / math.sqrt(reps), plug_in.mean()


def test_one_lambda_on_the_paired_difference_keeps_false_positives_at_the_level():
    """Two equal engines (both edits drawn at the same rates), n = 30: the 90% interval of B - A misses 0 ≤ 11.5%.

    Each replication draws both engines afresh over the same documents.
    """
    rng = np.random.default_rng(8)
    length, rate = documents(rng)
    reps, rejected = 1200, 0

    def delta(t):
        return t[2] / t[3] - t[0] / t[1]

    for _ in range(reps):
        a, b = rng.binomial(length, rate).astype(float), rng.binomial(length, rate).astype(float)
        gold = np.column_stack([a, length, b, length]).astype(float)
        proxy = np.column_stack([proxy_of(a, rng), length, proxy_of(b, rng), length]).astype(float)
        rows = rng.choice(N, 30, replace=False)
        rest = without(moments(proxy), moments(proxy[rows]))
        fig = estimate(rest, proxy[rows], gold[rows], delta)
        low, high = normal_interval(fig.estimate, fig.std_error, 0.9, fig.df)  # compare_estimates' interval
        rejected += int(not low <= 0 <= high)
    assert rejected / reps <= 0.115, rejected / reps


def test_compare_estimates_tunes_one_lambda_on_the_difference():
    """Tuned estimates: the difference is its own cross-fitted estimate, not b - a; its p-value is its t interval's."""
    rng = np.random.default_rng(9)
    gold = [" ".join(rng.choice(["total", "amount", "due", "invoice"], size=4)) for _ in range(400)]
    ids = [f"d{i}" for i in range(400)]

    def engine(rate):
        return ["".join(c if rng.random() > rate else "x" for c in g) for g in gold]

    pred_a, pred_b = engine(0.05), engine(0.03)
    audited = sorted(rng.choice(400, 30, replace=False).tolist())

    def estimated(pred, level):
        proxy = ek.agreement_proxy(pred, engine(0.02), ids=ids)
        audit = ek.evaluate([(pred[i], gold[i]) for i in audited], metric="cer", ids=[ids[i] for i in audited])
        return ek.estimate_corpus(proxy, audit, level=level)

    for level in (0.9, 0.99):
        a, b = estimated(pred_a, level), estimated(pred_b, level)
        result = ek.compare_estimates(a, b)
        assert result.a == a.estimate and result.b == b.estimate and result.delta != b.estimate - a.estimate
        low, high = result.interval
        assert low < result.delta < high and abs(result.delta - (b.estimate - a.estimate)) < (high - low) / 2
        assert (result.p_value < 1 - level) == (not low <= 0 <= high)


@pytest.mark.parametrize("seed", range(20))
def test_a_constant_proxy_gets_lambda_zero_exactly(seed):
    """The same proxy statistics on every item (any magnitude): λ = 0, never 1 from float residue."""
    rng = np.random.default_rng(seed)
    row = rng.random(2) * 10.0 ** rng.integers(-3, 6) + [0, 1]
    proxy = np.tile(row, (N, 1))
    gold = np.column_stack([rng.poisson(3, N), rng.integers(20, 90, N)]).astype(float)
    at = rng.choice(N, 120, replace=False)
    rest = without(moments(proxy), moments(proxy[at]))
    for lam in ("tune", "plug-in"):
        fig = estimate(rest, proxy[at], gold[at], cer, lam=lam)
        assert fig.lam == 0.0, (lam, fig.lam)
        assert fig.estimate == pytest.approx(gold[at, 0].sum() / gold[at, 1].sum(), rel=1e-12)


def test_a_constant_mean_proxy_through_estimate_corpus():
    exact = ek.metric(lambda p, g: float(p == g), aggregate="mean", name="exact_const", higher_is_better=True)
    ids = [f"i{k}" for k in range(300)]
    proxy = ek.evaluate([(1.0, 1.0)] * 300, metric=exact, ids=ids)
    audit = ek.evaluate([(1.0, float(k % 4 != 0)) for k in range(0, 300, 3)], metric=exact, ids=ids[::3])
    est = ek.estimate_corpus(proxy, audit)
    assert est.lam == 0.0 and est.estimate == pytest.approx(0.75, abs=1e-12)
    assert est.detail["lam"].startswith("0: the proxy never varies")


def test_a_clean_slice_of_three_perfect_documents_has_a_floored_interval_and_is_flagged():
    """3 audited documents, all perfect, in a slice the proxy also calls perfect: the interval keeps a width.

    The floor is half an edit's Poisson noise over the audit: the classical
    CER's standard error is ``sqrt(1/2) / (audited reference length)``
    (before, both intervals were (0, 0)).
    """
    words = ["invoice", "total", "amount", "due", "customer"]
    rng = np.random.default_rng(4)
    gold = [" ".join(rng.choice(words, size=5)) for _ in range(200)]
    pred = [g if k < 40 else g.replace("o", "0") for k, g in enumerate(gold)]  # the first 40: clean and perfect
    slices = ["clean" if k < 40 else "rest" for k in range(200)]
    ids = [f"d{k}" for k in range(200)]
    proxy = ek.agreement_proxy(pred, pred, ids=ids, slices=slices)  # the stand-in agrees everywhere
    audited = [0, 1, 2] + list(range(40, 200, 8))
    audit = ek.evaluate([(pred[k], gold[k], slices[k]) for k in audited], metric="cer", ids=[ids[k] for k in audited])
    est = ek.estimate_corpus(proxy, audit)
    clean = est.per_slice["clean"]
    assert clean["estimate"] == 0.0 and clean["n"] == 3
    low, high = clean["interval"]
    assert high - low > 0 and low < 0 < high
    c_low, c_high = clean["classical"]["interval"]
    length = sum(len(gold[k]) for k in (0, 1, 2))
    t = pytest.importorskip("scipy.stats").t.ppf(0.975, 2)  # beside a tuned interval: Student t, n - 1
    assert (c_high - c_low) / 2 == pytest.approx(t * math.sqrt(0.5) / length, rel=1e-6)
    assert clean["reliable"] is False
    assert (
        clean["why"]
        == "3 audited items, fewer than 10: too few for the interval to cover at its level; audit at least 10"
    )
    assert est.per_slice["rest"]["reliable"] is True and est.per_slice["rest"]["why"] is None
    assert est.detail["reliable"] is True and est.detail["why"] is None


@pytest.mark.parametrize("df", [1, 2, 3, 5, 10, 30, 245, math.inf])
def test_student_quantile_and_p_value_agree_with_scipy(df):
    stats = pytest.importorskip("scipy.stats")
    from ek._stats._prediction_powered import p_value, student_quantile

    for p in (0.9, 0.95, 0.975, 0.995):
        exact = stats.norm.ppf(p) if math.isinf(df) else stats.t.ppf(p, df)
        tolerance = 1e-12 if df in (1, 2, math.inf) else (1e-2 if df == 3 else 1e-3)
        assert student_quantile(p, df) == pytest.approx(exact, rel=tolerance)
    for t in (0.5, 1.7, 2.6):
        exact = 2 * (stats.norm.sf(t) if math.isinf(df) else stats.t.sf(t, df))
        assert p_value(t, 1.0, df) == pytest.approx(exact, rel=2e-2 if df == 3 else 5e-3)


def test_compare_estimates_flags_what_either_estimate_flags():
    """A slice with 4 audited items, and a corpus resting on one long document: flagged, the verdict says why."""
    words = ("total", "amount", "due", "invoice", "date")
    gold = [" ".join(words[(i + j) % 5] for j in range(1000 if i == 0 else 2)) for i in range(60)]
    ids = [f"d{i}" for i in range(60)]
    where = ["rare" if 26 <= i < 30 or i >= 56 else "common" for i in range(60)]  # 4 of "rare" audited

    def garble(text, every):
        return "".join("x" if k % every == 0 else c for k, c in enumerate(text))

    def estimated(every):
        pred = [garble(g, every) for g in gold]
        proxy = ek.agreement_proxy(pred, [garble(g, 29) for g in gold], ids=ids, slices=where)
        audit = ek.evaluate([(pred[i], gold[i], where[i]) for i in range(30)], metric="cer", ids=ids[:30])
        return ek.estimate_corpus(proxy, audit, level=0.9)

    a, b = estimated(11), estimated(13)
    result = ek.compare_estimates(a, b)
    assert a.detail["reliable"] is False and b.detail["reliable"] is False
    assert result.verdict == f"not reliable: engine A: {a.detail['why']}; engine B: {b.detail['why']}"
    assert result.reliable is False and result.why == f"engine A: {a.detail['why']}; engine B: {b.detail['why']}"
    assert a.detail["why"].startswith("1 of 60 items hold")
    rare = result.per_slice["rare"]
    few = "4 audited items, fewer than 10: too few for the interval to cover at its level; audit at least 10"
    assert rare["n"] == 4 and rare["reliable"] is False
    assert rare["why"] == f"engine A: {few}; engine B: {few}" and rare["verdict"] == f"not reliable: {rare['why']}"
    assert math.isfinite(rare["interval"][0])  # the interval is kept, flagged
