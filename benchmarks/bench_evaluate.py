"""evaluate() over 20,000 OCR-like pairs against a bare rapidfuzz loop.

Goals (issue 33): metric="cer" within 1.3x of a loop of
``rapidfuzz.distance.Levenshtein.distance`` over the same string pairs, and
metric="wer" within 1.1x of the same loop over the pairs split into words
(``distance(p.split(), g.split())``: the loop a user writes on the strings
ek is given). The ratio to a loop over token lists split beforehand is
printed too, for information. Both aggregates must equal jiwer's global
CER/WER exactly. `figures` returns the rows `run_all.py` prints.

ek scores a CER batch this large on every core (rapidfuzz's own threads,
`ek._util.threads`); the bare loop is one thread. So each metric is also
timed with ``EK_THREADS=1``, ek pinned to one thread as the loop is: that
row is for information (its goal is the default's, not a pass/fail).

    python benchmarks/bench_evaluate.py
"""

from __future__ import annotations

import contextlib
import os
import random
import statistics
import string
import time
from collections.abc import Iterator
from typing import Any

import jiwer
from rapidfuzz.distance import Levenshtein

import ek
from ek import _util

N, LENGTH, NOISE, ROUNDS = 20_000, 60, 0.06, 11
GOALS = {"cer": 1.3, "wer": 1.1}


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


def timed(fn: Any) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def paired_ratio(ek_fn: Any, base_fn: Any, rounds: int = ROUNDS) -> tuple[float, float, float]:
    """Median of per-round ratios, each round timing both back to back.

    Interleaving keeps a slow spell on a shared machine from landing on one
    side only; the median discards the odd outlier round.
    """
    ratios, eks, bases = [], [], []
    for _ in range(rounds):
        b, e = timed(base_fn), timed(ek_fn)
        bases.append(b)
        eks.append(e)
        ratios.append(e / b)
    return statistics.median(ratios), min(eks), min(bases)


@contextlib.contextmanager
def one_thread() -> Iterator[None]:
    """``EK_THREADS=1`` for the block (ek's own threads off), then the setting it had."""
    before = os.environ.get("EK_THREADS")
    os.environ["EK_THREADS"] = "1"
    try:
        yield
    finally:
        if before is None:
            del os.environ["EK_THREADS"]
        else:
            os.environ["EK_THREADS"] = before


def _check_figures(pairs: list[tuple[str, str]]) -> None:
    """ek's corpus CER and WER equal jiwer's, bit for bit, before anything is timed."""
    golds, preds = [g for _, g in pairs], [p for p, _ in pairs]
    for metric, theirs in (("cer", jiwer.cer), ("wer", jiwer.wer)):
        ours, reference = ek.evaluate(pairs, metric=metric).aggregate, theirs(reference=golds, hypothesis=preds)
        if ours != reference:
            raise AssertionError(f"{metric}: ek {ours!r} but jiwer {reference!r}")


def figures(quick: bool = False) -> list[dict[str, Any]]:
    """One row per goal: work, ek and baseline seconds, ratio, goal, pass (``quick``: 3 rounds)."""
    rounds = 3 if quick else ROUNDS
    pairs = make_pairs()
    _check_figures(pairs)
    distance = Levenshtein.distance
    cases = {
        "cer": (lambda: [distance(p, g) for p, g in pairs], "rapidfuzz loop"),
        "wer": (lambda: [distance(p.split(), g.split()) for p, g in pairs], "rapidfuzz loop, split"),
    }
    rows = []
    for metric, (loop, baseline_name) in cases.items():
        for pinned in (False, True):
            with one_thread() if pinned else contextlib.nullcontext():
                ratio, t_ek, t_base = paired_ratio(lambda m=metric: ek.evaluate(pairs, metric=m), loop, rounds)
            rows.append(
                {
                    "work": f"ek.evaluate {metric.upper()}, {N // 1000}k pairs" + (", EK_THREADS=1" if pinned else ""),
                    "ek": t_ek,
                    "baseline": t_base,
                    "baseline_name": baseline_name,
                    "ratio": ratio,
                    "goal": f"<= {GOALS[metric]:.1f}x" + (" (info)" if pinned else ""),
                    "pass": None if pinned else ratio <= GOALS[metric],
                }
            )
    return rows


def main() -> None:
    pairs = make_pairs()
    token_pairs = [(p.split(), g.split()) for p, g in pairs]
    distance = Levenshtein.distance
    r_presplit, _, t_tokens = paired_ratio(
        lambda: ek.evaluate(pairs, metric="wer"), lambda: [distance(p, g) for p, g in token_pairs]
    )
    print(
        f"{N} pairs, ~{LENGTH} chars, ~{NOISE:.0%} character noise; "
        f"{ROUNDS} interleaved rounds (best time, median per-round ratio); CER and WER equal jiwer's"
    )
    for row in figures():
        met = {True: "met", False: "NOT met", None: "for information"}[row["pass"]]
        print(
            f"{row['baseline_name']:<42}: {row['baseline'] * 1e3:8.1f} ms\n"
            f"{row['work']:<42}: {row['ek'] * 1e3:8.1f} ms   ratio {row['ratio']:.2f}x (goal {row['goal']}, {met})"
        )
    print(f"{_util.threads()} threads for ek by default (EK_THREADS, else every core)")
    print(f"rapidfuzz loop, tokens split beforehand: {t_tokens * 1e3:8.1f} ms (WER ratio {r_presplit:.2f}x)")


if __name__ == "__main__":
    main()
