"""ek._bootstrap: the hash-derived Poisson weights, Report.interval, merging, summaries and ek.compare.

The statistical properties (coverage, false alarms, power, agreement with
scipy) are simulated in tests/test_bootstrap_simulation.py.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import json
import operator
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
from ek._stats._weights import _Weigher, id_keys, replicate_sums
from ek.base import Report, Score

CASES = [
    ("ct", "cat", "a"),
    ("dog", "dog", "a"),
    ("brd", "bird", "b"),
    ("fish", "fsh", "b"),
    ("cow", "cow", "b"),
    ("emu", "emus", "a"),
    ("owl", "owl", "b"),
    ("yak", "yam", "a"),
] * 5
IDS = [f"doc-{i}" for i in range(len(CASES))]


MASK = 2**64 - 1


def _weights(keys, replicates):
    """The ``(len(keys), replicates)`` weights the bootstrap draws for ``keys`` (a fresh array)."""
    return _Weigher(replicates, len(keys))(keys).copy()


def key_by_hand(item_id):
    text = item_id if isinstance(item_id, str) else str(item_id)
    key = 0xCBF29CE484222325  # FNV-1a, 64 bits, over the UTF-8 bytes, then the byte count
    for byte in list(text.encode()) + [len(text.encode())]:
        key = ((key ^ byte) * 0x100000001B3) & MASK
    return key


def splitmix_by_hand(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def weights_by_hand(item_id, b):
    """The weight as the package docstring defines it, written again from the text."""
    z = splitmix_by_hand((key_by_hand(item_id) + (b // 8 + 1) * 0x9E3779B97F4A7C15) & MASK)
    u = (z >> (8 * (b % 8))) & 0xFF
    return sum(u >= c for c in (94, 189, 235, 251, 255))


def swapped_by_hand(item_id, r):
    """Whether draw r of the permutation test swaps the item, as ek._stats._permutation defines it."""
    j, b = divmod(r, 64)
    z = splitmix_by_hand(((key_by_hand(item_id) ^ 0x5851F42D4C957F2D) + (j + 1) * 0x9E3779B97F4A7C15) & MASK)
    return (z >> b) & 1


# --- the weights --------------------------------------------------------------------------


def test_vectorised_weights_follow_the_documented_definition():
    ids = ["doc-1", "x", "", "naïve", "7", 12345, "a" * 700, "é" * 9]
    expected = [[weights_by_hand(i, b) for b in range(37)] for i in ids]
    assert _weights(id_keys(ids), 37).tolist() == expected
    assert [_bootstrap.weight(i, b) for i in ids for b in range(37)] == functools.reduce(operator.iadd, expected, [])


@pytest.mark.parametrize(
    "ids",
    [[f"doc-{i:06d}" for i in range(300)], ["", ""], ["7"], [10, 11, 12], ["ab", "cd", "é!"], ["ab", "c"]],
    ids=["one width", "empty", "one", "integers", "not ASCII", "two widths"],
)
def test_id_keys_follow_fnv1a_for_ids_of_one_width_and_any_other(ids):
    """Ids of one length take a one-matrix path; the keys are FNV-1a all the same."""
    assert id_keys(ids).tolist() == [key_by_hand(i) for i in ids]


def test_an_integer_id_hashes_as_its_decimal_text():
    assert _weights(id_keys([7]), 64).tolist() == _weights(id_keys(["7"]), 64).tolist()
    assert _bootstrap.id_text(7) == "7" and _bootstrap.id_text(np.int64(7)) == "7"
    assert _bootstrap.id_text(("a", 1)) == "('a', 1)"


def test_weights_are_a_discretised_poisson_with_mean_and_variance_one():
    w = _weights(id_keys([f"item-{i}" for i in range(4000)]), 1000).ravel()
    counts = Counter(w.tolist())
    expected = {0: 94, 1: 95, 2: 46, 3: 16, 4: 4, 5: 1}
    n = len(w)
    for k, share in expected.items():  # 4,000,000 draws: within 5 standard errors of each probability
        p = share / 256
        assert abs(counts[k] / n - p) < 5 * (p * (1 - p) / n) ** 0.5
    assert set(counts) == set(expected)
    assert abs(w.mean() - 1) < 0.003 and abs(w.var() - 1) < 0.005


def test_weights_of_items_and_replicates_are_uncorrelated():
    w = _weights(id_keys([f"item-{i}" for i in range(3000)]), 1000).astype(float)
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
    assert np.allclose(
        replicate_sums(ids, floats, np.zeros(3, dtype=np.int64), 1, replicates=50)[0][:, 0], w @ floats[:, 0]
    )


@pytest.mark.parametrize(
    "low, high",
    [(0, 3), (40, 100), (-3, 3), (500, 900), (-(2**20), 2**20), (0, 2**31)],
    ids=["int16 whole", "int16 in two digits", "int16 signed", "int32", "int32 signed", "int64"],
)
def test_replicate_sums_equal_the_weight_matrix_product_whatever_the_chunk_dtype(low, high):
    """Every narrowing of a chunk's column (int16 whole or in two digits, int32, int64) sums exactly."""
    rng = np.random.default_rng(low & 0xFFFF)
    n, replicates = 1100, 16  # three chunks of 512 items
    ids = [f"item-{i}" for i in range(n)]
    table = rng.integers(low, high, size=(n, 2), dtype=np.int64)
    table[:600, 1] = rng.integers(0, 2, size=600)  # one chunk of small values among the large ones
    w = np.array([[weights_by_hand(i, b) for i in ids] for b in range(replicates)], dtype=object)
    sums = replicate_sums(ids, table, np.zeros(n, dtype=np.int64), 1, replicates=replicates)[0]
    assert sums[:, :2].tolist() == (w @ table.astype(object)).tolist()
    assert sums[:, 2].tolist() == w.sum(axis=1).tolist()


