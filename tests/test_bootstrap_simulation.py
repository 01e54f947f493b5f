"""The bootstrap is honest: simulated corpora whose true CER is known.

Corpora are simulated at the level of per-document statistics: a document
of ``ref_len`` characters has a difficulty ``p ~ Beta`` and ``edits ~
Binomial(ref_len, p)``, so the true corpus CER is the Beta mean. The
statistics go through `ek.evaluate` with a metric that reads them off the
case (the CER's own ``compute``), so every interval below is made by the
same code as any `Report.interval` and `ek.compare`. Seeds are fixed: each
test is one deterministic experiment, sized so that a correct procedure
passes with a wide margin.
"""

from __future__ import annotations

import numpy as np
import pytest

import ek
from ek._bootstrap import MIN_ITEMS
from ek.base import Score
from ek.metrics import StringMetric, SummedStatistics

TRUE_CER = 0.05
CONCENTRATION = 40.0  # Beta(2, 38): documents differ a lot in difficulty


class CountsCER(SummedStatistics):
    """CER from statistics carried by the case itself: pred is ``(edits, ref_len)``."""

    name = "cer"
    higher_is_better = False
    statistics = ("edits", "ref_len")
    compute = staticmethod(StringMetric().compute)

    def __call__(self, pred, gold, *, grammar=None):
        edits, ref_len = pred
        return Score(edits / ref_len, metric="cer", detail={"edits": edits, "ref_len": ref_len})


METRIC = CountsCER()


def corpus(rng, n, *, lengths=(20, 101)):
    ref_len = rng.integers(*lengths, size=n)
    p = rng.beta(TRUE_CER * CONCENTRATION, (1 - TRUE_CER) * CONCENTRATION, size=n)
    return ref_len, p


def report(edits, ref_len, ids):
    return ek.evaluate([((int(e), int(r)), None) for e, r in zip(edits, ref_len)], metric=METRIC, ids=ids)


def test_the_95_interval_covers_the_true_cer_95_percent_of_the_time():
    rng = np.random.default_rng(20240601)
    trials, n = 1000, 400
    covered = 0
    for t in range(trials):
        ref_len, p = corpus(rng, n)
        low, high = report(rng.binomial(ref_len, p), ref_len, [f"c{t}-d{i}" for i in range(n)]).interval(0.95)
        covered += low <= TRUE_CER <= high
    assert 0.93 <= covered / trials <= 0.97, covered / trials


def test_compare_rarely_calls_a_difference_between_equal_systems():
    rng = np.random.default_rng(20240602)
    trials, n = 1000, 500
    alarms = 0
    for t in range(trials):
        ref_len, p = corpus(rng, n)  # the same documents (and difficulties) for both systems
        ids = [f"c{t}-d{i}" for i in range(n)]
        c = ek.compare(report(rng.binomial(ref_len, p), ref_len, ids), report(rng.binomial(ref_len, p), ref_len, ids))
        alarms += c.p_value < 0.05
        assert (c.p_value < 0.05) == (c.verdict != "no detectable difference")
    assert alarms / trials <= 0.06, alarms / trials


def test_compare_detects_a_one_point_cer_difference_on_2000_documents():
    rng = np.random.default_rng(20240603)
    trials, n = 100, 2000
    found = 0
    for t in range(trials):
        ref_len = np.full(n, 60)
        p = rng.beta(TRUE_CER * CONCENTRATION, (1 - TRUE_CER) * CONCENTRATION, size=n)
        ids = [f"c{t}-d{i}" for i in range(n)]
        a = report(rng.binomial(ref_len, p), ref_len, ids)
        b = report(rng.binomial(ref_len, np.clip(p + 0.01, 0, 1)), ref_len, ids)  # one point worse
        c = ek.compare(a, b)
        found += c.verdict == "worse" and c.p_value < 0.05
    assert found / trials >= 0.8, found / trials


