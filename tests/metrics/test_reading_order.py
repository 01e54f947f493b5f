"""Flexible character accuracy and bag-of-words error: hand-worked cases, reading-order invariants, corpus sums.

The FCA cases below are worked by hand from the definitions in
`ek.metrics.reading_order`: errors are the edits inside matched pieces plus
whatever stays unmatched, line breaks are free but the whitespace at a cut
counts, and accuracy is ``1 - errors / gold chars``. The paper's own
scenarios (Fig. 4) are in tests/metrics/test_flexible.py.
"""

from __future__ import annotations

import doctest
import random

import jiwer
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ek
from ek.metrics import _flexible, reading_order
from ek.metrics.reading_order import BagOfWordsMetric, FlexibleCharacterMetric

FCA = FlexibleCharacterMetric()
BOW = BagOfWordsMetric()

LEFT = ["In the beginning the", "committee met twice", "to settle the budget", "for the coming year."]
RIGHT = ["Members then voted", "on the new harbour", "and the road works", "before adjourning."]


def test_module_examples_run():
    assert doctest.testmod(reading_order).failed == 0


@pytest.mark.parametrize(
    "pred, gold, edits",
    [
        ("def\nabc", "abc\ndef", 0),  # swapped lines cost nothing
        ("Hello\nWorld", "Hello World", 1),  # a line split in two: the break is free, the space at the cut is not
        ("sat dawn\nThe bat", "The cat\nsat down", 2),  # one substitution in each line, any order
        ("xyz", "abc", 3),  # nothing matches: plain edit distance
        ("second line", "first line\nsecond line", 10),  # a dropped line: its characters are deletions
        ("noise\na line", "a line", 5),  # an extra line: its characters are insertions
        ("", "", 0),
    ],
)
def test_hand_worked_flexible_character_accuracy(pred, gold, edits):
    s = FCA(pred, gold)
    ref_len = len(gold.replace("\n", ""))
    assert (s.detail["edits"], s.detail["ref_len"]) == (edits, ref_len)
    assert s.value == pytest.approx(1 - edits / ref_len if ref_len else 1 - edits)
    assert s.metric == "fca" and "higher_is_better" not in s.detail  # direction is the class's


def test_a_match_worse_than_max_line_error_is_set_aside():
    # "abcd" inside "abXY" has 2 edits in 4 units: kept at 0.5, set aside at 0.25
    gold, pred = "abcd\nefgh", "efgh\nabXY"
    assert FCA(pred, gold).detail["edits"] == 2
    assert FlexibleCharacterMetric(max_line_error=0.25)(pred, gold).detail["edits"] == 2  # set aside, then compared
    with pytest.raises(ValueError, match="max_line_error must be a share between 0 and 1"):
        FlexibleCharacterMetric(max_line_error=2)


def test_two_columns_read_across_score_well_on_fca_and_bow_but_not_on_cer():
    gold = "\n".join(LEFT + RIGHT)  # column by column
    pred = "\n".join(f"{a}   {b}" for a, b in zip(LEFT, RIGHT))  # row by row across the gutter
    cer = ek.score(pred, gold, metric="cer").value
    assert cer > 0.5
    assert FCA(pred, gold).detail["edits"] == 4 * 3  # only the gutter's three spaces on each row
    assert BOW(pred, gold).value == 0.0
    # one misread character is one error more for FCA, whatever the order
    noisy = pred.replace("harbour", "harbonr")
    assert FCA(noisy, gold).detail["edits"] == 4 * 3 + 1
    assert BOW(noisy, gold).detail["edits"] == 1


def test_bag_of_words_counts_words_not_positions():
    s = BOW("b a a c", "a b d a")
    assert (s.detail["matched"], s.detail["edits"], s.detail["ref_len"], s.detail["pred_len"]) == (3, 1, 4, 4)
    assert BOW("a b c d e", "a b").detail["edits"] == 3  # extra words
    assert BOW("", "a b").value == 1.0
    assert BOW("x", "").value == 1.0  # an empty gold counts each extra word


LINES = st.lists(st.text(alphabet="ab c", min_size=1, max_size=8).map(str.strip).filter(bool), max_size=6)


@settings(max_examples=150, deadline=None)
@given(lines=LINES, seed=st.integers(0, 1000))
def test_any_line_order_of_the_same_text_is_perfect(lines, seed):
    shuffled = lines[:]
    random.Random(seed).shuffle(shuffled)
    gold, pred = "\n".join(lines), "\n".join(shuffled)
    assert FCA(pred, gold).detail["edits"] == 0
    assert BOW(pred, gold).detail["edits"] == 0


