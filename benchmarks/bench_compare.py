"""``ek.compare``'s bootstrap-t against its percentile interval, side by side in one process (issue 30 item 1).

Run: ``PYTHONPATH=src python benchmarks/bench_compare.py [documents ...]``
(default 20,000 and 100,000). Two CER runs over the same documents (lengths
20-200, rates 5% and 4.5%), made afresh for each timing, so every
comparison weighs its items once: the percentile interval sums 2 statistics
a run, the bootstrap-t also both runs' products and their cross products
(14 columns in one pass of weights). Prints the median of 3 and the ratio.
"""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np

from ek._bootstrap import Resampler, compare
from ek.base import Report, Score
from ek.metrics.strings import StringMetric


def _report(edits: np.ndarray, lengths: np.ndarray) -> Report:
    metric = StringMetric("cer")
    scores = tuple(Score(0.0, detail={"edits": int(e), "ref_len": int(n)}) for e, n in zip(edits, lengths))
    ids = tuple(f"doc-{i}" for i in range(len(lengths)))
    value = float(edits.sum() / lengths.sum())
    detail = {"ids": ids, "aggregation": metric.aggregation}
    return Report("cer", value, len(lengths), scores, {}, detail, _resampler=Resampler(metric))


def timing(n: int, method: str, rng: np.random.Generator) -> float:
    """Seconds of one ``compare`` of two fresh reports of ``n`` documents by ``method``."""
    lengths = rng.integers(20, 200, n)
    a, b = _report(rng.binomial(lengths, 0.05), lengths), _report(rng.binomial(lengths, 0.045), lengths)
    start = time.perf_counter()
    compare(a, b, 0.95, method=method)
    return time.perf_counter() - start


def main(sizes: list[int]) -> None:
    rng = np.random.default_rng(0)
    for n in sizes:
        runs = {m: [] for m in ("percentile", "student")}
        for _ in range(3):
            for method, times in runs.items():  # interleaved: both see the same load
                times.append(timing(n, method, rng))
        base, ours = (statistics.median(runs[m]) for m in ("percentile", "student"))
        print(f"{n:>7} documents: percentile {base:.3f} s, bootstrap-t {ours:.3f} s, ratio {ours / base:.2f}")


if __name__ == "__main__":
    main([int(x) for x in sys.argv[1:]] or [20_000, 100_000])
