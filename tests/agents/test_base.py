"""ek.agents.base: episodes, trajectories, costs, and the task/tool grammar."""

import pytest

from ek.agents.base import (
    DESTRUCTIVE_WEIGHT,
    Cost,
    Episode,
    RunProvenance,
    Step,
    TaskSpec,
    ToolSpec,
    Trajectory,
    as_call,
    is_episode,
    suite_grammar,
    tool_grammar,
)
from ek.base import FieldSpec, GraphGrammar


def test_cost_adds_every_kind_and_latency():
    a = Cost(input_tokens=100, output_tokens=50, cached_input_tokens=10, reasoning_tokens=5, retries=1, latency_s=1.5)
    b = Cost(input_tokens=1, output_tokens=2, cached_input_tokens=3, reasoning_tokens=4, latency_s=0.5)
    c = a + b
    assert (c.input_tokens, c.output_tokens, c.cached_input_tokens, c.reasoning_tokens, c.retries) == (
        101,
        52,
        13,
        9,
        1,
    )
    assert c.latency_s == 2.0
    assert c.total_tokens == 101 + 52 + 13 + 9


def test_cost_latency_unknown_on_one_side_keeps_the_known_one():
    assert (Cost(latency_s=2.0) + Cost()).latency_s == 2.0
    assert (Cost() + Cost()).latency_s is None


def test_cost_refuses_negative_token_counts():
    with pytest.raises(ValueError, match=r"input_tokens is -5; a count can't be negative"):
        Cost(input_tokens=-5)
    with pytest.raises(ValueError, match="reasoning_tokens"):
        Cost(reasoning_tokens=-1)


def test_cost_refuses_fractional_counts_and_bad_latency():
    with pytest.raises(TypeError, match="whole number"):
        Cost(output_tokens=1.5)
    assert Cost(output_tokens=3.0).output_tokens == 3
    with pytest.raises(ValueError, match="latency_s"):
        Cost(latency_s=-1.0)


def test_step_copies_args_and_exposes_the_call():
    args = {"q": "cat"}
    s = Step("search", args)
    args["q"] = "dog"
    assert s.call == ("search", {"q": "cat"})
    with pytest.raises(TypeError, match="parse JSON arguments first"):
        Step("search", '{"q": "cat"}')
    with pytest.raises(TypeError, match="non-empty tool name"):
        Step("")


def test_trajectory_coerces_call_literals():
    t = Trajectory([("search", {"q": "a"}), {"tool": "answer", "args": {"a": 1}}, Step("x")])
    assert t.tools == ("search", "answer", "x")
    assert t.calls[1] == ("answer", {"a": 1})
    assert len(t) == 3 and t[0].tool == "search"
    with pytest.raises(TypeError, match="sequence of Step"):
        Trajectory("search")


def test_episode_graded_copies_meta_and_leaves_original():
    ep = Episode(task_id="t", output="x", meta={"k": 1})
    g = ep.graded(True)
    assert g.success is True and ep.success is None
    g.meta["k"] = 2
    assert ep.meta["k"] == 1


def test_episode_accepts_a_list_of_steps_and_checks_types():
    ep = Episode(trajectory=[Step("a"), ("b", {"x": 1})])
    assert ep.calls == (("a", {}), ("b", {"x": 1}))
    with pytest.raises(TypeError, match="cost_from_usage"):
        Episode(cost={"input_tokens": 3})
    with pytest.raises(TypeError, match="success must be True, False or None"):
        Episode(success=1)


def test_run_provenance_key_excludes_seed_temperature_and_model():
    a = RunProvenance(seed=1, temperature=0.7, model="m1", simulator="s", suite_version="v", scaffold="x")
    b = RunProvenance(seed=2, temperature=0.0, model="m2", simulator="s", suite_version="v", scaffold="x")
    assert a.comparability_key() == b.comparability_key() == ("s", "v", "x")
    assert RunProvenance(simulator="s2").comparability_key() != a.comparability_key()


def test_tool_weight_defaults():
    assert ToolSpec("read").weight == 1.0
    assert ToolSpec("delete", destructive=True).weight == DESTRUCTIVE_WEIGHT
    assert ToolSpec("delete", destructive=True, importance=3.0).weight == 3.0
    with pytest.raises(ValueError, match="importance"):
        ToolSpec("x", importance=-1)
    with pytest.raises(TypeError, match="needs a FieldSpec"):
        ToolSpec("x", params={"a": "string"})


def test_tool_grammar_weights_calls_and_arguments():
    refund = ToolSpec(
        "refund", params=[FieldSpec("amount", "number", importance=20.0), FieldSpec("reason")], destructive=True
    )
    g = tool_grammar(ToolSpec("search", params={"q": FieldSpec("q")}), refund)
    assert isinstance(g, GraphGrammar)
    assert g.node_cost("refund") == 10.0 and g.node_cost("search") == 1.0
    assert g.field_cost("refund", "amount") == 20.0 and g.field_cost("refund", "reason") == 1.0
    assert g.node_cost("unknown") == 1.0
    with pytest.raises(TypeError, match=r"tool_grammar\(\*tools\)"):
        tool_grammar([refund])


def test_suite_grammar_unions_tools_later_wins():
    t1 = TaskSpec("t1", tools=[ToolSpec("send", importance=2.0)])
    t2 = TaskSpec("t2", tools=[ToolSpec("send", importance=5.0), ToolSpec("read")])
    g = suite_grammar([t1, t2])
    assert g.node_cost("send") == 5.0 and "read" in g.node_types
    assert suite_grammar({"a": t1}).node_cost("send") == 2.0
    assert t2.grammar().node_cost("send") == 5.0


def test_taskspec_validation():
    with pytest.raises(TypeError, match="non-empty str"):
        TaskSpec("")
    with pytest.raises(ValueError, match="value must be a finite number"):
        TaskSpec("t", value=-1)
    with pytest.raises(TypeError, match="ToolSpec"):
        TaskSpec("t", tools=["search"])


def test_as_call_shapes():
    assert as_call(Step("s", {"q": 1})) == ("s", {"q": 1})
    assert as_call(("s", {"q": 1})) == ("s", {"q": 1})
    assert as_call(["s"]) == ("s", {})
    assert as_call({"name": "s", "arguments": {"q": 1}}) == ("s", {"q": 1})
    assert as_call("s") == ("s", {})
    with pytest.raises(ValueError, match=r"a call is \(tool, args\)"):
        as_call(("s", {}, 3))
    with pytest.raises(TypeError, match="arguments must be a mapping"):
        as_call(("s", '{"q": 1}'))
    with pytest.raises(TypeError, match="can't read a tool call"):
        as_call(42)


def test_is_episode_duck_types():
    class Shape:
        task_id, trajectory, output = "t", (), None

    assert is_episode(Episode()) and is_episode(Shape()) and not is_episode("x")


def test_costs_sum_with_the_builtin_sum():
    a, b = Cost(input_tokens=100, output_tokens=50, latency_s=1.0), Cost(input_tokens=10, retries=1)
    assert sum([a, b]) == a + b == Cost(input_tokens=110, output_tokens=50, retries=1, latency_s=1.0)
    assert 0 + a is a and sum([a]) is a
    assert sum([], Cost()) == Cost()
    with pytest.raises(TypeError):
        1 + a  # only the 0 that starts a sum is an empty tally
    with pytest.raises(TypeError):
        False + a
