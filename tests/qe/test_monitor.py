"""ek.qe.monitor: the detectors and confidence sequences by hand, drift against scipy, figures against references, bad input."""

from __future__ import annotations

import itertools
import math

import pytest

np = pytest.importorskip("numpy")

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from ek.qe import (  # noqa: E402
    ConformalGate,
    CostSensitiveGate,
    PlattCalibrator,
    RiskControlGate,
    expected_calibration_error,
)
from ek.qe.monitor import Monitor  # noqa: E402
from ek.qe.monitor import _cs as cs  # noqa: E402
from ek.qe.monitor import _detect as detect  # noqa: E402
from ek.qe.monitor import _drift as drift  # noqa: E402
from ek.qe.monitor._gates import decide  # noqa: E402

CAL = PlattCalibrator(a=8.0, b=-4.0)


def _items(values, prefix="i", **extra):
    return [{"id": f"{prefix}{k}", "signals": {"conf": float(v)}, **extra} for k, v in enumerate(values)]


def _monitor(**kw):
    rng = np.random.default_rng(3)
    return Monitor(CAL, CostSensitiveGate(rho=9.0), calibration_signals={"conf": rng.beta(5, 2, 500)}, **kw)


# --- the betting confidence sequence -------------------------------------------------------------


def _stakes_by_hand(x, a):
    """The predictable plug-in stakes written as a plain loop (Waudby-Smith & Ramdas 2023, eq. 26-27)."""
    out, total, spread, variance = [], 0.0, 0.0, 0.25
    for t, value in enumerate(x, 1):
        out.append(min(0.75, math.sqrt(2 * math.log(1 / a) / (variance * t * math.log(1 + t)))))
        total += value
        mean = (0.5 + total) / (t + 1)
        spread += (value - mean) ** 2
        variance = (0.25 + spread) / (t + 1)
    return out


def test_the_first_stakes_and_wealth_worked_by_hand():
    # t = 1: sigma^2_0 = 1/4, sqrt(2 ln 20 / (0.25 * 1 * ln 2)) = 5.88 -> capped at 0.75; t = 2: mu_1 = 0.75,
    # sigma^2_1 = (0.25 + 0.0625) / 2 = 0.15625, sqrt(2 ln 20 / (0.15625 * 2 * ln 3)) = 4.18 -> 0.75.
    lam = cs.stakes(np.array([1.0, 0.0, 1.0]), 0.05)
    assert lam.tolist() == [0.75, 0.75, 0.75]
    # K+(1/2) = (1 + 0.75 * 0.5)(1 - 0.75 * 0.5)(1 + 0.75 * 0.5) = 1.375 * 0.625 * 1.375
    wealth = np.exp(cs.log_wealth([1.0, 0.0, 1.0], lam, 0.5, side=+1))
    assert wealth == pytest.approx([1.375, 1.375 * 0.625, 1.375 * 0.625 * 1.375], rel=1e-12)
    # K-(1/2) = (1 - 0.375)(1 + 0.375)(1 - 0.375)
    assert np.exp(cs.log_wealth([1.0, 0.0, 1.0], lam, 0.5, side=-1))[-1] == pytest.approx(0.625 * 1.375 * 0.625)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=300), st.sampled_from([0.01, 0.025, 0.05]))
def test_the_stakes_equal_the_formula_written_as_a_loop(x, a):
    assert cs.stakes(np.array(x), a) == pytest.approx(_stakes_by_hand(x, a), rel=1e-9)


def test_a_mask_leaves_observations_out_as_if_they_were_not_there():
    rng = np.random.default_rng(0)
    x = rng.random(200)
    keep = rng.random(200) < 0.4
    masked = cs.stakes(x, 0.05, mask=keep)
    assert masked[keep] == pytest.approx(cs.stakes(x[keep], 0.05))
    assert (masked[~keep] == 0).all()


def test_the_bounds_are_the_roots_of_the_wealth():
    rng = np.random.default_rng(1)
    x = (rng.random(2000) < 0.1).astype(float)
    lam = cs.stakes(x, 0.025)
    low, high = cs.bounds(x, lam, 0.025)
    target = math.log(1 / 0.025)
    assert cs.log_wealth(x, lam, low, side=+1)[-1] == pytest.approx(target, abs=1e-9)
    assert cs.log_wealth(x, lam, high, side=-1)[-1] == pytest.approx(target, abs=1e-9)
    assert cs.log_wealth(x, lam, low - 1e-6, side=+1)[-1] > target > cs.log_wealth(x, lam, low + 1e-6, side=+1)[-1]
    assert 0.07 < low < x.mean() < high < 0.13


