"""Tests for ek.canonicalize: steps, pipelines, versions and the mark audit."""

import functools
import unicodedata
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ek.canonicalize import (
    Canonicalizer,
    collapse_whitespace,
    default_canonicalizer,
    lower,
    mark_class_count,
    nfc,
    nfkc,
    resolve_canonicalizer,
    strip,
    strip_punctuation,
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


# -- dinglehopper's normalisation and the MUFI characters (issue 19) ----------------------------------


@functools.cache  # parsing dinglehopper's source is most of a property example's time
def _dinglehopper_tables():
    """The two substitution tables of dinglehopper 0.11, read from its source (dict literals, in order)."""
    import ast
    import inspect

    extracted_text = pytest.importorskip("dinglehopper.extracted_text")
    tree = ast.parse(inspect.getsource(extracted_text))
    tables = {}
    for fn in tree.body:
        if isinstance(fn, ast.FunctionDef) and fn.name in ("unjoin_ligatures", "substitute_equivalences"):
            table = next(
                node.value for node in ast.walk(fn) if isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict)
            )
            tables[fn.name] = [(ast.literal_eval(k), ast.literal_eval(v)) for k, v in zip(table.keys, table.values)]
    return tuple(tables["unjoin_ligatures"]), tuple(tables["substitute_equivalences"])


def _normalize_sbb():
    return pytest.importorskip("dinglehopper.extracted_text").normalize_sbb


def _is_private_use(text):
    return len(text) == 1 and "\ue000" <= text <= "\uf8ff"


def test_dinglehopper_step_by_hand():
    canon = Canonicalizer(["dinglehopper"])
    assert canon("Auſ ſchoͤn \ufb01ſch \ueba7 — Gott’s ==") == "Auſ ſchön fiſch ſſi – Gott's –"
    assert canon("e\u0301") == "\u00e9"  # NFC first
    assert canon.version == "dinglehopper@1"
    assert Canonicalizer(["nfc", "mufi"]).version == "nfc+mufi@1"


def test_dinglehopper_step_maps_every_table_entry_as_dinglehopper_does():
    unjoin, equivalences = _dinglehopper_tables()
    assert len(unjoin) == 21 and len(equivalences) == 11  # dinglehopper 0.11's tables
    step, sbb = Canonicalizer(["dinglehopper"]), _normalize_sbb()
    for old, new in unjoin + equivalences:
        assert step(old) == sbb(old), (old, new)
        assert step(f"x{old}y") == sbb(f"x{old}y")


def test_mufi_step_maps_exactly_the_private_use_entries_of_dinglehopper_tables():
    unjoin, equivalences = _dinglehopper_tables()
    mufi = Canonicalizer(["mufi"])
    private = [(old, new) for old, new in unjoin + equivalences if _is_private_use(old)]
    assert len(private) == 19
    for old, new in private:
        assert mufi(old) == new
    for old, _ in unjoin + equivalences:
        if not _is_private_use(old):
            assert mufi(old) == old  # ligatures, dashes, quotes: left alone
    assert mufi("\ue000\uf8ff\ue5b8") == "\ue000\uf8ff\ue5b8"  # private use outside the tables: kept


def _table_alphabet():
    unjoin, equivalences = _dinglehopper_tables()
    return (
        "".join(sorted({ch for old, new in unjoin + equivalences for ch in old + new})) + "aeiouqQſs =-’—\u0301\u0308"
    )


@settings(max_examples=500, deadline=None)
@given(data=st.data())
def test_dinglehopper_step_equals_normalize_sbb_on_random_text(data):
    text = data.draw(st.text(alphabet=_table_alphabet() + "AbcxyzÄöü\u0364\u0303\n", max_size=30))
    assert Canonicalizer(["dinglehopper"])(text) == _normalize_sbb()(text)


@given(text=st.text(alphabet="aouſﬁ\ueba7\uf502\u0364\u2014\u2019= \u0301"))
def test_mufi_step_is_idempotent(text):
    mufi = Canonicalizer(["mufi"])
    assert mufi(mufi(text)) == mufi(text)
