"""Report.bounds: every interval covers on the grid, or says why not (issue 30 items 1-2).

The item weights are checked against the hand-derived denominators of CER
and micro-F1, Kish's size and Hill's index against their formulas worked by
hand, the t quantile against scipy, and two small seeded cells of
scripts/coverage_grid.py against the grid's figures (lognormal σ = 0.5
covers, Pareto α = 1.2 is flagged).
"""

from __future__ import annotations

import math
import pathlib
import sys
import warnings

import pytest

import ek
from ek._bootstrap._bounds import judged, linear_coefficients, log_skew_z, student_quantile, tail_index
from ek._bootstrap._reports import item_weights

np = pytest.importorskip("numpy")

SCRIPTS = pathlib.Path(__file__).resolve().parents[1] / "scripts"


def _grid():  # scripts/ is not a package: the grid is imported from its file
    sys.path.insert(0, str(SCRIPTS))
    try:
        import coverage_grid
    finally:
        sys.path.remove(str(SCRIPTS))
    return coverage_grid


EVEN = [("ct", "cat"), ("dog", "dog"), ("bird", "bird")] * 20  # 60 short documents, one error each 3
HUGE = [*EVEN, ("x" * 900, "y" * 900)]  # plus one document of 900 characters, all wrong


def test_an_even_corpus_is_reliable_and_bounds_are_the_interval():
    report = ek.evaluate(EVEN, metric="cer")
    b = report.bounds()
    assert b.reliable and b.why is None
    assert b.pair() == report.interval() and b.level == 0.95
    assert b.effective_n == pytest.approx((60 * 3 + 20) ** 2 / (40 * 9 + 20 * 16))  # Kish over 3,3,4 x 20


def test_one_huge_document_is_flagged_with_its_share_and_the_interval_warns():
    report = ek.evaluate(HUGE, metric="cer")
    total = 200 + 900
    b = report.bounds(0.9)
    assert not b.reliable and b.effective_n == pytest.approx(total**2 / (40 * 9 + 20 * 16 + 900**2))
    assert b.why == f"1 of 61 documents hold {900 / total:.0%} of the reference length: effective n ≈ 1.5"
    with pytest.warns(UserWarning) as caught:
        assert report.interval(0.9) == b.pair()
    assert [str(w.message) for w in caught] == [b.why]


def test_a_reliable_interval_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ek.evaluate(EVEN, metric="cer").interval()


def test_too_few_items_give_nan_bounds_that_say_so_and_no_warning():
    report = ek.evaluate(EVEN[:12], metric="cer")
    b = report.bounds()
    assert math.isnan(b.low) and math.isnan(b.high) and not b.reliable
    assert b.why == "12 items: an interval needs 40+"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert all(math.isnan(x) for x in report.interval())


def test_a_slice_is_judged_on_its_own_items():
    cases = (
        [(p, g, "even") for p, g in EVEN] + [(p, g, "mixed") for p, g in EVEN[:39]] + [("x" * 900, "y" * 900, "mixed")]
    )
    report = ek.evaluate(cases, metric="cer")
    assert report.bounds(slice="even").reliable
    mixed = report.bounds(slice="mixed")
    assert not mixed.reliable and mixed.why.startswith("1 of 40 documents hold ")
    assert not report.bounds().reliable  # the huge document is in the whole corpus too


def test_bounds_errors_are_the_intervals():
    report = ek.evaluate(EVEN, metric="cer")
    with pytest.raises(ValueError, match=r"^Report.bounds\(\) has no slice 'x'; the report's slices are: none\.$"):
        report.bounds(slice="x")
    with pytest.raises(
        ValueError, match=r"^level must be a number between 0 and 1 \(e\.g\. 0\.95 for a 95% interval\), got 2\.$"
    ):
        report.bounds(2)
    with pytest.raises(ValueError, match=r"^Report.interval\(\) has no slice 'x'"):
        report.interval(slice="x")


def test_a_summary_keeps_the_interval_and_cannot_weigh_its_items():
    report = ek.evaluate(HUGE, metric="cer")
    summary = ek.summarize(report) if hasattr(ek, "summarize") else None
    if summary is None:
        from ek._bootstrap import summarize

        summary = summarize(report)
    b = summary.bounds()
    assert b.pair() == report.bounds().pair() and b.reliable and math.isnan(b.effective_n)


def test_cer_weights_are_the_reference_lengths():
    report = ek.evaluate(HUGE, metric="cer")
    lengths = np.array([len(g) for _, g in HUGE], dtype=float)
    assert np.allclose(item_weights(report), lengths / lengths.sum(), rtol=1e-9)


