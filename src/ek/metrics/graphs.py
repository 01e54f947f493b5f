"""Cost-weighted, type-aware edit distance between typed graphs; lower is better.

No library takes a typed schema with per-type and per-field weights and
returns a weighted distance between two extracted graphs, so this is ek's
own build. It is a graph edit distance (GED) whose every edit is priced from
the Layer-A `GraphGrammar` through a `CostWeight` (by default the declared
importance, 1.0 for anything undeclared, so a node type the grammar does not
know still scores). Changing a field with importance 10 costs ten times a
field with importance 1, so a wrong amount outweighs a misspelled city. The
cost model is spelled out in `ek.metrics._graph_costs`.

GED is NP-hard, so the ``method`` matters and is always reported:

* ``"exact"`` (default): a branch-and-bound search for the cheapest edit
  path, with a ``timeout``; a pair with more than ``max_nodes`` nodes on a
  side is refused (ValueError) rather than left spinning. If the search runs
  out of time the best path found so far is used and the figure is an upper
  bound. (The search is ek's own: networkx's ``graph_edit_distance`` misses
  the optimum on some ties, see `ek.metrics._ged`; its result is a check in
  the tests.)
* ``"bipartite"``: one assignment problem (Riesen and Bunke's bipartite
  approximation on scipy), polynomial and fit for large graphs such as a
  500-line-item invoice; the figure is the cost of a real edit path, so an
  upper bound on the GED, and usually equal to it on small graphs.
* ``"auto"``: ``"exact"`` when both graphs have at most ``max_nodes`` nodes,
  else ``"bipartite"``.

``Score.value`` is the raw distance divided by the largest possible one
(deleting all of pred and inserting all of gold), in [0, 1]. ``detail``
carries the statistics ``distance`` and ``max_distance`` (the names every
distance metric in ek uses), ``raw_distance`` (the same number as
``distance``, under the name the reference documents), ``similarity``,
``method``, ``exact`` (True when the figure is proven to be the GED: a
finished exact search, or any path that meets ``lower_bound``; otherwise the
GED lies between ``lower_bound`` and ``distance``), the node ``mapping``,
``per_path`` TP/FP/FN and ``path_cost`` keyed by `NodePath` (which fields
cost the most), ``edge_distance``, ``per_edge_type`` and ``unknown_types``.
`TypedGraphMetric.aggregate` divides the summed distances by the summed
maxima. numpy and scipy (and networkx for `TypedGraph.to_networkx`) come
with the ``metrics`` extra and load on the first call.

>>> from ek.base import GraphGrammar, NodeType, FieldSpec
>>> g = GraphGrammar(node_types={"donation": NodeType("donation", fields={
...     "amount": FieldSpec("amount", "number", importance=10.0)})})
>>> gold = TypedGraph([TypedNode("d1", "donation", {"amount": "100", "city": "Paris"})])
>>> pred = TypedGraph([TypedNode("d1", "donation", {"amount": "900", "city": "Paris"})])
>>> TypedGraphMetric(grammar=g)(pred, gold).detail["raw_distance"]
10.0
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from ek._util import DispatchRule, FrozenMappings, import_optional, type_name
from ek.base import CostWeight, GraphGrammar, Normalizer, Score
from ek.metrics._contract import SummedStatistics
from ek.registry import register

__all__ = ["DEFAULT_MAX_NODES", "METHODS", "TypedEdge", "TypedGraph", "TypedGraphMetric", "TypedNode"]

DEFAULT_MAX_NODES = 60
"""Largest graph (node count, either side) the exact search accepts by default."""

METHODS = ("exact", "bipartite", "auto")
"""Values of ``TypedGraphMetric(method=...)``."""


def _check_id(value: Any, what: str) -> None:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise TypeError(f"{what} must be a str or int, got {type_name(value)}: {value!r:.40}.")


@dataclass(frozen=True)
class TypedNode(FrozenMappings):
    """A node of a typed graph: an id, a node type and its field values."""

    node_id: str | int
    node_type: str
    fields: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        _check_id(self.node_id, "TypedNode node_id")
        if not isinstance(self.node_type, str):
            raise TypeError(f"TypedNode node_type must be a str, got {type_name(self.node_type)}.")
        if not isinstance(self.fields, Mapping):
            raise TypeError(
                f"TypedNode {self.node_id!r} fields must be a mapping of field name to value, got {type_name(self.fields)}."
            )
        object.__setattr__(self, "fields", MappingProxyType(dict(self.fields)))


@dataclass(frozen=True)
class TypedEdge:
    """A directed relation of type ``edge_type`` from node ``src`` to node ``dst``."""

    src: str | int
    dst: str | int
    edge_type: str = ""

    def __post_init__(self) -> None:
        _check_id(self.src, "TypedEdge src")
        _check_id(self.dst, "TypedEdge dst")
        if not isinstance(self.edge_type, str):
            raise TypeError(f"TypedEdge edge_type must be a str, got {type_name(self.edge_type)}.")


@dataclass(frozen=True)
class TypedGraph:
    """Typed nodes and the directed typed edges between them.

    Node ids are unique, every edge joins two nodes of the graph, and there
    is at most one edge per ordered pair of nodes.
    """

    nodes: Sequence[TypedNode] = ()
    edges: Sequence[TypedEdge] = ()

    def __post_init__(self) -> None:
        nodes, edges = tuple(self.nodes), tuple(self.edges)
        ids = set()
        for i, node in enumerate(nodes):
            if not isinstance(node, TypedNode):
                raise TypeError(f"TypedGraph nodes[{i}] is {type_name(node)}; pass TypedNode objects.")
            if node.node_id in ids:
                raise ValueError(f"TypedGraph has two nodes with id {node.node_id!r}; node ids must be unique.")
            ids.add(node.node_id)
        pairs = set()
        for i, edge in enumerate(edges):
            if not isinstance(edge, TypedEdge):
                raise TypeError(f"TypedGraph edges[{i}] is {type_name(edge)}; pass TypedEdge objects.")
            for end in (edge.src, edge.dst):
                if end not in ids:
                    raise ValueError(
                        f"TypedGraph edges[{i}] ({edge.src!r} -> {edge.dst!r}) refers to node {end!r}, "
                        "which is not in the graph; add the node or drop the edge."
                    )
            if (edge.src, edge.dst) in pairs:
                raise ValueError(
                    f"TypedGraph has two edges from {edge.src!r} to {edge.dst!r}; keep one edge per ordered "
                    "pair of nodes (give a combined relation its own edge type)."
                )
            pairs.add((edge.src, edge.dst))
        object.__setattr__(self, "nodes", nodes)
        object.__setattr__(self, "edges", edges)

    def to_networkx(self) -> Any:
        """A ``networkx.DiGraph`` with ``node_type``/``fields`` on nodes and ``edge_type`` on edges."""
        nx = import_optional("networkx", extra="metrics", feature="TypedGraph.to_networkx")
        graph = nx.DiGraph()
        for node in self.nodes:
            graph.add_node(node.node_id, node_type=node.node_type, fields=dict(node.fields))
        for edge in self.edges:
            graph.add_edge(edge.src, edge.dst, edge_type=edge.edge_type)
        return graph


@dataclass(frozen=True)
class TypedGraphMetric(SummedStatistics):
    """Cost-weighted typed-graph edit distance as a `Metric`; ``value`` in [0, 1], lower is better.

    Args:
        grammar: the `GraphGrammar` whose importance weights price the edits;
            a grammar passed to the call wins. None weighs everything 1.0.
        weights: a `CostWeight` ``(grammar, TypeRef) -> float`` used instead
            of the declared importance.
        canonicalizer: ``str -> str`` applied to string field values before
            they are compared; a field's ``FieldSpec.normalizer`` wins.
        timeout: seconds the exact search may take (None: no limit); when it
            runs out, the best path found is used and ``detail["exact"]`` is
            False.
        max_nodes: the exact search refuses graphs with more nodes than this.
        method: ``"exact"`` (default), ``"bipartite"`` or ``"auto"``; see the
            module docstring.

    Raises:
        ValueError: (on call) a graph over ``max_nodes`` with ``method="exact"``.
    """

    grammar: GraphGrammar | None = None
    weights: CostWeight | None = None
    canonicalizer: Normalizer | None = field(default=None, kw_only=True)
    timeout: float | None = field(default=10.0, kw_only=True)
    max_nodes: int = field(default=DEFAULT_MAX_NODES, kw_only=True)
    method: str = field(default="exact", kw_only=True)

    higher_is_better = False
    statistics = ("distance", "max_distance")
    options = MappingProxyType({"normalize": "canonicalizer", "weights": "weights"})

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ValueError(f"TypedGraphMetric method must be one of {', '.join(METHODS)}, got {self.method!r}.")
        t = self.timeout
        if t is not None and (isinstance(t, bool) or not isinstance(t, (int, float)) or not t > 0 or math.isnan(t)):
            raise ValueError(f"TypedGraphMetric timeout must be a number of seconds > 0 or None, got {t!r}.")
        if isinstance(self.max_nodes, bool) or not isinstance(self.max_nodes, int) or self.max_nodes < 0:
            raise ValueError(f"TypedGraphMetric max_nodes must be an int >= 0, got {self.max_nodes!r}.")
        if self.grammar is not None and not isinstance(self.grammar, GraphGrammar):
            raise TypeError(f"TypedGraphMetric grammar must be a GraphGrammar, got {type_name(self.grammar)}.")

    @property
    def name(self) -> str:
        """Registered name: ``"typed_graph"``, or ``"typed_graph_<method>"`` for the other methods."""
        return "typed_graph" if self.method == "exact" else f"typed_graph_{self.method}"

    def __call__(self, pred: TypedGraph, gold: TypedGraph, *, grammar: GraphGrammar | None = None) -> Score:
        """Normalized typed-graph edit distance of ``pred`` to ``gold``."""
        for side, graph in (("pred", pred), ("gold", gold)):
            if not isinstance(graph, TypedGraph):
                raise TypeError(
                    f"the typed-graph distance compares two TypedGraphs, but {side} is {type_name(graph)}. "
                    "Build one with TypedGraph([TypedNode(...)], [TypedEdge(...)])."
                )
        grammar = grammar if grammar is not None else self.grammar
        if grammar is not None and not isinstance(grammar, GraphGrammar):
            raise TypeError(f"grammar must be a GraphGrammar, got {type_name(grammar)}.")
        method = self.method
        if method == "auto":
            small = max(len(pred.nodes), len(gold.nodes)) <= self.max_nodes
            method = "exact" if small else "bipartite"
        elif method == "exact":
            self._check_size(pred, gold)
        # the engines load on first use, keeping `import ek` lean
        from ek.metrics import _ged
        from ek.metrics._graph_costs import CostModel, breakdown, max_cost, path_cost

        model = CostModel(grammar, self.weights, self.canonicalizer)
        p, g = model.prepare(pred), model.prepare(gold)
        mapping = _ged.bipartite(model, p, g)
        raw = path_cost(model, p, g, mapping)
        low = _ged.lower_bound(model, p, g)
        exact = raw <= low + 1e-9 * max(1.0, raw)  # the path meets the bound: it is optimal
        if method == "exact" and not exact:
            found, _, exact = _ged.exact(model, p, g, timeout=self.timeout, upper_bound=raw, start_mapping=mapping)
            cost = path_cost(model, p, g, found)
            if cost < raw:
                mapping, raw = found, cost
        if exact:
            low = raw
        top = max_cost(model, p, g)
        value = raw / top if top else 0.0
        detail = {
            "distance": raw,
            "max_distance": top,
            "raw_distance": raw,
            "similarity": 1.0 - value,
            "method": method,
            "exact": exact,
            "lower_bound": low,
            "mapping": _mapping_ids(p, g, mapping),
            **breakdown(model, p, g, mapping),
            "unknown_types": _unknown_types(grammar, pred, gold),
        }
        return Score(value, metric=self.name, detail=detail)

    def compute(self, totals: Mapping[str, float]) -> float:
        """Corpus normalized distance: total distance over total maximum distance.

        A corpus whose maxima are all 0 (only empty graphs) scores 0.0:
        nothing to edit is a perfect match.
        """
        raw, top = totals["distance"], totals["max_distance"]
        return raw / top if top else 0.0

    def _check_size(self, pred: TypedGraph, gold: TypedGraph) -> None:
        for side, graph in (("pred", pred), ("gold", gold)):
            if len(graph.nodes) > self.max_nodes:
                raise ValueError(
                    f"{side} has {len(graph.nodes)} nodes, more than max_nodes={self.max_nodes}; exact graph "
                    "edit distance takes exponential time. Use method='bipartite' (polynomial, an upper bound) "
                    "or method='auto', or raise max_nodes if you accept the wait."
                )


def _mapping_ids(pred: Any, gold: Any, mapping: Mapping[int, int]) -> tuple[tuple[Any, Any], ...]:
    """``(pred id, gold id)`` pairs, with None for a deleted or inserted node."""
    pairs = [(u.node_id, gold.nodes[mapping[i]].node_id if i in mapping else None) for i, u in enumerate(pred.nodes)]
    used = set(mapping.values())
    pairs += [(None, v.node_id) for j, v in enumerate(gold.nodes) if j not in used]
    return tuple(pairs)


def _unknown_types(grammar: GraphGrammar | None, pred: TypedGraph, gold: TypedGraph) -> tuple[str, ...]:
    """Node and edge types the grammar does not declare (they weigh the defaults)."""
    if grammar is None:
        return ()
    node_types = {n.node_type for g in (pred, gold) for n in g.nodes} - set(grammar.node_types)
    edge_types = {e.edge_type for g in (pred, gold) for e in g.edges} - set(grammar.edge_types)
    return tuple(sorted(node_types | edge_types))


def _is_typed_graph(obj: Any) -> bool:
    return isinstance(obj, TypedGraph)


for _method in METHODS:
    register("metrics", TypedGraphMetric(method=_method).name, TypedGraphMetric(method=_method))
del _method
register("dispatch", "typed_graph", DispatchRule(_is_typed_graph))
