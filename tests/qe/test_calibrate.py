"""Calibrators, diagnostics, persistence and library backends (ek.qe.calibrate)."""

import inspect
import math
import warnings

import numpy as np
import pytest

import ek
from ek.qe import _checks
from ek.qe._families import GroupCalibrator, SignalFamilyCalibrator
from ek.qe.calibrate import (
    DEFAULT_N_BINS,
    IsotonicCalibrator,
    PlattCalibrator,
    TemperatureCalibrator,
    expected_calibration_error,
    load_calibrator,
    mean_probability,
    min_probability,
    netcal_calibrator,
    netcal_ece,
    reliability_curve,
    save_calibrator,
    sklearn_calibrator,
)
from ek.registry import MissingExtraError


def _data(n=400, seed=0, ties=False):
    rng = np.random.default_rng(seed)
    s = rng.random(n)
    if ties:
        s = np.round(s, 2)
    y = rng.random(n) < s**2  # overconfident scores: true accuracy is s**2
    return s, y


@pytest.fixture(params=["numpy", "pure-python"])
def backend(request):
    """Run a test on both code paths (numpy arrays and plain lists)."""
    _checks._force_pure_python(request.param == "pure-python")
    yield request.param
    _checks._force_pure_python(False)


# --------------------------------------------------------------------------
# Platt
# --------------------------------------------------------------------------


def _sklearn_platt_reference(s, y):
    """Platt's smoothed targets reproduced in scikit-learn: each row twice, weighted."""
    sk = pytest.importorskip("sklearn.linear_model")
    n_pos = int(y.sum())
    hi, lo = (n_pos + 1) / (n_pos + 2), 1 / (len(y) - n_pos + 2)
    t = np.where(y, hi, lo)
    x = np.concatenate([s, s]).reshape(-1, 1)
    target = np.r_[np.ones(len(s)), np.zeros(len(s))]
    if inspect.signature(sk.LogisticRegression).parameters["penalty"].default == "deprecated":
        model = sk.LogisticRegression(C=np.inf, tol=1e-12, max_iter=10_000)
    else:
        model = sk.LogisticRegression(penalty=None, tol=1e-12, max_iter=10_000)
    model.fit(x, target, sample_weight=np.r_[t, 1 - t])
    return model.coef_[0, 0], model.intercept_[0]


def test_spec_example_pulls_overconfidence_down():
    raw = [0.95, 0.93, 0.92, 0.90, 0.55, 0.52, 0.51, 0.50]
    correct = [True, True, False, False, True, False, False, False]
    cal = PlattCalibrator().fit(raw, correct)
    assert cal(0.95) < 0.95 and 0.0 <= cal(0.5) <= 1.0


def test_platt_agrees_with_sklearn_on_smoothed_targets(backend):
    s, y = _data()
    a_ref, b_ref = _sklearn_platt_reference(s, y)
    cal = PlattCalibrator().fit(s.tolist(), y.tolist())
    assert cal.a == pytest.approx(a_ref, rel=1e-5) and cal.b == pytest.approx(b_ref, rel=1e-5)


def test_platt_matches_sklearn_private_sigmoid_calibration():
    calibration = pytest.importorskip("sklearn.calibration")
    ref = getattr(calibration, "_SigmoidCalibration", None)
    if ref is None:
        pytest.skip("scikit-learn no longer has _SigmoidCalibration")
    s, y = _data(seed=3)
    m = ref().fit(s, y)
    cal = PlattCalibrator().fit(s, y)
    # scikit-learn writes 1 / (1 + exp(a*s + b)): the signs flip
    assert cal.a == pytest.approx(-m.a_, rel=1e-5) and cal.b == pytest.approx(-m.b_, rel=1e-5)
    np.testing.assert_allclose(cal(s), m.predict(s), rtol=1e-6)


def test_platt_constant_scores_fall_back_to_base_rate():
    cal = PlattCalibrator().fit([0.7] * 4, [True, True, True, False])
    # smoothed targets: (3+1)/(3+2) = 0.8 three times, 1/(1+2) = 1/3 once -> mean 0.6833
    assert cal(0.7) == pytest.approx((3 * 0.8 + 1 / 3) / 4, rel=1e-6)


# --------------------------------------------------------------------------
# isotonic
# --------------------------------------------------------------------------


