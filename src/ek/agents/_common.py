"""Helpers shared inside ek.agents: reading calls, comparing values, summing statistics and costs."""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ek._util import type_name
from ek.agents.base import Cost, Trajectory, _Call, as_call, is_episode
from ek.base import GraphGrammar, Normalizer
from ek.registry import resolve

Canon = Normalizer | None
CheckerArg = str | Callable[[Any, Any], bool] | None
"""A registered checker name, an ``(episode, gold) -> bool`` checker (`ek.agents.metrics.Checker`), or None."""


def calls_of(x: Any, *, side: str) -> list[_Call]:
    """``(tool, args)`` pairs from an episode, a trajectory, or a sequence of call-likes."""
    if is_episode(x):
        x = x.trajectory
    if isinstance(x, Trajectory):
        return list(x.calls)
    if x is None:
        raise TypeError(f"{side} is None; pass an Episode, a Trajectory or a list of calls (use [] for no calls).")
    if isinstance(x, (str, bytes, Mapping)) or not isinstance(x, Iterable):
        raise TypeError(
            f"{side} is {type_name(x)}; pass an Episode, a Trajectory or a list of calls "
            "such as [('search', {'q': 'cat'})]."
        )
    out = []
    for i, item in enumerate(x):
        try:
            out.append(as_call(item))
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"{side} call {i}: {exc}") from None
    return out


def same_value(p: Any, g: Any, canon: Canon) -> bool:
    """Whether two argument values agree (strings through ``canon``, containers recursively).

    Booleans never equal numbers (``True`` is not ``1`` here); ints and
    floats compare by value; lists compare in order; dicts key by key.
    """
    if isinstance(p, str) and isinstance(g, str):
        return p == g if canon is None else canon(p) == canon(g)
    if isinstance(p, bool) or isinstance(g, bool):
        return isinstance(p, bool) and isinstance(g, bool) and p == g
    if isinstance(p, (int, float)) and isinstance(g, (int, float)):
        return p == g or (isinstance(p, float) and isinstance(g, float) and math.isnan(p) and math.isnan(g))
    if isinstance(p, Mapping) and isinstance(g, Mapping):
        return p.keys() == g.keys() and all(same_value(p[k], g[k], canon) for k in g)
    if isinstance(p, (list, tuple)) and isinstance(g, (list, tuple)):
        return len(p) == len(g) and all(same_value(a, b, canon) for a, b in zip(p, g))
    return bool(p == g)


def arg_diff(pred_args: Mapping[Any, Any], gold_args: Mapping[Any, Any], canon: Canon) -> tuple[Any, ...]:
    """``(agree, wrong, extra, missing)`` argument names of one call pair.

    An argument is present when its name is, whatever its value: an
    explicit ``None`` is a value a tool receives (``x=None`` may mean
    "clear x"), so leaving out an argument the reference passes as None is
    a missing argument, and passing ``x=None`` where the reference has no
    ``x`` is an extra one.
    """
    agree: list[Any] = []
    wrong: list[Any] = []
    extra: list[Any] = []
    missing: list[Any] = []
    for key, g in gold_args.items():
        if key not in pred_args:
            missing.append(key)
        elif same_value(pred_args[key], g, canon):
            agree.append(key)
        else:
            wrong.append(key)
    extra.extend(k for k in pred_args if k not in gold_args)
    return agree, wrong, extra, missing


def call_mass(call: tuple[Any, ...], grammar: GraphGrammar | None) -> float:
    """Weight of a whole call: the tool's weight plus the weights of the arguments it passes."""
    tool, args = call
    if grammar is None:
        return 1.0 + len(args)
    return grammar.node_cost(tool) + sum(grammar.field_cost(tool, k) for k in args)


def node_weight(tool: str, grammar: GraphGrammar | None) -> float:
    return 1.0 if grammar is None else grammar.node_cost(tool)


def field_weight(tool: str, arg: str, grammar: GraphGrammar | None) -> float:
    return 1.0 if grammar is None else grammar.field_cost(tool, arg)


def per_success(total: float, successes: float) -> float:
    """Cost per success; the one place a zero denominator is decided (inf)."""
    return total / successes if successes else math.inf


def cost_summary(
    costs: Sequence[Cost | None], successes: Sequence[bool], spent: Sequence[float] | None
) -> dict[Any, Any]:
    """The cost-report dict from parallel columns (shared by cost_report and run_suite)."""
    n = len(successes)
    n_success = sum(successes)
    sums = dict.fromkeys(("input_tokens", "output_tokens", "cached_input_tokens", "reasoning_tokens", "retries"), 0)
    latency_total, latency_n = 0.0, 0
    for c in costs:
        if c is None:
            continue
        sums["input_tokens"] += c.input_tokens
        sums["output_tokens"] += c.output_tokens
        sums["cached_input_tokens"] += c.cached_input_tokens
        sums["reasoning_tokens"] += c.reasoning_tokens
        sums["retries"] += c.retries
        if c.latency_s is not None:
            latency_total += c.latency_s
            latency_n += 1
    total_dollars = math.fsum(spent) if spent is not None else None
    return {
        "n": n,
        "n_success": n_success,
        "success_rate": n_success / n if n else None,
        "total_dollars": total_dollars,
        "cost_per_success": per_success(total_dollars, n_success) if total_dollars is not None else None,
        "mean_latency_s": latency_total / latency_n if latency_n else None,
        "total_tokens": sums["input_tokens"]
        + sums["output_tokens"]
        + sums["cached_input_tokens"]
        + sums["reasoning_tokens"],
        **sums,
    }


def accepts_keyword(fn: Any, name: str) -> bool:
    """Whether ``fn`` can be called with the keyword ``name`` (False when it can't be inspected)."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    p = params.get(name)
    if p is not None and p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD):
        return True
    return any(q.kind == q.VAR_KEYWORD for q in params.values())


def resolve_check(check: CheckerArg) -> Callable[[Any, Any], Any]:
    """The checker callable for a registered name, a callable, or None (``"output"``)."""
    fn = resolve("checkers", check, default="output")
    if not callable(fn):
        raise TypeError(
            f"check must be a registered checker name or an (episode, gold) -> bool callable, got {type_name(check)}."
        )
    checker: Callable[[Any, Any], Any] = fn
    return checker


def run_check(check: CheckerArg, episode: Any, gold: Any) -> bool:
    """Run a checker and insist on a verdict."""
    result = resolve_check(check)(episode, gold)
    if result is None:
        raise TypeError(
            "the checker returned None; a checker must return True or False (did it forget a return statement?)."
        )
    return bool(result)