def test_no_observation_and_no_evidence_exclude_nothing():
    assert cs.bounds(np.zeros(0), np.zeros(0), 0.05) == (0.0, 1.0)
    x = np.array([0.5, 0.5])
    low, high = cs.bounds(x, cs.stakes(x, 0.05), 0.05)
    assert low == 0.0 and high == 1.0  # two observations cannot push the wealth to 20


def test_the_sequence_covers_the_mean_at_every_time_in_at_least_one_minus_alpha_of_streams():
    rng = np.random.default_rng(2)
    a, mean = 0.05, 0.3
    x = rng.beta(3, 7, size=(400, 2000))  # mean 0.3
    lam = cs.stakes(x, a)
    ever = (cs.log_wealth(x, lam, mean, side=+1) >= math.log(1 / a)).any(axis=1)
    assert ever.mean() <= a  # the lower sequence passed the true mean in at most a of the streams


# --- drift ------------------------------------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.floats(0, 1), min_size=1, max_size=120),
    st.lists(st.integers(0, 120), max_size=6),
    st.sampled_from([0.025, 0.0125]),
)
def test_the_incremental_sequence_equals_the_sequence_over_the_whole_stream(x, cuts, a):
    seq, edges = cs.Sequence(a), sorted({0, len(x), *(c % (len(x) + 1) for c in cuts)})
    for start, end in itertools.pairwise(edges):
        seq.extend(x[start:end])
    assert seq.bounds() == pytest.approx(cs.bounds(np.array(x), cs.stakes(np.array(x), a), a), abs=1e-9)


# --- the e-detectors -------------------------------------------------------------------------------


def test_the_risk_detector_after_one_update_worked_by_hand():
    # level 0.1: rates 0.15, 0.2, 0.3 -> stakes 0.05/0.09, 0.1/0.09, 0.2/0.09; the change weight of update 1
    # is 365 / (365 * 366) = 1/366, and the changes not started yet keep 365/366 of the mixture at 1
    assert detect.risk_stakes(0.1) == pytest.approx((0.05 / 0.09, 0.1 / 0.09, 0.2 / 0.09), rel=1e-12)
    d = detect.Detector(detect.risk_stakes(0.1), 0.1)
    d.update([1.0, 0.0])
    products = [(1 + lam * 0.9) * (1 - lam * 0.1) for lam in (0.05 / 0.09, 0.1 / 0.09, 0.2 / 0.09)]
    assert math.exp(d.log_e()) == pytest.approx(sum(products) / 3 / 366 + 365 / 366, rel=1e-12)
    # update 2 brings one error: S_2 = (S_1 + w_2) * (1 + 0.9 lam), with w_2 = 365 / (366 * 367)
    d.update([1.0])
    w2 = 365 / (366 * 367)
    second = [(p / 366 + w2) * (1 + lam * 0.9) for p, lam in zip(products, (0.05 / 0.09, 0.1 / 0.09, 0.2 / 0.09))]
    assert math.exp(d.log_e()) == pytest.approx(sum(second) / 3 + 365 / 367, rel=1e-12)


def test_under_the_null_the_detector_s_expected_e_value_is_one_exactly():
    # every outcome of two updates of two Bernoulli(0.2) observations each, weighted by its probability
    level, total = 0.2, 0.0
    for bits in range(16):
        x = [(bits >> k) & 1 for k in range(4)]
        d = detect.Detector(detect.risk_stakes(level), level)
        d.update(x[:2])
        d.update(x[2:])
        total += math.exp(d.log_e()) * math.prod(level if b else 1 - level for b in x)
    assert total == pytest.approx(1.0, rel=1e-12)
    d = detect.Detector(detect.CALIBRATION_STAKES, 0.5)  # the two-sided one, at z = 0 or 1 with probability 1/2
    total = 0.0
    for bits in range(8):
        d2 = d.copy()
        d2.update([float((bits >> k) & 1) for k in range(3)])
        total += math.exp(d2.log_e()) / 8
    assert total == pytest.approx(1.0, rel=1e-12)


