"""ek.dask.evaluate on a local cluster of 2 worker processes against serial ek.evaluate in one process.

Goals (issue 13), on a 2-core machine:

* CER over 2,000,000 OCR-like pairs: at least 1.6x the serial throughput,
  with the client's peak memory under 200 MB (the serial run holds every
  pair). The pairs are read from 16 files, once as Parquet (a Dask
  DataFrame: ``dask.dataframe.read_parquet``) and once as JSON lines (a
  Bag: ``dask.bag.read_text(...).map(json.loads)``); the serial variant
  reads the same files (``pandas.read_parquet``, or ``json.loads`` line by
  line) and calls ``ek.evaluate`` once. Each variant runs in a fresh
  process, which reports its wall time (reading, parsing and scoring) and
  its peak RSS (``VmHWM``; ``resource.getrusage`` elsewhere). With JSON lines, parsing costs
  several times the scoring (about 5 us a line against 1.6 us a pair), on
  both sides. These runs skip the interval (``level=None``, as serial
  ``ek.evaluate`` does until asked); a third runs Parquet with the 95%
  interval on both sides (serial: ``report.interval()``; Dask: replicate
  sums per partition), where the bootstrap costs more than the scoring.
* typed-graph scoring of 2,000 invoice-sized pairs, with the interval: at
  least 1.8x (both timed side by side in this process), the pairs sent
  from this process, and again with the pairs already on the workers.

Both aggregates (and intervals) must equal the serial ones. The script also prints the
bytes of the summary that reached the client, the machine's load, and how
much faster two pure-CPU jobs run on the same cluster than one after the
other right now: the most any parallel run can gain while other work
shares the cores.

    python benchmarks/bench_dask.py [--pairs 2000000] [--graphs 2000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = 16  # JSON-lines files, one partition each
DISTINCT = 20_000  # distinct OCR-like pairs; the corpus cycles through them
GRAPH_PARTITIONS = 64  # about 0.2 s of scoring each: the two workers finish within a partition of each other

CLUSTER = """
import sys, warnings
warnings.simplefilter("ignore")
import dask
from distributed import LocalCluster
dask.config.set({"distributed.worker.profile.enabled": False})  # as ek.dask.client() starts its workers
cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None,
                       scheduler_kwargs={"dashboard_address": "127.0.0.1:0"})
