"""TEDS's tree edit distance computed by ``apted``, the general engine.

`ek.metrics.tables` computes the same distance with a dynamic programme
specialised to the ``table > tr > td`` tree (about 20x faster). This module
is the reference it is checked against in the tests and timed against in
``benchmarks/bench_tables.py``; apted ships in the ``test`` extra.
"""

from __future__ import annotations

from typing import Any

from ek._util import import_optional
from ek.metrics import _edit


def apted_table_distance(pred: Any, gold: Any, *, structure_only: bool) -> float:
    """Tree edit distance of two `Table` s with TEDS's costs, computed by apted."""
    apted = import_optional("apted", extra="test", feature="the apted TEDS reference")
    distance = _edit.active()[0]

    class Node:
        def __init__(self, tag: str, cell: Any = None, children: list[Node] | tuple[()] = ()) -> None:
            self.tag, self.cell, self.children = tag, cell, list(children)

    config: Any = apted.Config  # apted ships no types

    class TedsConfig(config):  # type: ignore[misc]  # subclassing the untyped apted.Config
        valuecls = float

        def rename(self, a: Node, b: Node) -> float:
            if a.tag != b.tag:
                return 1.0
            if a.tag != "td":
                return 0.0
            x, y = a.cell, b.cell
            if (x.rowspan, x.colspan) != (y.rowspan, y.colspan):
                return 1.0
            if structure_only or x.text == y.text:
                return 0.0
            return distance(x.text, y.text) / max(len(x.text), len(y.text))

        def children(self, node: Node) -> list[Node]:
            return node.children

    def tree(t: Any) -> Node:
        return Node("table", children=[Node("tr", children=[Node("td", c) for c in row]) for row in t.rows])

    return float(apted.APTED(tree(pred), tree(gold), TedsConfig()).compute_edit_distance())
