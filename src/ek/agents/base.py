"""The shapes agent evaluation works on: episodes (Layer B) and the task/tool grammar (Layer A).

An extraction is a payload; an agent run is a *process*: tool calls, what came
back, and the state of the world at the end. The same two layers that ek uses
for information extraction carry it:

* Layer A. `ToolSpec` and `TaskSpec` build an ordinary `ek.base.GraphGrammar`:
  each tool becomes a `NodeType` whose fields are its arguments, so a
  `FieldSpec.importance` is the price of getting that argument wrong, and a
  destructive tool weighs more than a read-only one.
* Layer B. `Episode` holds one run: its `Trajectory` of `Step` s, the final
  answer and final state, the `Cost` it consumed and its `RunProvenance`. It
  sits beside the grammar and never changes it.

These classes stay out of `ek.base`; the core only duck-types them (`is_episode`).

>>> ep = Episode(task_id="t1", trajectory=[Step("search", {"q": "cat"})], output="meow")
>>> ep.calls
(('search', {'q': 'cat'}),)
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ek._util import type_name
from ek.base import FieldSpec, GraphGrammar, NodeType, Provenance

__all__ = [
    "DEFAULT_TASK_VALUE",
    "DESTRUCTIVE_WEIGHT",
    "Cost",
    "Episode",
    "RunProvenance",
    "Step",
    "TaskSpec",
    "ToolSpec",
    "Trajectory",
    "as_call",
    "is_episode",
    "suite_grammar",
    "tool_grammar",
]

_Call = tuple[str, dict[str, object]]  # a tool call as ek compares it: the tool name and its arguments

DEFAULT_TASK_VALUE = 1.0
"""What a completed task is worth when nobody says otherwise (the task-level `FieldSpec.importance`)."""

DESTRUCTIVE_WEIGHT = 10.0
"""Call weight a destructive tool gets when its `ToolSpec.importance` is not set."""

_TOKEN_FIELDS = ("input_tokens", "output_tokens", "cached_input_tokens", "reasoning_tokens")
_COUNT_FIELDS = _TOKEN_FIELDS + ("retries",)


# --------------------------------------------------------------------------
# What a run consumed
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Cost:
    """Tokens by kind, retries and wall-clock time consumed by one episode.

    The four token kinds are disjoint, each billed at its own rate (see
    `ek.agents.cost.dollars`): ``input_tokens`` is the fresh prompt input,
    ``cached_input_tokens`` the input served from a prompt cache,
    ``output_tokens`` the visible completion and ``reasoning_tokens`` the
    hidden reasoning. The bridges split provider counts into these kinds.
    Adding two tallies adds every count; latencies add when both are known.
    ``0 + cost`` is ``cost``, so the built-in `sum` adds a list of tallies.

    >>> a = Cost(input_tokens=100, output_tokens=50)
    >>> (a + Cost(input_tokens=10, retries=1)).input_tokens
    110
    >>> sum([a, Cost(input_tokens=10, retries=1)]).retries
    1
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0
    reasoning_tokens: int = 0
    retries: int = 0
    latency_s: float | None = None

    def __post_init__(self) -> None:
        for name in _COUNT_FIELDS:
            value = getattr(self, name)
            if isinstance(value, float) and value.is_integer():
                value = int(value)
                object.__setattr__(self, name, value)
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                raise TypeError(
                    f"Cost {name} must be a whole number, got {value!r} ({type_name(value)}); "
                    "pass the count the provider reported."
                )
            if value < 0:
                raise ValueError(
                    f"Cost {name} is {value}; a count can't be negative. Check how the usage "
                    "was read (a cached count larger than the prompt count gives this)."
                )
        if self.latency_s is not None and not _nonnegative(self.latency_s):
            raise ValueError(f"Cost latency_s must be a finite number of seconds >= 0 or None, got {self.latency_s!r}.")

    def __add__(self, other: Cost) -> Cost:
        if not isinstance(other, Cost):
            return NotImplemented
        known = [t for t in (self.latency_s, other.latency_s) if t is not None]
        counts = {name: getattr(self, name) + getattr(other, name) for name in _COUNT_FIELDS}
        return Cost(**counts, latency_s=sum(known) if known else None)

    def __radd__(self, other: Any) -> Cost:
        """``0 + cost`` is ``cost`` (the 0 that starts the built-in `sum`)."""
        if isinstance(other, int) and not isinstance(other, bool) and other == 0:
            return self
        return NotImplemented

    @property
    def total_tokens(self) -> int:
        """Every token of every kind: a size figure, not a price (see `dollars`)."""
        return self.input_tokens + self.output_tokens + self.cached_input_tokens + self.reasoning_tokens


