"""A fleet of OCR engines through ek.ocr.benchmark_fleet against the same engines called directly.

Two questions, on the bundled real corpus (``src/ek/data/ocr_fleet``, or
``--gold``), with Tesseract and RapidOCR (the engines installed here):

1. **Overhead.** The engines called directly on every image (each bound by
   ``ek.ocr._fleet_engines.fleet_engine``, the reader the fleet uses, in a
   plain loop), against ``benchmark_fleet`` reading the same images with the
   same readers and then scoring, pairing, calibrating and fusing them. Both
   one engine after the other, and both with the engines side by side (two
   threads). Goal: the fleet's extra time under 5% of its wall time.
2. **Concurrency.** ``benchmark_fleet(max_workers=2)`` against
   ``max_workers=None`` (one engine after the other). Goal: at least 1.6x on
   a 2-core machine.

Every engine reads one image first (model loading is not timed); each
timing is the best of ``--repeat`` runs. Tesseract is held to one OpenMP
thread per page whenever two engines run at once, in the fleet and in the
direct baseline alike. Measure on a quiet machine; ``uptime`` is printed.

    python3 benchmarks/bench_fleet.py [--gold PATH] [--repeat 3] [--copies 1]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gold", default=str(ROOT / "src" / "ek" / "data" / "ocr_fleet" / "gold.jsonl"))
    parser.add_argument("--repeat", type=int, default=3, help="runs per timing (the best is kept)")
    parser.add_argument("--copies", type=int, default=1, help="copies of the corpus to read")
    args = parser.parse_args()

    from ek.ocr import benchmark_fleet
    from ek.ocr._engines import check_engine
    from ek.ocr._fleet_engines import engine_specs, fleet_engine
    from ek.ocr._ocr_run import one_thread_per_engine

    engines = [e for e in ("tesseract", "rapidocr") if check_engine(e)["ok"]]
    if not engines:
        sys.exit("neither Tesseract nor RapidOCR is installed here")
    gold = _gold(Path(args.gold), args.copies)
    specs = engine_specs(engines)
    readers = {spec.name: fleet_engine(spec) for spec in specs}
    pages = [(r["image"], r.get("kind")) for r in gold.values()]
    for read in readers.values():  # load the models before anything is timed
        read(pages[0][0], kind=pages[0][1])
    print(f"corpus: {len(gold)} images from {args.gold}; engines: {', '.join(engines)}; {os.cpu_count()} CPUs")
    print(f"load: {_uptime()}")

    def direct(read):
        for image, kind in pages:
            read(image, kind=kind)

    def direct_one_after_the_other():
        for read in readers.values():
            direct(read)

    def direct_side_by_side():
        with one_thread_per_engine(engines, True), ThreadPoolExecutor(len(readers)) as pool:
            list(pool.map(direct, readers.values()))

    def fleet(workers):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return benchmark_fleet(engines, gold, max_workers=workers, progress=False)

    timings = {
        "direct, one engine after the other": _best(direct_one_after_the_other, args.repeat),
        "fleet, max_workers=None": _best(lambda: fleet(None), args.repeat),
        "direct, engines side by side": _best(direct_side_by_side, args.repeat),
        "fleet, max_workers=2": _best(lambda: fleet(2), args.repeat),
    }
    for label, seconds in timings.items():
        print(f"  {label:<38} {seconds:7.2f} s")
    for mode, base, ours in (
        ("one after the other", "direct, one engine after the other", "fleet, max_workers=None"),
        ("side by side", "direct, engines side by side", "fleet, max_workers=2"),
    ):
        extra = timings[ours] - timings[base]
        print(
            f"overhead, {mode}: {extra:+.2f} s = {extra / timings[ours]:+.1%} of the fleet's wall time (goal: under 5%)"
        )
    speedup = timings["fleet, max_workers=None"] / timings["fleet, max_workers=2"]
    print(f"max_workers=2 against one engine after the other: {speedup:.2f}x (goal: at least 1.6x)")
    report = fleet(2)
    print("ranking: " + ", ".join(f"{r.name} {r.aggregate:.4f}" for r in report.rows))
    print(f"load: {_uptime()}")


def _gold(path: Path, copies: int) -> dict:
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    gold = {}
    for copy in range(copies):
        for r in records:
            gold[f"{r['id']}#{copy}" if copies > 1 else r["id"]] = {
                **r,
                "image": str(path.parent / r["image"]) if not Path(r["image"]).is_absolute() else r["image"],
            }
    return gold


def _best(run, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - t)
    return best


def _uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


if __name__ == "__main__":
    main()
