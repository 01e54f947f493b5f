"""Historical text on the HTML page: grapheme clusters, code-point boxes, merged substitutions, no raw bidi.

The expected clusters come from the ``regex`` package's UAX #29 ``\\X`` (a reference
implementation), the expected names from `unicodedata`; the diffs are checked against
alignments worked by hand.
"""

from __future__ import annotations

import re
import unicodedata

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from ek._align import align
from ek.cli._html import _chars, render_compare, render_evaluate, write_page
from ek.cli._html._chars import align_clusters, clusters, plain, show
from ek.cli._html._diff import LEGEND, confusions_from_items, render_diff

BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
M_TILDE, U_E = "m\u0303", "u\u0364"  # m̃ and uͤ: one letter each, two code points
HISTORICAL = f"Daß iſt ein ﬁner {M_TILDE} {U_E}ber \ue8bf und \uf50e — Ende"


def _box(code: str) -> str:
    return f">U+{code}</span>"


def _units(html: str, tag: str) -> list[str]:
    """The text of every ``<del>`` or ``<ins>`` in a diff, code-point boxes read back as their character."""
    texts = re.findall(rf"<{tag}[^>]*>(.*?)</{tag}>", html)
    return [
        re.sub(r'<span class="cp"[^>]*>U\+([0-9A-F]+)</span>', lambda m: chr(int(m.group(1), 16)), t) for t in texts
    ]


# --- clusters ------------------------------------------------------------------------------


def test_clusters_keep_combining_letters_on_their_base():
    assert clusters(f"Schly{M_TILDE}") == ["S", "c", "h", "l", "y", M_TILDE]
    assert clusters(f"z{U_E}g") == ["z", U_E, "g"]
    assert clusters("a\r\nb") == ["a", "\r\n", "b"]
    assert clusters("\U0001f468\u200d\U0001f469") == ["\U0001f468\u200d\U0001f469"]


_ALPHABET = st.sampled_from(list("ab \r\n\x01\u200b\u200c\u200d\u00ad\u0300\u0301\u0364\u0903\ue8bf\u017f"))


@settings(max_examples=300)
@given(st.lists(_ALPHABET, max_size=14).map("".join))
def test_the_standard_library_rule_agrees_with_uax29_on_marks_joiners_and_controls(text):
    assert _chars._approximate_clusters(text) == regex.findall(r"\X", text)


def test_without_regex_the_page_still_groups_marks(monkeypatch):
    def missing(text):
        raise ImportError("regex is not installed")

    monkeypatch.setattr(_chars, "graphemes", missing)
    monkeypatch.setattr(_chars, "_NO_REGEX", [])
    assert clusters(f"a{M_TILDE}\u200db") == ["a", M_TILDE + "\u200d", "b"]
    assert _chars._NO_REGEX == [True]  # tried once, then the rule is used directly
    assert clusters(U_E) == [U_E]


@given(st.text(max_size=30), st.text(max_size=30))
def test_cluster_alignment_spells_out_both_texts_in_whole_clusters(pred, gold):
    ops = align_clusters(pred, gold)
    assert "".join(op.gold for op in ops) == gold and "".join(op.pred for op in ops) == pred
    gold_units = [op.gold for op in ops if op.tag != "equal"]
    assert all(len(clusters(u)) == 1 for u in gold_units if u)
    edits = sum(op.tag != "equal" for op in ops)
    assert edits == len(align(pred, gold, unit="grapheme")) - sum(
        op.tag == "equal" for op in align(pred, gold, unit="grapheme")
    )


# --- code-point boxes ----------------------------------------------------------------------


@pytest.mark.parametrize("char", ["\ue8bf", "\uf50e", "\U000f0001", "\U0010fffd"])
def test_private_use_characters_show_as_boxed_code_points(char):
    html = show(f"a{char}b")
    code = f"{ord(char):04X}"
    assert html == (
        f'a<span class="cp" title="U+{code} private-use character: no standard name (MUFI and other '
        f'projects assign these)">U+{code}</span>b'
    )


@pytest.mark.parametrize("char", list(BIDI) + ["\u200d", "\u200c", "\u00ad", "\u200b", "\ufeff", "\x07", "\u2028"])
def test_invisible_characters_show_as_boxed_code_points_with_their_names(char):
    html = show(f"x{char}y")
    assert char not in html
    name = unicodedata.name(char, "control character")  # control characters have no name in Unicode data
    assert f'title="U+{ord(char):04X} {name}"' in html and _box(f"{ord(char):04X}") in html


