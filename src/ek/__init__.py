"""ek, the Evaluation Kit: how good is the output of an information-extraction system?

* `score` / `evaluate` compare predictions with gold answers (CER/WER, field
  F1, ANLS*, span F1, TEDS/GriTS, a cost-weighted typed-graph distance) and
  aggregate a corpus from summed statistics; `Report.interval` bounds the
  figure and `compare` tests two runs against each other, paired by item.
* `estimate_quality` judges an extraction with no gold answer: signals,
  calibration, validators and accept/flag/block gates.
* `estimate_corpus` estimates a whole corpus's figure from a proxy of every
  item and a gold audit of a few (prediction-powered inference), with
  `plan_audit` to choose what to audit and `compare_estimates` for two engines.
* `ek.ocr` benchmarks OCR engines; `ek.agents` evaluates agents in cost per
  successful task.

>>> import ek
>>> round(ek.score("hello wrld", "hello world").value, 3)
0.091
>>> ek.evaluate([("ct", "cat"), ("dg", "dog")], metric="cer").aggregate
0.3333333333333333

Only the core loads on ``import ek``; the rest of the public names load on
first use, so heavy optional libraries are never imported up front.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING, Any

from ek._version import __version__ as __version__
from ek.base import (
    AnnotatedExtraction,
    Calibrator,
    Comparison,
    Decision,
    DecisionPolicy,
    EdgeType,
    FieldEstimate,
    FieldSpec,
    Finding,
    GraphGrammar,
    Metric,
    NodePath,
    NodeType,
    Provenance,
    QualityReport,
    Report,
    Score,
    Severity,
    Signal,
    TypeRef,
    Validator,
    default_cost_weight,
)
from ek.canonicalize import Canonicalizer, default_canonicalizer
from ek.facade import (
    AuditPlan,
    CorpusEstimate,
    agreement_proxy,
    compare,
    compare_estimates,
    confidence_proxy,
    estimate_corpus,
    estimate_quality,
    evaluate,
    merge_reports,
    plan_audit,
    score,
)
from ek.metrics import FieldMetric, StringMetric, metric
from ek.registry import check_requirements, get, names, register, requires_extra, resolve

if TYPE_CHECKING:  # the lazy names' types, for type checkers; at run time __getattr__ loads them
    from ek.agents import Episode, TaskSpec, ToolSpec, pass_at_k, pass_hat_k, run_suite
    from ek.harness import (
        GateResult,
        cohen_kappa,
        evaluate_store,
        krippendorff_alpha,
        load_baseline,
        percent_agreement,
        regression_gate,
        save_baseline,
    )
    from ek.metrics import (
        AnlsMetric,
        Cell,
        GritsMetric,
        MatchScheme,
        SpanF1Metric,
        Table,
        TedsMetric,
        TypedEdge,
        TypedGraph,
        TypedGraphMetric,
        TypedNode,
    )
    from ek.ocr import engine_yields_tables, has_table_structure, resolve_table_parser, table_from_ocr
    from ek.qe import (
        AgreementSignal,
        ConformalGate,
        CostSensitiveGate,
        GroupCalibrator,
        GroupConformalGate,
        IntrinsicConfidenceSignal,
        IsotonicCalibrator,
        LogprobSignal,
        PlattCalibrator,
        RiskControlGate,
        RoverConsensus,
        SignalFamilyCalibrator,
        TemperatureCalibrator,
        VerifierSignal,
        checksum_validator,
        enum_validator,
        expected_calibration_error,
        iban_check,
        isbn_check,
        load_calibrator,
        luhn_check,
        mean_probability,
        min_probability,
        range_validator,
        regex_validator,
        reliability_curve,
        risk_coverage_curve,
        rover,
        save_calibrator,
        schema_validator,
        split_conformal_quantile,
        totals_consistent,
    )
    from ek.stores import app_folder, cache_this, json_store, mall, persistent_cache
    from ek.validate import (
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
        validation_pipeline,
        zscore_anomaly_findings,
    )

# Public names that live in modules loaded on first access: name -> module.
_LAZY = {
    # stores
    "app_folder": "ek.stores",
    "cache_this": "ek.stores",
    "json_store": "ek.stores",
    "mall": "ek.stores",
    "persistent_cache": "ek.stores",
    # structured metrics (the `metrics` extra)
    "AnlsMetric": "ek.metrics",
    "Cell": "ek.metrics",
    "GritsMetric": "ek.metrics",
    "MatchScheme": "ek.metrics",
    "SpanF1Metric": "ek.metrics",
    "Table": "ek.metrics",
    "TedsMetric": "ek.metrics",
    "TypedEdge": "ek.metrics",
    "TypedGraph": "ek.metrics",
    "TypedGraphMetric": "ek.metrics",
    "TypedNode": "ek.metrics",
    # quality estimation
    "AgreementSignal": "ek.qe",
    "ConformalGate": "ek.qe",
    "CostSensitiveGate": "ek.qe",
    "GroupCalibrator": "ek.qe",
    "GroupConformalGate": "ek.qe",
    "IntrinsicConfidenceSignal": "ek.qe",
    "IsotonicCalibrator": "ek.qe",
    "LogprobSignal": "ek.qe",
    "PlattCalibrator": "ek.qe",
    "RiskControlGate": "ek.qe",
    "RoverConsensus": "ek.qe",
    "SignalFamilyCalibrator": "ek.qe",
    "TemperatureCalibrator": "ek.qe",
    "VerifierSignal": "ek.qe",
    "checksum_validator": "ek.qe",
    "enum_validator": "ek.qe",
    "expected_calibration_error": "ek.qe",
    "iban_check": "ek.qe",
    "isbn_check": "ek.qe",
    "load_calibrator": "ek.qe",
    "luhn_check": "ek.qe",
    "mean_probability": "ek.qe",
    "min_probability": "ek.qe",
    "range_validator": "ek.qe",
    "regex_validator": "ek.qe",
    "reliability_curve": "ek.qe",
    "risk_coverage_curve": "ek.qe",
    "rover": "ek.qe",
    "save_calibrator": "ek.qe",
    "schema_validator": "ek.qe",
    "split_conformal_quantile": "ek.qe",
    "totals_consistent": "ek.qe",
    # validation pipeline
    "Corrector": "ek.validate",
    "ValidationResult": "ek.validate",
    "benford_findings": "ek.validate",
    "canonicalize_corrector": "ek.validate",
    "cross_field_validator": "ek.validate",
    "lexicon_corrector": "ek.validate",
    "llm_corrector": "ek.validate",
    "lm_surprisal_validator": "ek.validate",
    "ordering_validator": "ek.validate",
    "stop_on_correction": "ek.validate",
    "stop_on_flag": "ek.validate",
    "validation_pipeline": "ek.validate",
    "zscore_anomaly_findings": "ek.validate",
    # offline harness
    "GateResult": "ek.harness",
    "cohen_kappa": "ek.harness",
    "evaluate_store": "ek.harness",
    "krippendorff_alpha": "ek.harness",
    "load_baseline": "ek.harness",
    "percent_agreement": "ek.harness",
    "regression_gate": "ek.harness",
    "save_baseline": "ek.harness",
    # OCR tables
    "engine_yields_tables": "ek.ocr",
    "has_table_structure": "ek.ocr",
    "resolve_table_parser": "ek.ocr",
    "table_from_ocr": "ek.ocr",
    # agents
    "Episode": "ek.agents",
    "TaskSpec": "ek.agents",
    "ToolSpec": "ek.agents",
    "pass_at_k": "ek.agents",
    "pass_hat_k": "ek.agents",
    "run_suite": "ek.agents",
}
_SUBMODULES = ("ocr", "agents", "qe", "metrics", "harness", "validate", "stores", "tools")


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is not None:
        value = getattr(importlib.import_module(module), name)
        globals()[name] = value  # later lookups skip this hook
        return value
    if name in _SUBMODULES:
        return importlib.import_module(f"ek.{name}")
    raise AttributeError(f"module 'ek' has no attribute {name!r}")


def __dir__() -> list[str]:
    # List a lazy name only once its module exists, so dir() never promises
    # an attribute that cannot be loaded.
    present = [n for n, m in _LAZY.items() if importlib.util.find_spec(m) is not None]
    return sorted(set(globals()) | set(present))


# Every name above and in _LAZY, sorted (a literal list, so type checkers read it).
__all__ = [
    "AgreementSignal",
    "AnlsMetric",
    "AnnotatedExtraction",
    "AuditPlan",
    "Calibrator",
    "Canonicalizer",
    "Cell",
    "Comparison",
    "ConformalGate",
    "CorpusEstimate",
    "Corrector",
    "CostSensitiveGate",
    "Decision",
    "DecisionPolicy",
    "EdgeType",
    "Episode",
    "FieldEstimate",
    "FieldMetric",
    "FieldSpec",
    "Finding",
    "GateResult",
    "GraphGrammar",
    "GritsMetric",
    "GroupCalibrator",
    "GroupConformalGate",
    "IntrinsicConfidenceSignal",
    "IsotonicCalibrator",
    "LogprobSignal",
    "MatchScheme",
    "Metric",
    "NodePath",
    "NodeType",
    "PlattCalibrator",
    "Provenance",
    "QualityReport",
    "Report",
    "RiskControlGate",
    "RoverConsensus",
    "Score",
    "Severity",
    "Signal",
    "SignalFamilyCalibrator",
    "SpanF1Metric",
    "StringMetric",
    "Table",
    "TaskSpec",
    "TedsMetric",
    "TemperatureCalibrator",
    "ToolSpec",
    "TypeRef",
    "TypedEdge",
    "TypedGraph",
    "TypedGraphMetric",
    "TypedNode",
    "ValidationResult",
    "Validator",
    "VerifierSignal",
    "agreement_proxy",
    "app_folder",
    "benford_findings",
    "cache_this",
    "canonicalize_corrector",
    "check_requirements",
    "checksum_validator",
    "cohen_kappa",
    "compare",
    "compare_estimates",
    "confidence_proxy",
    "cross_field_validator",
    "default_canonicalizer",
    "default_cost_weight",
    "engine_yields_tables",
    "enum_validator",
    "estimate_corpus",
    "estimate_quality",
    "evaluate",
    "evaluate_store",
    "expected_calibration_error",
    "get",
    "has_table_structure",
    "iban_check",
    "isbn_check",
    "json_store",
    "krippendorff_alpha",
    "lexicon_corrector",
    "llm_corrector",
    "lm_surprisal_validator",
    "load_baseline",
    "load_calibrator",
    "luhn_check",
    "mall",
    "mean_probability",
    "merge_reports",
    "metric",
    "min_probability",
    "names",
    "ordering_validator",
    "pass_at_k",
    "pass_hat_k",
    "percent_agreement",
    "persistent_cache",
    "plan_audit",
    "range_validator",
    "regex_validator",
    "register",
    "regression_gate",
    "reliability_curve",
    "requires_extra",
    "resolve",
    "resolve_table_parser",
    "risk_coverage_curve",
    "rover",
    "run_suite",
    "save_baseline",
    "save_calibrator",
    "schema_validator",
    "score",
    "split_conformal_quantile",
    "stop_on_correction",
    "stop_on_flag",
    "table_from_ocr",
    "totals_consistent",
    "validation_pipeline",
    "zscore_anomaly_findings",
]