def test_isotonic_by_hand():
    cal = IsotonicCalibrator().fit([1, 2, 3, 4], [True, False, True, True])
    # pool (1, 2) -> 0.5, then 1, 1: points (1, .5) (2, .5) (3, 1) (4, 1)
    assert cal.x == (1.0, 2.0, 3.0, 4.0) and cal.y == (0.5, 0.5, 1.0, 1.0)
    assert cal(2.5) == 0.75 and cal(0) == 0.5 and cal(9) == 1.0


@pytest.mark.parametrize("ties", [False, True])
def test_isotonic_agrees_with_sklearn(backend, ties):
    isotonic = pytest.importorskip("sklearn.isotonic")
    s, y = _data(n=600, seed=1, ties=ties)
    ref = isotonic.IsotonicRegression(out_of_bounds="clip").fit(s, y)
    cal = IsotonicCalibrator().fit(s.tolist(), y.tolist())
    np.testing.assert_allclose(cal.x, ref.X_thresholds_, rtol=0, atol=0)
    np.testing.assert_allclose(cal.y, ref.y_thresholds_, rtol=0, atol=1e-12)
    grid = np.linspace(-0.2, 1.2, 301)
    np.testing.assert_allclose(np.asarray(cal(grid.tolist())), ref.predict(grid), atol=1e-12)


def test_isotonic_ties_are_pooled_before_fitting():
    cal = IsotonicCalibrator().fit([0.5, 0.5, 0.5, 0.9], [True, False, False, True])
    assert cal.x == (0.5, 0.9) and cal.y == pytest.approx((1 / 3, 1.0))


# --------------------------------------------------------------------------
# temperature
# --------------------------------------------------------------------------


def test_temperature_recovers_the_minimum_of_the_nll(backend):
    optimize = pytest.importorskip("scipy.optimize")
    rng = np.random.default_rng(2)
    logits = rng.normal(0, 4, 500)
    y = rng.random(500) < 1 / (1 + np.exp(-logits / 2.5))  # true temperature 2.5

    def nll(t):
        z = logits / t
        return np.sum(np.logaddexp(0, -z) + (1 - y) * z)

    ref = optimize.minimize_scalar(nll, bounds=(0.05, 10), method="bounded", options={"xatol": 1e-10}).x
    cal = TemperatureCalibrator().fit(logits.tolist(), y.tolist())
    assert cal.T == pytest.approx(ref, rel=1e-6)
    assert cal(0.0) == 0.5 and cal(3.0) == pytest.approx(1 / (1 + math.exp(-3 / cal.T)))


# --------------------------------------------------------------------------
# both backends, one answer; batches equal per-score calls
# --------------------------------------------------------------------------


@pytest.mark.parametrize("cls", [PlattCalibrator, IsotonicCalibrator, TemperatureCalibrator])
def test_pure_python_and_numpy_backends_agree(cls):
    s, y = _data(n=300, seed=4)
    grid = np.linspace(-0.5, 1.5, 41).tolist()
    fast = cls().fit(s, y)
    _checks._force_pure_python(True)
    try:
        slow = cls().fit(s.tolist(), y.tolist())
        slow_out = slow(grid)
    finally:
        _checks._force_pure_python(False)
    assert isinstance(slow_out, list)
    # golden-section search ends within rounding noise of a flat optimum: ~1e-8 relative
    tol = 1e-6 if cls is TemperatureCalibrator else 1e-9
    np.testing.assert_allclose(fast(grid), slow_out, rtol=tol, atol=1e-12)


@pytest.mark.parametrize("cls", [PlattCalibrator, IsotonicCalibrator, TemperatureCalibrator])
def test_batch_call_is_identical_to_per_score_calls(backend, cls):
    s, y = _data(n=200, seed=5)
    cal = cls().fit(s.tolist(), y.tolist())
    grid = np.linspace(-0.5, 1.5, 57)
    batch = cal(grid) if backend == "numpy" else cal(grid.tolist())
    assert list(batch) == [cal(float(v)) for v in grid]
    if backend == "numpy":
        assert isinstance(batch, np.ndarray) and np.array_equal(cal(grid.tolist()), batch)


# --------------------------------------------------------------------------
# ECE and the reliability curve
# --------------------------------------------------------------------------


