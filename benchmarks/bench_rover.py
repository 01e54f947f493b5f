"""ROVER on 3 hypotheses of 20,000 tokens: time and peak memory.

Target (issue 4): under 3 s, in bounded memory. The hypotheses are noisy
copies of one 20,000-token text (about 10% substitutions, insertions and
deletions each), like three OCR engines reading the same pages; a second run
fuses three unrelated texts, the worst case for the aligner. Run:

    python benchmarks/bench_rover.py
"""

from __future__ import annotations

import random
import time
import tracemalloc

from ek.qe import rover

N_TOKENS = 20_000
TARGET_S = 3.0


def _noisy(tokens: list, vocab: list, rng: random.Random, rate: float = 0.1) -> list:
    out = []
    for t in tokens:
        r = rng.random()
        if r < rate / 3:
            continue  # deletion
        if r < 2 * rate / 3:
            out.append(rng.choice(vocab))  # substitution
        elif r < rate:
            out.extend((t, rng.choice(vocab)))  # insertion
        else:
            out.append(t)
    return out


def _run(label: str, hyps: list) -> None:
    start = time.perf_counter()
    c = rover(hyps, max_tokens=None)
    seconds = time.perf_counter() - start
    tracemalloc.start()
    rover(hyps, max_tokens=None)
    peak = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    lengths = [len(h.split()) for h in hyps]
    verdict = "OK" if seconds < TARGET_S else "TOO SLOW"
    print(
        f"{label:<10} lengths={lengths} time={seconds:.2f}s (target < {TARGET_S:.0f}s: {verdict}) "
        f"peak traced memory={peak:.1f} MB slots={len(c.slots)} mean agreement={c.mean_agreement:.3f}"
    )


def main() -> None:
    rng = random.Random(0)
    vocab = [f"w{i}" for i in range(5000)]
    text = [rng.choice(vocab) for _ in range(N_TOKENS)]
    _run("noisy", [" ".join(_noisy(text, vocab, rng)) for _ in range(3)])
    _run("unrelated", [" ".join(rng.choice(vocab) for _ in range(N_TOKENS)) for _ in range(3)])


if __name__ == "__main__":
    main()
