"""The validation and correction pipeline through its public package, ek.validate."""

from __future__ import annotations

import math
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz import fuzz
from rapidfuzz.distance import Levenshtein

import ek.validate as V
from ek.base import FieldSpec, Finding, Severity
from ek.validate import (
    BENFORD_EXPECTED,
    Corrector,
    ValidationResult,
    benford_findings,
    canonicalize_corrector,
    cross_field_validator,
    lexicon_corrector,
    llm_corrector,
    lm_surprisal_validator,
    ordering_validator,
    stop_on_correction,
    stop_on_flag,
    validate,
    validation_pipeline,
    zscore_anomaly_findings,
)

COUNTRIES = ["France", "Germany", "Spain"]


class Recorder:
    """A layer that records the values it sees and yields nothing."""

    layer = "recorder"

    def __init__(self):
        self.seen = []

    def __call__(self, value, *, spec=None):
        self.seen.append(value)
        return []


def flagger(value, *, spec=None):
    yield Finding("x", "always", Severity.FLAG, "always flags")


# ---------------------------------------------------------------------------
# the pipeline
# ---------------------------------------------------------------------------


def test_spec_example_transposition_is_corrected():
    fix = validation_pipeline(lexicon_corrector(COUNTRIES), stop_when=stop_on_correction)
    r = fix("Frnace")
    assert r.value == "France" and r.original == "Frnace"
    assert r.corrected and not r.flagged and not r.clean
    assert r.findings[0].severity is Severity.CORRECT
    assert r.findings[0].suggestion == "France"


def test_correction_is_applied_before_the_next_layer_runs():
    seen = Recorder()
    r = validation_pipeline(canonicalize_corrector(["strip", "lower"]), seen)("  HeLLo ")
    assert seen.seen == ["hello"]
    assert (r.original, r.value) == ("  HeLLo ", "hello")


def test_chain_of_corrections_keeps_the_original_and_the_trail():
    p = validation_pipeline(canonicalize_corrector("collapse_whitespace"), lexicon_corrector(COUNTRIES))
    r = p("  Germny  ")
    assert r.original == "  Germny  " and r.value == "Germany"
    assert [(f.layer, f.suggestion) for f in r.findings] == [
        ("canonicalize", "Germny"),
        ("lexicon", "Germany"),
    ]


def test_apply_corrections_false_records_but_does_not_rewrite():
    seen = Recorder()
    r = validation_pipeline(lexicon_corrector(COUNTRIES), seen, apply_corrections=False)("Spian")
    assert r.value == "Spian" and seen.seen == ["Spian"]
    assert r.findings[0].suggestion == "Spain"
    assert not r.corrected  # a correction was proposed, but the value did not change


def test_stop_on_flag_skips_later_layers():
    later = Recorder()
    r = validation_pipeline(flagger, later, stop_when=stop_on_flag)("v")
    assert later.seen == [] and r.flagged


def test_stop_on_correction_skips_later_layers():
    later = Recorder()
    validation_pipeline(lexicon_corrector(COUNTRIES), later, stop_when=stop_on_correction)("Spian")
    assert later.seen == []


def test_default_runs_every_layer():
    later = Recorder()
    r = validation_pipeline(flagger, lexicon_corrector(COUNTRIES), later)("Spian")
    assert later.seen == ["Spain"]
    assert [f.severity for f in r.findings] == [Severity.FLAG, Severity.CORRECT]
    assert r.flagged and r.corrected


def test_clean_value_passes_untouched():
    r = validate("France", layers=[canonicalize_corrector("strip"), lexicon_corrector(COUNTRIES)])
    assert r.clean and r.value == "France" and not r.flagged and not r.corrected


def test_stop_policies():
    corr = Finding("f", "lexicon", Severity.CORRECT, suggestion="a")
    flag = Finding("f", "range")
    assert stop_on_correction([flag, corr]) and not stop_on_correction([flag])
    assert stop_on_flag([corr, flag]) and not stop_on_flag([corr])
    assert not stop_on_flag([]) and not stop_on_correction([])


def test_validate_without_layers_uses_the_spec():
    spec = FieldSpec("age", "number", domain=(0, 120))
    assert validate(150, spec=spec).flagged
    assert validate(30, spec=spec).clean
    assert validate("anything").clean  # no layers, no spec: nothing to check


