"""ek.agents._passk, through pass_at_k and pass_hat_k: the closed forms, exact and cheap at any n.

The reference is the textbook formula over whole binomials (``math.comb``),
computed here with exact integers; the estimators must agree with it to
1e-12 (relative) on every case the reference can still compute.
"""

import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ek.agents import pass_at_k, pass_hat_k
from ek.agents._passk import log_ratio

REL = 1e-12


def closed_pass_at_k(n, c, k):
    return float(1 - Fraction(math.comb(n - c, k), math.comb(n, k)))


def closed_pass_hat_k(n, c, k):
    return float(Fraction(math.comb(c, k), math.comb(n, k)))


def close(a, b):
    return math.isclose(a, b, rel_tol=REL, abs_tol=1e-300)


@st.composite
def nck(draw, max_n=400):
    n = draw(st.integers(1, max_n))
    return n, draw(st.integers(0, n)), draw(st.integers(1, n))


@settings(max_examples=400)
@given(nck())
def test_pass_at_k_and_pass_hat_k_equal_the_closed_forms(case):
    n, c, k = case
    assert close(pass_at_k(n=n, c=c, k=k), closed_pass_at_k(n, c, k))
    assert close(pass_hat_k(n=n, c=c, k=k), closed_pass_hat_k(n, c, k))


@st.composite
def log_ratio_case(draw):
    """(n, m, k) with m, k >= 1, m + k <= n, small enough for the exact reference."""
    n = draw(st.one_of(st.integers(2, 5_000), st.integers(2, 10**12)))
    t = draw(st.integers(1, min(300, n - 1)))  # the smaller of m and k
    s = draw(st.integers(t, n - t)) if n - t >= t else None
    if s is None:
        s, t = t, n - t
    m, k = (t, s) if draw(st.booleans()) else (s, t)
    return n, m, k


@settings(max_examples=600)
@given(log_ratio_case())
def test_the_log_space_ratio_equals_the_exact_ratio(case):
    # The O(1) formula behind large runs, checked on runs small enough to compute exactly.
    n, m, k = case
    t, s = min(m, k), max(m, k)  # C(n - m, k) / C(n, k) = prod (n - s - j) / (n - j), j < t
    exact = Fraction(math.prod(range(n - s - t + 1, n - s + 1)), math.prod(range(n - t + 1, n + 1)))
    log_r = log_ratio(n, m, k)
    if exact > Fraction(1, 10**290):
        assert close(math.exp(log_r), float(exact))
    else:
        assert log_r < -650
    if exact < 1:
        assert close(-math.expm1(log_r), float(1 - exact))


@pytest.mark.parametrize(
    "n,c,k,at,hat",
    [
        # c = n/2 of 10**8 with k = n/2: at least one of k trials succeeds for sure; all k never.
        (100_000_000, 50_000_000, 50_000_000, 1.0, 0.0),
        (1_000_000, 500_000, 500_000, 1.0, 0.0),
        # one success in a million trials: pass@1 is exactly c/n.
        (1_000_000, 1, 1, 1e-6, 1e-6),
    ],
)
def test_huge_runs_have_their_limiting_values(n, c, k, at, hat):
    assert pass_at_k(n=n, c=c, k=k) == at
    assert pass_hat_k(n=n, c=c, k=k) == hat


def test_a_large_run_far_from_the_limits_is_exact():
    n, c, k = 10**6, 10, 100_000
    # C(n - c, k) / C(n, k) is the product of (n - k - j) / (n - j) over j < c.
    ratio = Fraction(math.prod(range(n - k - c + 1, n - k + 1)), math.prod(range(n - c + 1, n + 1)))
    assert pass_at_k(n=n, c=c, k=k) == float(1 - ratio)
    n, c, k = 10**8, 10**8 - 3, 10**7  # three failures: pass^k = prod (n - k - j) / (n - j)
    ratio = Fraction(math.prod(range(n - k - 2, n - k + 1)), math.prod(range(n - 2, n + 1)))
    assert pass_hat_k(n=n, c=c, k=k) == float(ratio)


def test_beyond_float_range_n_still_answers():
    n = 10**400
    # (1 - 1e-200) ** 1e200 = exp(-1), to far beyond double precision.
    assert pass_at_k(n=n, c=10**200, k=10**200) == pytest.approx(1 - math.exp(-1), rel=1e-12)
    assert pass_at_k(n=n, c=5, k=1) == 0.0 and pass_hat_k(n=n, c=n - 5, k=1) == 1.0
    assert pass_hat_k(n=n, c=n // 2, k=3) == pytest.approx(0.125, rel=1e-12)


def test_numpy_integers_are_accepted():
    np = pytest.importorskip("numpy")
    assert pass_hat_k(n=np.int64(8), c=np.int64(4), k=np.int64(2)) == 6 / 28
    assert pass_at_k(n=np.int64(10**6), c=np.int64(1), k=np.int64(1)) == 1e-6