def _ece_reference(p, y, n_bins):
    edges = np.linspace(0, 1, n_bins + 1)
    ids = np.searchsorted(edges[1:-1], p, side="left")
    return sum(
        abs(p[ids == b].mean() - y[ids == b].mean()) * (ids == b).mean() for b in range(n_bins) if (ids == b).any()
    )


def test_ece_by_hand_and_against_reference(backend):
    assert expected_calibration_error([0.75, 0.75, 0.25, 0.25], [True, False, False, False]) == 0.25
    assert expected_calibration_error([1.0, 0.0], [True, False]) == 0.0
    s, y = _data(n=1000, seed=6)
    for n_bins in (1, 5, DEFAULT_N_BINS, 15):
        assert expected_calibration_error(s.tolist(), y.tolist(), n_bins=n_bins) == pytest.approx(
            _ece_reference(s, y, n_bins), abs=1e-12
        )


def test_reliability_curve_matches_sklearn_calibration_curve(backend):
    calibration = pytest.importorskip("sklearn.calibration")
    s, y = _data(n=1000, seed=7)
    s = np.r_[s, [0.1, 0.2, 0.3, 0.5]]  # values on bin edges
    y = np.r_[y, [True, False, True, False]]
    prob_true, prob_pred = calibration.calibration_curve(y, s, n_bins=10)
    curve = reliability_curve(s.tolist(), y.tolist())
    np.testing.assert_allclose([b["accuracy"] for b in curve], prob_true, atol=1e-12)
    np.testing.assert_allclose([b["confidence"] for b in curve], prob_pred, atol=1e-12)
    assert sum(b["count"] for b in curve) == len(s)


def test_ece_skips_non_finite_and_clamps_out_of_range():
    # the documented behaviour: NaN skipped, 1.5 clamped to 1.0 -> bins {0.75: right}, {1.0: right} -> 0.125
    with pytest.warns(UserWarning, match=r"2 confidence\(s\) that are not probabilities \(the first: probs\[1\]"):
        assert expected_calibration_error([0.75, math.nan, 1.5], [True, False, True]) == pytest.approx(0.125)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, 5, -3, 1.0000001])
@pytest.mark.parametrize("func", [expected_calibration_error, reliability_curve])
def test_confidences_that_are_not_probabilities_warn_with_their_position(backend, func, bad):
    # issue 20 item 13: they were skipped or clamped silently
    with pytest.warns(UserWarning, match=rf"{func.__name__}\(\) got 1 confidence\(s\).*probs\[2\] = "):
        func([0.75, 0.5, bad, 0.25], [True, False, True, False])


def test_probabilities_do_not_warn(backend):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        expected_calibration_error([0.0, 0.3, 1.0], [False, True, True])


def test_probabilities_on_the_bounds_are_kept(backend):
    # 0 and 1 are probabilities: 1.0 in the top bin (accuracy 1), 0.0 in the bottom one (accuracy 0)
    assert expected_calibration_error([0.0, 1.0], [False, True]) == 0.0
    assert reliability_curve([0.0, 1.0], [True, True]) == [
        {"confidence": 0.0, "accuracy": 1.0, "count": 1},
        {"confidence": 1.0, "accuracy": 1.0, "count": 1},
    ]


def test_no_probabilities_is_refused(backend):
    with pytest.raises(ValueError, match=r"expected_calibration_error\(\) got no finite probabilities"):
        expected_calibration_error([], [])


# --------------------------------------------------------------------------
# grouped calibrators
# --------------------------------------------------------------------------


def test_group_calibrator_fits_each_group_on_its_own():
    s1, y1 = _data(n=200, seed=8)
    s2, y2 = _data(n=200, seed=9)
    y2 = ~y2
    cal = GroupCalibrator().fit(np.r_[s1, s2], np.r_[y1, y2], groups=["a"] * 200 + ["b"] * 200)
    ref_a, ref_b = PlattCalibrator().fit(s1, y1), PlattCalibrator().fit(s2, y2)
    assert cal(0.3, group="a") == pytest.approx(ref_a(0.3)) and cal(0.3, group="b") == pytest.approx(ref_b(0.3))
    assert cal(0.3, group="new") == cal.pooled(0.3)
    batch = cal([0.3, 0.3, 0.3], group=["a", "b", "new"])
    assert list(batch) == [cal(0.3, group="a"), cal(0.3, group="b"), cal(0.3, group="new")]