def test_spec_is_passed_to_every_layer_and_names_findings():
    spec = FieldSpec("country", "string")
    r = validate("Spian", layers=[lexicon_corrector(COUNTRIES)], spec=spec)
    assert r.findings[0].field == "country"
    explicit = validate("Spian", layers=[lexicon_corrector(COUNTRIES, field_name="c")], spec=spec)
    assert explicit.findings[0].field == "c"


def test_validation_result_properties():
    r = ValidationResult("a", "a", [Finding("f", "l")])
    assert r.findings == (Finding("f", "l"),) and r.flagged and not r.clean and not r.corrected
    assert ValidationResult("a", "a").clean


def test_correctors_satisfy_the_protocol():
    assert isinstance(lexicon_corrector(COUNTRIES), Corrector)
    assert isinstance(canonicalize_corrector("lower"), Corrector)
    assert isinstance(llm_corrector(str.upper), Corrector)
    assert lexicon_corrector(COUNTRIES).layer == "lexicon"


def test_a_layer_must_be_callable():
    with pytest.raises(TypeError, match=r"layer 1 is a list, not a callable"):
        validation_pipeline(flagger, ["France"])


def test_stop_when_must_be_callable():
    with pytest.raises(TypeError, match=r"stop_when is a bool.*stop_on_correction"):
        validation_pipeline(flagger, stop_when=True)


def test_a_layer_must_yield_findings():
    def bad(value, *, spec=None):
        return ["looks wrong"]

    with pytest.raises(TypeError, match=r"layer 0 \(bad\) yielded a str.*Finding\(field, layer"):
        validate("x", layers=[bad])
    with pytest.raises(TypeError, match=r"returned a int, not an iterable of Finding"):
        validate("x", layers=[lambda v, *, spec=None: 3])


def test_a_layer_returning_none_means_no_findings():
    assert validate("x", layers=[lambda v, *, spec=None: None]).clean


# ---------------------------------------------------------------------------
# L0 canonicalization
# ---------------------------------------------------------------------------


def test_canonicalize_corrector_emits_correct_when_the_form_changes():
    fix = canonicalize_corrector(["nfc", "collapse_whitespace"], field_name="name")
    (f,) = fix("Cafe\u0301  Royal")
    assert f.severity is Severity.CORRECT and f.suggestion == "Caf\u00e9 Royal"
    assert f.field == "name" and f.layer == "canonicalize"
    assert list(fix("Caf\u00e9 Royal")) == []


def test_canonicalize_corrector_skips_non_strings():
    assert list(canonicalize_corrector("lower")(42)) == []


def test_canonicalize_corrector_accepts_a_callable():
    assert [f.suggestion for f in canonicalize_corrector(str.upper)("ab")] == ["AB"]


def test_canonicalize_corrector_needs_a_normalizer():
    with pytest.raises(ValueError, match=r"needs a normalizer, got None"):
        canonicalize_corrector(None)


@settings(max_examples=80, deadline=None)
@given(st.text(max_size=20))
def test_canonical_form_is_a_fixed_point(text):
    fix = canonicalize_corrector(["nfc", "lower", "collapse_whitespace"])
    once = validate(text, layers=[fix]).value
    assert validate(once, layers=[fix]).clean


# ---------------------------------------------------------------------------
# L2 lexicon
# ---------------------------------------------------------------------------


def test_lexicon_similarity_matches_rapidfuzz():
    (f,) = lexicon_corrector(COUNTRIES)("Frnace")
    expected = fuzz.ratio("Frnace", "France") / 100  # 1 - 2 indels / 12 chars = 0.833
    assert expected == pytest.approx(10 / 12)
    assert f"{expected:.2f}" in f.message


def test_lexicon_threshold_decides_correct_or_flag():
    # "Spn" vs "Spain": 2 indels over 8 chars -> 0.75 < 0.8 -> flag; 0.7 accepts it.
    assert [f.severity for f in lexicon_corrector(COUNTRIES)("Spn")] == [Severity.FLAG]
    (f,) = lexicon_corrector(COUNTRIES, threshold=0.7)("Spn")
    assert (f.severity, f.suggestion) == (Severity.CORRECT, "Spain")


def test_lexicon_unmatched_and_open_vocabulary():
    (f,) = lexicon_corrector(COUNTRIES)("Atlantis")
    assert f.severity is Severity.FLAG and "not in the vocabulary" in f.message
    assert list(lexicon_corrector(COUNTRIES, flag_unmatched=False)("Atlantis")) == []


