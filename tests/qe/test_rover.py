"""ROVER alignment, voting and agreement (ek.qe._rover via ek.qe)."""

from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ek
from ek.qe import AgreementSignal, RoverConsensus, RoverSlot, rover


def _levenshtein(a, b):
    """Plain O(len(a) * len(b)) edit distance, independent of ek's aligner."""
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i]
        for j, y in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y)))
        prev = cur
    return prev[-1]


# --------------------------------------------------------------------------
# hand-worked cases
# --------------------------------------------------------------------------


def test_spec_example_three_engines():
    c = rover(["the cat sat", "the cat sit", "the bat sat"])
    assert c.text == "the cat sat"
    assert c.tokens == ("the", "cat", "sat")
    assert c.agreement == (1.0, 2 / 3, 2 / 3)
    assert c.mean_agreement == pytest.approx(7 / 9)
    assert c.n_engines == 3
    assert [s.entries for s in c.slots] == [("the",) * 3, ("cat", "cat", "bat"), ("sat", "sit", "sat")]
    # slot score = 0.5 * votes/N + 0.5 * mean confidence (1.0 for plain strings)
    assert c.slots[1].score == pytest.approx(0.5 * 2 / 3 + 0.5)
    assert c.slots[1].vote_share == pytest.approx(2 / 3)


def test_agreement_signal_matches_spec():
    sig = AgreementSignal()
    assert round(sig(["the cat sat", "the cat sit", "the bat sat"]), 3) == 0.778
    assert sig.cost_tier == 3 and sig.name == "agreement"
    assert ek.get("signals", "agreement") is AgreementSignal


def test_insertion_gets_its_own_slot_and_null_votes():
    c = rover(["the cat sat", "the black cat sat", "the cat sat"])
    assert [s.entries for s in c.slots] == [("the", "the", "the"), (None, "black", None), ("cat",) * 3, ("sat",) * 3]
    # "black": 0.5/3 + 0.5*1 = 0.667 < NULL: 0.5*2/3 + 0.5*0.7 = 0.683
    assert c.slots[1].winner is None and c.slots[1].vote_share == pytest.approx(2 / 3)
    assert c.text == "the cat sat" and c.agreement == (1.0, 1.0, 1.0)


def test_null_conf_is_the_deletion_lever():
    hyps = ["a b", "a", "a"]
    # b: 0.5*(1/3) + 0.5*1 = 0.667; NULL: 0.5*(2/3) + 0.5*null_conf
    assert rover(hyps).text == "a"  # null_conf 0.7 -> 0.683 wins
    assert rover(hyps, null_conf=0.5).text == "a b"  # 0.583 loses
    assert rover(hyps, use_confidence=False).text == "a"  # 2 NULL votes beat 1


def test_later_engine_matches_an_earlier_insertion():
    c = rover(["a c", "a b c", "a b c"])
    assert [s.entries for s in c.slots] == [("a",) * 3, (None, "b", "b"), ("c",) * 3]
    assert c.text == "a b c"
    assert c.agreement == (1.0, 2 / 3, 1.0)


def test_confidence_weighting_and_tie_break():
    low_first = [[("x", 0.2)], [("y", 0.9)]]
    # x: 0.5*0.5 + 0.5*0.2 = 0.35, y: 0.5*0.5 + 0.5*0.9 = 0.70
    assert rover(low_first).text == "y"
    # frequency only: a 1-1 tie goes to the earlier engine
    assert rover(low_first, use_confidence=False).text == "x"
    # conf_weight=1 is confidence only
    assert rover([[("x", 0.6)], [("x", 0.6)], [("y", 0.9)]], conf_weight=1.0).text == "y"


def test_ocr_result_objects_and_custom_tokenizer():
    @dataclass
    class Ocr:
        text: str
        mean_confidence: float

    c = rover([Ocr("12.50 EUR", 0.4), Ocr("12.30 EUR", 0.9)])
    assert c.text == "12.30 EUR"  # same votes, higher confidence
    chars = rover(["abc", "abd", "abc"], tokenize=lambda h: [(ch, 1.0) for ch in h])
    assert chars.text == "a b c" and chars.agreement == (1.0, 1.0, 2 / 3)


def test_single_engine_and_empty_consensus():
    one = rover(["only one"])
    assert one.text == "only one" and one.mean_agreement == 1.0 and one.n_engines == 1
    assert RoverConsensus().mean_agreement == 1.0  # no engine: vacuous
    nothing = RoverConsensus(slots=(RoverSlot(("a", None, None)),), n_engines=3)
    assert nothing.mean_agreement == 0.0  # NULL won everywhere: agreed on nothing


