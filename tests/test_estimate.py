"""ek.estimate_quality over a value, a FieldEstimate and an AnnotatedExtraction (ek._estimate)."""

import dataclasses
import math

import pytest

import ek
from ek.base import (
    AnnotatedExtraction,
    Decision,
    FieldEstimate,
    FieldSpec,
    Finding,
    GraphGrammar,
    NodePath,
    NodeType,
    QualityReport,
    Severity,
)
from ek.qe import (
    AgreementSignal,
    CostSensitiveGate,
    GroupCalibrator,
    GroupConformalGate,
    IntrinsicConfidenceSignal,
    PlattCalibrator,
    SignalFamilyCalibrator,
    VerifierSignal,
    checksum_validator,
    enum_validator,
    min_probability,
    schema_validator,
)
from ek.validate import canonicalize_corrector, lexicon_corrector, llm_corrector, validation_pipeline

A, F, B = Decision.ACCEPT, Decision.FLAG, Decision.BLOCK
CAL = PlattCalibrator(a=6.0, b=-3.0)  # a hand-made fitted calibrator: sigmoid(6s - 3)


def _sig(s):
    return 1 / (1 + math.exp(-(6 * s - 3)))


def _invoice():
    grammar = GraphGrammar(
        node_types={
            "invoice": NodeType(
                "invoice",
                fields={
                    "card": FieldSpec("card", "string"),
                    "amount": FieldSpec("amount", "number", domain=(0, 1000)),
                },
            ),
            "party": NodeType("party", fields={"name": FieldSpec("name", "string")}),
        }
    )
    estimates = {
        NodePath("i1", "invoice", "card"): FieldEstimate("79927398713", confidence=0.9),
        NodePath("i1", "invoice", "amount"): FieldEstimate("12.50", confidence=0.7),
        NodePath("p1", "party", "name"): FieldEstimate("ACME", confidence=0.95),
    }
    return AnnotatedExtraction(grammar, estimates)


def test_simple_call_just_works():
    r = ek.estimate_quality("12.50")
    assert isinstance(r, QualityReport)
    assert r.calibrated_confidence is None and r.decision is None and r.raw_signals == {}


def test_field_confidence_is_calibrated_then_gated():
    r = ek.estimate_quality(FieldEstimate("12.50", confidence=0.9), calibrator=CAL, policy=CostSensitiveGate())
    assert r.calibrated_confidence == pytest.approx(_sig(0.9)) and r.decision is A
    assert r.provenance["score_source"] == "confidence" and r.provenance["raw_score"] == 0.9
    low = ek.estimate_quality(FieldEstimate("12.50", confidence=0.3), calibrator=CAL, policy="cost_sensitive")
    assert low.decision is F


def test_sources_add_rover_agreement():
    r = ek.estimate_quality("the cat sat", sources=["the cat sit", "the bat sat"], calibrator=CAL)
    assert r.raw_signals == {"agreement": pytest.approx(7 / 9)}
    assert r.calibrated_confidence == pytest.approx(_sig(7 / 9))  # mean of the raw signals
    off = ek.estimate_quality("the cat sat", sources=["the cat sit"], agreement=False)
    assert off.raw_signals == {}


def test_signals_run_cheapest_first_and_may_return_mappings():
    calls = []

    class Judge:
        cost_tier, name = 4, "judge"

        def __call__(self, value):
            calls.append("judge")
            return {"judge": 0.8, "judge_len": 0.5}

    def free(value):
        calls.append("free")
        return 0.6

    free.cost_tier = 1
    r = ek.estimate_quality("x", signals=[Judge(), free, VerifierSignal([checksum_validator("luhn")])])
    assert calls == ["free", "judge"]
    assert r.raw_signals == {"free": 0.6, "verifier": 0.0, "judge": 0.8, "judge_len": 0.5}