def test_the_interval_is_the_same_in_another_process():
    code = (
        "import ek, json; r = ek.evaluate([('ct', 'cat'), ('dog', 'dog'), ('bird', 'brd')] * 15, "
        "metric='cer', ids=[f'd{i}' for i in range(45)]); print(json.dumps(r.interval()))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    here = ek.evaluate(
        [("ct", "cat"), ("dog", "dog"), ("bird", "brd")] * 15, metric="cer", ids=[f"d{i}" for i in range(45)]
    )
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
@given(
    st.lists(
        st.sampled_from([-3.0, -1.0, -0.5, 0.0, 0.0, 0.25, 1.0, 2.0]) | st.floats(-10, 10), min_size=20, max_size=200
    ),
    st.sampled_from([0.8, 0.9, 0.95, 0.99]),
)
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
    # Replicates that drew no item of a slice are left out (the NaN above); a slice that small gets no
    # interval at all (see test_no_interval_below_the_minimum).
    sums = _bootstrap.resampled(ek.evaluate([("ct", "cat", "tiny")] + [("dog", "dog", "big")] * 40, metric="cer"))
    values = sums.values("tiny")
    assert any(v != v for v in values) and {v for v in values if v == v} == {1 / 3}


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
    cases, ids = CASES * 2, [f"doc-{i}" for i in range(2 * len(CASES))]
    report = ek.evaluate(cases, metric="cer", ids=ids)
    for label in ("a", "b"):
        part = [(p, g) for p, g, s in cases if s == label]
        part_ids = [i for i, (_, _, s) in zip(ids, cases) if s == label]
        alone = ek.evaluate(part, metric="cer", ids=part_ids).interval()
        assert report.interval(slice=label) == alone and alone[0] < alone[1]


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
    hand = Report(metric="cer", n=40, scores=(Score(0.1, detail={"edits": 1, "ref_len": 10}),) * 40)
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
    cases = [({"a": 1, "b": 2}, {"a": 1, "b": 3})] * 20 + [({"a": 1}, {"a": 1})] * 20
    report = ek.evaluate(cases, metric="fields")
    lo, hi = report.interval()
    assert lo < report.aggregate < hi <= 1.0


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
    parts = [
        ek.evaluate(CASES[a:b], metric="cer", ids=IDS[a:b] if with_ids else None) for a, b in itertools.pairwise(bounds)
    ]
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
    assert (
        ek.evaluate(CASES, metric="cer", ids=range(len(CASES))).interval()
        == ek.evaluate(CASES, metric="cer").interval()
    )


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
    assert (
        _bootstrap.verdict(0.1, 0.2, None) == "higher"
        and _bootstrap.verdict(-0.2, 0.1, True) == "no detectable difference"
    )


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
    assert (
        a.detail["ids"] == tuple(gold) and a.interval() == ek.evaluate(CASES, metric="cer", ids=list(gold)).interval()
    )
    c = ek.compare(a, b)
    assert c.delta == -a.aggregate and c.verdict == "better" and set(c.per_slice) == {"a", "b"}
    images = {f"k{i}": {"image": g, "reference_text": g} for i, (_, g, _) in enumerate(CASES)}
    ocr = evaluate_ocr(lambda image: noisy[image], images)
    assert ocr.detail["ids"] == tuple(images) and ocr.interval() == a.interval()


