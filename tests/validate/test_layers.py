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


@pytest.mark.parametrize(
    "lo, hi",
    [
        ("2024-05-02", "2024-04-30"),
        ("2024-05-02T10:00", "2024-05-02T09:59:59"),
        ("2024-05-02 10:00:00.5", "2024-05-02T10:00:00.25"),
        ("2024-05-03", "2024-05-02T23:59"),  # a date is the midnight that starts it
        (date(2024, 5, 3), "2024-05-02T23:00"),
        (datetime(2024, 5, 2, 12), "2024-05-02"),
        ("2024-05-02T10:00Z", "2024-05-02T11:30+02:00"),  # 10:00 UTC is after 09:30 UTC
    ],
)
def test_dates_and_times_out_of_order(lo, hi):
    assert len(_flagged(lo, hi)) == 1


@pytest.mark.parametrize(
    "lo, hi",
    [
        ("2024-04-30", "2024-05-02"),
        ("2024-12-31", "2025-01-01"),
        ("2024-05-02T10:00+02:00", "2024-05-02T09:00Z"),  # 08:00 UTC before 09:00 UTC
        ("2024-05-02", "2024-05-02T00:00:01"),
        (date(2024, 5, 1), "2024-05-02"),
    ],
)
def test_dates_and_times_in_order(lo, hi):
    assert _flagged(lo, hi) == []


@pytest.mark.parametrize(
    "lo, hi",
    [
        ("10", "abc"),  # a number and text
        ("2024-05-02", "9"),  # a date and a number
        ("2024-05-02T10:00+02:00", "2024-05-02T09:00"),  # an offset and a naive time
        ("2024-02-30", "2024-01-01"),  # not a real date: text, so not compared with a date
        ("\u0663", "2"),  # an Arabic-Indic three is not an ASCII number
        ("nan", "1"),
        (float("nan"), 1),
    ],
)
def test_pairs_that_cannot_be_compared_are_skipped(lo, hi):
    assert _flagged(lo, hi) == []


def test_plain_text_is_still_compared_as_text():
    assert _flagged("b", "a") == ["min ('b') is not before max ('a')"]


def test_ties_follow_strict():
    relaxed = ordering_validator(["min", "max"], strict=False)
    assert _flagged("10", "10.0") != [] and _flagged("10", "10.0", relaxed) == []
    assert _flagged("2024-05-02", "2024-05-02T00:00", relaxed) == []


def test_order_key_kinds():
    assert order_key("10") == ("number", Decimal(10))
    assert order_key(True) == ("other", True)
    assert order_key("2024-05-02T10:00Z") == ("time", datetime(2024, 5, 2, 10, tzinfo=timezone.utc))
    assert order_key("2024-05-02T10:00-05:30")[1].utcoffset() == -timedelta(hours=5, minutes=30)
    assert order_key("May 2") == ("text", "May 2")


@given(st.integers(-(10**6), 10**6), st.integers(-(10**6), 10**6))
def test_integer_strings_order_like_integers(a, b):
    assert bool(_flagged(str(a), str(b))) == (a >= b)


@given(st.dates(), st.dates())
def test_iso_dates_order_like_dates(a, b):
    assert bool(_flagged(a.isoformat(), b.isoformat())) == (a >= b)


# --------------------------------------------------------------------------
# issue 20 item 19: dd/mm/yyyy-style dates are dates, not text
# --------------------------------------------------------------------------


@pytest.mark.parametrize("sep", ["/", ".", "-"])
def test_day_first_dates_are_compared_as_dates(sep):
    lo, hi = sep.join(["02", "05", "2024"]), sep.join(["30", "04", "2024"])
    # as text "02..." < "30...", but 2 May 2024 is after 30 April 2024
    assert _flagged(lo, hi) == [f"min ({lo!r}) is not before max ({hi!r})"]
    assert _flagged(hi, lo) == []
    # 31/12/2023 is before 01/01/2024; as text it is after
    assert _flagged(sep.join(["31", "12", "2023"]), sep.join(["01", "01", "2024"])) == []
    assert len(_flagged(sep.join(["1", "1", "2024"]), sep.join(["31", "12", "2023"]))) == 1  # one-digit parts


