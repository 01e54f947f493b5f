"""Reference-free quality estimation: how good is an extraction when there is no gold answer?

This package is the stage behind `ek.estimate_quality`, a strict pipeline
``signal -> calibrate -> validate -> decide``:

* signals, cheapest first: `VerifierSignal` (checksums, ranges, schema and
  cross-field checks; cost tier 1), `IntrinsicConfidenceSignal` and
  `LogprobSignal` (numbers the extractor emits anyway; tier 2), and
  `AgreementSignal`, ROVER voting across several engines (tier 3, see `rover`);
* calibration (`ek.qe.calibrate`): `PlattCalibrator` (default), isotonic
  and temperature scaling, per group and per signal family, with ECE and
  reliability diagnostics. It is not optional: no gate reads a raw score;
* decisions (`ek.qe.decide`): `CostSensitiveGate` (default), the conformal
  gates and `RiskControlGate`, on calibrated probabilities only;
* monitoring (`ek.qe.monitor`, imported on its own: it sits above the run
  engine): `Monitor` watches a deployed calibrator and gate window by
  window, with anytime-valid alarms when the gate's promise breaks or
  calibration shifts.

Everything runs on the standard library; the ``calibration`` extra (numpy,
scikit-learn, crepes, netcal) adds array speed and library-backed
equivalents, imported only when used. Importing this package registers the
built-in signals, aggregators, checks, calibrators, combiners and policies
in `ek.registry`.

>>> c = rover(["the cat sat", "the cat sit", "the bat sat"])
>>> c.text, round(c.mean_agreement, 3)
('the cat sat', 0.778)
"""

from ek._util import rehome
from ek.qe._rover import AgreementSignal, RoverConsensus, RoverSlot, rover
from ek.qe.calibrate import (
    GroupCalibrator,
    IsotonicCalibrator,
    PlattCalibrator,
    SignalFamilyCalibrator,
    TemperatureCalibrator,
    expected_calibration_error,
    load_calibrator,
    mean_probability,
    min_probability,
    reliability_curve,
    save_calibrator,
    sklearn_calibrator,
)
from ek.qe.decide import (
    ConformalGate,
    CostSensitiveGate,
    GroupConformalGate,
    RiskControlGate,
    risk_coverage_curve,
    split_conformal_quantile,
)
from ek.qe.signals import IntrinsicConfidenceSignal, LogprobSignal, geo_mean, length_normalized, mean_prob, min_prob
from ek.qe.verifiers import (
    VerifierSignal,
    checksum_validator,
    enum_validator,
    iban_check,
    isbn_check,
    luhn_check,
    range_validator,
    regex_validator,
    schema_validator,
    totals_consistent,
)
from ek.registry import register

__all__ = [
    "AgreementSignal",
    "ConformalGate",
    "CostSensitiveGate",
    "GroupCalibrator",
    "GroupConformalGate",
    "IntrinsicConfidenceSignal",
    "IsotonicCalibrator",
    "LogprobSignal",
    "PlattCalibrator",
    "RiskControlGate",
    "RoverConsensus",
    "RoverSlot",
    "SignalFamilyCalibrator",
    "TemperatureCalibrator",
    "VerifierSignal",
    "checksum_validator",
    "enum_validator",
    "expected_calibration_error",
    "geo_mean",
    "iban_check",
    "isbn_check",
    "length_normalized",
    "load_calibrator",
    "luhn_check",
    "mean_prob",
    "mean_probability",
    "min_prob",
    "min_probability",
    "range_validator",
    "regex_validator",
    "reliability_curve",
    "risk_coverage_curve",
    "rover",
    "save_calibrator",
    "schema_validator",
    "sklearn_calibrator",
    "split_conformal_quantile",
    "totals_consistent",
]

rehome(globals())  # the objects of private modules report this documented home

register("signals", "agreement", AgreementSignal)
