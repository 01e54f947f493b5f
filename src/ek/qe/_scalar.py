"""The three scalar calibrators: Platt, isotonic and temperature scaling.

Public through `ek.qe.calibrate`; the fitting maths is in `ek.qe._fit`.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from ek._calls import number, probability
from ek.qe import _fit
from ek.qe._checks import (
    both_outcomes,
    check_record,
    is_batch,
    labels,
    numpy_or_none,
    scores,
)

__all__ = ["IsotonicCalibrator", "PlattCalibrator", "TemperatureCalibrator"]


class _Fitted:
    """Shared scalar-or-batch call and the "fit before use" check."""

    _fitted: bool
    kind: str

    def __call__(self, score: Any) -> Any:
        """The calibrated probability of ``score`` (an array for a list/array of scores)."""
        self._require_fit()
        name = type(self).__name__
        np = numpy_or_none()
        if is_batch(score):
            return self._predict(scores(score, what=f"{name} scores", np=np), np)
        v = number(score, what=f"{name} score")
        if np is not None:
            return float(self._predict(np.asarray([v]), np)[0])
        return float(self._predict([v], None)[0])

    def _predict(self, values: Any, np: ModuleType | None) -> Any:  # pragma: no cover - overridden
        raise NotImplementedError

    def _require_fit(self) -> None:
        if not self._fitted:
            raise ValueError(
                f"{type(self).__name__} is not fitted yet; call .fit(scores, correct) on a "
                "labelled holdout first (or load a fitted one with load_calibrator)."
            )

    def _inputs(self, values: Any, correct: Any, what: str = "scores") -> tuple[Any, Any, ModuleType | None]:
        owner = f"{type(self).__name__}.fit"
        np = numpy_or_none()
        s = scores(values, what=f"{owner} {what}", np=np)
        y = labels(correct, len(s), what=f"{owner} correct", np=np)
        both_outcomes(y, owner=owner)
        return s, y, np


@dataclass
class PlattCalibrator(_Fitted):
    """Platt scaling: ``sigmoid(a * score + b)``, fitted by Newton's method.

    The default calibrator. It fits the two parameters on Platt's smoothed
    targets ``(N+ + 1) / (N+ + 2)`` for correct rows and ``1 / (N- + 2)``
    for wrong ones, which keeps small calibration sets from producing
    probabilities of exactly 0 or 1. Built with ``a``/``b`` other than the
    defaults, it counts as fitted.

    Args:
        a, b: slope and intercept (set by `fit`).
        max_iter: Newton iterations; a two-parameter fit converges in a handful.
    """

    a: float = 1.0
    b: float = 0.0
    max_iter: int = 100
    kind: str = "platt"
    _fitted: bool = field(default=False, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.a = number(self.a, what="PlattCalibrator a")
        self.b = number(self.b, what="PlattCalibrator b")
        _positive_int(self.max_iter, "PlattCalibrator max_iter")
        self._fitted = (self.a, self.b) != (1.0, 0.0)

    def fit(self, scores: Iterable[float], correct: Iterable[bool | int]) -> PlattCalibrator:
        """Fit ``a`` and ``b`` by maximum likelihood on the smoothed targets; returns self."""
        s, y, np = self._inputs(scores, correct)
        self.a, self.b = _fit.platt_fit(s, y, max_iter=self.max_iter, np=np)
        self._fitted = True
        return self

    def _predict(self, values: Any, np: ModuleType | None) -> Any:
        if np is not None:
            return _fit.platt_predict(values, self.a, self.b, np=np)
        return [_fit.sigmoid(self.a * v + self.b) for v in values]

    def to_dict(self) -> dict[str, object]:
        """The fitted parameters as plain JSON numbers."""
        self._require_fit()
        return {"kind": self.kind, "a": self.a, "b": self.b, "max_iter": self.max_iter}

    @classmethod
    def from_dict(cls, record: Mapping[str, object]) -> PlattCalibrator:
        """Rebuild from `to_dict` output, checking every field."""
        fields = check_record(record, "platt", ("a", "b"))
        cal = cls(a=fields["a"], b=fields["b"], max_iter=fields.get("max_iter", 100))
        cal._fitted = True
        return cal


@dataclass
class IsotonicCalibrator(_Fitted):
    """Isotonic calibration: the best non-decreasing fit, by pool-adjacent-violators.

    More flexible than Platt, so it needs more calibration data and can
    overfit a small set. Tied scores are pooled first, exactly as
    scikit-learn's ``IsotonicRegression`` does. Predictions interpolate
    linearly between the fitted points ``(x, y)`` and stay constant beyond
    the first and last.
    """

    x: tuple[float, ...] = ()
    y: tuple[float, ...] = ()
    kind: str = "isotonic"
    _fitted: bool = field(default=False, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.x, self.y = tuple(self.x), tuple(self.y)
        if self.x or self.y:
            _check_steps(self.x, self.y)
        self._fitted = bool(self.x)

    def fit(self, scores: Iterable[float], correct: Iterable[bool | int]) -> IsotonicCalibrator:
        """Fit the monotone step function to ``(score, correct)`` pairs; returns self."""
        s, y, np = self._inputs(scores, correct)
        xs, ys = _fit.isotonic_fit(s, y, np=np)
        self.x, self.y = tuple(xs), tuple(ys)
        self._fitted = True
        return self

    def _predict(self, values: Any, np: ModuleType | None) -> Any:
        if np is not None:
            return _fit.interp(values, self.x, self.y, np=np)
        return [_fit.interp(v, self.x, self.y) for v in values]

    def to_dict(self) -> dict[str, object]:
        """The fitted points as plain JSON numbers."""
        self._require_fit()
        return {"kind": self.kind, "x": list(self.x), "y": list(self.y)}

    @classmethod
    def from_dict(cls, record: Mapping[str, object]) -> IsotonicCalibrator:
        """Rebuild from `to_dict` output, checking the points are a monotone fit."""
        fields = check_record(record, "isotonic", ("x", "y"))
        x, y = fields["x"], fields["y"]
        if not isinstance(x, (list, tuple)) or not isinstance(y, (list, tuple)) or not x:
            raise ValueError(
                "isotonic calibrator record needs non-empty lists 'x' and 'y'; "
                "re-save it from a fitted IsotonicCalibrator."
            )
        return cls(x=tuple(x), y=tuple(y))


@dataclass
class TemperatureCalibrator(_Fitted):
    """Temperature scaling: ``sigmoid(logit / T)`` with one ``T`` fitted on a holdout.

    Use it only when the raw score is a logit; `__call__` expects a logit,
    not a probability. ``T > 1`` softens overconfidence, and the ranking of
    scores never changes. Built with ``T`` other than 1, it counts as fitted.

    Args:
        T: the temperature (set by `fit`).
        t_min, t_max, max_iter: the golden-section search interval and its
            number of iterations.
    """

    T: float = 1.0
    kind: str = "temperature"
    t_min: float = 0.05
    t_max: float = 10.0
    max_iter: int = 60
    _fitted: bool = field(default=False, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.T = number(self.T, what="TemperatureCalibrator T")
        self.t_min = number(self.t_min, what="TemperatureCalibrator t_min")
        self.t_max = number(self.t_max, what="TemperatureCalibrator t_max")
        if self.T <= 0 or not 0 < self.t_min < self.t_max:
            raise ValueError(
                f"TemperatureCalibrator needs T > 0 and 0 < t_min < t_max, got T={self.T}, "
                f"t_min={self.t_min}, t_max={self.t_max}."
            )
        _positive_int(self.max_iter, "TemperatureCalibrator max_iter")
        self._fitted = self.T != 1.0

    def fit(self, logits: Iterable[float], correct: Iterable[bool | int]) -> TemperatureCalibrator:
        """Fit ``T`` by minimising the negative log-likelihood; returns self."""
        s, y, np = self._inputs(logits, correct, "logits")
        self.T = _fit.temperature_fit(s, y, t_min=self.t_min, t_max=self.t_max, max_iter=self.max_iter, np=np)
        self._fitted = True
        # Golden-section search ends within ~1e-6 relative of a bound it hits.
        for bound, name in ((self.t_min, "t_min"), (self.t_max, "t_max")):
            if abs(self.T - bound) <= 1e-4 * bound:
                warnings.warn(
                    f"TemperatureCalibrator.fit stopped at its bound {name}={bound}: the best T may "
                    f"lie beyond it (are the inputs logits, not probabilities?). Widen {name} to "
                    "search further.",
                    stacklevel=2,
                )
        return self

    def _predict(self, values: Any, np: ModuleType | None) -> Any:
        if np is not None:
            return _fit.platt_predict(values, 1.0 / self.T, 0.0, np=np)
        return [_fit.sigmoid(v / self.T) for v in values]

    def to_dict(self) -> dict[str, object]:
        """The fitted temperature and search settings as plain JSON numbers."""
        self._require_fit()
        return {"kind": self.kind, "T": self.T, "t_min": self.t_min, "t_max": self.t_max, "max_iter": self.max_iter}

    @classmethod
    def from_dict(cls, record: Mapping[str, object]) -> TemperatureCalibrator:
        """Rebuild from `to_dict` output, checking every field."""
        fields = check_record(record, "temperature", ("T",))
        cal = cls(
            T=fields["T"],
            t_min=fields.get("t_min", 0.05),
            t_max=fields.get("t_max", 10.0),
            max_iter=fields.get("max_iter", 60),
        )
        cal._fitted = True
        return cal


def _positive_int(value: Any, what: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{what} must be a positive int, got {value!r}.")


def _check_steps(x: tuple[float, ...], y: tuple[float, ...]) -> None:
    if len(x) != len(y) or not x:
        raise ValueError(f"IsotonicCalibrator needs x and y of one non-zero length, got {len(x)} and {len(y)}.")
    xs = [number(v, what=f"IsotonicCalibrator x[{i}]") for i, v in enumerate(x)]
    ys = [probability(v, what=f"IsotonicCalibrator y[{i}]") for i, v in enumerate(y)]
    for i in range(1, len(xs)):
        if not xs[i] > xs[i - 1] or ys[i] < ys[i - 1]:
            raise ValueError(
                f"IsotonicCalibrator points must have increasing x and non-decreasing y; "
                f"point {i} is ({xs[i]}, {ys[i]}) after ({xs[i - 1]}, {ys[i - 1]})."
            )
