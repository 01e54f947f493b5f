"""``ek evaluate`` speed on 100,000 JSONL pairs of ~60 characters, against jiwer's own CLI.

Goals (issue 33, item 2; issue 12 before it):

* ``ek evaluate GOLD PRED --metric cer`` end to end (a fresh process:
  reading, CER, intervals with 1,000 replicates, the printed table) at
  least 10x faster than ``jiwer --cer`` on the same text as two line files
  (ek's wall time at most 0.1x jiwer's);
* the intervals alone (1,000 replicates over 100,000 items) under 1 s;
* ``--html`` for 100,000 items under 5 s (end to end, so it includes all of
  the above plus aligning every item for the confusion table).

Each command runs REPEATS times in a subprocess; the best wall time is the
figure (the least disturbed by the other processes of a shared machine),
with the CPU time of that run beside it, and the peak memory (largest
resident set) of ek's runs. ``main`` also prints where the command's
time goes (startup imports, reading, scoring, intervals). Needs jiwer (``pip install jiwer``). `figures`
returns the rows ``run_all.py`` prints.

    python benchmarks/bench_cli_evaluate.py
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

N, LENGTH, REPEATS = 100_000, 60, 3
GOAL = 0.1  # ek's wall time over jiwer's
LETTERS = "abcdefghijklmnopqrstuvwxyz     "

# The least a Python command can do for the same job, as a second baseline: read both JSONL files
# in one json call each, pair them by position (no id join, no checks of any kind), CER with
# rapidfuzz's batch call on every core, and a normal-approximation interval for the ratio (no
# bootstrap). What ek does beyond it (checks, the join, 1,000 replicates, the report) is its overhead.
FLOOR = """
import json, sys
from operator import itemgetter
import numpy as np
from rapidfuzz.distance import Levenshtein
from rapidfuzz.process import cpdist

def texts(path):
    with open(path, encoding="utf-8") as f:
        return list(map(itemgetter("text"), json.loads("[" + f.read().strip().replace("\\n", ",") + "]")))

gold, pred = texts(sys.argv[1]), texts(sys.argv[2])
edits = cpdist(gold, pred, scorer=Levenshtein.distance, workers=-1).astype(np.float64)
length = np.fromiter(map(len, gold), dtype=np.float64, count=len(gold))
cer = edits.sum() / length.sum()
half = 1.96 * np.sqrt(((edits - cer * length) ** 2).sum()) / length.sum()
print(f"{cer:.6f} [{cer - half:.6f}, {cer + half:.6f}]")
"""


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


def timed(argv: list, repeats: int = REPEATS) -> tuple[float, float, str, float]:
    """Best wall time of ``repeats`` runs, that run's CPU time and output, and the runs' peak memory (MB)."""
    best = (float("inf"), 0.0, "", 0.0)
    peak = 0.0
    for _ in range(repeats):
        start = time.perf_counter()
        with tempfile.TemporaryFile("w+") as out:
            child = subprocess.Popen(argv, stdout=out, stderr=subprocess.DEVNULL, env=ENV)
            _, status, usage = os.wait4(child.pid, 0)  # this child's own CPU time and largest resident set
            wall = time.perf_counter() - start
            child.returncode = os.waitstatus_to_exitcode(status)
            if child.returncode:
                raise subprocess.CalledProcessError(child.returncode, argv)
            out.seek(0)
            stdout = out.read()
        peak = max(peak, usage.ru_maxrss / 1024)  # kB on Linux
        if wall < best[0]:
            best = (wall, usage.ru_utime + usage.ru_stime, stdout, 0.0)
    return best[0], best[1], best[2], peak


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


def phases(paths: dict) -> dict[str, float]:
    """Where the command's time goes, each phase best of REPEATS in this process (numpy loaded first).

    ``startup`` is a fresh interpreter importing what the command imports
    (its CLI modules, numpy and rapidfuzz), with nothing read.
    """
    import ek
    from ek._files import read_pair

    code = "import ek.cli, ek.cli._commands._evaluate, numpy, rapidfuzz.process"
    best: dict[str, float] = {"startup": min(_wall([sys.executable, "-c", code]) for _ in range(REPEATS))}
    for _ in range(REPEATS):
        start = time.perf_counter()
        joined = read_pair(paths["gold.jsonl"], paths["pred.jsonl"])
        read = time.perf_counter()
        report = ek.evaluate(joined.cases(), metric="cer", ids=joined.ids)
        scored = time.perf_counter()
        report.interval()
        done = time.perf_counter()
        for name, seconds in (("reading", read - start), ("scoring", scored - read), ("intervals", done - scored)):
            best[name] = min(best.get(name, float("inf")), seconds)
    return best


def _wall(argv: list) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, env=ENV)
    return time.perf_counter() - start


def measure(repeats: int = REPEATS, html: bool = True) -> dict[str, Any]:
    """Every figure of the benchmark, in seconds (and MB), the CER checked against jiwer's first."""
    with tempfile.TemporaryDirectory() as tmp:
        paths = write_corpus(Path(tmp))
        ek_cmd = [sys.executable, "-m", "ek", "evaluate", str(paths["gold.jsonl"]), str(paths["pred.jsonl"])]
        ek_cmd += ["--metric", "cer"]
        jiwer_cmd = [
            os.path.join(os.path.dirname(sys.executable), "jiwer"),
            "--cer",
            "-r",
            str(paths["ref.txt"]),
            "-h",
            str(paths["hyp.txt"]),
        ]
        floor_cmd = [sys.executable, "-c", FLOOR, str(paths["gold.jsonl"]), str(paths["pred.jsonl"])]
        ek_wall, ek_cpu, ek_out, peak = timed(ek_cmd, repeats)
        jiwer_wall, jiwer_cpu, jiwer_out, _ = timed(jiwer_cmd, repeats)
        floor_wall, floor_cpu, floor_out, _ = timed(floor_cmd, repeats)
        html_wall, html_cpu, _, _ = (
            timed(ek_cmd + ["--html", str(Path(tmp) / "report.html")], repeats) if html else (0, 0, "", 0)
        )
        alone = intervals_alone(paths)
        parts = phases(paths) if html else {}
    ek_cer = float(next(line.split()[2] for line in ek_out.splitlines() if line.startswith("all ")))
    assert abs(ek_cer - float(jiwer_out)) < 1e-4, (ek_cer, jiwer_out)  # the same figure
    assert abs(ek_cer - float(floor_out.split()[0])) < 1e-4, (ek_cer, floor_out)
    return {
        "ek": (ek_wall, ek_cpu),
        "jiwer": (jiwer_wall, jiwer_cpu),
        "floor": (floor_wall, floor_cpu),
        "html": (html_wall, html_cpu),
        "intervals": alone,
        "peak_mb": peak,
        "phases": parts,
    }


