"""ek._bootstrap: the hash-derived Poisson weights, Report.interval, merging, summaries and ek.compare.

The statistical properties (coverage, false alarms, power, agreement with
scipy) are simulated in tests/test_bootstrap_simulation.py.
"""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
import warnings
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ek
from ek import _bootstrap
from ek._bootstrap._weights import _keys, _weights, replicate_sums
from ek.base import Report, Score

CASES = [("ct", "cat", "a"), ("dog", "dog", "a"), ("brd", "bird", "b"), ("fish", "fsh", "b"), ("cow", "cow", "b"),
         ("emu", "emus", "a"), ("owl", "owl", "b"), ("yak", "yam", "a")] * 5
IDS = [f"doc-{i}" for i in range(len(CASES))]


def weights_by_hand(item_id, b):
    """The weight as the package docstring defines it, written again from the text."""
    text = item_id if isinstance(item_id, str) else str(item_id)
    mask = 2**64 - 1
    key = 0xCBF29CE484222325  # FNV-1a, 64 bits, over the UTF-8 bytes, then the byte count
    for byte in list(text.encode()) + [len(text.encode())]:
        key = ((key ^ byte) * 0x100000001B3) & mask
    z = (key + (b // 8 + 1) * 0x9E3779B97F4A7C15) & mask
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
    z ^= z >> 31
    u = (z >> (8 * (b % 8))) & 0xFF
    return sum(u >= c for c in (94, 189, 235, 251, 255))


# --- the weights --------------------------------------------------------------------------


def test_vectorised_weights_follow_the_documented_definition():
    ids = ["doc-1", "x", "", "naïve", "7", 12345, "a" * 700, "é" * 9]
    expected = [[weights_by_hand(i, b) for b in range(37)] for i in ids]
    assert _weights(_keys(ids), 37).tolist() == expected
    assert [_bootstrap.weight(i, b) for i in ids for b in range(37)] == sum(expected, [])


def test_an_integer_id_hashes_as_its_decimal_text():
    assert _weights(_keys([7]), 64).tolist() == _weights(_keys(["7"]), 64).tolist()
    assert _bootstrap.id_text(7) == "7" and _bootstrap.id_text(np.int64(7)) == "7"
    assert _bootstrap.id_text(("a", 1)) == "('a', 1)"


def test_weights_are_a_discretised_poisson_with_mean_and_variance_one():
    w = _weights(_keys([f"item-{i}" for i in range(4000)]), 1000).ravel()
    counts = Counter(w.tolist())
    expected = {0: 94, 1: 95, 2: 46, 3: 16, 4: 4, 5: 1}
    n = len(w)
    for k, share in expected.items():  # 4,000,000 draws: within 5 standard errors of each probability
        p = share / 256
        assert abs(counts[k] / n - p) < 5 * (p * (1 - p) / n) ** 0.5
    assert set(counts) == set(expected)
    assert abs(w.mean() - 1) < 0.003 and abs(w.var() - 1) < 0.005


def test_weights_of_items_and_replicates_are_uncorrelated():
    w = _weights(_keys([f"item-{i}" for i in range(3000)]), 1000).astype(float)
    across_items = np.corrcoef(w[:-1].ravel(), w[1:].ravel())[0, 1]
    across_replicates = np.corrcoef(w[:, :-1].ravel(), w[:, 1:].ravel())[0, 1]
    within_a_hash = np.corrcoef(w[:, 0::8].ravel(), w[:, 1::8].ravel())[0, 1]
    assert max(abs(across_items), abs(across_replicates), abs(within_a_hash)) < 0.01  # 3e6 pairs: SE 6e-4


def test_replicate_sums_are_exact_for_large_integers_and_floats():
    ids = ["a", "b", "c"]
    big = np.array([[3, 2**40], [5, 7], [0, 2**35]], dtype=np.int64)  # past the int32 fast path
    sums = replicate_sums(ids, big, np.zeros(3, dtype=np.int64), 1, replicates=50)[0]
    w = np.array([[weights_by_hand(i, b) for i in ids] for b in range(50)])
    assert sums[:, :2].tolist() == (w @ big).tolist() and sums[:, 2].tolist() == w.sum(axis=1).tolist()
    floats = np.array([[0.5], [0.25], [2.0]])
    assert np.allclose(replicate_sums(ids, floats, np.zeros(3, dtype=np.int64), 1, replicates=50)[0][:, 0],
                       w @ floats[:, 0])


def test_the_interval_is_the_same_in_another_process():
    code = ("import ek, json; r = ek.evaluate([('ct', 'cat'), ('dog', 'dog'), ('bird', 'brd')] * 9, "
            "metric='cer', ids=[f'd{i}' for i in range(27)]); print(json.dumps(r.interval()))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    here = ek.evaluate([("ct", "cat"), ("dog", "dog"), ("bird", "brd")] * 9, metric="cer",
                       ids=[f"d{i}" for i in range(27)])
    assert json.loads(out.stdout) == list(here.interval())


# --- p-values and intervals ---------------------------------------------------------------


def test_p_value_edges():
    assert _bootstrap.p_value_of([0.0] * 1000) == 1.0
    assert _bootstrap.p_value_of(np.linspace(0.1, 1, 1000)) == 1 / 1000  # never shown as 0
    assert _bootstrap.p_value_of(np.linspace(-1, 1, 1001)) == pytest.approx(1.0)
    d = np.linspace(-0.25, 0.75, 1001)  # 0 sits at the 25th percentile
    assert _bootstrap.p_value_of(d) == pytest.approx(0.5)
    ties = [-1.0] * 974 + [0.0, 0.0] + [1.0] * 24  # a run of zeros: the interval's end sits on it
    assert _bootstrap.interval_of(ties, 0.95)[1] == 0.0 and _bootstrap.p_value_of(ties) > 0.05


@settings(max_examples=120, deadline=None)
@given(st.lists(st.sampled_from([-3.0, -1.0, -0.5, 0.0, 0.0, 0.25, 1.0, 2.0]) | st.floats(-10, 10), min_size=20,
                max_size=200),
       st.sampled_from([0.8, 0.9, 0.95, 0.99]))
def test_p_below_one_minus_level_exactly_when_the_interval_excludes_zero(d, level):
    low, high = _bootstrap.interval_of(d, level)
    p = _bootstrap.p_value_of(d)
    if abs(p - (1 - level)) > 1e-9 and p > 1 / len(d):  # away from the boundary and the 1/B floor
        assert (p < 1 - level) == (low > 0 or high < 0), (p, low, high)


def test_interval_is_numpys_percentile_and_ignores_empty_replicates():
    rng = np.random.default_rng(0)
    for n in (1, 2, 7, 999, 1000):
        v = list(rng.normal(size=n))
        for level in (0.5, 0.9, 0.95):
            tail = (1 - level) / 2
            expected = tuple(float(x) for x in np.quantile(v, [tail, 1 - tail]))
            assert _bootstrap.interval_of(v + [float("nan")], level) == expected  # bit for bit
    one = ek.evaluate([("ct", "cat", "tiny")] + [("dog", "dog", "big")] * 30, metric="cer")
    assert one.interval(slice="tiny") == (1 / 3, 1 / 3)  # replicates that drew no item are left out


# --- Report.interval ----------------------------------------------------------------------


def test_interval_brackets_the_figure_and_narrows_with_more_documents():
    small = ek.evaluate(CASES, metric="cer")
    big = ek.evaluate(CASES * 20, metric="cer")
    assert small.aggregate == big.aggregate
    (lo_s, hi_s), (lo_b, hi_b) = small.interval(), big.interval()
    assert lo_s < small.aggregate < hi_s and lo_b < big.aggregate < hi_b
    assert (hi_b - lo_b) < (hi_s - lo_s) / 3  # 20x the documents: about 1/sqrt(20) the width
    assert small.interval(0.5)[1] - small.interval(0.5)[0] < hi_s - lo_s


def test_per_slice_intervals_equal_the_interval_of_the_slice_alone():
    report = ek.evaluate(CASES, metric="cer", ids=IDS)
    for label in ("a", "b"):
        part = [(p, g) for p, g, s in CASES if s == label]
        ids = [i for i, (_, _, s) in zip(IDS, CASES) if s == label]
        assert report.interval(slice=label) == ek.evaluate(part, metric="cer", ids=ids).interval()


def test_interval_errors_say_what_to_do():
    report = ek.evaluate(CASES, metric="cer")
    with pytest.raises(ValueError, match="no slice 'z'; the report's slices are: 'a', 'b'"):
        report.interval(slice="z")
    with pytest.raises(ValueError, match="level must be a number between 0 and 1"):
        report.interval(1.5)
    with pytest.raises(ValueError, match="is empty: score some items first"):
        ek.evaluate([], metric="cer").interval()
    with pytest.raises(ValueError, match=r"does not know its metric .* ek.merge_reports\(report, metric=...\)"):
        Report(metric="cer", aggregate=0.1, n=1, scores=(Score(0.1, detail={"edits": 1, "ref_len": 10}),)).interval()
    hand = Report(metric="cer", n=1, scores=(Score(0.1, detail={"edits": 1, "ref_len": 10}),))
    assert ek.merge_reports(hand).interval() == (0.1, 0.1)
    custom = ek.metric(lambda p, g: float(p == g), aggregate=lambda scores: 0.5, name="custom")
    with pytest.raises(ValueError, match="aggregates with a custom function .* aggregate='mean'"):
        ek.evaluate([("a", "a"), ("b", "c")], metric=custom).interval()


def test_a_plain_function_is_resampled_by_its_mean():
    def exact(pred, gold, *, grammar=None):
        return float(pred == gold)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = ek.evaluate([("a", "a"), ("b", "c")] * 30, metric=exact)
    lo, hi = report.interval()
    assert report.aggregate == 0.5 and lo < 0.5 < hi


def test_field_metrics_are_resampled_by_their_counts():
    cases = [({"a": 1, "b": 2}, {"a": 1, "b": 3})] * 10 + [({"a": 1}, {"a": 1})] * 10
    report = ek.evaluate(cases, metric="fields")
    lo, hi = report.interval()
    assert lo < report.aggregate < hi and hi <= 1.0


def test_reports_pickle_with_their_metric_and_drop_one_that_cannot_be():
    report = ek.evaluate(CASES, metric="cer", ids=IDS)
    again = pickle.loads(pickle.dumps(report))
    assert again == report and again.interval() == report.interval()
    lam = ek.metric(lambda p, g: float(p == g), aggregate="mean", name="eq")
    loose = pickle.loads(pickle.dumps(ek.evaluate([("a", "a")], metric=lam)))
    with pytest.raises(ValueError, match="does not know its metric"):
        loose.interval()


# --- ids, merging and summaries -----------------------------------------------------------


def test_evaluate_refuses_bad_ids():
    with pytest.raises(ValueError, match="got 2 ids for 3 items"):
        ek.evaluate([("a", "a")] * 3, metric="cer", ids=["x", "y"])
    with pytest.raises(ValueError, match=r"ids hold '7' twice \(items 0 and 2\)"):
        ek.evaluate([("a", "a")] * 3, metric="cer", ids=[7, 8, "7"])
    with pytest.raises(TypeError, match="sequence of item ids"):
        ek.evaluate([("a", "a")], metric="cer", ids="x")
    assert ek.evaluate([("a", "a")], metric="cer", ids=["x"]).detail["ids"] == ("x",)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, len(CASES) - 1), st.integers(1, len(CASES) - 1), st.booleans())
