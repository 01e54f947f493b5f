"""The bootstrap is honest: simulated corpora whose true CER is known.

Corpora are simulated at the level of per-document statistics: a document
of ``ref_len`` characters has a difficulty ``p ~ Beta`` and ``edits ~
Binomial(ref_len, p)``, so the true corpus CER is the Beta mean. Seeds are
fixed: each test is one deterministic experiment, sized so that a correct
procedure passes with a wide margin.

Every trial's documents are drawn from the seeded generator one trial after
another, as one ek.evaluate per trial would take them; the trials are then
resampled all at once, through the functions `Report.interval` and
`ek.compare` delegate to (the interval's bootstrap-t is worked here in numpy
from its definition). An item's bootstrap weights depend on its id alone,
so one `replicate_sums` over the documents of every trial, a trial per
group, gives each trial the replicate sums a report of it alone gets. The
interval is ek's `interval_of` of the replicates' t, the paired p-value
the symmetric bootstrap-t's (`paired_t`, worked in numpy from its
definition), the permutation test is `sign_flip_p_value`, and
`comparisons` says how compare combines them. A sample of the trials (see
`comparisons`) goes through `ek.evaluate` (with a metric that reads the
statistics off the case, the CER's own ``compute``), `Report.interval` and
`ek.compare` too, and must give the same interval, p-value and verdict.
Counted by ek.evaluate and ek.compare trial by trial, every figure below
came out the same (e.g. 946 of 1,000 bootstrap-t intervals covering, where
939 percentile ones did; 43 alarms).
"""

from __future__ import annotations

import numpy as np
import pytest

import ek
from ek._bootstrap import MIN_ITEMS, interval_of, replicate_sums, sign_flip_p_value, verdict
from ek.base import Score
from ek.metrics import StringMetric, SummedStatistics

TRUE_CER = 0.05
CONCENTRATION = 40.0  # Beta(2, 38): documents differ a lot in difficulty
CHECKED_EVERY = 25  # trials 0, 25, 50, ... are also run through the public API
ALPHA = 0.05


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


def trial_ids(trials, n, prefix=""):
    return [[f"{prefix}c{t}-d{i}" for i in range(n)] for t in range(trials)]


def replicate_cers(ids, ref_len, *edits):
    """Each system's CER in every bootstrap replicate of every trial, ``(systems, trials, B)``.

    NaN where a replicate drew no document of the trial, as `Report.interval` leaves it out.
    """
    trials, n = ref_len.shape
    table = np.stack([column for e in edits for column in (e, ref_len)], axis=-1).reshape(trials * n, -1)
    sums = replicate_sums([i for row in ids for i in row], table, np.repeat(np.arange(trials), n), trials)
    drew = sums[..., -1] > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.stack([np.where(drew, sums[..., 2 * s] / sums[..., 2 * s + 1], np.nan) for s in range(len(edits))])


def intervals(ids, ref_len, edits, level=0.95):
    """Each trial's `Report.interval` (checked against it on every `CHECKED_EVERY`-th trial).

    The bootstrap-t: in every replicate, ``t* = (r* - r) / se*`` with the
    linearised ratio's standard error ``se = sqrt(Σw (e - r l)²) / Σw l``
    (``w`` the replicate's weights, all 1 for ``r``); the interval is
    ``r - t*_{hi} se .. r - t*_{lo} se`` at ek's quantiles of the ``t*``.
    """
    trials, n = ref_len.shape
    flat = [i for row in ids for i in row]
    table = np.stack([edits * edits, edits * ref_len, ref_len * ref_len, edits, ref_len], axis=-1).reshape(
        trials * n, 5
    )
    sums = replicate_sums(flat, table, np.repeat(np.arange(trials), n), trials).astype(float)
    ee, el, ll, e, length, drew = (sums[..., j] for j in range(6))
    out = []
    for t in range(trials):
        r0 = edits[t].sum() / ref_len[t].sum()
        se0 = np.sqrt(((edits[t] - r0 * ref_len[t]) ** 2).sum()) / ref_len[t].sum()
        ok = drew[t] > 0
        r = e[t][ok] / length[t][ok]
        se = np.sqrt(np.maximum(ee[t][ok] - 2 * r * el[t][ok] + r * r * ll[t][ok], 0)) / length[t][ok]
        lo_t, hi_t = interval_of(((r - r0) / se)[se > 0].tolist(), level)
        out.append((r0 - hi_t * se0, r0 - lo_t * se0))
    for t in range(0, trials, CHECKED_EVERY):
        assert report(edits[t], ref_len[t], ids[t]).interval(level) == pytest.approx(out[t], rel=1e-12), t
    return out


