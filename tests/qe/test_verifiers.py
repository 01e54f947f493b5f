"""Checksums, validators and VerifierSignal (ek.qe.verifiers)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

import ek
from ek.base import FieldSpec, Finding, Severity
from ek.qe.verifiers import (
    CHECKSUMS,
    VerifierSignal,
    checksum_validator,
    enum_validator,
    iban_check,
    isbn10_check,
    isbn13_check,
    isbn_check,
    luhn_check,
    range_validator,
    regex_validator,
    schema_validator,
    totals_consistent,
)


def _luhn_reference(digits: str) -> bool:
    """Textbook Luhn: double every second digit from the right, sum the digits of each."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch) * (2 if i % 2 else 1)
        total += d // 10 + d % 10
    return total % 10 == 0


def test_luhn():
    assert luhn_check("79927398713") and not luhn_check("79927398710")
    assert luhn_check("4111 1111 1111 1111") and luhn_check("4111-1111-1111-1111")
    assert luhn_check(79927398713)
    assert not luhn_check("4111111111111112")
    assert not luhn_check("0") and not luhn_check("79927a98713") and not luhn_check(None)


@given(st.text(alphabet="0123456789", min_size=2, max_size=25))
def test_luhn_matches_textbook_definition(digits):
    assert luhn_check(digits) == _luhn_reference(digits)


def test_iban():
    assert iban_check("GB82 WEST 1234 5698 7654 32")
    assert iban_check("de89370400440532013000")
    assert not iban_check("GB82 WEST 1234 5698 7654 33")
    assert not iban_check("GB82")
    assert not iban_check(1234)


def test_isbn():
    assert isbn_check("0-306-40615-2") and isbn10_check("0306406152")
    assert isbn_check("0-8044-2957-X")  # 10*0 + 9*8 + ... + 1*10 = 209 = 11 * 19
    assert isbn_check("978-0-306-40615-7") and isbn13_check("9780306406157")
    assert not isbn_check("978-0-306-40615-6") and not isbn_check("0-306-40615-3")
    assert not isbn_check("12345") and not isbn13_check("0306406152")
    assert sorted(CHECKSUMS) == ["iban", "isbn", "isbn10", "isbn13", "luhn"]
    assert ek.get("checks", "iban") is iban_check


def test_checksum_validator_findings():
    v = checksum_validator("luhn", field_name="card")
    assert list(v("79927398713")) == []
    assert list(v(None)) == []
    (f,) = v("79927398710")
    assert f == Finding(
        field="card", layer="checksum", severity=Severity.FLAG, message="'79927398710' fails the luhn checksum."
    )
    (g,) = checksum_validator("iban")("XX00", spec=FieldSpec("account"))
    assert g.field == "account"  # the spec names the field when field_name is empty


def test_regex_range_enum_validators():
    code = regex_validator(r"[A-Z]{3}", field_name="currency")
    assert list(code("EUR")) == [] and len(list(code("EURO"))) == 1
    rng = range_validator(0, 100)
    assert list(rng("42")) == [] and list(rng(100)) == []
    assert [f.message for f in rng(150)] == ["150.0 is outside [0, 100]."]
    assert [f.message for f in rng("abc")] == ["'abc' is not a number."]
    assert list(range_validator(None, 10)(-1e9)) == []
    colours = enum_validator(["red", "green"], layer="palette")
    assert list(colours("red")) == []
    assert [f.layer for f in colours("blue")] == ["palette"]


def test_schema_validator_reads_type_and_domain():
    assert list(schema_validator("anything")) == []  # no spec: a no-op
    amount = FieldSpec("amount", "number", domain=(0, 1000))
    assert list(schema_validator("12.50", spec=amount)) == []
    assert list(schema_validator("1,234.50", spec=FieldSpec("amount", "number"))) == []
    assert [f.layer for f in schema_validator("abc", spec=amount)] == ["type"]
    assert [f.layer for f in schema_validator(5000, spec=amount)] == ["domain"]
    status = FieldSpec("status", "string", domain=("paid", "open"))
    assert list(schema_validator("paid", spec=status)) == []
    assert [f.field for f in schema_validator("late", spec=status)] == ["status"]
    zip_code = FieldSpec("zip", "string", domain=r"\d{5}")
    assert len(list(schema_validator("1234", spec=zip_code))) == 1
    assert list(schema_validator("2024-02-29", spec=FieldSpec("d", "date"))) == []
    assert len(list(schema_validator("2023-02-29", spec=FieldSpec("d", "date")))) == 1
    assert len(list(schema_validator("3.5", spec=FieldSpec("n", "int")))) == 1
    assert len(list(schema_validator("maybe", spec=FieldSpec("b", "bool")))) == 1
    assert ek.get("validators", "schema") is schema_validator