def test_day_first_dates_compare_with_iso_dates_and_times():
    assert len(_flagged("03/05/2024", "2024-05-02")) == 1  # 3 May after 2 May
    assert _flagged("2024-05-02", "03/05/2024") == []
    assert len(_flagged("02/05/2024", "2024-05-01T23:59")) == 1
    assert _flagged(date(2024, 5, 1), "02.05.2024") == []


def test_dayfirst_false_reads_month_first():
    us = ordering_validator(["min", "max"], dayfirst=False)
    # 02/05/2024 is February 5 and 04/30/2024 April 30: in order
    assert _flagged("02/05/2024", "04/03/2024", us) == []
    assert len(_flagged("04/03/2024", "02/05/2024", us)) == 1
    # day first (the default) they are 2 May and 4 March: out of order
    assert len(_flagged("02/05/2024", "04/03/2024")) == 1


def test_a_date_only_one_reading_fits_decides_for_the_record():
    # 12/25/2024 can only be December 25, so the record is month first: 01/02/2024 is January 2
    check = ordering_validator(["a", "b", "c"])
    record = {"a": "01/02/2024", "b": "01/03/2024", "c": "12/25/2024"}
    assert list(check(record)) == []
    # day first (no value decides) the same first two are 1 February and 1 March: still in order,
    # but 03/01/2024 (3 January) before 02/02/2024 (2 February) tells the orders apart
    assert list(check({"a": "03/01/2024", "b": "02/02/2024"})) == []
    assert len(list(check({"a": "03/01/2024", "b": "02/02/2024", "c": "12/25/2024"}))) == 1
    # a value over 12 in the first place (25/12/2024) makes it day first even with dayfirst=False
    us = ordering_validator(["a", "b", "c"], dayfirst=False)
    assert list(us({"a": "03/01/2024", "b": "02/02/2024", "c": "25/12/2024"})) == []
    assert len(list(us({"a": "03/01/2024", "b": "02/02/2024"}))) == 1


def test_values_that_disagree_are_each_read_the_only_way_they_fit():
    # 25/12/2024 is day first, 12/26/2024 month first: December 25 before December 26
    assert _flagged("25/12/2024", "12/26/2024") == []
    assert len(_flagged("12/26/2024", "25/12/2024")) == 1


def test_dayfirst_none_leaves_ambiguous_dates_unread():
    check = ordering_validator(["min", "max"], dayfirst=None)
    assert _flagged("05/04/2024", "03/04/2024", check) == []  # both ambiguous: skipped
    assert len(_flagged("05/04/2024", "03/04/2024")) == 1  # day first: 5 April after 3 April
    assert len(_flagged("25/04/2024", "03/04/2024", check)) == 1  # 25/04 decides day first for both
    assert _flagged("05/05/2024", "2024-05-06", check) == []  # same either way: 5 May, read


@pytest.mark.parametrize(
    "lo, hi",
    [
        ("31/02/2024", "01/01/2024"),  # no 31 February and no month 31: text, not compared with a date
        ("02/05/24", "30/04/2024"),  # two-digit years are not read
        ("02/05-2024", "2024-01-01"),  # mixed separators are not a date
        ("13/13/2024", "2024-01-01"),
    ],
)
def test_strings_that_are_not_dates_are_not_compared_with_dates(lo, hi):
    assert _flagged(lo, hi) == []


def test_order_key_reads_the_formats():
    assert order_key("02/05/2024") == ("time", datetime(2024, 5, 2))
    assert order_key("02.05.2024", dayfirst=False) == ("time", datetime(2024, 2, 5))
    assert order_key("25-12-2024", dayfirst=False) == ("time", datetime(2024, 12, 25))
    assert order_key("02/05/2024", dayfirst=None) == ("ambiguous", "02/05/2024")
    assert order_key("2 May 2024") == ("text", "2 May 2024")


def test_dayfirst_must_be_a_bool_or_none():
    with pytest.raises(TypeError, match=r"dayfirst must be True, False or None, got 'yes'; True reads 02/05/2024"):
        ordering_validator(["a", "b"], dayfirst="yes")


@given(st.dates(min_value=date(1000, 1, 1)), st.dates(min_value=date(1000, 1, 1)), st.sampled_from("/.-"))
def test_day_first_dates_order_like_dates(a, b, sep):
    def text(d):
        return sep.join([f"{d.day:02d}", f"{d.month:02d}", f"{d.year:04d}"])

    assert bool(_flagged(text(a), text(b))) == (a >= b)
