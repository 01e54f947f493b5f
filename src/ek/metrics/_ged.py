"""Edit paths between typed graphs (exact search, bipartite assignment) and a lower bound.

Both searches return a node *mapping* (pred node index -> gold node index);
the edges follow from it, and `ek.metrics._graph_costs.path_cost` prices the
result, so every figure reported is the cost of a real edit path and
therefore never below the true graph edit distance (GED). `lower_bound`
gives a figure the GED can never be below; a path that meets it is proven
optimal without any search.

* `exact` is a depth-first branch and bound over node assignments, cut by a
  linear-sum-assignment lower bound and seeded with the bipartite path as
  the incumbent, so it can prune from the start. If it finishes within the
  time budget the answer is the exact GED; otherwise it is the best path
  found so far, an upper bound. It is written here rather than delegated to
  ``networkx.optimize_edit_paths`` because that search branches only on the
  gold node its assignment pivot picked: when the pivot is a deletion, the
  alternatives for that pred node are never tried, and on ties between a
  substitution and a delete-plus-insert it can stop at a worse path
  (networkx 3.6). networkx stays the cross-check in the tests.
* `bipartite` is the assignment approximation of Riesen and Bunke (2009):
  one linear sum assignment (scipy's ``linear_sum_assignment``) over a cost
  matrix whose entry for a pair of nodes is their substitution cost plus half
  a cheap estimate of the edits among their incident edges; deletion and
  insertion get their own columns. Ties are broken towards pairs with the
  same node id, so stable ids anchor the matching. On small graphs the
  assignment is then improved by local moves (`refine`). Polynomial time:
  the matrix is vectorized per pair of node types, which keeps a
  500-line-item invoice well under a second.
"""

from __future__ import annotations

import time
from collections import Counter
from types import ModuleType
from typing import Any

from ek._util import import_optional
from ek.metrics._graph_costs import _ABSENT, CostModel, PreparedGraph, PreparedNode, path_cost

_ABSENT_CODE = -1
REFINE_BUDGET = 40_000  # refine only when n * (m + 1) * (nodes + edges) is at most this
_FEATURE = "TypedGraphMetric"


def bipartite(model: CostModel, pred: PreparedGraph, gold: PreparedGraph) -> dict[int, int]:
    """Node mapping from one linear sum assignment (polynomial; see module docstring)."""
    n, m = len(pred.nodes), len(gold.nodes)
    if not n or not m:
        return {}
    np = import_optional("numpy", extra="metrics", feature=_FEATURE)
    optimize = import_optional("scipy.optimize", extra="metrics", feature=_FEATURE)
    del_cost = np.array([u.cost for u in pred.nodes])
    ins_cost = np.array([v.cost for v in gold.nodes])
    sub = _substitution_matrix(model, pred, gold, np, del_cost, ins_cost)
    edge_sub, edge_del, edge_ins = _edge_estimates(model, pred, gold, np)
    sub = sub + 0.5 * edge_sub
    del_cost = del_cost + 0.5 * edge_del
    ins_cost = ins_cost + 0.5 * edge_ins
    scale = max(float(sub.max(initial=0.0)), float(del_cost.max()), float(ins_cost.max()), 1.0)
    sub = sub - (scale * 1e-9) * _same_id(pred, gold, np)
    # Rows are pred nodes; columns are gold nodes, then one deletion slot per
    # pred node. Picking gold j saves inserting it, hence "- ins_cost".
    big = scale * (n + m + 1) * 4.0
    cost = np.full((n, m + n), big)
    cost[:, :m] = sub - ins_cost[None, :]
    cost[np.arange(n), m + np.arange(n)] = del_cost
    rows, cols = optimize.linear_sum_assignment(cost)
    mapping = {int(i): int(j) for i, j in zip(rows, cols) if j < m}
    return refine(model, pred, gold, mapping)


def lower_bound(model: CostModel, pred: PreparedGraph, gold: PreparedGraph) -> float:
    """A cost no edit path can beat: node costs and edge costs bounded separately.

    Nodes: the cheapest assignment of pred to gold nodes ignoring edges.
    Edges: the cheapest pairing of the two edge multisets ignoring where the
    edges lead (same types pair for free first, which is optimal; the rest
    are retyped, deleted or inserted by one more assignment).
    """
    np = import_optional("numpy", extra="metrics", feature=_FEATURE)
    optimize = import_optional("scipy.optimize", extra="metrics", feature=_FEATURE)
    dele = np.array([u.cost for u in pred.nodes])
    ins = np.array([v.cost for v in gold.nodes])
    if pred.nodes and gold.nodes:
        sub = _substitution_matrix(model, pred, gold, np, dele, ins)
        nodes = _assignment_cost(np, optimize, sub, dele, ins)
    else:
        nodes = float(dele.sum() + ins.sum())
    left_p = Counter(pred.edges.values())
    left_g = Counter(gold.edges.values())
    same = left_p & left_g
    rest_p, rest_g = list((left_p - same).elements()), list((left_g - same).elements())
    edge_del = np.array([model.edge_weight(t) for t in rest_p])
    edge_ins = np.array([model.edge_weight(t) for t in rest_g])
    if not rest_p or not rest_g:
        return nodes + float(edge_del.sum() + edge_ins.sum())
    retype = np.array([[model.retype_edge(a, b) for b in rest_g] for a in rest_p])
    return nodes + _assignment_cost(np, optimize, retype, edge_del, edge_ins)


