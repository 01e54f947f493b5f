"""The isotonic calibrator's interpolation: sorted blocks give np.interp's numbers to the bit."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ek.qe import _fit
from ek.qe.calibrate import IsotonicCalibrator

finite = st.floats(-2.0, 3.0, allow_nan=False, allow_subnormal=False)


@settings(max_examples=40, deadline=None)
@given(
    points=st.lists(finite, min_size=_fit._SORTED_POINTS, max_size=80, unique=True),
    extra=st.lists(st.one_of(finite, st.just(float("nan")), st.just(-0.0)), max_size=50),
    n=st.integers(_fit._SORTED_FROM, _fit._SORTED_FROM + 2 * _fit._SORTED_BLOCK + 7),
    seed=st.integers(0, 2**32 - 1),
)
def test_sorted_blocks_equal_np_interp(points, extra, n, seed):
    xs = sorted(points)
    rng = np.random.default_rng(seed)
    ys = np.sort(rng.random(len(xs))).tolist()
    # values on the points themselves, between them, beyond both ends, NaN and -0.0, in random order
    pool = np.array([*xs, *extra, xs[0] - 1, xs[-1] + 1], dtype=float)
    values = np.where(rng.random(n) < 0.5, rng.choice(pool, n), rng.uniform(xs[0] - 0.5, xs[-1] + 0.5, n))
    ours = _fit.interp(values, xs, ys, np=np)
    assert ours.dtype == np.float64 and ours.shape == values.shape
    assert np.array_equal(ours, np.interp(values, xs, ys), equal_nan=True)
    assert ours.tobytes() == np.interp(values, xs, ys).tobytes()  # the same bits, signed zeros too


def test_small_or_odd_inputs_take_np_interp_as_is():
    xs = np.linspace(0, 1, 40).tolist()
    ys = np.linspace(0, 1, 40).tolist()
    for values in (0.25, np.full((3, 4), 0.5), np.arange(_fit._SORTED_FROM - 1) / 3000, np.arange(3000) // 7):
        ours = _fit.interp(values, xs, ys, np=np)
        assert np.array_equal(ours, np.interp(values, xs, ys))
        assert type(ours) is type(np.interp(values, xs, ys))


def test_a_large_batch_equals_one_value_calls():
    rng = np.random.default_rng(3)
    scores = rng.random(20_000)
    fitted = IsotonicCalibrator().fit(scores, rng.random(20_000) < scores**2)
    assert len(fitted.x) >= _fit._SORTED_POINTS  # the blocked path is the one taken
    batch = fitted(scores)
    assert all(batch[i] == fitted(float(scores[i])) for i in range(0, 20_000, 97))