@pytest.mark.parametrize("n", [2, 5, 10, 20, 50])
def test_a_handful_of_documents_gives_no_false_certainty(n):
    """Equal systems on n documents: p < 0.05 in at most 6% of comparisons, and honest intervals or none.

    Below `MIN_ITEMS` there is no interval and the p-value is the sign-flip
    test's (none below 0.05 before 6 documents); from it on, the bootstrap's,
    confirmed by that test.
    """
    rng = np.random.default_rng(20240610 + n)
    # Where intervals are given, 2,000 trials put the bounds 3 standard errors from the rates expected
    # (about 94% coverage, under 5% alarms); below the minimum the test is exact, so 1,000 do.
    trials = 2000 if n >= MIN_ITEMS else 1000
    alarms = covered = 0
    for t in range(trials):
        ref_len, p = corpus(rng, n)
        ids = [f"s{n}-c{t}-d{i}" for i in range(n)]
        a, b = (report(rng.binomial(ref_len, p), ref_len, ids) for _ in "ab")
        c = ek.compare(a, b)
        alarms += c.p_value < 0.05
        assert (c.p_value < 0.05) == (c.verdict in ("better", "worse")), c
        low, high = a.interval(0.95)
        if n < MIN_ITEMS:
            assert low != low and high != high and c.interval[0] != c.interval[0]
            assert (c.verdict == f"too few items (n={n}) to tell") == (n <= 5)
        else:
            covered += low <= TRUE_CER <= high
    assert alarms / trials <= 0.06, alarms / trials
    if n >= MIN_ITEMS:
        assert covered / trials >= 0.92, covered / trials
    else:
        assert n > 5 or alarms == 0


def test_interval_agrees_with_scipy_percentile_bootstrap():
    from scipy import stats

    rng = np.random.default_rng(20240604)
    for t, n in enumerate((150, 600)):
        ref_len, p = corpus(rng, n)
        edits = rng.binomial(ref_len, p)
        ours = report(edits, ref_len, [f"s{t}-{i}" for i in range(n)]).interval(0.95)
        ref = stats.bootstrap(
            (edits, ref_len),
            lambda e, r, axis=-1: e.sum(axis) / r.sum(axis),
            paired=True,
            vectorized=True,
            n_resamples=20_000,
            method="percentile",
            confidence_level=0.95,
            random_state=np.random.default_rng(t),
        )
        spread = ref.bootstrap_distribution.std()
        # Monte Carlo error of a 2.5% quantile from 1,000 replicates is about 0.09 spread; allow 4 of those.
        assert ours[0] == pytest.approx(ref.confidence_interval.low, abs=0.35 * spread)
        assert ours[1] == pytest.approx(ref.confidence_interval.high, abs=0.35 * spread)
        # Resampling characters instead of documents would be far too narrow: the check has teeth.
        assert (ours[1] - ours[0]) > 1.3 * 2 * 1.96 * np.sqrt(TRUE_CER * (1 - TRUE_CER) / ref_len.sum())


def test_end_to_end_through_real_strings():
    """Noisy strings scored by CER give the interval their (edits, ref_len) give."""
    rng = np.random.default_rng(20240605)
    letters = np.array(list("abcdefghij "))
    golds = [
        "".join(rng.choice(letters[:-1], size=1)) + "".join(rng.choice(letters, size=int(k)))
        for k in rng.integers(20, 80, 300)
    ]
    preds = ["".join(c if rng.random() > 0.06 else rng.choice(letters[:-1]) for c in g) for g in golds]
    ids = [f"page-{i}" for i in range(300)]
    strings = ek.evaluate(list(zip(preds, golds)), metric="cer", ids=ids)
    edits = [s.detail["edits"] for s in strings.scores]
    ref_len = [s.detail["ref_len"] for s in strings.scores]
    assert strings.interval() == report(edits, ref_len, ids).interval()
    low, high = strings.interval()
    assert low < strings.aggregate < high and 0.02 < low and high < 0.1