def _assignment_cost(np: ModuleType, optimize: ModuleType, sub: Any, dele: Any, ins: Any) -> float:
    """Least total of substituting, deleting (rows) and inserting (columns)."""
    n, m = sub.shape
    cost = np.full((n, m + n), np.inf)
    cost[:, :m] = sub - ins[None, :]
    cost[np.arange(n), m + np.arange(n)] = dele
    rows, cols = optimize.linear_sum_assignment(cost)
    return float(ins.sum() + cost[rows, cols].sum())


def refine(
    model: CostModel, pred: PreparedGraph, gold: PreparedGraph, mapping: dict[int, int], *, budget: int = REFINE_BUDGET
) -> dict[int, int]:
    """Improve a mapping by local moves while it gets cheaper (small graphs only).

    A move sends one pred node to another gold node (swapping with the pred
    node that had it) or to deletion. Each move is priced with the full path
    cost, so the work per sweep is about ``(n + m)**2 * size``; graphs above
    ``budget`` keep the assignment as it is.
    """
    n, m = len(pred.nodes), len(gold.nodes)
    size = n + m + len(pred.edges) + len(gold.edges)
    if n * (m + 1) * size > budget:
        return mapping
    best = path_cost(model, pred, gold, mapping)
    improved = True
    while improved:
        improved = False
        for i in range(n):
            for j in [*range(m), None]:
                current = mapping.get(i)
                if j == current:
                    continue
                trial = dict(mapping)
                holder = next((k for k, t in mapping.items() if t == j), None) if j is not None else None
                if holder is not None:
                    if current is None:
                        del trial[holder]
                    else:
                        trial[holder] = current
                if j is None:
                    del trial[i]
                else:
                    trial[i] = j
                cost = path_cost(model, pred, gold, trial)
                if cost < best - 1e-12 * max(1.0, best):
                    mapping, best, improved = trial, cost, True
    return mapping


def _codes(nodes: list[PreparedNode], field_name: str, table: dict[Any, int], np: ModuleType) -> Any:
    """Integer code per node for one field's value (-1 when absent), or None if a
    value is unhashable (then codes could disagree with ``==``)."""
    out = np.full(len(nodes), _ABSENT_CODE, dtype=np.int64)
    for k, node in enumerate(nodes):
        if field_name in node.fields:
            value = node.fields[field_name]
            try:
                out[k] = table.setdefault(value, len(table))
            except TypeError:
                return None
    return out


def _differ(
    p_nodes: list[PreparedNode], g_nodes: list[PreparedNode], field_name: str, table: dict[Any, int], np: ModuleType
) -> Any:
    """Boolean matrix: does the field's value differ between pred and gold node?"""
    codes_p, codes_g = _codes(p_nodes, field_name, table, np), _codes(g_nodes, field_name, table, np)
    if codes_p is not None and codes_g is not None:
        return codes_p[:, None] != codes_g[None, :]
    return np.array(  # the slow path compares exactly as the cost model does
        [[u.fields.get(field_name, _ABSENT) != v.fields.get(field_name, _ABSENT) for v in g_nodes] for u in p_nodes],
        dtype=bool,
    ).reshape(len(p_nodes), len(g_nodes))


def _substitution_matrix(
    model: CostModel, pred: PreparedGraph, gold: PreparedGraph, np: ModuleType, del_cost: Any, ins_cost: Any
) -> Any:
    """``sub[i, j]`` = cost of substituting pred node i by gold node j, one type pair at a time."""
    pred_groups: dict[str, list[int]] = {}
    gold_groups: dict[str, list[int]] = {}
    for i, u in enumerate(pred.nodes):
        pred_groups.setdefault(u.node_type, []).append(i)
    for j, v in enumerate(gold.nodes):
        gold_groups.setdefault(v.node_type, []).append(j)
    sub = np.zeros((len(pred.nodes), len(gold.nodes)))
    tables: dict[str, dict[Any, int]] = {}
    for tp, rows in pred_groups.items():
        p_nodes = [pred.nodes[i] for i in rows]
        for tg, cols in gold_groups.items():
            g_nodes = [gold.nodes[j] for j in cols]
            names = {f for node in p_nodes + g_nodes for f in node.fields}
            same = tp == tg
            block = (
                np.zeros((len(rows), len(cols)))
                if same
                else np.full((len(rows), len(cols)), max(model.node_weight(tp), model.node_weight(tg)))
            )
            for f in sorted(names):
                table = tables.setdefault(f, {})
                differ = _differ(p_nodes, g_nodes, f, table, np)
                w = model.field_weight(tp, f) if same else max(model.field_weight(tp, f), model.field_weight(tg, f))
                if w:
                    block += w * differ
            if not same:
                block = np.minimum(block, del_cost[rows][:, None] + ins_cost[cols][None, :])
            sub[np.ix_(rows, cols)] = block
    return sub