def test_signal_names_resolve_through_the_registry():
    r = ek.estimate_quality([0.9, 0.4], signals=["intrinsic"])
    assert r.raw_signals == {"intrinsic": 0.4}
    with pytest.raises(KeyError, match="Did you mean 'intrinsic'"):
        ek.estimate_quality("x", signals=["intrinsc"])


def test_assume_calibrated_passes_confidence_through():
    r = ek.estimate_quality(
        FieldEstimate("x", confidence=0.97), policy=CostSensitiveGate(rho=9), assume_calibrated=True
    )
    assert r.calibrated_confidence == 0.97 and r.decision is A


def test_failed_verifier_blocks_and_correction_flags():
    gate = CostSensitiveGate()
    bad = ek.estimate_quality(
        FieldEstimate("79927398710", confidence=0.99),
        calibrator=CAL,
        validators=[checksum_validator("luhn")],
        policy=gate,
    )
    assert bad.decision is B and [f.layer for f in bad.findings] == ["checksum"]
    assert bad.provenance["decision_reason"] == "a validator flagged the value"
    fix = Finding("x", "canonicalize", Severity.CORRECT, "strip spaces", suggestion="12.50")
    corrected = ek.estimate_quality(
        FieldEstimate(" 12.50", confidence=0.99, findings=(fix,)), calibrator=CAL, policy=gate
    )
    assert corrected.decision is F


def test_nothing_to_calibrate_is_flagged():
    r = ek.estimate_quality("x", calibrator=CAL, policy=CostSensitiveGate())
    assert r.decision is F and r.provenance["decision_reason"] == "no signal or confidence to calibrate"


def test_whole_extraction_per_field_with_specs_and_scoped_validators():
    r = ek.estimate_quality(
        _invoice(),
        calibrator=CAL,
        policy=CostSensitiveGate(),
        validators={"card": [checksum_validator("luhn")], "*": [schema_validator]},
    )
    card, amount, _name = r.per_field.values()
    assert card.decision is A and card.confidence == pytest.approx(_sig(0.9))
    assert amount.decision is A and amount.confidence == pytest.approx(_sig(0.7))
    assert r.calibrated_confidence == pytest.approx(_sig(0.7))  # the weakest field
    assert r.decision is A and r.provenance["n_fields"] == 3
    ex = _invoice()
    path = NodePath("i1", "invoice", "amount")
    broken = AnnotatedExtraction(ex.grammar, {**ex.estimates, path: FieldEstimate("5000", confidence=0.99)})
    r2 = ek.estimate_quality(broken, calibrator=CAL, policy=CostSensitiveGate(), validators=[schema_validator])
    assert r2.per_field[path].decision is B and r2.decision is B  # most severe wins
    (finding,) = r2.findings
    assert finding.field == "amount" and finding.layer == "domain"


def test_unnamed_findings_get_the_field_name():
    r = ek.estimate_quality(_invoice(), validators={"card": [lambda v: [Finding("", "custom", message="no")]]})
    (finding,) = r.findings
    assert finding.field == "card"


def test_node_type_is_the_group_key():
    cal = GroupCalibrator(by_group={"invoice": PlattCalibrator(a=1.0, b=5.0)}, pooled=PlattCalibrator(a=1.0, b=-5.0))
    r = ek.estimate_quality(_invoice(), calibrator=cal)
    fields = {p.node_type: f.confidence for p, f in r.per_field.items()}
    assert fields["invoice"] > 0.99 and fields["party"] < 0.02
    p = [0.9] * 20 + [0.2] * 20
    gate = GroupConformalGate(alpha=0.1).fit(p, [True] * 40, groups=["invoice"] * 20 + ["party"] * 20)
    r = ek.estimate_quality(_invoice(), policy=gate, assume_calibrated=True)
    decisions = {p.field: f.decision for p, f in r.per_field.items()}
    assert decisions == {"card": A, "amount": F, "name": A}


