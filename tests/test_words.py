"""ek._words: UAX #29 word segmentation against uniseg (dinglehopper's segmenter) and by hand."""

from __future__ import annotations

import doctest
import importlib
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ek._words
from ek._words import segments, unicode_words, unicode_words_by_line

uniseg_wordbreak = pytest.importorskip("uniseg.wordbreak")

# Characters whose word-break rules interact: letters of several scripts, digits, the Mid* classes,
# apostrophes and quotes, Hebrew, Katakana, connectors, spaces, line breaks, extending and format
# characters, ZWJ emoji sequences, regional indicators, private-use characters.
TRICKY = (
    "abcXYZſßäé019٣"
    "אב"
    "カタナー"
    "漢字ひら"
    "กา"
    "ᄀ"
    " \u3000\u2007\u202f\t\n\r\x0b\x0c\x85\u2028"
    ".,:;'\"’‘“”-_‿·\u0387\u055f\u05f3\u05f4\u066b\u066c\ufe52\uff0c@#$%&()?!/"
    "\u0301\u0303\u0364\u200c\u200d\u00ad\u2060\ufeff\ufe0f"
    "👨👩❤🏻\u2139\u24c2\U0001f1e6\U0001f1e9\U0001f1ea"
    "\ue000\uf502\ue8bf\U000f0000"
)


def _dinglehopper_words(text):
    return list(importlib.import_module("dinglehopper.word_error_rate").words(text))


def test_module_example_runs():
    assert doctest.testmod(ek._words).failed == 0


@pytest.mark.parametrize(
    "text, words",
    [
        (
            "Der schnelle [„braune“] Fuchs kann keine 3,14 Meter springen, oder?",  # dinglehopper's own test
            ["Der", "schnelle", "braune", "Fuchs", "kann", "keine", "3,14", "Meter", "springen", "oder"],
        ),
        ("can’t stop. a.b 3.5kg e-mail", ["can’t", "stop", "a.b", "3.5kg", "e", "mail"]),
        ("ſchoͤn\nGeſchichte", ["ſchoͤn", "Geſchichte"]),  # a combining e stays on its letter; a line break cuts
        ("snake_case x", ["snake_case", "x"]),  # the connector joins (WB13a/b)
        ("\u05d0\u05f4\u05d1 \u05d0'", ["\u05d0\u05f4\u05d1", "\u05d0'"]),  # Hebrew gershayim, geresh (WB7a-c)
        ("カタカナ漢字", ["カタカナ", "漢", "字"]),  # Katakana runs join, ideographs stand alone
        ("👨\u200d👩 🇩🇪🇫", []),  # emoji are symbols (So): segments, not words
        ("a\u00b8b", ["a", "b"]),  # a stray cedilla cuts, as in Unicode 16 (see the module doc)
        ("a\uf502b", ["a", "\uf502", "b"]),  # private use is Word_Break=Other (see the module doc)
        ("... , !", []),
        ("", []),
    ],
)
def test_words_by_hand(text, words):
    assert unicode_words(text) == words


def test_segments_keep_spaces_and_punctuation():
    assert segments("The quick (“brown”) fox") == ["The", " ", "quick", " ", "(", "“", "brown", "”", ")", " ", "fox"]
    assert segments("👨\u200d👩 🇩🇪🇫") == ["👨\u200d👩", " ", "🇩🇪", "🇫"]  # ZWJ sequence, indicators in pairs
    assert segments("a  b\r\nc") == ["a", "  ", "b", "\r\n", "c"]
    assert "".join(segments("x\u0301\u0301, y")) == "x\u0301\u0301, y"


@settings(max_examples=600, deadline=None)
@given(st.text(alphabet=TRICKY, max_size=14))
def test_segments_equal_uniseg_on_tricky_characters(text):
    assert segments(text) == list(uniseg_wordbreak.words(text))


@settings(max_examples=400, deadline=None)
@given(st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cn")), max_size=10))
def test_segments_equal_uniseg_on_any_assigned_characters(text):
    # regex's data (Unicode 17) marks fewer pictographs Extended_Pictographic than uniseg's
    # (Unicode 16), which matters only right after a ZWJ (rule WB3c): leave that pair out
    text = text.replace("\u200d", "")
    assert segments(text) == list(uniseg_wordbreak.words(text))


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=TRICKY, max_size=14))
def test_words_equal_dinglehopper_words(text):
    pytest.importorskip("dinglehopper")
    assert unicode_words(text) == _dinglehopper_words(text)


def test_a_text_made_only_of_separators_has_no_words():
    text = "".join(
        ch for ch in TRICKY if unicodedata.category(ch)[0] in "MPZS" or unicodedata.category(ch) in ("Cc", "Cf")
    )
    assert unicode_words(text) == []
    assert "".join(segments(text)) == text


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=TRICKY.replace("\n", "").replace("\r", ""), max_size=8), max_size=5))
def test_words_by_line_equal_the_words_of_each_line(lines):
    lines = [part for line in lines for part in line.splitlines()] or lines  # no line holds a break
    assert unicode_words_by_line(lines) == [unicode_words(line) for line in lines]