_Signature = tuple[tuple[tuple[str, str], int], ...]
"""A node's incident edges: sorted ``((direction, edge type), count)`` pairs."""


def _signatures(graph: PreparedGraph) -> list[_Signature]:
    """Per node, the multiset of ``(direction, edge type)`` of its incident edges."""
    counts: list[Counter[tuple[str, str]]] = [Counter() for _ in graph.nodes]
    for (src, dst), etype in graph.edges.items():
        counts[graph.index[src]][("out", etype)] += 1
        counts[graph.index[dst]][("in", etype)] += 1
    return [tuple(sorted(c.items())) for c in counts]


def _edge_estimates(model: CostModel, pred: PreparedGraph, gold: PreparedGraph, np: ModuleType) -> tuple[Any, Any, Any]:
    """Edits among incident edges if two nodes were matched (ignoring where the edges lead),
    and the cost of deleting/inserting each node's incident edges."""
    sig_p, sig_g = _signatures(pred), _signatures(gold)
    unique_p = sorted(set(sig_p))
    unique_g = sorted(set(sig_g))

    def weight(sig: _Signature) -> float:
        return sum(c * model.edge_weight(etype) for (_, etype), c in sig)

    table = np.zeros((len(unique_p), len(unique_g)))
    for a, sa in enumerate(unique_p):
        ca = dict(sa)
        for b, sb in enumerate(unique_g):
            cb = dict(sb)
            table[a, b] = sum(abs(ca.get(k, 0) - cb.get(k, 0)) * model.edge_weight(k[1]) for k in ca.keys() | cb.keys())
    ip, ig = _positions(unique_p, sig_p, np), _positions(unique_g, sig_g, np)
    edge_del = np.array([weight(s) for s in unique_p])[ip]
    edge_ins = np.array([weight(s) for s in unique_g])[ig]
    return table[np.ix_(ip, ig)], edge_del, edge_ins


def _positions(unique: list[_Signature], sigs: list[_Signature], np: ModuleType) -> Any:
    where = {s: k for k, s in enumerate(unique)}
    return np.array([where[s] for s in sigs])


def _same_id(pred: PreparedGraph, gold: PreparedGraph, np: ModuleType) -> Any:
    anchor = np.zeros((len(pred.nodes), len(gold.nodes)))
    for i, u in enumerate(pred.nodes):
        j = gold.index.get(u.node_id)
        if j is not None and gold.nodes[j].node_type == u.node_type:
            anchor[i, j] = 1.0
    return anchor


def exact(
    model: CostModel,
    pred: PreparedGraph,
    gold: PreparedGraph,
    *,
    timeout: float | None,
    upper_bound: float,
    start_mapping: dict[int, int] | None = None,
) -> tuple[dict[int, int], float, bool]:
    """Cheapest mapping by depth-first branch and bound, and whether the search finished.

    Each pred node in turn is sent to an unused gold node or deleted, cheapest
    move first; a branch is cut when its settled cost plus a lower bound on
    the rest (a linear sum assignment over the remaining node costs) cannot
    beat the best path so far, which starts at ``upper_bound`` (the cost of
    ``start_mapping``). If the time budget runs out, the best path found is
    returned with ``finished=False``.
    """
    search = _Search(model, pred, gold, timeout)
    best_map = dict(start_mapping or {})
    search.best, search.best_map = upper_bound, best_map
    search.run()
    return search.best_map, search.best, not search.timed_out


