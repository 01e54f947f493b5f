"""Tests for ek.facade: dispatch, corpus aggregation, slices and merging."""

from dataclasses import dataclass

import jiwer
import pytest
from hypothesis import given
from hypothesis import strategies as st

import ek
from ek.base import Report, Score
from ek.facade import evaluate, merge_reports, score
from ek.metrics import FieldMetric, StringMetric


@dataclass
class Page:
    text: str


def test_type_dispatch():
    assert score("hello wrld", "hello world").metric == "cer"
    assert score({"a": 1}, {"a": 1}).metric == "fields"
    s = score(Page("hello wrld"), Page("hello world"))
    assert s.metric == "cer" and s.value == pytest.approx(1 / 11)


def test_named_and_callable_metrics():
    assert score("hello wrld", "hello world", metric="wer").value == 0.5
    assert score(Page("a b"), Page("a c"), metric="wer").value == 0.5

    def exact(pred, gold, *, grammar=None):
        return float(pred == gold)

    s = score("a", "a", metric=exact)
    assert s == Score(1.0, metric="exact")
    assert score("x", "y", metric=StringMetric("wer")).metric == "wer"


def test_normalize_reaches_the_metric():
    assert score("HELLO  World", "hello world", normalize="lower").value > 0
    assert score("HELLO  World", "hello world", normalize=["lower", "collapse_whitespace"]).value == 0
    assert score({"c": "PARIS "}, {"c": "paris"}, normalize=ek.default_canonicalizer()).value == 1.0


def test_grammar_is_passed_through():
    seen = {}

    def spy(pred, gold, *, grammar=None):
        seen["grammar"] = grammar
        return 1.0

    g = ek.GraphGrammar()
    score("a", "b", metric=spy, grammar=g)
    assert seen["grammar"] is g


def test_bad_inputs():
    with pytest.raises(TypeError, match="got None as pred"):
        score(None, "x")
    with pytest.raises(TypeError, match="pred is str but gold is dict"):
        score("a", {"a": 1})
    with pytest.raises(TypeError, match="CER compares strings, but pred is int"):
        score(3, "3", metric="cer")
    with pytest.raises(KeyError, match="Registered names: .*'cer'.*'fields'.*'wer'"):
        score("a", "b", metric="bleu")
    with pytest.raises(TypeError, match="no default metric for int"):
        score(1, 2)
    with pytest.raises(TypeError, match="does not take weights="):
        score("a", "b", weights=lambda g, r: 1.0)
    with pytest.raises(TypeError, match="must return a Score or a number"):
        score("a", "b", metric=lambda p, g, *, grammar=None: "good")
    with pytest.raises(TypeError, match="metric must be a registered name"):
        score("a", "b", metric=3)


def test_evaluate_empty_corpus():
    r = evaluate([])
    assert (r.n, r.aggregate, tuple(r.scores), dict(r.per_slice)) == (0, None, (), {})
    assert evaluate([], metric="wer").metric == "wer"


def test_evaluate_malformed_cases():
    with pytest.raises(ValueError, match=r"item 1 has 4 elements.*zip\(preds, golds\)"):
        evaluate([("a", "a"), ("a", "b", "s", "extra")])
    with pytest.raises(ValueError, match="item 0 is a str"):
        evaluate(["ab"])
    with pytest.raises(TypeError, match="iterable of \\(pred, gold\\)"):
        evaluate("ab")
    with pytest.raises(TypeError, match="item 1 gold is int"):
        evaluate([("a", "a"), ("a", 5)])
    with pytest.raises(TypeError, match="item 1 has slice label \\['x'\\].*hashable label"):
        evaluate([("a", "a", "s"), ("a", "b", ["x"])])


def test_evaluate_corpus_and_slices_match_jiwer():
    cases = [("ct", "cat", "x"), ("dg", "dog", "y"), ("kitten", "sitting", "x"), ("ab", "ab")]
    r = evaluate(cases, metric="cer")
    assert r.n == 4 and r.metric == "cer"
    assert r.aggregate == jiwer.cer(reference=[c[1] for c in cases], hypothesis=[c[0] for c in cases])
    assert r.per_slice["x"] == jiwer.cer(reference=["cat", "sitting"], hypothesis=["ct", "kitten"])
    assert r.per_slice["y"] == pytest.approx(1 / 3)
    assert None not in r.per_slice
    assert r.detail["slice_n"] == {"x": 2, "y": 1}


