"""The coverage grid of issue 30 item 1 for `ek.compare`: the paired interval of B - A on two engines.

Run: ``PYTHONPATH=src python scripts/compare_grid.py [trials] [cell ...]``
(default 1,000 a cell; cells named ``cer/lognormal 0.5/50/equal``). Seeded.
The corpus and reports are scripts/coverage_grid.py's (N = 5,000 documents,
lengths lognormal σ = 0.5, 1.0, 1.5 or Pareto α = 1.2, audits of 20, 50,
200 drawn uniformly); every interval is `ek._bootstrap.compare` on two real
`Report` s of ek's CER or seqeval micro-F1 over the same audited ids.

The two engines share each document's difficulty, as real engines do: CER
rate ``p_i`` (Beta(2, 38)) times the engine's factor times its own noise
(lognormal, σ = 0.3, mean 1); micro-F1 misses ``1 - f_i`` (f Beta(8, 2))
times that, and adds spurious entities at 0.1 times the factor. Equal
engines have factor 1 both (the truth B - A is 0 in expectation); unequal
ones 0.8 for B. The truth is the corpus's B figure minus A's.

Per cell and level (90%, 95%), for the printed interval (the symmetric
bootstrap-t of the difference) and the percentile one: coverage of the truth, share
flagged, coverage of the unflagged, mean width over the percentile
interval's, and for equal engines the share of intervals holding 0 and the
share of verdicts calling a difference (false positives). A cell passes
when the unflagged cover at ≥ nominal − 1.5 points. At 2,000 audits a cell
the CER half took 13 minutes and the micro-F1 half 17, run side by side
under ``nice`` on two shared cores (pass cells as arguments to split it).
"""

from __future__ import annotations

import dataclasses
import math
import sys
import time
from typing import Any

import numpy as np
from coverage_grid import DISTRIBUTIONS, LEVELS, SIZES, TOLERANCE, N, corpus, report, statistics, truth

from ek._bootstrap import compare
from ek._bootstrap._bounds import METHODS

PAIRS = {"equal": 1.0, "unequal": 0.8}
NOISE = 0.3  # the sd of an engine's own log-rate noise about the shared difficulty


@dataclasses.dataclass(frozen=True)
class PairCell:
    """One paired cell's figures at one level and method."""

    metric: str
    lengths: str
    n: int
    pair: str
    level: float
    method: str
    coverage: float
    flagged: float
    unflagged_coverage: float
    width_ratio: float
    holds_zero: float
    called: float
    unflagged: int  # how many intervals the unflagged coverage is of

    @property
    def passes(self) -> bool:
        """Unflagged intervals cover at ≥ nominal − 1.5 points (a cell with none unflagged passes)."""
        return math.isnan(self.unflagged_coverage) or self.unflagged_coverage >= self.level - TOLERANCE


def pair_stats(metric: str, lengths: str, pair: str, rng: Any) -> tuple[Any, Any]:
    """Engines A's and B's per-document statistics ``(N, k)`` on one corpus of shared difficulty."""
    population = corpus(lengths, rng)
    found = rng.beta(8, 2, N)  # micro-F1's shared chance of finding an entity of the document
    out = []
    for factor in (1.0, PAIRS[pair]):
        noise = np.exp(NOISE * rng.standard_normal(N) - NOISE**2 / 2)
        if metric == "cer":
            rates = np.minimum(population[:, 1] * factor * noise, 1.0)
            out.append(statistics("cer", np.stack([population[:, 0], rates], axis=1), rng))
        else:
            misses = np.minimum((1 - found) * factor * noise, 1.0)
            out.append(statistics("f1", population, rng, found=1 - misses, spurious=0.1 * factor))
    return out[0], out[1]


def cell(
    metric: str, lengths: str, n: int, pair: str, trials: int, seed: int = 0, levels: tuple[float, ...] = LEVELS
) -> list[PairCell]:
    """The figures of one paired cell (each level of ``levels``, every method) over ``trials`` audits of ``n``."""
    rng = np.random.default_rng(seed)
    stats_a, stats_b = pair_stats(metric, lengths, pair, rng)
    target = truth(metric, stats_b) - truth(metric, stats_a)
    rows: dict[tuple[float, str], list[dict[str, Any]]] = {(lv, m): [] for lv in levels for m in METHODS}
    for _ in range(trials):
        d = rng.choice(N, size=n, replace=False)
        a, b = report(metric, stats_a[d], d), report(metric, stats_b[d], d)
        for (level, method), got in rows.items():
            got.append(compare(a, b, level, method=method))
    out = []
    for (level, method), got in rows.items():
        base = np.array([c["interval"][1] - c["interval"][0] for c in rows[level, "percentile"]])
        low, high = (np.array([c["interval"][e] for c in got]) for e in (0, 1))
        cover = (low <= target) & (target <= high)
        trusted = np.array([c["reliable"] for c in got])
        finite = np.isfinite(base) & (base > 0)
        out.append(
            PairCell(
                metric,
                lengths,
                n,
                pair,
                level,
                method,
                float(cover.mean()),
                float(1 - trusted.mean()),
                float(cover[trusted].mean()) if trusted.any() else math.nan,
                float(((high - low)[finite] / base[finite]).mean()) if finite.any() else math.nan,
                float(((low <= 0) & (0 <= high)).mean()),
                float(np.mean([c["verdict"] != "no detectable difference" for c in got])),
                int(trusted.sum()),
            )
        )
    return out


def _line(c: PairCell) -> str:
    tail = f"  holds 0 {c.holds_zero:6.1%}  called {c.called:6.1%}" if c.pair == "equal" else ""
    return (
        f"{c.metric:4} {c.lengths:14} {c.n:4} {c.pair:8} {c.level:.0%} {c.method:10} cover {c.coverage:6.1%}  "
        f"flagged {c.flagged:6.1%}  unflagged {c.unflagged_coverage:6.1%} of {c.unflagged:4}  width {c.width_ratio:5.2f}  "
        f"{'pass' if c.passes else 'FAIL'}{tail}"
    )


def main(trials: int, only: tuple[str, ...] = ()) -> None:
    """Print every cell, or only those named ``metric/lengths/n/pair`` (``cer/pareto 1.2/200/equal``) in ``only``."""
    start = time.perf_counter()
    grid = [(m, d, n, p) for m in ("cer", "f1") for d in DISTRIBUTIONS for n in SIZES for p in PAIRS]
    for seed, (metric, lengths, n, pair) in enumerate(grid):
        if only and f"{metric}/{lengths}/{n}/{pair}" not in only:
            continue
        for c in cell(metric, lengths, n, pair, trials, seed):
            print(_line(c), flush=True)
    print(f"{trials} trials a cell in {time.perf_counter() - start:.0f} s", flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000, tuple(sys.argv[2:]))