def test_merged_reports_give_the_interval_of_the_whole(cut1, cut2, with_ids):
    cuts = sorted({cut1, cut2})
    bounds = [0, *cuts, len(CASES)]
    parts = [ek.evaluate(CASES[a:b], metric="cer", ids=IDS[a:b] if with_ids else None)
             for a, b in zip(bounds, bounds[1:])]
    whole = ek.evaluate(CASES, metric="cer", ids=IDS if with_ids else None)
    merged = ek.merge_reports(*parts)
    assert merged == whole
    assert merged.interval() == whole.interval()
    assert merged.interval(slice="b") == whole.interval(slice="b")
    if with_ids:  # parts whose items were dropped merge into the same figures and interval
        summaries = ek.merge_reports(*map(_bootstrap.summarize, parts))
        assert summaries.aggregate == whole.aggregate and summaries.per_slice == whole.per_slice
        assert summaries.interval() == whole.interval() and summaries.interval(slice="a") == whole.interval(slice="a")


def test_position_numbered_parts_are_renumbered_as_one_corpus():
    a, b = ek.evaluate(CASES[:10], metric="cer"), ek.evaluate(CASES[10:], metric="cer")
    assert ek.merge_reports(a, b).interval() == ek.evaluate(CASES, metric="cer").interval()
    assert ek.evaluate(CASES, metric="cer", ids=range(len(CASES))).interval() == ek.evaluate(CASES, metric="cer").interval()


