"""The ``signal -> calibrate -> validate -> decide`` pipeline behind `ek.estimate_quality`.

For each field (a raw value and a `FieldEstimate` are one field; an
`AnnotatedExtraction` is many, each with its grammar's `FieldSpec` and its
node type as the group key):

1. signals: ROVER agreement with ``sources`` (when ``agreement``), then the
   given signals, cheapest cost tier first; each adds named raw scores;
2. validators add findings;
3. calibration maps the field's confidence (else the mean of its raw
   signals) to a probability, or, with a per-family calibrator, calibrates
   each raw signal (the confidence as family ``"confidence"``) and fuses;
4. the policy decides on the calibrated probability. A finding of severity
   FLAG (a failed check) blocks the value; a proposed correction flags it at
   least. A field with nothing to calibrate is flagged.

Hard Rule 1: a raw score never reaches a policy. A policy without a
calibrator raises unless ``assume_calibrated``, and so does gating a value
fused from two or more families without a learned ``fusion`` calibrator.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from statistics import fmean
from typing import Any, Optional

from ek._util import type_name
from ek.base import AnnotatedExtraction, Decision, FieldEstimate, FieldSpec, QualityReport, Severity
from ek.qe._checks import accepts_keyword, call_maybe_group, number, probability
from ek.qe._rover import AgreementSignal
from ek.qe.calibrate import SignalFamilyCalibrator
from ek.registry import get

_SEVERITY = {Decision.ACCEPT: 0, Decision.FLAG: 1, Decision.BLOCK: 2}


def estimate(
    extraction: Any,
    *,
    sources: Any = (),
    signals: Any = (),
    calibrator: Any = None,
    validators: Any = (),
    policy: Any = None,
    agreement: bool = True,
    assume_calibrated: bool = False,
) -> QualityReport:
    """Run the pipeline over a value, a `FieldEstimate` or an `AnnotatedExtraction`."""
    cal = _calibrator(calibrator)
    pol = _policy(policy)
    if pol is not None and cal is None and not assume_calibrated:
        raise ValueError(
            "estimate_quality() got a policy but no calibrator: a raw, uncalibrated score must "
            "never reach a decision policy. Pass calibrator= (fitted on labelled data, e.g. "
            "PlattCalibrator().fit(scores, correct)), or assume_calibrated=True if the "
            "confidence is already a calibrated probability."
        )
    run = _Run(_signals(signals), cal, _validators(validators), pol, bool(agreement), bool(assume_calibrated))
    if isinstance(extraction, AnnotatedExtraction):
        return run.extraction(extraction, sources)
    fe = extraction if isinstance(extraction, FieldEstimate) else FieldEstimate(value=extraction)
    if isinstance(sources, (str, bytes)) or isinstance(sources, Mapping):
        raise TypeError(
            f"estimate_quality() sources must be a list of other hypotheses of the value, got "
            f"{type_name(sources)}; e.g. sources=['the cat sat', 'the cat sit']."
        )
    new, prov = run.field(fe, None, None, None, list(sources))
    return QualityReport(
        calibrated_confidence=prov.pop("_calibrated"),
        decision=new.decision,
        findings=new.findings,
        raw_signals=dict(new.raw_signals),
        provenance=prov,
    )


class _Run:
    """One configured pipeline, applied field by field."""

    def __init__(self, signals: list, cal: Any, validators: Any, policy: Any, agreement: bool, assume: bool):
        self.signals, self.cal, self.validators = signals, cal, validators
        self.policy, self.agreement, self.assume = policy, agreement, assume

    def extraction(self, ex: AnnotatedExtraction, sources: Any) -> QualityReport:
        src = _sources_map(sources)
        per_field, confs, decisions, findings = {}, [], [], []
        for path, fe in ex.estimates.items():
            spec = ex.grammar.field_spec(path.node_type, path.field) if path.field else None
            hyps = src.get(path, src.get(path.field, ())) if src else ()
            new, prov = self.field(fe, spec, path.node_type, path.field, list(hyps))
            per_field[path] = new
            if prov["_calibrated"] is not None:
                confs.append(prov["_calibrated"])
            if new.decision is not None:
                decisions.append(new.decision)
            findings.extend(new.findings)
        return QualityReport(
            calibrated_confidence=min(confs) if confs else None,
            decision=max(decisions, key=_SEVERITY.__getitem__) if decisions else None,
            findings=tuple(findings),
            raw_signals={},
            provenance={"n_fields": len(per_field), "n_calibrated": len(confs)},
            per_field=per_field,
        )

    def field(self, fe: FieldEstimate, spec: Optional[FieldSpec], group: Any, name: Optional[str],
              sources: list) -> tuple[FieldEstimate, dict]:
        value = fe.value
        raw = dict(fe.raw_signals)
        if self.agreement and sources:
            raw["agreement"] = AgreementSignal()([_hypothesis(value)] + sources)
        for sig_name, sig in self.signals:
            out = sig(value, spec=spec) if spec is not None and accepts_keyword(sig, "spec") else sig(value)
            if isinstance(out, Mapping):
                for k, v in out.items():
                    raw[str(k)] = number(v, what=f"signal {sig_name!r} output {k!r}")
            else:
                raw[sig_name] = number(out, what=f"signal {sig_name!r} output")
        new_findings = []
        for v in self._validators_for(name, group):
            for f in (v(value, spec=spec) if accepts_keyword(v, "spec") else v(value)):
                new_findings.append(dataclasses.replace(f, field=name) if name and not f.field else f)
        findings = tuple(fe.findings) + tuple(new_findings)
        calibrated, prov = self._calibrate(fe.confidence, raw, group)
        decision = None
        if self.policy is not None:
            decision = self._decide(calibrated, group, findings, prov)
        new = dataclasses.replace(
            fe,
            raw_signals=raw,
            confidence=calibrated if calibrated is not None else fe.confidence,
            findings=findings,
            decision=decision,
        )
        prov["_calibrated"] = calibrated
        return new, prov

    def _validators_for(self, name: Optional[str], group: Any) -> list:
        kind, vals = self.validators
        if kind == "flat":
            return vals
        out = list(vals.get("*", ()))
        for key in (group, name):
            if key is not None and key in vals:
                out.extend(vals[key])
        return out

    def _calibrate(self, confidence: Optional[float], raw: dict, group: Any) -> tuple[Optional[float], dict]:
        cal = self.cal
        if isinstance(cal, SignalFamilyCalibrator):
            families = dict(raw)
            if confidence is not None:
                families["confidence"] = confidence
            if not families:
                return None, {"score_source": None}
            per = cal.calibrate_signals(families, group=group)
            prov: dict = {"score_source": "families", "calibrated_signals": per}
            if not per:
                return None, prov
            fused = cal.fuse(per)
            if len(per) >= 2 and cal.fusion is None and not self.assume:
                if self.policy is not None:
                    raise ValueError(
                        f"estimate_quality() fused {len(per)} signal families ({', '.join(sorted(per))}) "
                        "without a fusion calibrator, and a mean of calibrated probabilities is not "
                        "calibrated; it cannot be gated. Fit a SignalFamilyCalibrator (its fit() learns "
                        "the fusion), or pass assume_calibrated=True to accept the risk."
                    )
                prov["fused_uncalibrated"] = fused
                return None, prov
            return probability(fused, what="fused calibrated probability"), prov
        if confidence is not None:
            score, source = float(confidence), "confidence"
        elif raw:
            score, source = fmean(raw.values()), "signals"
        else:
            return None, {"score_source": None}
        prov = {"score_source": source, "raw_score": score}
        if cal is None:
            if not self.assume:
                return None, prov
            return probability(score, what="assumed-calibrated confidence"), prov
        value = call_maybe_group(cal, score, group)
        return probability(value, what=f"{type_name(cal)} output"), prov

    def _decide(self, calibrated: Optional[float], group: Any, findings: tuple, prov: dict) -> Decision:
        if calibrated is None:
            prov["decision_reason"] = "no signal or confidence to calibrate"
            decision = Decision.FLAG
        else:
            decision = _as_decision(call_maybe_group(self.policy, calibrated, group), self.policy)
        if any(f.severity is Severity.FLAG for f in findings):
            prov["decision_reason"] = "a validator flagged the value"
            return Decision.BLOCK
        if decision is Decision.ACCEPT and any(f.severity is Severity.CORRECT for f in findings):
            prov["decision_reason"] = "a validator proposed a correction"
            return Decision.FLAG
        return decision


# --------------------------------------------------------------------------


def _calibrator(calibrator: Any) -> Any:
    if calibrator is None:
        return None
    if isinstance(calibrator, SignalFamilyCalibrator):
        return calibrator
    if isinstance(calibrator, Mapping):
        for k, c in calibrator.items():
            if not callable(c):
                raise TypeError(f"calibrator[{k!r}] is {type_name(c)}; each family needs a fitted calibrator.")
            _not_a_class(c, f"calibrator[{k!r}]")
        return SignalFamilyCalibrator(calibrators=dict(calibrator))
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


def _policy(policy: Any) -> Any:
    if isinstance(policy, str):
        policy = get("policies", policy)
    if isinstance(policy, type):
        policy = policy()
    if policy is not None and not callable(policy):
        raise TypeError(f"policy must be a DecisionPolicy (confidence -> Decision), got {type_name(policy)}.")
    return policy


def _signals(signals: Any) -> list:
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


def _tier(sig: Any) -> float:
    tier = getattr(sig, "cost_tier", 0)
    return tier if isinstance(tier, (int, float)) and not math.isnan(tier) else 0


def _validators(validators: Any) -> tuple[str, Any]:
    if validators is None:
        return "flat", []
    if isinstance(validators, Mapping):
        return "map", {k: _validator_list(v, f"validators[{k!r}]") for k, v in validators.items()}
    return "flat", _validator_list(validators, "validators")


def _validator_list(v: Any, what: str) -> list:
    items = [v] if callable(v) else list(v)
    for i, item in enumerate(items):
        if not callable(item):
            raise TypeError(f"{what}[{i}] is {type_name(item)}; a validator is a callable value -> findings.")
    return items


def _sources_map(sources: Any) -> Mapping:
    if isinstance(sources, Mapping):
        return sources
    items = list(sources) if not isinstance(sources, (str, bytes)) else [sources]
    if items:
        raise TypeError(
            "estimate_quality() on an AnnotatedExtraction needs sources as a mapping from NodePath "
            "(or field name) to that field's other hypotheses, since a flat list cannot be matched "
            "to fields."
        )
    return {}


def _hypothesis(value: Any) -> Any:
    if isinstance(value, str) or isinstance(getattr(value, "text", None), str) or isinstance(value, (list, tuple)):
        return value
    return str(value)


def _as_decision(out: Any, policy: Any) -> Decision:
    if isinstance(out, Decision):
        return out
    try:
        return Decision(out)
    except ValueError:
        raise TypeError(
            f"policy {type_name(policy)} returned {out!r:.40}; a DecisionPolicy must return a Decision "
            "(accept, flag or block)."
        ) from None
