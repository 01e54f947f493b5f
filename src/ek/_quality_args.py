"""What each argument of `ek.estimate_quality` takes, as types that exist when the hints are read.

`ek.facade` (the signature) and `ek._estimate` (the pipeline) both name these. They live here, beside
`ek.base`, so ``typing.get_type_hints(ek.estimate_quality)`` resolves without loading `ek.qe` or
`ek.validate` (which `import ek` does not). A str is a registered name throughout.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import Protocol

from ek.base import Calibrator, DecisionPolicy, Signal, Validator

__all__ = [
    "Calibration",
    "FittedCalibrator",
    "GroupedCalibrator",
    "Layer",
    "Layers",
    "Policy",
    "Signals",
    "Sources",
    "Validators",
]


class GroupedCalibrator(Protocol):
    """A calibrator fitted per group (`ek.qe.GroupCalibrator`): called with the field's group key."""

    def __call__(self, score: float, /, *, group: Hashable = None) -> float: ...


Sources = Iterable[object] | Mapping[Hashable, Iterable[object]]
"""Other readings: of the whole document (a list), or per field (`NodePath` or field name -> readings)."""
Signals = str | Signal | Iterable[str | Signal]
FittedCalibrator = Calibrator | GroupedCalibrator
Calibration = FittedCalibrator | Mapping[str, FittedCalibrator]
"""One fitted calibrator, or one per signal family (a mapping, or an `ek.qe.SignalFamilyCalibrator`)."""
Layer = str | Validator | Callable[..., object]
"""One validation layer: a name, a `Validator`, or an `ek.validate.validation_pipeline`."""
Layers = Layer | Iterable[Layer]
Validators = Layers | Mapping[Hashable, Layers] | None
Policy = str | DecisionPolicy