def test_the_change_weights_add_up_to_one_over_the_whole_stream():
    assert sum(math.exp(detect.log_weight(t)) for t in range(1, 10_001)) == pytest.approx(
        1 - detect.unstarted(10_000), rel=1e-12
    )
    assert detect.unstarted(detect.HORIZON) == 0.5  # half the budget on the first HORIZON updates
    assert min(detect.risk_stakes(0.4)) > 0 and max(detect.risk_stakes(0.4)) <= 1 / (2 * 0.4) + 1e-12


def test_a_late_audit_counts_at_the_update_that_brings_it():
    s, y, _ = _stream()
    monitor = _monitor(promise=0.05)
    monitor.update(_items(s[:200], "a"), audit={f"a{k}": bool(y[k]) for k in range(0, 200, 4)}, time=1)
    monitor.update(_items(s[200:], "b"), time=2)  # no audit: the update still opens a change time
    late = {f"b{k}": bool(y[200 + k]) for k in range(0, 200, 3)}
    monitor.update(audit=late, time=3)
    now = monitor.report().sequence  # after the audit-only update (a window's summary holds its own update's)
    d = detect.Detector(detect.risk_stakes(0.05), 0.05)
    accepted = CAL(s) >= 0.9
    for ids in (range(0, 200, 4), (), range(200, 400, 3)):
        d.update(
            [float(not y[k]) for k in sorted(ids, key=lambda k: f"a{k}" if k < 200 else f"b{k - 200}") if accepted[k]]
        )
    assert now["risk_e"] == pytest.approx(math.exp(d.log_e()), rel=1e-12)
    assert now["n_risk"] == sum(accepted[k] for k in [*range(0, 200, 4), *range(200, 400, 3)])


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.integers(0, 30), min_size=1, max_size=80),
    st.lists(st.integers(0, 30), min_size=1, max_size=80),
)
def test_the_ks_statistic_equals_scipy_with_ties(a, b):
    stats = pytest.importorskip("scipy.stats")
    a, b = np.array(a, dtype=float) / 10, np.array(b, dtype=float) / 10
    assert drift.ks_statistic(a, b) == stats.ks_2samp(a, b).statistic


def test_the_ks_statistic_equals_scipy_above_the_exact_size():
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(11)
    a, b = rng.normal(size=3000), rng.normal(0.05, 1, size=20_000).round(2)
    assert drift.ks_statistic(a, b) == stats.ks_2samp(a, b).statistic


def test_a_window_s_ks_is_scipy_s_ks_2samp_exactly():
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(4)
    calibration = rng.beta(5, 2, 300)
    window = rng.beta(4, 2, 120)
    monitor = Monitor(CAL, None, calibration_signals={"conf": calibration})
    summary = monitor.update(_items(window), time=1)
    expected = stats.ks_2samp(calibration, window)
    assert summary.drift["conf"]["ks"] == expected.statistic
    assert summary.drift["conf"]["p_value"] == expected.pvalue


def test_psi_worked_by_hand():
    # expected 10 per bin over two bins; actual 15 and 5: (0.75 - 0.5) ln(1.5) + (0.25 - 0.5) ln(0.5)
    assert drift.psi([10, 10], [15, 5]) == pytest.approx(0.25 * math.log(1.5) - 0.25 * math.log(0.5))
    # an empty bin counts at PSI_EPSILON = 1e-4
    assert drift.psi([10, 10], [20, 0]) == pytest.approx(0.5 * math.log(2) + (1e-4 - 0.5) * math.log(1e-4 / 0.5))
    assert drift.psi([], [1]) is None


def test_psi_bins_are_the_calibration_deciles_closed_on_the_right():
    calibration = np.arange(1, 101, dtype=float)  # deciles 10.9, 20.8, ..., 90.1 (linear interpolation)
    edges = drift.decile_edges(calibration)
    assert edges == pytest.approx(np.quantile(calibration, np.arange(1, 10) / 10).tolist())
    assert drift.bin_counts([edges[0], edges[0] + 1e-9, 0.0, 1000.0], edges) == [2, 1, 0, 0, 0, 0, 0, 0, 0, 1]
    assert drift.decile_edges([1.0] * 50 + [2.0] * 50) == [1.0, 1.5, 2.0]  # repeated edges merged


