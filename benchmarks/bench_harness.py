"""The harness's own costs, next to the baselines they are measured against.

* evaluate_store over 20,000 gold records with an identity predictor:
  in memory, persisted, and a resumed persisted run that reuses every item,
  against one `ek.evaluate` call over the same cases (the bare scoring cost).
* evaluate_store on a metric costing about a millisecond per item (the
  typed-graph distance of small invoices, from bench_graphs), serially and
  on a 2-process executor (goal: at least 1.6x the serial throughput on a
  2-core machine); the reports must be equal.
* krippendorff_alpha (pure Python) against the numpy ``krippendorff``
  package, and cohen_kappa against scikit-learn's ``cohen_kappa_score``,
  on the same data; the values must agree.

    python benchmarks/bench_harness.py
"""

from __future__ import annotations

import math
import os
import random
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor

import ek
from ek.harness import cohen_kappa, evaluate_store, krippendorff_alpha

N = 20_000


def timed(fn, repeats=3):
    best, out = math.inf, None
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def bench_evaluate_store() -> None:
    rng = random.Random(0)
    words = ["alpha", "beta", "gamma", "delta", "omega", "sigma"]
    gold = {}
    for i in range(N):
        ref = " ".join(rng.choice(words) for _ in range(6))
        hyp = "".join(c if rng.random() > 0.05 else "x" for c in ref)
        gold[f"doc-{i:05d}"] = {"input": hyp, "reference": ref, "slice": "ab"[i % 2]}
    cases = [(g["input"], g["reference"], g["slice"]) for g in gold.values()]
    t_eval, base = timed(lambda: ek.evaluate(cases, metric="cer"))
    t_mem, mem = timed(lambda: evaluate_store(lambda x: x, gold, metric="cer"))
    root = tempfile.mkdtemp()
    t_persist, stored = timed(
        lambda: evaluate_store(lambda x: x, gold, metric="cer", run_id="b", rootdir=root, resume=False), repeats=1
    )
    t_resume, resumed = timed(lambda: evaluate_store(lambda x: x, gold, metric="cer", run_id="b", rootdir=root))
    assert mem.aggregate == base.aggregate == stored.aggregate == resumed.aggregate
    assert mem.per_slice == base.per_slice
    print(f"evaluate_store, {N} records (CER {base.aggregate:.4f}):")
    print(f"  ek.evaluate (scoring only)   {t_eval * 1e3:8.1f} ms")
    print(
        f"  evaluate_store in memory     {t_mem * 1e3:8.1f} ms  ({t_mem / N * 1e6:.1f} us/item, "
        f"{t_mem / t_eval:.1f}x evaluate)"
    )
    print(f"  evaluate_store persisted     {t_persist * 1e3:8.1f} ms  ({t_persist / N * 1e6:.1f} us/item)")
    print(f"  resumed, every item reused   {t_resume * 1e3:8.1f} ms  ({t_resume / N * 1e6:.1f} us/item)")


def extractor(document):
    """The system under test of the executor benchmark: its prediction is carried in the input."""
    return document


def millisecond_cer(pred, gold, *, grammar=None):
    """CER plus about a millisecond of arithmetic: a metric of the cost the executor goal names."""
    _spin(12_000)
    return ek.score(pred, gold, metric="cer")


