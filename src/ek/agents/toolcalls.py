"""Tool-call correctness: BFCL-style matching of a *multiset* of calls (higher is better).

The Berkeley Function Calling Leaderboard checks an emitted call without
running it: the function name must match, every expected argument must be
present with the right value (strings folded for case and whitespace), and no
argument outside the expected set may appear. Arguments are matched by name,
so their order is irrelevant; the order of elements inside a list value is
not. An argument passed as ``None`` is present: leaving out one the
reference passes as ``None``, or adding ``x=None`` the reference lacks, is
an argument error.

`ek.metrics.FieldMetric` cannot do this alone: it aligns two records by key,
but the calls of a trajectory have no key. Two ``search(q=...)`` calls would
collide, and a reordering or a repeat would be miscounted. `match_calls`
adds the missing step, an assignment of predicted calls to gold calls; on
top of it `ToolCallMetric` keeps field F1's TP/FP/FN accounting and its
micro-averaged corpus F1, weighted by the tool grammar so that a wrong
argument to a destructive tool costs what it should.

>>> from ek.agents.base import Step
>>> gold = [("search", {"q": "cats"}), ("answer", {"a": "meow"})]
>>> pred = [Step("search", {"q": "cats"}), Step("delete_all", {})]
>>> round(ToolCallMetric()(pred, gold).f1, 3)     # 1 TP, 1 FP, 1 FN
0.5
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from ek._util import prf
from ek.agents._common import arg_diff, call_mass, calls_of, field_weight, node_weight
from ek.agents.base import _Call
from ek.base import GraphGrammar, Normalizer, Score
from ek.canonicalize import default_canonicalizer
from ek.metrics import SummedStatistics
from ek.registry import register

__all__ = ["ToolCallMetric", "match_calls"]

_LEVELS = ("call", "arg")
_DEFAULT_CANON = default_canonicalizer()


def match_calls(
    pred: Iterable[object],
    gold: Iterable[object],
    *,
    canon: Normalizer | None = None,
) -> tuple[list[tuple[_Call, _Call]], list[_Call], list[_Call]]:
    """Assign predicted calls to gold calls; returns ``(pairs, unmatched_pred, unmatched_gold)``.

    Only calls to the same tool can pair. Within a tool, every candidate pair
    is ranked (exact argument match first, then more agreeing arguments, then
    fewer disagreeing ones, then position) and pairs are taken best-first
    across the whole list. Repeated identical calls are therefore
    interchangeable, a reordered pair still matches, and a strong pairing is
    never taken by a weaker one that merely came first. This greedy
    assignment equals the optimal one on distinct calls, repeats and
    reorderings; only contrived many-to-many partial overlaps can differ
    from a Hungarian matching.

    Args:
        pred, gold: `Step` s, ``(tool, args)`` pairs, ``{"tool", "args"}``
            dicts, or an Episode / Trajectory.
        canon: ``str -> str`` applied to string values before comparing
            (None compares exactly).

    Returns:
        ``pairs`` as ``(pred_call, gold_call)`` in prediction order, then the
        unmatched predicted and gold calls as lists, in their input order.

    >>> pairs, up, ug = match_calls([("s", {"q": "b"}), ("s", {"q": "a"})],
    ...                             [("s", {"q": "a"}), ("s", {"q": "b"})])
    >>> [p[1]["q"] for p, g in pairs], up, ug
    (['b', 'a'], [], [])
    """
    p_calls, g_calls = calls_of(pred, side="pred"), calls_of(gold, side="gold")
    index = _match(p_calls, g_calls, canon)
    pairs = [(p_calls[i], g_calls[j]) for i, j, _ in index]
    used_p = {i for i, _, _ in index}
    used_g = {j for _, j, _ in index}
    return (
        pairs,
        [c for i, c in enumerate(p_calls) if i not in used_p],
        [c for j, c in enumerate(g_calls) if j not in used_g],
    )


@dataclass(frozen=True)
class ToolCallMetric(SummedStatistics):
    """Tool-call F1 over a multiset of calls, weighted by the tool grammar (higher is better).

    Args:
        level: ``"call"`` (default) counts whole calls, a call being a true
            positive only on an exact match; ``"arg"`` gives credit argument
            by argument (the right tool earns its call weight, each
            argument its own weight).
        canonicalizer: ``str -> str`` for string arguments; None uses ek's
            default canonicalizer (NFC, casefold, collapsed whitespace).
        grammar: `GraphGrammar` with tool and argument weights (a grammar
            passed at call time wins).

    ``Score.detail`` carries the weighted ``tp``/``fp``/``fn`` (plain counts
    without a grammar) and the raw call counts, so a corpus F1 is
    micro-averaged: summed, then divided once.
    """

    level: str = "call"
    canonicalizer: Normalizer | None = field(default=None, kw_only=True)
    grammar: GraphGrammar | None = field(default=None, kw_only=True)

    name = "tool_call"
    higher_is_better = True
    percent = True  # a share or a rate: the pages show it as a percentage
    statistics = ("tp", "fp", "fn")
    options = MappingProxyType({"normalize": "canonicalizer"})

    def __post_init__(self) -> None:
        if self.level not in _LEVELS:
            raise ValueError(
                f"ToolCallMetric level must be 'call' or 'arg', got {self.level!r}; 'call' needs "
                "exact calls, 'arg' gives partial credit per argument."
            )

    def __call__(self, pred: object, gold: object, *, grammar: GraphGrammar | None = None) -> Score:
        """Tool-call F1 of ``pred`` against ``gold`` (higher is better)."""
        g = grammar if grammar is not None else self.grammar
        canon = self.canonicalizer if self.canonicalizer is not None else _DEFAULT_CANON
        p_calls, g_calls = calls_of(pred, side="pred"), calls_of(gold, side="gold")
        index = _match(p_calls, g_calls, canon)
        tp = fp = fn = 0.0
        n_exact = 0
        for i, j, diff in index:
            tool = g_calls[j][0]
            agree, wrong, extra, missing = diff
            exact = not (wrong or extra or missing)
            n_exact += exact
            if self.level == "call":
                w = node_weight(tool, g)
                if exact:
                    tp += w
                else:
                    fp += w
                    fn += w
            else:
                tp += node_weight(tool, g) + sum(field_weight(tool, a, g) for a in agree)
                fp += sum(field_weight(tool, a, g) for a in wrong + extra)
                fn += sum(field_weight(tool, a, g) for a in wrong + missing)
        used_p = {i for i, _, _ in index}
        used_g = {j for _, j, _ in index}
        for i, call in enumerate(p_calls):
            if i not in used_p:
                fp += node_weight(call[0], g) if self.level == "call" else call_mass(call, g)
        for j, call in enumerate(g_calls):
            if j not in used_g:
                fn += node_weight(call[0], g) if self.level == "call" else call_mass(call, g)
        precision, recall, f1 = prf(tp, tp + fp, tp + fn)
        detail = {
            "tp": tp,
            "fp": fp,
            "fn": fn,
            "n_pred": len(p_calls),
            "n_gold": len(g_calls),
            "n_paired": len(index),
            "n_exact": n_exact,
            "level": self.level,
        }
        return Score(f1, precision=precision, recall=recall, f1=f1, metric=self.name, detail=detail)

    def compute(self, totals: Mapping[str, float]) -> float:
        """Micro-averaged F1 from TP/FP/FN summed over the corpus (1.0 when all are 0)."""
        tp, fp, fn = totals["tp"], totals["fp"], totals["fn"]
        return prf(tp, tp + fp, tp + fn)[2]


# --------------------------------------------------------------------------


def _match(p_calls: list[Any], g_calls: list[Any], canon: Normalizer | None) -> list[Any]:
    """Greedy best-first assignment: ``[(pred_index, gold_index, arg_diff), ...]`` in pred order."""
    by_tool: dict[Any, Any] = {}
    for j, (tool, _) in enumerate(g_calls):
        by_tool.setdefault(tool, []).append(j)
    candidates = []
    for i, (tool, p_args) in enumerate(p_calls):
        for j in by_tool.get(tool, ()):
            diff = arg_diff(p_args, g_calls[j][1], canon)
            agree, wrong, extra, missing = diff
            bad = len(wrong) + len(extra) + len(missing)
            candidates.append(((bad > 0, -len(agree), bad, i, j), i, j, diff))
    candidates.sort(key=lambda c: c[0])
    used_p, used_g, chosen = set(), set(), []
    for _, i, j, diff in candidates:
        if i in used_p or j in used_g:
            continue
        used_p.add(i)
        used_g.add(j)
        chosen.append((i, j, diff))
    chosen.sort(key=lambda c: c[0])
    return chosen


_METRIC = register("metrics", "tool_call", ToolCallMetric())  # also the entry-point target