def test_merging_column_backed_reports_keeps_their_columns():
    merged = ek.merge_reports(ek.evaluate(CASES[:7], metric="cer"), ek.evaluate(CASES[7:], metric="cer"))
    assert type(merged.scores).__name__ == "ScoreColumns" and merged.scores == ek.evaluate(CASES, metric="cer").scores


# --- small samples: no interval below the minimum, an exact test instead ------------------------


def cer_runs(a_edits, b_edits, lengths, *, ids=None, slices=None):
    """Two CER reports with the given edits per document (A, then B) on documents of the given lengths."""
    ids = ids or [f"d{i}" for i in range(len(lengths))]
    golds = ["x" * n for n in lengths]
    made = []
    for edits in (a_edits, b_edits):
        cases = [("y" * e + g[e:], g) for e, g in zip(edits, golds)]  # e substitutions
        if slices is not None:
            cases = [(p, g, s) for (p, g), s in zip(cases, slices)]
        made.append(ek.evaluate(cases, metric="cer", ids=ids))
    return made


def test_no_interval_below_the_minimum_item_count():
    m = _bootstrap.MIN_ITEMS
    one = ek.evaluate([("ct", "cat")], metric="cer")
    assert all(x != x for x in one.interval())  # one document used to give the zero-width (1/3, 1/3)
    short = ek.evaluate(CASES[: m - 1], metric="cer")
    assert all(x != x for x in short.interval()) and all(x != x for x in _bootstrap.summarize(short).interval())
    low, high = ek.evaluate(CASES[:m], metric="cer").interval()
    assert low < high
    sliced = ek.evaluate(
        [(p, g, "small" if i < m - 1 else "big") for i, (p, g, _) in enumerate(CASES * 3)], metric="cer"
    )
    assert (
        all(x != x for x in sliced.interval(slice="small"))
        and sliced.interval(slice="big")[0] < sliced.interval(slice="big")[1]
    )
    with pytest.raises(ValueError, match="no slice 'z'"):  # the checks still run on a small report
        short.interval(slice="z")
    custom = ek.metric(lambda p, g: float(p == g), aggregate=lambda scores: 0.5, name="custom")
    with pytest.raises(ValueError, match="aggregates with a custom function"):
        ek.evaluate([("a", "a")], metric=custom).interval()


def test_compare_on_two_documents_calls_no_difference():
    # Issue 20 item 14: B far worse on both documents was "worse, p=0.002" with a zero-width interval.
    a, b = cer_runs([0, 0], [3, 5], [40, 60])
    c = ek.compare(a, b)
    assert c.verdict == "too few items (n=2) to tell" and all(x != x for x in c.interval)
    assert c.p_value == 0.5  # of the 4 swap patterns, 2 give |B - A| = 8/100: none, and swapping both
    assert c.delta == pytest.approx(0.08)


def test_sign_flip_p_value_by_hand():
    # A has 2, 0 and 1 edits, B none, on three 10-character documents: B - A = -3/30. Swapping an item
    # moves its edits to the other side: the differences are (+-2 +-1) / 30 whatever item 2 does, so
    # |B - A| >= 3/30 in 4 of the 8 patterns.
    a, b = cer_runs([2, 0, 1], [0, 0, 0], [10, 10, 10])
    c = ek.compare(a, b)
    assert c.p_value == 0.5 and c.verdict == "too few items (n=3) to tell"
    # Six documents all worse by one edit: only "none swapped" and "all swapped" reach |B - A|.
    six = ek.compare(*cer_runs([0] * 6, [1] * 6, [10] * 6))
    assert six.p_value == 2 / 64 and six.verdict == "worse"
    five = ek.compare(*cer_runs([0] * 5, [1] * 5, [10] * 5))
    assert five.p_value == 2 / 32 and five.verdict == "too few items (n=5) to tell"  # 2/2**5 > 0.05
    strict = ek.compare(*cer_runs([0] * 7, [1] * 7, [10] * 7), level=0.99)  # 2/128 > 0.01
    assert strict.verdict == "too few items (n=7) to tell"
    assert ek.compare(*cer_runs([0] * 8, [1] * 8, [10] * 8), level=0.99).verdict == "worse"
    assert ek.compare(*cer_runs([1] * 8, [0] * 8, [10] * 8)).verdict == "better"