def test_micro_f1_weights_are_its_denominator_fitted_and_probed_alike():
    tp, fp, fn = np.array([[3, 1, 0], [0, 2, 5], [10, 0, 1], [1, 1, 1], [7, 3, 2]] * 3, dtype=np.int64).T
    table = np.stack([tp, fp, fn], axis=1)

    def f1(t):
        return 2 * t["tp"] / (2 * t["tp"] + t["fp"] + t["fn"])

    out = linear_coefficients(table, ("tp", "fp", "fn"), f1, "statistics")
    den = 2 * tp + fp + fn
    assert np.allclose(out[:, 1], den / den.sum()) and np.allclose(out[:, 0], 2 * tp / den.sum())

    def curved(t):  # no ratio of linear forms fits: every item is probed on its own
        return f1(t) ** 2 if t["tp"] > -1 else 0.0

    probed = linear_coefficients(table, ("tp", "fp", "fn"), curved, "statistics")
    assert probed.shape == (15, 2) and np.all(probed[:, 1] >= 0)


def test_a_sum_ratio_metric_reads_its_denominator_column():
    table = np.array([[1, 10], [0, 30], [4, 60]])
    out = linear_coefficients(table, ("e", "n"), lambda t: t["e"] / t["n"], "sum_ratio")
    assert np.allclose(out, table / 100)


def test_judged_flags_low_effective_size_and_heavy_tails():
    assert judged([1.0] * 40, noun="items", of="weight") == (40.0, None)
    size, why = judged([1.0] * 20, noun="items", of="weight")
    assert size == 20 and why == "10 of 20 items hold 50% of the weight: effective n ≈ 20"
    # 200 weights whose top 20 are r^j times the 21st: Hill's index 1 / mean(j ln r) = 1 / (10.5 ln r) = 1.5
    r = math.exp(1 / (1.5 * 10.5))
    heavy = [1.0] * 180 + [r**j for j in range(20, 0, -1)]
    size, why = judged(heavy, noun="documents", of="reference length")
    assert tail_index(heavy) == (20, pytest.approx(1.5))
    assert size == pytest.approx(sum(heavy) ** 2 / sum(w * w for w in heavy)) and size >= 30
    assert why == (
        "the reference length of the largest 20 of 200 documents falls off like a power law of index 1.5 (under 2 "
        "over the largest tenth: a few unseen documents can hold most of it): effective n ≈ "
        f"{size:.0f} is not to be trusted"
    )


def test_tail_index_of_too_few_or_equal_weights_is_infinite():
    assert tail_index([1.0] * 5) == (10, math.inf)
    assert tail_index([3.0] * 200) == (20, math.inf)


@pytest.mark.parametrize("df", [0.7, 1, 2, 3.5, 9, 29, 400])
def test_student_quantile_is_scipys(df):
    stats = pytest.importorskip("scipy.stats")
    for p in (0.6, 0.95, 0.975, 0.025):
        assert student_quantile(p, df) == pytest.approx(stats.t.ppf(p, df), rel=1e-10)


def test_a_lognormal_audit_covers_unflagged():
    grid = _grid()
    cells = {c.level: c for c in grid.cell("cer", "lognormal 0.5", 200, 300, seed=0, methods=())}
    assert cells[0.9].flagged <= 0.01 and cells[0.9].coverage >= 0.86  # the skew check's 0.1% false flags
    assert cells[0.95].coverage >= 0.91


def test_a_pareto_audit_is_flagged_in_most_trials():
    grid = _grid()
    cells = {c.level: c for c in grid.cell("cer", "pareto 1.2", 200, 100, seed=4, methods=())}
    assert cells[0.9].flagged > 0.8


def test_judged_refuses_a_negative_or_nan_weight():
    for bad in ([1.0, -1.0], [1.0, math.nan]):
        with pytest.raises(ValueError, match=r"^a weight must be a non-negative number$"):
            judged(bad, noun="items", of="weight")


def test_a_light_largest_tenth_over_a_heavy_largest_half_is_flagged():
    # 200 weights whose largest 100 are r^j times the 101st: Hill's index over the half 1 / (50.5 ln r) = 1.2,
    # and r^100 = e^(100 / 60.6) ≈ 5.2 ≥ 4 times the threshold; the largest tenth alone has index 1 / (10.5 ln r) > 2
    r = math.exp(1 / (1.2 * 50.5))
    heavy = [1.0] * 100 + [r**j for j in range(100, 0, -1)]
    assert tail_index(heavy)[1] > 2 and tail_index(heavy, 2) == (100, pytest.approx(1.2))
    size, why = judged(heavy, noun="documents", of="reference length")
    assert why == (
        "the reference length of the largest 100 of 200 documents falls off like a power law of index 1.2 (under 1.6 "
        "over the largest half: a few unseen documents can hold most of it): effective n ≈ "
        f"{size:.0f} is not to be trusted"
    )


def test_two_sizes_of_weight_are_no_tail():
    # a half of weights 2 over a half of weights 1: Hill over the half says 1 / ln 2 = 1.4, but the largest
    # weight is only twice the threshold
    assert tail_index([2.0] * 20 + [1.0] * 20, 2) == (20, pytest.approx(1 / math.log(2)))
    assert judged([2.0] * 20 + [1.0] * 20, noun="items", of="weight") == (60**2 / (20 * 4 + 20), None)


