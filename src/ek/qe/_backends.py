"""Library-backed calibrators and gates (the ``calibration`` extra).

* `sklearn_calibrator`: Platt (``"sigmoid"``) or isotonic from scikit-learn.
* `netcal_calibrator` / `netcal_ece`: netcal's calibration methods and ECE
  (netcal needs PyTorch).
* `crepes_mondrian_gate`: a Mondrian conformal gate on crepes.

Building one checks that its packages are installed (without importing
them); the libraries are imported on first fit or call. Public through
`ek.qe.calibrate` and `ek.qe.decide`.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from types import ModuleType
from typing import Any

from ek._calls import probability
from ek.base import Calibrator
from ek.qe._checks import (
    as_decisions,
    both_outcomes,
    is_batch,
    labels,
    one_minus,
    probabilities,
    scores,
)
from ek.registry import requires_extra

_NETCAL_METHODS = {
    "sigmoid": ("netcal.scaling", "LogisticCalibration"),
    "temperature": ("netcal.scaling", "TemperatureScaling"),
    "beta": ("netcal.scaling", "BetaCalibration"),
    "isotonic": ("netcal.binning", "IsotonicRegression"),
    "histogram": ("netcal.binning", "HistogramBinning"),
}


@requires_extra("calibration", packages=["numpy", "sklearn"])
def sklearn_calibrator(method: str = "sigmoid") -> Calibrator:
    """A calibrator backed by scikit-learn: ``"sigmoid"`` (Platt) or ``"isotonic"``.

    ``"sigmoid"`` fits a logistic regression on Platt's smoothed targets (the
    model scikit-learn's ``CalibratedClassifierCV(method="sigmoid")`` fits);
    ``"isotonic"`` wraps ``IsotonicRegression(out_of_bounds="clip")``. Its
    ``to_dict()`` writes the equivalent `PlattCalibrator` / `IsotonicCalibrator`
    record, so a saved fit loads without scikit-learn.
    """
    if method not in ("sigmoid", "isotonic"):
        raise ValueError(f"sklearn_calibrator method must be 'sigmoid' or 'isotonic', got {method!r}.")
    return _SklearnCalibrator(method)


@requires_extra("netcal", packages=["numpy", "netcal"])
def netcal_calibrator(method: str = "sigmoid") -> Calibrator:
    """A calibrator backed by netcal (which needs PyTorch), on probabilities in [0, 1].

    ``method`` is one of ``"sigmoid"`` (logistic calibration), ``"temperature"``,
    ``"beta"``, ``"isotonic"`` or ``"histogram"`` (histogram binning). netcal
    keeps its state in its own objects, so these cannot be saved as JSON.
    """
    if method not in _NETCAL_METHODS:
        raise ValueError(f"netcal_calibrator method must be one of {sorted(_NETCAL_METHODS)}, got {method!r}.")
    return _NetcalCalibrator(method)


@requires_extra("netcal", packages=["numpy", "netcal"])
def netcal_ece(probs: Iterable[float], correct: Iterable[bool | int], *, bins: int = 10) -> float:
    """Expected calibration error computed by netcal (lower is better).

    Agrees with `expected_calibration_error` on the same bins; netcal also
    offers D-ECE for localized outputs.
    """
    import numpy as np
    from netcal.metrics import ECE

    p = probabilities(probs, what="netcal_ece() probs", np=np)
    y = labels(correct, len(p), what="netcal_ece() correct", np=np)
    return float(ECE(bins).measure(p, y.astype(int)))


@requires_extra("calibration", packages=["numpy", "crepes"])
def crepes_mondrian_gate(alpha: float = 0.1, *, nonconformity: Callable[[float], float] | None = None) -> Any:
    """A Mondrian (per-group) conformal gate backed by crepes.

    Makes the same accept/flag decisions as `GroupConformalGate` (without
    its pooled fallback): fit with ``fit(probs, correct, groups=...)``, call
    with ``gate(confidence, group=...)``. Use it for parity with a crepes
    conformal stack.
    """
    from ek.qe._checks import check_alpha

    return _CrepesMondrianGate(check_alpha(alpha, "crepes_mondrian_gate alpha"), nonconformity)


# --------------------------------------------------------------------------


class _BatchCall:
    """Scalar-or-batch call over a vectorised ``_predict``."""

    name = "calibrator"

    def __call__(self, score: Any) -> Any:
        import numpy as np

        if self._model is None:
            raise ValueError(f"{self.name} is not fitted yet; call .fit(scores, correct) first.")
        if is_batch(score):
            return np.asarray(self._predict(self._inputs(score, "scores")), dtype=float)
        return float(self._predict(self._inputs([score], "score"))[0])

    _model: Any = None

    def _inputs(self, values: Any, what: str) -> Any:
        import numpy as np

        return scores(values, what=f"{self.name} {what}", np=np)

    def _predict(self, values: Any) -> Any:  # pragma: no cover - overridden
        raise NotImplementedError


class _SklearnCalibrator(_BatchCall):
    def __init__(self, method: str):
        self.method = method
        self.name = f"sklearn_calibrator({method!r})"
        self._model = None

    def __repr__(self) -> str:
        return self.name

    def fit(self, scores: Any, correct: Any) -> _SklearnCalibrator:
        import numpy as np

        s = self._inputs(scores, "fit scores")
        y = labels(correct, len(s), what=f"{self.name}.fit correct", np=np)
        both_outcomes(y, owner=f"{self.name}.fit")
        if self.method == "isotonic":
            from sklearn.isotonic import IsotonicRegression

            self._model = IsotonicRegression(out_of_bounds="clip", y_min=0.0, y_max=1.0).fit(s, y)
        else:
            self._model = _sklearn_platt(s, y, np)
        return self

    def _predict(self, values: Any) -> Any:
        if self.method == "isotonic":
            return self._model.predict(values)
        a, b = self._model
        import numpy as np

        from ek.qe._fit import platt_predict

        return platt_predict(values, a, b, np=np)

    def to_dict(self) -> dict[str, Any]:
        if self._model is None:
            raise ValueError(f"{self.name} is not fitted yet; fit it before saving.")
        if self.method == "isotonic":
            m = self._model
            return {"kind": "isotonic", "x": m.X_thresholds_.tolist(), "y": m.y_thresholds_.tolist()}
        a, b = self._model
        return {"kind": "platt", "a": a, "b": b, "max_iter": 100}


def _sklearn_platt(s: Any, y: Any, np: ModuleType) -> tuple[float, float]:
    """Platt's (a, b) via LogisticRegression: each row twice, weighted by its smoothed target."""
    from sklearn.linear_model import LogisticRegression

    from ek.qe._fit import platt_targets

    n_pos = int(y.sum())
    hi, lo = platt_targets(n_pos, len(y) - n_pos)
    t = np.where(y, hi, lo)
    x = np.concatenate([s, s]).reshape(-1, 1)
    target = np.concatenate([np.ones(len(s)), np.zeros(len(s))])
    weight = np.concatenate([t, 1.0 - t])
    if inspect.signature(LogisticRegression).parameters["penalty"].default == "deprecated":
        model = LogisticRegression(C=np.inf, tol=1e-10, max_iter=1000)
    else:  # scikit-learn < 1.8
        model = LogisticRegression(penalty=None, tol=1e-10, max_iter=1000)
    model.fit(x, target, sample_weight=weight)
    return float(model.coef_[0, 0]), float(model.intercept_[0])