def test_max_tokens_is_a_safety_cap_that_can_be_lifted():
    long = " ".join(f"w{i % 50}" for i in range(6000))
    with pytest.raises(ValueError, match=r"6000 tokens, more than max_tokens=5000.*max_tokens=None"):
        rover([long, long])
    c = rover([long, long], max_tokens=None)
    assert len(c.tokens) == 6000 and c.mean_agreement == 1.0


# --------------------------------------------------------------------------
# bad input
# --------------------------------------------------------------------------


def test_no_hypotheses():
    with pytest.raises(ValueError, match="got no hypotheses"):
        rover([])


def test_length_check_ignores_blank_hypotheses():
    c = rover(["a b c d e f g h i j k l", ""])  # a blank reading is not a 1-token one
    assert c.text == "a b c d e f g h i j k l" and c.mean_agreement == 0.5


def test_wildly_different_lengths():
    with pytest.raises(ValueError, match=r"wildly different lengths \(1 to 12 tokens"):
        rover(["a", "a b c d e f g h i j k l"])


def test_confidence_outside_unit_interval():
    with pytest.raises(ValueError, match=r"confidence 87; confidences must be numbers in \[0, 1\]"):
        rover([[("a", 87)], ["a"]])


def test_a_single_string_is_not_a_list_of_hypotheses():
    with pytest.raises(TypeError, match="takes a list of hypotheses"):
        rover("the cat sat")


def test_bad_weights_and_cap():
    with pytest.raises(ValueError, match=r"conf_weight must be a number in \[0, 1\]"):
        rover(["a"], conf_weight=2)
    with pytest.raises(ValueError, match="max_tokens must be a positive int or None"):
        rover(["a"], max_tokens=0)
    with pytest.raises(TypeError, match="hypothesis 0 is int"):
        rover([3])


# --------------------------------------------------------------------------
# properties
# --------------------------------------------------------------------------

_tokens = st.lists(st.sampled_from("abcde"), min_size=1, max_size=8)


@given(_tokens, st.integers(min_value=1, max_value=5))
def test_identical_hypotheses_give_themselves_with_full_agreement(tokens, n):
    c = rover([" ".join(tokens)] * n)
    assert list(c.tokens) == tokens
    assert c.agreement == (1.0,) * len(tokens) and c.mean_agreement == 1.0


@given(st.lists(_tokens, min_size=2, max_size=4))
@settings(max_examples=150)
def test_every_engine_reads_back_from_the_slots(hyps):
    c = rover([" ".join(h) for h in hyps])
    for k, h in enumerate(hyps):
        assert [s.entries[k] for s in c.slots if s.entries[k] is not None] == h
    assert all(0.0 < a <= 1.0 for a in c.agreement)
    assert 0.0 <= c.mean_agreement <= 1.0


@given(_tokens, _tokens)
@settings(max_examples=150)
def test_two_engine_alignment_is_an_optimal_edit_alignment(a, b):
    c = rover([" ".join(a), " ".join(b)])
    cost = sum(1 for s in c.slots if s.entries[0] != s.entries[1])
    assert cost == _levenshtein(a, b)


def test_confidence_may_be_any_real_number_type():
    # engines often report numpy float32 or other non-float reals; only the value matters
    from fractions import Fraction

    c = rover([[("12.50", Fraction(2, 5))], [("12.30", Fraction(9, 10))]])
    assert c.text == "12.30"
    with pytest.raises(ValueError, match=r"confidence Fraction\(3, 2\); confidences must be numbers in \[0, 1\]"):
        rover([[("a", Fraction(3, 2))], ["a"]])


# --------------------------------------------------------------------------
# blank engines (issue 11, item 5): a reading of nothing casts NULL votes
# --------------------------------------------------------------------------


@dataclass
class _Ocr:
    """An OCR-result-shaped hypothesis: ``.text`` (may be None), ``.blocks``, ``.mean_confidence``."""

    text: object
    blocks: tuple = ()
    mean_confidence: object = None


@dataclass
class _Block:
    text: str
    confidence: object = None
    level: str = "word"


def test_blank_engine_casts_null_votes():
    # per slot: token 1 vote of 2, conf 1 -> 0.5 * 1/2 + 0.5 * 1.0 = 0.75; NULL -> 0.5 * 1/2 + 0.5 * 0.7 = 0.6
    c = rover(["the cat", "   "])
    assert c.text == "the cat" and c.agreement == (0.5, 0.5) and c.n_engines == 2
    assert [s.entries for s in c.slots] == [("the", None), ("cat", None)]
    assert [s.score for s in c.slots] == pytest.approx([0.75, 0.75])
    assert c.mean_agreement < rover(["the cat", "the cat"]).mean_agreement == 1.0


