"""Decision gates and their guarantees, checked by simulation (ek.qe.decide)."""

import math
import warnings

import numpy as np
import pytest

from ek.base import Decision
from ek.qe import _checks
from ek.qe.decide import (
    DEFAULT_ALPHA,
    DEFAULT_RISK_TARGET,
    ConformalGate,
    CostSensitiveGate,
    GroupConformalGate,
    RiskControlGate,
    crepes_mondrian_gate,
    risk_coverage_curve,
    split_conformal_quantile,
)
from ek.registry import MissingExtraError

A, F, B = Decision.ACCEPT, Decision.FLAG, Decision.BLOCK


def _is(decisions, which):
    """Elementwise ``d is which`` over an array of decisions."""
    return np.array([d is which for d in decisions], dtype=bool)


def _population(n, seed, *, shift=0.0):
    """Calibrated probabilities and outcomes drawn from them (correct ~ Bernoulli(p))."""
    rng = np.random.default_rng(seed)
    p = np.clip(rng.beta(4, 1.5, n) - shift, 0.0, 1.0)
    return p, rng.random(n) < p


# --------------------------------------------------------------------------
# cost-sensitive gate
# --------------------------------------------------------------------------


def test_cost_sensitive_threshold_from_rho():
    gate = CostSensitiveGate(rho=9.0)
    assert gate.tau == 0.9 and gate(0.95) is A and gate(0.5) is F and gate(0.9) is A
    assert CostSensitiveGate().tau == 0.5
    assert CostSensitiveGate(rho=0.0).tau == 0.0 and CostSensitiveGate(rho=0.0)(0.0) is A
    assert CostSensitiveGate(rho=math.inf).tau == 1.0
    assert CostSensitiveGate(rho=3.0, accept_threshold=0.6).tau == 0.6


def test_cost_sensitive_block_band():
    gate = CostSensitiveGate(rho=1.0, block_threshold=0.1)
    assert [gate(p) for p in (0.05, 0.1, 0.3, 0.7)] == [B, B, F, A]
    assert CostSensitiveGate()(0.0) is F  # the default never blocks on probability alone


def test_cost_sensitive_accept_iff_expected_costs_favour_it():
    c_fp = 1.0
    for rho in (0.25, 1.0, 4.0, 19.0):
        gate, c_fn = CostSensitiveGate(rho=rho), rho * c_fp
        for p in np.linspace(0, 1, 101):
            cheaper = (1 - p) * c_fn <= p * c_fp + 1e-12
            assert (gate(float(p)) is A) == cheaper


# --------------------------------------------------------------------------
# split conformal
# --------------------------------------------------------------------------


def test_split_conformal_quantile_by_hand():
    s = [0.4, 0.1, 0.3, 0.2]
    assert split_conformal_quantile(s, 0.5) == 0.3  # ceil(5 * 0.5) = 3rd smallest
    assert split_conformal_quantile(s, 0.2) == 0.4  # ceil(5 * 0.8) = 4th
    assert split_conformal_quantile(s, 0.1) == math.inf  # ceil(4.5) = 5 > n
    assert split_conformal_quantile(s, 1.0) == -math.inf
    nine = [i / 10 for i in range(1, 10)]
    assert split_conformal_quantile(nine, 0.1) == 0.9  # (9 + 1) * 0.9 = 9 exactly, not 10


def test_conformal_gate_by_hand():
    probs = [0.95, 0.9, 0.85, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1]
    correct = [True] * 9 + [False] * 2
    gate = ConformalGate(alpha=0.2).fit(probs, correct)
    # correct nonconformity 1 - p: .05 .1 .15 .2 .3 .4 .5 .6 .7; rank ceil(10 * .8) = 8 -> q = 0.6
    assert gate.q == pytest.approx(0.6)
    assert gate(0.4) is A and gate(0.39) is F
    assert gate.p_value(0.95) == 1.0 and gate.p_value(0.0) == pytest.approx(0.1)


def test_conformal_accepts_exactly_when_p_value_exceeds_alpha():
    p, y = _population(400, 1)
    gate = ConformalGate(alpha=0.1).fit(p, y)
    probe = np.linspace(0, 1, 201)
    assert [gate(float(v)) is A for v in probe] == [gate.p_value(float(v)) > 0.1 for v in probe]