def test_sources_per_field_on_an_extraction():
    path = NodePath("p1", "party", "name")
    r = ek.estimate_quality(_invoice(), sources={path: ["ACME"], "card": ["79927398713", "79927398710"]})
    assert r.per_field[path].raw_signals == {"agreement": 1.0}
    assert r.per_field[NodePath("i1", "invoice", "card")].raw_signals["agreement"] == pytest.approx(2 / 3)


def test_per_family_calibration():
    rows = [
        {"judge": j, "confidence": c}
        for j, c in [(0.9, 0.95), (0.8, 0.7), (0.85, 0.3), (0.3, 0.9), (0.2, 0.1), (0.7, 0.2), (0.6, 0.8), (0.4, 0.3)]
    ]
    correct = [True, True, False, True, False, False, True, False]
    fam = SignalFamilyCalibrator().fit(rows, correct)
    fe = FieldEstimate("x", raw_signals={"judge": 0.9}, confidence=0.95)
    r = ek.estimate_quality(fe, calibrator=fam, policy=CostSensitiveGate())
    per = r.provenance["calibrated_signals"]
    assert per == {"judge": fam.calibrators["judge"](0.9), "confidence": fam.calibrators["confidence"](0.95)}
    assert r.calibrated_confidence == pytest.approx(fam({"judge": 0.9, "confidence": 0.95}))
    single = ek.estimate_quality(
        FieldEstimate("x", raw_signals={"judge": 0.9}), calibrator=dict(fam.calibrators), policy=CostSensitiveGate()
    )
    assert single.calibrated_confidence == fam.calibrators["judge"](0.9)  # one family gates as is


# --------------------------------------------------------------------------
# Hard Rule 1 and other bad input
# --------------------------------------------------------------------------


def test_policy_without_calibrator_raises():
    with pytest.raises(ValueError, match="a raw, uncalibrated score must never reach a decision policy"):
        ek.estimate_quality(FieldEstimate("x", confidence=0.9), policy=CostSensitiveGate())


def test_fused_families_without_fusion_calibrator_cannot_be_gated():
    cals = {"judge": CAL, "agreement": CAL}
    fe = FieldEstimate("the cat", raw_signals={"judge": 0.8})
    with pytest.raises(ValueError, match=r"fused 2 signal families \(agreement, judge\) without a fusion calibrator"):
        ek.estimate_quality(fe, sources=["the cat"], calibrator=cals, policy=CostSensitiveGate())
    ok = ek.estimate_quality(
        fe, sources=["the cat"], calibrator=cals, policy=CostSensitiveGate(), assume_calibrated=True
    )
    assert ok.calibrated_confidence == pytest.approx((_sig(0.8) + _sig(1.0)) / 2)
    ungated = ek.estimate_quality(fe, sources=["the cat"], calibrator=cals)
    # issue 11, item 12: with no policy the fused value is reported, marked as not fusion-calibrated
    assert ungated.calibrated_confidence == pytest.approx((_sig(0.8) + _sig(1.0)) / 2)
    assert ungated.provenance["fused_uncalibrated"] is True


def test_signal_without_a_family_calibrator():
    with pytest.raises(ValueError, match=r"signal 'judge' has no calibrator and there is no '\*' fallback"):
        ek.estimate_quality(FieldEstimate("x", raw_signals={"judge": 0.8}), calibrator={"agreement": CAL})


def test_calibrator_by_name_points_to_load_calibrator():
    with pytest.raises(TypeError, match=r"ek.load_calibrator\('platt'\)"):
        ek.estimate_quality("x", calibrator="platt")


def test_flat_sources_on_an_extraction_need_two_readings():
    with pytest.raises(ValueError, match="one whole-document reading in sources; agreement needs at least two"):
        ek.estimate_quality(_invoice(), sources=["a b"])
    with pytest.raises(TypeError, match="sources is a single str; pass a list of whole-document readings"):
        ek.estimate_quality(_invoice(), sources="a b")


