"""Does a fleet of OCR engines keep every core busy? ek.ocr.benchmark_fleet's wall time against its CPU time.

On the bundled fleet corpus (``src/ek/data/ocr_fleet``, 48 line and 6 page
images) or any gold JSONL file (``--gold``), with the engines installed here
(Tesseract eng, Tesseract frk, RapidOCR; ``--engines`` to choose), three
ways, side by side in this process:

* **one at a time**: ``max_workers=None``, one engine after the other, one
  page at a time (the baseline, and the readings the others must match);
* **threads (before)**: ``max_workers=N`` with the engines on threads of this
  process, as ek ran them before worker processes (`ek.ocr._fleet.schedule`'s
  process pool switched off);
* **processes**: ``max_workers=N``, the ocracy engines on N worker processes.

For each: the wall time, the CPU seconds of this process and of its
children (``resource.getrusage``: Tesseract's subprocesses and the worker
processes, all reaped when the fleet returns), and the ratio of the wall
time to that CPU time spread over the cores, against the goal (at most
1.15: no core idles while pages wait). A ratio near N means one core did
all the work. Every mode's readings are compared with the baseline's
(text, score, confidence and blocks of every page). Each engine reads a page
first, so model loading in this process is not timed; worker processes load
their own models, which is counted. Measure on a quiet machine: ``uptime``
is printed.

    python3 benchmarks/bench_fleet.py [--gold PATH] [--copies 1] [--engines tesseract,tesseract:lang=frk,rapidocr]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import subprocess
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GOAL = 1.15


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gold", default=str(ROOT / "src" / "ek" / "data" / "ocr_fleet" / "gold.jsonl"))
    parser.add_argument("--copies", type=int, default=1, help="copies of the corpus to read")
    parser.add_argument("--engines", default="tesseract,tesseract:lang=frk,rapidocr")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="max_workers of the fleet")
    args = parser.parse_args()

    from ek.ocr import engine_specs, fleet_engine
    from ek.ocr._engines import check_engine

    wanted = [e for e in args.engines.split(",") if e]
    engines = [e for e in wanted if check_engine(e.split(":")[0])["ok"]]
    if not engines:
        sys.exit(f"none of {', '.join(wanted)} is installed here")
    gold = _gold(Path(args.gold), args.copies)
    first = next(iter(gold.values()))
    for spec in engine_specs(engines):  # load the models of this process before anything is timed
        fleet_engine(spec)(first["image"], kind=first.get("kind"))
    cores = os.cpu_count() or 1
    print(f"corpus: {len(gold)} images from {args.gold}; engines: {', '.join(engines)}; {cores} CPUs")
    left = sorted(set(wanted) - set(engines))
    if left:
        print(f"not installed here, left out: {', '.join(left)}")
    print(f"load: {_uptime()}")
    modes = {
        "one at a time": (None, True),
        f"threads (before), max_workers={args.workers}": (args.workers, False),
        f"processes, max_workers={args.workers}": (args.workers, True),
    }
    rows, reports = [], {}
    for label, (workers, processes) in modes.items():
        wall, own, children, reports[label] = _measure(engines, gold, workers, processes)
        rows.append((label, wall, own, children))
    base_label = next(iter(modes))
    print(f"{'mode':<30} {'wall s':>7} {'self s':>7} {'child s':>7} {'CPU/cores':>9} {'ratio':>6}  goal  same readings")
    for label, wall, own, children in rows:
        ideal = (own + children) / cores
        same = "yes" if _readings(reports[label]) == _readings(reports[base_label]) else "NO"
        print(
            f"{label:<30} {wall:7.2f} {own:7.2f} {children:7.2f} {ideal:9.2f} {wall / ideal:5.2f}x  "
            f"{'met' if wall / ideal <= GOAL else 'not met'} (<= {GOAL}x)  {same}"
        )
    base = rows[0][1]
    for label, wall, _, _ in rows[1:]:
        print(f"{label}: {base / wall:.2f}x faster than one at a time ({base:.2f} s -> {wall:.2f} s)")
    report = reports[rows[-1][0]]
    print("ranking: " + ", ".join(f"{r.name} {r.aggregate:.4f}" for r in report.rows))
    print(f"load: {_uptime()}")


def _measure(
    engines: list[str], gold: dict, workers: int | None, processes: bool
) -> tuple[float, float, float, object]:
    """``(wall, CPU of this process, CPU of its reaped children, report)`` of one fleet run."""
    from ek.ocr import benchmark_fleet

    before = _cpu()
    start = time.perf_counter()
    with warnings.catch_warnings(), _processes(processes):
        warnings.simplefilter("ignore")
        report = benchmark_fleet(engines, gold, max_workers=workers, progress=False)
    wall = time.perf_counter() - start
    after = _cpu()
    return wall, after[0] - before[0], after[1] - before[1], report


@contextlib.contextmanager
def _processes(on: bool):
    """The fleet as it is (``on``), or with its process pool switched off: the engines on threads, as before."""
    if on:
        yield
        return
    from ek.ocr._fleet import schedule

    real = schedule.process_pool

    @contextlib.contextmanager
    def none(workers):
        yield None

    schedule.process_pool = none
    try:
        yield
    finally:
        schedule.process_pool = real


def _cpu() -> tuple[float, float]:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


def _readings(report) -> dict:
    """Every engine's text, score, confidence and blocks of every page, and the consensus texts."""
    fields = ("prediction", "score", "confidence", "blocks", "error")
    rows = {
        row.name: {k: tuple(e.get(f) for f in fields) for k, e in row.report.detail["per_item"].items()}
        for row in report.rows
    }
    return {"rows": rows, "consensus": dict(report.consensus_texts)}


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


def _uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


if __name__ == "__main__":
    main()