def test_group_that_cannot_be_fitted_uses_pooled_with_warning():
    with pytest.warns(UserWarning, match=r"'r' \(PlattCalibrator.fit needs both outcomes, but all 1 labels"):
        cal = GroupCalibrator().fit([0.1, 0.9, 0.8, 0.2, 0.7], [0, 1, 1, 0, 1], groups=list("aaaar"))
    assert "r" not in cal.by_group and "a" in cal.by_group
    assert cal(0.5, group="r") == cal.pooled(0.5)


def test_signal_family_spec_example():
    rows = [
        {"judge": j, "logprob": lp}
        for j, lp in [(0.9, -0.1), (0.8, -0.2), (0.85, -2.0), (0.3, -0.1), (0.2, -2.5), (0.7, -1.8)]
    ]
    correct = [True, True, False, True, False, False]
    cal = SignalFamilyCalibrator().fit(rows, correct)
    assert sorted(cal.calibrators) == ["judge", "logprob"]
    per = cal.calibrate_signals({"judge": 0.9, "logprob": -0.1})
    assert per["judge"] == cal.calibrators["judge"](0.9)
    assert cal({"judge": 0.9, "logprob": -0.1}) == cal.fusion(mean_probability(per))
    assert cal({"judge": 0.9}) == per["judge"]  # one family: already calibrated, passes as is
    assert 0.0 <= cal({"judge": 0.9, "logprob": -0.1}) <= 1.0


def test_signal_family_fallback_and_combiners():
    base = PlattCalibrator(a=2.0, b=-1.0)
    cal = SignalFamilyCalibrator(calibrators={"*": base}, combine=min_probability)
    per = cal.calibrate_signals({"x": 0.2, "y": 0.9})
    assert per == {"x": base(0.2), "y": base(0.9)}
    assert cal.fuse(per) == min(per.values())  # no fusion calibrator: combined value as is
    assert mean_probability([0.2, 0.4]) == pytest.approx(0.3)


# --------------------------------------------------------------------------
# persistence through the calibrators store
# --------------------------------------------------------------------------


def _fitted_all():
    s, y = _data(n=300, seed=10)
    groups = ["a", "b", "c"] * 100
    rows = [{"judge": float(v), "agreement": float(1 - v / 2)} for v in s]
    return [
        PlattCalibrator().fit(s, y),
        IsotonicCalibrator().fit(s, y),
        TemperatureCalibrator().fit((s - 0.5) * 8, y),
        GroupCalibrator(factory=IsotonicCalibrator).fit(s, y, groups=groups),
        SignalFamilyCalibrator().fit(rows, y.tolist()),
    ]


@pytest.mark.parametrize("index", range(5))
def test_save_load_round_trip(tmp_path, index):
    cal = _fitted_all()[index]
    record = save_calibrator(cal, "field-amount", rootdir=tmp_path)
    assert record == cal.to_dict()
    back = load_calibrator("field-amount", rootdir=tmp_path)
    assert type(back) is type(cal) and back.to_dict() == record
    probe = [0.05, 0.5, 0.95]
    if isinstance(cal, GroupCalibrator):
        assert [back(v, group="b") for v in probe] == [cal(v, group="b") for v in probe]
    elif isinstance(cal, SignalFamilyCalibrator):
        assert back({"judge": 0.4, "agreement": 0.9}) == cal({"judge": 0.4, "agreement": 0.9})
    else:
        assert [back(v) for v in probe] == [cal(v) for v in probe]


def test_store_holds_plain_json(tmp_path):
    save_calibrator(PlattCalibrator(a=3.0, b=-1.5), "p", rootdir=tmp_path)
    (path,) = (tmp_path / "calibrators").glob("p*")
    text = path.read_text()
    assert '"kind": "platt"' in text.replace("'", '"') or '"kind":"platt"' in text


def test_loading_unknown_kind_never_runs_code(tmp_path):
    ek.json_store("calibrators", rootdir=tmp_path)["evil"] = {"kind": "os.system", "a": "rm -rf /"}
    with pytest.raises(ValueError, match=r"unknown kind 'os.system'; known kinds: .*'platt'"):
        load_calibrator("evil", rootdir=tmp_path)