def test_merging_refuses_repeated_ids_and_mixed_numbering():
    a = ek.evaluate(CASES[:3], metric="cer", ids=["x", "y", "z"])
    b = ek.evaluate(CASES[3:5], metric="cer", ids=["w", "y"])
    with pytest.raises(ValueError, match="item 'y' in report 0 and in report 1"):
        ek.merge_reports(a, b)
    with pytest.raises(ValueError, match="report 0 with item ids and report 1 numbered by position"):
        ek.merge_reports(a, ek.evaluate(CASES[3:5], metric="cer"))


def test_a_summary_has_no_items_yet_bounds_merges_and_pickles():
    report = ek.evaluate(CASES, metric="cer", ids=IDS)
    summary = _bootstrap.summarize(report)
    assert summary.scores == () and summary.n == report.n and summary.aggregate == report.aggregate
    assert summary.detail["statistics"] == {"edits": 25, "ref_len": 130}
    fresh = pickle.loads(pickle.dumps(summary))
    assert fresh.interval() == report.interval() and fresh.interval(slice="a") == report.interval(slice="a")
    full_part = ek.evaluate(CASES[:7], metric="cer", ids=IDS[:7])
    mixed = ek.merge_reports(full_part, _bootstrap.summarize(ek.evaluate(CASES[7:], metric="cer", ids=IDS[7:])))
    assert mixed.interval() == report.interval() and mixed.detail["slice_n"] == report.detail["slice_n"]
    assert ek.compare(mixed, report).delta == 0.0


