"""The ``signal -> calibrate -> validate -> decide`` pipeline behind `ek.estimate_quality`.

It sits beside the facade (a root private module) because it composes two
packages, `ek.qe` (signals, calibrators, gates) and `ek.validate` (the
validation pipeline), through their public names only.

For each field (a raw value and a `FieldEstimate` are one field; an
`AnnotatedExtraction` is many, each with its grammar's `FieldSpec` and its
node type as the group key):

1. signals: ROVER agreement with ``sources`` (when ``agreement``), then the
   given signals, cheapest cost tier first; each adds named raw scores. On an
   extraction, a flat list of whole-document readings gives one agreement,
   reported once and added to every field's raw signals (a field's own
   ``"agreement"`` signal, or its own sources, take precedence);
2. validators run through `ek.validate.validation_pipeline`, the same
   machinery as a direct validation: layers in order, a gated corrector
   (`ek.validate.llm_corrector`) sees the findings so far, a nested pipeline
   is one layer;
3. calibration maps the field's confidence (else the mean of its raw
   signals) to a probability, or, with a per-family calibrator, calibrates
   each raw signal (the confidence as family ``"confidence"``) and fuses them
   with the calibrator's ``combine`` rule and ``fusion`` calibrator;
4. the policy decides on the calibrated probability. A finding of severity
   FLAG (a failed check) blocks the value; a proposed correction flags it at
   least. A field with nothing to calibrate is flagged.

Hard Rule 1: a raw score never reaches a policy. A policy without a
calibrator raises unless ``assume_calibrated``, and so does gating a value
fused from two or more families without a learned ``fusion`` calibrator.
Without a policy, such a fused value is still reported as the confidence,
and ``provenance["fused_uncalibrated"]`` says it skipped the fusion stage.

Two "provenance" fields mean different things: `ek.base.QualityReport`'s
``provenance`` is a dict saying *how the estimate was reached* (the score
source, per-family values, the decision reason), built here and called
``how`` in the code; `ek.base.FieldEstimate`'s ``provenance`` is a
`ek.base.Provenance` saying *where the value came from* (engine, span,
bbox), which this pipeline passes through untouched.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable, Mapping
from statistics import fmean
from typing import TYPE_CHECKING, Any, cast

from ek._calls import accepts_keyword, call_maybe_group, number, probability
from ek._quality_args import Calibration, FittedCalibrator, Layers, Policy, Signals, Sources, Validators
from ek._util import type_name
from ek.base import AnnotatedExtraction, Decision, FieldEstimate, FieldSpec, Finding, NodePath, QualityReport, Severity
from ek.qe import AgreementSignal, SignalFamilyCalibrator
from ek.registry import get
from ek.validate import validation_pipeline

if TYPE_CHECKING:
    from ek.base import DecisionPolicy

__all__ = ["estimate"]

_SEVERITY = {Decision.ACCEPT: 0, Decision.FLAG: 1, Decision.BLOCK: 2}


def estimate(
    extraction: Any,
    *,
    sources: Sources,
    signals: Signals,
    calibrator: Calibration | None,
    validators: Validators,
    policy: Policy | None,
    agreement: bool,
    assume_calibrated: bool,
) -> QualityReport:
    """Run the pipeline over a value, a `FieldEstimate` or an `AnnotatedExtraction`.

    The arguments are those of `ek.estimate_quality`, which owns their defaults.
    """
    cal = _calibrator(calibrator)
    pol = _policy(policy)
    if pol is not None and cal is None and not assume_calibrated:
        raise ValueError(
            "estimate_quality() got a policy but no calibrator: a raw, uncalibrated score must "
            "never reach a decision policy. Pass calibrator= (fitted on labelled data, e.g. "
            "PlattCalibrator().fit(scores, correct)), or assume_calibrated=True if the "
            "confidence is already a calibrated probability."
        )
    run = _Estimator(_signals(signals), cal, _validators(validators), pol, bool(agreement), bool(assume_calibrated))
    if isinstance(extraction, AnnotatedExtraction):
        return run.extraction(extraction, sources)
    fe = extraction if isinstance(extraction, FieldEstimate) else FieldEstimate(value=extraction)
    if isinstance(sources, (str, bytes, Mapping)):
        raise TypeError(
            f"estimate_quality() sources must be a list of other hypotheses of the value, got "
            f"{type_name(sources)}; e.g. sources=['the cat sat', 'the cat sit']."
        )
    new, how = run.field(fe, None, None, None, list(sources))
    return QualityReport(
        calibrated_confidence=how.pop("_calibrated"),
        decision=new.decision,
        findings=new.findings,
        raw_signals=dict(new.raw_signals),
        provenance=how,
    )


class _Estimator:
    """One configured pipeline, applied field by field."""

    def __init__(
        self,
        signals: list[tuple[str, Callable[..., Any]]],
        cal: FittedCalibrator | SignalFamilyCalibrator | None,
        validators: tuple[str, Any],
        policy: DecisionPolicy | None,
        agreement: bool,
        assume: bool,
    ):
        self.signals, self.cal, self.validators = signals, cal, validators
        self.policy, self.agreement, self.assume = policy, agreement, assume
        self._pipelines: dict[tuple[Any, Any], Any] = {}  # (field name, group) -> the composed validation pipeline

    def extraction(self, ex: AnnotatedExtraction, sources: Sources) -> QualityReport:
        """Every field of ``ex``, then a summary: the weakest confidence, the most severe decision."""
        by_field, readings = _split_sources(sources)
        shared = {}
        if self.agreement and readings:
            if len(readings) < 2:
                raise ValueError(
                    "estimate_quality() got one whole-document reading in sources; agreement needs at "
                    "least two readings to compare. Add another engine's reading, or pass sources per "
                    "field as a mapping from NodePath (or field name) to that field's other hypotheses."
                )
            shared["agreement"] = AgreementSignal()(readings)
        per_field: dict[NodePath, FieldEstimate] = {}
        confs: list[float] = []
        decisions: list[Decision] = []
        findings: list[Finding] = []
        families: dict[NodePath, Any] = {}
        unfused: list[NodePath] = []
        for path, fe in ex.estimates.items():
            spec = ex.grammar.field_spec(path.node_type, path.field) if path.field else None
            hyps = by_field.get(path, by_field.get(path.field, ())) if by_field else ()
            new, how = self.field(fe, spec, path.node_type, path.field, list(hyps), shared)
            per_field[path] = new
            if how["_calibrated"] is not None:
                confs.append(how["_calibrated"])
            if new.decision is not None:
                decisions.append(new.decision)
            if "calibrated_signals" in how:
                families[path] = how["calibrated_signals"]
            if how.get("fused_uncalibrated"):
                unfused.append(path)
            findings.extend(new.findings)
        how = {"n_fields": len(per_field), "n_calibrated": len(confs)}
        if families:
            how["calibrated_signals"] = families
        if unfused:
            how["fused_uncalibrated"] = tuple(unfused)
        return QualityReport(
            calibrated_confidence=min(confs) if confs else None,
            decision=max(decisions, key=_SEVERITY.__getitem__) if decisions else None,
            findings=tuple(findings),
            raw_signals=shared,
            provenance=how,
            per_field=per_field,
        )

    def field(
        self,
        fe: FieldEstimate,
        spec: FieldSpec | None,
        group: Any,
        name: str | None,
        sources: list[Any],
        shared: Mapping[Any, Any] | None = None,
    ) -> tuple[FieldEstimate, dict[Any, Any]]:
        """The updated field and the notes on how its estimate was reached."""
        value = fe.value
        raw = {**(shared or {}), **fe.raw_signals}  # the field's own signals win
        if self.agreement and sources:
            raw["agreement"] = AgreementSignal()([_hypothesis(value)] + sources)
        for sig_name, sig in self.signals:
            out = sig(value, spec=spec) if spec is not None and accepts_keyword(sig, "spec") else sig(value)
            if isinstance(out, Mapping):
                for k, v in out.items():
                    raw[str(k)] = number(v, what=f"signal {sig_name!r} output {k!r}")
            else:
                raw[sig_name] = number(out, what=f"signal {sig_name!r} output")
        findings = tuple(fe.findings) + self._validate(value, spec, name, group, tuple(fe.findings))
        calibrated, how = self._calibrate(fe.confidence, raw, group)
        decision = None
        if self.policy is not None:
            decision = self._decide(self.policy, calibrated, group, findings, how)
        new = dataclasses.replace(
            fe,
            raw_signals=raw,
            confidence=calibrated if calibrated is not None else fe.confidence,
            findings=findings,
            decision=decision,
        )
        how["_calibrated"] = calibrated
        return new, how

    def _validate(
        self, value: Any, spec: FieldSpec | None, name: str | None, group: Any, earlier: tuple[Any, ...]
    ) -> tuple[Any, ...]:
        """The new findings of this field's validators, run as one `validation_pipeline`."""
        key = (name, group)
        pipeline: Any = self._pipelines.get(key)
        if pipeline is None:
            layers = self._validators_for(name, group)
            pipeline = self._pipelines[key] = validation_pipeline(*layers) if layers else False
        if not pipeline:
            return ()
        result = pipeline(value, spec=spec, findings=earlier)
        return tuple(dataclasses.replace(f, field=name) if name and not f.field else f for f in result.findings)

    def _validators_for(self, name: str | None, group: Any) -> list[Any]:
        kind, vals = self.validators
        if kind == "flat":
            return list(vals)
        out = list(vals.get("*", ()))
        for key in (group, name):
            if key is not None and key in vals:
                out.extend(vals[key])
        return out

    def _calibrate(
        self, confidence: float | None, raw: dict[Any, Any], group: Any
    ) -> tuple[float | None, dict[Any, Any]]:
        cal = self.cal
        if isinstance(cal, SignalFamilyCalibrator):
            return self._calibrate_families(cal, confidence, raw, group)
        if confidence is not None:
            score, source = float(confidence), "confidence"
        elif raw:
            score, source = fmean(raw.values()), "signals"
        else:
            return None, {"score_source": None}
        how = {"score_source": source, "raw_score": score}
        if cal is None:
            if not self.assume:
                return None, how
            return probability(score, what="assumed-calibrated confidence"), how
        value = call_maybe_group(cal, score, group)
        return probability(value, what=f"{type_name(cal)} output"), how

    def _calibrate_families(
        self, cal: SignalFamilyCalibrator, confidence: float | None, raw: dict[Any, Any], group: Any
    ) -> tuple[float | None, dict[Any, Any]]:
        """Calibrate each family on its own, then fuse (``combine``, then ``fusion`` when fitted)."""
        families = dict(raw)
        if confidence is not None:
            families["confidence"] = confidence
        if not families:
            return None, {"score_source": None}
        per = cal.calibrate_signals(families, group=group)
        how: dict[Any, Any] = {"score_source": "families", "calibrated_signals": per}
        if not per:
            return None, how
        fused = probability(cal.fuse(per), what="fused calibrated probability")
        if len(per) >= 2 and cal.fusion is None:
            how["fused_uncalibrated"] = True
            if self.policy is not None and not self.assume:
                raise ValueError(
                    f"estimate_quality() fused {len(per)} signal families ({', '.join(sorted(per))}) "
                    "without a fusion calibrator, and a mean of calibrated probabilities is not "
                    "calibrated; it cannot be gated. Fit a SignalFamilyCalibrator (its fit() learns "
                    "the fusion), or pass assume_calibrated=True to accept the risk."
                )
        return fused, how

    def _decide(
        self,
        policy: DecisionPolicy,
        calibrated: float | None,
        group: Any,
        findings: tuple[Any, ...],
        how: dict[Any, Any],
    ) -> Decision:
        if calibrated is None:
            how["decision_reason"] = "no signal or confidence to calibrate"
            decision = Decision.FLAG
        else:
            decision = _as_decision(call_maybe_group(policy, calibrated, group), policy)
        if any(f.severity is Severity.FLAG for f in findings):
            how["decision_reason"] = "a validator flagged the value"
            return Decision.BLOCK
        if decision is Decision.ACCEPT and any(f.severity is Severity.CORRECT for f in findings):
            how["decision_reason"] = "a validator proposed a correction"
            return Decision.FLAG
        return decision


