"""Issue 20 items 4-6 on the inputs the issue describes: wall time and peak memory, for whatever tree runs it.

Each case runs in a fresh interpreter under ``/usr/bin/time -v`` (its
"Maximum resident set size" is the peak reported), with a cap: a case still
running at its cap, or past 2 GB RSS, is killed and reported as such. Run it
with each tree's interpreter to get before and after figures side by side:

    /work/wt/before/.venv/bin/python benchmarks/bench_issue20_bounds.py
    /work/wt/audit/.venv/bin/python benchmarks/bench_issue20_bounds.py

Cases:

* ``scheduler`` (item 4): ``ek evaluate GOLD PRED --scheduler ADDR`` against a
  live ``distributed.Scheduler`` on 127.0.0.1 that has no worker (cap 120 s).
* ``folder`` (item 5): a document folder whose predictions hold a FIFO and a
  symlink to /dev/zero (cap 60 s or 2 GB); ``fifo`` and ``dev-zero`` hold one each.
* ``hocr-unclosed`` (item 6): 1.5 MB of ``<span class='ocr_line'>x `` never closed.
* ``page-flat``, ``page-nested``, ``page-table`` (item 6): 1.2-1.3 MB PAGE files
  whose ReadingOrder names 8,000 regions (side by side, each inside the one
  before, or 8,000 references to one table of 8,000 cells).
* ``teds``, ``grits`` (item 6): two unrelated 100x100 tables of 300-character
  cells (cap 240 s each); ``teds-limit``, ``grits-limit``: the same with
  50-character cells, 500,000 characters a table (the default max_chars).

Pass case names to run only those (``--list`` prints them).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_readers import hocr_unclosed, page_with_order  # the generators bench_readers times

RSS_CAP_KB = 2 * 1024 * 1024
CAPS = {"scheduler": 120, "folder": 60, "fifo": 60, "dev-zero": 60}
READ = "import sys; from ek.ocr.formats import read_document; print(len(read_document(sys.argv[1]).lines))"
TABLES = """
import sys
from ek.metrics.tables import GritsMetric, Table, TedsMetric

def grid(seed, chars):
    return [[(f"{seed}{r:03d}{c:03d}" * 50)[:chars] for c in range(100)] for r in range(100)]

name, chars = sys.argv[1].split("-")[0], 50 if sys.argv[1].endswith("-limit") else 300
metric = {"teds": TedsMetric, "grits": GritsMetric}[name]()
print(metric(Table.from_grid(grid(1, chars)), Table.from_grid(grid(2, chars))).value)
"""
SCHEDULER = """
import asyncio, sys
import distributed

async def main():
    async with distributed.Scheduler(host="127.0.0.1", port=0, dashboard_address=None) as s:
        print(s.address, flush=True)
        await asyncio.sleep(3600)