# --- compare ------------------------------------------------------------------------------


def test_identical_runs_show_no_difference():
    a = ek.evaluate(CASES, metric="cer", ids=IDS)
    c = ek.compare(a, ek.evaluate(CASES, metric="cer", ids=IDS))
    assert (c.delta, c.interval, c.p_value, c.verdict) == (0.0, (0.0, 0.0), 1.0, "no detectable difference")
    assert c.n == len(CASES) and set(c.per_slice) == {"a", "b"} and c.per_slice["a"]["n"] == 20


def test_compare_pairs_items_by_id_whatever_their_order():
    better = [(g, g, s) for _, g, s in CASES[:20]] + CASES[20:]
    a = ek.evaluate(CASES, metric="cer", ids=IDS)
    b = ek.evaluate(better, metric="cer", ids=IDS)
    shuffled = ek.evaluate(better[::-1], metric="cer", ids=IDS[::-1])
    c = ek.compare(a, b)
    assert c == ek.compare(ek.evaluate(CASES, metric="cer", ids=IDS), shuffled)
    assert c.delta < 0 and c.interval[1] < 0 and c.verdict == "better" and c.p_value < 0.05
    assert ek.compare(b, a).verdict == "worse"


def test_pairing_cancels_the_noise_both_runs_share():
    rng = np.random.default_rng(3)
    golds = ["".join(rng.choice(list("abcdef"), size=int(n))) for n in rng.integers(5, 60, 300)]
    noisy = [g[: len(g) // 2] if k % 3 == 0 else g for k, g in enumerate(golds)]  # hard documents, shared
    a = ek.evaluate(list(zip(noisy, golds)), metric="cer")
    b = ek.evaluate([(p[:-1] if k % 10 == 0 else p, g) for k, (p, g) in enumerate(zip(noisy, golds))], metric="cer")
    c = ek.compare(a, b)
    width = c.interval[1] - c.interval[0]
    assert width < (a.interval()[1] - a.interval()[0]) / 5  # a paired interval, far narrower than either run's
    assert c.verdict == "worse"


def test_direction_comes_from_the_metric():
    worse = [({"a": 1, "b": 9}, {"a": 1, "b": 2})] * 30
    right = [({"a": 1, "b": 2}, {"a": 1, "b": 2})] * 30
    c = ek.compare(ek.evaluate(worse, metric="fields"), ek.evaluate(right, metric="fields"))
    assert c.delta > 0 and c.verdict == "better" and c.higher_is_better is True
    assert _bootstrap.verdict(0.1, 0.2, None) == "higher" and _bootstrap.verdict(-0.2, 0.1, True) == \
        "no detectable difference"


def test_compare_refuses_other_metrics_and_other_items():
    a = ek.evaluate(CASES, metric="cer", ids=IDS)
    with pytest.raises(ValueError, match="a 'cer' report and a 'wer' report"):
        ek.compare(a, ek.evaluate(CASES, metric="wer", ids=IDS))
    other = ek.evaluate(CASES[:-1] + CASES[:1], metric="cer", ids=IDS[:-1] + ["new-1"])
    with pytest.raises(ValueError, match=r"1 only in A \('doc-39'\) and 1 only in B \('new-1'\)"):
        ek.compare(a, other)
    with pytest.raises(TypeError, match="argument 1 is dict"):
        ek.compare(a, {})


# --- the run engine's reports --------------------------------------------------------------


def test_evaluate_store_and_evaluate_ocr_resample_by_gold_key():
    from ek.harness import evaluate_store
    from ek.ocr import evaluate_ocr

    gold = {f"k{i}": {"input": g, "reference": g, "slice": s} for i, (_, g, s) in enumerate(CASES)}
    noisy = {g: p for p, g, _ in CASES}
    a = evaluate_store(lambda x: noisy[x], gold, metric="cer")
    b = evaluate_store(str, gold, metric="cer")
    assert a.detail["ids"] == tuple(gold) and a.interval() == ek.evaluate(CASES, metric="cer", ids=list(gold)).interval()
    c = ek.compare(a, b)
    assert c.delta == -a.aggregate and c.verdict == "better" and set(c.per_slice) == {"a", "b"}
    images = {f"k{i}": {"image": g, "reference_text": g} for i, (_, g, _) in enumerate(CASES)}
    ocr = evaluate_ocr(lambda image: noisy[image], images)
    assert ocr.detail["ids"] == tuple(images) and ocr.interval() == a.interval()


def test_merging_column_backed_reports_keeps_their_columns():
    merged = ek.merge_reports(ek.evaluate(CASES[:7], metric="cer"), ek.evaluate(CASES[7:], metric="cer"))
    assert type(merged.scores).__name__ == "ScoreColumns" and merged.scores == ek.evaluate(CASES, metric="cer").scores
