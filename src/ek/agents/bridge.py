"""One-way adapters: turn what an agent or agent framework already emits into an ek `Episode`.

ek depends on the *shape* of what Inspect AI, DeepEval or a provider SDK
emits, never on the packages: every adapter here duck-types (dicts and
objects alike) and imports nothing from them. You need those tools to *run*
an agent; you don't need them to *score* what it produced.

The workhorse is `trajectory_from_messages`: a chat transcript in the OpenAI
format (``tool_calls`` + ``role: "tool"`` messages, or Responses API
``function_call`` / ``function_call_output`` items), the Anthropic format
(``tool_use`` / ``tool_result`` content blocks) or Inspect's message objects
is the common wire format of tool-using agents. Results are paired with
their calls by id (``tool_call_id`` / ``tool_use_id``), so parallel calls
answered out of order land on the right step; results without an id go to
the oldest unanswered call. Calls that share one id are answered in call
order, and when a result could belong to more than one of them the id is
reported (a warning, and ``meta["ambiguous_call_ids"]`` on the episode). A
tool error (Inspect's ``ToolCallError``, an ``is_error`` flag, an ``error``
field, ``status: "error"``) marks its step, and so do arguments ek cannot
keep: malformed JSON, a non-object, nesting deeper than 100 levels or a
number longer than 4,300 characters.

>>> messages = [
...     {"role": "user", "content": "weather in Paris?"},
...     {"role": "assistant", "tool_calls": [{"id": "c1", "function": {
...         "name": "get_weather", "arguments": '{"city": "Paris"}'}}]},
...     {"role": "tool", "tool_call_id": "c1", "content": "18C"},
...     {"role": "assistant", "content": "It is 18C in Paris."},
... ]
>>> ep = episode_from_messages(messages, usage={"prompt_tokens": 90, "completion_tokens": 12})
>>> ep.trajectory.tools, ep.trajectory.steps[0].observation, ep.output
(('get_weather',), '18C', 'It is 18C in Paris.')
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import math
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any, cast

from ek._util import type_name
from ek.agents._common import accepts_keyword
from ek.agents._transcript import get_field as _get
from ek.agents._transcript import parse_transcript, read_arguments, warn_ambiguous
from ek.agents.base import Cost, Episode, RunProvenance, Step, Trajectory

__all__ = [
    "as_agent",
    "cost_from_usage",
    "episode_from_messages",
    "from_deepeval_test_case",
    "from_inspect_sample",
    "trajectory_from_messages",
]


def as_agent(fn: Callable[..., object]) -> Callable[..., object]:
    """Wrap a plain ``input -> answer`` function as a ``TaskSpec -> Episode`` agent.

    The function receives ``task.input``; an answer that is not already an
    `Episode` becomes its ``output``. An ``async def`` function gives an
    async agent, and a function that takes a ``seed`` keyword receives the
    harness's per-trial seed.

    >>> from ek.agents.base import TaskSpec
    >>> as_agent(str.upper)(TaskSpec("t1", input="hi")).output
    'HI'
    """
    if not callable(fn):
        raise TypeError(f"as_agent() needs a callable input -> answer, got {type_name(fn)}.")
    takes_seed = accepts_keyword(fn, "seed")

    async def async_seeded(task: Any, *, seed: int | None = None) -> Episode:
        return _as_episode(await cast(Awaitable[object], fn(_task_input(task), seed=seed)), task)

    async def async_plain(task: Any) -> Episode:
        return _as_episode(await cast(Awaitable[object], fn(_task_input(task))), task)

    def seeded(task: Any, *, seed: int | None = None) -> Episode:
        return _as_episode(fn(_task_input(task), seed=seed), task)

    def plain(task: Any) -> Episode:
        return _as_episode(fn(_task_input(task)), task)

    agent: Callable[..., object]
    if inspect.iscoroutinefunction(fn):
        agent = async_seeded if takes_seed else async_plain
    else:
        agent = seeded if takes_seed else plain
    name = getattr(fn, "__name__", type(fn).__name__)
    agent.__name__ = agent.__qualname__ = f"as_agent({name})"
    agent.__doc__ = getattr(fn, "__doc__", None)
    return agent


def trajectory_from_messages(messages: Iterable[object]) -> Trajectory:
    """The `Trajectory` of a chat transcript: one `Step` per tool call, in call order.

    Each call's result (matched by id, else the oldest unanswered call) is
    its ``observation``. Arguments that are not valid JSON, not a JSON
    object, nested deeper than 100 levels or holding a number longer than
    4,300 characters leave ``args`` empty and
    set the step's ``error``: a malformed call is a scored mistake of the
    agent, not a reason to drop the episode. A result whose id several
    waiting calls share goes to the first of them, with a warning.
    """
    calls, _, _ = parse_transcript(messages)
    warn_ambiguous(calls.ambiguous)
    return Trajectory(calls.steps())


def episode_from_messages(
    messages: Iterable[object],
    *,
    task_id: str = "",
    usage: object = None,
    output: object = None,
    final_state: object = None,
    latency_s: float | None = None,
) -> Episode:
    """An `Episode` from a transcript, plus optional usage and final state.

    ``output`` defaults to the last assistant text (the final answer).
    ``usage`` is one provider usage object or dict, or a list of them (one
    per model call), summed; without it, ``usage`` fields found on the
    messages are summed. Ids shared by calls waiting at the same time are
    listed in ``meta["ambiguous_call_ids"]`` (see `trajectory_from_messages`).
    """
    calls, last_text, message_usage = parse_transcript(messages)
    if usage is not None:
        usages = usage if isinstance(usage, (list, tuple)) else [usage]
        cost: Cost | None = _sum_costs(cost_from_usage(u) for u in usages)
    else:
        cost = _sum_costs(cost_from_usage(u) for u in message_usage) if message_usage else None
    cost = _with_latency(cost, latency_s)
    warn_ambiguous(calls.ambiguous)
    return Episode(
        task_id=task_id,
        trajectory=Trajectory(calls.steps()),
        output=last_text if output is None else output,
        final_state=final_state,
        cost=cost,
        meta=calls.meta(),
    )


def cost_from_usage(usage: object, *, latency_s: float | None = None) -> Cost:
    """A `Cost` from a provider usage object or dict, split into ek's four token kinds.

    Understood spellings (each provider's own accounting is undone so the
    kinds are disjoint: cached input is billed at the cached rate, reasoning
    at the reasoning rate):

    * OpenAI chat: ``prompt_tokens`` (includes
      ``prompt_tokens_details.cached_tokens``), ``completion_tokens``
      (includes ``completion_tokens_details.reasoning_tokens``).
    * OpenAI Responses: ``input_tokens`` / ``output_tokens`` with
      ``input_tokens_details`` / ``output_tokens_details``.
    * Anthropic: ``input_tokens`` (fresh only), ``cache_read_input_tokens``,
      ``cache_creation_input_tokens``, ``output_tokens``.
    * Inspect ``ModelUsage``: ``input_tokens`` (fresh only),
      ``input_tokens_cache_read`` / ``_write``, ``output_tokens`` (includes
      ``reasoning_tokens``).
    * Gemini: ``prompt_token_count``, ``cached_content_token_count``,
      ``candidates_token_count``, ``thoughts_token_count``.

    Cache writes are billed as input (providers charge a small premium that
    `ModelPrice` does not model).

    Raises:
        ValueError: a negative count, or more cached than prompt tokens.
        TypeError: no token counts in a recognised spelling.

    >>> c = cost_from_usage({"prompt_tokens": 100, "completion_tokens": 20,
    ...                      "prompt_tokens_details": {"cached_tokens": 60}})
    >>> c.input_tokens, c.cached_input_tokens, c.output_tokens
    (40, 60, 20)
    """
    if usage is None:
        raise TypeError("cost_from_usage() got None; pass the provider's usage object or dict.")
    get = functools.partial(_count, usage)
    if _has(usage, "prompt_tokens") or _has(usage, "completion_tokens"):
        prompt, completion = get("prompt_tokens"), get("completion_tokens")
        cached = get("prompt_tokens_details", "cached_tokens")
        reasoning = get("completion_tokens_details", "reasoning_tokens")
        fresh = _minus(prompt, cached, "prompt_tokens", "cached_tokens")
        visible = _minus(completion, reasoning, "completion_tokens", "reasoning_tokens")
    elif _has(usage, "input_tokens_cache_read") or _has(usage, "input_tokens_cache_write"):
        cached = get("input_tokens_cache_read")
        fresh = get("input_tokens") + get("input_tokens_cache_write")
        reasoning = get("reasoning_tokens")
        visible = _minus(get("output_tokens"), reasoning, "output_tokens", "reasoning_tokens")
    elif _has(usage, "cache_read_input_tokens") or _has(usage, "cache_creation_input_tokens"):
        cached = get("cache_read_input_tokens")
        fresh = get("input_tokens") + get("cache_creation_input_tokens")
        reasoning, visible = 0, get("output_tokens")
    elif _has(usage, "input_tokens_details") or _has(usage, "output_tokens_details"):
        cached = get("input_tokens_details", "cached_tokens")
        reasoning = get("output_tokens_details", "reasoning_tokens")
        fresh = _minus(get("input_tokens"), cached, "input_tokens", "cached_tokens")
        visible = _minus(get("output_tokens"), reasoning, "output_tokens", "reasoning_tokens")
    elif _has(usage, "prompt_token_count") or _has(usage, "candidates_token_count"):
        cached = get("cached_content_token_count")
        fresh = _minus(get("prompt_token_count"), cached, "prompt_token_count", "cached_content_token_count")
        reasoning, visible = get("thoughts_token_count"), get("candidates_token_count")
    elif _has(usage, "input_tokens") or _has(usage, "output_tokens"):
        cached = 0
        reasoning = get("reasoning_tokens")
        fresh = get("input_tokens")
        visible = _minus(get("output_tokens"), reasoning, "output_tokens", "reasoning_tokens")
    else:
        raise TypeError(
            f"cost_from_usage() found no token counts in {type_name(usage)}; expected OpenAI "
            "(prompt_tokens/completion_tokens), Anthropic or Inspect (input_tokens/output_tokens) "
            "or Gemini (prompt_token_count) fields. Build Cost(...) yourself for other shapes."
        )
    return Cost(
        input_tokens=fresh,
        output_tokens=visible,
        cached_input_tokens=cached,
        reasoning_tokens=reasoning,
        latency_s=latency_s,
    )


def from_inspect_sample(sample: object, *, task_id: str = "") -> Episode:
    """An `Episode` from an Inspect AI ``EvalSample`` (or anything of its shape).

    Reads ``.messages`` (tool calls, results and ``ToolCallError`` s),
    ``.output`` (the final completion and model), ``.id`` (the task id,
    so a sample's epochs group as trials), ``.model_usage`` (the usage of
    *every* model call in the sample, kept per model in
    ``meta["cost_by_model"]`` and summed into ``cost``), ``.total_time``
    (latency) and ``.scores`` (``success`` when every score reads as
    correct/incorrect). No ``inspect_ai`` import is needed.
    """
    calls, last_text, _ = parse_transcript(_get(sample, "messages") or ())
    out = _get(sample, "output")
    completion = _get(out, "completion") if out is not None else None
    model = (_get(out, "model") if out is not None else None) or ""
    by_model = {}
    model_usage = _get(sample, "model_usage")
    if isinstance(model_usage, Mapping):
        by_model = {str(m): cost_from_usage(u) for m, u in model_usage.items() if u is not None}
    if by_model:
        cost: Cost | None = _sum_costs(by_model.values())
        if not model and len(by_model) == 1:
            model = next(iter(by_model))
    else:
        usage = _get(out, "usage") if out is not None else None
        cost = cost_from_usage(usage) if usage is not None else None
    cost = _with_latency(cost, _get(sample, "total_time"))
    scores = _get(sample, "scores") or {}
    score_values = {str(k): _get(v, "value", v) for k, v in scores.items()} if isinstance(scores, Mapping) else {}
    verdicts = [_verdict(v) for v in score_values.values()]
    success = all(verdicts) if verdicts and None not in verdicts else None
    meta = {"epoch": _get(sample, "epoch"), "scores": score_values, "target": _get(sample, "target"), **calls.meta()}
    if by_model:
        meta["cost_by_model"] = by_model
    error = _get(sample, "error")
    if error is not None:
        meta["error"] = str(_get(error, "message", error))
    sid = _get(sample, "id")
    warn_ambiguous(calls.ambiguous)
    return Episode(
        task_id=task_id or ("" if sid is None else str(sid)),
        trajectory=Trajectory(calls.steps()),
        output=completion if isinstance(completion, str) and completion else last_text,
        cost=cost,
        success=success,
        run=RunProvenance(model=str(model)) if model else None,
        meta=meta,
    )


def from_deepeval_test_case(case: object, *, task_id: str = "") -> Episode:
    """An `Episode` from a DeepEval ``LLMTestCase`` (or anything of its shape).

    Reads ``.actual_output`` (the output), ``.tools_called`` (each
    ``ToolCall``'s ``name`` and ``input_parameters`` become a step, its
    ``output`` the observation), ``.input_token_count`` /
    ``.output_token_count`` / ``.completion_time`` (the `Cost`) and keeps
    ``expected_output``, ``expected_tools`` (as calls), ``token_cost`` and
    ``input`` in ``meta``. DeepEval sends telemetry by default (set
    ``DEEPEVAL_TELEMETRY_OPT_OUT=YES`` to stop it); ek never turns it on.
    """
    steps = [_deepeval_step(tc, i) for i, tc in enumerate(_get(case, "tools_called") or ())]
    n_in, n_out = _get(case, "input_token_count"), _get(case, "output_token_count")
    latency = _get(case, "completion_time")
    cost = None
    if n_in is not None or n_out is not None or latency is not None:
        cost = Cost(
            input_tokens=_whole(n_in or 0, "input_token_count"),
            output_tokens=_whole(n_out or 0, "output_token_count"),
            latency_s=latency,
        )
    expected = _get(case, "expected_tools")
    meta = {
        "input": _get(case, "input"),
        "expected_output": _get(case, "expected_output"),
        "expected_calls": [(_get(t, "name"), dict(_get(t, "input_parameters") or {})) for t in expected]
        if expected
        else None,
        "token_cost": _get(case, "token_cost"),
    }
    return Episode(
        task_id=task_id or (_get(case, "name") or ""),
        trajectory=Trajectory(steps),
        output=_get(case, "actual_output"),
        cost=cost,
        meta=meta,
    )


# --------------------------------------------------------------------------
# Small readers
# --------------------------------------------------------------------------


def _has(obj: Any, key: str) -> bool:
    return key in obj if isinstance(obj, Mapping) else hasattr(obj, key)


def _count(usage: Any, key: str, sub: str | None = None) -> int:
    value = _get(usage, key)
    if sub is not None:
        value = _get(value, sub)
    name = f"{key}.{sub}" if sub else key
    return 0 if value is None else _whole(value, name)


def _whole(value: Any, name: str) -> int:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not math.isfinite(value)
        or value != int(value)
    ):
        raise TypeError(f"usage field {name!r} is {value!r}; token counts must be whole numbers.")
    if value < 0:
        raise ValueError(
            f"usage field {name!r} is {value}; a token count can't be negative. The usage record "
            "is corrupt: fix or drop it before costing the episode."
        )
    return int(value)


def _minus(total: int, part: int, total_name: str, part_name: str) -> int:
    if part > total:
        raise ValueError(
            f"usage reports {part} {part_name} but only {total} {total_name}, which should include "
            "them; the usage record is inconsistent. Fix it or build the Cost by hand."
        )
    return total - part


def _sum_costs(costs: Iterable[Cost]) -> Cost | None:
    total = None
    for c in costs:
        total = c if total is None else total + c
    return total


def _with_latency(cost: Cost | None, latency_s: Any) -> Cost | None:
    if latency_s is None:
        return cost
    if cost is None:
        return Cost(latency_s=latency_s)
    return Cost(
        input_tokens=cost.input_tokens,
        output_tokens=cost.output_tokens,
        cached_input_tokens=cost.cached_input_tokens,
        reasoning_tokens=cost.reasoning_tokens,
        retries=cost.retries,
        latency_s=latency_s,
    )


def _verdict(value: Any) -> bool | None:
    """Read one Inspect score value as success: "C"/"I", booleans, 1/0; else None."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return {"C": True, "I": False}.get(value.strip().upper())
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    return None


def _deepeval_step(tc: Any, i: int) -> Step:
    name = _get(tc, "name")
    if not isinstance(name, str) or not name:
        raise ValueError(f"DeepEval tools_called[{i}] has no name; every ToolCall needs one.")
    output = _get(tc, "output")
    args, problem = read_arguments(_get(tc, "input_parameters"))
    error = f"{type(output).__name__}: {output}" if isinstance(output, BaseException) else problem
    return Step(name, args, observation=output, error=error)


def _task_input(task: Any) -> Any:
    return task.input if hasattr(task, "task_id") and hasattr(task, "input") else task


def _as_episode(out: Any, task: Any) -> Episode:
    task_id = getattr(task, "task_id", "")
    if isinstance(out, Episode):
        if not out.task_id and task_id:
            return dataclasses.replace(out, task_id=task_id, meta=dict(out.meta))
        return out
    return Episode(task_id=task_id if isinstance(task_id, str) else str(task_id), output=out)
