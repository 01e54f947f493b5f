"""Layer objects of ek.validate (ek.validate._layers): the ordering validator's comparisons."""

from datetime import date, datetime, timedelta, timezone
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ek.validate import ordering_validator
from ek.validate._layers import order_key

CHECK = ordering_validator(["min", "max"])


def _flagged(lo, hi, check=CHECK):
    return [f.message for f in check({"min": lo, "max": hi})]


# --------------------------------------------------------------------------
# issue 10, fault 12: numeric strings and dates are compared as numbers and dates
# --------------------------------------------------------------------------


def test_numeric_strings_are_compared_as_numbers():
    assert _flagged("10", "9") == ["min ('10') is not before max ('9')"]
    assert _flagged("9", "10") == []
    assert _flagged("-2.5", "-10") != [] and _flagged("-10", "-2.5") == []
    assert _flagged("1e3", "999") != [] and _flagged(" 7 ", "12") == []


def test_numbers_and_numeric_strings_mix():
    assert _flagged(10, "9.5") != [] and _flagged("9.5", 10) == []
    assert _flagged(Decimal("0.3"), 0.1 + 0.2) == []  # Decimal vs float compares exactly: 0.3 < 0.30000000000000004
    assert _flagged("10000000000000000001", "10000000000000000000") != []  # exact, not float-rounded


@pytest.mark.parametrize("lo, hi", [
    ("2024-05-02", "2024-04-30"),
    ("2024-05-02T10:00", "2024-05-02T09:59:59"),
    ("2024-05-02 10:00:00.5", "2024-05-02T10:00:00.25"),
    ("2024-05-03", "2024-05-02T23:59"),  # a date is the midnight that starts it
    (date(2024, 5, 3), "2024-05-02T23:00"),
    (datetime(2024, 5, 2, 12), "2024-05-02"),
    ("2024-05-02T10:00Z", "2024-05-02T11:30+02:00"),  # 10:00 UTC is after 09:30 UTC
])
def test_dates_and_times_out_of_order(lo, hi):
    assert len(_flagged(lo, hi)) == 1


@pytest.mark.parametrize("lo, hi", [
    ("2024-04-30", "2024-05-02"),
    ("2024-12-31", "2025-01-01"),
    ("2024-05-02T10:00+02:00", "2024-05-02T09:00Z"),  # 08:00 UTC before 09:00 UTC
    ("2024-05-02", "2024-05-02T00:00:01"),
    (date(2024, 5, 1), "2024-05-02"),
])
def test_dates_and_times_in_order(lo, hi):
    assert _flagged(lo, hi) == []


@pytest.mark.parametrize("lo, hi", [
    ("10", "abc"),  # a number and text
    ("2024-05-02", "9"),  # a date and a number
    ("2024-05-02T10:00+02:00", "2024-05-02T09:00"),  # an offset and a naive time
    ("2024-02-30", "2024-01-01"),  # not a real date: text, so not compared with a date
    ("\u0663", "2"),  # an Arabic-Indic three is not an ASCII number
    ("nan", "1"),
    (float("nan"), 1),
])
def test_pairs_that_cannot_be_compared_are_skipped(lo, hi):
    assert _flagged(lo, hi) == []


def test_plain_text_is_still_compared_as_text():
    assert _flagged("b", "a") == ["min ('b') is not before max ('a')"]


def test_ties_follow_strict():
    relaxed = ordering_validator(["min", "max"], strict=False)
    assert _flagged("10", "10.0") != [] and _flagged("10", "10.0", relaxed) == []
    assert _flagged("2024-05-02", "2024-05-02T00:00", relaxed) == []


def test_order_key_kinds():
    assert order_key("10") == ("number", Decimal("10"))
    assert order_key(True) == ("other", True)
    assert order_key("2024-05-02T10:00Z") == ("time", datetime(2024, 5, 2, 10, tzinfo=timezone.utc))
    assert order_key("2024-05-02T10:00-05:30")[1].utcoffset() == -timedelta(hours=5, minutes=30)
    assert order_key("May 2") == ("text", "May 2")


@given(st.integers(-10**6, 10**6), st.integers(-10**6, 10**6))
def test_integer_strings_order_like_integers(a, b):
    assert bool(_flagged(str(a), str(b))) == (a >= b)


@given(st.dates(), st.dates())
def test_iso_dates_order_like_dates(a, b):
    assert bool(_flagged(a.isoformat(), b.isoformat())) == (a >= b)
