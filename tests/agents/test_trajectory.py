"""ek.agents.trajectory: the four schemes of the cost-weighted trajectory distance."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

import ek
from ek.agents import Step, ToolSpec, tool_grammar
from ek.agents.trajectory import SCHEMES, TrajectoryMetric
from ek.base import FieldSpec

S, A = ("search", {"q": "cat"}), ("answer", {"a": "meow"})  # each of mass 2 (tool + one argument)


def test_identical_is_zero_in_every_scheme():
    for scheme in SCHEMES:
        assert TrajectoryMetric(scheme)([S, A], [S, A]).value == 0.0


def test_in_order_extra_step_costs_its_mass():
    s = TrajectoryMetric()([S, S, A], [S, A])
    assert s.detail["distance"] == 2.0 and s.detail["max_distance"] == 10.0
    assert s.value == pytest.approx(0.2)


def test_in_order_penalises_a_swap_but_any_order_does_not():
    swapped = [A, S]
    assert TrajectoryMetric("in_order")(swapped, [S, A]).detail["distance"] == 4.0  # delete + insert one
    assert TrajectoryMetric("any_order")(swapped, [S, A]).value == 0.0


def test_wrong_argument_costs_its_weight_not_a_whole_step():
    s = TrajectoryMetric()([("search", {"q": "dog"}), A], [S, A])
    assert s.detail["distance"] == 1.0


def test_needleman_wunsch_hand_example():
    # pred: a b c d ; gold: a c d e -> delete b (1), insert e (1)
    pred = [("a", {}), ("b", {}), ("c", {}), ("d", {})]
    gold = [("a", {}), ("c", {}), ("d", {}), ("e", {})]
    s = TrajectoryMetric()(pred, gold)
    assert s.detail["distance"] == 2.0 and s.detail["max_distance"] == 8.0


def test_any_order_finds_the_cheapest_pairing():
    # pairing the gold call with the call that only has a wrong value leaves the cheaper call unpaired
    s = TrajectoryMetric("any_order")([("a", {}), ("a", {"x": 0})], [("a", {"x": 1})])
    assert s.detail["distance"] == 2.0


def test_assignment_matches_scipy():
    opt = pytest.importorskip("scipy.optimize")
    import random

    from ek.agents.trajectory import _min_assignment

    rng = random.Random(4)
    for n, m in [(1, 1), (3, 5), (6, 4), (8, 8), (2, 9)]:
        cost = [[rng.uniform(-5, 0) for _ in range(m)] for _ in range(n)]
        rows, cols = opt.linear_sum_assignment(cost)
        assert _min_assignment(cost) == pytest.approx(sum(cost[r][c] for r, c in zip(rows, cols)))


def test_exact_is_all_or_nothing():
    s = TrajectoryMetric("exact")([S, ("answer", {"a": "purr"})], [S, A])
    assert s.value == 1.0
    assert TrajectoryMetric("exact")([("search", {"q": " CAT"}), A], [S, A]).value == 0.0


def test_superset_ignores_extra_steps_but_not_missing_ones():
    m = TrajectoryMetric("superset")
    assert m([S, ("log", {"x": 1}), A, S], [S, A]).value == 0.0
    s = m([S], [S, A])
    assert s.detail["distance"] == 2.0 and s.detail["max_distance"] == 4.0


def test_destructive_detour_costs_more_than_a_harmless_one():
    g = tool_grammar(ToolSpec("delete", destructive=True), ToolSpec("read"))
    gold = [S, A]
    harmless = TrajectoryMetric()([S, ("read", {}), A], gold, grammar=g)
    destructive = TrajectoryMetric(grammar=g)([S, ("delete", {}), A], gold)
    assert destructive.detail["distance"] == 10.0 and harmless.detail["distance"] == 1.0


def test_argument_importance_from_the_grammar():
    g = tool_grammar(ToolSpec("refund", params={"amount": FieldSpec("amount", "number", importance=20.0)}))
    s = TrajectoryMetric(grammar=g)([("refund", {"amount": 5})], [("refund", {"amount": 50})])
    assert s.detail["distance"] == 20.0 and s.detail["max_distance"] == 42.0


def test_long_trajectories_have_no_cap():
    pred = [("step", {"i": i}) for i in range(300)]
    gold = [("step", {"i": i}) for i in range(0, 300, 2)]
    s = TrajectoryMetric()(pred, gold)
    assert s.detail["distance"] == 150 * 2.0


def test_aggregate_is_summed_distance_over_summed_maximum():
    m = TrajectoryMetric()
    a, b = m([S, S, A], [S, A]), m([], [S])
    assert m.aggregate([a, b]) == pytest.approx((2 + 2) / (10 + 2))
    report = ek.evaluate([([S, S, A], [S, A]), ([], [S])], metric="trajectory")
    assert report.aggregate == pytest.approx(4 / 12)


def test_empty_pair_and_bad_scheme():
    assert TrajectoryMetric()([], []).value == 0.0
    with pytest.raises(ValueError, match="scheme must be one of in_order, exact, any_order, superset"):
        TrajectoryMetric("dag")


steps = st.lists(
    st.tuples(st.sampled_from(["a", "b", "c"]), st.dictionaries(st.sampled_from(["x"]), st.integers(0, 1), max_size=1)),
    max_size=7,
)


@given(pred=steps, gold=steps)
def test_distance_properties(pred, gold):
    for scheme in SCHEMES:
        s = TrajectoryMetric(scheme)(pred, gold)
        assert 0.0 <= s.value <= 1.0
    in_order = TrajectoryMetric("in_order")(pred, gold).detail["distance"]
    any_order = TrajectoryMetric("any_order")(pred, gold).detail["distance"]
    assert any_order <= in_order + 1e-9  # ignoring order can only help
    assert in_order == TrajectoryMetric("in_order")(gold, pred).detail["distance"]  # symmetric costs
    assert TrajectoryMetric("superset")(pred, gold).detail["distance"] <= any_order + 1e-9


@pytest.mark.parametrize("scheme", ["in_order", "exact", "any_order"])
@pytest.mark.parametrize(
    "pred_args,gold_args", [({}, {"x": None}), ({"x": None}, {})], ids=["missing-none", "extra-none"]
)
def test_an_explicit_none_argument_costs_distance(scheme, pred_args, gold_args):
    m = TrajectoryMetric(scheme=scheme)
    s = m([Step("f", pred_args)], [Step("f", gold_args)])
    assert s.value > 0.0 and s.detail["distance"] > 0.0
    if scheme != "exact":
        assert s.detail["distance"] == 1.0  # one argument of weight 1
    assert m([Step("f", {"x": None})], [Step("f", {"x": None})]).value == 0.0