def _scipy_sign_flip(table_a, table_b, compute, names, n_resamples=np.inf, *, over_sums=None):
    """scipy's paired permutation test over item indices: it swaps x_i and y_i, the statistic reads the table.

    ``over_sums``: ``compute`` written over arrays of sums ``(..., k)``, so that scipy hands the statistic every
    pattern at once (65,536 patterns of 16 items: a second instead of three).
    """
    from scipy import stats

    both = np.concatenate([table_a, table_b])
    n = len(table_a)

    def figure_difference(x, y, axis=-1):
        if over_sums is not None:  # x, y: (..., n) item indices, the patterns along the leading axes
            return over_sums(both[y].sum(axis=-2)) - over_sums(both[x].sum(axis=-2))
        return compute(dict(zip(names, both[y].sum(axis=0).tolist()))) - compute(
            dict(zip(names, both[x].sum(axis=0).tolist()))
        )

    res = stats.permutation_test(
        (np.arange(n), np.arange(n) + n),
        figure_difference,
        permutation_type="samples",
        alternative="two-sided",
        n_resamples=n_resamples,
        vectorized=over_sums is not None,
    )
    return res.pvalue


def _exact_f1_sign_flip(table_a, table_b):
    """The sign-flip p-value of micro-F1 in exact rationals: every swap pattern, ties counted as ties."""
    import itertools
    from fractions import Fraction

    def f1(rows):
        tp, fp, fn = (sum(column) for column in zip(*rows))
        return Fraction(2 * tp, 2 * tp + fp + fn) if 2 * tp + fp + fn else Fraction(1)

    a, b = table_a.tolist(), table_b.tolist()
    observed = abs(f1(b) - f1(a))
    patterns = list(itertools.product((False, True), repeat=len(a)))
    hits = sum(
        abs(f1([x if s else y for s, x, y in zip(p, a, b)]) - f1([y if s else x for s, x, y in zip(p, a, b)]))
        >= observed
        for p in patterns
    )
    return Fraction(hits, len(patterns))


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 4),
            st.integers(0, 4),
            st.integers(0, 4),
            st.integers(0, 4),
            st.integers(0, 4),
            st.integers(0, 4),
        ),
        min_size=2,
        max_size=9,
    )
)
def test_sign_flip_p_value_equals_the_exact_permutation_test_on_micro_f1(rows):
    # Field F1 is 2 TP / (2 TP + FP + FN): a ratio of sums whose parts differ between the runs. The reference
    # counts in exact rationals: scipy's permutation_test compares floats, and a difference equal to the observed
    # one up to rounding can fall on either side of it there (e.g. rows (1,3,1,1,4,1), (1,3,3,0,0,1), (4,2,3,1,1,3),
    # (4,0,0,3,1,2), (0,4,2,4,3,3), (1,3,0,2,2,4): exactly 60 of 64 patterns, scipy counts 58).
    from ek.metrics import FieldMetric

    names = ("tp", "fp", "fn")
    a = np.array([r[:3] for r in rows]) + np.array([1, 0, 0])
    b = np.array([r[3:] for r in rows]) + np.array([1, 0, 0])
    ours = _bootstrap.sign_flip_p_value([f"i{k}" for k in range(len(rows))], a, b, FieldMetric().compute, names)
    assert ours == float(_exact_f1_sign_flip(a, b))


