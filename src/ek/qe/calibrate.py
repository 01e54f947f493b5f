"""Calibration: turn a raw quality score into a probability of being correct.

A raw signal (a mean OCR confidence, a token log-probability, a ROVER
agreement) is not a probability: a 0.9 from an overconfident model may be
right only 60% of the time. A calibrator is fitted on a labelled holdout of
``(raw score, was the value correct?)`` pairs and maps later raw scores to
probabilities. No decision gate may read a score that skipped this stage.

* `PlattCalibrator` (the default): ``sigmoid(a * score + b)``; works on any
  scalar score and resists overfitting small sets.
* `IsotonicCalibrator`: any non-decreasing step shape; needs more data.
* `TemperatureCalibrator`: ``sigmoid(logit / T)``; only for logits.
* `GroupCalibrator`: one calibrator per group key (a node type or field
  spec), for per-type validity.
* `SignalFamilyCalibrator`: one calibrator per named signal family, fused by
  `mean_probability` (or `min_probability`) and recalibrated.

The three base calibrators need nothing beyond the standard library; with
numpy installed they fit and predict on arrays. Fitted calibrators accept a
single score (float out) or a list/array of scores (array out, equal to the
per-score results). `sklearn_calibrator` and `netcal_calibrator` wrap the
library implementations (the ``calibration`` extra). Check calibration with
`expected_calibration_error` and `reliability_curve`; persist a fit with
`save_calibrator` / `load_calibrator` (plain JSON numbers, no code).

>>> raw =     [0.95, 0.93, 0.92, 0.90, 0.55, 0.52, 0.51, 0.50]
>>> correct = [True, True, False, False, True, False, False, False]
>>> cal = PlattCalibrator().fit(raw, correct)
>>> cal(0.95) < 0.95
True
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from ek._util import rehome, type_name
from ek.base import Calibrator
from ek.qe._backends import netcal_calibrator, netcal_ece, sklearn_calibrator
from ek.qe._binning import bin_sums, curve_from_sums, ece_from_sums
from ek.qe._families import (
    GroupCalibrator,
    SignalFamilyCalibrator,
    mean_probability,
    min_probability,
)
from ek.qe._records import from_record
from ek.qe._scalar import IsotonicCalibrator, PlattCalibrator, TemperatureCalibrator
from ek.registry import register

__all__ = [
    "DEFAULT_N_BINS",
    "GroupCalibrator",
    "IsotonicCalibrator",
    "PlattCalibrator",
    "SignalFamilyCalibrator",
    "TemperatureCalibrator",
    "expected_calibration_error",
    "load_calibrator",
    "mean_probability",
    "min_probability",
    "netcal_calibrator",
    "netcal_ece",
    "reliability_curve",
    "save_calibrator",
    "sklearn_calibrator",
]

DEFAULT_N_BINS = 10
"""Default number of equal-width bins for `expected_calibration_error` and `reliability_curve`."""


# --------------------------------------------------------------------------
# diagnostics
# --------------------------------------------------------------------------


def expected_calibration_error(
    probs: Iterable[float], correct: Iterable[bool | int], *, n_bins: int = DEFAULT_N_BINS
) -> float:
    """Expected calibration error: the bin-weighted gap between confidence and accuracy (lower is better).

    Predictions fall into ``n_bins`` equal-width confidence bins; the result
    is ``sum_b (n_b / n) * |mean confidence_b - accuracy_b|``, 0 for perfect
    calibration. Non-finite probabilities are skipped and out-of-range ones
    clamped into [0, 1].

    >>> expected_calibration_error([0.75, 0.75, 0.25, 0.25], [True, False, False, False])
    0.25
    """
    return ece_from_sums(*bin_sums(probs, correct, n_bins=n_bins, owner="expected_calibration_error()"))


def reliability_curve(
    probs: Iterable[float], correct: Iterable[bool | int], *, n_bins: int = DEFAULT_N_BINS
) -> list[dict[str, float]]:
    """One ``{confidence, accuracy, count}`` dict per non-empty bin, for a reliability diagram.

    ``confidence`` is the bin's mean probability and ``accuracy`` its share
    of correct values; bins are the ones `expected_calibration_error` uses,
    in increasing order, and empty bins are left out.

    >>> reliability_curve([0.75, 0.75, 0.25, 0.25], [True, False, False, False])
    [{'confidence': 0.25, 'accuracy': 0.0, 'count': 2}, {'confidence': 0.75, 'accuracy': 0.5, 'count': 2}]
    """
    return curve_from_sums(*bin_sums(probs, correct, n_bins=n_bins, owner="reliability_curve()"))


# --------------------------------------------------------------------------
# persistence: plain JSON records in the calibrators store, never code
# --------------------------------------------------------------------------


def save_calibrator(
    calibrator: Calibrator | GroupCalibrator | SignalFamilyCalibrator, name: str, *, rootdir: str | None = None
) -> dict[str, object]:
    """Persist a fitted calibrator's parameters under ``name`` in the ``calibrators`` store.

    Returns:
        The record written (the calibrator's ``to_dict()``).

    Raises:
        TypeError: the calibrator has no ``to_dict`` (it cannot be stored as numbers).
        ValueError: it is not fitted, or its record is not plain JSON.
    """
    to_dict = getattr(calibrator, "to_dict", None)
    if to_dict is None:
        raise TypeError(
            f"save_calibrator() needs a calibrator with to_dict(), got {type_name(calibrator)}; "
            "use one of ek.qe's calibrators or add to_dict()/from_dict() to yours."
        )
    record: dict[str, object] = to_dict()
    if not isinstance(record, dict) or not isinstance(record.get("kind"), str):
        raise ValueError(f"{type_name(calibrator)}.to_dict() must return a dict with a str 'kind', got {record!r:.80}.")
    try:
        json.dumps(record, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"{type_name(calibrator)}.to_dict() is not plain JSON ({exc}); a stored calibrator "
            "may hold only numbers, strings, lists and dicts."
        ) from None
    _store(rootdir)[name] = record
    return record


def load_calibrator(name: str, *, rootdir: str | None = None) -> Any:  # the stored kind decides the class
    """Rebuild the calibrator saved under ``name``, dispatching on its record's ``kind``.

    Raises:
        KeyError: nothing is saved under ``name`` (the message lists what is).
        ValueError: the record is malformed or its ``kind`` is unknown.
    """
    store = _store(rootdir)
    try:
        record = store[name]
    except KeyError:
        known = sorted(store)
        listing = ", ".join(repr(k) for k in known) or "none"
        raise KeyError(
            f"no calibrator is saved as {name!r}; saved calibrators: {listing}. "
            "Save one first with save_calibrator(calibrator, name)."
        ) from None
    return from_record(record, where=f"calibrator {name!r}")


# --------------------------------------------------------------------------


def _store(rootdir: str | None) -> Any:
    from ek.stores import json_store

    return json_store("calibrators", rootdir=rootdir)


rehome(globals())  # the objects of private modules report this documented home

register("calibrators", "platt", PlattCalibrator)
register("calibrators", "isotonic", IsotonicCalibrator)
register("calibrators", "temperature", TemperatureCalibrator)
register("calibrators", "group", GroupCalibrator)
register("calibrators", "signal_family", SignalFamilyCalibrator)
register("combiners", "mean", mean_probability)
register("combiners", "min", min_probability)