# --------------------------------------------------------------------------
# resolving the arguments
# --------------------------------------------------------------------------


def _calibrator(calibrator: Calibration | None) -> FittedCalibrator | SignalFamilyCalibrator | None:
    if calibrator is None:
        return None
    if isinstance(calibrator, SignalFamilyCalibrator):
        return calibrator
    if isinstance(calibrator, Mapping):
        for k, c in calibrator.items():
            if not callable(c):
                raise TypeError(f"calibrator[{k!r}] is {type_name(c)}; each family needs a fitted calibrator.")
            _not_a_class(c, f"calibrator[{k!r}]")
        # it calls each family's calibrator through call_maybe_group, so any GroupedCalibrator serves
        return SignalFamilyCalibrator(calibrators=cast("dict[str, Any]", dict(calibrator)))
    _not_a_class(calibrator, "calibrator")
    if isinstance(calibrator, str):
        raise TypeError(
            f"calibrator={calibrator!r} is a name; a calibrator must be fitted on your data. Pass the "
            f"fitted object, or load a saved one with ek.load_calibrator({calibrator!r})."
        )
    if not callable(calibrator):
        raise TypeError(f"calibrator must be a fitted Calibrator or a mapping of them, got {type_name(calibrator)}.")
    return calibrator


def _not_a_class(calibrator: Any, what: str) -> None:
    """Refuse a calibrator class: calling it would build an instance, not calibrate a score."""
    if isinstance(calibrator, type):
        name = calibrator.__name__
        raise TypeError(
            f"{what} is the class {name}, not a fitted calibrator; a calibrator must be fitted on "
            f"labelled data before it can turn scores into probabilities. Pass {name}().fit(scores, "
            "correct), or load a saved one with ek.load_calibrator(name)."
        )


