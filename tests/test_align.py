"""ek._align: the op format, edit counts against jiwer/rapidfuzz, line pairing, confusion counting."""

from __future__ import annotations

import doctest
from collections import Counter

import jiwer
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import Levenshtein

from ek import _align
from ek._align import Op, align, align_lines, confusion_table, confusions, graphemes, split_units

TEXT = st.text(alphabet="abc \u0303\u00f1", max_size=14)


def test_module_examples_run():
    assert doctest.testmod(_align).failed == 0


def test_hand_worked_char_alignment():
    # gold "kitten" -> pred "sitting": k->s, e->i, one g inserted
    assert align("sitting", "kitten") == [
        Op("replace", "k", "s"),
        Op("equal", "itt", "itt"),
        Op("replace", "e", "i"),
        Op("equal", "n", "n"),
        Op("insert", "", "g"),
    ]


def test_deletions_name_the_gold_unit_and_word_runs_join_with_spaces():
    assert align("a d", "a b c d", unit="word") == [
        Op("equal", "a", "a"),
        Op("delete", "b", ""),
        Op("delete", "c", ""),
        Op("equal", "d", "d"),
    ]


def test_grapheme_units_keep_a_combining_mark_with_its_letter():
    # dinglehopper's example: one substitution over six graphemes, two edits over code points
    ops = align("Schlym\u0303", "Schly\u00f1", unit="grapheme")
    assert ops == [Op("equal", "Schly", "Schly"), Op("replace", "\u00f1", "m\u0303")]
    assert sum(op.tag != "equal" for op in align("Schlym\u0303", "Schly\u00f1")) == 2
    assert graphemes("e\u0301a") == ["e\u0301", "a"]


def test_unknown_unit_and_non_text_are_refused():
    with pytest.raises(ValueError, match="unit must be one of 'char', 'word', 'grapheme', 'unicode_word', got 'line'"):
        align("a", "a", unit="line")
    with pytest.raises(TypeError, match="gold is int"):
        align("a", 3)


@settings(max_examples=200, deadline=None)
@given(pred=TEXT, gold=TEXT, unit=st.sampled_from(_align.UNITS))
def test_ops_spell_both_sides_and_count_the_edit_distance(pred, gold, unit):
    ops = align(pred, gold, unit=unit)
    p_units, g_units = list(split_units(pred, unit)), list(split_units(gold, unit))
    assert sum(op.tag != "equal" for op in ops) == Levenshtein.distance(g_units, p_units)
    back_g, back_p = [], []
    for op in ops:
        if op.tag == "equal":
            assert op.gold == op.pred
            run = list(split_units(op.gold, unit)) if unit != "char" else list(op.gold)
            back_g += run
            back_p += run
        else:
            assert op.tag in ("replace", "delete", "insert")
            # every edit covers exactly one unit of each side it touches
            assert (op.gold != "") == (op.tag != "insert") and (op.pred != "") == (op.tag != "delete")
            back_g += [op.gold] if op.gold else []
            back_p += [op.pred] if op.pred else []
    assert back_g == g_units and back_p == p_units


@settings(max_examples=100, deadline=None)
@given(pred=st.text(alphabet="ab xy", max_size=20), gold=st.text(alphabet="ab xy", max_size=20))
def test_counts_agree_with_jiwer(pred, gold):
    if not gold.strip() or not pred.strip():
        return  # jiwer refuses empty transcripts
    out = jiwer.process_words(gold, pred)
    tags = Counter(op.tag for op in align(pred, gold, unit="word") if op.tag != "equal")
    assert tags["replace"] + tags["delete"] + tags["insert"] == out.substitutions + out.deletions + out.insertions
    # jiwer counts gold words as hits + substitutions + deletions; so do the ops
    hits = sum(len(op.gold.split(" ")) for op in align(pred, gold, unit="word") if op.tag == "equal")
    assert hits + tags["replace"] + tags["delete"] == out.hits + out.substitutions + out.deletions


def test_line_pairing_skips_a_dropped_line_and_aligns_inside_pairs():
    steps = align_lines(["The cat", "sat on mat"], ["The cat", "was here", "sat on the mat"])
    assert [(g, p) for g, p, _ in steps] == [(0, 0), (1, None), (2, 1)]
    assert all(op.tag == "delete" for op in steps[1][2])
    assert "".join(op.gold for op in steps[1][2]) == "was here"
    inserted = [op.gold for op in steps[2][2] if op.tag == "delete"]
    assert inserted == list("the ")


