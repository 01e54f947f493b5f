"""Tests for ek.canonicalize: steps, pipelines, versions and the mark audit."""

import unicodedata
import warnings

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ek.canonicalize import (
    Canonicalizer, collapse_whitespace, default_canonicalizer, lower, mark_class_count, nfc, nfkc,
    resolve_canonicalizer, strip, strip_punctuation,
)


def test_steps_by_hand():
    assert nfc("e\u0301") == "\u00e9"
    assert nfkc("\ufb01le") == "file"
    assert lower("Straße") == "strasse"
    assert strip("  a b \n") == "a b"
    assert collapse_whitespace(" a \t\n b  ") == "a b"
    assert strip_punctuation("¡Hola, mundo!") == "Hola mundo"


def test_pipeline_order_version_and_names():
    canon = Canonicalizer(["nfc", "lower", "collapse_whitespace"])
    assert canon("  Héllo   WORLD ") == "héllo world"
    assert canon.version == "nfc+lower+collapse_whitespace"
    assert canon.steps == ["nfc", "lower", "collapse_whitespace"]
    assert Canonicalizer(["lower"], version="v2").version == "v2"

    def shout(s):
        return s.upper()

    mixed = Canonicalizer(["strip", shout])
    assert mixed(" ab ") == "AB" and mixed.version == "strip+shout"
    # steps run left to right: here the other order would give "a b"
    assert Canonicalizer(["collapse_whitespace", "strip_punctuation"])(" a . b ") == "a  b"
    assert Canonicalizer(["strip_punctuation", "collapse_whitespace"])(" a . b ") == "a b"


def test_default_canonicalizer():
    assert default_canonicalizer()(" A  B ") == "a b"
    assert default_canonicalizer() == Canonicalizer(["nfc", "lower", "collapse_whitespace"])


def test_mark_class_count():
    assert mark_class_count("e\u0301") == 1
    assert mark_class_count("abc") == 0
    assert mark_class_count("क्षि") == 2  # virama and vowel sign are marks


def test_audit_warns_only_when_marks_are_destroyed():
    def drop_marks(s):
        return "".join(c for c in unicodedata.normalize("NFD", s) if not unicodedata.category(c).startswith("M"))

    with pytest.warns(UserWarning, match="removed combining marks"):
        Canonicalizer([drop_marks], audit_marks=True)("café")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Canonicalizer(["nfc", "lower"], audit_marks=True)("Cafe\u0301")  # composing is not a loss


def test_resolve_canonicalizer_forms():
    assert resolve_canonicalizer(None) is None
    c = Canonicalizer(["lower"])
    assert resolve_canonicalizer(c) is c
    assert resolve_canonicalizer("lower")("AB") == "ab"
    assert resolve_canonicalizer(["strip", "lower"])(" AB ") == "ab"
    assert resolve_canonicalizer(str.upper)("ab") == "AB"


def test_bad_inputs():
    with pytest.raises(KeyError, match="Registered names"):
        Canonicalizer(["no_such_step"])
    with pytest.raises(TypeError, match="step 0 is a int"):
        Canonicalizer([3])
    with pytest.raises(TypeError, match="takes a str, got int"):
        default_canonicalizer()(5)
    with pytest.raises(TypeError, match="normalize must be None"):
        resolve_canonicalizer(3.5)


@pytest.mark.parametrize("step", [nfc, nfkc, strip, collapse_whitespace, strip_punctuation])
@given(text=st.text())
def test_documented_steps_are_idempotent(step, text):
    once = step(text)
    assert step(once) == once


@given(text=st.text(alphabet=st.characters(codec="utf-8")))
def test_default_pipeline_is_idempotent(text):
    canon = default_canonicalizer()
    once = canon(text)
    assert canon(once) == once


# -- historical print (issue 14) --------------------------------------------------


def test_historical_print_steps_by_hand():
    canon = Canonicalizer(["ligatures", "long_s", "superscript_e", "historic_hyphen"])
    assert canon("Auſ\ufb05ehen u\u0364ber \ufb01ſch\u2e17") == "Ausstehen über fisch-"
    assert Canonicalizer(["long_s"])("\u1e9b") == "\u1e61"  # long s with dot above
    assert Canonicalizer(["ligatures"])("\ufb00\ufb03 \u0133 \u00e6") == "ffffi ij \u00e6"  # ﬀ+ﬃ; æ is a letter, kept
    # combining vs precomposed: nfc composes where Unicode has a precomposed letter, and only there
    assert nfc("n\u0303") == "\u00f1" and nfc("m\u0303") == "m\u0303"


def test_an_unusable_normalize_lists_every_registered_step():
    with pytest.raises(TypeError, match=r"Known steps: .*ligatures.*long_s"):
        resolve_canonicalizer(3.5)


def test_historical_steps_carry_their_version_into_the_pipeline_version():
    assert Canonicalizer(["nfc", "long_s", "ligatures"]).version == "nfc+long_s@1+ligatures@1"
    assert Canonicalizer(["superscript_e", "historic_hyphen"]).version == "superscript_e@1+historic_hyphen@1"
    assert Canonicalizer(["nfc", "lower"]).version == "nfc+lower"  # unversioned steps are unchanged


@pytest.mark.parametrize("name", ["long_s", "ligatures", "superscript_e", "historic_hyphen"])
@given(text=st.text(alphabet="aouſẛﬁﬅﬆĳꜩ\u0364\u2e17\u2010 sx"))
def test_historical_steps_are_idempotent(name, text):
    step = Canonicalizer([name])
    once = step(text)
    assert step(once) == once
