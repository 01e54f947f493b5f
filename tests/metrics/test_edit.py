"""ek.metrics._edit on long texts: the distance in one band is the exact distance (issue 31)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import Levenshtein

from ek import evaluate
from ek._align import upper_bound
from ek.metrics import _edit

_WORDS = ["lorem", "ipsum", "dolor", "sit", "amet", "elit", "sed", "do", "eiusmod", "tempor"]


def _page(rng: random.Random, n_chars: int) -> str:
    lines, size = [], 0
    while size < n_chars:
        lines.append(" ".join(rng.choice(_WORDS) for _ in range(10)))
        size += len(lines[-1]) + 1
    return "\n".join(lines)


def _noisy(rng: random.Random, text: str, rate: float) -> str:
    out = []
    for ch in text:
        r = rng.random()
        if r >= rate:
            out.append(ch)
        elif r < rate / 3:
            out.append(rng.choice("xyz ") + ch)  # an insertion
        elif r < 2 * rate / 3:
            out.append(rng.choice("xyz"))  # a substitution (or none, for x, y, z)
    return "".join(out)  # the rest of rate: dropped


def test_cer_of_a_long_noisy_page_is_the_whole_text_distance():
    rng = random.Random(7)
    gold = _page(rng, 60_000)
    pred = _noisy(rng, gold, 0.02)
    report = evaluate([(pred, gold)], metric="cer")
    assert report.scores[0].detail["edits"] == Levenshtein.distance(gold, pred)
    assert report.aggregate == Levenshtein.distance(gold, pred) / len(gold)


def test_cer_and_wer_of_a_long_line_with_three_edits():
    rng = random.Random(8)
    gold = _page(rng, 1_000_000).replace("\n", " ")
    n = len(gold)
    pred = gold[: n // 4] + "#" + gold[n // 4 + 1 : n // 2] + gold[n // 2 + 1 : 3 * n // 4] + "%" + gold[3 * n // 4 :]
    cer = evaluate([(pred, gold)], metric="cer").scores[0].detail
    assert cer["edits"] == 3 and cer["ref_len"] == n
    wer = evaluate([(pred, gold)], metric="wer").scores[0].detail
    assert wer["edits"] == Levenshtein.distance(gold.split(), pred.split())


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), rate=st.sampled_from([0.0, 0.001, 0.02, 0.2, 0.9]), words=st.booleans())
def test_the_banded_distance_equals_the_full_one(seed, rate, words):
    rng = random.Random(seed)
    gold = _page(rng, 30_000)  # over 4,096 words too: the banded path
    pred = _noisy(rng, gold, rate)
    g, p = (gold.split(), pred.split()) if words else (gold, pred)
    exact = Levenshtein.distance(g, p)
    assert upper_bound(p, g) >= exact
    assert _edit._hinted(p, g) == exact