def test_loading_malformed_records(tmp_path):
    store = ek.json_store("calibrators", rootdir=tmp_path)
    store["no-b"] = {"kind": "platt", "a": 1.5}
    store["nan"] = {"kind": "isotonic", "x": [0.1, 0.2], "y": [0.1, "x"]}
    store["bare"] = [1, 2]
    store["bent"] = {"kind": "isotonic", "x": [0.1, 0.2], "y": [0.9, 0.1]}
    with pytest.raises(ValueError, match="platt calibrator record is missing 'b'"):
        load_calibrator("no-b", rootdir=tmp_path)
    with pytest.raises(ValueError, match="field 'y' must hold finite numbers"):
        load_calibrator("nan", rootdir=tmp_path)
    with pytest.raises(ValueError, match="is not a calibrator record"):
        load_calibrator("bare", rootdir=tmp_path)
    with pytest.raises(ValueError, match="non-decreasing y"):
        load_calibrator("bent", rootdir=tmp_path)
    with pytest.raises(KeyError, match=r"no calibrator is saved as 'missing'; saved calibrators: .*'nan'"):
        load_calibrator("missing", rootdir=tmp_path)


def test_a_factory_or_combiner_that_is_no_registered_name_is_refused(tmp_path):
    store = ek.json_store("calibrators", rootdir=tmp_path)
    pooled = PlattCalibrator(a=2.0).to_dict()
    store["factory-3"] = {"kind": "group", "factory": 3, "by_group": {}, "pooled": pooled}
    store["factory-os"] = {"kind": "group", "factory": "os.system", "by_group": {}, "pooled": pooled}
    store["combine-list"] = {"kind": "signal_family", "combine": ["mean"], "calibrators": {"*": pooled}}
    with pytest.raises(ValueError, match="unknown factory kind 3"):
        load_calibrator("factory-3", rootdir=tmp_path)
    with pytest.raises(ValueError, match="unknown factory kind 'os.system'"):
        load_calibrator("factory-os", rootdir=tmp_path)
    with pytest.raises(ValueError, match=r"names combiner \['mean'\], which is not registered; registered combiners: "):
        load_calibrator("combine-list", rootdir=tmp_path)


def test_saving_needs_a_registered_combiner(tmp_path):
    cal = SignalFamilyCalibrator(calibrators={"*": PlattCalibrator(a=2.0)}, combine=lambda p: 0.5)
    with pytest.raises(ValueError, match=r"not registered.*ek.register\('combiners'"):
        save_calibrator(cal, "x", rootdir=tmp_path)


# --------------------------------------------------------------------------
# bad input
# --------------------------------------------------------------------------


def test_nan_score_in_fit(backend):
    with pytest.raises(ValueError, match=r"PlattCalibrator.fit scores\[1\] is nan; every entry must be a finite"):
        PlattCalibrator().fit([0.2, math.nan, 0.8], [True, False, True])


def test_infinite_score_in_call():
    cal = PlattCalibrator(a=2.0)
    with pytest.raises(ValueError, match="PlattCalibrator score is inf; it must be a finite number"):
        cal(math.inf)
    with pytest.raises(ValueError, match=r"PlattCalibrator scores\[0\] is -inf"):
        cal([-math.inf])


@pytest.mark.parametrize("cls", [PlattCalibrator, IsotonicCalibrator, TemperatureCalibrator])
def test_used_before_fit(cls):
    with pytest.raises(ValueError, match=rf"{cls.__name__} is not fitted yet; call .fit\(scores, correct\)"):
        cls()(0.5)


def test_group_and_family_used_before_fit():
    with pytest.raises(ValueError, match="GroupCalibrator is not fitted yet"):
        GroupCalibrator()(0.5)
    with pytest.raises(ValueError, match=r"signal 'judge' has no calibrator and there is no '\*' fallback"):
        SignalFamilyCalibrator()({"judge": 0.5})


def test_single_outcome():
    msg = "needs both outcomes, but all 3 labels are True; add rows where the value was wrong"
    with pytest.raises(ValueError, match=msg):
        PlattCalibrator().fit([0.1, 0.5, 0.9], [True, True, True])


def test_mismatched_lengths_and_bad_labels():
    with pytest.raises(ValueError, match="has 2 labels but there are 3 scores"):
        IsotonicCalibrator().fit([0.1, 0.5, 0.9], [True, False])
    with pytest.raises(ValueError, match=r"correct\[1\] is 'yes'; each label must be True/False"):
        IsotonicCalibrator().fit([0.1, 0.5], [True, "yes"])


