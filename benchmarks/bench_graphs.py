"""Typed-graph distance per invoice pair: exact search vs the bipartite bound.

Builds random invoices (an invoice node, a seller, a buyer and N line items)
and a perturbed prediction for each (changed field values, dropped and
invented line items, shuffled ids, a retyped edge), then times
`TypedGraphMetric` per pair:

* the exact method where it applies (graphs up to ``max_nodes``), with its
  timeout, reporting how often it finished;
* the bipartite method at every size, including 500 line items (goal: under
  2 s per pair), and how often its path meets the lower bound, which proves
  it exact without any search ("certified");
* at small sizes, how often the bipartite bound equals the exact distance
  and the mean gap between them, on the invoices and on random typed graphs;
* the baseline: networkx's own ``graph_edit_distance`` with the same cost
  callables but no seed bound, on the small invoices.

Run: ``python benchmarks/bench_graphs.py`` (``--quick`` for fewer pairs).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from ek.base import EdgeType, FieldSpec, GraphGrammar, NodeType
from ek.metrics.graphs import TypedEdge, TypedGraph, TypedGraphMetric, TypedNode

GRAMMAR = GraphGrammar(
    node_types={
        "invoice": NodeType(
            "invoice",
            importance=5.0,
            fields={
                "number": FieldSpec("number", importance=5.0),
                "date": FieldSpec("date", "date", importance=3.0),
                "total": FieldSpec("total", "number", importance=10.0),
                "currency": FieldSpec("currency", importance=2.0),
            },
        ),
        "party": NodeType(
            "party",
            importance=3.0,
            fields={
                "name": FieldSpec("name", importance=3.0),
                "vat": FieldSpec("vat", importance=4.0),
                "city": FieldSpec("city", importance=1.0),
            },
        ),
        "line_item": NodeType(
            "line_item",
            importance=2.0,
            fields={
                "description": FieldSpec("description", importance=1.0),
                "quantity": FieldSpec("quantity", "number", importance=3.0),
                "unit_price": FieldSpec("unit_price", "number", importance=4.0),
                "amount": FieldSpec("amount", "number", importance=6.0),
            },
        ),
    },
    edge_types={
        "seller": EdgeType("seller", "invoice", "party", importance=3.0),
        "buyer": EdgeType("buyer", "invoice", "party", importance=3.0),
        "has_item": EdgeType("has_item", "invoice", "line_item", importance=1.0),
    },
)

WORDS = ["bolt", "nut", "washer", "screw", "gear", "belt", "pump", "valve", "hose", "seal"]


def invoice(rng: random.Random, n_items: int) -> TypedGraph:
    """A gold invoice with ``n_items`` line items."""
    nodes = [
        TypedNode(
            "inv",
            "invoice",
            {
                "number": f"INV-{rng.randint(1000, 9999)}",
                "date": "2026-03-01",
                "total": str(rng.randint(100, 99999)),
                "currency": "EUR",
            },
        ),
        TypedNode("seller", "party", {"name": "Acme", "vat": "FR123", "city": "Paris"}),
        TypedNode("buyer", "party", {"name": "Globex", "vat": "DE456", "city": "Berlin"}),
    ]
    edges = [TypedEdge("inv", "seller", "seller"), TypedEdge("inv", "buyer", "buyer")]
    for k in range(n_items):
        q, p = rng.randint(1, 9), rng.randint(1, 500)
        nodes.append(
            TypedNode(
                f"item{k}",
                "line_item",
                {
                    "description": f"{rng.choice(WORDS)} {rng.randint(1, 99)}",
                    "quantity": str(q),
                    "unit_price": str(p),
                    "amount": str(q * p),
                },
            )
        )
        edges.append(TypedEdge("inv", f"item{k}", "has_item"))
    return TypedGraph(nodes, edges)


def perturb(rng: random.Random, gold: TypedGraph, *, rate: float = 0.15) -> TypedGraph:
    """A plausible extraction of ``gold``: wrong values, missed and invented items, new ids."""
    nodes, keep = [], set()
    for node in gold.nodes:
        if node.node_type == "line_item" and rng.random() < rate / 2:
            continue  # missed item
        fields = dict(node.fields)
        for name in list(fields):
            if rng.random() < rate:
                fields[name] = fields[name] + "x" if rng.random() < 0.7 else None
        nodes.append(TypedNode(node.node_id, node.node_type, fields))
        keep.add(node.node_id)
    n_items = sum(n.node_type == "line_item" for n in gold.nodes)
    for k in range(max(1, n_items // 10) if rng.random() < 0.5 else 0):
        nodes.append(
            TypedNode(
                f"extra{k}", "line_item", {"description": "invented", "quantity": "1", "unit_price": "9", "amount": "9"}
            )
        )
        keep.add(f"extra{k}")
    edges = [e for e in gold.edges if e.src in keep and e.dst in keep]
    edges += [TypedEdge("inv", n.node_id, "has_item") for n in nodes if n.node_id.startswith("extra")]
    if rng.random() < 0.3:  # seller and buyer swapped
        edges = [
            TypedEdge(e.src, e.dst, {"seller": "buyer", "buyer": "seller"}.get(e.edge_type, e.edge_type)) for e in edges
        ]
    # the extractor numbers items its own way
    items = [n for n in nodes if n.node_type == "line_item"]
    new_ids = [f"p{k}" for k in range(len(items))]
    rng.shuffle(new_ids)
    rename = {n.node_id: i for n, i in zip(items, new_ids)}
    nodes = [TypedNode(rename.get(n.node_id, n.node_id), n.node_type, n.fields) for n in nodes]
    edges = [TypedEdge(rename.get(e.src, e.src), rename.get(e.dst, e.dst), e.edge_type) for e in edges]
    return TypedGraph(nodes, edges)


def random_graph(rng: random.Random, n: int) -> TypedGraph:
    """A random typed graph: two node types, two fields, two edge types, self-loops allowed."""
    nodes = [
        TypedNode(f"n{i}", rng.choice("AB"), {f: rng.choice("xyz") for f in "pq" if rng.random() < 0.8})
        for i in range(n)
    ]
    edges = {(rng.randrange(n), rng.randrange(n)): rng.choice("rs") for _ in range(rng.randint(0, n + 2))}
    return TypedGraph(nodes, [TypedEdge(f"n{a}", f"n{b}", t) for (a, b), t in edges.items()])


def _time(metric: TypedGraphMetric, pred: TypedGraph, gold: TypedGraph) -> tuple[float, object]:
    start = time.perf_counter()
    score = metric(pred, gold)
    return time.perf_counter() - start, score


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer pairs per size")
    parser.add_argument("--timeout", type=float, default=10.0, help="exact-search budget per pair (s)")
    args = parser.parse_args()
    rng = random.Random(7)
    pairs_per_size = {3: 40, 8: 20, 20: 5, 100: 3, 500: 2}
    if args.quick:
        pairs_per_size = {3: 10, 8: 5, 20: 2, 100: 1, 500: 1}
    exact_m = TypedGraphMetric(grammar=GRAMMAR, timeout=args.timeout)
    bip_m = TypedGraphMetric(grammar=GRAMMAR, method="bipartite")
    warm = invoice(rng, 2)
    exact_m(perturb(rng, warm), warm)  # load networkx, numpy and scipy before timing
    print(
        f"{'items':>5} {'nodes':>5} {'pairs':>5} | {'bipartite s/pair':>16} {'certified':>9} | "
        f"{'exact s/pair':>12} {'finished':>8} | {'bound==exact':>12} {'mean gap':>9} {'mean rel gap':>12}"
    )
    for n_items, n_pairs in pairs_per_size.items():
        bip_times, exact_times, finished, equal, gaps, rel_gaps, certified = [], [], 0, 0, [], [], 0
        nodes = 0
        for _ in range(n_pairs):
            gold = invoice(rng, n_items)
            pred = perturb(rng, gold)
            nodes = max(len(gold.nodes), len(pred.nodes))
            t, bip = _time(bip_m, pred, gold)
            bip_times.append(t)
            certified += bip.detail["exact"]  # the path meets the lower bound
            if nodes <= exact_m.max_nodes:
                t, ex = _time(exact_m, pred, gold)
                exact_times.append(t)
                if ex.detail["exact"]:
                    finished += 1
                    gap = bip.detail["raw_distance"] - ex.detail["raw_distance"]
                    assert gap >= -1e-9, "the bipartite figure must never be below the exact distance"
                    gaps.append(gap)
                    rel_gaps.append(gap / ex.detail["raw_distance"] if ex.detail["raw_distance"] else 0.0)
                    equal += abs(gap) < 1e-9
        exact_col = f"{statistics.mean(exact_times):12.3f}" if exact_times else f"{'n/a (>max)':>12}"
        fin_col = f"{finished}/{len(exact_times)}" if exact_times else "-"
        eq_col = f"{equal}/{finished}" if finished else "-"
        gap_col = f"{statistics.mean(gaps):9.3f}" if gaps else f"{'-':>9}"
        rel_col = f"{100 * statistics.mean(rel_gaps):11.2f}%" if rel_gaps else f"{'-':>12}"
        cert_col = f"{certified}/{n_pairs}"
        print(
            f"{n_items:>5} {nodes:>5} {n_pairs:>5} | {statistics.mean(bip_times):16.4f} {cert_col:>9} | {exact_col} "
            f"{fin_col:>8} | {eq_col:>12} {gap_col} {rel_col}"
        )

    print()
    n_random = 50 if args.quick else 300
    equal, gaps = 0, []
    for _ in range(n_random):
        gold, pred = random_graph(rng, rng.randint(1, 7)), random_graph(rng, rng.randint(1, 7))
        ex, bip = exact_m(pred, gold).detail, bip_m(pred, gold).detail
        gap = bip["raw_distance"] - ex["raw_distance"]
        assert ex["exact"] and gap >= -1e-9
        equal += gap < 1e-9
        gaps.append(gap)
    print(
        f"random typed graphs (1-7 nodes, {n_random} pairs): bipartite == exact on {equal}/{n_random} "
        f"({100 * equal / n_random:.1f}%), mean gap {statistics.mean(gaps):.4f}, max gap {max(gaps):.2f}"
    )
    baseline(rng, args.timeout, quick=args.quick)


def baseline(rng: random.Random, timeout: float, *, quick: bool) -> None:
    """networkx graph_edit_distance (same costs, no seed) against ek's exact method."""
    import networkx as nx

    from ek.metrics._graph_costs import CostModel

    metric = TypedGraphMetric(grammar=GRAMMAR, timeout=timeout)
    costs = CostModel(GRAMMAR, None, None).nx_cost_functions()
    print()
    print(f"baseline: networkx.graph_edit_distance, same cost callables, timeout {timeout:g} s")
    for n_items in (3, 8, 20):
        ek_t, nx_t, same = [], [], 0
        n_pairs = 2 if quick else 5
        for _ in range(n_pairs):
            gold = invoice(rng, n_items)
            pred = perturb(rng, gold)
            t, score = _time(metric, pred, gold)
            ek_t.append(t)
            start = time.perf_counter()
            d = nx.graph_edit_distance(pred.to_networkx(), gold.to_networkx(), **costs, timeout=timeout)
            nx_t.append(time.perf_counter() - start)
            same += abs(d - score.detail["raw_distance"]) < 1e-9
        ratio = statistics.mean(nx_t) / statistics.mean(ek_t)
        print(
            f"  {n_items} items: ek exact {statistics.mean(ek_t):.3f} s/pair, networkx {statistics.mean(nx_t):.3f} "
            f"s/pair (networkx/ek time {ratio:.1f}x), same distance on {same}/{n_pairs}"
        )


if __name__ == "__main__":
    main()