@dataclass(frozen=True)
class RunProvenance:
    """The settings that decide whether two agent runs can be compared at all.

    Several inputs of an agent evaluation are themselves models: in a
    tau-bench-style suite the user is simulated by an LLM, so swapping that
    simulator moves every score. The harness records these settings on each
    episode and each baseline, and refuses to gate one run against another
    when `comparability_key` differs.

    Args:
        seed: the trial's RNG seed (None when unseeded).
        temperature: sampling temperature of the agent under test.
        model: the agent's model id (what a comparison usually changes).
        simulator: id and version of the user simulator.
        suite_version: version of the task suite.
        scaffold: id of the agent scaffold or harness around the model.
    """

    seed: int | None = None
    temperature: float | None = None
    model: str = ""
    simulator: str = ""
    suite_version: str = ""
    scaffold: str = ""

    def comparability_key(self) -> tuple[str | None, str | None, str | None]:
        """``(simulator, suite_version, scaffold)``: what two comparable runs must share.

        Seed and temperature vary between trials by design and the model is
        what a comparison is usually about, so none of them is in the key.
        """
        return (self.simulator, self.suite_version, self.scaffold)


# --------------------------------------------------------------------------
# What a run did
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """One tool call of a trajectory and what came back.

    ``error`` holds a message when the call itself failed (bad arguments, a
    tool exception); whether the agent recovers in later steps is part of
    what a trajectory shows.
    """

    tool: str
    args: Mapping[str, Any] = field(default_factory=dict)
    observation: Any = None
    error: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.tool, str) or not self.tool:
            raise TypeError(f"Step tool must be a non-empty tool name (str), got {self.tool!r}.")
        if self.args is None:
            object.__setattr__(self, "args", {})
        elif isinstance(self.args, Mapping):
            object.__setattr__(self, "args", dict(self.args))
        else:
            raise TypeError(
                f"Step {self.tool!r} args must be a mapping of argument name to value, "
                f"got {type_name(self.args)}; parse JSON arguments first (see ek.agents.bridge)."
            )

    @property
    def call(self) -> _Call:
        """The ``(tool, args)`` pair that tool-call metrics compare."""
        return (self.tool, dict(self.args))


@dataclass(frozen=True)
class Trajectory:
    """The steps an agent took, in order.

    It is a sequence, not a graph, which is why `ek.agents.trajectory` scores
    it with a sequence alignment.

    >>> t = Trajectory([Step("search", {"q": "cat"}), Step("answer", {"a": "meow"})])
    >>> len(t), t.tools
    (2, ('search', 'answer'))
    """

    steps: Sequence[Step] = ()

    def __post_init__(self) -> None:
        steps = self.steps
        if type(steps) is tuple and all(type(s) is Step for s in steps):
            return  # already a tuple of Steps (the common case, and the empty default)
        if isinstance(steps, (str, bytes, Mapping)) or not isinstance(steps, Iterable):
            raise TypeError(f"Trajectory takes a sequence of Step s, got {type_name(self.steps)}.")
        object.__setattr__(self, "steps", tuple(_as_step(s, i) for i, s in enumerate(self.steps)))

    def __len__(self) -> int:
        return len(self.steps)

    def __iter__(self) -> Iterator[Step]:
        return iter(self.steps)

    def __getitem__(self, index: Any) -> Any:
        return self.steps[index]

    @property
    def tools(self) -> tuple[str, ...]:
        """Tool names in call order."""
        return tuple(s.tool for s in self.steps)

    @property
    def calls(self) -> tuple[_Call, ...]:
        """``(tool, args)`` pairs in call order."""
        return tuple(s.call for s in self.steps)


