"""TEDS and GriTS: ek against apted, the array engines against the pure-Python ones, and large tables.

Three parts, each measured side by side in one process:

1. TEDS on 10x5 and 30x10 tables, ek against ``apted`` (the general
   tree-edit engine) on the same trees with the same costs; the values must
   agree to 1e-12. The goal is TEDS on a 30x10 table in under 1 s.
2. 40x40 tables: the numpy engines (used for large tables) against the
   pure-Python engines (used for small ones, and the only ones before), on
   the same pair; values must agree. Before the array engines, a 60x60 pair
   took over 20 s and a 100x100 TEDS over 2 GB.
3. 100x100 tables (the default ``max_cells`` limit): every metric on a
   similar pair (OCR slips, a dropped row) and on two unrelated tables,
   with wall time, CPU time and the peak memory traced by ``tracemalloc``
   (a second run, as tracing slows Python code). The goal is seconds and
   memory bounded by one table, not the product of two. Then hostile spans.

Run: ``python benchmarks/bench_tables.py``.
"""

from __future__ import annotations

import random
import time
import tracemalloc

from ek.metrics import _table_arrays, _table_scoring
from ek.metrics._apted_reference import apted_table_distance
from ek.metrics.tables import GritsMetric, Table, TedsMetric, _layout, _text_grid, _topology_grid

WORDS = ["total", "qty", "net", "item"]