def test_family_with_too_few_rows_is_refused():
    rows = [{"judge": 0.9, "rare": 0.1}, {"judge": 0.2}, {"judge": 0.8}]
    with pytest.raises(ValueError, match=r"cannot calibrate signal 'rare': it has 1 rows"):
        SignalFamilyCalibrator().fit(rows, [True, False, True])


def test_probabilities_outside_unit_interval():
    with pytest.raises(ValueError, match=r"mean_probability\(\) value 1 is 1.2, outside \[0, 1\]"):
        mean_probability({"a": 0.5, "b": 1.2})


def test_bad_n_bins():
    with pytest.raises(ValueError, match="n_bins must be a positive int, got 0"):
        expected_calibration_error([0.5], [True], n_bins=0)


# --------------------------------------------------------------------------
# library backends (the calibration extra)
# --------------------------------------------------------------------------


def _installed(package):
    return _checks.is_installed(package)


def test_sklearn_calibrator_matches_ours_and_saves_as_ours(tmp_path):
    if not (_installed("sklearn") and _installed("numpy")):
        with pytest.raises(MissingExtraError, match=r'pip install "ek\[calibration\]"'):
            sklearn_calibrator()
        return
    s, y = _data(n=500, seed=11, ties=True)
    sig = sklearn_calibrator("sigmoid").fit(s, y)
    ours = PlattCalibrator().fit(s, y)
    np.testing.assert_allclose(sig(s), ours(s), rtol=1e-6)
    iso = sklearn_calibrator("isotonic").fit(s, y)
    np.testing.assert_allclose(iso(s), IsotonicCalibrator().fit(s, y)(s), atol=1e-12)
    assert isinstance(iso(0.5), float)
    save_calibrator(iso, "sk", rootdir=tmp_path)
    back = load_calibrator("sk", rootdir=tmp_path)
    assert isinstance(back, IsotonicCalibrator) and back(0.37) == pytest.approx(iso(0.37))
    with pytest.raises(ValueError, match="method must be 'sigmoid' or 'isotonic'"):
        sklearn_calibrator("beta")


@pytest.mark.needs("netcal")
def test_netcal_backend():
    if not _installed("netcal"):
        with pytest.raises(MissingExtraError, match=r'pip install "ek\[calibration\]"'):
            netcal_ece([0.5], [True])
        return
    s, y = _data(n=300, seed=12)
    s = s * 0.98 + 0.01
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert netcal_ece(s, y) == pytest.approx(expected_calibration_error(s, y), abs=1e-9)
        cal = netcal_calibrator("sigmoid").fit(s, y)
        out = cal(s)
    assert out.shape == s.shape and ((out >= 0) & (out <= 1)).all()
    assert cal(float(s[3])) == pytest.approx(out[3])
    assert expected_calibration_error(out, y) < expected_calibration_error(s, y)
    with pytest.raises(TypeError, match="cannot be saved as JSON"):
        cal.to_dict()
    with pytest.raises(ValueError, match="method must be one of"):
        netcal_calibrator("magic")


def test_two_dimensional_labels_are_refused(backend):
    # a column vector of labels used to broadcast against the scores and give a bogus fit
    column = np.array([[False], [True], [False], [True]])
    with pytest.raises(
        ValueError,
        match=r"correct must be 1-D \(one label per score\), got an array of shape \(4, 1\)"
        if backend == "numpy"
        else r"correct\[0\] is array\(\[False\]\); each label must be",
    ):
        PlattCalibrator().fit([0.1, 0.2, 0.8, 0.9], column)


def test_temperature_warns_when_the_search_stops_at_a_bound():
    from ek.qe import TemperatureCalibrator

    with pytest.warns(UserWarning, match="stopped at its bound t_min=0.05"):
        cal = TemperatureCalibrator().fit([-1.0, -1.0, 1.0, 1.0], [False, False, True, True])
    assert cal.T == pytest.approx(0.05, rel=1e-3)  # separable data: the optimum is T -> 0
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        TemperatureCalibrator().fit([-2.0, -1.0, 1.0, 2.0, 0.5, -0.5], [False, True, True, True, False, False])