def test_split_conformal_flags_at_most_alpha_of_correct_items():
    """Over many random calibration/test splits, the false-flag rate averages <= alpha."""
    p, y = _population(40_000, 2)
    rng = np.random.default_rng(3)
    alpha, n_cal, rates, cal_sizes = DEFAULT_ALPHA, 300, [], []
    for _ in range(300):
        idx = rng.permutation(len(p))[: 2 * n_cal]
        cal, test = idx[:n_cal], idx[n_cal:]
        gate = ConformalGate(alpha=alpha).fit(p[cal], y[cal])
        ok = test[y[test]]
        rates.append(np.mean(_is(gate(p[ok]), F)))
        cal_sizes.append(int(y[cal].sum()))
    mean, se = np.mean(rates), np.std(rates) / math.sqrt(len(rates))
    assert mean <= alpha + 3 * se
    # and the guarantee is tight: coverage is at most 1 - alpha + 1/(n + 1)
    assert mean >= alpha - 1 / (min(cal_sizes) + 1) - 3 * se


def test_group_conformal_holds_per_group_where_marginal_fails():
    pa, ya = _population(30_000, 4)
    pb, yb = _population(30_000, 5, shift=0.25)  # a harder field type
    p, y = np.r_[pa, pb], np.r_[ya, yb]
    g = np.array(["easy"] * len(pa) + ["hard"] * len(pb))
    rng = np.random.default_rng(6)
    alpha, per_group, marginal_hard = 0.1, {"easy": [], "hard": []}, []
    for _ in range(120):
        idx = rng.permutation(len(p))[:1600]
        cal, test = idx[:800], idx[800:]
        gate = GroupConformalGate(alpha=alpha).fit(p[cal], y[cal], groups=g[cal])
        pooled = ConformalGate(alpha=alpha).fit(p[cal], y[cal])
        for name, rates in per_group.items():
            ok = test[y[test] & (g[test] == name)]
            flags = gate(p[ok].tolist(), group=[name] * len(ok))
            rates.append(np.mean(_is(flags, F)))
            if name == "hard":
                marginal_hard.append(np.mean(_is(pooled(p[ok]), F)))
    for rates in per_group.values():
        assert np.mean(rates) <= alpha + 3 * np.std(rates) / math.sqrt(len(rates))
    assert np.mean(marginal_hard) > alpha + 0.05  # the marginal gate over-flags the hard group


def test_group_gate_routes_and_falls_back():
    p, y = _population(600, 7)
    groups = ["a"] * 590 + ["tiny"] * 10
    with pytest.warns(UserWarning, match=r"'tiny' \(\d+ correct\) have too few correct items for alpha=0.1"):
        gate = GroupConformalGate().fit(p, y, groups=groups)
    assert set(gate.by_group) == {"a"}
    assert gate(0.3, group="tiny") is gate.pooled(0.3) and gate(0.3, group="unseen") is gate.pooled(0.3)


def test_crepes_mondrian_gate_agrees_with_group_conformal():
    if not (_checks.is_installed("crepes") and _checks.is_installed("numpy")):
        with pytest.raises(MissingExtraError, match=r'pip install "ek\[calibration\]"'):
            crepes_mondrian_gate()
        return
    p, y = _population(900, 8)
    groups = np.array(["a", "b", "c"] * 300)
    ours = GroupConformalGate(alpha=0.1).fit(p, y, groups=groups)
    theirs = crepes_mondrian_gate(alpha=0.1).fit(p, y, groups=groups)
    probe = np.linspace(0, 1, 101)
    for k in "abc":
        assert list(theirs(probe, group=[k] * len(probe))) == list(ours(probe.tolist(), group=[k] * len(probe)))
        np.testing.assert_allclose(
            theirs.p_value(probe, group=[k] * len(probe)), ours.by_group[k].p_value(probe.tolist())
        )


# --------------------------------------------------------------------------
# conformal risk control
# --------------------------------------------------------------------------