def test_sign_flip_p_value_equals_scipys_permutation_test_where_no_difference_ties():
    from ek.metrics import FieldMetric

    names, compute = ("tp", "fp", "fn"), FieldMetric().compute
    a = np.array([[5, 1, 0], [3, 0, 2], [7, 2, 1], [4, 1, 1], [6, 0, 0]])
    b = np.array([[4, 2, 1], [3, 1, 2], [5, 3, 2], [4, 0, 3], [2, 3, 1]])
    ours = _bootstrap.sign_flip_p_value([f"i{k}" for k in range(5)], a, b, compute, names)
    assert ours == pytest.approx(_scipy_sign_flip(a, b, compute, names), abs=1e-12) == float(_exact_f1_sign_flip(a, b))


def test_sign_flip_p_value_computes_each_distinct_pattern_sum_once():
    # Ten CER documents of one length: the swap patterns move edits only, so of the 1,024 patterns few sums
    # differ, and compute runs once for each (twice: A's side and B's) instead of 2,048 times.
    from ek.metrics import StringMetric

    names, cer = ("edits", "ref_len"), StringMetric().compute
    calls = []

    def counted(totals):
        calls.append(1)
        return cer(totals)

    a = np.array([[e, 20] for e in (0, 1, 2, 0, 3, 1, 0, 2, 1, 0)])
    b = np.array([[e, 20] for e in (1, 1, 0, 2, 3, 0, 1, 2, 2, 1)])
    p = _bootstrap.sign_flip_p_value([f"i{k}" for k in range(10)], a, b, counted, names)
    swapped = [
        abs(
            sum(b[k, 0] if s else a[k, 0] for k, s in enumerate(pattern))
            - sum(a[k, 0] if s else b[k, 0] for k, s in enumerate(pattern))
        )
        for pattern in itertools.product((False, True), repeat=10)
    ]
    observed = abs(int(b[:, 0].sum() - a[:, 0].sum()))
    assert p == sum(d >= observed for d in swapped) / 1024  # the same denominator: the figures differ by d / 200
    distinct = len(
        {
            sum(int(b[k, 0] - a[k, 0]) for k, s in enumerate(pattern) if s)
            for pattern in itertools.product((0, 1), repeat=10)
        }
    )
    assert len(calls) == 2 + 2 * distinct < 100
    # float statistics past the exact size: the drawn patterns, counted once per distinct sum, as before
    rng = np.random.default_rng(3)
    fa, fb = rng.normal(10, 1, (30, 2)).round(1), rng.normal(10, 1, (30, 2)).round(1)
    fb[::2] = fa[::2]  # half the items move nothing
    ids = [f"f{k}" for k in range(30)]
    compute = lambda t: t["x"] / t["y"]  # noqa: E731
    got = _bootstrap.sign_flip_p_value(ids, fa, fb, compute, ("x", "y"))
    from ek._stats._permutation import DRAWS, _moved

    moved = _moved(ids, fb - fa, False)
    observed = compute(dict(zip("xy", fb.sum(0)))) - compute(dict(zip("xy", fa.sum(0))))
    reach = [
        abs(compute(dict(zip("xy", fb.sum(0) - m))) - compute(dict(zip("xy", fa.sum(0) + m))))
        >= abs(observed) * (1 - 1e-9)
        for m in moved
    ]
    assert got == (1 + sum(reach)) / (1 + DRAWS)


