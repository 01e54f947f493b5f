"""ek.dask._sums: partial sums merged in any tree give math.fsum of the whole column, to the last bit."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from ek.dask._sums import add, exact_sum, total

FLOATS = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e200, max_value=1e200)
VALUES = st.one_of(FLOATS, st.integers(-(10**6), 10**6), st.sampled_from([1e16, -1e16, 1.0, 0.1, 1e-300, -0.0]))


def _exact(terms):
    return sum(map(Fraction, terms), Fraction(0))


@settings(max_examples=300, deadline=None)
@given(values=st.lists(VALUES, max_size=30), data=st.data())
def test_partial_sums_merged_in_any_order_are_exact(values, data):
    cuts = sorted(data.draw(st.lists(st.integers(0, len(values)), max_size=6)))
    bounds = [0, *cuts, len(values)]
    parts = [exact_sum(values[a:b]) for a, b in itertools.pairwise(bounds)]
    while len(parts) > 1:  # merge a random neighbouring pair, as some tree would
        i = data.draw(st.integers(0, len(parts) - 2))
        parts[i : i + 2] = [add(parts[i], parts[i + 1])]
    merged = parts[0]
    if all(isinstance(v, int) for v in values):
        assert merged == sum(values) and isinstance(total(merged), int)
    else:
        assert total(merged) == math.fsum(values)
        assert _exact(merged) == _exact(float(v) for v in values)  # nothing rounded on the way


def test_a_float_sum_that_a_plain_tree_would_round_away():
    a, b, c = exact_sum([1e16]), exact_sum([1.0]), exact_sum([-1e16])
    assert total(add(add(a, b), c)) == 1.0  # (1e16 + 1.0) - 1e16 is 0.0 in floats
    assert (1e16 + 1.0) - 1e16 == 0.0


def test_integers_stay_exact_past_the_float_range():
    assert total(add(exact_sum([2**80, 1]), exact_sum([-(2**80)]))) == 1


def test_non_finite_values_propagate_as_a_plain_sum_would():
    assert total(add(exact_sum([1.0, math.inf]), exact_sum([2.0]))) == math.inf
    assert math.isnan(total(add(exact_sum([math.inf]), exact_sum([-math.inf]))))