def test_combining_marks_stay_on_their_letter_and_are_boxed_without_one():
    assert show(f"{M_TILDE} {U_E}") == f"{M_TILDE} {U_E}"
    assert show("\u0364x") == (
        '<span class="cp" title="U+0364 COMBINING LATIN SMALL LETTER E, with no letter to sit on">U+0364</span>x'
    )
    assert show("a \u0303")[:2] == "a " and _box("0303") in show("a \u0303")
    assert _box("0301") in show("\u200d\u0301")  # after a boxed joiner, a mark has nothing visible to sit on


def test_emoji_joiners_spaces_and_changed_whitespace():
    family = "\U0001f468\u200d\U0001f469"
    assert show(family) == family
    assert show("a\u00a0b") == "a\u00a0b" and _box("00A0") in show("a\u00a0b", changed=True)
    assert show("a b\nc\td", changed=True) == "a␣b↵c⇥d"
    assert show("a b\nc") == "a b\nc"
    assert show("<&>\"'") == "&lt;&amp;&gt;&quot;&#x27;"


def test_plain_text_escapes_and_names_hidden_characters_without_markup():
    assert plain("id\u202e<b>") == "id[U+202E]&lt;b&gt;"
    assert plain("line\nnext\ttab") == "line\nnext\ttab"
    assert plain("lone \ud800") == "lone [U+D800]"


# --- diffs ---------------------------------------------------------------------------------


def test_a_combining_letter_is_one_unit_in_the_diff():
    html = render_diff(align("mus", f"{M_TILDE}us", unit="char"), unit="char")
    assert _units(html, "del") == [M_TILDE] and _units(html, "ins") == ["m"]
    html = render_diff(None, unit="char", gold=f"f{U_E}r", pred="f\u00fcr")
    assert '<span class="op-sub" title="substituted: &#x27;uͤ&#x27; → &#x27;ü&#x27;">' in html
    html = render_diff(None, unit="char", gold=f"a{M_TILDE}", pred="a")
    assert _units(html, "del") == [M_TILDE]


def test_ops_that_keep_clusters_whole_are_drawn_as_given_and_others_regrouped():
    whole = [("equal", "a", "a"), ("delete", M_TILDE, ""), ("insert", "", "m")]  # valid, though not minimal
    html = render_diff(whole, unit="char")
    assert _units(html, "del") == [M_TILDE] and _units(html, "ins") == ["m"] and "op-sub" not in html
    cut = [("equal", "am", "am"), ("delete", "\u0303", "")]  # cuts m̃ after its m
    html = render_diff(cut, unit="char")
    assert '<span class="op-sub" title="substituted: &#x27;m̃&#x27; → &#x27;m&#x27;">' in html


def test_runs_of_substitutions_merge_into_one_block():
    ops = align("xyz-q", "abc-d", unit="char")
    assert [op.tag for op in ops] == ["replace", "replace", "replace", "equal", "replace"]
    html = render_diff(ops, unit="char")
    assert html.count('class="op-sub"') == 2
    assert (
        '<span class="op-sub" title="substituted: &#x27;abc&#x27; → &#x27;xyz&#x27; (3 edits)" data-edits="3">'
        "<del>abc</del><ins>xyz</ins></span>-"
    ) in html
    words = render_diff(align("a big red b", "a small blue b", unit="word"), unit="word")
    assert "<del>small blue</del><ins>big red</ins>" in words  # the word separator is no changed space


def test_deletions_and_insertions_stay_apart_from_a_substitution_block():
    html = render_diff(align("xyQ", "abcd", unit="char"), unit="char")  # abcd -> xyQ: 3 subs, 1 deletion
    assert "<del>abc</del><ins>xyQ</ins>" in html and '<del class="op-del" title="deleted: &#x27;d&#x27;">d' in html


def test_folding_counts_clusters_and_never_cuts_one():
    gold = "x" + U_E * 200 + "y"
    html = render_diff(None, unit="char", gold=gold, pred="X" + U_E * 200 + "Y")
    assert 'title="140 unchanged characters"' in html
    kept = re.sub(r"<[^>]+>", "", html)
    assert kept.count("\u0364") == kept.count("u") == 60


def test_confusions_of_a_lone_mark_show_the_mark_by_code_point():
    items = [
        {"id": "a", "value": 0.5, "gold": f"{U_E}", "pred": "u", "ops": align("u", U_E, unit="char"), "unit": "char"}
    ]
    assert confusions_from_items(items) == [{"kind": "deletion", "gold": "\u0364", "pred": "", "count": 1}]
    html = render_evaluate({"metric": "cer", "aggregate": 0.5, "items": items})
    cells = re.findall(r"<code>(.*?)</code>", re.search(r'id="confusion-table".*?</table>', html, re.DOTALL).group(0))
    assert cells == [
        '<span class="cp" title="U+0364 COMBINING LATIN SMALL LETTER E, with no letter to sit on">U+0364</span>'
    ]


