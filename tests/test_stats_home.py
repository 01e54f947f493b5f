"""ek._stats as the one home of ek's statistics: the level check, the quantiles, the shared ECE binning."""

from __future__ import annotations

import math
import re

import pytest

from ek._stats import (
    check_level,
    nearest_rank,
    normal_cdf,
    normal_quantile,
    student_quantile,
    student_quantile_approx,
)

_SHAPE = "level must be a number between 0 and 1 (e.g. 0.95 for a 95% interval)"


@pytest.mark.parametrize("level", [True, False, "0.95", 0, 1, 0.0, 1.0, -0.5, 95, math.nan, math.inf, None, [0.9]])
def test_check_level_refuses_what_is_not_a_level(level):
    with pytest.raises(ValueError, match=f"^{re.escape(f'f() {_SHAPE}, got {level!r}.')}$"):
        check_level(level, "f()")


@pytest.mark.parametrize("level", [True, "0.95", 0, 1, math.nan])
def test_check_level_names_none_when_none_is_allowed(level):
    with pytest.raises(ValueError, match=f"^{re.escape(f'f() {_SHAPE} or None, got {level!r}.')}$"):
        check_level(level, "f()", allow_none=True)


def test_check_level_without_a_caller_starts_with_level():
    with pytest.raises(ValueError, match=f"^{re.escape(f'{_SHAPE}, got 2.')}$"):
        check_level(2, "")


def test_check_level_returns_the_level_as_a_float():
    np = pytest.importorskip("numpy")
    assert check_level(0.9, "f()") == 0.9
    got = check_level(np.float32(0.5), "f()")
    assert type(got) is float and got == 0.5
    assert check_level(None, "f()", allow_none=True) is None
    assert check_level(0.95, "f()", allow_none=True) == 0.95


_PS = [1e-10, 1e-6, 0.001, 0.025, 0.1, 0.3, 0.5, 0.7, 0.9, 0.975, 0.999, 1 - 1e-6]


@pytest.mark.parametrize("p", _PS)
def test_normal_quantile_and_cdf_are_scipys(p):
    stats = pytest.importorskip("scipy.stats")
    assert normal_quantile(p) == pytest.approx(stats.norm.ppf(p), rel=1e-12, abs=1e-12)
    x = stats.norm.ppf(p)
    assert normal_cdf(x) == pytest.approx(stats.norm.cdf(x), rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("df", [1, 2, 3, 4.5, 10, 29, 200])
def test_student_quantile_is_scipys(df):
    stats = pytest.importorskip("scipy.stats")
    for p in (0.001, 0.025, 0.1, 0.3, 0.5, 0.8, 0.95, 0.975, 0.999):
        assert student_quantile(p, df) == pytest.approx(stats.t.ppf(p, df), rel=1e-12, abs=1e-12)


def test_the_approximate_t_quantile_is_exact_at_one_and_two_degrees_and_close_beyond():
    stats = pytest.importorskip("scipy.stats")
    for p in (0.025, 0.3, 0.975):
        assert student_quantile_approx(p, 1) == pytest.approx(stats.t.ppf(p, 1), rel=1e-12)
        assert student_quantile_approx(p, 2) == pytest.approx(stats.t.ppf(p, 2), rel=1e-12)
        assert student_quantile_approx(p, 5) == pytest.approx(stats.t.ppf(p, 5), rel=8e-4)
        assert student_quantile_approx(p, math.inf) == normal_quantile(p)


def test_the_old_homes_read_the_new_one():
    from ek._bootstrap import _bounds
    from ek._stats import _prediction_powered

    assert _bounds.student_quantile is student_quantile
    assert _prediction_powered.student_quantile is student_quantile_approx


@pytest.mark.parametrize(
    "values, q, expected",
    [
        ([], 0.5, None),
        ([7.0], 0.5, 7.0),
        ([7.0], 0.95, 7.0),
        ([1.0, 2.0], 0.5, 1.0),  # ceil(0.5 * 2) = 1: the first value
        ([1.0, 2.0, 3.0], 0.5, 2.0),  # ceil(1.5) = 2
        ([1.0, 2.0, 3.0, 4.0], 0.5, 2.0),  # ceil(2.0) = 2
        ([1.0, 2.0, 3.0, 4.0], 0.95, 4.0),  # ceil(3.8) = 4
        ([float(i) for i in range(1, 21)], 0.95, 19.0),  # ceil(19.0) = 19
        ([float(i) for i in range(1, 22)], 0.95, 20.0),  # ceil(19.95) = 20
        ([3.0, 5.0], 0.0, 3.0),  # ceil(0) - 1 = -1, floored to the first
        ([3.0, 5.0], 1.0, 5.0),
    ],
)
def test_nearest_rank_by_hand(values, q, expected):
    got = nearest_rank(values, q)
    assert got == expected and (got is None or type(got) is float)


def _old_monitor_ece(p, y, bins):
    """The monitor's ECE as it binned before it read ek.qe._binning (kept here as the reference)."""
    import numpy as np

    edges = np.linspace(0.0, 1.0, bins + 1)[1:-1]
    ids = np.searchsorted(edges, p, side="left")
    count = np.bincount(ids, minlength=bins)
    gap = np.abs(np.bincount(ids, weights=p, minlength=bins) - np.bincount(ids, weights=y, minlength=bins))
    return float(gap.sum() / count.sum())


@pytest.mark.parametrize("seed", range(20))
def test_the_monitor_ece_bins_as_before_bit_for_bit(seed):
    np = pytest.importorskip("numpy")
    from ek.qe._binning import bin_sums, ece_from_sums
    from ek.qe.monitor._figures import ECE_BINS, Rows, calibration

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 500))
    p = rng.random(n)
    p[: n // 10] = np.round(p[: n // 10], 1)  # probabilities on the bin edges fall in the lower bin
    correct = rng.random(n) < p
    rows = Rows(np.zeros(n, dtype=np.int64), p, np.zeros(n, dtype=np.int64), correct)
    ece = calibration(rows, 0.95)["ece"]
    assert ece == _old_monitor_ece(p, correct.astype(np.float64), ECE_BINS)
    assert ece == pytest.approx(ece_from_sums(*bin_sums(p, correct, n_bins=ECE_BINS, owner="t")), rel=1e-12)