def test_line_pairing_keeps_an_extra_pred_line_as_insertions():
    steps = align_lines(["abc", "noise", "def"], ["abc", "def"], unit="word")
    assert [(g, p) for g, p, _ in steps] == [(0, 0), (None, 1), (1, 2)]
    assert steps[1][2] == [Op("insert", "", "noise")]


def test_confusions_merge_by_addition_and_tabulate_deterministically():
    a = confusions(align("cut", "cat"))
    b = confusions(align("cot", "cat") + align("ca", "cat") + align("catt", "cat"))
    total = sum([a, b], Counter())
    assert total == Counter({("a", "u"): 1, ("a", "o"): 1, ("t", ""): 1, ("", "t"): 1})
    table = confusion_table(total + confusions(align("cut", "cat")))
    assert table[0] == {"kind": "substitution", "gold": "a", "pred": "u", "count": 2}
    # ties ordered by (gold, pred): ("", "t") < ("a", "o") < ("t", "")
    assert [r["kind"] for r in table[1:]] == ["insertion", "substitution", "deletion"]
    assert confusion_table(total, n=1) == [{"kind": "insertion", "gold": "", "pred": "t", "count": 1}]


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=st.characters(max_codepoint=0x0340)) | st.text())
def test_grapheme_fast_path_agrees_with_uax29_clusters(text):
    import regex

    assert graphemes(text) == regex.findall(r"\X", text)


# -- line pairing: the banded table against the whole one (issue 19) ---------------------------------


def _full_table_pairing(pred, gold, allowed=None):
    """The least-cost order-keeping pairing from the whole table, cell by cell (the brute-force reference).

    ``allowed(i, j)``, when given, says which cells may be used (others cost infinity).
    """
    inf = float("inf")
    n, m = len(gold), len(pred)
    ok = allowed or (lambda i, j: True)
    cost = [[inf] * (m + 1) for _ in range(n + 1)]
    for i in range(n + 1):
        for j in range(m + 1):
            if not ok(i, j):
                continue
            if i == j == 0:
                cost[i][j] = 0
                continue
            options = []
            if i and j:
                options.append(cost[i - 1][j - 1] + Levenshtein.distance(gold[i - 1], pred[j - 1]))
            if i:
                options.append(cost[i - 1][j] + len(gold[i - 1]))
            if j:
                options.append(cost[i][j - 1] + len(pred[j - 1]))
            cost[i][j] = min(options)
    steps, i, j = [], n, m
    while i or j:
        if i and j and cost[i][j] == cost[i - 1][j - 1] + Levenshtein.distance(gold[i - 1], pred[j - 1]):
            steps.append((i - 1, j - 1))
            i, j = i - 1, j - 1
        elif i and cost[i][j] == cost[i - 1][j] + len(gold[i - 1]):
            steps.append((i - 1, None))
            i -= 1
        else:
            steps.append((None, j - 1))
            j -= 1
    return steps[::-1], cost[n][m]


def _cost(pairs, pred, gold):
    return sum(
        Levenshtein.distance(gold[g], pred[p])
        if g is not None and p is not None
        else len(gold[g])
        if g is not None
        else len(pred[p])
        for g, p in pairs
    )


LINES = st.lists(st.text(alphabet="ab c", max_size=6), max_size=7)


@settings(max_examples=400, deadline=None)
@given(pred=LINES, gold=LINES)
def test_small_pages_are_paired_by_the_whole_table(pred, gold):
    if len(gold) == len(pred) == 1:
        return  # one line each is always paired
    assert _align._pair_lines(pred, gold) == _full_table_pairing(pred, gold)[0]


@settings(max_examples=300, deadline=None)
@given(pred=LINES, gold=LINES, width=st.integers(0, 3), shift=st.integers(-2, 2))
def test_the_banded_table_equals_the_whole_table_restricted_to_the_band(pred, gold, width, shift):
    n, m = len(gold), len(pred)
    guide = [min(m, max(0, round(i * m / max(n, 1)) + shift)) for i in range(n)] + [m]
    guide = [max(guide[: k + 1]) for k in range(len(guide))]  # monotone, as _guide makes it
    ranges = _align._band(guide, m, width)
    expected, cost = _full_table_pairing(pred, gold, lambda i, j: ranges[i][0] <= j < ranges[i][1])
    got = _align._backtrace(_align._costs(gold, pred, ranges), n, m)
    assert got == expected and _cost(got, pred, gold) == cost


