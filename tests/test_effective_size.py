"""Kish's effective size and the concentration message (ek._stats._effective)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ek._stats._effective import concentration, effective_size


def test_equal_weights_give_n_and_one_weight_gives_one() -> None:
    assert effective_size([3.0] * 7) == pytest.approx(7.0)
    assert effective_size([0, 0, 9, 0]) == 1.0
    assert effective_size([]) == 0.0
    assert effective_size([0, 0]) == 0.0


def test_a_hand_worked_case() -> None:
    # weights 1, 2, 3: (6)^2 / (1 + 4 + 9) = 36 / 14
    assert effective_size([1, 2, 3]) == pytest.approx(36 / 14)
    c = concentration([1, 2, 3])
    assert (c.n, c.top_k) == (3, 1)  # 3 of 6 is half
    assert c.top_share == pytest.approx(0.5)


def test_the_message_names_the_share_and_the_size() -> None:
    lengths = [10_000, 9_000, 8_000] + [50] * 197
    c = concentration(lengths)
    assert c.top_k == 2
    assert c.why("documents", "reference length") == (
        f"2 of 200 documents hold {19_000 / sum(lengths):.0%} of the reference length: "
        f"effective n ≈ {c.effective_n:.1f}"
    )
    assert c.effective_n == pytest.approx(sum(lengths) ** 2 / sum(x * x for x in lengths))


@pytest.mark.parametrize("bad", [-1.0, math.nan])
def test_a_negative_or_nan_weight_is_refused(bad: float) -> None:
    with pytest.raises(ValueError, match="non-negative number"):
        effective_size([1.0, bad])


# weights under 1e-100 square to nothing in floating point; real weights are lengths and counts
@given(st.lists(st.one_of(st.just(0.0), st.floats(1e-100, 1e6)), min_size=1, max_size=50))
def test_the_size_lies_between_one_and_n_and_ignores_scale(ws: list[float]) -> None:
    size = effective_size(ws)
    if sum(ws) == 0:
        assert size == 0.0
        return
    assert 1.0 - 1e-9 <= size <= len(ws) + 1e-9
    assert effective_size([2.5 * w for w in ws]) == pytest.approx(size, rel=1e-9)
    c = concentration(ws)
    assert 1 <= c.top_k <= len(ws)
    assert c.top_share >= 0.5 - 1e-12
