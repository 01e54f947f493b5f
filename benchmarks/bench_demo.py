"""``ek demo`` against ``ek demo --engines``: wall and CPU seconds side by side, and their ratio.

Issue 28, item 5: ``ek demo``, the README's first command, should take at
most 10 s on a 2-core machine at load 2 or less with every extra installed;
by default its engine section reads six bundled lines, and ``--engines``
reads all 54 bundled pages and lines, as the demo did before. Both run in
this one process, through ``ek.__main__.main`` (their output discarded), one
after the other, so they share the machine's load; a first, untimed ``ek
demo`` imports the modules and loads the models, which the timed runs then
share. ``--cold`` also times ``python -m ek demo`` in a fresh interpreter:
the command as a user types it, interpreter start, imports and model loading
included, which is the figure the 10 s goal is about. CPU seconds count every
thread of the process and the Tesseract processes it waits for. Measure on a
quiet machine; the load is printed before and after.

    python benchmarks/bench_demo.py [--repeat 1] [--cold]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable

GOAL_S = 10.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1, help="runs of each command (the fastest is kept)")
    parser.add_argument("--cold", action="store_true", help="also time `python -m ek demo` in a fresh interpreter")
    args = parser.parse_args()

    from ek.__main__ import main as ek_main
    from ek.cli._demo._fleet import ENGINES
    from ek.registry import check_requirements

    ready = [e for e in ENGINES if check_requirements(engine=e)["ok"]]
    print(f"engines ready: {', '.join(ready) or 'none'}; {os.cpu_count()} CPUs; load: {_load()}")

    def run(argv: list[str]) -> Callable[[], None]:
        def call() -> None:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                code = ek_main(argv)
            if code != 0:
                sys.exit(f"ek {' '.join(argv)} exited {code}")

        return call

    run(["demo"])()  # imports and model loading, shared by the timed runs
    default = _best(run(["demo"]), args.repeat)
    every = _best(run(["demo", "--engines"]), args.repeat)
    print(f"{'':<24}{'wall s':>9}{'CPU s':>9}")
    for label, (wall, cpu) in (("ek demo", default), ("ek demo --engines", every)):
        print(f"{label:<24}{wall:>9.2f}{cpu:>9.2f}")
    print(
        f"ek demo --engines / ek demo: {every[0] / default[0]:.1f}x the wall time, "
        f"{every[1] / default[1]:.1f}x the CPU time"
    )
    if args.cold:
        wall, cpu = _cold()
        verdict = "met" if wall <= GOAL_S else "NOT met"
        print(
            f"python -m ek demo, fresh interpreter: {wall:.2f} s wall, {cpu:.2f} s CPU (goal <= {GOAL_S:g} s: {verdict})"
        )
    print(f"load: {_load()}")


def _best(call: Callable[[], None], repeat: int) -> tuple[float, float]:
    """The fastest of ``repeat`` runs of ``call``: (wall seconds, CPU seconds of that run)."""
    best = (float("inf"), float("inf"))
    for _ in range(repeat):
        cpu = _cpu()
        wall = time.perf_counter()
        call()
        run = (time.perf_counter() - wall, _cpu() - cpu)
        best = min(best, run)
    return best


def _cold() -> tuple[float, float]:
    cpu = _cpu()
    wall = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "ek", "demo"], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"python -m ek demo exited {done.returncode}: {done.stderr.strip()}")
    return time.perf_counter() - wall, _cpu() - cpu


def _cpu() -> float:
    """CPU seconds so far: this process's threads and the child processes it has waited for."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f} (1, 5, 15 min)"


if __name__ == "__main__":
    main()
