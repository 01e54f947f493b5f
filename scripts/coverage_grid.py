"""The coverage grid of issue 30 items 1-2 for `ek.Report.bounds` (what ``ek evaluate`` prints).

Run: ``PYTHONPATH=src python scripts/coverage_grid.py [trials] [cell ...]``
(default 1,000 a cell; cells named ``cer/lognormal 0.5/50``, ``slice/40``). Seeded. Every interval is `ek._bootstrap.bounds` on a real
`Report` of ek's CER or seqeval micro-F1 metric, built from per-document
statistics drawn here (no string alignment).

The corpus: N = 5,000 documents, lengths lognormal (median 55, σ = 0.5,
1.0, 1.5) or Pareto (α = 1.2, from 20), error rates Beta(2, 38), edits
Binomial(length, rate); the truth is the corpus's summed edits over summed
length. Micro-F1: one entity per 10 units of length (at least one), each
found with probability Beta(8, 2), spurious ones Poisson(0.1 a true one);
the truth is the corpus's 2TP / (2TP + FP + FN). Audits of n = 20, 50, 200
documents drawn uniformly. Slices: a slice of 1,000 documents of which k =
2, 5, 10, 20, 40 are in an audit of 200 (n = 200, lognormal σ = 1.0).

Per cell and level (90%, 95%), for the printed interval (the bootstrap-t)
and the percentile one (`METHODS`):
coverage, share flagged, coverage of the unflagged, mean width over the
percentile interval's. A cell passes when the unflagged cover at ≥ nominal
− 1.5 points.
"""

from __future__ import annotations

import dataclasses
import math
import sys
from typing import Any

import numpy as np

from ek._bootstrap import Resampler, bounds
from ek._bootstrap._bounds import METHODS
from ek.base import Report, Score
from ek.metrics.spans import SpanF1Metric
from ek.metrics.strings import StringMetric

N = 5_000
LEVELS = (0.90, 0.95)
DISTRIBUTIONS = ("lognormal 0.5", "lognormal 1.0", "lognormal 1.5", "pareto 1.2")
SIZES = (20, 50, 200)
SLICE_SIZES = (2, 5, 10, 20, 40)
TOLERANCE = 0.015


@dataclasses.dataclass(frozen=True)
class Cell:
    """One cell's figures at one level and method."""

    metric: str
    lengths: str
    n: int
    level: float
    method: str
    coverage: float
    flagged: float
    unflagged_coverage: float
    width_ratio: float

    @property
    def passes(self) -> bool:
        """Unflagged intervals cover at ≥ nominal − 1.5 points (a cell with none flagged-free passes)."""
        return math.isnan(self.unflagged_coverage) or self.unflagged_coverage >= self.level - TOLERANCE


def corpus(lengths: str, rng: Any) -> Any:
    """``(N, 2)`` per-document lengths and error rates."""
    if lengths == "pareto 1.2":
        size = np.ceil(20 * (1 + rng.pareto(1.2, N)))
    else:
        size = np.ceil(np.exp(math.log(55) + float(lengths.split()[1]) * rng.standard_normal(N)))
    return np.stack([size, rng.beta(2, 38, N)], axis=1)