class _NetcalCalibrator(_BatchCall):
    def __init__(self, method: str):
        self.method = method
        self.name = f"netcal_calibrator({method!r})"
        self._model = None

    def __repr__(self) -> str:
        return self.name

    def _inputs(self, values: Any, what: str) -> Any:
        import numpy as np

        return probabilities(values, what=f"{self.name} {what}", np=np)

    def fit(self, probs: Any, correct: Any) -> _NetcalCalibrator:
        import importlib

        import numpy as np

        p = self._inputs(probs, "fit probs")
        y = labels(correct, len(p), what=f"{self.name}.fit correct", np=np)
        both_outcomes(y, owner=f"{self.name}.fit")
        module, cls = _NETCAL_METHODS[self.method]
        model = getattr(importlib.import_module(module), cls)()
        model.fit(p, y.astype(int))
        self._model = model
        return self

    def _predict(self, values: Any) -> Any:
        import numpy as np

        out = np.asarray(self._model.transform(values), dtype=float).reshape(-1)
        return np.clip(out, 0.0, 1.0)

    def to_dict(self) -> dict[str, Any]:
        raise TypeError(
            f"{self.name} keeps its fit inside netcal objects and cannot be saved as JSON numbers; "
            "save a PlattCalibrator/IsotonicCalibrator/TemperatureCalibrator instead, or refit."
        )