def test_risk_control_by_hand():
    probs = [0.99, 0.95, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3]
    correct = [True, True, True, False, True, True, False, False, True]
    gate = RiskControlGate(target=0.25).fit(probs, correct)
    # bound (wrong among accepted + 1) / 10: at 0.6 -> 2/10, at 0.5 -> 3/10 > 0.25
    assert gate.lam == 0.6 and gate(0.6) is A and gate(0.55) is F


def test_risk_control_keeps_accepted_error_rate_below_target():
    p, y = _population(40_000, 9)
    rng = np.random.default_rng(10)
    target, risks, coverage = DEFAULT_RISK_TARGET, [], []
    for _ in range(200):
        idx = rng.permutation(len(p))[:1000]
        cal, test = idx[:500], idx[500:]
        gate = RiskControlGate(target=target).fit(p[cal], y[cal])
        accepted = p[test] >= gate.lam
        risks.append(np.mean(accepted & ~y[test]))
        coverage.append(accepted.mean())
    assert np.mean(risks) <= target + 3 * np.std(risks) / math.sqrt(len(risks))
    assert np.mean(coverage) > 0.2  # not vacuous


def test_risk_control_warns_when_nothing_can_be_accepted():
    with pytest.warns(UserWarning, match="accepts nothing"):
        gate = RiskControlGate(target=0.1).fit([0.9] * 20, [False] * 20)
    assert gate(1.0) is F


# --------------------------------------------------------------------------
# risk-coverage curve
# --------------------------------------------------------------------------


def test_risk_coverage_curve_by_hand():
    curve = risk_coverage_curve([0.9, 0.8, 0.6, 0.3], [True, False, True, True])
    assert [(c["threshold"], c["coverage"], c["selective_risk"]) for c in curve] == [
        (0.9, 0.25, 0.0),
        (0.8, 0.5, 0.5),
        (0.6, 0.75, 1 / 3),
        (0.3, 1.0, 0.25),
    ]
    custom = risk_coverage_curve([0.9, 0.8], [True, False], thresholds=[0.5, 0.95])
    assert custom == [
        {"threshold": 0.95, "coverage": 0.0, "selective_risk": None},
        {"threshold": 0.5, "coverage": 1.0, "selective_risk": 0.5},
    ]


# --------------------------------------------------------------------------
# batches
# --------------------------------------------------------------------------


def test_gates_take_a_batch():
    p, y = _population(500, 11)
    gates = [
        CostSensitiveGate(rho=2.0, block_threshold=0.2),
        ConformalGate().fit(p, y),
        RiskControlGate(target=0.1).fit(p, y),
    ]
    probe = np.linspace(0, 1, 51)
    for gate in gates:
        out = gate(probe)
        assert isinstance(out, np.ndarray) and list(out) == [gate(float(v)) for v in probe]
        assert list(gate(probe.tolist())) == list(out)


# --------------------------------------------------------------------------
# bad input
# --------------------------------------------------------------------------


def test_too_few_calibration_points_for_alpha_fits_with_a_warning():
    # issue 11, item 10: ceil((5 + 1) * 0.9) = 6 > 5, so q = +inf (flag nothing), with a warning
    with pytest.warns(
        UserWarning,
        match=r"too few correct calibration items \(5\) for alpha=0.1: .* at least 9.*"
        r"flags nothing",
    ):
        gate = ConformalGate(alpha=0.1).fit([0.9, 0.8, 0.7, 0.6, 0.5, 0.1, 0.2], [True] * 5 + [False] * 2)
    assert gate.q == math.inf and gate(0.0) is Decision.ACCEPT
    # p-value = (#{holdout nonconformity >= the item's} + 1) / (n + 1); holdout 1 - p = 0.1 .. 0.5
    assert gate.p_value(0.75) == pytest.approx((3 + 1) / 6)  # 0.3, 0.4 and 0.5 are >= 0.25
    assert gate.p_value(0.95) == pytest.approx(6 / 6) and gate.p_value(0.4) == pytest.approx(1 / 6)
    assert list(gate.p_value([0.75, 0.4])) == pytest.approx([4 / 6, 1 / 6])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ConformalGate(alpha=0.1).fit([0.9] * 9, [True] * 9)  # 9 is enough: no warning


