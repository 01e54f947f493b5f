"""Calls a user writes against ek's typed API; mypy checks this file (tests/test_types.py), nothing runs it.

Each assignment says that one of ek's own strategies satisfies the Protocol
its signatures name, so an annotation that stops being true (a Protocol
member an implementation lacks, a parameter a strategy does not take) fails
the type check here.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from typing_extensions import assert_type  # typing's own from Python 3.11; mypy checks this file as 3.10

import ek
from ek.agents import (
    Checker,
    CostPerSuccessMetric,
    JudgeSignal,
    TaskSuccessMetric,
    ToolCallMetric,
    TrajectoryMetric,
    final_state_match,
    output_match,
    per_million,
    recorded_success,
    run_suite,
)
from ek.base import (
    Calibrator,
    CostWeight,
    DecisionPolicy,
    FieldSpec,
    Finding,
    GraphGrammar,
    Metric,
    Normalizer,
    Signal,
    TypeRef,
    Validator,
    default_cost_weight,
)
from ek.canonicalize import Canonicalizer, default_canonicalizer, lower
from ek.metrics import (
    AnlsMetric,
    FieldMetric,
    GritsMetric,
    MatchScheme,
    SpanF1Metric,
    StringMetric,
    Table,
    TedsMetric,
    TypedGraphMetric,
)
from ek.ocr.profiles import profile
from ek.qe import (
    AgreementSignal,
    ConformalGate,
    CostSensitiveGate,
    GroupConformalGate,
    IntrinsicConfidenceSignal,
    IsotonicCalibrator,
    LogprobSignal,
    PlattCalibrator,
    RiskControlGate,
    TemperatureCalibrator,
    VerifierSignal,
    regex_validator,
    schema_validator,
)
from ek.qe.monitor import Monitor
from ek.validate import Corrector, canonicalize_corrector, lexicon_corrector, llm_corrector, validation_pipeline


def _strategies_satisfy_their_protocols() -> None:
    metrics: list[Metric] = [
        StringMetric(),
        FieldMetric(),
        TypedGraphMetric(),
        SpanF1Metric(MatchScheme.STRICT),
        TedsMetric(),
        GritsMetric(),
        AnlsMetric(),
        TaskSuccessMetric(),
        ToolCallMetric(),
        TrajectoryMetric(),
        CostPerSuccessMetric(price=per_million(1.0, 2.0)),
        ek.metric(lambda p, g: 1.0),
    ]
    calibrators: list[Calibrator] = [PlattCalibrator(), IsotonicCalibrator(), TemperatureCalibrator()]
    policies: list[DecisionPolicy] = [
        ConformalGate(alpha=0.1),
        GroupConformalGate(alpha=0.1),
        RiskControlGate(),
        CostSensitiveGate(),
    ]
    signals: list[Signal] = [
        AgreementSignal(),
        LogprobSignal(),
        IntrinsicConfidenceSignal(),
        VerifierSignal(),
        JudgeSignal(lambda t: 1.0),
    ]
    validators: list[Validator] = [
        regex_validator(r"\d+"),
        schema_validator,
        lexicon_corrector(["a"]),
        canonicalize_corrector("lower"),
    ]
    correctors: list[Corrector] = [lexicon_corrector(["a"]), canonicalize_corrector("lower"), llm_corrector(str)]
    checkers: list[Checker] = [output_match, final_state_match, recorded_success]
    normalizers: list[Normalizer] = [lower, str.strip, default_canonicalizer(), Canonicalizer(["nfc"])]
    weights: list[CostWeight] = [default_cost_weight]
    del metrics, calibrators, policies, signals, validators, correctors, checkers, normalizers, weights


def _my_metric(pred: Any, gold: Any, *, grammar: GraphGrammar | None = None) -> float:
    return float(pred == gold)


def _my_validator(value: Any, *, spec: FieldSpec | None = None) -> Iterable[Finding]:
    return ()


def _my_weight(grammar: GraphGrammar, ref: TypeRef) -> float:
    return 2.0


def _the_facade_takes_them() -> None:
    ek.score("a", "b", metric=StringMetric("wer"), normalize="lower")
    ek.score("a", "b", metric=_my_metric, normalize=[lower, "strip"])
    ek.score({"a": 1}, {"a": 2}, metric="fields", normalize=default_canonicalizer())
    ek.score(ek.TypedGraph(), ek.TypedGraph(), metric="typed_graph", weights=_my_weight)
    report = ek.evaluate([("a", "b"), ("c", "d", "slice")], metric="cer", normalize=str.lower)
    ek.merge_reports(report, report, metric=StringMetric())
    platt = PlattCalibrator().fit([0.2, 0.9], [False, True])
    ek.estimate_quality(
        "the cat",
        sources=["the cat", "the bat"],
        signals=[AgreementSignal(), "agreement"],
        calibrator=platt,
        validators=[_my_validator, lexicon_corrector(["the cat"])],
        policy=ConformalGate(alpha=0.1),
    )
    ek.estimate_quality(
        "x", calibrator={"agreement": platt, "*": platt}, validators={"*": [_my_validator]}, policy="conformal"
    )
    ek.estimate_quality("x", validators=[validation_pipeline(_my_validator)], assume_calibrated=True)


def _the_declared_types_reach_the_caller() -> None:
    # Each line fails the check while the signature says Any: assert_type sees Any, and an
    # ignore that no longer silences an error is itself an error (warn_unused_ignores).
    assert_type(ek.register("metrics", "typed_usage_wer", StringMetric("wer")), StringMetric)

    @ek.register("metrics", "typed_usage_exact")
    def exact(pred: str, gold: str) -> float:
        return float(pred == gold)

    assert_type(exact("a", "a"), float)

    @ek.persistent_cache(key=lambda n: f"square-{n}")
    def square(n: int) -> int:
        return n * n

    square("3")  # type: ignore[arg-type]
    assert_type(ek.check_requirements(extra="ocr"), dict[str, object])
    assert_type(profile("tesseract")["tables"], bool)
    span = SpanF1Metric(MatchScheme.STRICT)
    assert_type(span.report([])["micro avg"]["f1-score"], float)
    Table.coerce(b"<table></table>")  # type: ignore[arg-type]
    TedsMetric()(3, 4)  # type: ignore[arg-type]
    platt = PlattCalibrator().fit([0.2, 0.9], [False, True])
    ek.confidence_proxy([[0.9, 0.5], {"total": 0.75}], calibrator=platt)
    ek.confidence_proxy([[0.9]], calibrator="platt")  # type: ignore[arg-type]
    CostPerSuccessMetric(price=per_million(1.0, 2.0))("an answer", None)  # type: ignore[arg-type]
    run_suite(lambda task: task.gold, 3)  # type: ignore[arg-type]
    ek.evaluate([("a", "b")], ids=[["not", "hashable"]])  # type: ignore[list-item]
    # records once typed dict[str, Any]: their keys and values now reach the caller
    baseline = ek.load_baseline("typed-usage")
    if baseline is not None:
        assert_type(baseline["metric"], str)
        baseline["metrc"]  # type: ignore[typeddict-item]
    gate = ek.regression_gate(ek.Report(metric="cer", aggregate=0.1, n=1), "typed-usage")
    assert_type(gate.regressions[0]["current"], float | None)
    assert_type(platt.to_dict(), dict[str, object])
    monitor = Monitor(platt, None, calibration_signals={"conf": [0.5]})
    assert_type(monitor.report().to_dict()["windows"][0]["alarms"][0]["bound"], list[float])
    assert_type(monitor.report().alarms[0].time, float | str)