def test_the_legend_explains_marks_folds_and_code_point_boxes():
    for words in (
        "struck through",
        "underlined",
        "boxed with an arrow",
        'class="fold"',
        "folded away",
        'class="cp"',
        "code point",
        "private-use",
        "grapheme clusters",
    ):
        assert words in LEGEND


# --- nothing raw reaches the page ----------------------------------------------------------

_HIDDEN = st.sampled_from(list(BIDI) + ["\u200d", "\ue8bf", "\u0364", "\x00", "\ud800"])
_TEXT = st.lists(st.one_of(st.characters(codec="utf-8"), _HIDDEN), max_size=20).map("".join)


@settings(max_examples=60, deadline=None)
@given(_TEXT, _TEXT, _TEXT, _TEXT)
def test_no_bidi_control_reaches_either_page(ident, label, gold, pred):
    items = [
        {"id": ident, "slice": label, "value": 0.5, "gold": gold, "pred": pred, "unit": "char"},
        {"id": label, "slice": ident, "value": 0.2, "gold": pred, "pred": gold, "unit": "word"},
    ]
    evaluate = render_evaluate(
        {
            "metric": "cer",
            "aggregate": 0.5,
            "title": ident,
            "items": items,
            "missing": [ident],
            "extra": [label],
            "per_slice": {label: {"aggregate": 0.5, "interval": [0.4, 0.6], "n": 2}},
            "inputs": {"gold": gold, "pred": pred},
            "settings": {"metric": "cer", "profile": label},
            "errors": [{"side": "pred", "path": pred, "id": ident, "message": label}],
            "skipped": [{"path": gold, "reason": ident}],
        }
    )
    compare = render_compare(
        {
            "metric": "cer",
            "a": {"name": ident, "aggregate": 0.1},
            "b": {"name": label, "aggregate": 0.2},
            "delta": 0.1,
            "verdict": label,
            "per_slice": {label: {"a": 0.1, "b": 0.2, "delta": 0.1, "n": 2}},
            "items": [{"id": ident, "slice": label, "a": 0.1, "b": 0.3, "gold": gold, "pred_a": pred, "pred_b": ident}],
        }
    )
    for html in (evaluate, compare):
        assert not set(BIDI + "\ud800\x00") & set(html)
        html.encode("utf-8")  # a lone surrogate would make the page unwritable


def test_a_historical_page_is_written_and_keeps_its_letters(tmp_path):
    item = {
        "id": "p\u202e1",
        "slice": "Fraktur",
        "value": 0.4,
        "gold": HISTORICAL,
        "unit": "char",
        "pred": HISTORICAL.replace("ſ", "s").replace(M_TILDE, "m").replace("\ue8bf", "q"),
    }
    html = render_evaluate({"metric": "cer", "aggregate": 0.4, "items": [item]})
    page = write_page(tmp_path / "p.html", html).read_text(encoding="utf-8")
    diff = re.search(r'<td class="diffcell">(.*?)</td>', page).group(1)
    assert _units(diff, "del") == ["ſ", M_TILDE, "\ue8bf"] and _units(diff, "ins") == ["s", "m", "q"]
    assert "ﬁner" in diff and U_E in diff and "—" in diff and _box("F50E") in diff
    assert '<td class="id">p<span class="cp" title="U+202E RIGHT-TO-LEFT OVERRIDE">U+202E</span>1</td>' in page


def test_ten_thousand_historical_items_stay_far_under_five_megabytes():
    gold = HISTORICAL * 4
    pred = gold.replace("ſ", "s").replace(M_TILDE, "m").replace("\ue8bf", "q").replace(U_E, "ü")
    items = [
        {
            "id": f"seite\u202e{i}",
            "slice": f"band-{i % 40}",
            "value": (i % 89) / 89,
            "gold": gold,
            "pred": pred,
            "unit": "char",
            "statistics": {"edits": 9, "ref_len": len(gold)},
        }
        for i in range(10_000)
    ]
    per_slice = {f"band-{k}": {"aggregate": 0.3, "interval": [0.2, 0.4], "n": 250} for k in range(40)}
    html = render_evaluate(
        {
            "metric": "cer",
            "aggregate": 0.3,
            "interval": [0.29, 0.31],
            "n": 10_000,
            "items": items,
            "per_slice": per_slice,
            "missing": [f"m\u2066{i}" for i in range(2000)],
        }
    )
    assert html.count('<td class="diffcell">') == 200 and "\u202e" not in html
    assert len(html.encode("utf-8")) < 5_000_000
