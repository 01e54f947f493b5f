"""The validation pipeline (ek.validate._pipeline): nested pipelines, plain layers, gated layers."""

import pytest

from ek.base import FieldSpec, Finding, Severity
from ek.qe.verifiers import checksum_validator
from ek.validate import (
    ValidationResult,
    canonicalize_corrector,
    lexicon_corrector,
    llm_corrector,
    stop_on_flag,
    validate,
    validation_pipeline,
)


def test_a_nested_pipeline_is_one_layer():
    inner = validation_pipeline(canonicalize_corrector("strip"), lexicon_corrector(["France", "Spain"]))
    seen = []

    def after(value, *, spec=None):
        seen.append(value)
        return []

    r = validation_pipeline(inner, after)("  Frnace ")
    assert r.original == "  Frnace " and r.value == "France" and seen == ["France"]
    assert [f.layer for f in r.findings] == ["canonicalize", "lexicon"]  # the inner trail, in order
    assert r.corrected


def test_a_nested_pipeline_that_does_not_apply_keeps_the_value():
    inner = validation_pipeline(canonicalize_corrector("strip"), apply_corrections=False)
    r = validation_pipeline(inner)(" x ")
    assert r.value == " x " and [f.suggestion for f in r.findings] == ["x"]


def test_a_gated_corrector_inside_a_nested_pipeline_sees_the_outer_flags():
    inner = validation_pipeline(llm_corrector(lambda v: v.replace("0", "O")))
    r = validation_pipeline(checksum_validator("luhn"), inner)("0SL0")
    assert r.value == "OSLO" and [f.layer for f in r.findings] == ["checksum", "llm_correct"]
    assert validation_pipeline(inner)("0SL0").clean  # no flag anywhere: the corrector stays gated


def test_a_pipeline_takes_earlier_findings():
    gated = validation_pipeline(llm_corrector(str.upper))
    earlier = (Finding("name", "ocr", Severity.FLAG, "blurred"),)
    assert gated("acme", findings=earlier).value == "ACME"
    assert gated("acme").value == "acme"


def test_a_layer_without_spec_is_called_without_it():
    def plain(value):
        return [Finding("", "plain", message=f"saw {value}")]

    r = validate("x", layers=[plain], spec=FieldSpec("f", "string"))
    assert [f.message for f in r.findings] == ["saw x"]


def test_a_layer_with_spec_gets_it():
    got = []

    def spec_aware(value, *, spec=None):
        got.append(spec)
        return []

    validate("x", layers=[spec_aware], spec=FieldSpec("f", "string"))
    assert got == [FieldSpec("f", "string")]


def test_stop_policy_sees_the_nested_findings():
    inner = validation_pipeline(checksum_validator("luhn"))
    reached = []
    r = validation_pipeline(inner, lambda v: reached.append(v) or [], stop_when=stop_on_flag)("79927398710")
    assert r.flagged and reached == []


def test_a_pipeline_result_is_a_validation_result():
    assert isinstance(validation_pipeline()("x"), ValidationResult)


def test_a_nested_pipeline_of_bad_layers_still_says_what_is_wrong():
    inner = validation_pipeline(lambda v, *, spec=None: 42)
    with pytest.raises(TypeError, match=r"pipeline layer 0 \(<lambda>\) returned a int, not an iterable of Finding"):
        validation_pipeline(inner)("x")
