"""ek._files speed: read and join GOLD and PRED JSONL files of 100,000 records (~60 characters each).

Goal (issue 12, the input layer of ``ek evaluate``): read both files and
join them by id in well under a second, so the whole command stays under
3 s. The baseline is the least any reader does: ``json.loads`` on every
line of both files and a dict lookup per gold id, with no checks; the ratio
shows what ek's checks, defaults and bookkeeping cost on top.

    python benchmarks/bench_files.py
"""

from __future__ import annotations

import json
import random
import tempfile
import time
import timeit
from pathlib import Path

from ek._files import read_pair

N, LENGTH, REPEATS = 100_000, 60, 5


def best_of(fn) -> float:
    """Least CPU time of REPEATS runs (CPU time, so other processes on a shared machine count less)."""
    return min(timeit.repeat(fn, number=1, repeat=REPEATS, timer=time.process_time))


def write_corpus(root: Path) -> tuple[Path, Path]:
    rng = random.Random(0)
    letters = "abcdefghijklmnopqrstuvwxyz     "
    gold, pred = root / "gold.jsonl", root / "pred.jsonl"
    with gold.open("w") as g, pred.open("w") as p:
        for i in range(N):
            text = "".join(rng.choice(letters) for _ in range(LENGTH))
            noisy = list(text)
            noisy[rng.randrange(LENGTH)] = "x"
            g.write(json.dumps({"id": f"doc{i:06d}", "text": text, "slice": f"s{i % 5}"}) + "\n")
            p.write(json.dumps({"id": f"doc{i:06d}", "text": "".join(noisy)}) + "\n")
    return gold, pred


def bare(gold: Path, pred: Path) -> list:
    golds = [json.loads(line) for line in gold.read_text().splitlines()]
    by_id = {r["id"]: r["text"] for r in map(json.loads, pred.read_text().splitlines())}
    return [(by_id.get(r["id"], ""), r["text"]) for r in golds]


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        gold, pred = write_corpus(Path(tmp))
        joined = read_pair(gold, pred)
        assert joined.cases() == [(p, g, s) for (p, g), s in zip(bare(gold, pred), joined.slices)]
        ours = best_of(lambda: read_pair(gold, pred))
        base = best_of(lambda: bare(gold, pred))
    print(f"{N:,} JSONL pairs of {LENGTH} characters, least CPU time of {REPEATS} runs")
    print(f"  ek._files.read_pair (read, check, join): {ours:6.3f} s   goal < 1 s: {'met' if ours < 1 else 'MISSED'}")
    print(f"  bare json.loads per line + dict join:    {base:6.3f} s")
    print(f"  ratio ek / bare: {ours / base:.2f}")


if __name__ == "__main__":
    main()
