"""Speed and width of ek.estimate_corpus: a million items, a thousand audited; ppi_py beside it.

    python benchmarks/bench_estimate.py [--items 1000000] [--audited 1000]

1. Speed, from reports already built (their statistic columns and id index
   are read on the first call and kept on the reports): the CLT estimate
   (first and warm calls) and the bootstrap, on a mean problem (exact match)
   and on CER; ppi_py's ``ppi_mean_ci`` on the same mean problem, warm.
   Goals: CLT under 1 s, bootstrap under 3 s, ek warm no slower than 2x ppi_py.
2. Width: the interval width ratio estimate / classical and the effective n,
   on the bundled demo OCR corpus and on simulated corpora per proxy quality.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from importlib.resources import files

import numpy as np

import ek


def _best(fn, repeat=5):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def speed(n_items: int, n_audited: int) -> None:
    rng = np.random.default_rng(0)
    truth = rng.random(n_items) < 0.8
    guess = np.where(rng.random(n_items) < 0.85, truth, ~truth)
    ids = [f"doc-{k:07d}" for k in range(n_items)]
    audited = np.sort(rng.choice(n_items, n_audited, replace=False))
    exact = ek.metric(lambda p, g: float(p == g), aggregate="mean", name="exact", higher_is_better=True)
    t = time.perf_counter()
    proxy = ek.evaluate([(1.0, float(x)) for x in guess], metric=exact, ids=ids)
    audit = ek.evaluate([(1.0, float(truth[k])) for k in audited], metric=exact, ids=[ids[k] for k in audited])
    print(f"reports built in {time.perf_counter() - t:.2f} s (not timed below)")
    t = time.perf_counter()
    ek.estimate_corpus(proxy, audit)
    first = time.perf_counter() - t
    warm = _best(lambda: ek.estimate_corpus(proxy, audit))
    t = time.perf_counter()
    ek.estimate_corpus(proxy, audit, interval="bootstrap")
    boot_first = time.perf_counter() - t
    boot_warm = _best(lambda: ek.estimate_corpus(proxy, audit, interval="bootstrap"), repeat=3)
    print(f"mean problem, N={n_items:,}, n={n_audited:,}:")
    print(f"  ek CLT:       first call {first:.3f} s (reads the columns), warm {warm * 1e3:.1f} ms   (goal < 1 s)")
    print(
        f"  ek bootstrap: first call {boot_first:.3f} s (resamples the corpus), warm {boot_warm * 1e3:.1f} ms"
        "   (goal < 3 s)"
    )
    try:
        from ppi_py import ppi_mean_ci
    except ImportError:
        print("  ppi_py not installed (pip install ppi-python): no side-by-side figure")
        return
    mask = np.zeros(n_items, dtype=bool)
    mask[audited] = True
    y, y_hat, y_u = truth[audited].astype(float), guess[audited].astype(float), guess[~mask].astype(float)
    ppi_mean_ci(y, y_hat, y_u, alpha=0.05)
    theirs = _best(lambda: ppi_mean_ci(y, y_hat, y_u, alpha=0.05))
    print(
        f"  ppi_py ppi_mean_ci warm {theirs * 1e3:.1f} ms (arrays given; no id join): ek/ppi_py = "
        f"{warm / theirs:.2f}x   (goal <= 2x)"
    )
    lengths = rng.integers(20, 100, n_items)
    scores = ek.evaluate(
        [("x" * int(e), "y" * int(r)) for e, r in zip(rng.binomial(lengths, 0.05) * 0, lengths)], metric="cer", ids=ids
    )
    cer_audit = ek.evaluate(
        [("y" * int(lengths[k] - 2), "y" * int(lengths[k])) for k in audited],
        metric="cer",
        ids=[ids[k] for k in audited],
    )
    ek.estimate_corpus(scores, cer_audit)
    print(f"  CER, warm CLT {_best(lambda: ek.estimate_corpus(scores, cer_audit)) * 1e3:.1f} ms")


def width() -> None:
    demo = files("ek") / "data"
    rows = [json.loads(line) for line in (demo / "demo_ocr.jsonl").read_text(encoding="utf-8").splitlines()]
    other = {
        json.loads(line)["id"]: json.loads(line)["prediction"]
        for line in (demo / "demo_ocr_b.jsonl").read_text(encoding="utf-8").splitlines()
    }
    ids = [r["id"] for r in rows]
    proxy = ek.agreement_proxy([r["prediction"] for r in rows], [other[i] for i in ids], metric="cer", ids=ids)
    print("width bought (interval width estimate / classical, effective n):")
    for step in (2, 4):
        audited = rows[::step]
        audit = ek.evaluate(
            [(r["prediction"], r["gold"]) for r in audited], metric="cer", ids=[r["id"] for r in audited]
        )
        est = ek.estimate_corpus(proxy, audit)
        print(
            f"  demo OCR corpus, stand-in system B, n={est.n} of N={est.N}: {_ratio(est):.3f}, "
            f"effective n {est.effective_n:.0f}, lambda {est.lam:.2f}"
        )
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))
    import test_estimate_simulation as sim

    corpora = 2000
    for metric in ("cer", "f1"):
        tally = sim.run(metric, corpora)
        for (name, design), row in tally.items():
            ratio = row["width"] / row["classical"]
            print(
                f"  simulated {metric}, proxy {name:8} {design:10}: {ratio:.3f}, effective n "
                f"{sim.BUDGET / ratio**2:.0f} of {sim.BUDGET}, 95% coverage {row['cover'][0.95]:.3f} "
                f"(mean over {corpora} corpora of N={sim.N:,})"
            )


def _ratio(est) -> float:
    return (est.interval[1] - est.interval[0]) / (est.classical["interval"][1] - est.classical["interval"][0])


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--audited", type=int, default=1_000)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}")
    speed(args.items, args.audited)
    width()