def paired_t(ids, ref_len, edits_a, edits_b):
    """Each trial's symmetric bootstrap-t of B - A: ``(delta, se, sorted |t*|, the replicate differences)``.

    Both runs read the same lengths, so each run's linearised term differs
    by ``(δ - Δ l) / Σw l`` with ``δ = e_B - e_A`` and ``Δ`` the difference
    of the CERs: in every replicate ``se*² = Σw (δ - Δ* l)² / (Σw l)²``,
    ``t* = (Δ* - Δ) / se*``.
    """
    trials, n = ref_len.shape
    flat = [i for row in ids for i in row]
    delta = edits_b - edits_a
    table = np.stack([delta * delta, delta * ref_len, ref_len * ref_len, delta, ref_len], axis=-1)
    sums = replicate_sums(flat, table.reshape(trials * n, 5), np.repeat(np.arange(trials), n), trials).astype(float)
    dd, dl, ll, d, length, drew = (sums[..., j] for j in range(6))
    out = []
    for t in range(trials):
        d0 = delta[t].sum() / ref_len[t].sum()
        se0 = np.sqrt(((delta[t] - d0 * ref_len[t]) ** 2).sum()) / ref_len[t].sum()
        ok = drew[t] > 0
        r = d[t][ok] / length[t][ok]
        se = np.sqrt(np.maximum(dd[t][ok] - 2 * r * dl[t][ok] + r * r * ll[t][ok], 0)) / length[t][ok]
        out.append((d0, se0, np.sort(np.abs((r - d0)[se > 0] / se[se > 0])), r))
    return out


def paired_interval(d0, se0, t, r, level=0.95):
    """``d0 ± q se0`` at numpy's ``level`` quantile ``q`` of ``|t*|``, within the replicate differences ``r``."""
    q = np.quantile(t, level)
    return max(d0 - q * se0, r.min()), min(d0 + q * se0, r.max())


def paired_p(d0, se0, t, r):
    """``1 - L`` for the level ``L`` whose quantile of ``|t*|`` is ``|d0| / se0``, at least ``1 / B``."""
    m, t0 = len(t), abs(d0) / se0
    if r.min() > 0 or r.max() < 0 or t0 >= t[-1]:
        return 1 / m
    return max(1 / m, 1 - np.interp(t0, t, np.arange(m)) / (m - 1))


def comparisons(ids, ref_len, edits_a, edits_b):
    """``(outcomes, made)``: each trial's ``(p_value, verdict)`` of ``ek.compare(A, B)``, and the comparisons made.

    From `MIN_ITEMS` documents, as compare reaches them: the p-value of the
    paired symmetric bootstrap-t (`paired_t`), which stands under 0.05
    only when the permutation test's is under 0.05 too (else that one
    replaces it); the verdict is the interval's under 0.05 and "no
    detectable difference" otherwise. Below, the permutation test's p-value,
    and a trial under 0.05 is compared by ek.compare for its verdict (None
    for the others). Every `CHECKED_EVERY`-th trial, every trial where the
    two tests disagree and every `CHECKED_EVERY`-th bootstrap p-value under
    0.05 is compared by ek.compare too and must give the same p-value and
    verdict; ``made`` holds those comparisons.
    """
    trials, n = ref_len.shape
    tables = [np.stack([e, ref_len], axis=-1) for e in (edits_a, edits_b)]

    def exact(t):
        return sign_flip_p_value(ids[t], tables[0][t], tables[1][t], METRIC.compute, METRIC.statistics)

    check = set(range(0, trials, CHECKED_EVERY))
    if n >= MIN_ITEMS:
        outcomes, under = [], []
        for t, student in enumerate(paired_t(ids, ref_len, edits_a, edits_b)):
            p = paired_p(*student)
            if p < ALPHA:  # checked by the permutation test, whose p-value replaces it unless under 0.05 too
                confirm = exact(t)
                if confirm >= ALPHA:
                    p = confirm
                    check.add(t)  # every trial where the two tests disagree
                under.append(t)
            shown = (
                verdict(*paired_interval(*student), METRIC.higher_is_better)
                if p < ALPHA
                else "no detectable difference"
            )
            outcomes.append((p, shown))
        check.update(under[::CHECKED_EVERY])  # and a sample of the bootstrap's p-values under 0.05
    else:
        outcomes = [(exact(t), None) for t in range(trials)]
        check.update(t for t, (p, _) in enumerate(outcomes) if p < ALPHA)
    made = {}
    for t, (p, shown) in enumerate(outcomes):
        if t in check:
            c = made[t] = ek.compare(report(edits_a[t], ref_len[t], ids[t]), report(edits_b[t], ref_len[t], ids[t]))
            assert c.p_value == pytest.approx(p, rel=1e-9) and shown in (None, c.verdict), (t, c, p, shown)
            outcomes[t] = (p, c.verdict)
    return outcomes, made


def draws(rng, trials, n, systems, **lengths):
    """``ref_len`` and each system's edits, ``(trials, n)`` arrays, drawn trial after trial from ``rng``."""
    ref_len = np.empty((trials, n), dtype=np.int64)
    edits = np.empty((systems, trials, n), dtype=np.int64)
    for t in range(trials):
        ref_len[t], p = corpus(rng, n, **lengths)
        for s in range(systems):
            edits[s, t] = rng.binomial(ref_len[t], p)
    return ref_len, edits