def test_conformal_gate_with_no_correct_items():
    with pytest.warns(UserWarning, match=r"too few correct calibration items \(0\)"):
        gate = ConformalGate(alpha=0.2).fit([0.3, 0.4], [False, False])
    assert gate.q == math.inf and gate.p_value(0.5) == 1.0 and gate(0.5) is Decision.ACCEPT


def test_small_conformal_fit_still_drops_non_finite_confidences():
    with pytest.warns(UserWarning) as record:
        gate = ConformalGate(alpha=0.1).fit([0.9, math.nan, 0.7], [True, True, True])
    messages = [str(w.message) for w in record]
    assert any("dropped 1 non-finite" in m for m in messages) and any("(2) for alpha=0.1" in m for m in messages)
    assert gate._cal == pytest.approx((0.1, 0.3)) and gate.p_value(0.8) == pytest.approx(2 / 3)


def test_too_few_points_for_risk_target():
    with pytest.raises(ValueError, match=r"has 10 items, too few for target=0.05.*n >= 19"):
        RiskControlGate(target=0.05).fit([0.9] * 10, [True] * 10)


@pytest.mark.parametrize("gate", [ConformalGate(), RiskControlGate(), GroupConformalGate()])
def test_gate_used_before_fit(gate):
    with pytest.raises(ValueError, match="is not fitted yet"):
        gate(0.5)


def test_nan_confidence():
    with pytest.raises(ValueError, match="CostSensitiveGate confidence is nan; it must be a finite number"):
        CostSensitiveGate()(math.nan)


def test_probability_outside_unit_interval():
    with pytest.raises(ValueError, match=r"CostSensitiveGate confidence is 1.5, outside \[0, 1\]"):
        CostSensitiveGate()(1.5)
    with pytest.raises(ValueError, match=r"RiskControlGate.fit probs\[1\] is -0.2, outside \[0, 1\]"):
        RiskControlGate().fit([0.5, -0.2], [True, False])


def test_conformal_fit_drops_nan_with_a_warning():
    probs = [0.9, math.nan, math.inf] + [0.8] * 9
    with pytest.warns(UserWarning, match=r"dropped 2 non-finite probabilities \(first at index 1\)"):
        gate = ConformalGate().fit(probs, [True] * 12)
    assert len(gate._cal) == 10


def test_bad_gate_settings():
    with pytest.raises(ValueError, match="rho must be a number >= 0"):
        CostSensitiveGate(rho=-1)
    with pytest.raises(ValueError, match="block_threshold=0.6 is not below the accept threshold 0.5"):
        CostSensitiveGate(block_threshold=0.6)
    with pytest.raises(ValueError, match="ConformalGate alpha must be strictly between 0 and 1, got 1.5"):
        ConformalGate(alpha=1.5)


def test_conformal_rank_reads_alpha_as_the_decimal_given():
    # 0.3, 0.7 and 0.15 are stored just below their decimal value; the rank
    # must still be the hand-worked ceil((n + 1)(1 - alpha)), not one more.
    nine = [i / 10 for i in range(1, 10)]
    assert split_conformal_quantile(nine, 0.3) == 0.7  # ceil(10 * 0.7) = 7th smallest
    assert split_conformal_quantile(nine, 0.7) == 0.3  # ceil(10 * 0.3) = 3rd
    assert split_conformal_quantile(list(range(1, 20)), 0.15) == 17  # ceil(20 * 0.85) = 17th
    assert split_conformal_quantile(nine, 0.1) == 0.9  # and 0.1 (stored above) is unchanged
    # with the off-by-one rank, accept and "p-value > alpha" disagreed between two holdout scores
    gate = ConformalGate(alpha=0.3).fit([1 - v for v in nine], [True] * 9)
    probe = np.linspace(0, 1, 201)
    assert [gate(float(v)) is A for v in probe] == [gate.p_value(float(v)) > 0.3 for v in probe]


def test_nan_gate_threshold_is_refused():
    with pytest.raises(ValueError, match=r"ConformalGate q must be a number \(inf is allowed\), got nan"):
        ConformalGate(q=math.nan)
    with pytest.raises(ValueError, match=r"RiskControlGate lam must be a number \(inf is allowed\), got nan"):
        RiskControlGate(lam=math.nan)
    assert ConformalGate(q=0.5)(0.5) is A and RiskControlGate(lam=math.inf)(1.0) is F
