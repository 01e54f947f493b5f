"""ek._stretch and ek._align.distance: the exact distance of long pairs block by block, and the work limit."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import Levenshtein

from ek import _align, _stretch

ALPHABETS = ["ab", "abc", "acgt", "abcdefgh", "abcdefghijklmnopqrstuvwxyz "]


def _text(rng: random.Random, n: int, alphabet: str, kind: str) -> str:
    if kind == "words":  # few distinct words: every run recurs
        vocab = ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 6))) for _ in range(rng.randint(3, 300))]
        return " ".join(rng.choice(vocab) for _ in range(n // 3))[:n]
    if kind == "repeat":  # one piece over and over, slightly changed
        piece = "".join(rng.choice(alphabet) for _ in range(rng.randint(5, 400)))
        return "".join(c if rng.random() > 0.01 else rng.choice(alphabet) for c in (piece * (n // len(piece) + 1))[:n])
    return "".join(rng.choice(alphabet) for _ in range(n))


def _edited(rng: random.Random, text: str, alphabet: str, rate: float, moves: int) -> str:
    out = []
    for ch in text:
        r = rng.random()
        if r < rate / 3:
            continue
        out.append(rng.choice(alphabet) if r < 2 * rate / 3 else ch)
        if r < rate:
            out.append(rng.choice(alphabet))
    edited = "".join(out)
    for _ in range(moves):  # a passage read elsewhere
        a, size = rng.randrange(len(edited)), rng.randint(10, 3000)
        piece, edited = edited[a : a + size], edited[:a] + edited[a + size :]
        b = rng.randrange(len(edited) + 1)
        edited = edited[:b] + piece + edited[b:]
    return edited


@pytest.fixture
def small_blocks(monkeypatch):
    """Blocks of 1,024 letters and no pair computed whole: the checks decide on texts that run fast."""
    monkeypatch.setattr(_align, "_CONFIRM", 0)
    monkeypatch.setattr(_stretch, "BLOCK", 1024)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    seed=st.integers(0, 10**6),
    n=st.integers(3_000, 15_000),
    alphabet=st.sampled_from(ALPHABETS),
    kind=st.sampled_from(["random", "words", "repeat"]),
    rate=st.sampled_from([0.001, 0.01, 0.03, 0.1, 0.3]),
    moves=st.integers(0, 2),
)
def test_the_distance_equals_rapidfuzzs_plain_distance_on_adversarial_texts(
    small_blocks, seed, n, alphabet, kind, rate, moves
):
    rng = random.Random(seed)
    gold = _text(rng, n, alphabet, kind)
    pred = _edited(rng, gold, alphabet, rate, moves)
    truth = Levenshtein.distance(gold, pred)
    assert _align.distance(pred, gold) == truth
    assert _align.distance(gold, pred) == truth
    words_g, words_p = gold.split(), pred.split()  # WER's units: blocks of 256 words, anchors of 4
    assert _align.distance(words_p, words_g) == Levenshtein.distance(words_g, words_p)
    rows, exact = _align._rows(gold, pred, work=math.inf)
    assert exact and _align._edits(rows) == truth and _spells(rows, gold, pred)
    rows, exact = _align._rows(gold, pred, work=10**6)  # not asked to be exact: whole only up to 10^6
    assert _align._edits(rows) >= truth and _spells(rows, gold, pred)
    assert _align._edits(rows) == truth or not exact


def _spells(rows, gold: str, pred: str) -> bool:
    """Whether opcode rows cover both sides in order, equal runs equal and other rows of the sizes their tag says."""
    g_at = p_at = 0
    for tag, g1, g2, p1, p2 in rows:
        if (g1, p1) != (g_at, p_at) or (tag == "equal" and gold[g1:g2] != pred[p1:p2]):
            return False
        if (tag == "delete" and p2 != p1) or (tag == "insert" and g2 != g1):
            return False
        g_at, p_at = g2, p2
    return (g_at, p_at) == (len(gold), len(pred))


def _page(rng: random.Random, n: int) -> str:
    words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9))) for _ in range(3000)]
    lines, size = [], 0
    while size < n:
        lines.append(" ".join(rng.choice(words) for _ in range(9)))
        size += len(lines[-1]) + 1
    return "\n".join(lines)[:n]


def test_a_noisy_page_is_checked_block_by_block_and_exact(small_blocks):
    rng = random.Random(4)
    gold = _page(rng, 20_000)
    pred = _edited(rng, gold, "abcdefghijklmnopqrstuvwxyz", 0.02, 0)
    anchored = _align._anchored((gold, pred))
    found = _stretch.blocks(gold, pred, anchored, 16)
    assert found.checked and len(found.cuts) > 10
    assert found.total == Levenshtein.distance(gold, pred) == _align.distance(pred, gold)
    for (g1, p1), (g2, p2), edits in zip(found.cuts, found.cuts[1:], found.edits):
        assert Levenshtein.distance(gold[g1:g2], pred[p1:p2]) == edits
    rows = _stretch.block_rows(gold, pred, found)
    assert _align._edits(rows) == found.total
    assert "".join(gold[g1:g2] for _, g1, g2, _, _ in rows) == gold


def test_a_moved_passage_is_not_trusted_to_the_blocks(small_blocks):
    rng = random.Random(5)
    gold = _page(rng, 20_000)
    pred = gold[:5_000] + gold[9_000:15_000] + gold[5_000:9_000] + gold[15_000:]  # 4,000 letters moved
    found = _stretch.blocks(gold, pred, _align._anchored((gold, pred)), 16)
    assert not found.checked  # a run of 4,000 deletions is past the 256 checked
    assert _align.distance(pred, gold) == Levenshtein.distance(gold, pred)


def test_a_long_page_scores_its_exact_distance_with_the_default_blocks():
    rng = random.Random(6)
    gold = _page(rng, 300_000)  # 300,000 letters x about 7,700 edits: past the one-band bound
    pred = _edited(rng, gold, "abcdefghijklmnopqrstuvwxyz ", 0.02, 0)
    bound = _align.upper_bound(pred, gold)
    assert len(gold) * bound > _align._CONFIRM
    found = _stretch.blocks(gold, pred, _align._anchored((gold, pred)), 16)
    assert found.checked
    truth = Levenshtein.distance(gold, pred, score_hint=bound)  # rapidfuzz alone, exact whatever the hint
    assert _align.distance(pred, gold) == truth
    words_g, words_p = gold.split(), pred.split()
    assert _align.distance(words_p, words_g) == Levenshtein.distance(words_g, words_p)


def test_past_the_work_limit_an_unchecked_pair_is_refused_in_one_line(small_blocks):
    rng = random.Random(5)
    gold = _page(rng, 20_000)
    pred = gold[:5_000] + gold[9_000:15_000] + gold[5_000:9_000] + gold[15_000:]
    with _align.work_limit(1e6), pytest.raises(ValueError) as caught:
        _align.distance(pred, gold)  # the 10,000 letters past the common ends, anchored with 12,000 edits
    assert str(caught.value) == (
        "aligning 10,000 units with up to 12,000 edits exactly is 1.2e+08 units x edits of work, over the limit "
        "of 1.0e+06; raise it with --max-align-work (ek._align.work_limit in Python) to score it."
    )
    with _align.work_limit(1e6), pytest.raises(ValueError, match="over the limit of 1.0e"):
        _align.align(pred, gold, exact=True)
    assert _align.distance(pred, gold) == Levenshtein.distance(gold, pred)  # the limit ends with the block


@pytest.mark.parametrize("bad", [0, -1, "5e11", True, math.nan])
def test_a_work_limit_that_is_not_a_positive_number_is_refused(bad):
    with pytest.raises(ValueError) as caught, _align.work_limit(bad):
        pass
    assert str(caught.value) == f"--max-align-work must be a positive number of units x edits, got {bad!r}."


def test_ek_evaluate_refuses_past_max_align_work_in_one_line_and_scores_below_it(tmp_path, capsys):
    from ek.__main__ import main

    rng = random.Random(7)
    gold = _page(rng, 30_000)
    pred = _edited(rng, gold, "abcdefghijklmnopqrstuvwxyz", 0.05, 0)
    (tmp_path / "g.txt").write_text(gold, encoding="utf-8")
    (tmp_path / "p.txt").write_text(pred, encoding="utf-8")
    args = ["evaluate", str(tmp_path / "g.txt"), str(tmp_path / "p.txt"), "--measures", "cer"]
    assert main([*args, "--max-align-work", "1e6"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("ek evaluate: error: aligning ") and "\n" not in err
    assert err.endswith(
        "units x edits of work, over the limit of 1.0e+06; raise it with --max-align-work "
        "(ek._align.work_limit in Python) to score it."
    )
    assert main([*args, "--max-align-work", "1e9", "--json", str(tmp_path / "r.json")]) == 0
    assert '"edits": ' + str(Levenshtein.distance(gold, pred)) in (tmp_path / "r.json").read_text()
    assert main([*args, "--max-align-work", "none"]) == 2
    assert "--max-align-work must be a number of units x edits above 0, got none" in capsys.readouterr().err


def test_the_flag_help_gives_the_limit_in_force():
    from ek.cli._commands._options import Scoring

    line = next(line for line in (Scoring.__doc__ or "").splitlines() if "max_align_work" in line)
    assert line.strip() == "max_align_work (N): refuse a text that needs over N units x edits to align (default: 5e11)"
    assert float("5e11") == _align.MAX_WORK