def test_assumed_calibrated_confidence_must_be_a_probability():
    with pytest.raises(ValueError, match=r"assumed-calibrated confidence is 3.0, outside \[0, 1\]"):
        ek.estimate_quality(FieldEstimate("x", confidence=3.0), policy=CostSensitiveGate(), assume_calibrated=True)


def test_non_finite_signal_output():
    with pytest.raises(ValueError, match=r"signal 'broken' output is nan"):

        def broken(value):
            return math.nan

        ek.estimate_quality("x", signals=[broken])


def test_agreement_signal_exposed_at_top_level():
    assert ek.AgreementSignal is AgreementSignal and ek.IntrinsicConfidenceSignal is IntrinsicConfidenceSignal


def test_unfitted_calibrator_class_is_refused():
    # calling the class used to build a PlattCalibrator(a=score) and fail with a confusing message
    fe = FieldEstimate("x", confidence=0.7)
    with pytest.raises(
        TypeError,
        match=r"calibrator is the class PlattCalibrator, not a fitted calibrator.*"
        r"PlattCalibrator\(\)\.fit\(scores, correct\)",
    ):
        ek.estimate_quality(fe, calibrator=PlattCalibrator, policy=CostSensitiveGate())
    with pytest.raises(TypeError, match=r"calibrator\['\*'\] is the class PlattCalibrator"):
        ek.estimate_quality(fe, calibrator={"*": PlattCalibrator}, policy=CostSensitiveGate())


# --------------------------------------------------------------------------
# blank engines in sources (issue 11, item 5)
# --------------------------------------------------------------------------


def test_blank_sources_lower_agreement_without_raising():
    # the value and two blank engines: every slot has 1 token vote (0.5/3 + 0.5 * 1.0 = 0.667)
    # against 2 NULL votes (0.5 * 2/3 + 0.5 * 0.7 = 0.683), so NULL wins: nothing agreed
    r = ek.estimate_quality("the cat", sources=[None, ""])
    assert r.raw_signals == {"agreement": 0.0}
    one_blank = ek.estimate_quality("the cat", sources=["the cat", None])
    assert one_blank.raw_signals["agreement"] == pytest.approx(2 / 3)
    assert ek.estimate_quality(None, sources=["the cat", "the cat"]).raw_signals["agreement"] == pytest.approx(2 / 3)


# --------------------------------------------------------------------------
# flat sources on an extraction (issue 11, item 11)
# --------------------------------------------------------------------------


def _unscored_invoice():
    ex = _invoice()
    return AnnotatedExtraction(ex.grammar, {p: FieldEstimate(fe.value) for p, fe in ex.estimates.items()})


def test_flat_sources_give_one_agreement_to_every_field():
    # two readings of 6 tokens differing in one: "sat"/"sit" tie 1-1 and the first engine's wins,
    # with vote share 1/2, so the mean agreement is (5 + 0.5) / 6
    readings = ["the cat sat on the mat", "the cat sit on the mat"]
    r = ek.estimate_quality(_unscored_invoice(), sources=readings, calibrator=CAL)
    assert r.raw_signals == {"agreement": pytest.approx(11 / 12)}
    for fe in r.per_field.values():
        assert fe.raw_signals == {"agreement": pytest.approx(11 / 12)}
        assert fe.confidence == pytest.approx(_sig(11 / 12))  # calibrated from the shared agreement
    assert r.calibrated_confidence == pytest.approx(_sig(11 / 12))


def test_flat_sources_feed_per_field_calibration_and_gating():
    cal = GroupCalibrator(by_group={"invoice": PlattCalibrator(a=1.0, b=5.0)}, pooled=PlattCalibrator(a=1.0, b=-5.0))
    r = ek.estimate_quality(
        _unscored_invoice(), sources=["a b c d", "a b c e"], calibrator=cal, policy=CostSensitiveGate()
    )
    decisions = {p.node_type: fe.decision for p, fe in r.per_field.items()}
    assert decisions == {"invoice": A, "party": F}  # sigmoid(0.875 + 5) vs sigmoid(0.875 - 5)
    assert r.per_field[NodePath("p1", "party", "name")].confidence == pytest.approx(1 / (1 + math.exp(5 - 0.875)))


