"""Simulated streams (scripts/monitor_grid.py): false alarms, detection delays of both alarms, coverage.

Seeded and small (the full grid, 400 streams x 365 windows, is the
script's): each test runs in a few seconds.
"""

from __future__ import annotations

import functools
import importlib.util
import math
import pathlib

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("scipy")

from ek.qe import CostSensitiveGate, PlattCalibrator  # noqa: E402
from ek.qe.monitor import Monitor  # noqa: E402
from ek.qe.monitor import _cs as cs  # noqa: E402


def _simulation():
    path = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "monitor_grid.py"
    spec = importlib.util.spec_from_file_location("ek_monitor_grid", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SIM = _simulation()
# A bisection over 50 numerical integrals, the same answer each time: the module's three calls share one.
SIM.doubling_delta = functools.cache(SIM.doubling_delta)


def test_stable_streams_checked_every_window_raise_either_alarm_in_at_most_alpha_of_them():
    rates = SIM.false_alarms(200, 120, per_window=50, seed=0)
    print(f"false alarms over 200 x 120 windows: {rates}")
    assert rates["either"] <= SIM.ALPHA
    assert rates["risk"] <= SIM.ALPHA / 2 + 0.02 and rates["calibration"] <= SIM.ALPHA / 2 + 0.02


def test_checking_a_fixed_time_interval_every_window_would_false_alarm_far_more():
    # the point of the sequences: the lower end of a 95% normal interval of the cumulative error rate (a
    # one-sided 2.5% test), looked at after every window of the same stable streams, passes the promise in
    # 10% of them within the year (seed 0), four times its level
    rng, level = np.random.default_rng(0), SIM.accepted_error(0.0)
    _, accepted, correct = SIM.draw(rng, (100, 365 * 50), 0.0)
    wrong = (~correct & accepted).cumsum(axis=1)[:, 49::50]
    n = accepted.cumsum(axis=1)[:, 49::50]
    rate = wrong / n
    low = rate - 1.959963984540054 * np.sqrt(rate * (1 - rate) / n)
    assert (low > level).any(axis=1).mean() > 2 * 0.025


def test_a_shift_doubling_the_accepted_error_rate_after_180_windows_is_caught_within_16_by_each_alarm():
    assert SIM.accepted_error(SIM.doubling_delta()) == pytest.approx(2 * SIM.accepted_error(0.0), rel=1e-4)
    found = SIM.delays(20, before=180, after=40, per_window=50, seed=1)
    print({kind: float(np.median(d)) for kind, d in found.items()})
    for kind in ("risk", "calibration"):
        assert np.median(found[kind]) <= 16
        assert (found[kind] <= 40).all()
    # the confidence sequences the detectors replaced were far slower after a long stable stretch
    assert np.median(found["risk before"]) > 30


def test_the_anytime_band_covers_the_true_rate_at_every_window_in_at_least_one_minus_alpha_of_streams():
    rng, level = np.random.default_rng(3), SIM.accepted_error(0.0)
    _, accepted, correct = SIM.draw(rng, (300, 200 * 50), 0.0)
    x = (~correct).astype(float)
    a = SIM.ALPHA / 2
    lam = cs.stakes(x, a, mask=accepted)
    ends = np.arange(49, x.shape[1], 50)
    out = (cs.log_wealth(x, lam, level, side=+1)[:, ends] >= math.log(1 / a)) | (
        cs.log_wealth(x, lam, level, side=-1)[:, ends] >= math.log(1 / a)
    )
    assert 1 - out.any(axis=1).mean() >= 1 - SIM.ALPHA


def test_the_window_interval_covers_the_window_s_error_rate_in_at_least_the_nominal_share():
    rng = np.random.default_rng(5)
    cal = PlattCalibrator(a=SIM.A, b=SIM.B)
    covered = total = 0
    for r in range(4):
        monitor = Monitor(cal, CostSensitiveGate(rho=9.0), calibration_signals={"conf": rng.beta(5, 2, 500)})
        for w in range(60):
            s = rng.beta(*SIM.BETA, 1000)
            y = rng.random(1000) < SIM.truth(s)
            items = [{"id": f"{w}-{i}", "signals": {"conf": float(v)}} for i, v in enumerate(s)]
            audited = rng.choice(1000, 50, replace=False)
            summary = monitor.update(items, audit={f"{w}-{i}": bool(y[i]) for i in audited}, time=w)
            true = 1 - y[SIM.truth(s) >= SIM.TAU].mean()
            low, high = summary.risk["interval"]
            covered += low <= true <= high
            total += 1
    assert covered / total >= 0.95


def test_the_monitor_raises_the_alarms_the_vectorised_simulation_raises():
    rng, level, delta = np.random.default_rng(11), SIM.accepted_error(0.0), SIM.doubling_delta()
    windows, per = 40, 50
    shift = np.repeat(np.r_[np.zeros(20), np.full(windows - 20, delta)], per)
    s = rng.beta(*SIM.BETA, size=(1, windows * per))
    p = SIM.truth(s + shift)
    correct = rng.random(s.shape) < SIM.truth(s)
    expected = SIM.detector_alarms(p, p >= SIM.TAU, correct, level, per)
    monitor = Monitor(
        PlattCalibrator(a=SIM.A, b=SIM.B),
        CostSensitiveGate(rho=9.0),
        calibration_signals={"conf": rng.beta(5, 2, 500)},
        promise=level,
    )
    standing = {"risk": [], "calibration": []}
    for w in range(windows):
        cut = slice(w * per, (w + 1) * per)
        ids = [f"w{w:03d}-{i:03d}" for i in range(per)]  # in id order, the order of the simulation
        items = [{"id": i, "signals": {"conf": float(v)}} for i, v in zip(ids, (s + shift)[0, cut])]
        summary = monitor.update(items, audit=dict(zip(ids, map(bool, correct[0, cut]))), time=w)
        for kind, raised in standing.items():
            raised.append(summary.sequence[f"{kind}_alarm"])
    for kind, raised in standing.items():
        assert raised == expected[kind][0].tolist()
        assert any(raised) and not any(raised[:20])
