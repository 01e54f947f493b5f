"""Tests for ek.metrics.strings (CER/WER) against jiwer and by hand."""

import random
import string

import jiwer
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ek.metrics import _edit
from ek.metrics.strings import StringMetric

CER, WER = StringMetric("cer"), StringMetric("wer")


def _noisy_pairs(n, seed):
    rng = random.Random(seed)
    words = ["the", "cat", "sat", "on", "a", "mat", "invoice", "total", "due", "2026", "acme"]
    pairs = []
    for _ in range(n):
        gold = " ".join(rng.choice(words) for _ in range(rng.randint(1, 9)))
        pred = []
        for ch in gold:
            r = rng.random()
            if r < 0.05:
                continue
            pred.append(rng.choice(string.ascii_lowercase) if r < 0.1 else ch)
            if r > 0.96:
                pred.append(rng.choice(string.ascii_lowercase + " "))
        pairs.append((" ".join("".join(pred).split()), gold))
    return pairs


def test_hand_worked_cer_and_wer():
    s = CER("kitten", "sitting")
    assert (s.detail["edits"], s.detail["ref_len"]) == (3, 7)
    assert s.value == pytest.approx(3 / 7)
    assert s.metric == "cer" and StringMetric.higher_is_better is False and s.detail["higher_is_better"] is False
    w = WER("hello wrld", "hello world")
    assert (w.detail["edits"], w.detail["ref_len"], w.value) == (1, 2, 0.5)


def test_rate_can_exceed_one():
    s = CER("abcdef", "ab")
    assert s.value == 2.0


def test_empty_reference_counts_insertions_like_jiwer():
    assert CER("", "").value == 0.0
    assert CER("abc", "").value == 3.0 == jiwer.cer(reference="", hypothesis="abc")
    assert WER("one two", "").value == 2.0
    assert CER("", "abc").value == 1.0


def test_corpus_rate_is_summed_not_averaged():
    scores = [CER("kitten", "sitting"), CER("ab", "ab")]
    assert CER.aggregate(scores) == pytest.approx(3 / 9)
    assert CER.aggregate(scores) != pytest.approx(sum(s.value for s in scores) / 2)


@pytest.mark.parametrize("seed", range(3))
def test_per_item_and_corpus_match_jiwer(seed):
    pairs = _noisy_pairs(300, seed)
    preds, golds = [p for p, _ in pairs], [g for _, g in pairs]
    cer_scores = CER.score_many(preds, golds)
    wer_scores = WER.score_many(preds, golds)
    for (p, g), c, w in zip(pairs, cer_scores, wer_scores):
        assert c.value == pytest.approx(jiwer.cer(reference=g, hypothesis=p))
        assert w.value == pytest.approx(jiwer.wer(reference=g, hypothesis=p))
    assert CER.aggregate(cer_scores) == jiwer.cer(reference=golds, hypothesis=preds)
    assert WER.aggregate(wer_scores) == jiwer.wer(reference=golds, hypothesis=preds)


def _jiwer_counts(pred, gold, *, unit):
    """(hits, substitutions, deletions, insertions) as jiwer counts them."""
    process = jiwer.process_characters if unit == "cer" else jiwer.process_words
    out = process(reference=gold, hypothesis=pred)
    return out.hits, out.substitutions, out.deletions, out.insertions


KEYS = ("hits", "substitutions", "deletions", "insertions")
BACKENDS = sorted(_edit.backends())


@pytest.fixture(params=BACKENDS)
def backend(request, monkeypatch):
    """Run the test with one edit backend in use (the metrics pick `_edit.active()`)."""
    monkeypatch.setattr(_edit, "_active", [_edit.backends()[request.param]])
    return request.param


def test_both_backends_are_available():
    # rapidfuzz is a core dependency; the pure-Python path must be testable beside it
    assert BACKENDS == ["python", "rapidfuzz"]


def test_alignment_detail_matches_jiwer_counts(backend):
    for unit in ("cer", "wer"):
        metric = StringMetric(unit, alignment=True)
        for pred, gold in _noisy_pairs(100, 7):
            d = metric(pred, gold).detail
            assert tuple(d[k] for k in KEYS) == _jiwer_counts(pred, gold, unit=unit), (unit, pred, gold)
            assert d["edits"] == (WER if unit == "wer" else CER)(pred, gold).detail["edits"]


@pytest.mark.parametrize(
    ("unit", "pred", "gold", "counts"),
    [
        ("wer", "a b", "a b c d", (2, 0, 2, 0)),  # two gold words missed
        ("cer", "abcdef", "ab", (2, 0, 0, 4)),  # four extra characters
        ("cer", "ab", "abcdef", (2, 0, 4, 0)),
        ("cer", "kitten", "sitting", (4, 2, 1, 0)),  # k->s, e->i, the gold "g" missed
        ("cer", "ba", "ab", (1, 0, 1, 1)),  # a tie: jiwer keeps one hit rather than two substitutions
        ("wer", "the cat", "the bat sat", (1, 1, 1, 0)),
        ("cer", "", "abc", (0, 0, 3, 0)),
        ("cer", "abc", "", (0, 0, 0, 3)),
    ],
)
def test_hand_worked_alignment_counts(backend, unit, pred, gold, counts):
    d = StringMetric(unit, alignment=True)(pred, gold).detail
    assert tuple(d[k] for k in KEYS) == counts
    assert d["edits"] == counts[1] + counts[2] + counts[3]
    assert d["ref_len"] == counts[0] + counts[1] + counts[2]