@settings(max_examples=150, deadline=None)
@given(pred=st.text(alphabet="ab c\n", max_size=24), gold=st.text(alphabet="ab c\n", max_size=24))
def test_fca_errors_are_bounded_and_bow_never_exceeds_wer(pred, gold):
    s = FCA(pred, gold)
    assert 0 <= s.detail["edits"] <= len(pred.replace("\n", "")) + len(gold.replace("\n", ""))
    if gold.split() and pred.split():
        out = jiwer.process_words(" ".join(gold.split()), " ".join(pred.split()))  # words of any whitespace
        assert BOW(pred, gold).detail["edits"] <= out.substitutions + out.deletions + out.insertions


def test_corpus_value_sums_statistics_then_divides_once():
    pairs = [("abc", "abc"), ("xyz", "abcdefghij")]
    report = ek.evaluate(pairs, metric="fca")
    assert report.aggregate == pytest.approx(1 - (0 + 10) / (3 + 10))  # not the mean of 1.0 and 0.0
    assert FCA.compute({"edits": 10, "ref_len": 13}) == report.aggregate
    assert BOW.compute({"edits": 1, "ref_len": 4}) == 0.25
    assert FlexibleCharacterMetric.statistics == BagOfWordsMetric.statistics == ("edits", "ref_len")
    assert (FlexibleCharacterMetric.higher_is_better, BagOfWordsMetric.higher_is_better) == (True, False)


def test_normalize_reaches_both_measures():
    assert ek.score("ſein", "sein", metric="fca", normalize="long_s").value == 1.0
    assert ek.score("SEIN", "sein", metric="bow", normalize="lower").value == 0.0


def test_non_text_is_refused():
    with pytest.raises(TypeError, match="flexible character accuracy compares strings, but pred is list"):
        FCA(["a"], "a")
    with pytest.raises(TypeError, match="bag-of-words error compares strings, but gold is int"):
        BOW("a", 3)


# -- the fast matching against the literal one (issue 19) -------------------------------------------


def _reference_flexible_edits(pred, gold, max_error, candidates=_flexible._CANDIDATES):
    """The matching rule of the module doc done literally: the ``candidates`` pieces of highest bound all scored."""
    from rapidfuzz.distance import LCSseq, Levenshtein
    from rapidfuzz.fuzz import partial_ratio_alignment

    def bound(g, p):
        common = LCSseq.similarity(g, p)
        return 200 * common / max(1, min(len(g), len(p)) + common)

    def refine(s, t, start, end):
        best = (Levenshtein.distance(s, t[start:end]), start - end, start, end)
        for a in range(max(0, start - 3), min(start + 3, end - 1) + 1):
            for b in range(max(a + 1, end - 3), min(len(t), end + 3) + 1):
                best = min(best, (Levenshtein.distance(s, t[a:b]), a - b, a, b))
        return best[0], best[2], best[3]

    def best_window(g, pieces):
        for k, p in enumerate(pieces):
            if p == g:
                return 0, k, 0, len(g), 0, len(p)
        for k, p in enumerate(pieces):
            if g in p:
                at = p.find(g)
                return 0, k, 0, len(g), at, at + len(g)
        best, best_key = None, (-1.0, 0)
        ranked = sorted(range(len(pieces)), key=lambda k: (-bound(g, pieces[k]), k))
        for k in sorted(ranked[:candidates]):
            p = pieces[k]
            a = partial_ratio_alignment(g, p)
            if a is None or a.src_end <= a.src_start or a.dest_end <= a.dest_start:
                continue
            key = (a.score, max(a.src_end - a.src_start, a.dest_end - a.dest_start))
            if key > best_key:
                best, best_key = (k, a), key
        if best is None:
            return None
        k, a = best
        p = pieces[k]
        if a.src_end - a.src_start == len(g):
            dist, p1, p2 = refine(g, p, a.dest_start, a.dest_end)
            return dist, k, 0, len(g), p1, p2
        dist, g1, g2 = refine(p[a.dest_start : a.dest_end], g, a.src_start, a.src_end)
        return dist, k, g1, g2, a.dest_start, a.dest_end

    queue = sorted((((k,), g) for k, g in enumerate(gold)), key=lambda item: -len(item[1]))
    pieces, edits, set_aside = list(pred), 0, []
    while queue and pieces and len(queue) + len(pieces) > 2:
        place, g = queue.pop(0)
        found = best_window(g, pieces)
        if found is None or found[0] > max_error * max(found[3] - found[2], found[5] - found[4]):
            set_aside.append((place, g))
            continue
        dist, k, g1, g2, p1, p2 = found
        edits += dist
        p = pieces.pop(k)
        pieces[k:k] = [r for r in (p[:p1], p[p2:]) if r]
        rests = [(place + (side,), r) for side, r in enumerate((g[:g1], g[g2:])) if r]
        queue = sorted(queue + rests, key=lambda item: -len(item[1]))
    left_gold = "".join(g for _, g in sorted(set_aside + queue))
    return edits + Levenshtein.distance(left_gold, "".join(pieces)), sum(map(len, gold))


