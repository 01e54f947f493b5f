"""``ek evaluate`` speed on 100,000 JSONL pairs of ~60 characters, against jiwer's own CLI.

Goals (issue 12):

* ``ek evaluate GOLD PRED`` end to end (a fresh process: reading, CER,
  intervals with 1,000 replicates, the printed table) under 3 s, and at
  least 5x faster than ``jiwer --cer`` on the same text as two line files;
* the intervals alone (1,000 replicates over 100,000 items) under 1 s;
* ``--html`` for 100,000 items under 5 s (end to end, so it includes all of
  the above plus aligning every item for the confusion table).

Each command runs REPEATS times in a subprocess; the best wall time is the
figure (the least disturbed by the other processes of a shared machine),
with the CPU time of that run beside it. Needs jiwer (``pip install jiwer``).

    python benchmarks/bench_cli_evaluate.py
"""

from __future__ import annotations

import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

N, LENGTH, REPEATS = 100_000, 60, 3
LETTERS = "abcdefghijklmnopqrstuvwxyz     "


# An installed package runs from compiled bytecode; with PYTHONDONTWRITEBYTECODE set (as on some CI
# images) every run would compile ek's source again, which no user pays. Both tools get this environment.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def write_corpus(root: Path) -> dict:
    """The same text as JSONL (ek) and as two line files (jiwer)."""
    rng = random.Random(0)
    paths = {name: root / name for name in ("gold.jsonl", "pred.jsonl", "ref.txt", "hyp.txt")}
    with (
        paths["gold.jsonl"].open("w") as g,
        paths["pred.jsonl"].open("w") as p,
        paths["ref.txt"].open("w") as r,
        paths["hyp.txt"].open("w") as h,
    ):
        for i in range(N):
            ref = "".join(rng.choice(LETTERS) for _ in range(LENGTH)).strip() or "x"
            hyp = "".join(c if rng.random() > 0.05 else rng.choice(LETTERS) for c in ref).strip() or "y"
            g.write(json.dumps({"id": f"doc-{i:06d}", "text": ref}) + "\n")
            p.write(json.dumps({"id": f"doc-{i:06d}", "text": hyp}) + "\n")
            r.write(ref + "\n")
            h.write(hyp + "\n")
    return paths


def timed(argv: list) -> tuple[float, float, str]:
    """Best wall time of REPEATS runs, that run's CPU time, and its output."""
    best = (float("inf"), 0.0, "")
    for _ in range(REPEATS):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, text=True, check=True, env=ENV)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        if wall < best[0]:
            best = (wall, cpu, done.stdout)
    return best


def intervals_alone(paths: dict) -> float:
    """Seconds for Report.interval on a fresh report of N items (numpy already loaded), best of REPEATS."""
    import ek
    from ek._files import read_pair

    joined = read_pair(paths["gold.jsonl"], paths["pred.jsonl"])
    import numpy  # noqa: F401 - its import is not the interval's cost

    best = float("inf")
    for _ in range(REPEATS):
        report = ek.evaluate(joined.cases(), metric="cer", ids=joined.ids)
        start = time.perf_counter()
        report.interval()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        paths = write_corpus(Path(tmp))
        ek_cmd = [sys.executable, "-m", "ek", "evaluate", str(paths["gold.jsonl"]), str(paths["pred.jsonl"])]
        jiwer_cmd = [
            os.path.join(os.path.dirname(sys.executable), "jiwer"),
            "--cer",
            "-r",
            str(paths["ref.txt"]),
            "-h",
            str(paths["hyp.txt"]),
        ]
        ek_wall, ek_cpu, ek_out = timed(ek_cmd)
        jiwer_wall, jiwer_cpu, jiwer_out = timed(jiwer_cmd)
        html_wall, html_cpu, _ = timed(ek_cmd + ["--html", str(Path(tmp) / "report.html")])
        alone = intervals_alone(paths)
    ek_cer = float(next(line.split()[2] for line in ek_out.splitlines() if line.startswith("all ")))
    assert abs(ek_cer - float(jiwer_out)) < 1e-4, (ek_cer, jiwer_out)  # the same figure
    print(f"{N:,} pairs of ~{LENGTH} characters (best of {REPEATS}; wall / CPU seconds)")
    print(f"ek evaluate (CER + 95% intervals):  {ek_wall:6.2f} / {ek_cpu:5.2f}   goal < 3 s")
    print(f"jiwer --cer:                        {jiwer_wall:6.2f} / {jiwer_cpu:5.2f}")
    print(f"ratio jiwer / ek:                   {jiwer_wall / ek_wall:6.1f}x        goal >= 5x")
    print(f"intervals alone (1,000 replicates): {alone:6.2f}            goal < 1 s")
    print(f"ek evaluate --html:                 {html_wall:6.2f} / {html_cpu:5.2f}   goal < 5 s")


if __name__ == "__main__":
    main()