def test_the_95_interval_covers_the_true_cer_95_percent_of_the_time():
    trials, n = 1000, 400
    ref_len, (edits,) = draws(np.random.default_rng(20240601), trials, n, 1)
    covered = sum(low <= TRUE_CER <= high for low, high in intervals(trial_ids(trials, n), ref_len, edits))
    assert 0.93 <= covered / trials <= 0.97, covered / trials


def test_compare_rarely_calls_a_difference_between_equal_systems():
    trials, n = 1000, 500
    ref_len, (a, b) = draws(np.random.default_rng(20240602), trials, n, 2)  # the same documents for both
    outcomes, made = comparisons(trial_ids(trials, n), ref_len, a, b)
    for c in made.values():
        assert (c.p_value < 0.05) == (c.verdict != "no detectable difference")
    alarms = sum(p < 0.05 for p, _ in outcomes)
    assert alarms / trials <= 0.06, alarms / trials


def test_compare_detects_a_one_point_cer_difference_on_2000_documents():
    rng = np.random.default_rng(20240603)
    trials, n = 100, 2000
    ref_len = np.full((trials, n), 60)
    a, b = np.empty((2, trials, n), dtype=np.int64)
    for t in range(trials):
        p = rng.beta(TRUE_CER * CONCENTRATION, (1 - TRUE_CER) * CONCENTRATION, size=n)
        a[t] = rng.binomial(ref_len[t], p)
        b[t] = rng.binomial(ref_len[t], np.clip(p + 0.01, 0, 1))  # one point worse
    outcomes, _ = comparisons(trial_ids(trials, n), ref_len, a, b)
    found = sum(shown == "worse" and p < 0.05 for p, shown in outcomes)
    assert found / trials >= 0.8, found / trials


@pytest.mark.parametrize("n", [2, 5, 10, 20, 50])
def test_a_handful_of_documents_gives_no_false_certainty(n):
    """Equal systems on n documents: p < 0.05 in at most 6% of comparisons, and honest intervals or none.

    Below `MIN_ITEMS` there is no interval and the p-value is the sign-flip
    test's (none below 0.05 before 6 documents); from it on, the bootstrap's,
    confirmed by that test.
    """
    # Where intervals are given, 2,000 trials put the bounds 3 standard errors from the rates expected
    # (about 94% coverage, under 5% alarms); below the minimum the test is exact, so 1,000 do.
    trials = 2000 if n >= MIN_ITEMS else 1000
    ref_len, (a, b) = draws(np.random.default_rng(20240610 + n), trials, n, 2)
    ids = trial_ids(trials, n, prefix=f"s{n}-")
    outcomes, made = comparisons(ids, ref_len, a, b)
    for t, c in made.items():
        assert (c.p_value < 0.05) == (c.verdict in ("better", "worse")), c
        if n < MIN_ITEMS:
            low, high = report(a[t], ref_len[t], ids[t]).interval(0.95)
            assert low != low and high != high and c.interval[0] != c.interval[0]
            assert (c.verdict == f"too few items (n={n}) to tell") == (n <= 5)
    alarms = sum(p < 0.05 for p, _ in outcomes)
    assert alarms / trials <= 0.06, alarms / trials
    if n >= MIN_ITEMS:
        covered = sum(low <= TRUE_CER <= high for low, high in intervals(ids, ref_len, a))
        assert covered / trials >= 0.92, covered / trials
    else:
        assert n > 5 or alarms == 0


def test_interval_agrees_with_scipy_percentile_and_a_plain_bootstrap_t():
    from scipy import stats

    from ek._bootstrap import bounds

    rng = np.random.default_rng(20240604)
    for t, n in enumerate((150, 600)):
        ref_len, p = corpus(rng, n)
        edits = rng.binomial(ref_len, p)
        made = report(edits, ref_len, [f"s{t}-{i}" for i in range(n)])
        percentile = bounds(made, 0.95, method="percentile").pair()
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
        assert percentile[0] == pytest.approx(ref.confidence_interval.low, abs=0.35 * spread)
        assert percentile[1] == pytest.approx(ref.confidence_interval.high, abs=0.35 * spread)
        # The printed interval is the bootstrap-t: 20,000 multinomial resamples give it to the same tolerance.
        ours = made.interval(0.95)
        r0 = edits.sum() / ref_len.sum()
        se0 = np.sqrt(((edits - r0 * ref_len) ** 2).sum()) / ref_len.sum()
        pick = np.random.default_rng(t).integers(0, n, size=(20_000, n))
        e, length = edits[pick], ref_len[pick]
        r = e.sum(axis=1) / length.sum(axis=1)
        se = np.sqrt(((e - r[:, None] * length) ** 2).sum(axis=1)) / length.sum(axis=1)
        lo_t, hi_t = np.quantile((r - r0) / se, [0.025, 0.975])
        assert ours[0] == pytest.approx(r0 - hi_t * se0, abs=0.35 * spread)
        assert ours[1] == pytest.approx(r0 - lo_t * se0, abs=0.35 * spread)
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