@pytest.mark.parametrize("blank", [None, "", _Ocr(None), _Ocr(""), _Ocr("  ", mean_confidence=0.9)])
@pytest.mark.parametrize("where", [0, 1, 2])
def test_blank_engine_anywhere_is_fused_around(blank, where):
    hyps = ["the cat", "the cat"]
    hyps.insert(where, blank)
    c = rover(hyps)
    # token: 2 votes of 3 -> 0.5 * 2/3 + 0.5 = 0.833 beats NULL 0.5 * 1/3 + 0.5 * 0.7 = 0.517
    assert c.text == "the cat" and c.agreement == pytest.approx((2 / 3, 2 / 3))
    assert all(s.entries[where] is None for s in c.slots)


def test_agreement_signal_with_a_blank_engine():
    assert AgreementSignal()(["the cat", None]) == 0.5
    assert AgreementSignal()([_Ocr(None), _Ocr(None)]) == 0.0  # two engines agreed on nothing


def test_all_blank_and_blank_tokenize():
    c = rover([None, ""])
    assert c.text == "" and c.tokens == () and c.mean_agreement == 0.0
    c = rover(["x", "the cat"], tokenize=lambda h: [] if h == "x" else [(t, 1.0) for t in h.split()])
    assert c.agreement == (0.5, 0.5)


def test_ocr_text_must_be_a_string_or_none():
    with pytest.raises(TypeError, match=r"hypothesis 0 has .text of type int; an OCR result's text must be a str"):
        rover([_Ocr(12), "a"])


# --------------------------------------------------------------------------
# word-level confidences (issue 11, item 6)
# --------------------------------------------------------------------------


def _words(text, *confs, mean=None, line=None):
    blocks = tuple(_Block(w, c) for w, c in zip(text.split(), confs))
    if line is not None:
        blocks += (_Block(text, line, level="line"),)
    if mean is None:
        known = [c for c in confs if c is not None]
        mean = sum(known) / len(known) if known else None
    return _Ocr(text, blocks, mean)


def test_word_confidences_decide_the_slot_in_any_order():
    # by mean confidence "bat" would win (0.845 > 0.6); by the words' own, "cat" (0.9 > 0.7) does
    a = _words("the cat", 0.3, 0.9)
    b = _words("the bat", 0.99, 0.7)
    for hyps in ([a, b], [b, a]):
        c = rover(hyps, conf_weight=1.0)
        assert c.text == "the cat"
        assert c.slots[1].score == pytest.approx(0.9) and c.slots[0].score == pytest.approx((0.3 + 0.99) / 2)


def test_word_confidence_falls_back_to_mean_then_neutral():
    no_word_conf = _words("the cat", 0.9, None, mean=0.2)  # "cat" takes the mean, 0.2
    assert rover([no_word_conf, _words("the bat", 0.9, 0.5)], conf_weight=1.0).text == "the bat"
    text_only = _Ocr("the cat")  # no blocks, no mean: neutral 1.0
    assert rover([text_only, _words("the bat", 0.9, 0.5)], conf_weight=1.0).text == "the cat"


def test_words_win_over_lines_when_both_are_reported():
    a = _words("the cat", 0.3, 0.9, line=0.05)
    b = _words("the bat", 0.99, 0.7, line=0.95)
    assert rover([b, a], conf_weight=1.0).slots[1].score == pytest.approx(0.9)


def test_blocks_that_miss_tokens_are_aligned():
    # the blocks skip "sat"; "the" and "cat" keep their own confidences, "sat" takes the mean
    a = _Ocr("the cat sat", (_Block("the", 0.4), _Block("cat", 0.8)), mean_confidence=0.6)
    c = rover([a, a], conf_weight=1.0)
    assert [s.score for s in c.slots] == pytest.approx([0.4, 0.8, 0.6])


def test_word_confidences_of_an_ocracy_result():
    base = pytest.importorskip("ocracy.base")
    a = base.OcrResult(
        text="the cat",
        blocks=[
            base.TextBlock("the", confidence=0.3, level="word"),
            base.TextBlock("cat", confidence=0.9, level="word"),
        ],
    )
    b = base.OcrResult(
        text="the bat",
        blocks=[
            base.TextBlock("the", confidence=0.99, level="word"),
            base.TextBlock("bat", confidence=0.7, level="word"),
        ],
    )
    assert rover([b, a], conf_weight=1.0).text == rover([a, b], conf_weight=1.0).text == "the cat"


def test_word_confidence_outside_unit_interval():
    with pytest.raises(ValueError, match=r"hypothesis 0 gives token 'cat' confidence 87"):
        rover([_words("the cat", 0.9, 87), "the cat"])