def statistics(metric: str, population: Any, rng: Any, found: Any = None, spurious: float = 0.1) -> Any:
    """Every document's summed statistics: ``(edits, ref_len)`` or ``(tp, fp, fn)``, integers.

    Micro-F1 finds each entity with probability ``found`` (one a document;
    drawn Beta(8, 2) when None) and adds Poisson(``spurious``) false ones a true one.
    """
    size, rate = population[:, 0].astype(np.int64), population[:, 1]
    if metric == "cer":
        return np.stack([rng.binomial(size, rate), size], axis=1)
    entities = np.maximum(size // 10, 1)
    tp = rng.binomial(entities, rng.beta(8, 2, len(size)) if found is None else found)
    return np.stack([tp, rng.poisson(spurious * entities), entities - tp], axis=1)


def truth(metric: str, stats: Any) -> float:
    """The corpus figure of the rows ``stats``."""
    t = stats.sum(axis=0)
    return float(t[0] / t[1]) if metric == "cer" else float(2 * t[0] / (2 * t[0] + t[1] + t[2]))


def report(metric: str, stats: Any, ids: Any, slices: Any = None) -> Report:
    """A `Report` of ek's metric over the documents ``ids`` with statistics ``stats``."""
    m: Any = StringMetric("cer") if metric == "cer" else SpanF1Metric("seqeval_conll")
    names = m.statistics
    scores = tuple(Score(0.0, detail=dict(zip(names, map(int, row)))) for row in stats)
    detail: dict[str, Any] = {"ids": tuple(f"doc-{i}" for i in ids), "aggregation": m.aggregation}
    per_slice: dict[Any, float] = {}
    if slices is not None:
        detail.update(slices=tuple(slices), slice_n={"s": int(sum(x == "s" for x in slices))})
        per_slice["s"] = float(m.compute(dict(zip(names, stats[np.asarray(slices) == "s"].sum(axis=0).tolist()))))
    value = float(m.compute(dict(zip(names, stats.sum(axis=0).tolist()))))
    return Report(metric, value, len(stats), scores, per_slice, detail, _resampler=Resampler(m))


def cell(
    metric: str, lengths: str, n: int, trials: int, seed: int = 0, methods: tuple[str, ...] = METHODS
) -> list[Cell]:
    """The figures of one cell (every level and method) over ``trials`` audits of ``n`` documents."""
    rng = np.random.default_rng(seed)
    stats = statistics(metric, corpus(lengths, rng), rng)
    target = truth(metric, stats)
    draws = [rng.choice(N, size=n, replace=False) for _ in range(trials)]
    return _tally(metric, lengths, n, [(report(metric, stats[d], d), None, target) for d in draws], methods)


def slice_cell(k: int, trials: int, seed: int = 0, n: int = 200) -> list[Cell]:
    """A slice of 1,000 documents with ``k`` of them in each audit of ``n``."""
    rng = np.random.default_rng(seed)
    stats = statistics("cer", corpus("lognormal 1.0", rng), rng)
    inside, outside = np.arange(1000), np.arange(1000, N)
    target = truth("cer", stats[inside])
    cases = []
    for _ in range(trials):
        d = np.concatenate([rng.choice(inside, k, replace=False), rng.choice(outside, n - k, replace=False)])
        cases.append((report("cer", stats[d], d, ["s"] * k + [None] * (n - k)), "s", target))
    return _tally("cer slice", "lognormal 1.0", k, cases)


def _tally(metric: str, lengths: str, n: int, cases: list[Any], methods: tuple[str, ...] = METHODS) -> list[Cell]:
    out = []
    for level in LEVELS:
        rows = {m: [bounds(r, level, label, method=m) for r, label, _ in cases] for m in ("percentile", *methods)}
        targets = [t for _, _, t in cases]
        base = np.array([b.high - b.low for b in rows["percentile"]])
        for m, bs in rows.items():
            cover = np.array([b.low <= t <= b.high for b, t in zip(bs, targets)])
            trusted = np.array([b.reliable for b in bs])
            width = np.array([b.high - b.low for b in bs])
            finite = np.isfinite(base) & (base > 0)
            out.append(
                Cell(
                    metric,
                    lengths,
                    n,
                    level,
                    m,
                    float(cover.mean()),
                    float(1 - trusted.mean()),
                    float(cover[trusted].mean()) if trusted.any() else math.nan,
                    float((width[finite] / base[finite]).mean()) if finite.any() else math.nan,
                )
            )
    return out


def _line(c: Cell) -> str:
    return (
        f"{c.metric:10} {c.lengths:14} {c.n:4} {c.level:.0%} {c.method:10} cover {c.coverage:6.1%}  "
        f"flagged {c.flagged:6.1%}  unflagged {c.unflagged_coverage:6.1%}  width {c.width_ratio:5.2f}  "
        f"{'pass' if c.passes else 'FAIL'}"
    )


def main(trials: int, only: tuple[str, ...] = ()) -> None:
    """Print every cell, or only the cells named ``metric/lengths/n`` (``cer/pareto 1.2/200``) in ``only``."""
    for seed, (metric, lengths, n) in enumerate((m, d, n) for m in ("cer", "f1") for d in DISTRIBUTIONS for n in SIZES):
        if only and f"{metric}/{lengths}/{n}" not in only:
            continue
        for c in cell(metric, lengths, n, trials, seed):
            print(_line(c), flush=True)
    for k in SLICE_SIZES:
        if only and f"slice/{k}" not in only:
            continue
        for c in slice_cell(k, trials, seed=100 + k):
            print(_line(c), flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000, tuple(sys.argv[2:]))
