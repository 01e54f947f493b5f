"""evaluate() over 20,000 OCR-like pairs against a bare rapidfuzz loop.

Goal (issue 2): metric="cer" within 4x of a loop of
``rapidfuzz.distance.Levenshtein.distance`` over the same string pairs, and
metric="wer" within 3x of the same loop over pre-split token lists. Both
aggregates must equal jiwer's global CER/WER exactly.

    python benchmarks/bench_evaluate.py
"""

from __future__ import annotations

import random
import statistics
import string
import time

import jiwer
from rapidfuzz.distance import Levenshtein

import ek

N, LENGTH, NOISE, ROUNDS = 20_000, 60, 0.06, 11


def make_pairs(seed: int = 0) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    vocab = ["".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(2, 9))) for _ in range(3000)]
    pairs = []
    for _ in range(N):
        words: list[str] = []
        while sum(len(w) + 1 for w in words) < LENGTH:
            words.append(rng.choice(vocab))
        gold = " ".join(words)
        pred = []
        for ch in gold:
            r = rng.random()
            if r < NOISE / 3:
                continue  # deletion
            if r < 2 * NOISE / 3:
                pred.append(rng.choice(string.ascii_lowercase))  # substitution
                continue
            pred.append(ch)
            if r < NOISE:
                pred.append(rng.choice(string.ascii_lowercase))  # insertion
        pairs.append(("".join(pred), gold))
    return pairs


def timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def paired_ratio(ek_fn, base_fn) -> tuple[float, float, float]:
    """Median of per-round ratios, each round timing both back to back.

    Interleaving keeps a slow spell on a shared machine from landing on one
    side only; the median discards the odd outlier round.
    """
    ratios, eks, bases = [], [], []
    for _ in range(ROUNDS):
        b, e = timed(base_fn), timed(ek_fn)
        bases.append(b)
        eks.append(e)
        ratios.append(e / b)
    return statistics.median(ratios), min(eks), min(bases)


def main() -> None:
    pairs = make_pairs()
    token_pairs = [(p.split(), g.split()) for p, g in pairs]
    distance = Levenshtein.distance
    preds, golds = [p for p, _ in pairs], [g for _, g in pairs]

    r_cer, t_cer, t_chars = paired_ratio(
        lambda: ek.evaluate(pairs, metric="cer"), lambda: [distance(p, g) for p, g in pairs]
    )
    r_wer, t_wer, t_tokens = paired_ratio(
        lambda: ek.evaluate(pairs, metric="wer"), lambda: [distance(p, g) for p, g in token_pairs]
    )

    cer = ek.evaluate(pairs, metric="cer").aggregate
    wer = ek.evaluate(pairs, metric="wer").aggregate
    jcer = jiwer.cer(reference=golds, hypothesis=preds)
    jwer = jiwer.wer(reference=golds, hypothesis=preds)

    print(
        f"{N} pairs, ~{LENGTH} chars, ~{NOISE:.0%} character noise; "
        f"{ROUNDS} interleaved rounds (best time, median per-round ratio)"
    )
    print(f"rapidfuzz loop, strings : {t_chars * 1e3:8.1f} ms")
    print(f"ek.evaluate(metric=cer) : {t_cer * 1e3:8.1f} ms   ratio {r_cer:.2f}x (goal <= 4x)")
    print(f"rapidfuzz loop, tokens  : {t_tokens * 1e3:8.1f} ms")
    print(f"ek.evaluate(metric=wer) : {t_wer * 1e3:8.1f} ms   ratio {r_wer:.2f}x (goal <= 3x)")
    print(f"CER ek {cer!r} vs jiwer {jcer!r}: {'equal' if cer == jcer else 'DIFFERENT'}")
    print(f"WER ek {wer!r} vs jiwer {jwer!r}: {'equal' if wer == jwer else 'DIFFERENT'}")


if __name__ == "__main__":
    main()
