"""ek.agents.bridge: transcripts (OpenAI, Anthropic), usage objects, Inspect AI samples, DeepEval cases."""

import os
import warnings

import pytest

from ek.agents import Cost, TaskSpec, ToolCallMetric, dollars, load_prices, per_million
from ek.agents.bridge import (
    as_agent,
    cost_from_usage,
    episode_from_messages,
    from_deepeval_test_case,
    from_inspect_sample,
    trajectory_from_messages,
)

os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "YES")  # before deepeval is ever imported


# ---------------------------------------------------------------- OpenAI format


def openai_parallel():
    return [
        {"role": "system", "content": "You are a travel agent."},
        {"role": "user", "content": "Weather in Paris and Rome, then book Rome."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_a",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                },
                {
                    "id": "call_b",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Rome"}'},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "call_b", "content": "25C"},  # answered out of order
        {"role": "tool", "tool_call_id": "call_a", "content": "18C"},
        {
            "role": "assistant",
            "tool_calls": [
                {
                    "id": "call_c",
                    "type": "function",
                    "function": {"name": "book", "arguments": '{"city": "Rome", "nights": 2}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_c", "content": "no rooms", "is_error": True},
        {"role": "assistant", "content": "Paris 18C, Rome 25C; booking failed."},
    ]


def test_openai_results_pair_by_tool_call_id():
    t = trajectory_from_messages(openai_parallel())
    assert t.tools == ("get_weather", "get_weather", "book")
    assert [(s.args["city"], s.observation) for s in t.steps[:2]] == [("Paris", "18C"), ("Rome", "25C")]
    assert t.steps[2].args == {"city": "Rome", "nights": 2}
    assert t.steps[2].error == "no rooms" and t.steps[0].error is None


def test_openai_tool_error_field_and_status_mark_the_step():
    msgs = [
        {
            "role": "assistant",
            "tool_calls": [
                {"id": "1", "function": {"name": "a", "arguments": "{}"}},
                {"id": "2", "function": {"name": "b", "arguments": "{}"}},
            ],
        },
        {"role": "tool", "tool_call_id": "1", "content": "", "error": "permission denied"},
        {"role": "tool", "tool_call_id": "2", "content": "boom", "status": "error"},
    ]
    t = trajectory_from_messages(msgs)
    assert [s.error for s in t] == ["permission denied", "boom"]


def test_results_without_ids_go_to_the_oldest_open_call():
    msgs = [
        {
            "role": "assistant",
            "tool_calls": [
                {"function": {"name": "a", "arguments": "{}"}},
                {"function": {"name": "b", "arguments": "{}"}},
            ],
        },
        {"role": "tool", "content": "first"},
        {"role": "tool", "content": "second"},
        {"role": "assistant", "function_call": {"name": "c", "arguments": '{"x": 1}'}},
        {"role": "function", "name": "c", "content": "third"},
    ]
    assert [s.observation for s in trajectory_from_messages(msgs)] == ["first", "second", "third"]


def test_arguments_that_are_not_valid_json_mark_the_step():
    msgs = [
        {
            "role": "assistant",
            "tool_calls": [
                {"id": "1", "function": {"name": "get_weather", "arguments": '{"city": Paris}'}},
                {"id": "2", "function": {"name": "get_weather", "arguments": '["Paris"]'}},
            ],
        },
        {"role": "tool", "tool_call_id": "1", "content": "?"},
    ]
    s1, s2 = trajectory_from_messages(msgs).steps
    assert s1.args == {} and s1.observation == "?"
    assert s1.error.startswith("arguments are not valid JSON (Expecting value at position 9)")
    assert s2.error.startswith("arguments must be a JSON object, got list")
    # the malformed call is scored as a wrong call, not dropped
    assert ToolCallMetric()([s1], [("get_weather", {"city": "Paris"})]).f1 == 0.0


def test_episode_from_messages_output_and_usage():
    usage = {
        "prompt_tokens": 1200,
        "completion_tokens": 300,
        "total_tokens": 1500,
        "prompt_tokens_details": {"cached_tokens": 1000},
        "completion_tokens_details": {"reasoning_tokens": 200},
    }
    ep = episode_from_messages(
        openai_parallel(), task_id="trip", usage=[usage, usage], latency_s=2.5, final_state={"booked": False}
    )
    assert ep.output == "Paris 18C, Rome 25C; booking failed."
    assert ep.cost == Cost(
        input_tokens=400, cached_input_tokens=2000, output_tokens=200, reasoning_tokens=400, latency_s=2.5
    )
    assert ep.task_id == "trip" and ep.final_state == {"booked": False}
    assert episode_from_messages(openai_parallel()).cost is None


def test_real_openai_sdk_objects():
    types = pytest.importorskip("openai.types.chat")
    from openai.types import CompletionUsage

    msg = types.ChatCompletionMessage(
        role="assistant",
        content=None,
        tool_calls=[{"id": "c1", "type": "function", "function": {"name": "search", "arguments": '{"q": "ek"}'}}],
    )
    t = trajectory_from_messages([msg, {"role": "tool", "tool_call_id": "c1", "content": "found"}])
    assert t.steps[0].call == ("search", {"q": "ek"}) and t.steps[0].observation == "found"
    usage = CompletionUsage(
        prompt_tokens=100,
        completion_tokens=40,
        total_tokens=140,
        prompt_tokens_details={"cached_tokens": 64},
        completion_tokens_details={"reasoning_tokens": 10},
    )
    c = cost_from_usage(usage)
    assert (c.input_tokens, c.cached_input_tokens, c.output_tokens, c.reasoning_tokens) == (36, 64, 30, 10)


def test_openai_responses_api_items():
    items = [
        {"role": "user", "content": "find x and y"},
        {"type": "function_call", "call_id": "c1", "name": "search", "arguments": '{"q": "x"}'},
        {"type": "function_call", "call_id": "c2", "name": "search", "arguments": '{"q": "y"}'},
        {"type": "function_call_output", "call_id": "c2", "output": "Y"},
        {"type": "function_call_output", "call_id": "c1", "output": "X"},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "x and y"}]},
    ]
    ep = episode_from_messages(items)
    assert [(s.args["q"], s.observation) for s in ep.trajectory] == [("x", "X"), ("y", "Y")]
    assert ep.output == "x and y"


# ---------------------------------------------------------------- Anthropic format


def test_anthropic_several_tool_results_in_one_user_message_out_of_order():
    msgs = [
        {"role": "user", "content": "Look up two orders."},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Checking both."},
                {"type": "tool_use", "id": "toolu_1", "name": "get_order", "input": {"id": 1}},
                {"type": "tool_use", "id": "toolu_2", "name": "get_order", "input": {"id": 2}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_2", "content": [{"type": "text", "text": "shipped"}]},
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "order not found", "is_error": True},
            ],
        },
        {"role": "assistant", "content": [{"type": "text", "text": "Order 2 shipped; order 1 is unknown."}]},
    ]
    ep = episode_from_messages(
        msgs,
        usage={
            "input_tokens": 50,
            "cache_read_input_tokens": 900,
            "cache_creation_input_tokens": 100,
            "output_tokens": 80,
        },
    )
    s1, s2 = ep.trajectory.steps
    assert (s1.args, s1.observation, s1.error) == ({"id": 1}, "order not found", "order not found")
    assert (s2.args, s2.observation, s2.error) == ({"id": 2}, "shipped", None)
    assert ep.output == "Order 2 shipped; order 1 is unknown."
    assert ep.cost == Cost(input_tokens=150, cached_input_tokens=900, output_tokens=80)


# ---------------------------------------------------------------- usage spellings


def test_cost_from_usage_spellings():
    assert cost_from_usage({"prompt_tokens": 100, "completion_tokens": 20}) == Cost(input_tokens=100, output_tokens=20)
    responses = {
        "input_tokens": 500,
        "output_tokens": 90,
        "input_tokens_details": {"cached_tokens": 300},
        "output_tokens_details": {"reasoning_tokens": 40},
    }
    assert cost_from_usage(responses) == Cost(
        input_tokens=200, cached_input_tokens=300, output_tokens=50, reasoning_tokens=40
    )
    gemini = {
        "prompt_token_count": 1000,
        "cached_content_token_count": 600,
        "candidates_token_count": 70,
        "thoughts_token_count": 30,
    }
    assert cost_from_usage(gemini) == Cost(
        input_tokens=400, cached_input_tokens=600, output_tokens=70, reasoning_tokens=30
    )
    assert cost_from_usage({"input_tokens": 5, "output_tokens": 6}, latency_s=1.0).latency_s == 1.0


def test_cached_tokens_are_billed_at_the_cached_rate():
    price = per_million(10.0, 10.0, cached_input=1.0)
    usage = {"prompt_tokens": 1_000_000, "completion_tokens": 0, "prompt_tokens_details": {"cached_tokens": 800_000}}
    assert dollars(cost_from_usage(usage), price) == pytest.approx(0.2 * 10 + 0.8 * 1)


def test_cost_from_usage_refuses_negative_and_inconsistent_counts():
    with pytest.raises(ValueError, match=r"usage field 'completion_tokens' is -3; a token count can't be negative"):
        cost_from_usage({"prompt_tokens": 10, "completion_tokens": -3})
    with pytest.raises(ValueError, match="usage reports 50 cached_tokens but only 40 prompt_tokens"):
        cost_from_usage({"prompt_tokens": 40, "completion_tokens": 1, "prompt_tokens_details": {"cached_tokens": 50}})
    with pytest.raises(TypeError, match="found no token counts"):
        cost_from_usage({"tokens": 3})


# ---------------------------------------------------------------- Inspect AI


@pytest.fixture(scope="module")
def inspect_sample():
    pytest.importorskip("inspect_ai")
    from inspect_ai.log import EvalSample
    from inspect_ai.model import (
        ChatMessageAssistant,
        ChatMessageTool,
        ChatMessageUser,
        ContentText,
        ModelOutput,
        ModelUsage,
    )
    from inspect_ai.scorer import Score
    from inspect_ai.tool import ToolCall, ToolCallError

    messages = [
        ChatMessageUser(content="Weather in Paris and Rome?"),
        ChatMessageAssistant(
            content="",
            model="openai/gpt-4o",
            tool_calls=[
                ToolCall(id="c1", function="get_weather", arguments={"city": "Paris"}),
                ToolCall(id="c2", function="get_weather", arguments={"city": "Rome"}),
                ToolCall(id="c3", function="get_weather", arguments={}, parse_error="Expecting value: line 1"),
            ],
        ),
        ChatMessageTool(content=[ContentText(text="25C")], tool_call_id="c2", function="get_weather"),
        ChatMessageTool(
            content="",
            tool_call_id="c1",
            function="get_weather",
            error=ToolCallError("timeout", "weather service timed out"),
        ),
        ChatMessageTool(content="bad args", tool_call_id="c3", function="get_weather"),
        ChatMessageAssistant(content="Rome is 25C; Paris is unknown.", model="openai/gpt-4o"),
    ]
    output = ModelOutput.from_content(model="openai/gpt-4o", content="Rome is 25C; Paris is unknown.")
    output.usage = ModelUsage(input_tokens=40, output_tokens=12, total_tokens=52)  # the last call only
    usage = {
        "openai/gpt-4o": ModelUsage(
            input_tokens=300, output_tokens=80, total_tokens=580, input_tokens_cache_read=200, reasoning_tokens=30
        ),
        "openai/gpt-4o-mini": ModelUsage(input_tokens=1000, output_tokens=100, total_tokens=1100),
    }
    return EvalSample(
        id="weather-1",
        epoch=2,
        input="Weather?",
        target="25C",
        messages=messages,
        output=output,
        model_usage=usage,
        scores={"match": Score(value="C")},
        total_time=3.5,
    )


def test_inspect_sample_steps_errors_and_output(inspect_sample):
    ep = from_inspect_sample(inspect_sample)
    assert ep.task_id == "weather-1" and ep.meta["epoch"] == 2
    s1, s2, s3 = ep.trajectory.steps
    assert (s1.args, s1.error) == ({"city": "Paris"}, "timeout: weather service timed out")
    assert (s2.args, s2.observation, s2.error) == ({"city": "Rome"}, "25C", None)
    assert s3.error == "Expecting value: line 1"
    assert ep.output == "Rome is 25C; Paris is unknown."
    assert ep.success is True and ep.run.model == "openai/gpt-4o"


def test_inspect_cost_is_the_whole_sample_usage(inspect_sample):
    ep = from_inspect_sample(inspect_sample, task_id="override")
    assert ep.task_id == "override"
    # both models, every call: not the last call's 40 + 12 tokens
    assert ep.cost == Cost(
        input_tokens=1300, cached_input_tokens=200, output_tokens=150, reasoning_tokens=30, latency_s=3.5
    )
    table = load_prices(os.path.join(os.path.dirname(__file__), "data", "litellm_prices.json"))
    from ek.agents import episode_dollars

    expected = (300 * 2.5e-6 + 200 * 1.25e-6 + 50 * 1e-5 + 30 * 1e-5) + (1000 * 1.5e-7 + 100 * 6e-7)
    assert episode_dollars(ep, prices=table) == pytest.approx(expected)


def test_inspect_sample_as_plain_json_gives_the_same_episode(inspect_sample):
    as_json = inspect_sample.model_dump()
    a, b = from_inspect_sample(inspect_sample), from_inspect_sample(as_json)
    assert a.trajectory == b.trajectory and a.cost == b.cost and a.output == b.output


# ---------------------------------------------------------------- DeepEval


def test_deepeval_test_case():
    pytest.importorskip("deepeval")
    from deepeval.test_case import LLMTestCase, ToolCall

    case = LLMTestCase(
        input="Refund order 7",
        actual_output="Refunded $20 for order 7.",
        expected_output="Refunded.",
        tools_called=[
            ToolCall(name="get_order", input_parameters={"id": 7}, output={"total": 20}),
            ToolCall(name="refund", input_parameters={"id": 7, "amount": 20}, output="ok"),
        ],
        expected_tools=[
            ToolCall(name="get_order", input_parameters={"id": 7}),
            ToolCall(name="refund", input_parameters={"id": 7, "amount": 20}),
        ],
        input_token_count=1500,
        output_token_count=220,
        completion_time=4.2,
        token_cost=0.0081,
        name="refund-7",
    )
    ep = from_deepeval_test_case(case)
    assert ep.task_id == "refund-7" and ep.output == "Refunded $20 for order 7."
    assert ep.trajectory.calls == (("get_order", {"id": 7}), ("refund", {"id": 7, "amount": 20}))
    assert ep.trajectory.steps[0].observation == {"total": 20}
    assert ep.cost == Cost(input_tokens=1500, output_tokens=220, latency_s=4.2)
    assert ep.meta["token_cost"] == 0.0081 and ep.meta["expected_output"] == "Refunded."
    assert ToolCallMetric()(ep, ep.meta["expected_calls"]).f1 == 1.0
    bare = from_deepeval_test_case(LLMTestCase(input="hi", actual_output="yo"), task_id="t")
    assert bare.cost is None and bare.task_id == "t" and len(bare.trajectory) == 0


# ---------------------------------------------------------------- as_agent


def test_as_agent_wraps_sync_async_and_seeded_functions():
    import asyncio

    t = TaskSpec("t1", input="hi")
    assert as_agent(str.upper)(t).output == "HI" and as_agent(str.upper)(t).task_id == "t1"
    seeded = as_agent(lambda x, *, seed=None: f"{x}-{seed}")
    assert seeded(t, seed=3).output == "hi-3"

    async def shout(x):
        return x.upper()

    agent = as_agent(shout)
    assert asyncio.iscoroutinefunction(agent)
    assert asyncio.run(agent(t)).output == "HI"
    with pytest.raises(TypeError, match="needs a callable"):
        as_agent("upper")


# ---------------------------------------------------------------- hostile arguments


def one_call(arguments, call_id="c1"):
    return [
        {"role": "assistant", "tool_calls": [{"id": call_id, "function": {"name": "f", "arguments": arguments}}]},
        {"role": "tool", "tool_call_id": call_id, "content": "done"},
        {"role": "assistant", "tool_calls": [{"id": "ok", "function": {"name": "g", "arguments": '{"x": 1}'}}]},
    ]


def nested_json(depth):
    return '{"a": ' + "[" * depth + "]" * depth + "}"


@pytest.mark.parametrize(
    "arguments,message",
    [
        (nested_json(100_000), "nest deeper than 100 levels"),  # RecursionError in json
        (nested_json(500), "nest deeper than 100 levels"),  # parses, then refused
        ('{"n": 1' + "0" * 5000 + "}", "a number of 5001 digits; the limit is 4300"),
        ('{"n": 1' + "0" * 5000 + ".5}", "a number of 5003 characters"),
        ('{"n": 1e999}', "outside the range of a float"),  # would read back as inf
        ('{"n": NaN}', "NaN is not a JSON number"),
    ],
    ids=["100k-deep", "500-deep", "5000-digit-int", "5000-digit-float", "overflow", "nan"],
)
def test_oversized_arguments_become_the_steps_error(arguments, message):
    steps = trajectory_from_messages(one_call(arguments)).steps
    assert steps[0].args == {} and message in steps[0].error
    assert steps[0].observation == "done"  # the result still pairs
    assert steps[1].args == {"x": 1} and steps[1].error is None  # the rest of the episode stays


def test_nesting_up_to_the_limit_is_kept():
    # {"a": [[...]]} with 99 lists is 100 levels counting the object itself
    step = trajectory_from_messages(one_call(nested_json(99))).steps[0]
    assert step.error is None and len(step.args) == 1


def test_deep_or_huge_argument_objects_are_refused_too():
    deep = inner = {}
    for _ in range(100_000):
        inner["a"] = {}
        inner = inner["a"]
    msgs = [
        {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "u1", "name": "f", "input": deep},
                {"type": "tool_use", "id": "u2", "name": "f", "input": {"n": 10**5000}},
            ],
        }
    ]
    s1, s2 = trajectory_from_messages(msgs).steps
    assert s1.args == {} and "nest deeper than 100 levels" in s1.error
    assert s2.args == {} and "an integer longer than 4300 digits" in s2.error