def test_importing_ek_qe_monitor_does_not_import_scipy():
    import subprocess
    import sys

    code = "import sys, ek.qe.monitor; print('scipy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# --- figures ----------------------------------------------------------------------------------


def _stream(seed=5, n=400, audits=80):
    rng = np.random.default_rng(seed)
    s = rng.beta(5, 2, n)
    y = rng.random(n) < CAL(s)
    audit_ids = rng.choice(n, audits, replace=False)
    return s, y, audit_ids


def test_window_shares_and_calibration_against_their_references():
    s, y, audited = _stream()
    monitor = _monitor()
    summary = monitor.update(_items(s), audit={f"i{k}": bool(y[k]) for k in audited}, time=0)
    p = CAL(s)
    decisions = CostSensitiveGate(rho=9.0)(p)
    assert summary.n == 400
    assert summary.shares["accept"] == sum(str(d) == "accept" for d in decisions) / 400
    assert summary.calibration["ece"] == pytest.approx(expected_calibration_error(p[audited], y[audited]), abs=1e-12)
    assert summary.calibration["gap"] == pytest.approx(float(np.mean(p[audited] - y[audited])))


def test_the_accepted_error_estimate_is_ppi_with_lambda_one():
    ppi = pytest.importorskip("ppi_py")
    s, y, audited = _stream(seed=6, n=2000, audits=300)
    monitor = _monitor()
    summary = monitor.update(_items(s), audit={f"i{k}": bool(y[k]) for k in audited}, time=0)
    p = CAL(s)
    accepted = p >= 0.9
    in_audit = np.zeros(len(s), dtype=bool)
    in_audit[audited] = True
    lab, unlab = accepted & in_audit, accepted & ~in_audit
    expected = ppi.ppi_mean_pointestimate(1.0 - y[lab], 1.0 - p[lab], 1.0 - p[unlab], lam=1)
    assert summary.risk["estimate"] == pytest.approx(float(np.ravel(expected)[0]), abs=1e-12)
    assert summary.risk["n_audited"] == lab.sum() and summary.risk["N"] == accepted.sum()
    low, high = ppi.ppi_mean_ci(1.0 - y[lab], 1.0 - p[lab], 1.0 - p[unlab], alpha=0.05, lam=1)
    floor = math.sqrt(float(np.mean(p[lab] * (1 - p[lab]))) / lab.sum())
    se = max((float(np.ravel(high)[0]) - float(np.ravel(low)[0])) / (2 * 1.959963984540054), floor)
    assert summary.risk["interval"] == pytest.approx(
        [
            max(0.0, summary.risk["estimate"] - 1.959963984540054 * se),
            summary.risk["estimate"] + 1.959963984540054 * se,
        ],
        rel=1e-3,
    )


def test_without_audits_the_estimate_is_the_calibrated_claim_labelled_as_such():
    s, _, _ = _stream()
    summary = _monitor().update(_items(s), time=0)
    p = CAL(s)
    assert summary.risk["estimate"] == pytest.approx(float(np.mean(1 - p[p >= 0.9])))
    assert summary.risk["interval"] is None
    assert summary.risk["basis"] == "calibrated probabilities (no audits)"


@pytest.mark.parametrize(
    "gate",
    [
        CostSensitiveGate(rho=4.0, block_threshold=0.2),
        RiskControlGate(target=0.1).fit(
            [0.99, 0.95, 0.9, 0.8, 0.7, 0.6] * 20, [True, True, True, False, True, False] * 20
        ),
        ConformalGate(alpha=0.2).fit([0.99, 0.95, 0.9, 0.8, 0.7, 0.6] * 20, [True] * 120),
    ],
    ids=["cost", "risk-control", "conformal"],
)
def test_array_decisions_equal_the_gate_called_per_value(gate):
    p = np.random.default_rng(7).random(500)
    codes = decide(gate, p)
    assert [("accept", "flag", "block")[c] for c in codes] == [str(gate(float(v))) for v in p]