def test_every_backend_agrees_with_jiwer(backend):
    distance, counts = _edit.backends()[backend]
    for pred, gold in _noisy_pairs(60, 11) + [("", ""), ("", "ab"), ("ab", "")]:
        c = counts(pred, gold)
        assert distance(pred, gold) == c.substitutions + c.deletions + c.insertions
        assert tuple(c) == _jiwer_counts(pred, gold, unit="cer"), (pred, gold)
        w = counts(pred.split(), gold.split())
        assert tuple(w) == _jiwer_counts(pred, gold, unit="wer"), (pred, gold)
        assert distance(pred.split(), gold.split()) == distance(gold.split(), pred.split())


def test_a_large_batch_scores_as_one_pair_at_a_time():
    # past _edit._BATCH pairs rapidfuzz scores the whole batch in one C call (cpdist)
    pairs = _noisy_pairs(_edit._BATCH + 7, 5) + [("", "ab"), ("\u0e33x", "x\u0e33"), ("", "")]
    preds, golds = [p for p, _ in pairs], [g for _, g in pairs]
    python = _edit.backends()["python"][0]
    for metric in (CER, WER, StringMetric("cer", segment="grapheme")):
        batch = metric.score_many(preds, golds)
        one_by_one = [metric(p, g) for p, g in pairs]
        assert [s.detail["edits"] for s in batch] == [s.detail["edits"] for s in one_by_one]
        assert [s.value for s in batch] == [s.value for s in one_by_one]
    units = [(p.split(), g.split()) for p, g in pairs]
    assert _edit.distances(*zip(*units)) == [python(p, g) for p, g in units]


# A small alphabet makes ties between equally short alignments common.
tie_prone = st.text(alphabet="ab c", max_size=14)


@settings(max_examples=150)
@given(pairs=st.lists(st.tuples(tie_prone, tie_prone), min_size=1, max_size=4))
def test_alignment_counts_equal_jiwer_on_any_pairs(pairs):
    for name in BACKENDS:
        counts = _edit.backends()[name][1]
        for pred, gold in pairs:
            for unit, p, g in (("cer", pred.strip(), gold.strip()), ("wer", pred.split(), gold.split())):
                got = counts(p, g)
                assert min(got) >= 0, (name, unit, pred, gold, got)
                assert tuple(got) == _jiwer_counts(pred, gold, unit=unit), (name, unit, pred, gold)


def test_canonicalizer_must_return_text():
    with pytest.raises(TypeError, match="canonicalizer returned None"):
        StringMetric("cer", canonicalizer=lambda s: None)("a", "b")


def test_canonicalizer_applies_to_both_sides():
    metric = StringMetric("cer", canonicalizer=str.lower)
    assert metric("HELLO", "hello").value == 0.0


def test_bad_inputs():
    with pytest.raises(ValueError, match="mode must be 'cer' or 'wer'"):
        StringMetric("ter")
    with pytest.raises(TypeError, match="CER compares strings, but pred is int"):
        CER(12, "12")
    with pytest.raises(TypeError, match="item 1 gold is None"):
        WER.score_many(["a", "b"], ["a", None])
    with pytest.raises(ValueError, match="2 predictions but 1 references"):
        CER.score_many(["a", "b"], ["a"])  # never truncate silently
    with pytest.raises(ValueError, match="has no 'edits' in its detail"):
        CER.aggregate([StringMetric("cer")("a", "a"), __import__("ek").score({"a": 1}, {"a": 1})])


@given(st.text())
def test_cer_of_identical_strings_is_zero(text):
    assert CER(text, text).value == 0.0
    assert WER(text, text).value == 0.0


@given(st.lists(st.tuples(st.text(max_size=12), st.text(max_size=12)), min_size=1, max_size=12), st.data())
def test_aggregate_of_any_split_equals_whole(pairs, data):
    k = data.draw(st.integers(0, len(pairs)))
    whole = CER.score_many(*zip(*pairs))
    left = list(CER.score_many(*zip(*pairs[:k]))) if k else []
    right = list(CER.score_many(*zip(*pairs[k:]))) if k < len(pairs) else []
    assert CER.aggregate(left + right) == CER.aggregate(whole)
    # and the merged figure is jiwer's pooled CER, not just any number the two agree on
    preds, golds = [p for p, _ in pairs], [g for _, g in pairs]
    assert CER.aggregate(left + right) == pytest.approx(jiwer.cer(reference=golds, hypothesis=preds))