PIECES = st.lists(st.text(alphabet="aab c", min_size=1, max_size=9).map(str.strip).filter(bool), max_size=7)


@settings(max_examples=300, deadline=None)
@given(pred=PIECES, gold=PIECES, max_error=st.sampled_from([0.0, 0.25, 0.5, 1.0]))
def test_fast_matching_equals_the_literal_one_on_any_lines(pred, gold, max_error):
    assert _flexible.flexible_edits(pred, gold, max_error) == _reference_flexible_edits(pred, gold, max_error)


@settings(max_examples=150, deadline=None)
@given(gold=PIECES, seed=st.integers(0, 10**6), max_error=st.sampled_from([0.25, 0.5, 1.0]))
def test_fast_matching_equals_the_literal_one_on_reordered_noisy_lines(gold, seed, max_error):
    rng = random.Random(seed)
    pred = ["".join(ch if rng.random() > 0.15 else rng.choice("abcd") for ch in g).strip() or "x" for g in gold]
    rng.shuffle(pred)
    if len(pred) > 2 and rng.random() < 0.5:
        pred = [f"{pred[0]} {pred[1]}", *pred[2:]]  # two lines read as one
    assert _flexible.flexible_edits(pred, gold, max_error) == _reference_flexible_edits(pred, gold, max_error)


def test_a_page_of_lines_matches_as_the_literal_rule_does():
    rng = random.Random(3)
    words = ["der", "ſein", "und", "über", "nach", "Zeit", "Gott", "ſo"]
    gold = [" ".join(rng.choice(words) for _ in range(rng.randint(3, 9))) for _ in range(60)]
    pred = ["".join(ch if rng.random() > 0.05 else rng.choice("eaoil") for ch in g) for g in gold]
    pred = pred[30:] + pred[:30]  # the second column read first
    pred[3:5] = [f"{pred[3]} {pred[4]}"]
    assert _flexible.flexible_edits(pred, gold, 0.5) == _reference_flexible_edits(pred, gold, 0.5)


@settings(max_examples=200, deadline=None)
@given(pred=PIECES, gold=PIECES, candidates=st.sampled_from([1, 2, 3]))
def test_the_search_scores_only_the_pieces_of_highest_bound(pred, gold, candidates):
    with pytest.MonkeyPatch.context() as patch:  # a cap that binds on a few pieces, as 32 does on a page
        patch.setattr(_flexible, "_CANDIDATES", candidates)
        assert _flexible.flexible_edits(pred, gold, 0.5) == _reference_flexible_edits(pred, gold, 0.5, candidates)


@settings(max_examples=300, deadline=None)
@given(
    g=st.text(alphabet="abcde ", min_size=1, max_size=12),
    pieces=st.lists(st.text(alphabet="abcde ", min_size=1, max_size=12), min_size=1, max_size=5),
)
def test_the_common_subsequence_bound_is_never_below_the_partial_ratio(g, pieces):
    from rapidfuzz.fuzz import partial_ratio

    _, bounds = _flexible._Pieces(pieces)._bounds(g)
    for k, p in enumerate(pieces):
        assert partial_ratio(g, p) <= bounds[k] + 1e-9


def test_pieces_sharing_no_character_are_set_aside_unless_any_window_is_accepted():
    assert FCA("xyz\nuvw", "abc\ndef").detail["edits"] == 6  # set aside, then one edit distance
    loose = FlexibleCharacterMetric(max_line_error=1.0)
    assert loose("xyz\nuvw", "abc\ndef").detail["edits"] == 6  # matched at full cost, one line each


def test_bag_of_words_with_unicode_words():
    unicode_bow = BagOfWordsMetric(words="unicode")
    s = unicode_bow("dog. the cat,", "The cat (dog)")
    assert (s.detail["matched"], s.detail["edits"], s.detail["ref_len"]) == (2, 1, 3)  # "The" vs "the"
    assert BOW("dog. the cat,", "The cat (dog)").detail["matched"] == 0
    with pytest.raises(ValueError, match="BagOfWordsMetric words must be 'whitespace' or 'unicode'"):
        BagOfWordsMetric(words="x")
