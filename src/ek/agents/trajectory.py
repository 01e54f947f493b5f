"""Trajectory (process) evaluation: a cost-weighted sequence edit distance (lower is better).

Outcome checks say *whether* an agent got there; this says *how*. The steps
taken are aligned with a reference trajectory, with step and argument
weights read from the tool grammar, so a needless detour through a
destructive tool costs more than a harmless one.

Why not the typed-graph metric? A trajectory is a typed graph, but graph
edit distance is the wrong engine for a line: it matches nodes by type and
fields and ignores position (two identical calls at different places become
interchangeable, the very error a trajectory metric must catch), it caps the
node count, and its NP-hard search runs against a wall-clock timeout, so the
same pair can score differently on a slower machine. What is reused is the
cost model (the grammar's weights); the engine is an exact O(n * m)
Needleman-Wunsch alignment, deterministic and unbounded in length. `Step`
records no dependencies between steps, so no DAG mode is offered.

Costs: inserting or deleting a step costs its *mass* (the tool's weight plus
the weights of the arguments it passes, ``None`` values included);
substituting a step with one of the same tool costs the weights of its
wrong, extra and missing arguments, where an explicit ``None`` and an
omitted argument differ; a different tool costs a deletion plus an
insertion. A score is the distance
divided by the largest possible one (every step deleted and every gold step
inserted), so it lies in [0, 1]. The `SCHEMES` disagree on purpose; choose
one deliberately.

>>> from ek.agents.base import Step
>>> gold = [Step("search", {"q": "cat"}), Step("answer", {"a": "meow"})]
>>> detour = [Step("search", {"q": "cat"}), Step("search", {"q": "cat"}),
...           Step("answer", {"a": "meow"})]
>>> round(TrajectoryMetric()(detour, gold).value, 3)    # one extra step of mass 2, of 10
0.2
>>> TrajectoryMetric(scheme="superset")(detour, gold).value
0.0
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from ek.agents._common import arg_diff, call_mass, calls_of, field_weight
from ek.base import GraphGrammar, Normalizer, Score
from ek.canonicalize import default_canonicalizer
from ek.metrics import SummedStatistics
from ek.registry import register

__all__ = ["SCHEMES", "TrajectoryMetric"]

SCHEMES = ("in_order", "exact", "any_order", "superset")
"""Trajectory match schemes: ``in_order`` (alignment), ``exact``, ``any_order`` (multiset), ``superset``."""

_DEFAULT_CANON = default_canonicalizer()


@dataclass(frozen=True)
class TrajectoryMetric(SummedStatistics):
    """Cost-weighted distance of a trajectory from a reference (lower is better).

    Args:
        scheme: one of `SCHEMES`.
            ``in_order`` (default): Needleman-Wunsch edit distance; order
            counts and steps may be skipped or added at a cost.
            ``exact``: 0 when the call sequences are identical, else 1.
            ``any_order``: multiset distance, the cheapest pairing of calls
            (solved exactly, tool by tool); the calls count, not their order.
            ``superset``: 0 when every gold call appears in the prediction;
            extra steps are free (for references that list required calls
            rather than a whole path).
        grammar: `GraphGrammar` with step and argument weights (a grammar
            passed at call time wins).
        canonicalizer: ``str -> str`` for string arguments; None uses ek's
            default canonicalizer.

    ``Score.detail`` carries ``distance`` and ``max_distance``; the corpus
    figure is their summed ratio.
    """

    scheme: str = "in_order"
    grammar: GraphGrammar | None = field(default=None, kw_only=True)
    canonicalizer: Normalizer | None = field(default=None, kw_only=True)

    name = "trajectory"
    higher_is_better = False
    percent = True  # a share or a rate: the pages show it as a percentage
    statistics = ("distance", "max_distance")
    options = MappingProxyType({"normalize": "canonicalizer"})

    def __post_init__(self) -> None:
        if self.scheme not in SCHEMES:
            raise ValueError(f"TrajectoryMetric scheme must be one of {', '.join(SCHEMES)}; got {self.scheme!r}.")

    def __call__(self, pred: object, gold: object, *, grammar: GraphGrammar | None = None) -> Score:
        """Normalised trajectory distance of ``pred`` from ``gold`` (lower is better)."""
        g = grammar if grammar is not None else self.grammar
        canon = self.canonicalizer if self.canonicalizer is not None else _DEFAULT_CANON
        p_calls, g_calls = calls_of(pred, side="pred"), calls_of(gold, side="gold")
        if self.scheme == "in_order":
            dist, most = _aligned(p_calls, g_calls, g, canon)
        elif self.scheme == "exact":
            dist, most = _exact(p_calls, g_calls, g, canon)
        else:
            dist, most = _unordered(p_calls, g_calls, g, canon, superset=self.scheme == "superset")
        detail = {
            "distance": dist,
            "max_distance": most,
            "n_pred": len(p_calls),
            "n_gold": len(g_calls),
            "scheme": self.scheme,
        }
        return Score(_rate(dist, most), metric=self.name, detail=detail)

    def compute(self, totals: Mapping[str, float]) -> float:
        """Corpus distance: total distance / total maximum distance (never a mean of ratios)."""
        return _rate(totals["distance"], totals["max_distance"])


# --------------------------------------------------------------------------


def _rate(distance: float, max_distance: float) -> float:
    """Normalised distance; two empty trajectories (0 / 0) are identical, so 0.0."""
    return distance / max_distance if max_distance else 0.0


def _substitution(p: tuple[Any, ...], q: tuple[Any, ...], grammar: GraphGrammar | None, canon: Normalizer) -> float:
    if p[0] != q[0]:
        return call_mass(p, grammar) + call_mass(q, grammar)
    _, wrong, extra, missing = arg_diff(p[1], q[1], canon)
    return sum(field_weight(q[0], a, grammar) for a in wrong + extra + missing)


def _aligned(
    p_calls: list[Any], g_calls: list[Any], grammar: GraphGrammar | None, canon: Normalizer
) -> tuple[Any, ...]:
    """Needleman-Wunsch distance with two rolling rows, and the all-gaps maximum."""
    p_mass = [call_mass(c, grammar) for c in p_calls]
    g_mass = [call_mass(c, grammar) for c in g_calls]
    prev = [0.0]
    for m in g_mass:
        prev.append(prev[-1] + m)
    for i, p in enumerate(p_calls):
        row = [prev[0] + p_mass[i]]
        for j, q in enumerate(g_calls):
            row.append(min(prev[j] + _substitution(p, q, grammar, canon), prev[j + 1] + p_mass[i], row[j] + g_mass[j]))
        prev = row
    return prev[-1], sum(p_mass) + sum(g_mass)


def _exact(p_calls: list[Any], g_calls: list[Any], grammar: GraphGrammar | None, canon: Normalizer) -> tuple[Any, ...]:
    most = sum(call_mass(c, grammar) for c in p_calls) + sum(call_mass(c, grammar) for c in g_calls)
    same = len(p_calls) == len(g_calls) and all(
        p[0] == q[0] and not _differs(p, q, canon) for p, q in zip(p_calls, g_calls)
    )
    return (0.0 if same else most), most


def _differs(p: tuple[Any, ...], q: tuple[Any, ...], canon: Normalizer) -> bool:
    # Compared by arguments, not weights: a zero-weight argument still makes two calls differ.
    _, wrong, extra, missing = arg_diff(p[1], q[1], canon)
    return bool(wrong or extra or missing)


def _unordered(
    p_calls: list[Any], g_calls: list[Any], grammar: GraphGrammar | None, canon: Normalizer, *, superset: bool
) -> tuple[Any, ...]:
    """Order-free distance: the cheapest pairing of predicted and gold calls, tool by tool.

    Calls of different tools never gain from pairing (a substitution across
    tools costs a deletion plus an insertion), so each tool is solved on
    its own, exactly, as an assignment problem. With ``superset`` an
    unpaired prediction is free and a pair never costs more than missing
    the gold step.
    """
    p_mass = [call_mass(c, grammar) for c in p_calls]
    g_mass = [call_mass(c, grammar) for c in g_calls]
    p_by_tool: dict[Any, Any] = {}
    g_by_tool: dict[Any, Any] = {}
    for i, (tool, _) in enumerate(p_calls):
        p_by_tool.setdefault(tool, []).append(i)
    for j, (tool, _) in enumerate(g_calls):
        g_by_tool.setdefault(tool, []).append(j)
    dist = sum(g_mass) + (0.0 if superset else sum(p_mass))
    for tool, gs in g_by_tool.items():
        ps = p_by_tool.get(tool)
        if not ps:
            continue
        # the saving of pairing i with j, relative to leaving both unpaired (always <= 0)
        saving = []
        for i in ps:
            row = []
            for j in gs:
                sub = _substitution(p_calls[i], g_calls[j], grammar, canon)
                row.append(min(sub, g_mass[j]) - g_mass[j] if superset else sub - p_mass[i] - g_mass[j])
            saving.append(row)
        dist += _min_assignment(saving)
    most = sum(g_mass) if superset else sum(p_mass) + sum(g_mass)
    return dist, most


def _min_assignment(cost: list[Any]) -> float:
    """Least total cost of matching every row of the smaller side (Hungarian method with potentials)."""
    if len(cost) > len(cost[0]):
        cost = [list(col) for col in zip(*cost)]
    n, m = len(cost), len(cost[0])
    inf = math.inf
    u, v = [0.0] * (n + 1), [0.0] * (m + 1)
    owner, way = [0] * (m + 1), [0] * (m + 1)  # owner[j]: row (1-based) holding column j
    for i in range(1, n + 1):
        owner[0], j0 = i, 0
        slack, used = [inf] * (m + 1), [False] * (m + 1)
        while True:
            used[j0] = True
            i0, delta, j1 = owner[j0], inf, 0
            row = cost[i0 - 1]
            for j in range(1, m + 1):
                if not used[j]:
                    reduced = row[j - 1] - u[i0] - v[j]
                    if reduced < slack[j]:
                        slack[j], way[j] = reduced, j0
                    if slack[j] < delta:
                        delta, j1 = slack[j], j
            for j in range(m + 1):
                if used[j]:
                    u[owner[j]] += delta
                    v[j] -= delta
                else:
                    slack[j] -= delta
            j0 = j1
            if owner[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            owner[j0] = owner[j1]
            j0 = j1
    return float(sum(cost[owner[j] - 1][j - 1] for j in range(1, m + 1) if owner[j]))


_METRIC = register("metrics", "trajectory", TrajectoryMetric())  # also the entry-point target