def test_deepeval_tool_calls_with_unusable_parameters_keep_the_episode():
    class Call:
        def __init__(self, name, input_parameters, output=None):
            self.name, self.input_parameters, self.output = name, input_parameters, output

    class Case:
        actual_output = "x"
        tools_called = [Call("f", [1, 2]), Call("g", {"n": 10**5000}), Call("h", {"k": 1})]

    ep = from_deepeval_test_case(Case(), task_id="t")
    errors = [s.error for s in ep.trajectory.steps]
    assert "must be a JSON object, got list" in errors[0]
    assert "an integer longer than 4300 digits" in errors[1] and errors[2] is None


# ---------------------------------------------------------------- duplicate call ids


def parallel_calls_sharing_an_id():
    return [
        {
            "role": "assistant",
            "tool_calls": [
                {"id": "c1", "function": {"name": "get", "arguments": '{"city": "Paris"}'}},
                {"id": "c1", "function": {"name": "get", "arguments": '{"city": "Rome"}'}},
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "18C"},
        {"role": "tool", "tool_call_id": "c1", "content": "25C"},
        {"role": "assistant", "content": "done"},
    ]


def test_calls_sharing_an_id_are_answered_in_order_and_the_ambiguity_is_reported():
    with pytest.warns(UserWarning, match=r"1 tool call id\(s\) \('c1'\) were shared .* in call order"):
        steps = trajectory_from_messages(parallel_calls_sharing_an_id()).steps
    assert [(s.args["city"], s.observation) for s in steps] == [("Paris", "18C"), ("Rome", "25C")]
    with pytest.warns(UserWarning, match="shared"):
        ep = episode_from_messages(parallel_calls_sharing_an_id())
    assert ep.meta["ambiguous_call_ids"] == ["c1"]


def test_an_id_reused_turn_after_turn_is_not_ambiguous():
    msgs = [
        {"role": "assistant", "tool_calls": [{"id": "call_0", "function": {"name": "a", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_0", "content": "first"},
        {"role": "assistant", "tool_calls": [{"id": "call_0", "function": {"name": "b", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_0", "content": "second"},
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ep = episode_from_messages(msgs)
    assert [s.observation for s in ep.trajectory] == ["first", "second"]
    assert "ambiguous_call_ids" not in ep.meta