@dataclass(frozen=True)
class Episode:
    """One run of an agent on one task: the object agent metrics score.

    The agent counterpart of `ek.base.AnnotatedExtraction`: it is scored
    against gold offline (`ek.score`, `ek.evaluate`, `run_suite`) and judged
    without gold online (`ek.estimate_quality`).

    Args:
        task_id: the task answered; trials of one task share it.
        trajectory: the tool calls taken (a list of `Step` s is accepted).
        output: the final answer shown to the user.
        final_state: the state of the world at the end (a database, a file
            tree), which a state-based checker grades.
        cost: the `Cost` consumed, or None when unknown.
        success: set by a checker; None until graded.
        run: the `RunProvenance` of the run.
        provenance: optional core `Provenance` for audit links.
        meta: anything else a bridge captured.
    """

    task_id: str = ""
    trajectory: Trajectory = field(default_factory=Trajectory)
    output: Any = None
    final_state: Any = None
    cost: Cost | None = None
    success: bool | None = None
    run: RunProvenance | None = None
    provenance: Provenance | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.task_id, str):
            raise TypeError(f"Episode task_id must be a str, got {self.task_id!r}.")
        if not isinstance(self.trajectory, Trajectory):
            object.__setattr__(self, "trajectory", Trajectory(self.trajectory or ()))
        if self.cost is not None and not isinstance(self.cost, Cost):
            raise TypeError(
                f"Episode cost must be a Cost or None, got {type_name(self.cost)}; "
                "build one with ek.agents.cost_from_usage(usage)."
            )
        if self.success is not None and not isinstance(self.success, bool):
            raise TypeError(f"Episode success must be True, False or None (ungraded), got {self.success!r}.")
        object.__setattr__(self, "meta", dict(self.meta or {}))

    @property
    def calls(self) -> tuple[_Call, ...]:
        """The ``(tool, args)`` pairs taken, in order."""
        return self.trajectory.calls

    def graded(self, success: bool) -> Episode:
        """A copy with ``success`` set; this episode is left as it was.

        ``meta`` is copied as well, because `dataclasses.replace` alone would
        hand the copy the same dict object.
        """
        return dataclasses.replace(self, success=bool(success), meta=dict(self.meta))


# --------------------------------------------------------------------------
# Layer A: tools, tasks and their grammar
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class ToolSpec:
    """A tool the agent may call: its arguments and what mistakes with it cost.

    Args:
        name: the tool (function) name.
        params: argument name -> `FieldSpec`; each spec's ``importance`` is
            the cost of a wrong value for that argument. A sequence of
            `FieldSpec` s is keyed by their names.
        importance: weight of the call itself (a missing or spurious call).
            None gives `DESTRUCTIVE_WEIGHT` for a destructive tool, else 1.0.
        destructive: whether a call changes the world irreversibly (a
            refund, a delete, a send).
    """

    name: str
    params: Mapping[str, FieldSpec] = field(default_factory=dict)
    importance: float | None = None
    destructive: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise TypeError(f"ToolSpec name must be a non-empty str, got {self.name!r}.")
        params = self.params
        if params is None:
            params = {}
        elif not isinstance(params, Mapping):
            params = {p.name: p for p in params}
        for key, spec in params.items():
            if not isinstance(spec, FieldSpec):
                raise TypeError(
                    f"ToolSpec {self.name!r} param {key!r} is {type_name(spec)}; each "
                    f"argument needs a FieldSpec, e.g. FieldSpec({key!r}, 'string')."
                )
        object.__setattr__(self, "params", dict(params))
        if self.importance is not None and not _nonnegative(self.importance):
            raise ValueError(
                f"ToolSpec {self.name!r} importance must be a finite number >= 0 or None, got {self.importance!r}."
            )

    @property
    def weight(self) -> float:
        """Weight of a call: the explicit importance, else the destructive-aware default."""
        if self.importance is not None:
            return float(self.importance)
        return DESTRUCTIVE_WEIGHT if self.destructive else 1.0

    def to_node_type(self) -> NodeType:
        """This tool as a grammar `NodeType` (arguments become its fields)."""
        return NodeType(self.name, fields=self.params, importance=self.weight)


@dataclass(frozen=True)
class TaskSpec:
    """One task of a suite: input, reference, value, allowed tools and slice.

    Args:
        task_id: stable id; the trials of a task are grouped by it.
        input: what the agent is called with.
        gold: the reference the checker reads (an answer, a goal state, a
            gold trajectory: the checker decides).
        value: what a completed task is worth (default `DEFAULT_TASK_VALUE`).
        tools: the `ToolSpec` s the task allows.
        slice: optional label (domain, difficulty) for per-slice figures.
    """

    task_id: str
    input: Any = None
    gold: Any = None
    value: float = DEFAULT_TASK_VALUE
    tools: Sequence[ToolSpec] = ()
    slice: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.task_id, str) or not self.task_id:
            raise TypeError(f"TaskSpec task_id must be a non-empty str, got {self.task_id!r}.")
        if not _nonnegative(self.value):
            raise ValueError(f"TaskSpec {self.task_id!r} value must be a finite number >= 0, got {self.value!r}.")
        tools = tuple(self.tools or ())
        for t in tools:
            if not isinstance(t, ToolSpec):
                raise TypeError(f"TaskSpec {self.task_id!r} tools must be ToolSpec s, got {type_name(t)}.")
        object.__setattr__(self, "tools", tools)

    def grammar(self) -> GraphGrammar:
        """The grammar of this task's tools."""
        return tool_grammar(*self.tools)