def test_lexicon_tie_is_flagged_not_guessed():
    # Both members are one substitution (two indels over 16 chars, 0.875) away.
    (f,) = lexicon_corrector(["abcdefgi", "abcdefgj"])("abcdefgx")
    assert f.severity is Severity.FLAG and f.suggestion is None
    assert "'abcdefgi'" in f.message and "'abcdefgj'" in f.message and "0.88" in f.message


def test_lexicon_non_string_value_is_out_of_vocabulary():
    (f,) = lexicon_corrector(COUNTRIES)(None)
    assert f.severity is Severity.FLAG


def test_lexicon_scorer_on_a_unit_scale():
    # Levenshtein normalized similarity is in [0, 1]: "Spian" vs "Spain" = 1 - 2/5 = 0.6.
    fix = lexicon_corrector(COUNTRIES, scorer=Levenshtein.normalized_similarity, threshold=0.6)
    assert [f.suggestion for f in fix("Spian")] == ["Spain"]
    strict = lexicon_corrector(COUNTRIES, scorer=Levenshtein.normalized_similarity, threshold=0.61)
    assert [f.severity for f in strict("Spian")] == [Severity.FLAG]


def test_lexicon_refuses_a_distance_scorer():
    with pytest.raises(ValueError, match=r"must be a similarity"):
        lexicon_corrector(COUNTRIES, scorer=Levenshtein.distance)


@pytest.mark.parametrize("threshold", [-0.1, 1.5, 80])
def test_lexicon_threshold_must_be_a_unit_share(threshold):
    with pytest.raises(ValueError, match=r"threshold must be a similarity in \[0, 1\]"):
        lexicon_corrector(COUNTRIES, threshold=threshold)


def test_lexicon_vocabulary_checks():
    with pytest.raises(ValueError, match=r"empty vocabulary"):
        lexicon_corrector([])
    with pytest.raises(TypeError, match=r"single string 'France'"):
        lexicon_corrector("France")
    with pytest.raises(TypeError, match=r"holds a int"):
        lexicon_corrector(["a", 1])


@settings(max_examples=80, deadline=None)
@given(st.text(alphabet="abcdeFGS ", max_size=10))
def test_lexicon_only_ever_suggests_members(value):
    vocab = ["France", "Germany", "Spain", "Sweden"]
    for f in lexicon_corrector(vocab, threshold=0.3)(value):
        assert f.suggestion is None or f.suggestion in vocab


# ---------------------------------------------------------------------------
# L3 surprisal and L5 LLM correction
# ---------------------------------------------------------------------------


def test_surprisal_validator_flags_above_threshold():
    check = lm_surprisal_validator(lambda s: 2.0 * len(s), threshold=10, field_name="t")
    assert list(check("short")) == []
    (f,) = check("much longer text")
    assert f.severity is Severity.FLAG and f.field == "t" and f.layer == "lm_prior"
    assert list(check(12345)) == []  # non-strings are not scored


def test_surprisal_validator_probability_scorer():
    check = lm_surprisal_validator(lambda s: 0.9 if s == "ok" else 0.01, threshold=0.1, higher_is_worse=False)
    assert list(check("ok")) == [] and len(list(check("zzkq"))) == 1


def test_surprisal_validator_bad_scores():
    with pytest.raises(ValueError, match=r"returned NaN"):
        list(lm_surprisal_validator(lambda s: math.nan, threshold=1)("x"))
    with pytest.raises(TypeError, match=r"returned a str"):
        list(lm_surprisal_validator(lambda s: "high", threshold=1)("x"))
    with pytest.raises(ValueError, match=r"threshold must be a finite number"):
        lm_surprisal_validator(len, threshold=math.inf)
    with pytest.raises(TypeError, match=r"scorer is a int"):
        lm_surprisal_validator(3, threshold=1)


def test_surprisal_validator_takes_any_real_or_0d_score():
    # model-backed scorers return numpy float32 / 0-d tensors, not Python floats
    from fractions import Fraction

    class Scalar:  # the shape of a 0-d numpy array or torch tensor
        ndim = 0

        def __init__(self, v):
            self.v = v

        def item(self):
            return self.v

    assert len(list(lm_surprisal_validator(lambda s: Fraction(9), threshold=5)("abc"))) == 1
    assert len(list(lm_surprisal_validator(lambda s: Scalar(9.0), threshold=5)("abc"))) == 1
    assert list(lm_surprisal_validator(lambda s: Scalar(1.0), threshold=5)("abc")) == []