def test_flat_sources_with_blank_readings_and_without_agreement():
    r = ek.estimate_quality(_unscored_invoice(), sources=["the cat", None])
    assert r.raw_signals == {"agreement": 0.5}
    off = ek.estimate_quality(_unscored_invoice(), sources=["the cat", "the cat"], agreement=False)
    assert off.raw_signals == {} and all(fe.raw_signals == {} for fe in off.per_field.values())


def test_a_field_keeps_its_own_agreement():
    ex = _unscored_invoice()
    path = NodePath("p1", "party", "name")
    own = AnnotatedExtraction(ex.grammar, {**ex.estimates, path: FieldEstimate("ACME", raw_signals={"agreement": 0.3})})
    r = ek.estimate_quality(own, sources=["x y", "x y"])
    assert r.per_field[path].raw_signals == {"agreement": 0.3}
    assert r.per_field[NodePath("i1", "invoice", "card")].raw_signals == {"agreement": 1.0}


# --------------------------------------------------------------------------
# per-family calibration without a fusion calibrator (issue 11, item 12)
# --------------------------------------------------------------------------

CAL2 = PlattCalibrator(a=4.0, b=-1.0)


def _sig2(s):
    return 1 / (1 + math.exp(-(4 * s - 1)))


def test_mapping_calibrator_reports_the_mean_of_its_families():
    fe = FieldEstimate("x", raw_signals={"judge": 0.8}, confidence=0.4)  # the confidence is a family too
    r = ek.estimate_quality(fe, calibrator={"judge": CAL, "confidence": CAL2})
    assert r.calibrated_confidence == pytest.approx((_sig(0.8) + _sig2(0.4)) / 2)
    assert r.provenance["calibrated_signals"] == {
        "judge": pytest.approx(_sig(0.8)),
        "confidence": pytest.approx(_sig2(0.4)),
    }
    assert r.provenance["fused_uncalibrated"] is True and r.decision is None


def test_min_probability_combiner_reports_the_minimum():
    fam = SignalFamilyCalibrator(calibrators={"judge": CAL, "*": CAL2}, combine=min_probability)
    fe = FieldEstimate("x", raw_signals={"judge": 0.8, "logprob": 0.1})
    r = ek.estimate_quality(fe, calibrator=fam)
    assert r.calibrated_confidence == pytest.approx(min(_sig(0.8), _sig2(0.1)))


def test_per_family_values_on_an_extraction():
    ex = _invoice()  # confidences 0.9, 0.7, 0.95; every field also gets a judge score
    judged = AnnotatedExtraction(
        ex.grammar, {p: dataclasses.replace(fe, raw_signals={"judge": 0.5}) for p, fe in ex.estimates.items()}
    )
    r = ek.estimate_quality(judged, calibrator={"judge": CAL, "confidence": CAL2})
    expected = {p: (_sig(0.5) + _sig2(fe.confidence)) / 2 for p, fe in ex.estimates.items()}
    assert {p: fe.confidence for p, fe in r.per_field.items()} == pytest.approx(expected)
    assert r.calibrated_confidence == pytest.approx(min(expected.values()))  # the weakest field
    assert r.provenance["calibrated_signals"] == {
        p: {"judge": pytest.approx(_sig(0.5)), "confidence": pytest.approx(_sig2(fe.confidence))}
        for p, fe in ex.estimates.items()
    }
    assert set(r.provenance["fused_uncalibrated"]) == set(ex.estimates)
    with pytest.raises(ValueError, match="without a fusion calibrator"):
        ek.estimate_quality(judged, calibrator={"judge": CAL, "confidence": CAL2}, policy=CostSensitiveGate())
    gated = ek.estimate_quality(
        judged, calibrator={"judge": CAL, "confidence": CAL2}, policy=CostSensitiveGate(), assume_calibrated=True
    )
    assert gated.decision is A and gated.calibrated_confidence == pytest.approx(min(expected.values()))