def _ocr_like_page(rng, n_lines):
    """Gold lines (each with a word of its own) and an OCR of them: typos, lines split, merged, dropped."""
    words = ["der", "die", "und", "ſein", "Haus", "über", "nach", "Zeit", "ſo", "mit"]
    gold = [" ".join([f"w{k}"] + [rng.choice(words) for _ in range(rng.randint(3, 8))]) for k in range(n_lines)]
    pred, k = [], 0
    while k < len(gold):
        line = "".join(ch if rng.random() > 0.05 else rng.choice("eaoil") for ch in gold[k])
        u = rng.random()
        if u < 0.03 and k + 1 < len(gold):
            line, k = f"{line} {gold[k + 1]}", k + 1  # two lines read as one
        if u > 0.98:
            pass  # a line dropped
        elif u > 0.95:
            cut = len(line) // 2
            pred.extend((line[:cut], line[cut:]))  # a line read as two
        else:
            pred.append(line)
        k += 1
    return pred, gold


@pytest.mark.parametrize("seed", range(3))
def test_a_long_page_pairs_as_the_whole_table_does(seed):
    rng = __import__("random").Random(seed)
    pred, gold = _ocr_like_page(rng, 180)
    assert (len(gold) + 1) * (len(pred) + 1) > _align._FULL  # the banded path
    steps = align_lines(pred, gold)
    expected, _ = _full_table_pairing(pred, gold)
    assert [(g, p) for g, p, _ in steps] == expected


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), n_lines=st.integers(2, 40))
def test_the_band_around_the_word_alignment_finds_the_least_cost(seed, n_lines):
    rng = __import__("random").Random(seed)
    pred, gold = _ocr_like_page(rng, n_lines)
    guide = _align._guide(pred, gold)
    ranges = _align._band(guide, len(pred), _align._BAND)
    got = _align._backtrace(_align._costs(gold, pred, ranges), len(gold), len(pred))
    assert _cost(got, pred, gold) == _full_table_pairing(pred, gold)[1]


# --- long texts: trimmed ends, anchors, exactness where claimed (issue 31) ---------------------------------------

_WORDS = ["lorem", "ipsum", "dolor", "sit", "amet", "consectetur", "adipiscing", "elit", "sed", "do", "eiusmod"]


def _long_text(rng, n_chars: int, width: int = 60) -> str:
    """Lines of words, about ``n_chars`` long."""
    out, line, size = [], [], 0
    while size < n_chars:
        line.append(rng.choice(_WORDS) + rng.choice(["", "", "s", "um", "que"]))
        size += len(line[-1]) + 1
        if sum(map(len, line)) > width:
            out.append(" ".join(line))
            line = []
    return "\n".join(out + [" ".join(line)])


def _noisy(rng, text: str, rate: float) -> str:
    out = []
    for ch in text:
        r = rng.random()
        if r < rate / 3:
            continue  # dropped
        out.append(rng.choice("abcxyz ") if r < 2 * rate / 3 else ch)
        if r < rate:
            out.append(rng.choice("abcxyz"))  # inserted
    return "".join(out)


def _spells(rows, gold, pred) -> bool:
    """Whether opcode rows cover both sides in order, with equal runs equal."""
    g_at = p_at = 0
    for tag, g1, g2, p1, p2 in rows:
        if (g1, p1) != (g_at, p_at) or (tag == "equal" and gold[g1:g2] != pred[p1:p2]):
            return False
        g_at, p_at = g2, p2
    return (g_at, p_at) == (len(gold), len(pred))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(5_000, 30_000), rate=st.sampled_from([0.0005, 0.01, 0.05, 0.3]))
def test_the_hierarchical_alignment_is_minimal_whenever_it_claims_to_be(seed, n, rate):
    import random

    rng = random.Random(seed)
    gold = _long_text(rng, n)
    pred = _noisy(rng, gold, rate)
    distance = Levenshtein.distance(gold, pred)
    for work in (_align._WORK, 0):  # the exact band, and the anchors alone
        rows, exact = _align._rows(gold, pred, work=work)
        assert _spells(rows, gold, pred)
        edits = _align._edits(rows)
        assert edits >= distance
        if exact:
            assert edits == distance
    assert _align.upper_bound(pred, gold) >= distance


