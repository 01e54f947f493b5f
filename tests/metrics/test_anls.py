"""Tests for ek.metrics.anls: ANLS / ANLS* on anls_star."""

from __future__ import annotations

import sys
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ek
from ek.metrics.anls import AnlsMetric
from ek.registry import MissingExtraError

M = AnlsMetric()


def test_spec_examples():
    assert round(M("Hello Wrld", "Hello World").value, 3) == 0.909
    assert M({"name": "Acme", "city": "Paris"}, {"name": "Acme", "city": "Paris"}).value == 1.0


def test_hand_worked_values():
    assert M("abcd", "abxd").value == 0.75  # 1 - 1/4
    assert M("abcd", "abxy").value == 0.5  # exactly at the threshold: kept
    assert M("abcd", "axyz").value == 0.0  # 0.25, below the threshold
    assert M("ABC ", "abc").value == 1.0  # anls_star folds case and outer whitespace
    assert M("abc", ("xyz", "abd")).value == pytest.approx(2 / 3)  # best of the alternatives


def test_nested_answers_and_key_scores():
    s = M({"a": "x", "c": {"d": "f"}}, {"a": "x", "c": {"d": "e"}})
    assert s.value == 0.5
    assert s.detail["key_scores"] == {("a",): 1.0, ("c",): 0.0, ("c", "d"): 0.0}
    assert M(["b", "a"], ["a", "b"]).value == 1.0  # lists are matched, order-free
    assert M(["a"], ["a", "b"]).value == 0.5  # a missing item costs its share


def test_threshold_is_applied_and_restored(monkeypatch):
    import anls_star.anls_star as backend

    assert AnlsMetric(threshold=0.0)("abcd", "axyz").value == 0.25
    assert AnlsMetric(threshold=0.8)("abcd", "abxd").value == 0.0
    assert backend.ANLSTree.THRESHOLD == 0.5

    def broken(**kwargs):
        assert backend.ANLSTree.THRESHOLD == 0.9
        raise RuntimeError("backend failed")

    monkeypatch.setattr(backend, "anls_score", broken)
    with pytest.raises(RuntimeError, match="backend failed"):
        AnlsMetric(threshold=0.9)("a", "a")
    assert backend.ANLSTree.THRESHOLD == 0.5


def test_aggregate_is_the_mean_similarity():
    scores = [M("abcd", "abxd"), M("a", "a")]
    assert M.aggregate(scores) == pytest.approx((0.75 + 1.0) / 2)
    r = ek.evaluate([("abcd", "abxd"), ("a", "a")], metric="anls")
    assert r.metric == "anls" and r.aggregate == pytest.approx(0.875)


def test_registered():
    assert isinstance(ek.get("metrics", "anls"), AnlsMetric)
    assert "higher_is_better" not in ek.score("Hello Wrld", "Hello World", metric="anls").detail
    assert AnlsMetric.higher_is_better is True


# ---------------------------------------------------------------------------
# cross-check against anls_star on the same answers

leaves = st.one_of(st.text(alphabet="abcAB ", max_size=6), st.integers(0, 20), st.none())
answers = st.recursive(
    leaves,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(["k", "l", "m"]), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=200, deadline=None)
@given(answers, answers, st.sampled_from([0.0, 0.5, 0.7]))
def test_matches_anls_star(pred, gold, threshold):
    anls_star = pytest.importorskip("anls_star")
    import anls_star.anls_star as backend

    previous = backend.ANLSTree.THRESHOLD
    backend.ANLSTree.THRESHOLD = threshold
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = anls_star.anls_score(gold, pred)
    except ValueError:  # the backend refuses the pair (e.g. no acceptable answer): so does ek
        with pytest.raises(ValueError, match="give at least one|Give at least one"):
            AnlsMetric(threshold=threshold)(pred, gold)
        return
    finally:
        backend.ANLSTree.THRESHOLD = previous
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert AnlsMetric(threshold=threshold)(pred, gold).value == pytest.approx(expected)


@settings(max_examples=100, deadline=None)
@given(answers)
def test_identical_answers_score_one(answer):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert M(answer, answer).value == 1.0


# ---------------------------------------------------------------------------
# bad input


def test_bad_inputs_raise_with_a_message():
    with pytest.raises(TypeError, match=r"pred\['a'\]\[1\] is set"):
        M({"a": ["x", {1}]}, {"a": ["x"]})
    with pytest.raises(TypeError, match="ANLS\\* reserves tuples for lists of acceptable gold answers"):
        M(("a", "b"), "a")
    with pytest.raises(ValueError, match="gold is an empty list and pred a string"):
        M("a", [])
    with pytest.raises(ValueError, match=r"gold\['k'\] is an empty tuple"):
        M({"k": "a"}, {"k": ()})
    with pytest.raises(ValueError, match=r"threshold must be a number in \[0, 1\]"):
        AnlsMetric(threshold=1.5)
    with pytest.raises(ValueError, match="empty corpus has no aggregate"):
        M.aggregate([])
    with pytest.raises(ValueError, match="has no 'similarity' in its detail"):
        M.aggregate([ek.score("a", "b")])


def test_missing_extra_gives_the_install_hint(monkeypatch):
    monkeypatch.setitem(sys.modules, "anls_star", None)
    monkeypatch.setitem(sys.modules, "anls_star.anls_star", None)
    with pytest.raises(MissingExtraError, match=r'AnlsMetric needs .*anls_star.*pip install "ek\[metrics\]"'):
        M("a", "a")