class _Search:
    """State of one exact search (indices: pred ``i``, gold ``j``; -1 = deleted, -2 = open)."""

    def __init__(self, model: CostModel, pred: PreparedGraph, gold: PreparedGraph, timeout: float | None):
        self.np = import_optional("numpy", extra="metrics", feature=_FEATURE)
        self.optimize = import_optional("scipy.optimize", extra="metrics", feature=_FEATURE)
        np = self.np
        self.model, self.n, self.m = model, len(pred.nodes), len(gold.nodes)
        self.dele = np.array([u.cost for u in pred.nodes])
        self.ins = np.array([v.cost for v in gold.nodes])
        # priced by the cost model itself, pair by pair, so the search and path_cost agree exactly
        self.sub = np.array([[model.substitute(u, v) for v in gold.nodes] for u in pred.nodes]).reshape(self.n, self.m)
        self.out_p, self.in_p = _adjacency(pred)
        self.out_g, self.in_g = _adjacency(gold)
        self.phi = [-2] * self.n
        self.inv = [-1] * self.m
        self.deadline = None if timeout is None else time.perf_counter() + timeout
        self.timed_out = False
        self.steps = 0
        # most expensive, most connected pred nodes first: they settle the most cost
        degree = [len(self.out_p[i]) + len(self.in_p[i]) for i in range(self.n)]
        self.order = sorted(range(self.n), key=lambda i: (-(self.dele[i] + degree[i]), i))
        self.best = float("inf")
        self.best_map: dict[int, int] = {}

    def run(self) -> None:
        self._visit(0, 0.0)

    def _visit(self, depth: int, cost: float) -> None:
        self.steps += 1
        if self.deadline is not None and self.steps % 64 == 1 and time.perf_counter() > self.deadline:
            self.timed_out = True
        if self.timed_out:
            return
        tolerance = 1e-9 * max(1.0, self.best)
        if depth == self.n:
            total = cost + self._completion()
            if total < self.best - tolerance:
                self.best = total
                self.best_map = {i: j for i, j in enumerate(self.phi) if j >= 0}
            return
        if cost + self._lower_bound(depth) >= self.best - tolerance:
            return
        i = self.order[depth]
        moves = sorted((self._step(i, j), j) for j in [*range(self.m), -1] if j < 0 or self.inv[j] < 0)
        for step, j in moves:
            if cost + step >= self.best - tolerance:
                break
            self.phi[i] = j
            if j >= 0:
                self.inv[j] = i
            self._visit(depth + 1, cost + step)
            self.phi[i] = -2
            if j >= 0:
                self.inv[j] = -1

    def _step(self, i: int, j: int) -> float:
        """Cost settled by sending pred node ``i`` to gold node ``j`` (-1: delete it)."""
        model, phi, inv = self.model, self.phi, self.inv
        cost = float(self.dele[i]) if j < 0 else float(self.sub[i, j])
        for mine, theirs in ((self.out_p[i], self.out_g), (self.in_p[i], self.in_g)):
            for k, etype in mine.items():
                if k == i or phi[k] == -2:
                    continue  # loops below; open ends settle later
                other = theirs[j].get(phi[k]) if j >= 0 and phi[k] >= 0 else None
                cost += model.edge_weight(etype) if other is None else model.retype_edge(etype, other)
        if j >= 0:
            for gold_side, pred_side in ((self.out_g[j], self.out_p[i]), (self.in_g[j], self.in_p[i])):
                for x, etype in gold_side.items():
                    k = inv[x]
                    if x != j and k >= 0 and k not in pred_side:
                        cost += model.edge_weight(etype)  # a gold edge no pred edge covers
        loop_p = self.out_p[i].get(i)
        loop_g = self.out_g[j].get(j) if j >= 0 else None
        if loop_p is not None and loop_g is not None:
            cost += model.retype_edge(loop_p, loop_g)
        elif loop_p is not None:
            cost += model.edge_weight(loop_p)
        elif loop_g is not None:
            cost += model.edge_weight(loop_g)
        return cost

    def _completion(self) -> float:
        """Insert the unused gold nodes and every gold edge touching one."""
        cost = sum(float(self.ins[j]) for j in range(self.m) if self.inv[j] < 0)
        for j, targets in enumerate(self.out_g):
            for x, etype in targets.items():
                if self.inv[j] < 0 or self.inv[x] < 0:
                    cost += self.model.edge_weight(etype)
        return cost

    def _lower_bound(self, depth: int) -> float:
        """Least node cost of finishing: an assignment over the open nodes (edges cost >= 0)."""
        np = self.np
        rows = self.order[depth:]
        cols = [j for j in range(self.m) if self.inv[j] < 0]
        if not rows or not cols:
            return float(self.dele[rows].sum() + self.ins[cols].sum())
        return _assignment_cost(np, self.optimize, self.sub[np.ix_(rows, cols)], self.dele[rows], self.ins[cols])


def _adjacency(graph: PreparedGraph) -> tuple[list[dict[int, str]], list[dict[int, str]]]:
    """Per node index: ``{target index: edge type}`` out and ``{source index: edge type}`` in."""
    out: list[dict[int, str]] = [{} for _ in graph.nodes]
    into: list[dict[int, str]] = [{} for _ in graph.nodes]
    for (src, dst), etype in graph.edges.items():
        a, b = graph.index[src], graph.index[dst]
        out[a][b] = etype
        into[b][a] = etype
    return out, into
