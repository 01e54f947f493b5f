"""TEDS and GriTS on a 30x10 table: ek against apted, the general tree-edit engine.

ek computes TEDS with a tree edit distance specialised to the three-level
table tree; the baseline runs ``apted`` on the same trees with the same
costs, in the same process, and must give the same number. The goal is TEDS
on a 30x10 table in under 1 s. GriTS-Con and GriTS-Top are timed too.

Run: ``python benchmarks/bench_tables.py``.
"""

from __future__ import annotations

import random
import time

from ek.metrics._apted_reference import apted_table_distance
from ek.metrics.tables import GritsMetric, Table, TedsMetric


def table_pair(rng: random.Random, n_rows: int, n_cols: int) -> tuple[Table, Table]:
    """A gold grid and a prediction with OCR slips, a dropped row, a short row and a merged cell."""
    gold = [[f"{rng.choice(['total', 'qty', 'net', 'item'])} {rng.randint(0, 9999)}" for _ in range(n_cols)]
            for _ in range(n_rows)]
    pred = [row[:] for row in gold]
    for _ in range(n_rows):
        r, c = rng.randrange(n_rows), rng.randrange(n_cols)
        pred[r][c] = pred[r][c][:-1] + rng.choice("0O1l")
    del pred[n_rows // 3]
    pred[n_rows // 2] = pred[n_rows // 2][: n_cols - 2]
    pred[1][1] = None  # cell (1, 0) now spans two columns
    return Table.from_grid(pred), Table.from_grid(gold)


def apted_teds(pred: Table, gold: Table, *, structure_only: bool) -> float:
    """TEDS with apted doing the tree edit distance (the baseline)."""
    d = apted_table_distance(pred, gold, structure_only=structure_only)
    size = max(1 + len(t.rows) + sum(len(r) for r in t.rows) for t in (pred, gold))
    return 1.0 - d / size


def _timed(fn, *args, **kwargs):
    start = time.perf_counter()
    out = fn(*args, **kwargs)
    return time.perf_counter() - start, out


def main() -> None:
    rng = random.Random(11)
    TedsMetric()([["a"]], [["b"]])  # load rapidfuzz/numpy before timing
    apted_teds(Table.from_grid([["a"]]), Table.from_grid([["b"]]), structure_only=False)
    print(f"{'table':>6} {'metric':>11} | {'ek s':>7} {'value':>8} | {'apted s':>8} {'value':>8} {'speedup':>8}")
    for n_rows, n_cols in ((10, 5), (30, 10)):
        pred, gold = table_pair(rng, n_rows, n_cols)
        for structure_only in (False, True):
            metric = TedsMetric(structure_only=structure_only)
            t_ek, s = _timed(metric, pred, gold)
            t_ap, v = _timed(apted_teds, pred, gold, structure_only=structure_only)
            assert abs(v - s.value) < 1e-9, (v, s.value)
            print(f"{n_rows}x{n_cols:<3} {metric.name:>11} | {t_ek:7.3f} {s.value:8.4f} | {t_ap:8.3f} {v:8.4f} "
                  f"{t_ap / t_ek:7.1f}x")
        for structure_only in (False, True):
            metric = GritsMetric(structure_only=structure_only)
            t_ek, s = _timed(metric, pred, gold)
            print(f"{n_rows}x{n_cols:<3} {metric.name:>11} | {t_ek:7.3f} {s.value:8.4f} | {'-':>8} {'-':>8} {'-':>8}")


if __name__ == "__main__":
    main()