def figures(quick: bool = False) -> list[dict[str, Any]]:
    """One row per goal: work, ek and baseline seconds, ratio, goal, pass (``quick``: one run each, no page)."""
    m = measure(1 if quick else REPEATS, html=not quick)
    ek_wall, jiwer_wall = m["ek"][0], m["jiwer"][0]
    rows = [
        {
            "work": f"ek evaluate CLI, {N // 1000}k pairs + intervals",
            "ek": ek_wall,
            "baseline": jiwer_wall,
            "baseline_name": "jiwer --cer CLI",
            "ratio": ek_wall / jiwer_wall,
            "goal": f"<= {GOAL:.2f}x",
            "pass": ek_wall / jiwer_wall <= GOAL,
        },
        {
            "work": f"the floor command (FLOOR), {N // 1000}k pairs",
            "ek": m["floor"][0],
            "baseline": jiwer_wall,
            "baseline_name": "jiwer --cer CLI",
            "ratio": m["floor"][0] / jiwer_wall,
            "goal": "(for information)",
            "pass": None,
        },
        {
            "work": f"intervals alone, {N // 1000}k items",
            "ek": m["intervals"],
            "goal": "<= 1 s",
            "pass": m["intervals"] < 1,
        },
    ]
    if not quick:
        rows.append(
            {
                "work": f"ek evaluate --html, {N // 1000}k",
                "ek": m["html"][0],
                "goal": "<= 5 s",
                "pass": m["html"][0] < 5,
            }
        )
    return rows


def main() -> None:
    m = measure()
    (ek_wall, ek_cpu), (jiwer_wall, jiwer_cpu), (html_wall, html_cpu) = m["ek"], m["jiwer"], m["html"]
    from ek._util import threads

    print(
        f"{N:,} pairs of ~{LENGTH} characters (best of {REPEATS}; wall / CPU seconds); ek on {threads()} threads "
        f"(EK_THREADS, else every core), load average {os.getloadavg()[0]:.2f}"
    )
    print(f"ek evaluate --metric cer (+ 95% intervals): {ek_wall:6.2f} / {ek_cpu:5.2f}")
    print(f"jiwer --cer:                                {jiwer_wall:6.2f} / {jiwer_cpu:5.2f}")
    print(
        f"ek / jiwer:                                 {ek_wall / jiwer_wall:6.3f}x wall, {ek_cpu / jiwer_cpu:.3f}x CPU "
        f"(jiwer {jiwer_wall / ek_wall:.1f}x slower; goal <= {GOAL}x)"
    )
    floor_wall, floor_cpu = m["floor"]
    print(
        f"floor (json, cpdist, normal interval): {floor_wall:6.2f} / {floor_cpu:5.2f}   "
        f"{floor_wall / jiwer_wall:.3f}x jiwer; ek is {ek_wall / floor_wall:.2f}x the floor"
    )
    bound = floor_wall + m["intervals"]
    print(
        f"floor + ek's intervals alone:          {bound:6.2f}          {bound / jiwer_wall:.3f}x jiwer "
        "(the least a command with ek's bootstrap could take)"
    )
    print(f"peak memory of ek evaluate:                 {m['peak_mb']:6.0f} MB per {N:,} pairs")
    print(f"intervals alone (1,000 replicates):         {m['intervals']:6.2f}            goal < 1 s")
    print(f"ek evaluate --html:                         {html_wall:6.2f} / {html_cpu:5.2f}   goal < 5 s")
    print("where the command's time goes (best of each, in one process; startup in a fresh one):")
    for name, seconds in m["phases"].items():
        print(f"  {name:<10} {seconds:6.3f} s  ({seconds / ek_wall:4.0%} of the command's wall time)")


if __name__ == "__main__":
    main()
