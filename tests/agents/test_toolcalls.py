"""ek.agents.toolcalls: multiset call matching and cost-weighted tool-call F1."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

import ek
from ek.agents import Episode, Step, ToolSpec, Trajectory, tool_grammar
from ek.agents.toolcalls import ToolCallMetric, match_calls
from ek.base import FieldSpec
from ek.metrics import FieldMetric


def test_match_calls_repeats_do_not_collide():
    pred = [("search", {"q": "a"}), ("search", {"q": "a"})]
    gold = [("search", {"q": "a"}), ("search", {"q": "a"})]
    pairs, up, ug = match_calls(pred, gold)
    assert len(pairs) == 2 and up == [] and ug == []


def test_match_calls_reordered_pairs_match():
    pairs, _up, _ug = match_calls([("s", {"q": "b"}), ("s", {"q": "a"})], [("s", {"q": "a"}), ("s", {"q": "b"})])
    assert [(p[1]["q"], g[1]["q"]) for p, g in pairs] == [("b", "b"), ("a", "a")]


def test_match_calls_strong_pair_is_not_stolen_by_an_earlier_weak_one():
    gold = [("book", {"flight": "LH1", "seat": "2A"})]
    pred = [("book", {"flight": "LH1", "seat": "9C"}), ("book", {"flight": "LH1", "seat": "2A"})]
    pairs, up, _ug = match_calls(pred, gold)
    assert pairs == [(pred[1], gold[0])] and up == [pred[0]]


def test_match_calls_never_pairs_different_tools():
    pairs, up, ug = match_calls([("delete", {"id": 1})], [("read", {"id": 1})])
    assert pairs == [] and up == [("delete", {"id": 1})] and ug == [("read", {"id": 1})]


def test_match_calls_canon_folds_strings():
    pairs, _, _ = match_calls([("s", {"q": " Paris "})], [("s", {"q": "paris"})], canon=lambda s: s.strip().lower())
    assert len(pairs) == 1


def test_call_level_doc_example():
    gold = [("search", {"q": "cats"}), ("answer", {"a": "meow"})]
    assert ToolCallMetric()([Step("search", {"q": "cats"}), Step("answer", {"a": "meow"})], gold).f1 == 1.0
    s = ToolCallMetric()([Step("search", {"q": "cats"}), Step("delete_all", {})], gold)
    assert (s.detail["tp"], s.detail["fp"], s.detail["fn"]) == (1, 1, 1)
    assert s.f1 == pytest.approx(0.5) and s.value == s.f1


def test_call_level_wrong_argument_is_fp_and_fn():
    s = ToolCallMetric()([("s", {"q": "dog"})], [("s", {"q": "cat"})])
    assert (s.detail["tp"], s.detail["fp"], s.detail["fn"]) == (0, 1, 1)


def test_default_canonicalizer_folds_case_and_whitespace_but_not_types():
    m = ToolCallMetric()
    assert m([("s", {"q": "  New   York"})], [("s", {"q": "new york"})]).f1 == 1.0
    assert m([("s", {"n": True})], [("s", {"n": 1})]).f1 == 0.0  # a bool is not an int
    assert m([("s", {"n": 2.0})], [("s", {"n": 2})]).f1 == 1.0
    assert m([("s", {"l": [1, 2]})], [("s", {"l": [2, 1]})]).f1 == 0.0  # list order counts
    assert m([("s", {"l": (1, 2)})], [("s", {"l": [1, 2]})]).f1 == 1.0


def test_arg_level_matches_field_f1_counts_with_unit_weights():
    pred_args = {"a": 1, "b": "x", "c": 3}
    gold_args = {"a": 1, "b": "y", "d": 4}
    s = ToolCallMetric("arg")([("t", pred_args)], [("t", gold_args)])
    f = FieldMetric()(pred_args, gold_args)
    # the tool name earns one extra true positive on top of field F1's per-argument counts
    assert (s.detail["tp"], s.detail["fp"], s.detail["fn"]) == (f.detail["tp"] + 1, f.detail["fp"], f.detail["fn"])


def test_grammar_weights_a_destructive_tool_and_a_costly_argument():
    g = tool_grammar(
        ToolSpec("refund", params={"amount": FieldSpec("amount", "number", importance=20.0)}, destructive=True),
        ToolSpec("read"),
    )
    gold = [("read", {}), ("refund", {"amount": 10})]
    s = ToolCallMetric(grammar=g)([("read", {})], gold)  # missed the refund
    assert (s.detail["tp"], s.detail["fn"]) == (1.0, 10.0)
    s = ToolCallMetric("arg")([("read", {}), ("refund", {"amount": 99})], gold, grammar=g)
    assert (s.detail["tp"], s.detail["fp"], s.detail["fn"]) == (1.0 + 10.0, 20.0, 20.0)
    unit = ToolCallMetric("arg")([("read", {}), ("refund", {"amount": 99})], gold)
    assert unit.f1 > s.f1


def test_aggregate_is_micro_f1_not_a_mean():
    m = ToolCallMetric()
    a = m([("s", {})], [("s", {})])  # tp 1
    b = m([("x", {}), ("y", {}), ("z", {})], [("s", {})])  # fp 3, fn 1
    assert m.aggregate([a, b]) == pytest.approx(2 * 1 / (2 * 1 + 3 + 1))
    assert m.aggregate([a, b]) != pytest.approx((a.f1 + b.f1) / 2)
    with pytest.raises(ValueError, match="needs scores produced by ToolCallMetric"):
        m.aggregate([ek.score("a", "b")])


def test_inputs_episode_trajectory_and_empty():
    ep = Episode(trajectory=[Step("s", {"q": 1})])
    assert ToolCallMetric()(ep, Trajectory([Step("s", {"q": 1})])).f1 == 1.0
    assert ToolCallMetric()([], []).f1 == 1.0
    with pytest.raises(TypeError, match="pred is str"):
        ToolCallMetric()("search", [])
    with pytest.raises(ValueError, match="level must be 'call' or 'arg'"):
        ToolCallMetric("tool")


def test_registered_and_usable_through_ek_evaluate():
    report = ek.evaluate(
        [([("s", {"q": "a"})], [("s", {"q": "a"})]), ([("s", {"q": "b"})], [("s", {"q": "c"})])], metric="tool_call"
    )
    assert report.aggregate == pytest.approx(2 * 1 / (2 + 1 + 1))
    assert ek.score([("s", {"q": "A"})], [("s", {"q": "a"})], metric="tool_call", normalize=None).f1 == 1.0


calls = st.lists(
    st.tuples(
        st.sampled_from(["a", "b", "c"]), st.dictionaries(st.sampled_from(["x", "y"]), st.integers(0, 2), max_size=2)
    ),
    max_size=6,
)


@given(pred=calls, gold=calls, data=st.data())
def test_matching_is_invariant_to_prediction_order(pred, gold, data):
    shuffled = data.draw(st.permutations(pred))
    m = ToolCallMetric()
    a, b = m(pred, gold), m(shuffled, gold)
    assert (a.detail["tp"], a.detail["fp"], a.detail["fn"]) == (b.detail["tp"], b.detail["fp"], b.detail["fn"])
    assert m(gold, gold).f1 == 1.0


@pytest.mark.parametrize(
    "pred_args,gold_args",
    [
        ({}, {"x": None}),  # the reference explicitly passes x=None; the prediction omits it
        ({"x": None}, {}),  # the prediction passes x=None; the reference has no x
    ],
    ids=["missing-none", "extra-none"],
)
def test_an_explicit_none_argument_differs_from_a_missing_one(pred_args, gold_args):
    pred, gold = [("f", pred_args)], [("f", gold_args)]
    s = ToolCallMetric()(pred, gold)
    assert s.f1 == 0.0 and s.detail["n_exact"] == 0
    arg = ToolCallMetric(level="arg")(pred, gold)
    assert arg.detail["tp"] == 1.0  # the right tool still earns its weight
    assert arg.detail["fp"] + arg.detail["fn"] == 1.0  # ... and the None argument costs one
    assert ToolCallMetric()([("f", {"x": None})], [("f", {"x": None})]).f1 == 1.0
