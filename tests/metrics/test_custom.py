"""Tests for ek.metric (ek/metrics/_custom.py): a plain function with a declared aggregation."""

import math
import warnings

import jiwer
import pytest
from hypothesis import given
from hypothesis import strategies as st

import ek
from ek.base import Score

PAIRS = [("kitten", "sitting"), ("ab", "ab")]  # corpus CER 3/9; mean of per-item CERs (3/7 + 0) / 2


def _edits(pred, gold):
    return jiwer.process_characters(reference=gold, hypothesis=pred)


def cer_rate(pred, gold, *, grammar=None):
    """A CER-like callable that returns only the per-item ratio."""
    return jiwer.cer(reference=gold, hypothesis=pred)


def cer_counts(pred, gold):
    """The same, returning its statistics too."""
    out = _edits(pred, gold)
    edits = out.substitutions + out.deletions + out.insertions
    ref_len = out.hits + out.substitutions + out.deletions
    return Score(edits / ref_len, detail={"edits": edits, "ref_len": ref_len})


def test_a_plain_callable_gets_the_mean_with_a_warning():
    with pytest.warns(UserWarning, match=r"mean of its per-item values.*ek\.metric\(fn, aggregate="):
        r = ek.evaluate(PAIRS, metric=cer_rate)
    assert r.aggregate == pytest.approx((3 / 7 + 0) / 2)
    assert round(r.aggregate, 3) == 0.214
    assert r.detail["aggregation"] == "mean" and r.detail["higher_is_better"] is None


def test_sum_ratio_gives_the_corpus_figure_without_a_warning():
    m = ek.metric(cer_counts, aggregate="sum_ratio", statistics=("edits", "ref_len"), higher_is_better=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = ek.evaluate(PAIRS, metric=m)
    assert (
        r.aggregate
        == pytest.approx(3 / 9)
        == jiwer.cer(reference=[g for _, g in PAIRS], hypothesis=[p for p, _ in PAIRS])
    )
    assert round(r.aggregate, 3) == 0.333
    assert r.metric == "cer_counts" and r.scores[0].metric == "cer_counts"
    assert r.detail == {"higher_is_better": False, "aggregation": "sum_ratio"}
    assert m.statistics == ("edits", "ref_len") and m.compute({"edits": 3.0, "ref_len": 9.0}) == 1 / 3


def test_declared_mean_is_the_mean_and_merges():
    m = ek.metric(cer_rate, higher_is_better=False, name="rate")
    r = ek.evaluate(PAIRS, metric=m)
    assert r.aggregate == pytest.approx((3 / 7) / 2)
    assert r.metric == "rate" and r.detail["aggregation"] == "mean"
    assert r.scores[0].detail == {"value": pytest.approx(3 / 7), "n": 1}
    merged = ek.merge_reports(ek.evaluate(PAIRS[:1], metric=m), ek.evaluate(PAIRS[1:], metric=m), metric=m)
    assert merged == r


@given(
    st.lists(st.tuples(st.text("ab", max_size=5), st.text("ab", min_size=1, max_size=5)), min_size=1, max_size=8),
    st.integers(0, 8),
)
def test_sum_ratio_merges_exactly(pairs, k):
    m = ek.metric(cer_counts, aggregate="sum_ratio", statistics=("edits", "ref_len"))
    whole = ek.evaluate(pairs, metric=m)
    merged = ek.merge_reports(ek.evaluate(pairs[:k], metric=m), ek.evaluate(pairs[k:], metric=m), metric=m)
    assert merged.aggregate == whole.aggregate == ek.evaluate(pairs, metric="cer").aggregate


def test_a_callable_aggregate_and_the_grammar():
    seen = []

    def exact(pred, gold, *, grammar=None):
        seen.append(grammar)
        return float(pred == gold)

    m = ek.metric(exact, aggregate=lambda scores: min(s.value for s in scores), higher_is_better=True)
    g = ek.GraphGrammar()
    r = ek.evaluate([("a", "a"), ("a", "b")], metric=m, grammar=g)
    assert r.aggregate == 0.0 and r.detail["aggregation"] == "custom" and seen == [g, g]
    with pytest.raises(ValueError, match="no scores"):
        m.aggregate([])
    with pytest.raises(TypeError, match="custom function, so it has no compute"):
        m.compute({})


def test_zero_denominators_are_nan():
    m = ek.metric(cer_counts, aggregate="sum_ratio", statistics=("edits", "ref_len"))
    assert math.isnan(m.compute({"edits": 0, "ref_len": 0}))
    assert math.isnan(ek.metric(cer_rate).compute({"value": 0.0, "n": 0.0}))


def test_bad_declarations_and_results():
    with pytest.raises(ValueError, match=r"needs statistics=\(numerator, denominator\)"):
        ek.metric(cer_counts, aggregate="sum_ratio")
    with pytest.raises(ValueError, match="statistics= names the numerator"):
        ek.metric(cer_counts, statistics=("edits", "ref_len"))
    with pytest.raises(ValueError, match="aggregate must be 'mean', 'sum_ratio' or a callable"):
        ek.metric(cer_counts, aggregate="median")
    with pytest.raises(TypeError, match="higher_is_better must be True, False or None"):
        ek.metric(cer_counts, higher_is_better="yes")
    with pytest.raises(TypeError, match="needs a function"):
        ek.metric("cer")
    ratio_only = ek.metric(cer_rate, aggregate="sum_ratio", statistics=("edits", "ref_len"))
    with pytest.raises(TypeError, match=r"returned the number .*Score whose detail holds the numbers 'edits'"):
        ratio_only("a", "b")
    lacking = ek.metric(
        lambda p, g: Score(1.0, detail={"edits": 1}), aggregate="sum_ratio", statistics=("edits", "ref_len")
    )
    with pytest.raises(TypeError, match="without a number under 'ref_len'"):
        lacking("a", "b")
    with pytest.raises(TypeError, match="must return a Score or a number"):
        ek.metric(lambda p, g: "good")("a", "b")


def test_public_home():
    assert ek.metric is ek.metrics.metric and ek.metric.__module__ == "ek.metrics"
    assert "metric" in ek.__all__ and "metric" in ek.metrics.__all__