def test_a_fitted_fusion_is_not_marked_uncalibrated():
    rows = [
        {"judge": j, "confidence": c}
        for j, c in [(0.9, 0.95), (0.8, 0.7), (0.85, 0.3), (0.3, 0.9), (0.2, 0.1), (0.7, 0.2), (0.6, 0.8), (0.4, 0.3)]
    ]
    fam = SignalFamilyCalibrator().fit(rows, [True, True, False, True, False, False, True, False])
    r = ek.estimate_quality(FieldEstimate("x", raw_signals={"judge": 0.9}, confidence=0.95), calibrator=fam)
    assert "fused_uncalibrated" not in r.provenance
    assert r.calibrated_confidence == pytest.approx(fam({"judge": 0.9, "confidence": 0.95}))


# --------------------------------------------------------------------------
# one validation path: validators run through ek.validate.validation_pipeline
# --------------------------------------------------------------------------


def test_llm_corrector_runs_after_a_flag():
    calls = []

    def fix(value):
        calls.append(value)
        return "79927398713"

    r = ek.estimate_quality(
        FieldEstimate("79927398710", confidence=0.99),
        calibrator=CAL,
        validators=[checksum_validator("luhn"), llm_corrector(fix)],
        policy=CostSensitiveGate(),
    )
    assert calls == ["79927398710"]
    flag, correction = r.findings
    assert flag.layer == "checksum" and correction.severity is Severity.CORRECT
    assert correction.suggestion == "79927398713" and r.decision is B
    clean = ek.estimate_quality("79927398713", validators=[checksum_validator("luhn"), llm_corrector(fix)])
    assert clean.findings == () and calls == ["79927398710"]  # gated: no flag, no call


def test_llm_corrector_sees_upstream_findings():
    upstream = Finding("x", "ocr", Severity.FLAG, "low contrast")
    r = ek.estimate_quality(FieldEstimate("0SL0", findings=(upstream,)), validators=[llm_corrector(str.upper)])
    assert r.findings == (upstream,)  # the rewrite equals the value: nothing to propose
    r = ek.estimate_quality(FieldEstimate("0sl0", findings=(upstream,)), validators=[llm_corrector(str.upper)])
    assert [f.suggestion for f in r.findings] == [None, "0SL0"]


def test_a_pipeline_is_a_validator():
    pipeline = validation_pipeline(canonicalize_corrector("strip"), checksum_validator("luhn"))
    r = ek.estimate_quality(" 79927398713 ", validators=[pipeline])
    (fold,) = r.findings  # the checksum saw the stripped value and passed
    assert fold.layer == "canonicalize" and fold.suggestion == "79927398713"
    r = ek.estimate_quality(" 79927398710", validators=pipeline)
    assert [f.layer for f in r.findings] == ["canonicalize", "checksum"]


def test_corrections_are_applied_before_later_validators():
    r = ek.estimate_quality("Frnace", validators=[lexicon_corrector(["France", "Spain"]), enum_validator(["France"])])
    (fix,) = r.findings  # the enum check saw "France"
    assert fix.suggestion == "France" and fix.severity is Severity.CORRECT


def test_validators_by_registered_name():
    r = ek.estimate_quality(_invoice(), validators=["schema"])
    assert r.findings == ()
    with pytest.raises(KeyError, match="No 'validators' strategy is registered as 'shema'"):
        ek.estimate_quality("x", validators=["shema"])


def test_a_validator_must_be_callable():
    with pytest.raises(TypeError, match=r"validators\[1\] is int; a validator is a callable value -> findings"):
        ek.estimate_quality("x", validators=[schema_validator, 3])