def test_drawn_swap_patterns_are_fixed_by_the_ids_and_estimate_the_exact_p_value():
    from ek._stats._permutation import DRAWS, _lane_hashes

    def swaps(ids):  # (items, draws): bit b of lane j swaps the item in draw 64 j + b
        z = _lane_hashes(ids, 16)
        return ((z[:, :, None] >> np.arange(64, dtype=np.uint64)) & np.uint64(1)).reshape(len(ids), -1)[:, :DRAWS]

    some = ["doc-1", "", "naïve", 12345, "a" * 300]
    assert swaps(some).tolist() == [[swapped_by_hand(i, r) for r in range(DRAWS)] for i in some]

    rng = np.random.default_rng(11)
    n = 16  # past EXACT_UP_TO: 999 drawn patterns; scipy enumerates all 65,536
    lengths = rng.integers(20, 200, n)
    a_edits, b_edits = rng.binomial(lengths, 0.05), rng.binomial(lengths, 0.08)
    a, b = cer_runs(a_edits, b_edits, lengths)
    c = ek.compare(a, b)
    ia, ib = _bootstrap._reports._items(a), _bootstrap._reports._items(b)
    exact = _scipy_sign_flip(ia.table, ib.table, ia.compute, ia.names, over_sums=lambda t: t[..., 0] / t[..., 1])
    assert abs(c.p_value - exact) < 4 * (exact * (1 - exact) / DRAWS) ** 0.5 + 1 / DRAWS
    order = rng.permutation(n)
    shuffled = cer_runs(a_edits[order], b_edits[order], lengths[order], ids=[f"d{i}" for i in order])
    assert ek.compare(*shuffled).p_value == c.p_value  # the items' order does not matter, their ids do
    # The p-value is the share of drawn patterns reaching |B - A|, counted again here from the documented bits.
    moved = swaps(list(a.detail["ids"])).T @ (ib.table - ia.table)
    sums_a, sums_b = ia.table.sum(axis=0) + moved, ib.table.sum(axis=0) - moved
    t = sums_b[:, 0] / sums_b[:, 1] - sums_a[:, 0] / sums_a[:, 1]
    assert c.p_value == (1 + np.sum(np.abs(t) >= abs(c.delta) * (1 - 1e-9))) / (1 + DRAWS)
    bits = swaps([f"id-{i}" for i in range(3000)]).astype(float)
    assert abs(bits.mean() - 0.5) < 0.002  # 3,000,000 bits: SE 0.0003
    pairs = np.corrcoef(bits[:, :200].T)[np.triu_indices(200, 1)]  # draws over 3,000 items: SE 0.018
    assert np.abs(pairs).max() < 0.1 and np.abs(np.corrcoef(bits[:200])[np.triu_indices(200, 1)]).max() < 0.2
    code = "import ek; from ek._stats._permutation import _lane_hashes; print(_lane_hashes(['a', 'b', 7], 16).tolist())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert json.loads(out.stdout) == _lane_hashes(["a", "b", 7], 16).tolist()


def test_a_difference_made_by_a_few_documents_needs_the_exact_test_to_agree():
    # 40 documents, of which 5 differ (3 edits fewer in B). The bootstrap leaves all 5 out of only
    # 0.367**5 = 0.7% of its replicates, so its percentile interval excludes 0 (p about 0.01). But 5 differing
    # documents are 5: the swap test gives 2/2**5 = 0.0625 (estimated from 999 draws). The printed bootstrap-t
    # reaches 0 itself (the replicates leaving all 5 out differ by 0), with p = 0.051.
    lengths = [50] * 40
    a, b = cer_runs([3] * 5 + [1] * 35, [0] * 5 + [1] * 35, lengths)
    percentile = _bootstrap.compare(a, b, method="percentile")
    assert (
        percentile["interval"][1] < 0
        and _bootstrap.p_value_of(
            np.array(_bootstrap.resampled(b).values()) - np.array(_bootstrap.resampled(a).values())
        )
        < 0.05
    )
    assert percentile["verdict"] == "no detectable difference" and percentile["p_value"] == pytest.approx(
        0.0625, abs=0.025
    )
    c = ek.compare(a, b)
    assert c.interval[1] == 0.0 and c.verdict == "no detectable difference" and 0.05 <= c.p_value < 0.06
    ten = ek.compare(*cer_runs([3] * 10 + [1] * 30, [0] * 10 + [1] * 30, lengths))
    assert ten.verdict == "better" and ten.p_value < 0.01  # 10 of 10 differing documents agree: 2/1024


def test_slices_below_the_minimum_get_the_exact_test_and_the_rest_the_bootstrap():
    lengths = [30] * 46
    slices = ["big"] * 40 + ["tiny"] * 6
    a, b = cer_runs([2] * 46, [0] * 40 + [1] * 6, lengths, slices=slices)
    c = ek.compare(a, b)
    big, tiny = c.per_slice["big"], c.per_slice["tiny"]
    assert big["verdict"] == "better" and big["interval"][1] < 0 and big["n"] == 40
    assert tiny["p_value"] == 2 / 64 and all(x != x for x in tiny["interval"]) and tiny["verdict"] == "better"
    assert c.interval[1] < 0 and c.verdict == "better"