def test_late_audits_change_the_earlier_window_s_figures():
    s, y, _ = _stream()
    monitor = _monitor()
    monitor.update(_items(s[:200], "a"), time=1)
    monitor.update(_items(s[200:], "b"), audit={"b0": bool(y[200])}, time=2)
    before = monitor.report().windows[0]
    assert before.calibration["n_audited"] == 0
    labels = {f"a{k}": bool(y[k]) for k in range(50)}
    monitor.update(audit=labels, time=3)
    after = monitor.report().windows[0]
    assert after.calibration["n_audited"] == 50
    p = CAL(s[:50])
    assert after.calibration["gap"] == pytest.approx(float(np.mean(p - y[:50])))
    assert monitor.report().cumulative["calibration"]["n_audited"] == 51


def test_the_alarm_fires_on_a_broken_promise_and_says_how_to_refit():
    rng = np.random.default_rng(8)
    monitor = _monitor(promise=0.02)
    fired = []
    for w in range(40):
        s = rng.beta(5, 2, 200)
        y = rng.random(200) < CAL(s) - 0.15  # the values are wrong far more often than the probabilities say
        summary = monitor.update(_items(s, f"w{w}-"), audit={f"w{w}-{k}": bool(y[k]) for k in range(100)}, time=w)
        fired += summary.alarms
    kinds = {a.kind for a in fired}
    assert kinds == {"risk", "calibration"}
    risk = next(a for a in fired if a.kind == "risk")
    assert "the change detector's e-value is" in risk.message and ">= 40 (a stable stream" in risk.message
    assert risk.level == 0.02 and risk.bound[0] <= risk.bound[1]
    assert "monitor.audited(last=" in risk.message and "ek.qe.save_calibrator(cal" in risk.message
    assert "ek.qe.PlattCalibrator().fit(signals['conf'], correct)" in risk.message
    assert "save_calibrator(cal, 'my-calibrator-v2')" in risk.message  # no name: one to replace
    signals, correct = monitor.audited(last=100)
    assert len(signals["conf"]) == len(correct) == 100
    assert len(monitor.report().alarms) == 2  # each alarm is raised once


def test_merging_monitors_of_disjoint_items_gives_the_monitor_of_their_union():
    rng = np.random.default_rng(9)
    whole, left, right = _monitor(promise=0.05), _monitor(promise=0.05), _monitor(promise=0.05)
    for w in range(6):
        s = rng.beta(5, 2, 300)
        y = rng.random(300) < CAL(s)
        items = _items(s, f"w{w}-")
        labels = {f"w{w}-{k}": bool(y[k]) for k in rng.choice(300, 40, replace=False)}
        whole.update(items, audit=labels, time=w)
        odd = {k: v for k, v in labels.items() if int(k.split("-")[1]) % 2}
        even = {k: v for k, v in labels.items() if k not in odd}
        left.update(items[1::2], audit=odd, time=w)
        right.update(items[0::2], audit=even, time=w)
    merged = Monitor.merge(left, right).report().to_dict()
    union = whole.report().to_dict()
    for w in union["windows"]:
        for d in w["drift"].values():
            d.update(ks=None, p_value=None)  # KS needs the samples: a merged window has none
    assert _close(merged, union)


