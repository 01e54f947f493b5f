"""Every benchmark's figures against its goal, in one table (issue 33, item 5).

Each module listed in `BENCHMARKS` has a ``figures()`` function returning one
row per goal: ``work``, ``ek`` (seconds), ``baseline`` (seconds, measured
side by side in the same run), ``baseline_name``, ``ratio`` (ek over the
baseline), ``goal`` and ``pass``; rows of an absolute goal have no baseline.
A benchmark that cannot run here (a missing package, an OCR engine) is a
row saying why, and the others still run.

    python benchmarks/run_all.py [--quick] [--only evaluate,cli_evaluate]

``--quick`` asks each benchmark for a fast pass (fewer rounds, smaller
cases, the longest ones left out); its figures are rougher. The exit code
is 1 when a goal is missed.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import inspect
import os
import sys
import time
from typing import Any

# bench_fleet is left out: it needs Tesseract and RapidOCR installed and takes minutes.
BENCHMARKS = ("bench_evaluate", "bench_cli_evaluate", "bench_calibrate", "bench_long_documents", "bench_monitor")
COLUMNS = ("work", "ek", "baseline", "ratio", "goal", "met?")


def collect(name: str, quick: bool) -> list[dict[str, Any]]:
    """The rows of one benchmark module, or one row naming why it could not run."""
    try:
        module = importlib.import_module(name)
        figures = module.figures
        takes_quick = "quick" in inspect.signature(figures).parameters
        with contextlib.redirect_stdout(sys.stderr):  # what a benchmark prints on its way is not the table
            rows: list[dict[str, Any]] = figures(quick=quick) if takes_quick else figures()
    except Exception as exc:  # one benchmark's failure must not hide the others' figures
        return [{"work": name, "goal": f"not run: {type(exc).__name__}: {exc}"[:90], "pass": None}]
    return rows


def seconds(value: float | None) -> str:
    if value is None:
        return ""
    return f"{value * 1e3:.1f} ms" if value < 1 else f"{value:.2f} s"


def cells(row: dict[str, Any]) -> tuple[str, ...]:
    baseline = seconds(row.get("baseline"))
    if row.get("baseline_name"):
        baseline = f"{baseline} ({row['baseline_name']})".strip()
    ratio = row.get("ratio")
    met = {True: "yes", False: "NO", None: "-"}[row.get("pass")]
    return (
        str(row["work"]),
        seconds(row.get("ek")),
        baseline,
        "" if ratio is None else f"{ratio:.2f}x",
        str(row.get("goal", "")),
        met,
    )


def table(rows: list[dict[str, Any]]) -> str:
    lines = [COLUMNS, *map(cells, rows)]
    widths = [max(len(line[c]) for line in lines) for c in range(len(COLUMNS))]
    out = ["  ".join(cell.ljust(w) for cell, w in zip(line, widths)).rstrip() for line in lines]
    out.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a fast, rougher pass")
    parser.add_argument("--only", default="", help="comma-separated benchmark names (evaluate, cli_evaluate, ...)")
    args = parser.parse_args(argv)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    chosen = [f"bench_{n.strip().removeprefix('bench_')}" for n in args.only.split(",") if n.strip()]
    unknown = sorted(set(chosen) - set(BENCHMARKS))
    if unknown:
        parser.error(f"unknown benchmark {unknown[0]!r}; choose from {', '.join(BENCHMARKS)}")
    rows: list[dict[str, Any]] = []
    start = time.perf_counter()
    for name in chosen or BENCHMARKS:
        print(f"running {name} ...", file=sys.stderr, flush=True)
        rows.extend(collect(name, args.quick))
    load = os.getloadavg()[0]
    print(table(rows))
    print(
        f"\n{'quick pass, ' if args.quick else ''}{time.perf_counter() - start:.0f} s in all; load average {load:.2f} "
        f"on {os.cpu_count()} cores (ratios are measured side by side; absolute times are noisy)"
    )
    return 1 if any(row.get("pass") is False for row in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