def tool_grammar(*tools: ToolSpec) -> GraphGrammar:
    """A `GraphGrammar` with one node type per tool (later tools win on a name clash).

    Node cost is the tool's call weight and field cost the argument's
    importance; every agent metric reads its weights from here.

    >>> from ek.base import FieldSpec
    >>> g = tool_grammar(ToolSpec("send", params={"to": FieldSpec("to")}, destructive=True))
    >>> g.node_cost("send"), g.field_cost("send", "to")
    (10.0, 1.0)
    """
    nodes = {}
    for i, tool in enumerate(tools):
        if not isinstance(tool, ToolSpec):
            raise TypeError(
                f"tool_grammar() argument {i} is {type_name(tool)}; pass ToolSpec s "
                "(unpack a list with tool_grammar(*tools))."
            )
        nodes[tool.name] = tool.to_node_type()
    return GraphGrammar(node_types=nodes)


def suite_grammar(tasks: Mapping[str, TaskSpec] | Iterable[TaskSpec]) -> GraphGrammar:
    """The union of the grammars of every task in a suite (later tools win on a name clash)."""
    specs = list(tasks.values()) if isinstance(tasks, Mapping) else list(tasks)
    tools: list[ToolSpec] = []
    for i, task in enumerate(specs):
        if not isinstance(task, TaskSpec):
            raise TypeError(f"suite_grammar() item {i} is {type_name(task)}, not a TaskSpec.")
        tools.extend(task.tools)
    return tool_grammar(*tools)


def as_call(x: object) -> _Call:
    """``(tool, args)`` from a `Step`, a ``(tool, args)`` pair, a dict or a bare tool name.

    Gold calls are usually written as literals while predictions arrive as
    `Step` s; this puts both in one shape. Dicts may spell the keys
    ``tool``/``args`` or ``name``/``arguments``.

    >>> as_call({"tool": "search", "args": {"q": "cat"}})
    ('search', {'q': 'cat'})
    >>> as_call("search")
    ('search', {})
    """
    if isinstance(x, Step):
        return x.call
    if isinstance(x, str):
        if not x:
            raise ValueError("as_call() got an empty tool name; name the tool that was called.")
        return (x, {})
    if isinstance(x, Mapping):
        tool = x.get("tool", x.get("name"))
        args = x.get("args", x.get("arguments", {}))
        return _checked_call(tool, args, x)
    if isinstance(x, (tuple, list)):
        if len(x) == 1:
            return _checked_call(x[0], {}, x)
        if len(x) == 2:
            return _checked_call(x[0], x[1], x)
        raise ValueError(
            f"as_call() got a {len(x)}-element {type_name(x)} {x!r:.80}; a call is "
            "(tool, args), e.g. ('search', {'q': 'cat'})."
        )
    tool, args = getattr(x, "tool", None), getattr(x, "args", None)
    if isinstance(tool, str):
        return _checked_call(tool, args or {}, x)
    raise TypeError(
        f"as_call() can't read a tool call from {type_name(x)}; pass a Step, a "
        "(tool, args) pair, a {'tool': ..., 'args': ...} dict or a tool name."
    )


def is_episode(x: object) -> bool:
    """Whether ``x`` has the shape of an `Episode` (task_id, trajectory, output)."""
    return isinstance(x, Episode) or all(hasattr(x, a) for a in ("task_id", "trajectory", "output"))


# --------------------------------------------------------------------------


def _nonnegative(x: Any) -> bool:
    return not isinstance(x, bool) and isinstance(x, (int, float)) and math.isfinite(x) and x >= 0


def _checked_call(tool: Any, args: Any, source: Any) -> _Call:
    if not isinstance(tool, str) or not tool:
        raise ValueError(f"as_call() found no tool name in {source!r:.80}; give a non-empty str.")
    if args is None:
        args = {}
    if not isinstance(args, Mapping):
        raise TypeError(
            f"as_call() args of {tool!r} are {type_name(args)}; arguments must be a mapping "
            "of name to value (parse JSON argument strings first)."
        )
    return (tool, dict(args))


def _as_step(x: Any, i: int) -> Step:
    if isinstance(x, Step):
        return x
    try:
        tool, args = as_call(x)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"Trajectory step {i}: {exc}") from None
    return Step(tool, args)