def test_totals_consistent():
    rec = {"total": "30.00", "net": 25, "vat": 5}
    assert list(totals_consistent(rec, total_key="total", item_keys=["net", "vat"])) == []
    (f,) = totals_consistent({"total": 31, "net": 25, "vat": 5}, total_key="total", item_keys=["net", "vat"])
    assert f.field == "total" and f.layer == "cross_field" and f.severity is Severity.FLAG
    assert "sum to 30.0" in f.message
    lines = {"total": "1,000.00", "lines": [400, "600"]}
    assert list(totals_consistent(lines, total_key="total", item_keys=["lines"])) == []
    assert list(totals_consistent({"total": 30.004, "a": 30}, total_key="total", item_keys=["a"])) == []
    # partial records are skipped, not flagged
    assert list(totals_consistent({"net": 25}, total_key="total", item_keys=["net"])) == []
    assert list(totals_consistent({"total": 5, "net": "n/a"}, total_key="total", item_keys=["net"])) == []


@pytest.mark.parametrize(
    "total, items",
    [
        (float("nan"), {"net": 25, "vat": 5}),
        (float("inf"), {"net": 25, "vat": 5}),
        (30, {"net": float("-inf"), "vat": 5}),
        (30, {"net": [25, float("nan")], "vat": 5}),
        ("30", {"net": "nan", "vat": 5}),
    ],
)
def test_totals_flags_non_finite_values(total, items):
    (f,) = totals_consistent({"total": total, **items}, total_key="total", item_keys=["net", "vat"])
    assert f.field == "total" and f.severity is Severity.FLAG
    assert "non-finite values (NaN or infinite)" in f.message


def test_totals_names_the_non_finite_values():
    (f,) = totals_consistent(
        {"total": float("nan"), "net": float("inf"), "vat": 5}, total_key="total", item_keys=["net", "vat"]
    )
    assert f.message.endswith("in total=nan, net=inf.")
    # an absent item is still skipped, as on any partial record
    assert list(totals_consistent({"total": float("nan")}, total_key="total", item_keys=["net"])) == []


_UNICODE_DIGITS = [
    "\u0660\u0663\u0660\u0666\u0664\u0660\u0666\u0661\u0665\u0662",  # 0306406152 in Arabic-Indic digits
    "978030640615\u0667",  # a valid ISBN-13 ending in an Arabic-Indic 7
    "030640615\u00b2",  # superscript two
    "\uff19\uff17\uff18\uff10\uff13\uff10\uff16\uff14\uff10\uff16\uff11\uff15\uff17",  # full-width digits
]


@pytest.mark.parametrize("value", _UNICODE_DIGITS)
@pytest.mark.parametrize("check", [isbn10_check, isbn13_check, isbn_check, luhn_check])
def test_checksums_accept_only_ascii_digits(check, value):
    assert check(value) is False


def test_iban_accepts_only_ascii_digits():
    assert iban_check("GB82WEST12345698765432")
    assert not iban_check("GB\u0668\u0662WEST12345698765432")  # the check digits 82 in Arabic-Indic


@given(st.text(alphabet=st.characters(categories=["Nd", "No"]) | st.sampled_from("-X "), max_size=16))
def test_checksums_never_crash(value):
    ascii_only = all(ch in "0123456789-X " for ch in value)
    for check in (isbn10_check, isbn13_check, isbn_check, luhn_check, iban_check):
        assert check(value) in (True, False)
        if not ascii_only:
            assert check(value) is False


def test_verifier_signal_fraction_and_findings():
    v = VerifierSignal([checksum_validator("luhn")])
    assert v("79927398713") == 1.0 and v("79927398710") == 0.0
    two = VerifierSignal([regex_validator(r"\d+"), checksum_validator("luhn")])
    assert two("79927398710") == 0.5
    assert [f.layer for f in two.findings("79927398710")] == ["checksum"]
    assert VerifierSignal()("x") == 1.0  # no checks: vacuously clear
    spec_aware = VerifierSignal([schema_validator])
    assert spec_aware("abc", spec=FieldSpec("n", "number")) == 0.0
    assert spec_aware.cost_tier == 1 and spec_aware.name == "verifier"


# --------------------------------------------------------------------------
# bad input
# --------------------------------------------------------------------------


def test_unknown_checksum():
    with pytest.raises(KeyError, match="Did you mean 'luhn'"):
        checksum_validator("lunh")


def test_inverted_range():
    with pytest.raises(ValueError, match="needs lo <= hi, got lo=5, hi=1"):
        range_validator(5, 1)


def test_totals_needs_a_mapping():
    with pytest.raises(TypeError, match="takes a mapping record, got list"):
        totals_consistent([1, 2], total_key="t", item_keys=["a"])
