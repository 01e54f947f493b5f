"""The cost model of the typed-graph distance, and the cost of one edit path.

Every cost is a weight the `CostWeight` reads from the grammar (by default
the declared importance; anything undeclared weighs 1.0):

* deleting or inserting a node of type ``T`` costs ``w(node T)`` plus
  ``w(field T.f)`` for each field it carries (a ``None`` value is absent);
* substituting a node by one of the same type costs ``w(field T.f)`` for each
  field whose canonical values differ (a field on one side only differs);
* relabelling a node to another type costs the larger node weight plus, for
  each differing field, the larger of the two field weights, capped at the
  cost of deleting one node and inserting the other;
* deleting or inserting an edge of type ``E`` costs ``w(edge E)``; retyping
  an edge costs the larger of the two edge weights.

Costs are symmetric, so the distance from A to B equals that from B to A.
A *mapping* pairs pred node ids with gold node ids; together with the edges
it implies, it is a complete edit path, and `path_cost` prices it. Field
values are canonicalized per field (the grammar's ``FieldSpec.normalizer``
first, else the metric's canonicalizer; strings only) and then compared with
``==``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from ek.base import CostWeight, GraphGrammar, NodePath, Normalizer, TypeRef, default_cost_weight
from ek.canonicalize import resolve_canonicalizer

_ABSENT = object()  # a field a node does not carry (never equal to a value)


class PreparedNode:
    """A node with canonical field values and its delete/insert cost."""

    __slots__ = ("cost", "fields", "node_id", "node_type")

    def __init__(self, node_id: Any, node_type: str, fields: dict[str, Any], cost: float):
        self.node_id, self.node_type, self.fields, self.cost = node_id, node_type, fields, cost


class PreparedGraph:
    """Nodes in order, their index by id, and edges keyed by ``(src, dst)`` (value: edge type)."""

    __slots__ = ("edges", "index", "nodes")

    def __init__(self, nodes: list[PreparedNode], index: dict[Any, int], edges: dict[tuple[Any, Any], str]) -> None:
        self.nodes, self.index, self.edges = nodes, index, edges


class CostModel:
    """Weights, canonicalization and edit costs for one metric call."""

    def __init__(
        self, grammar: GraphGrammar | None, weights: CostWeight | None, canonicalizer: Normalizer | None
    ) -> None:
        self.grammar = grammar if grammar is not None else GraphGrammar()
        self.weights = weights if weights is not None else default_cost_weight
        self.canonicalizer = canonicalizer
        self._weight_cache: dict[tuple[str, str, str | None], float] = {}
        self._canon_cache: dict[tuple[str, str], Normalizer | None] = {}

    # -- weights ----------------------------------------------------------
    def _weight(self, kind: str, name: str, field_name: str | None = None) -> float:
        key = (kind, name, field_name)
        w = self._weight_cache.get(key)
        if w is None:
            ref = TypeRef(kind, name, field_name)
            w = self.weights(self.grammar, ref)
            if not isinstance(w, (int, float)) or isinstance(w, bool) or not math.isfinite(w) or w < 0:
                raise ValueError(
                    f"The cost weight for {ref} is {w!r}; a CostWeight must return a finite number >= 0. "
                    "Fix the weights= function or the importance in the grammar."
                )
            w = self._weight_cache[key] = float(w)
        return w

    def node_weight(self, node_type: str) -> float:
        return self._weight("node", node_type)

    def field_weight(self, node_type: str, field_name: str) -> float:
        return self._weight("field", node_type, field_name)

    def edge_weight(self, edge_type: str) -> float:
        return self._weight("edge", edge_type)

    # -- canonicalization -------------------------------------------------
    def _canon(self, node_type: str, field_name: str) -> Normalizer | None:
        key = (node_type, field_name)
        if key not in self._canon_cache:
            spec = self.grammar.field_spec(node_type, field_name)
            canon = self.canonicalizer
            if spec is not None and spec.normalizer:
                name = spec.normalizer
                canon = resolve_canonicalizer(name.split("+") if "+" in name else name)
            self._canon_cache[key] = canon
        return self._canon_cache[key]

    def prepare_node(self, node_id: Any, node_type: str, fields: Mapping[str, Any]) -> PreparedNode:
        canonical = {}
        cost = self.node_weight(node_type)
        for name, value in fields.items():
            if value is None:
                continue
            if isinstance(value, str):
                canon = self._canon(node_type, name)
                if canon is not None:
                    value = canon(value)
            canonical[name] = value
            cost += self.field_weight(node_type, name)
        return PreparedNode(node_id, node_type, canonical, cost)

    def prepare(self, graph: Any) -> PreparedGraph:
        nodes = [self.prepare_node(n.node_id, n.node_type, n.fields) for n in graph.nodes]
        index = {n.node_id: i for i, n in enumerate(nodes)}
        edges = {(e.src, e.dst): e.edge_type for e in graph.edges}
        return PreparedGraph(nodes, index, edges)

    # -- edit costs -------------------------------------------------------
    def substitute(self, u: PreparedNode, v: PreparedNode) -> float:
        """Cost of turning node ``u`` into node ``v``."""
        fu, fv = u.fields, v.fields
        if u.node_type == v.node_type:
            t = u.node_type
            return sum(
                self.field_weight(t, f) for f in fu.keys() | fv.keys() if fu.get(f, _ABSENT) != fv.get(f, _ABSENT)
            )
        relabel = max(self.node_weight(u.node_type), self.node_weight(v.node_type))
        for f in fu.keys() | fv.keys():
            if fu.get(f, _ABSENT) != fv.get(f, _ABSENT):
                relabel += max(self.field_weight(u.node_type, f), self.field_weight(v.node_type, f))
        return min(relabel, u.cost + v.cost)

    def retype_edge(self, a: str, b: str) -> float:
        """Cost of changing an edge of type ``a`` into type ``b``."""
        return 0.0 if a == b else max(self.edge_weight(a), self.edge_weight(b))

    def relabel_pays(self, u: PreparedNode, v: PreparedNode) -> bool:
        """Whether matching ``u`` to ``v`` beats deleting one and inserting the other."""
        return self.substitute(u, v) < u.cost + v.cost

    # -- networkx adaptors ------------------------------------------------
    def nx_cost_functions(self) -> dict[str, Callable[..., float]]:
        """Cost callables for ``networkx.graph_edit_distance`` over `TypedGraph.to_networkx` graphs."""

        def prep(attrs: Mapping[str, Any]) -> PreparedNode:
            return self.prepare_node("", attrs["node_type"], attrs["fields"])

        return {
            "node_subst_cost": lambda a, b: self.substitute(prep(a), prep(b)),
            "node_del_cost": lambda a: prep(a).cost,
            "node_ins_cost": lambda b: prep(b).cost,
            "edge_subst_cost": lambda a, b: self.retype_edge(a["edge_type"], b["edge_type"]),
            "edge_del_cost": lambda a: self.edge_weight(a["edge_type"]),
            "edge_ins_cost": lambda b: self.edge_weight(b["edge_type"]),
        }


def max_cost(model: CostModel, pred: PreparedGraph, gold: PreparedGraph) -> float:
    """Cost of deleting all of ``pred`` and inserting all of ``gold``."""
    nodes = sum(n.cost for n in pred.nodes) + sum(n.cost for n in gold.nodes)
    edges = sum(model.edge_weight(t) for t in pred.edges.values()) + sum(
        model.edge_weight(t) for t in gold.edges.values()
    )
    return nodes + edges


def path_cost(model: CostModel, pred: PreparedGraph, gold: PreparedGraph, mapping: Mapping[int, int]) -> float:
    """Cost of the edit path given by ``mapping`` (pred node index -> gold node index)."""
    cost = 0.0
    for i, u in enumerate(pred.nodes):
        j = mapping.get(i)
        cost += u.cost if j is None else model.substitute(u, gold.nodes[j])
    used = set(mapping.values())
    cost += sum(v.cost for j, v in enumerate(gold.nodes) if j not in used)
    return cost + _edge_cost(model, pred, gold, mapping)[0]


def _edge_cost(
    model: CostModel, pred: PreparedGraph, gold: PreparedGraph, mapping: Mapping[int, int]
) -> tuple[float, dict[str, list[int]]]:
    """Edge part of a path's cost, and ``{edge type: [tp, fp, fn]}``."""
    ids = {i: gold.nodes[j].node_id for i, j in mapping.items()}
    counts: dict[str, list[int]] = {}
    cost = 0.0
    matched: set[tuple[Any, Any]] = set()
    for (src, dst), etype in pred.edges.items():
        key = (ids.get(pred.index[src]), ids.get(pred.index[dst]))
        gtype = gold.edges.get(key) if None not in key else None
        if gtype is None:
            cost += model.edge_weight(etype)
            counts.setdefault(etype, [0, 0, 0])[1] += 1
            continue
        matched.add(key)
        cost += model.retype_edge(etype, gtype)
        if etype == gtype:
            counts.setdefault(etype, [0, 0, 0])[0] += 1
        else:
            counts.setdefault(etype, [0, 0, 0])[1] += 1
            counts.setdefault(gtype, [0, 0, 0])[2] += 1
    for key, gtype in gold.edges.items():
        if key not in matched:
            cost += model.edge_weight(gtype)
            counts.setdefault(gtype, [0, 0, 0])[2] += 1
    return cost, counts