def test_ratio_forms_are_cers_and_micro_f1s_and_none_for_a_curve():
    from ek._bootstrap._bounds import ratio_forms

    p, q = ratio_forms(lambda t: t["e"] / t["n"], ("e", "n"), [7, 90], "statistics")
    assert p.tolist() == [1.0, 0.0] and q.tolist() == [0.0, 1.0]  # probed, scaled and rounded to the exact forms

    def f1(t):
        return 2 * t["tp"] / (2 * t["tp"] + t["fp"] + t["fn"])

    p, q = ratio_forms(f1, ("tp", "fp", "fn"), [30, 0, 12], "statistics")  # fp = 0 is probed by a unit step
    assert p.tolist() == [1.0, 0.0, 0.0] and q.tolist() == [1.0, 0.5, 0.5]
    assert ratio_forms(lambda t: (t["e"] / t["n"]) ** 2, ("e", "n"), [7, 90], "statistics") is None


def test_moment_table_holds_the_products_of_each_items_statistics():
    from ek._bootstrap._bounds import moment_table

    out = moment_table(np.array([[1, 2, 3], [4, 5, 6]]))
    assert out.dtype == np.int64 and out.tolist() == [[1, 2, 3, 4, 6, 9], [16, 20, 24, 25, 30, 36]]
    assert moment_table(np.array([[2**21, 1]])).dtype == np.float64  # its square could overflow int64 sums


def test_a_summary_and_merged_parts_give_the_bootstrap_t_of_the_whole_per_slice():
    from ek._bootstrap import bounds, summarize

    rng = np.random.default_rng(3)
    golds = ["".join(rng.choice(list("abcde"), size=int(k))) for k in rng.integers(5, 60, 120)]
    preds = [g[:-1] + "x" if i % 3 else g for i, g in enumerate(golds)]
    cases = [(p, g, "ab"[i % 2]) for i, (p, g) in enumerate(zip(preds, golds))]
    ids = [f"d{i}" for i in range(120)]
    whole = ek.evaluate(cases, metric="cer", ids=ids)
    parts = [summarize(ek.evaluate(cases[a:b], metric="cer", ids=ids[a:b])) for a, b in ((0, 50), (50, 120))]
    merged = ek.merge_reports(*parts)
    for label in (None, "a", "b"):
        student = bounds(whole, 0.9, label).pair()
        assert student != bounds(whole, 0.9, label, method="percentile").pair()  # the bootstrap-t, not percentile
        assert summarize(whole).interval(0.9, slice=label) == student == merged.interval(0.9, slice=label)


def test_a_small_lognormal_audit_is_rarely_flagged_and_the_bootstrap_t_covers_more():
    grid = _grid()
    cells = {(c.level, c.method): c for c in grid.cell("cer", "lognormal 0.5", 50, 200, seed=1)}
    for level in (0.9, 0.95):
        student, percentile = cells[level, "student"], cells[level, "percentile"]
        assert student.flagged < 0.05 and student.width_ratio > 1.0
        assert student.coverage >= percentile.coverage and student.coverage >= level - 0.04


def test_log_skew_z_is_scipys_skewness_over_its_standard_error():
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(3)
    for w in (np.exp(rng.standard_normal(50)), 20 * (1 + rng.pareto(1.2, 200)), rng.integers(1, 9, 40)):
        n = len(w)
        se = math.sqrt(6 * n * (n - 1) / ((n - 2) * (n + 1) * (n + 3)))
        assert log_skew_z(w) == pytest.approx(stats.skew(np.log(w)) / se, rel=1e-9)
    assert log_skew_z([5.0] * 19 + [500.0]) != 0 and log_skew_z([5.0] * 18 + [500.0]) == 0.0  # 20 weights at least
    assert log_skew_z([0.0] * 30 + [3.0] * 30) == 0.0  # weightless items left out: the rest are equal


def test_weights_whose_logs_lean_right_are_flagged_where_the_hill_checks_pass():
    # 200 weights at the quantiles of a Pareto of index 2.2: logs exponential, skewness near 2; Hill sees ~2.2
    logs = [-math.log(1 - (i + 0.5) / 200) / 2.2 for i in range(200)]
    weights = [math.exp(v) for v in logs]
    assert tail_index(weights)[1] > 2 and 1.6 < tail_index(weights, 2)[1] < 2.5
    z = log_skew_z(weights)
    assert z > 3
    size, why = judged(weights, noun="documents", of="reference length")
    assert size >= 30 and why == (
        f"the logarithms of the reference length of the 200 documents are skewed right by {z:.1f} standard errors "
        "(over 3: a power-law tail, whose unseen largest documents can hold most of it): effective n ≈ "
        f"{size:.0f} is not to be trusted"
    )
    assert judged([math.exp(-v) for v in logs], noun="documents", of="reference length")[1] is None  # skewed left
    # index 3: as skewed, but its variance is finite, and the check is not applied
    lighter = [math.exp(-math.log(1 - (i + 0.5) / 200) / 3) for i in range(200)]
    assert log_skew_z(lighter) > 3 and tail_index(lighter, 2)[1] > 2.5
    assert judged(lighter, noun="documents", of="reference length")[1] is None