asyncio.run(main())
"""


def main(argv: list[str]) -> None:
    cases = {**{n: _folder_case for n in ("folder", "fifo", "dev-zero")}, "scheduler": _scheduler_case}
    cases |= {n: _reader_case for n in ("hocr-unclosed", "page-flat", "page-nested", "page-table")}
    cases |= {n: _table_case for n in ("teds", "grits", "teds-limit", "grits-limit")}
    if argv[:1] == ["--list"]:
        print(" ".join(cases))
        return
    chosen = argv or list(cases)
    print(f"python {sys.executable}; ek from {_ek_path()}")
    print(f"load average before: {_load()}")
    print(f"{'case':14} {'input':>8} {'exit':>9} {'seconds':>8} {'peak MB':>8}  output")
    for name in chosen:
        with tempfile.TemporaryDirectory() as tmp:
            size, argv_, cleanup = cases[name](name, Path(tmp))
            try:
                r = _timed(argv_, CAPS.get(name, 240))
            finally:
                cleanup()
        print(f"{name:14} {size:>8} {r['exit']:>9} {r['seconds']:8.1f} {r['peak_mb']:8.0f}  {r['output'][:140]}")
    print(f"load average after: {_load()}")


def _reader_case(name: str, tmp: Path):
    data = hocr_unclosed() if name == "hocr-unclosed" else page_with_order(name.split("-")[1])
    path = tmp / (name + (".hocr" if name.startswith("hocr") else ".xml"))
    path.write_bytes(data)
    return f"{len(data) / 1e6:.2f} MB", [sys.executable, "-c", READ, str(path)], lambda: None


def _table_case(name: str, tmp: Path):
    return "100x100", [sys.executable, "-c", TABLES, name], lambda: None


def _folder_case(name: str, tmp: Path):
    gt, ocr = tmp / "gt", tmp / "ocr"
    gt.mkdir(), ocr.mkdir()
    for stem, text in (("a", "cat"), ("b", "dog"), ("c", "emu")):
        (gt / f"{stem}.txt").write_text(text)
    (ocr / "a.txt").write_text("cut")
    if name in ("folder", "fifo"):
        os.mkfifo(ocr / "b.txt")
    if name in ("folder", "dev-zero"):
        os.symlink("/dev/zero", ocr / "c.txt")
    return "3 docs", [sys.executable, "-m", "ek", "evaluate", str(gt), str(ocr)], lambda: None


def _scheduler_case(name: str, tmp: Path):
    (tmp / "g.jsonl").write_text('{"id": "a", "reference": "cat"}\n{"id": "b", "reference": "dog"}\n')
    (tmp / "p.jsonl").write_text('{"id": "a", "prediction": "cut"}\n{"id": "b", "prediction": "dog"}\n')
    sched = subprocess.Popen(
        [sys.executable, "-c", SCHEDULER], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    address = sched.stdout.readline().strip()
    argv = [sys.executable, "-m", "ek", "evaluate", str(tmp / "g.jsonl"), str(tmp / "p.jsonl"), "--scheduler", address]

    def cleanup() -> None:
        sched.kill()
        sched.wait()

    return "2 items", argv, cleanup


def _timed(argv: list[str], cap: float) -> dict:
    """Run argv under /usr/bin/time -v; kill it (SIGKILL) at cap seconds or past 2 GB RSS."""
    start = time.monotonic()
    timer = subprocess.Popen(["/usr/bin/time", "-v", *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    child, killed = None, ""
    while timer.poll() is None:
        time.sleep(0.2)
        child = child or _child_of(timer.pid)
        if child and not killed:
            if time.monotonic() - start > cap:
                killed = f"killed at {cap} s"
            elif _rss_kb(child) > RSS_CAP_KB:
                killed = f"killed past 2 GB RSS at {time.monotonic() - start:.0f} s"
            if killed:
                os.kill(child, signal.SIGKILL)
    seconds = time.monotonic() - start
    out, err = timer.communicate()
    peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", err)
    exit_ = re.search(r"Exit status: (\d+)", err)
    said = [ln for ln in err[: err.find("\tCommand being timed")].splitlines() if ln and not ln.startswith("Command ")]
    kept = [ln.strip() for ln in out.splitlines() if re.search(r"skipped|missing|^\s+/|^[\d.]+$", ln)]
    text = killed or " | ".join(kept + said[-1:])
    return {
        "exit": "killed" if killed else (exit_.group(1) if exit_ else "?"),
        "seconds": seconds,
        "peak_mb": int(peak.group(1)) / 1024 if peak else float("nan"),
        "output": text,
    }


def _child_of(pid: int) -> int | None:
    try:
        kids = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return None
    return int(kids[0]) if kids else None


def _rss_kb(pid: int) -> int:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    found = re.search(r"VmRSS:\s+(\d+) kB", status)
    return int(found.group(1)) if found else 0


def _ek_path() -> str:
    code = "import ek, os; print(os.path.dirname(ek.__file__))"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


if __name__ == "__main__":
    main(sys.argv[1:])