def test_a_long_line_with_three_edits_is_aligned_exactly():
    import random

    rng = random.Random(3)
    gold = _long_text(rng, 400_000).replace("\n", " ")  # one line
    pred = gold[:1000] + "#" + gold[1001:200_000] + gold[200_001:399_000] + "%" + gold[399_000:]
    ops = align(pred, gold)
    assert sum(op.tag != "equal" for op in ops) == Levenshtein.distance(gold, pred) == 3
    assert "".join(op.gold for op in ops) == gold and "".join(op.pred for op in ops) == pred
    assert [(op.tag, op.gold, op.pred) for op in ops if op.tag != "equal"] == [
        ("replace", gold[1000], "#"),
        ("delete", gold[200_000], ""),
        ("insert", "", "%"),
    ]
    steps = align_lines([pred], [gold], unit="word")  # the word alignment of the same line
    word_ops = [op for _, _, line_ops in steps for op in line_ops]
    g_words, p_words = gold.split(), pred.split()
    assert sum(op.tag != "equal" for op in word_ops) == Levenshtein.distance(g_words, p_words)


def test_a_long_page_is_paired_by_lines_and_its_confusions_count_its_edits():
    import random

    rng = random.Random(11)
    gold = _long_text(rng, 200_000)
    pred = _noisy(rng, gold, 0.02)
    g_lines, p_lines = gold.split("\n"), pred.split("\n")
    steps = align_lines(p_lines, g_lines)
    assert [g for g, _, _ in steps if g is not None] == list(range(len(g_lines)))
    assert [p for _, p, _ in steps if p is not None] == list(range(len(p_lines)))
    ops = [op for _, _, line_ops in steps for op in line_ops]
    line_edits = sum(
        Levenshtein.distance(g_lines[g] if g is not None else "", p_lines[p] if p is not None else "")
        for g, p, _ in steps
    )
    assert sum(confusions(ops).values()) == sum(op.tag != "equal" for op in ops) == line_edits


def test_the_confusions_of_a_long_page_count_its_cer_and_wer_edits(tmp_path):
    import random

    from ek.ocr.files import evaluate_files

    rng = random.Random(12)
    gold = _long_text(rng, 100_000)
    pred = "\n".join(_noisy(rng, line, 0.02) for line in gold.split("\n"))  # the line breaks are kept
    (tmp_path / "g.txt").write_text(gold, encoding="utf-8")
    (tmp_path / "p.txt").write_text(pred, encoding="utf-8")
    report = evaluate_files(tmp_path / "g.txt", tmp_path / "p.txt", n_confusions=10**6, measures=["cer", "wer"])
    totals = {unit: sum(row["count"] for row in rows) for unit, rows in report.detail["confusions"].items()}
    assert report.scores[0].detail["edits"] == Levenshtein.distance(gold, pred) == totals["char"]
    assert totals["word"] == Levenshtein.distance(gold.split(), pred.split())


def test_texts_that_share_nothing_are_matched_unit_by_unit_past_the_work_bound(monkeypatch):
    monkeypatch.setattr(_align, "_WORK", 10_000)  # as a pair of 10 MB texts with no common run would be
    gold, pred = "ab" * 3000, "xyz" * 2500
    rows, exact = _align._rows(gold, pred, work=0)
    assert not exact and _spells(rows, gold, pred)
    assert rows == [("replace", 0, 6000, 0, 6000), ("insert", 6000, 6000, 6000, 7500)]
    assert _align.upper_bound(pred, gold) == 7500 >= Levenshtein.distance(gold, pred)


def test_texts_of_two_widths_are_aligned_and_counted_exactly():
    # rapidfuzz 3.14's banded paths miscount, or crash the interpreter, when only one side has characters
    # past U+FFFF whose low 16 bits match the other side's: such pairs are coded to one width first
    import random

    from ek.metrics._edit import _hinted

    rng = random.Random(2)
    narrow = [chr(0x400 + i) for i in range(20)]
    gold = "".join(rng.choice(narrow) for _ in range(6000))
    pred = list(gold)
    for _ in range(600):
        wide = chr(0x10000 * rng.randint(1, 3) + ord(rng.choice(narrow)))  # the low bits of a narrow letter
        pred[rng.randrange(len(pred))] = wide if rng.random() < 0.5 else rng.choice(narrow)
    pred = "".join(pred)
    distance = Levenshtein.distance(gold, pred)
    ops = align(pred, gold)
    assert sum(op.tag != "equal" for op in ops) == distance == _hinted(pred, gold)  # the unbanded distance
    assert _align.upper_bound(pred, gold) >= distance