def test_summaries_below_the_minimum_cannot_be_tested():
    a, b = map(_bootstrap.summarize, cer_runs([2] * 10, [0] * 10, [30] * 10))
    c = ek.compare(a, b)
    assert c.p_value != c.p_value and c.verdict == "too few items (n=10) to tell"
    big = ek.compare(*map(_bootstrap.summarize, cer_runs([2] * 40, [0] * 40, [30] * 40)))
    assert big.verdict == "better"  # from the minimum on the bootstrap needs only the replicate sums


# --- one owner of the interval state ----------------------------------------------------------


def test_nothing_is_written_onto_a_frozen_value_outside_its_own_post_init():
    """The one accepted write: a ``__post_init__`` normalising its own fields (``object.__setattr__(self, ...)``).

    Caches and derived state live with an owner that is not a value (a report's `Resampler`), never on
    the report: today's offenders were the bootstrap's and the estimate's caches on `Report` s.
    """
    import ast
    import pathlib

    src = pathlib.Path(ek.__file__).parent
    offenders = []

    class Writes(ast.NodeVisitor):
        """One walk per module, the enclosing functions on a stack (a call in a nested function is in each)."""

        def __init__(self, path):
            self.path, self.functions = path, []

        def visit_FunctionDef(self, fn):
            self.functions.append(fn)
            self.generic_visit(fn)
            self.functions.pop()

        visit_AsyncFunctionDef = visit_FunctionDef

        def visit_Call(self, call):
            if (
                isinstance(call.func, ast.Attribute)
                and call.func.attr == "__setattr__"
                and isinstance(call.func.value, ast.Name)
                and call.func.value.id == "object"
            ):
                target = call.args[0]
                on_self = isinstance(target, ast.Name) and target.id == "self"
                for fn in self.functions:
                    if fn.name != "__post_init__" or not on_self:
                        offenders.append(f"{self.path.relative_to(src)}:{call.lineno} in {fn.name}")
            self.generic_visit(call)

    for path in sorted(src.rglob("*.py")):
        Writes(path).visit(ast.parse(path.read_text(encoding="utf-8")))
    assert offenders == []


def test_interval_state_lives_in_the_resampler_not_on_the_report():
    report = ek.evaluate(CASES, metric="cer", ids=IDS)
    other = ek.evaluate(CASES[::-1], metric="cer", ids=IDS[::-1])
    report.interval()
    ek.compare(report, other)
    fields = {f.name for f in dataclasses.fields(report)}
    assert set(vars(report)) == fields == set(vars(other))  # no cache beside the fields
    summary = _bootstrap.summarize(report)
    assert "replicates" not in summary.detail and _bootstrap.is_summary(summary) and not _bootstrap.is_summary(report)
    assert _bootstrap.resampled(summary) is summary._resampler.stored
    assert pickle.loads(pickle.dumps(summary)).interval(0.9) == report.interval(0.9)


def test_a_copy_with_other_items_makes_its_own_sums():
    """Sums are kept with the items they were made from: a replaced report never reads another's."""
    report = ek.evaluate(CASES, metric="cer", ids=IDS)
    first = report.interval()
    renamed = dataclasses.replace(report, detail={**report.detail, "ids": tuple(f"x{i}" for i in IDS)})
    assert renamed._resampler is report._resampler  # one resampler shared by the copy ...
    fresh = ek.evaluate(CASES, metric="cer", ids=[f"x{i}" for i in IDS])
    assert renamed.interval() == fresh.interval() != first  # ... which makes the copy's own sums
    relabelled = dataclasses.replace(report, detail={**report.detail, "level": 0.95})  # same items
    assert _bootstrap.resampled(relabelled) is _bootstrap.resampled(report)


def test_sign_flip_p_value_is_one_when_the_figures_differ_only_by_rounding():
    # A's micro-F1 is 18/24 and B's 12/16: both 0.75 exactly, 0.7500000000000001 and 0.75 in floats. Every swap
    # pattern ties with a difference of nothing (hypothesis found this case).
    from ek.metrics import FieldMetric

    a = np.array([[4, 0, 2], [5, 2, 2]])
    b = np.array([[1, 0, 0], [5, 0, 4]])
    ours = _bootstrap.sign_flip_p_value(["i0", "i1"], a, b, FieldMetric().compute, ("tp", "fp", "fn"))
    assert ours == float(_exact_f1_sign_flip(a, b)) == 1.0