def table_pair(rng: random.Random, n_rows: int, n_cols: int) -> tuple[Table, Table]:
    """A gold grid and a prediction with OCR slips, a dropped row, a short row and a merged cell."""
    gold = [[f"{rng.choice(WORDS)} {rng.randint(0, 99999)}" for _ in range(n_cols)] for _ in range(n_rows)]
    pred = [row[:] for row in gold]
    for _ in range(n_rows * 3):
        r, c = rng.randrange(n_rows), rng.randrange(n_cols)
        pred[r][c] = pred[r][c][:-1] + rng.choice("0O1l")
    del pred[n_rows // 3]
    pred[n_rows // 2] = pred[n_rows // 2][: n_cols - 2]
    pred[1][1] = None  # cell (1, 0) now spans two columns
    return Table.from_grid(pred), Table.from_grid(gold)


def unrelated_pair(rng: random.Random, n: int) -> tuple[Table, Table]:
    """Two n x n tables with unrelated texts and a few merged cells: the slow case."""

    def one() -> Table:
        grid = [[f"{rng.choice(WORDS)} {rng.randint(0, 99999)}" for _ in range(n)] for _ in range(n)]
        for _ in range(n // 4):
            r, c = rng.randrange(n), rng.randrange(1, n)
            grid[r][c] = None
        return Table.from_grid(grid)

    return one(), one()


def apted_teds(pred: Table, gold: Table, *, structure_only: bool) -> float:
    """TEDS with apted doing the tree edit distance (the baseline)."""
    d = apted_table_distance(pred, gold, structure_only=structure_only)
    size = max(1 + len(t.rows) + sum(len(r) for r in t.rows) for t in (pred, gold))
    return 1.0 - d / size


def _timed(fn, *args, **kwargs):
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn(*args, **kwargs)
    return time.perf_counter() - wall, time.process_time() - cpu, out


def _peak_mb(fn, *args, **kwargs) -> float:
    tracemalloc.start()
    try:
        fn(*args, **kwargs)
        return tracemalloc.get_traced_memory()[1] / 1e6
    finally:
        tracemalloc.stop()


def against_apted(rng: random.Random) -> None:
    print("1. TEDS: ek against apted")
    print(f"{'table':>6} {'metric':>11} | {'ek s':>7} {'value':>8} | {'apted s':>8} {'value':>8} {'speedup':>8}")
    for n_rows, n_cols in ((10, 5), (30, 10)):
        pred, gold = table_pair(rng, n_rows, n_cols)
        for structure_only in (False, True):
            metric = TedsMetric(structure_only=structure_only)
            t_ek, _, s = _timed(metric, pred, gold)
            t_ap, _, v = _timed(apted_teds, pred, gold, structure_only=structure_only)
            assert abs(v - s.value) <= 1e-12, (v, s.value)
            print(
                f"{n_rows}x{n_cols:<3} {metric.name:>11} | {t_ek:7.3f} {s.value:8.4f} | {t_ap:8.3f} {v:8.4f} "
                f"{t_ap / t_ek:7.1f}x"
            )


def _grits_engines(pred: Table, gold: Table, kind: str) -> tuple[float, float, float, float]:
    """(python s, value, arrays s, value) of one GriTS overlap."""
    view = _topology_grid if kind == "topology" else (lambda layout: _text_grid(layout, None))
    g = view(_layout(gold, max_cells=10_000, label="gold"))
    p = view(_layout(pred, max_cells=10_000, label="pred"))
    similarity = _table_scoring.SIMILARITIES[kind]
    t_py, _, v_py = _timed(_table_scoring.overlap, g, p, similarity)

    def arrays() -> float:
        rows, cols = _table_arrays.alignment_scores(g, p, kind=kind)
        return _table_scoring.aligned_sum(
            g, p, lambda i, k: rows[i][k], lambda j, l: cols[j][l], lambda i, k, j, l: similarity(g[i][j], p[k][l])
        )

    t_ar, _, v_ar = _timed(arrays)
    return t_py, v_py, t_ar, v_ar


def engines(rng: random.Random, n: int = 40) -> None:
    print(f"\n2. {n}x{n}: numpy engines against the pure-Python engines (the baseline)")
    print(f"{'engine':>16} | {'python s':>9} | {'numpy s':>8} {'speedup':>8} | value")
    pred, gold = table_pair(rng, n, n)
    for structure_only in (False, True):
        t_py, _, v_py = _timed(
            _table_scoring.table_tree_distance, pred.rows, gold.rows, _table_scoring.rename_matrix(structure_only)
        )
        t_ar, _, v_ar = _timed(_table_arrays.tree_distance, pred.rows, gold.rows, structure_only=structure_only)
        assert abs(v_py - v_ar) <= 1e-9, (v_py, v_ar)
        label = "TEDS-Struct dist" if structure_only else "TEDS distance"
        print(f"{label:>16} | {t_py:9.2f} | {t_ar:8.3f} {t_py / t_ar:7.1f}x | {v_ar:.6f}")
    for kind in ("content", "topology"):
        t_py, v_py, t_ar, v_ar = _grits_engines(pred, gold, kind)
        assert v_py == v_ar, (v_py, v_ar)
        print(f"{'GriTS ' + kind:>16} | {t_py:9.2f} | {t_ar:8.3f} {t_py / t_ar:7.1f}x | {v_ar:.6f}")


def large(rng: random.Random, n: int = 100) -> None:
    print(
        f"\n3. {n}x{n} tables (at the default max_cells); baseline: before the array engines a 60x60 "
        "pair took > 20 s and a 100x100 TEDS > 2 GB"
    )
    print(f"{'pair':>9} {'metric':>11} | {'wall s':>7} {'cpu s':>6} {'peak MB':>8} | value")
    pairs = {"similar": table_pair(rng, n, n), "unrelated": unrelated_pair(rng, n)}
    metrics = (TedsMetric(), TedsMetric(structure_only=True), GritsMetric(), GritsMetric(structure_only=True))
    for label, (pred, gold) in pairs.items():
        for metric in metrics:
            wall, cpu, s = _timed(metric, pred, gold)
            peak = _peak_mb(metric, pred, gold)
            print(f"{label:>9} {metric.name:>11} | {wall:7.2f} {cpu:6.2f} {peak:8.1f} | {s.value:.6f}")


def hostile() -> None:
    print("\n4. hostile spans")
    one = "<table><tr><td>a</td></tr></table>"
    cases = {
        'colspan="1' + "0" * 23 + '"': '<table><tr><td colspan="1' + "0" * 23 + '">a</td></tr></table>',
        'colspan="1000000000"': '<table><tr><td colspan="1000000000">a</td><td>b</td></tr></table>',
        'rowspan="1000000"': '<table><tr><td rowspan="1000000">a</td></tr></table>',
    }
    for label, html in cases.items():
        for metric in (TedsMetric(), GritsMetric()):
            wall, _, outcome = _timed(_outcome, metric, html, one)
            print(f"{label:>26} {metric.name:>6}: {wall * 1000:7.1f} ms  {outcome}")


def _outcome(metric, pred, gold) -> str:
    try:
        return f"value {metric(pred, gold).value:.4f}"
    except ValueError as exc:
        return f"refused: {str(exc)[:70]}..."


def main() -> None:
    rng = random.Random(11)
    TedsMetric()([["a"]], [["b"]])  # load rapidfuzz/numpy before timing
    _table_arrays.tree_distance(((),), ((),), structure_only=False)
    apted_teds(Table.from_grid([["a"]]), Table.from_grid([["b"]]), structure_only=False)
    against_apted(rng)
    engines(rng)
    large(rng)
    hostile()


if __name__ == "__main__":
    main()