def test_corpus_cer_pools_edits_over_items_of_unequal_length():
    # by hand: 1 edit of 3, 3 of 7 ("kitten"/"sitting"), 2 of 11 ("helo wrld"/"hello world")
    cases = [("ct", "cat"), ("kitten", "sitting"), ("helo wrld", "hello world")]
    r = evaluate(cases, metric="cer")
    assert r.aggregate == pytest.approx(6 / 21)
    assert r.aggregate == pytest.approx(jiwer.cer(reference=[g for _, g in cases], hypothesis=[p for p, _ in cases]))
    mean_of_rates = (1 / 3 + 3 / 7 + 2 / 11) / 3  # 0.3147, what averaging per-item rates would give
    assert abs(r.aggregate - mean_of_rates) > 0.02
    assert [s.value for s in r.scores] == pytest.approx([1 / 3, 3 / 7, 2 / 11])


def test_evaluate_fields_is_micro_f1():
    r = evaluate([({"a": 1}, {"a": 1}), ({"a": 1, "b": 1}, {"a": 2, "b": 2, "c": 3, "d": 4})])
    assert r.metric == "fields" and r.aggregate == pytest.approx(0.25)


def test_evaluate_mean_for_metric_without_aggregate():
    r = evaluate([("a", "a"), ("a", "b")], metric=lambda p, g, *, grammar=None: float(p == g))
    assert r.aggregate == 0.5


def test_scores_materialize_like_score():
    cases = [("ct", "cat"), ("dog", "dog")]
    r = evaluate(cases)
    assert list(r.scores) == [score(p, g) for p, g in cases]
    assert r.scores[-1] == score("dog", "dog")
    assert r.scores[0:1] == [score("ct", "cat")]


def test_merge_rejects_mixed_metrics_and_nothing():
    with pytest.raises(ValueError, match="different metrics"):
        merge_reports(evaluate([("a", "b")], metric="cer"), evaluate([("a", "b")], metric="wer"))
    with pytest.raises(ValueError, match="at least one Report"):
        merge_reports()
    with pytest.raises(TypeError, match="argument 1 is dict"):
        merge_reports(Report(), {})


def test_merge_with_unregistered_metric_needs_metric_argument():
    def exact(pred, gold, *, grammar=None):
        return float(pred == gold)

    a = evaluate([("a", "a")], metric=exact)
    b = evaluate([("a", "b")], metric=exact)
    with pytest.raises(KeyError, match="exact"):
        merge_reports(a, b)
    assert merge_reports(a, b, metric=exact).aggregate == 0.5


text = st.text(alphabet="ab c", max_size=10)
case = st.tuples(text, text, st.sampled_from(["s1", "s2", None]))


@pytest.mark.parametrize("metric", ["cer", "wer"])
@given(cases=st.lists(case, max_size=15), data=st.data())
def test_any_split_merges_to_the_whole(metric, cases, data):
    cases = [c if c[2] is not None else c[:2] for c in cases]
    k = data.draw(st.integers(0, len(cases)))
    whole = evaluate(cases, metric=metric)
    merged = merge_reports(evaluate(cases[:k], metric=metric), evaluate(cases[k:], metric=metric))
    if not cases:
        assert merged.n == 0
        return
    assert merged.aggregate == whole.aggregate
    assert merged.per_slice == whole.per_slice
    assert merged.n == whole.n
    assert merged == whole


records = st.dictionaries(st.sampled_from("abc"), st.integers(0, 2), max_size=3)


@given(cases=st.lists(st.tuples(records, records), min_size=1, max_size=10), data=st.data())
def test_field_reports_merge_exactly(cases, data):
    k = data.draw(st.integers(1, len(cases)))
    whole = evaluate(cases)
    merged = merge_reports(evaluate(cases[:k]), evaluate(cases[k:]))
    assert merged == whole


@given(st.text(max_size=20), st.text(max_size=20))
def test_one_case_evaluate_equals_score(pred, gold):
    r = evaluate([(pred, gold)])
    assert r.n == 1 and r.aggregate == score(pred, gold).value
    assert r.scores[0] == score(pred, gold)
    assert evaluate([(pred, gold)], metric="wer").aggregate == score(pred, gold, metric="wer").value


def test_field_metric_instance_in_evaluate():
    r = evaluate([({"a": "X"}, {"a": "x"})], metric=FieldMetric(), normalize="lower")
    assert r.aggregate == 1.0
