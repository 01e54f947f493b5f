"""ek.ocr.profiles: the capability table and its lookup."""

import pytest

from ek.ocr.profiles import DEFAULT_PROFILE, ENGINE_PROFILES, profile

_FIELDS = {"calibrated", "confidence_grain", "has_real_provenance", "tables"}


def test_every_profile_has_the_four_fields_with_valid_values():
    assert len(ENGINE_PROFILES) == 17
    for engine, claims in ENGINE_PROFILES.items():
        assert set(claims) == _FIELDS, engine
        assert claims["confidence_grain"] in {"symbol", "word", "line", "none"}, engine
        assert engine == engine.lower() and "_" not in engine


def test_known_claims():
    assert profile("tesseract") == {
        "calibrated": False,
        "confidence_grain": "symbol",
        "has_real_provenance": True,
        "tables": False,
    }
    assert profile("mathpix")["calibrated"] is True
    assert [e for e, c in ENGINE_PROFILES.items() if c["calibrated"]] == ["mathpix"]
    assert sorted(e for e, c in ENGINE_PROFILES.items() if c["tables"]) == [
        "aws-textract",
        "azure-document-intelligence",
        "paddleocr",
    ]
    assert profile("claude-vision")["has_real_provenance"] is False


@pytest.mark.parametrize("spelling", ["google_vision", "Google-Vision", " google-vision "])
def test_underscore_and_case_variants(spelling):
    assert profile(spelling) == ENGINE_PROFILES["google-vision"]


def test_unknown_engine_gets_the_default():
    assert profile("totally-unknown-engine") == DEFAULT_PROFILE
    assert DEFAULT_PROFILE["confidence_grain"] == "unknown"


def test_profile_returns_a_copy():
    p = profile("tesseract")
    p["tables"] = True
    assert ENGINE_PROFILES["tesseract"]["tables"] is False
    d = profile("nope")
    d["calibrated"] = True
    assert DEFAULT_PROFILE["calibrated"] is False


def test_non_string_engine_is_a_type_error():
    with pytest.raises(TypeError, match=r"profile\(\) takes an engine id"):
        profile(lambda image: "x")