def _close(a, b):
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        return all(_close(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        return all(_close(x, y) for x, y in zip(a, b))
    if isinstance(a, float):
        assert a == pytest.approx(b, rel=1e-9, abs=1e-12)
        return True
    assert a == b
    return True


# --- bad input: every message ------------------------------------------------------------------


def test_signals_that_do_not_match_the_calibrator_s_are_refused_naming_the_item():
    monitor = _monitor()
    with pytest.raises(
        ValueError, match=r"window item 'x' has signals \['score'\], but the calibrator was fitted on \['conf'\]"
    ):
        monitor.update([{"id": "x", "signals": {"score": 0.5}}], time=0)


def test_a_nan_signal_is_refused_naming_item_and_field():
    monitor = _monitor()
    items = _items([0.5, 0.6]) + [{"id": "bad", "signals": {"conf": float("nan")}}]
    with pytest.raises(ValueError, match=r"window item 'bad' signal 'conf' is nan; a raw signal must be finite"):
        monitor.update(items, time=0)
    assert monitor.report().cumulative["n"] == 0  # nothing was taken in


def test_a_text_signal_duplicate_ids_and_missing_ids_are_refused():
    monitor = _monitor()
    with pytest.raises(
        TypeError, match=r"window item 'a' signal 'conf' is a str \('0.5'\); a raw signal must be a number"
    ):
        monitor.update([{"id": "a", "signals": {"conf": "0.5"}}], time=0)
    with pytest.raises(ValueError, match=r"window item 'a' appears twice in the window"):
        monitor.update(_items([0.5]) and [{"id": "a", "signals": {"conf": 0.5}}] * 2, time=0)
    with pytest.raises(ValueError, match=r"window item 1 has id None; every item needs an 'id'"):
        monitor.update([{"id": "a", "signals": {"conf": 0.5}}, {"signals": {"conf": 0.5}}], time=0)


def test_time_going_backwards_is_refused_naming_both_times():
    monitor = _monitor()
    monitor.update(_items([0.5]), time="2026-12-02")
    with pytest.raises(ValueError, match=r"time '2026-12-01' is not after the last update's time '2026-12-02'"):
        monitor.update(_items([0.5], "b"), time="2026-12-01")
    with pytest.raises(ValueError, match=r"time 5 is a number, but this monitor's times are dates"):
        monitor.update(_items([0.5], "c"), time=5)
    with pytest.raises(ValueError, match=r"neither a number nor an ISO 8601 date"):
        monitor.update(_items([0.5], "d"), time="yesterday")
    with pytest.raises(ValueError, match=r"needs the window's time: pass time="):
        monitor.update(_items([0.5], "e"))


def test_the_window_time_is_the_latest_item_time():
    monitor = _monitor()
    summary = monitor.update(
        [
            {"id": "a", "signals": {"conf": 0.5}, "time": "2026-12-01T08:00"},
            {"id": "b", "signals": {"conf": 0.6}, "time": "2026-12-01T09:30"},
        ]
    )
    assert summary.time == "2026-12-01T09:30"


def test_audits_for_unknown_or_already_audited_ids_are_refused_naming_them():
    monitor = _monitor()
    monitor.update(_items([0.5, 0.9]), audit={"i0": True}, time=1)
    with pytest.raises(
        ValueError, match=r"audit ids \['nope', 'zz'\] \(2 in all\) match no item of this window or an earlier one"
    ):
        monitor.update(audit={"i1": True, "nope": False, "zz": True}, time=2)
    with pytest.raises(ValueError, match=r"audit ids \['i0'\] were audited in an earlier update already"):
        monitor.update(audit={"i0": True}, time=2)
    with pytest.raises(ValueError, match=r"audit record 0 \(id 'i1'\) has correct='yes'; it must be true or false"):
        monitor.update(audit=[{"id": "i1", "correct": "yes"}], time=2)
    assert monitor.report().cumulative["calibration"]["n_audited"] == 1


def test_bad_settings_are_refused():
    with pytest.raises(
        ValueError, match=r"promise must be a level of the error rate among accepted items or \(quantity, level\)"
    ):
        _monitor(promise=("accuracy", 0.1))
    with pytest.raises(ValueError, match=r"alpha must be a number strictly between 0 and 1, got 1.5"):
        _monitor(alpha=1.5)
    with pytest.raises(ValueError, match=r"calibration_signals\['conf'\] has a non-finite value at position 1"):
        Monitor(CAL, calibration_signals={"conf": [0.1, float("nan")]})
    with pytest.raises(TypeError, match=r"Monitor can store CostSensitiveGate, RiskControlGate"):
        Monitor(CAL, ConformalGate(nonconformity=lambda p: -p).fit([0.9] * 20, [True] * 20),
                calibration_signals={"conf": [0.5]})  # fmt: skip


def test_the_default_promises_follow_the_gate():
    cal = {"conf": [0.2, 0.8]}
    assert Monitor(CAL, CostSensitiveGate(rho=9.0), calibration_signals=cal).settings["promise"] == pytest.approx(
        ["accepted_error", 0.1]
    )
    risk = RiskControlGate(target=0.1).fit([0.99, 0.9, 0.8] * 20, [True, True, False] * 20)
    assert Monitor(CAL, risk, calibration_signals=cal).settings["promise"] == ["accepted_and_wrong", 0.1]
    conformal = ConformalGate(alpha=0.2).fit([0.9, 0.8] * 20, [True] * 40)
    assert Monitor(CAL, conformal, calibration_signals=cal).settings["promise"] == ["false_flag", 0.2]
    assert Monitor(CAL, None, calibration_signals=cal).settings["promise"] is None