def bench_executor(n: int = 600, repeats: int = 3) -> None:
    from bench_graphs import GRAMMAR, invoice, perturb  # beside this script

    rng = random.Random(2)
    graphs, texts = {}, {}
    for i in range(n):
        truth = invoice(rng, 0)  # an invoice, its seller and its buyer
        graphs[f"inv-{i:04d}"] = {"input": perturb(rng, truth), "reference": truth, "slice": "ab"[i % 2]}
        texts[f"doc-{i:04d}"] = {"input": f"invoice {i} total {i * 7}", "reference": f"invoice {i} total {i * 9}"}
    cases = [
        ("typed_graph_bipartite on invoice graphs", graphs, {"metric": "typed_graph_bipartite", "grammar": GRAMMAR}),
        (
            "CER plus 1 ms of work per item",
            texts,
            {
                "metric": ek.metric(
                    millisecond_cer, aggregate="sum_ratio", statistics=("edits", "ref_len"), higher_is_better=False
                )
            },
        ),
    ]
    print(f"evaluate_store on a 2-process executor, {n} items ({os.cpu_count()} cores, best of {repeats}):")
    with ProcessPoolExecutor(2) as pool:
        for name, gold, options in cases:
            warm = dict(list(gold.items())[:20])
            evaluate_store(extractor, warm, **options)  # load the metric's backends
            evaluate_store(extractor, warm, executor=pool, **options)  # and start the workers
            t_serial, serial = timed(lambda: evaluate_store(extractor, gold, **options), repeats)
            t_pool, pooled = timed(lambda: evaluate_store(extractor, gold, executor=pool, **options), repeats)
            assert pooled == serial
            print(
                f"  {name:40s} serial {t_serial / n * 1e3:5.2f} ms/item, pool {t_pool / n * 1e3:5.2f} ms/item: "
                f"{t_serial / t_pool:.2f}x (goal 1.6x)"
            )
        print(
            f"  {'the machine, meanwhile':40s} {_capacity(pool):.2f}x for two pure-CPU jobs on the same pool "
            "(the most any executor can reach while other work shares the cores)"
        )


def _spin(n: int) -> int:
    total = 0
    for i in range(n):
        total += i * i
    return total


def _capacity(pool: ProcessPoolExecutor, n: int = 2_000_000) -> float:
    """How much faster two CPU-bound jobs run on ``pool`` than one after the other, right now."""
    t = time.perf_counter()
    _spin(n), _spin(n)
    serial = time.perf_counter() - t
    t = time.perf_counter()
    list(pool.map(_spin, [n, n]))
    return serial / (time.perf_counter() - t)


def bench_agreement() -> None:
    rng = random.Random(1)
    raters, items = 5, 2000
    truth = [rng.randint(1, 5) for _ in range(items)]
    data = [
        [None if rng.random() < 0.1 else (t if rng.random() < 0.7 else rng.randint(1, 5)) for t in truth]
        for _ in range(raters)
    ]
    try:
        import krippendorff
    except ImportError:
        krippendorff = None
    print(f"krippendorff_alpha, {raters} raters x {items} items, 10% missing:")
    for level in ("nominal", "ordinal", "interval", "ratio"):
        t_ek, ours = timed(lambda: krippendorff_alpha(data, level=level))
        line = f"  {level:8s} ek {ours:.6f} {t_ek * 1e3:7.1f} ms"
        if krippendorff is not None:
            as_float = [[math.nan if v is None else float(v) for v in row] for row in data]
            t_ref, ref = timed(lambda: krippendorff.alpha(reliability_data=as_float, level_of_measurement=level))
            assert abs(ours - ref) < 1e-9, (level, ours, ref)
            line += f" | krippendorff {ref:.6f} {t_ref * 1e3:7.1f} ms ({t_ek / t_ref:.1f}x)"
        print(line)
    a = [rng.choice("abcd") for _ in range(100_000)]
    b = [x if rng.random() < 0.8 else rng.choice("abcd") for x in a]
    t_ek, ours = timed(lambda: cohen_kappa(a, b))
    line = f"cohen_kappa, 100000 items: ek {ours:.6f} {t_ek * 1e3:.1f} ms"
    try:
        from sklearn.metrics import cohen_kappa_score
    except ImportError:
        print(line)
        return
    t_ref, ref = timed(lambda: cohen_kappa_score(a, b))
    assert abs(ours - ref) < 1e-12
    print(f"{line} | sklearn {ref:.6f} {t_ref * 1e3:.1f} ms ({t_ek / t_ref:.2f}x)")


if __name__ == "__main__":
    bench_evaluate_store()
    bench_executor()
    bench_agreement()