class _CrepesMondrianGate:
    """Per-group conformal accept/flag computed with crepes' ConformalClassifier."""

    def __init__(self, alpha: float, nonconformity: Callable[[float], float] | None):
        self.alpha = alpha
        self.nonconformity = nonconformity if nonconformity is not None else one_minus
        self._model = None

    def __repr__(self) -> str:
        return f"crepes_mondrian_gate(alpha={self.alpha})"

    def fit(self, probs: Any, correct: Any, *, groups: Any) -> _CrepesMondrianGate:
        import numpy as np
        from crepes import ConformalClassifier

        from ek.qe._checks import check_group_sizes, correct_scores

        p = probabilities(probs, what="crepes_mondrian_gate.fit probs", np=np, allow_nonfinite=True)
        y = labels(correct, len(p), what="crepes_mondrian_gate.fit correct", np=np)
        keys = list(groups.tolist() if hasattr(groups, "tolist") else groups)
        if len(keys) != len(p):
            raise ValueError(
                f"crepes_mondrian_gate.fit got {len(keys)} group keys for {len(p)} probs; pass one per prob."
            )
        keep = [i for i in range(len(p)) if y[i] and np.isfinite(p[i])]
        nc = np.asarray(correct_scores([p[i] for i in keep], self.nonconformity))
        bins = np.asarray([str(keys[i]) for i in keep], dtype=object)
        check_group_sizes(
            {k: int((bins == k).sum()) for k in set(bins.tolist())}, self.alpha, "crepes_mondrian_gate.fit"
        )
        self._groups = set(bins.tolist())
        self._model = ConformalClassifier().fit(nc, bins=bins)
        return self

    def p_value(self, confidence: Any, *, group: Any) -> Any:
        """Conformal p-value of ``confidence`` among the correct items of ``group``."""
        import numpy as np

        if self._model is None:
            raise ValueError("crepes_mondrian_gate is not fitted yet; call .fit(probs, correct, groups=...) first.")
        batch = is_batch(confidence)
        values = list(confidence) if batch else [confidence]
        keys = list(group) if is_batch(group) else [group] * len(values)
        for k in keys:
            if str(k) not in self._groups:
                raise ValueError(
                    f"crepes_mondrian_gate has no calibration data for group {k!r}; "
                    f"known groups: {sorted(self._groups)}."
                )
        nc = [self.nonconformity(probability(v, what="crepes_mondrian_gate confidence")) for v in values]
        p = self._model.predict_p(
            np.asarray(nc).reshape(-1, 1), bins=np.asarray([str(k) for k in keys], dtype=object), smoothing=False
        )
        p = np.asarray(p, dtype=float).reshape(-1)
        return p if batch else float(p[0])

    def __call__(self, confidence: Any, *, group: Any) -> Any:
        from ek.base import Decision

        p = self.p_value(confidence, group=group)
        if is_batch(confidence):
            return as_decisions([Decision.ACCEPT if v > self.alpha else Decision.FLAG for v in p])
        return Decision.ACCEPT if p > self.alpha else Decision.FLAG