def test_llm_corrector_is_gated_on_an_earlier_flag():
    calls = []

    def model(v):
        calls.append(v)
        return "OSLO"

    fix = llm_corrector(model)
    assert validate("OSLO", layers=[lexicon_corrector(["OSLO"]), fix]).clean
    assert calls == []  # nothing flagged, the model is never called
    r = validate("0SL0", layers=[lexicon_corrector(["OSLO"], threshold=0.9), fix])
    assert calls == ["0SL0"]
    assert (r.original, r.value, r.flagged, r.corrected) == ("0SL0", "OSLO", True, True)
    assert [f.layer for f in r.findings] == ["lexicon", "llm_correct"]


def test_llm_corrector_alone_is_inert_when_gated():
    assert list(llm_corrector(str.upper)("abc")) == []
    (f,) = llm_corrector(str.upper, only_flagged=False)("abc")
    assert f.suggestion == "ABC" and f.severity is Severity.CORRECT


def test_llm_corrector_none_means_keep():
    r = validate("x", layers=[flagger, llm_corrector(lambda v: None)])
    assert r.value == "x" and not r.corrected


def test_llm_corrector_wrong_return_type():
    with pytest.raises(TypeError, match=r"returned a int.*corrected str, or None"):
        validate("x", layers=[flagger, llm_corrector(lambda v: 7)])
    with pytest.raises(TypeError, match=r"correct_fn is a str"):
        llm_corrector("gpt")


# ---------------------------------------------------------------------------
# cross-field and ordering
# ---------------------------------------------------------------------------


def test_cross_field_validator_flags_and_skips_partial_records():
    check = cross_field_validator(lambda r: r["net"] <= r["gross"], message="net above gross", fields=("net", "gross"))
    (f,) = check({"net": 12, "gross": 10})
    assert (f.field, f.layer, f.message) == ("net,gross", "cross_field", "net above gross")
    assert f.severity is Severity.FLAG
    assert list(check({"net": 8, "gross": 10})) == []
    assert list(check({"net": 8})) == []  # missing field: not a violation
    assert list(check({"net": None, "gross": 1})) == []  # None compared: skipped


def test_cross_field_validator_argument_checks():
    with pytest.raises(TypeError, match=r"message must be a non-empty str"):
        cross_field_validator(lambda r: True, message="")
    with pytest.raises(TypeError, match=r"predicate is a str"):
        cross_field_validator("r.net <= r.gross", message="m")


def test_ordering_validator_strict_and_non_strict():
    strict = ordering_validator(["start", "end"])
    relaxed = ordering_validator(["start", "end"], strict=False)
    same = {"start": "2024-01-01", "end": "2024-01-01"}
    assert len(list(strict(same))) == 1 and list(relaxed(same)) == []
    (f,) = relaxed({"start": "2024-02-01", "end": "2024-01-01"})
    assert f.field == "start,end" and "is after" in f.message


def test_ordering_validator_partial_and_incomparable_records():
    check = ordering_validator(["a", "b", "c"])
    assert list(check({"a": 1, "c": 3})) == []  # b missing: a vs c compared
    assert len(list(check({"a": 5, "c": 3}))) == 1
    assert list(check({"a": 1, "b": "x", "c": 3})) == []  # str vs int: skipped
    assert list(check({})) == []


def test_ordering_validator_argument_checks():
    with pytest.raises(ValueError, match=r"at least two keys"):
        ordering_validator(["only"])
    with pytest.raises(TypeError, match=r"checks a record.*got a str"):
        list(ordering_validator(["a", "b"])("2024-01-01"))


# ---------------------------------------------------------------------------
# Benford and robust z-scores
# ---------------------------------------------------------------------------


def test_benford_expected_shares():
    assert BENFORD_EXPECTED[1] == pytest.approx(math.log10(2))
    assert sum(BENFORD_EXPECTED.values()) == pytest.approx(1.0)
    assert V.DEFAULT_BENFORD_TOL == 0.15 and V.DEFAULT_BENFORD_MIN_N == 30


def test_benford_accepts_a_benford_column():
    # Leading digits of 2**k are equidistributed in log scale: Benford holds closely.
    assert benford_findings([2**k for k in range(1, 500)]) == []


def test_benford_flags_uniform_first_digits():
    # Digits 1..9 equally often: digit 1 has 1/9 = 11.1% vs 30.1%, a gap of 0.190 > 0.15.
    values = [d * 10 + 3 for d in range(1, 10)] * 5
    (f,) = benford_findings(values, field="amount")
    assert (f.field, f.layer, f.severity) == ("amount", "anomaly", Severity.FLAG)
    assert "start with 1" in f.message and "0.190" in f.message
    assert benford_findings(values, tol=0.2) == []


