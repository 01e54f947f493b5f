"""Heavy-tailed document lengths (issue 30, items 1 and 3): the effective audit size, the flag, and "tune"'s fallback.

Seeded cells of scripts/ppi_grid.py, small enough for the suite: N = 5,000
documents, lengths lognormal (median 55) or Pareto (α = 1.2, from 20),
error rates Beta(2, 38), edits Binomial(length, rate), a proxy of the edits
of correlation ``rho`` and the true lengths; CER is summed edits over summed
length. Every figure comes from `ek._stats._prediction_powered.estimate`, what
`ek.estimate_corpus` runs; a flagged interval is one ek prints
``reliable: false`` (fewer than 10 audited items, or an effective size
below 5).
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

np = pytest.importorskip("numpy")

from ek._corpus_estimates._corpus import MIN_EFFECTIVE, MIN_RELIABLE  # noqa: E402
from ek._stats._prediction_powered import TUNE_EFFECTIVE, effective_size, estimate, moments, student_quantile, without  # noqa: E402

N = 5_000


def cer(t):
    return t[0] / t[1]


def corpus(lengths, rho, seed):
    """``(gold, proxy)``, each ``(N, 2)``: edits and reference length (the proxy knows the lengths)."""
    rng = np.random.default_rng(seed)
    if lengths == "pareto":
        length = np.round(20 * (rng.pareto(1.2, N) + 1))
    else:
        length = np.maximum(1, np.round(np.exp(rng.normal(4, lengths, N))))
    edits = rng.binomial(length.astype(np.int64), rng.beta(2, 38, N)).astype(float)
    noise = rng.normal(0, edits.std() * math.sqrt(1 / rho**2 - 1), N)
    return np.column_stack([edits, length]), np.column_stack([np.maximum(0.0, edits + noise), length]), rng


def flagged(fig):
    return fig.n < MIN_RELIABLE or fig.effective_size < MIN_EFFECTIVE


def cell(lengths, n, reps, seed, rho=0.5, level=0.9):
    """Over ``reps`` uniform audits: 90% coverage per λ (tune, 0, 1) on the same audits, tuned's flags and coverage kept."""
    gold, proxy, rng = corpus(lengths, rho, seed)
    truth, whole = cer(gold.sum(axis=0)), moments(proxy)
    hits = {"tune": 0, 0.0: 0, 1.0: 0}
    flags = kept = 0
    for _ in range(reps):
        rows = rng.choice(N, n, replace=False)
        rest = without(whole, moments(proxy[rows]))
        for lam in hits:
            fig = estimate(rest, proxy[rows], gold[rows], cer, lam=lam)
            hit = abs(fig.estimate - truth) <= student_quantile((1 + level) / 2, fig.df) * fig.std_error
            hits[lam] += int(hit)
            if lam == "tune":
                flags += int(flagged(fig))
                kept += int(hit and not flagged(fig))
    cover = {lam: h / reps for lam, h in hits.items()}
    return cover, flags / reps, (kept / (reps - flags) if flags < reps else math.nan)


def test_the_effective_size_is_kish_of_the_lengths_over_the_audit_and_over_the_corpus():
    """For CER the weights are the reference lengths (``w / π`` when planned); the least of the two sizes."""
    gold, proxy, rng = corpus(1.0, 0.9, 3)
    length = proxy[:, 1]
    rows = rng.choice(N, 200, replace=False)
    rest = without(moments(proxy), moments(proxy[rows]))
    fig = estimate(rest, proxy[rows], gold[rows], cer)

    def kish(w):
        return w.sum() ** 2 / (w**2).sum()

    assert fig.effective_size == pytest.approx(min(kish(length[rows]), 200 * kish(length) / N), rel=1e-9)
    pi = np.clip(length / length.sum() * 200, 0.01, 1.0)  # a plan favouring long documents
    drawn = np.flatnonzero(rng.random(N) < pi)
    rest = without(moments(proxy), moments(proxy[drawn]))
    planned = estimate(rest, proxy[drawn], gold[drawn], cer, inclusion=pi[drawn])
    expected = min(kish(length[drawn] / pi[drawn]), len(drawn) * kish(length) / N)
    assert planned.effective_size == pytest.approx(expected, rel=1e-9)


def test_below_the_tuning_size_tune_is_plain_ppi_with_the_effective_degrees_of_freedom():
    """An effective size under 80: λ = 1 exactly, one fold, t at min(n - 1, effective size - 1)."""
    gold, proxy, rng = corpus(1.5, 0.9, 4)
    rows = rng.choice(N, 200, replace=False)
    rest = without(moments(proxy), moments(proxy[rows]))
    tuned, plain = estimate(rest, proxy[rows], gold[rows], cer), estimate(rest, proxy[rows], gold[rows], cer, lam=1.0)
    assert tuned.effective_size < TUNE_EFFECTIVE and tuned.lam == 1.0 and tuned.folds == (1.0,)
    assert tuned.estimate == pytest.approx(plain.estimate, rel=1e-12)
    assert tuned.df == pytest.approx(min(199, tuned.effective_size - 1), rel=1e-12)
    assert plain.df == math.inf  # a fixed λ keeps ppi_py's normal interval


@pytest.mark.parametrize(
    ("lengths", "n", "rho"), [(0.5, 50, 0.5), (0.5, 200, 0.9), (1.0, 50, 0.5), (1.0, 200, 0.5), ("pareto", 200, 0.9)]
)
def test_tuned_intervals_cover_or_are_flagged_and_trail_no_fixed_lambda(lengths, n, rho):
    """1,000 audits a cell (MC s.e. 0.95 points at 90%): unflagged coverage ≥ 88.5% less 2 s.e.

    On the same audits the tuned interval's shortfall below 90% is at most
    the better fixed λ's plus 1 point (plus 2 s.e. of a paired difference,
    which is smaller than that of either). At σ = 0.5, n ≥ 50, fewer than 5%
    are flagged; Pareto lengths flag everything.
    """
    reps = 1000
    cover, share, kept = cell(lengths, n, reps, seed=30)
    se = math.sqrt(0.9 * 0.1 / reps)
    if share < 1:
        assert kept >= 0.885 - 2 * se, (cover, share, kept)
    shortfall = {lam: max(0.0, 0.9 - c) for lam, c in cover.items()}
    assert shortfall["tune"] <= min(shortfall[0.0], shortfall[1.0]) + 0.01 + 2 * se, cover
    if lengths == 0.5:
        assert share < 0.05, share
    if lengths == "pareto":
        assert share == 1.0, share


@settings(max_examples=60, deadline=None)
@given(
    lengths=st.lists(st.integers(1, 10_000), min_size=8, max_size=60),
    audited=st.integers(2, 8),
    scale=st.sampled_from([1, 3, 1000]),
)
def test_the_effective_size_is_at_most_n_scale_free_and_n_for_equal_lengths(lengths, audited, scale):
    """Kish's size: never above the audit, unchanged when every length is scaled, ``n`` when lengths are equal."""
    length = np.asarray(lengths, dtype=float)
    proxy = np.column_stack([np.ceil(0.05 * length), length])
    rows = np.arange(audited)

    def size(table):
        return effective_size(without(moments(table), moments(table[rows])), table[rows], cer)

    assert size(proxy) <= audited * (1 + 1e-12)
    assert size(proxy * scale) == pytest.approx(size(proxy), rel=1e-9)
    equal = np.column_stack([np.full(len(length), 2.0), np.full(len(length), 40.0)])
    assert size(equal) == pytest.approx(audited, rel=1e-9)