def _policy(policy: Policy | None) -> DecisionPolicy | None:
    if isinstance(policy, str):
        policy = get("policies", policy)
    if isinstance(policy, type):
        policy = policy()
    if policy is not None and not callable(policy):
        raise TypeError(f"policy must be a DecisionPolicy (confidence -> Decision), got {type_name(policy)}.")
    return policy


def _signals(signals: Signals) -> list[tuple[str, Callable[..., Any]]]:
    if isinstance(signals, (str, bytes)) or callable(signals):
        signals = [signals]
    out, seen = [], set()
    for i, sig in enumerate(signals):
        name = sig if isinstance(sig, str) else None
        if isinstance(sig, str):
            sig = get("signals", sig)
        if isinstance(sig, type):
            sig = sig()
        if not callable(sig):
            raise TypeError(f"signals[{i}] is {type_name(sig)}; a signal is a callable target -> float.")
        name = name or getattr(sig, "name", None) or getattr(sig, "__name__", None) or type(sig).__name__
        if name in seen:
            raise ValueError(f"two signals are named {name!r}; give one a distinct .name.")
        seen.add(name)
        out.append((i, name, sig))
    out.sort(key=lambda t: (_tier(t[2]), t[0]))
    return [(name, sig) for _, name, sig in out]


def _tier(sig: Callable[..., Any]) -> float:
    tier = getattr(sig, "cost_tier", 0)
    return tier if isinstance(tier, (int, float)) and not math.isnan(tier) else 0


