"""Contract tests over every calibrator and gate (the sklearn test_common idea).

Calibrators: output in [0, 1], monotone in the score, batch == per score,
``to_dict`` round trip, refusal before ``fit`` and of NaN. Gates: a higher
confidence never gets a more severe decision, batch == per value, NaN and
out-of-range confidences refused.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ek.base import Decision
from ek.qe import _checks
from ek.qe._records import from_record
from ek.qe.calibrate import (
    GroupCalibrator,
    IsotonicCalibrator,
    PlattCalibrator,
    TemperatureCalibrator,
    sklearn_calibrator,
)
from ek.qe.decide import ConformalGate, CostSensitiveGate, GroupConformalGate, RiskControlGate

_rng = np.random.default_rng(0)
_S = _rng.random(300)
_Y = _rng.random(300) < _S
_G = np.array(["a", "b"] * 150)

_SEVERITY = {Decision.ACCEPT: 0, Decision.FLAG: 1, Decision.BLOCK: 2}


def _calibrators():
    out = {
        "platt": PlattCalibrator().fit(_S, _Y),
        "isotonic": IsotonicCalibrator().fit(_S, _Y),
        "temperature": TemperatureCalibrator().fit((_S - 0.5) * 6, _Y),
        "group": GroupCalibrator().fit(_S, _Y, groups=_G),
    }
    if _checks.is_installed("sklearn"):
        out["sklearn-sigmoid"] = sklearn_calibrator("sigmoid").fit(_S, _Y)
        out["sklearn-isotonic"] = sklearn_calibrator("isotonic").fit(_S, _Y)
    return out


CALIBRATORS = _calibrators()
UNFITTED = [PlattCalibrator(), IsotonicCalibrator(), TemperatureCalibrator(), GroupCalibrator()]
if _checks.is_installed("sklearn"):
    UNFITTED.append(sklearn_calibrator("sigmoid"))

_finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)


@pytest.mark.parametrize("name", sorted(CALIBRATORS))
@given(scores=st.lists(_finite, min_size=1, max_size=30))
@settings(max_examples=60)
def test_calibrated_probabilities_lie_in_unit_interval(name, scores):
    out = CALIBRATORS[name](scores)
    assert all(0.0 <= v <= 1.0 for v in out)


@pytest.mark.parametrize("name", sorted(CALIBRATORS))
@given(a=_finite, b=_finite)
@settings(max_examples=60)
def test_calibrators_are_monotone(name, a, b):
    cal = CALIBRATORS[name]
    lo, hi = sorted((a, b))
    assert cal(lo) <= cal(hi)


@given(
    scores=st.lists(st.floats(0, 1), min_size=2, max_size=60), labels=st.lists(st.booleans(), min_size=60, max_size=60)
)
@settings(max_examples=80)
def test_isotonic_fit_is_monotone_for_any_data(scores, labels):
    labels = labels[: len(scores)]
    if len(set(labels)) < 2:
        labels[0], labels[1] = True, False
    cal = IsotonicCalibrator().fit(scores, labels)
    assert all(a <= b for a, b in zip(cal.y, cal.y[1:]))
    grid = np.linspace(-0.1, 1.1, 50)
    out = cal(grid)
    assert np.all(np.diff(out) >= 0) and np.all((out >= 0) & (out <= 1))


@pytest.mark.parametrize("name", sorted(CALIBRATORS))
def test_batch_equals_per_score(name):
    cal = CALIBRATORS[name]
    grid = np.linspace(-2, 2, 41)
    batch = cal(grid)
    assert isinstance(batch, np.ndarray)
    assert batch.tolist() == [cal(float(v)) for v in grid]
    assert cal(grid.tolist()).tolist() == batch.tolist()


@pytest.mark.parametrize("name", sorted(CALIBRATORS))
def test_to_dict_round_trip(name):
    cal = CALIBRATORS[name]
    back = from_record(cal.to_dict())
    grid = np.linspace(-1, 2, 31)
    np.testing.assert_allclose(back(grid), cal(grid), rtol=1e-12)


@pytest.mark.parametrize("cal", UNFITTED, ids=lambda c: type(c).__name__)
def test_refuses_before_fit(cal):
    with pytest.raises(ValueError, match="not fitted yet"):
        cal(0.5)


@pytest.mark.parametrize("name", sorted(CALIBRATORS))
def test_refuses_nan(name):
    with pytest.raises(ValueError, match="finite"):
        CALIBRATORS[name](math.nan)


# --------------------------------------------------------------------------
# gates
# --------------------------------------------------------------------------

_P = np.clip(_S * 0.9 + 0.05, 0, 1)
GATES = {
    "cost": CostSensitiveGate(rho=3.0, block_threshold=0.1),
    "conformal": ConformalGate().fit(_P, _Y),
    "group-conformal": GroupConformalGate().fit(_P, _Y, groups=_G),
    "risk": RiskControlGate(target=0.2).fit(_P, _Y),
}


@pytest.mark.parametrize("name", sorted(GATES))
@given(a=st.floats(0, 1), b=st.floats(0, 1))
@settings(max_examples=80)
def test_gates_are_monotone(name, a, b):
    gate = GATES[name]
    lo, hi = sorted((a, b))
    assert _SEVERITY[gate(hi)] <= _SEVERITY[gate(lo)]


@pytest.mark.parametrize("name", sorted(GATES))
def test_gate_batch_equals_per_value(name):
    gate = GATES[name]
    grid = np.linspace(0, 1, 101)
    assert list(gate(grid)) == [gate(float(v)) for v in grid]


@pytest.mark.parametrize("name", sorted(GATES))
@pytest.mark.parametrize("bad", [math.nan, -0.1, 1.1])
def test_gates_refuse_non_probabilities(name, bad):
    with pytest.raises(ValueError, match="finite number|outside"):
        GATES[name](bad)