# -- grapheme clusters (issue 14) ----------------------------------------------


def test_grapheme_cer_counts_a_letter_with_its_combining_mark_as_one_unit():
    # dinglehopper's example: "Schlyñ" read as "Schlym̃" is 1 edit over 6 graphemes, 2 over 6 code points
    grapheme = StringMetric("cer", segment="grapheme")
    s = grapheme("Schlym\u0303", "Schly\u00f1")
    assert (s.detail["edits"], s.detail["ref_len"], s.metric) == (1, 6, "cer_grapheme")
    assert CER("Schlym\u0303", "Schly\u00f1").detail["edits"] == 2
    assert __import__("ek").score("Schlym\u0303", "Schly\u00f1", metric="cer_grapheme").value == pytest.approx(1 / 6)
    aligned = StringMetric("cer", segment="grapheme", alignment=True)("e\u0301x", "e\u0301y")
    assert (aligned.detail["substitutions"], aligned.detail["hits"]) == (1, 1)


def test_grapheme_segment_is_for_cer_only():
    with pytest.raises(ValueError, match="segment must be 'codepoint' or 'grapheme' .* mode='wer'"):
        StringMetric("wer", segment="grapheme")
    with pytest.raises(ValueError, match="got segment='word'"):
        StringMetric("cer", segment="word")


@given(st.text(max_size=12), st.text(max_size=12))
def test_grapheme_cer_equals_code_point_cer_without_combining_marks(pred, gold):
    import regex

    # where every cluster is one code point (no combining marks, no Hangul jamo, no Thai SARA AM,
    # no CRLF...), the two segmentations are the same and so are the counts
    if any(len(c) > 1 for text in (pred, gold) for c in regex.findall(r"\X", text)):
        return
    grapheme = StringMetric("cer", segment="grapheme")
    assert grapheme(pred, gold).detail == {**CER(pred, gold).detail}


# -- Unicode words, the edge whitespace, long texts (issue 19) ------------------------------------

WER_UNICODE = StringMetric("wer", words="unicode")


def _dinglehopper_wer(pred, gold):
    wer = pytest.importorskip("dinglehopper.word_error_rate")
    return wer.word_error_rate_n(list(wer.words(gold)), list(wer.words(pred)))


def test_unicode_words_leave_out_punctuation_by_hand():
    s = WER_UNICODE("the quick brown fox.", "The quick (brown) fox")
    assert (s.detail["edits"], s.detail["ref_len"], s.metric) == (1, 4, "wer_unicode")  # only The -> the
    assert WER("the quick brown fox.", "The quick (brown) fox").value == 3 / 4  # whitespace words: 3 edits
    assert WER_UNICODE("3,14 m", "3.14 m").value == 0.5  # numbers keep their separators
    assert __import__("ek").score("a lazy dog", "a lazy dog.", metric="wer_unicode").value == 0.0
    assert WER_UNICODE.name == "wer_unicode" and StringMetric("wer").name == "wer"


def test_words_are_for_wer_only():
    with pytest.raises(ValueError, match="words must be 'whitespace' or 'unicode' .* mode='cer'; use mode='wer'"):
        StringMetric("cer", words="unicode")
    with pytest.raises(ValueError, match="got words='spaces'"):
        StringMetric("wer", words="spaces")


WORDY = st.text(alphabet="ab c.,'’-\n1é\u0301\ue000", max_size=20)


@settings(max_examples=300, deadline=None)
@given(pred=WORDY, gold=WORDY)
def test_unicode_wer_equals_dinglehopper(pred, gold):
    rate, n = _dinglehopper_wer(pred, gold)
    s = WER_UNICODE(pred, gold)
    assert s.detail["ref_len"] == n
    if n:  # dinglehopper gives infinity for an empty reference with errors; ek counts the inserted words
        assert s.value == pytest.approx(rate, abs=1e-12)


def test_strip_false_counts_the_whitespace_at_the_ends():
    assert CER(" ab\n", "ab").value == 0.0
    kept = StringMetric("cer", strip=False)(" ab\n", "ab")
    assert (kept.detail["edits"], kept.detail["ref_len"]) == (2, 2)
    graphemes = StringMetric("cer", segment="grapheme", strip=False)("ab", "ab\n")
    assert (graphemes.detail["edits"], graphemes.detail["ref_len"]) == (1, 3)


def test_long_texts_score_the_same_distance_with_the_band_hint():
    from rapidfuzz.distance import Levenshtein

    rng = random.Random(5)
    gold = "".join(rng.choice("abcdefgh \n") for _ in range(9000))
    pred = "".join(ch if rng.random() > 0.1 else rng.choice("xyz") for ch in gold)[:8800] + "tail"
    s = CER(pred, gold)
    assert s.detail["edits"] == Levenshtein.distance(gold.strip(), pred.strip())  # the full table, no band
    assert len(gold) >= _edit._LONG