def test_benford_reads_first_significant_digits():
    # Small, negative, Decimal and string forms all start with 9; zeros are unusable.
    values = [0.0009, -9.5, Decimal("9.1E+3"), "95", 9] * 6 + [0] * 40
    (f,) = benford_findings(values)
    assert "n=30" in f.message and "start with 9" in f.message


def test_benford_skips_small_samples():
    assert benford_findings([9] * 29) == []
    assert benford_findings([9] * 29 + [None, "n/a", math.nan]) == []
    assert len(benford_findings([9] * 5, min_n=5)) == 1


def test_benford_argument_checks():
    with pytest.raises(ValueError, match=r"tol must be a share in \(0, 1\]"):
        benford_findings([1, 2], tol=0)
    with pytest.raises(ValueError, match=r"min_n must be an int >= 1"):
        benford_findings([1, 2], min_n=0)
    with pytest.raises(TypeError, match=r"single string"):
        benford_findings("12345")


def test_zscore_hand_worked_outlier():
    # 1..29 and 1000: median 15.5; deviations 0.5, 0.5, 1.5, 1.5, ... so MAD = 7.5.
    # z(1000) = 0.6745 * 984.5 / 7.5 = 88.54; z(1) = 0.6745 * 14.5 / 7.5 = 1.30.
    values = list(range(1, 30)) + [1000]
    (f,) = zscore_anomaly_findings(values, field="qty")
    assert f.field == "qty[29]" and f.severity is Severity.FLAG
    assert "88.54" in f.message


def test_zscore_mad_zero_falls_back_to_mean_absolute_deviation():
    # 29 fives and one 50: MAD = 0; mean |x - 5| = 45 / 30 = 1.5;
    # z = 45 / (1.253314 * 1.5) = 23.94.
    values = [5] * 15 + [50] + [5] * 14
    (f,) = zscore_anomaly_findings(values)
    assert f.field == "[15]" and "23.94" in f.message


def test_zscore_constant_and_small_columns_yield_nothing():
    assert zscore_anomaly_findings([7] * 40) == []
    assert zscore_anomaly_findings([1, 2, 1000]) == []
    assert zscore_anomaly_findings([1, 2, 3, 2, 1000], min_n=5)[0].field == "[4]"


def test_zscore_indices_skip_unusable_values_but_keep_positions():
    values = [None] + [10, 11, 9, 10, 12] * 6 + ["x", 400]
    (f,) = zscore_anomaly_findings(values)
    assert f.field == "[32]"


def test_zscore_argument_checks():
    with pytest.raises(ValueError, match=r"threshold must be a positive number"):
        zscore_anomaly_findings([1, 2], threshold=0)
    with pytest.raises(ValueError, match=r"min_n must be an int >= 1"):
        zscore_anomaly_findings([1, 2], min_n=1.5)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(-1000, 1000), min_size=30, max_size=60), st.integers(1, 50), st.integers(-500, 500))
def test_zscore_is_invariant_to_shift_and_scale(values, scale, shift):
    moved = [v * scale + shift for v in values]
    assert [f.field for f in zscore_anomaly_findings(values)] == [f.field for f in zscore_anomaly_findings(moved)]


# ---------------------------------------------------------------------------
# re-exported verifiers
# ---------------------------------------------------------------------------


def test_verifiers_are_re_exported_from_ek_qe():
    from ek.qe import verifiers

    for name in (
        "checksum_validator",
        "regex_validator",
        "range_validator",
        "enum_validator",
        "schema_validator",
        "totals_consistent",
        "luhn_check",
        "iban_check",
        "isbn_check",
    ):
        assert getattr(V, name) is getattr(verifiers, name), name
        assert name in V.__all__


def test_verifiers_compose_with_correctors():
    layers = [canonicalize_corrector("strip"), V.checksum_validator("luhn")]
    bad = validate("79927398710", layers=layers)
    assert bad.flagged and not bad.corrected
    good = validate(" 79927398713 ", layers=layers)  # stripped first, then the checksum passes
    assert good.value == "79927398713" and good.corrected and not good.flagged
    assert all(hasattr(V, n) for n in V.__all__)
    assert V.DEFAULT_LEXICON_THRESHOLD == 0.8 and V.DEFAULT_ZSCORE_THRESHOLD == 3.5