def _validators(validators: Validators) -> tuple[str, Any]:
    if validators is None:
        return "flat", []
    if isinstance(validators, Mapping):
        return "map", {k: _validator_list(v, f"validators[{k!r}]") for k, v in validators.items()}
    return "flat", _validator_list(validators, "validators")


def _validator_list(v: Layers, what: str) -> list[Callable[..., Any]]:
    """The layers named or given; a name is looked up in the ``"validators"`` namespace."""
    items = [v] if callable(v) or isinstance(v, str) else list(v)
    out = []
    for i, item in enumerate(items):
        if isinstance(item, str):
            item = get("validators", item)
        if not callable(item):
            raise TypeError(
                f"{what}[{i}] is {type_name(item)}; a validator is a callable value -> findings "
                "(a validation_pipeline(...) counts as one)."
            )
        out.append(item)
    return out


def _split_sources(sources: Sources) -> tuple[Mapping[Any, Iterable[Any]], list[Any]]:
    """``(per-field hypotheses, whole-document readings)`` from an extraction's ``sources``."""
    if isinstance(sources, Mapping):
        return sources, []
    if isinstance(sources, (str, bytes)):
        raise TypeError(
            f"estimate_quality() sources is a single {type_name(sources)}; pass a list of whole-document "
            "readings, or a mapping from NodePath (or field name) to that field's other hypotheses."
        )
    return {}, list(sources)


def _hypothesis(value: Any) -> Any:
    """The field's own reading for ROVER: None is a blank reading, a non-text value its str."""
    if value is None or isinstance(value, (str, list, tuple)) or hasattr(value, "text"):
        return value
    return str(value)


def _as_decision(out: Any, policy: DecisionPolicy) -> Decision:
    if isinstance(out, Decision):
        return out
    try:
        return Decision(out)
    except ValueError:
        raise TypeError(
            f"policy {type_name(policy)} returned {out!r:.40}; a DecisionPolicy must return a Decision "
            "(accept, flag or block)."
        ) from None