def breakdown(model: CostModel, pred: PreparedGraph, gold: PreparedGraph, mapping: Mapping[int, int]) -> dict[str, Any]:
    """Where the cost of a path goes: per-`NodePath` TP/FP/FN and cost, and edges.

    Node paths have ``field=None``; a matched node is keyed by its gold id, a
    deleted one by its pred id. A node matched to another type counts as a
    wrong node (FP and FN) whose fields are still compared, unless the
    relabel is priced as a delete plus an insert. The path costs plus
    ``edge_distance`` add up to the path's cost.
    """
    per_path: dict[NodePath, list[float]] = {}

    def add(path: NodePath, tp: int, fp: int, fn: int, cost: float) -> None:
        row = per_path.setdefault(path, [0, 0, 0, 0.0])
        row[0] += tp
        row[1] += fp
        row[2] += fn
        row[3] += cost

    def missing(n: PreparedNode, fp: int, fn: int) -> None:
        add(NodePath(n.node_id, n.node_type), 0, fp, fn, model.node_weight(n.node_type))
        for f in n.fields:
            add(NodePath(n.node_id, n.node_type, f), 0, fp, fn, model.field_weight(n.node_type, f))

    used = set(mapping.values())
    for i, u in enumerate(pred.nodes):
        j = mapping.get(i)
        if j is None:
            missing(u, 1, 0)
            continue
        v = gold.nodes[j]
        same = u.node_type == v.node_type
        if not same and not model.relabel_pays(u, v):  # priced as a delete plus an insert
            missing(u, 1, 0)
            missing(v, 0, 1)
            continue
        node_cost = 0.0 if same else max(model.node_weight(u.node_type), model.node_weight(v.node_type))
        add(NodePath(v.node_id, v.node_type), int(same), int(not same), int(not same), node_cost)
        for f in u.fields.keys() | v.fields.keys():
            a, b = u.fields.get(f, _ABSENT), v.fields.get(f, _ABSENT)
            w = (
                model.field_weight(v.node_type, f)
                if same
                else max(model.field_weight(u.node_type, f), model.field_weight(v.node_type, f))
            )
            if a == b:
                add(NodePath(v.node_id, v.node_type, f), 1, 0, 0, 0.0)
            else:
                add(NodePath(v.node_id, v.node_type, f), 0, int(a is not _ABSENT), int(b is not _ABSENT), w)
    for j, v in enumerate(gold.nodes):
        if j not in used:
            missing(v, 0, 1)
    edge_cost, edge_counts = _edge_cost(model, pred, gold, mapping)
    return {
        "per_path": {p: tuple(r[:3]) for p, r in per_path.items()},
        "path_cost": {p: r[3] for p, r in per_path.items() if r[3]},
        "edge_distance": edge_cost,
        "per_edge_type": {t: tuple(c) for t, c in sorted(edge_counts.items())},
    }