print(cluster.scheduler_address, flush=True)
sys.stdin.read()  # until the benchmark closes the pipe
cluster.close()
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=2_000_000)
    parser.add_argument("--graphs", type=int, default=2_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--variant", choices=["serial", "dask"])
    parser.add_argument("--format", choices=["parquet", "jsonl"], default="parquet")
    parser.add_argument("--folder")
    parser.add_argument("--scheduler")
    parser.add_argument("--level", type=float)
    args = parser.parse_args()
    if args.variant:
        print(json.dumps(run_variant(args.variant, args.format, args.folder, args.scheduler, args.level)))
        return
    print(
        f"load average before: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f} "
        f"({os.cpu_count()} cores)"
    )
    with tempfile.TemporaryDirectory() as folder:
        t = time.perf_counter()
        write_corpus(folder, args.pairs)
        os.sync()  # the files' write-back would otherwise compete with the first round
        print(
            f"wrote {args.pairs:,} pairs in {FILES} Parquet files ({_size(folder, '.parquet') / 1e6:.0f} MB) "
            f"and {FILES} JSON-lines files ({_size(folder, '.jsonl') / 1e6:.0f} MB) in {time.perf_counter() - t:.1f} s"
        )
        cluster = subprocess.Popen(
            [sys.executable, "-c", CLUSTER],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        try:
            address = cluster.stdout.readline().strip()
            for kind in ("parquet", "jsonl"):
                bench_cer(folder, kind, address, args.rounds, args.pairs)
            bench_cer(folder, "parquet", address, args.rounds, args.pairs, level=0.95)
            bench_graphs(address, args.graphs, args.rounds)
        finally:
            cluster.stdin.close()
            cluster.wait(timeout=60)
    print(f"load average after: {os.getloadavg()[0]:.2f}")


# ---------------------------------------------------------------------------
# CER over 2,000,000 pairs: each variant in a fresh process


def write_corpus(folder: str, n: int) -> None:
    sys.path.insert(0, HERE)
    import bench_evaluate  # beside this script: its OCR-like pairs

    bench_evaluate.N = DISTINCT
    pairs = bench_evaluate.make_pairs()
    import pandas as pd

    per_file = -(-n // FILES)
    for f in range(FILES):
        rows = range(f * per_file, min(n, (f + 1) * per_file))
        with open(os.path.join(folder, f"part-{f:02d}.jsonl"), "w", encoding="utf-8") as out:
            for i in rows:
                pred, gold = pairs[i % DISTINCT]
                out.write(json.dumps({"doc": f"d{i}", "pred": pred, "gold": gold}) + "\n")
        frame = pd.DataFrame(
            {
                "doc": [f"d{i}" for i in rows],
                "pred": [pairs[i % DISTINCT][0] for i in rows],
                "gold": [pairs[i % DISTINCT][1] for i in rows],
            }
        )
        frame.to_parquet(os.path.join(folder, f"part-{f:02d}.parquet"), index=False)


def run_variant(variant: str, kind: str, folder: str, address: str, level: float | None = None) -> dict:
    """Read, parse and score the corpus one way; the wall time, this process's peak RSS and the result.

    With ``level``, both variants also give the bootstrap interval (serial:
    ``report.interval(level)``; Dask: replicate sums per partition).
    """
    import ek

    paths = sorted(os.path.join(folder, name) for name in os.listdir(folder) if name.endswith(kind))
    interval = None
    if variant == "serial":
        if kind == "parquet":
            import pandas  # noqa: F401 - imported before the clock starts, as the Dask variant's libraries are
            import pyarrow.parquet  # noqa: F401
        t = time.perf_counter()
        report = ek.evaluate(_read_all(kind, paths), metric="cer")
        if level is not None:
            interval = report.interval(level)
        seconds, sent = time.perf_counter() - t, None
    else:
        import dask.bag as db
        import distributed

        import ek.dask

        if kind == "parquet":
            import dask.dataframe as dd  # pandas and pyarrow: about 100 MB of the client's memory
        with distributed.Client(address, timeout=30) as client:
            client.run(_warm_worker)  # every worker imports ek, its numpy and the Parquet reader
            client.run_on_scheduler(_warm_worker)  # the scheduler unpickles tasks of dask.dataframe too
            t = time.perf_counter()
            if kind == "jsonl":
                collection = db.read_text(paths, blocksize=None).map(json.loads)
            else:
                collection = dd.read_parquet(paths, columns=["pred", "gold"])
            report = ek.dask.evaluate(collection, metric="cer", level=level)
            if level is not None:
                interval = report.interval(level)
            seconds, sent = time.perf_counter() - t, report.detail["summary_bytes"]
    return {
        "seconds": seconds,
        "peak_mb": _peak_mb(),
        "aggregate": report.aggregate,
        "n": report.n,
        "bytes": sent,
        "interval": interval,
    }


def _warm_worker() -> None:
    import dask.dataframe  # noqa: F401
    import numpy  # noqa: F401
    import pyarrow.parquet  # noqa: F401

    import ek
    import ek._bootstrap

    ek.evaluate([("warm", "up")], metric="cer")


def _peak_mb() -> float:
    """This process's peak RSS. Linux's ``ru_maxrss`` keeps the parent's peak across exec, so read VmHWM."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:")) / 1024
    except (OSError, StopIteration):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _read_all(kind: str, paths: list) -> list:
    """Every ``(pred, gold)`` pair of the files, in one list (what a serial run holds)."""
    if kind == "parquet":
        import pandas as pd

        frame = pd.read_parquet(paths, columns=["pred", "gold"])
        return list(zip(frame["pred"].tolist(), frame["gold"].tolist()))
    cases = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for line in f:
                record = json.loads(line)
                cases.append((record["pred"], record["gold"]))
    return cases


def bench_cer(folder: str, kind: str, address: str, rounds: int, n: int, level: float | None = None) -> None:
    runs: dict = {"serial": [], "dask": []}
    extra = [] if level is None else ["--level", str(level)]
    for _ in range(rounds):
        for variant in ("serial", "dask"):
            out = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--variant",
                    variant,
                    "--format",
                    kind,
                    "--folder",
                    folder,
                    "--scheduler",
                    address,
                    *extra,
                ],
                capture_output=True,
                text=True,
                check=True,
            )
            runs[variant].append(json.loads(out.stdout.strip().splitlines()[-1]))
    serial, dask = runs["serial"], runs["dask"]
    assert {r["aggregate"] for r in serial} == {r["aggregate"] for r in dask}, "the aggregates differ"
    assert {tuple(r["interval"] or ()) for r in serial} == {tuple(r["interval"] or ()) for r in dask}, (
        "intervals differ"
    )
    assert all(r["n"] == n for r in serial + dask)
    ratios = [s["seconds"] / d["seconds"] for s, d in zip(serial, dask)]
    best_s, best_d = min(r["seconds"] for r in serial), min(r["seconds"] for r in dask)
    what = (
        "" if level is None else f", with the {level:.0%} interval {tuple(round(x, 5) for x in serial[0]['interval'])}"
    )
    print(f"CER over {n:,} pairs from {kind} files (CER {serial[0]['aggregate']:.5f}, equal{what}), {rounds} rounds:")
    print(
        f"  serial ek.evaluate, one process   best {best_s:6.2f} s ({n / best_s:9,.0f} pairs/s), "
        f"peak RSS {max(r['peak_mb'] for r in serial):6.0f} MB"
    )
    print(
        f"  ek.dask.evaluate, 2 workers       best {best_d:6.2f} s ({n / best_d:9,.0f} pairs/s), "
        f"client peak RSS {max(r['peak_mb'] for r in dask):6.0f} MB (goal < 200 MB)"
    )
    print(
        f"  throughput ratio: median {statistics.median(ratios):.2f}x, best {best_s / best_d:.2f}x, rounds "
        f"{', '.join(f'{r:.2f}' for r in ratios)} (goal 1.6x)"
    )
    print(f"  bytes that reached the client: {dask[0]['bytes']} (the merged summary)")


# ---------------------------------------------------------------------------
# typed graphs, side by side in this process


def bench_graphs(address: str, n: int, rounds: int) -> None:
    """Serial against Dask, side by side; the pairs ship from this process in the timed part.

    The Bag is built from named chunks: ``db.from_sequence`` would first hash
    every graph on the client (``dask.base.tokenize``), which costs about as
    much as scoring them. A second figure times the Dask run on a Bag already
    held by the workers (data that lives on the cluster, as files read there do).
    """
    import distributed

    import ek
    import ek.dask

    sys.path.insert(0, HERE)
    from bench_graphs import GRAMMAR, invoice, perturb  # beside this script

    rng = random.Random(3)
    pairs = []
    for _ in range(n):
        truth = invoice(rng, rng.randint(1, 4))
        pairs.append((perturb(rng, truth), truth))
    with distributed.Client(address, timeout=30) as client:
        warm = pairs[:20]
        client.run(ek.evaluate, warm, metric="typed_graph", grammar=GRAMMAR)  # every worker loads the metric
        ek.dask.evaluate(_graph_bag(warm, 2), metric="typed_graph", grammar=GRAMMAR)
        ek.evaluate(warm, metric="typed_graph", grammar=GRAMMAR)
        held = client.persist(_graph_bag(pairs, GRAPH_PARTITIONS))
        distributed.wait(held)
        times: dict = {"serial": [], "dask": [], "held": []}
        for _ in range(rounds):
            t = time.perf_counter()
            serial = ek.evaluate(pairs, metric="typed_graph", grammar=GRAMMAR)
            times["serial"].append(time.perf_counter() - t)
            for kind in ("dask", "held"):
                t = time.perf_counter()
                bag = _graph_bag(pairs, GRAPH_PARTITIONS) if kind == "dask" else held
                spread = ek.dask.evaluate(bag, metric="typed_graph", grammar=GRAMMAR)
                times[kind].append(time.perf_counter() - t)
                assert (spread.n, spread.aggregate) == (serial.n, serial.aggregate)
                assert spread.interval() == _near(serial.interval())
        capacity = _capacity(client)
    print(
        f"typed_graph over {n:,} invoice pairs (1 to 4 line items; distance {serial.aggregate:.4f}, equal; "
        f"with the 95% interval), {rounds} rounds:"
    )
    print(
        f"  serial ek.evaluate                   best {min(times['serial']):6.2f} s "
        f"({min(times['serial']) / n * 1e3:.1f} ms/pair)"
    )
    for kind, label in (("dask", "pairs sent from the client"), ("held", "pairs already on the workers")):
        ratios = [s / d for s, d in zip(times["serial"], times[kind])]
        print(
            f"  ek.dask.evaluate, {label:28s} best {min(times[kind]):6.2f} s; ratio median "
            f"{statistics.median(ratios):.2f}x, rounds {', '.join(f'{r:.2f}' for r in ratios)} (goal 1.8x)"
        )
    print(f"  the machine, meanwhile: {capacity:.2f}x for two pure-CPU jobs on the cluster's workers")


def _graph_bag(pairs: list, partitions: int) -> Any:
    """A Bag of ``pairs`` in named chunks (nothing hashed on the client)."""
    import dask
    import dask.bag as db

    size = -(-len(pairs) // partitions)
    tag = f"{id(pairs):x}-{time.perf_counter_ns()}"
    return db.from_delayed(
        [
            dask.delayed(pairs[i : i + size], name=f"graphs-{tag}-{i}", traverse=False)
            for i in range(0, len(pairs), size)
        ]
    )


def _near(interval: tuple) -> Any:
    """Float replicate sums add in another order on the cluster: equal up to rounding."""
    import math

    class Near:
        def __eq__(self, other: object) -> bool:
            return all(math.isclose(a, b, rel_tol=1e-9) for a, b in zip(other, interval))

    return Near()


def _spin(n: int) -> int:
    total = 0
    for i in range(n):
        total += i * i
    return total


def _capacity(client, n: int = 3_000_000) -> float:
    """How much faster two CPU-bound jobs run on the cluster than one after the other here, right now."""
    t = time.perf_counter()
    _spin(n), _spin(n)
    serial = time.perf_counter() - t
    t = time.perf_counter()
    client.gather(client.map(_spin, [n, n + 1]))
    return serial / (time.perf_counter() - t)


def _size(folder: str, suffix: str) -> int:
    return sum(os.path.getsize(os.path.join(folder, f)) for f in os.listdir(folder) if f.endswith(suffix))


if __name__ == "__main__":
    main()
