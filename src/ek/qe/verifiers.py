"""Deterministic verifiers: the cheapest quality-estimation layer, run first.

Checks that need no model and no training data catch exactly the errors a
confidence score misses: a value the extractor was sure of that cannot be
right, because its checksum fails, it is out of range or not an allowed
value, or a total does not add up. Run them before paying for intrinsic or
agreement signals.

* Checksums: `luhn_check`, `iban_check`, `isbn10_check`, `isbn13_check`,
  `isbn_check` (also in `CHECKSUMS` and the ``"checks"`` namespace). They
  are written here rather than taken from the LGPL ``python-stdnum``, to
  keep the core permissively licensed, and read ASCII digits only.
* Validators (``value, *, spec=None -> findings``): `checksum_validator`,
  `regex_validator`, `range_validator`, `enum_validator`, the spec-driven
  `schema_validator`, and the cross-field `totals_consistent`.
* `VerifierSignal`: the share of validators a value passes, as a raw signal
  (1.0 = all passed), with the findings kept for review.

A verifier reports evidence (a `Finding`, a pass share), never a
probability or a decision.

Registry namespaces: ``"checks"`` holds predicates ``value -> bool`` (the
checksums, used by `checksum_validator`); ``"validators"`` holds layers
``value -> findings`` (`schema_validator`, and anything `ek.validate` builds).
The ``"checkers"`` namespace of `ek.agents` (episode success checks) is unrelated.

>>> luhn_check("79927398713"), luhn_check("79927398710"), isbn_check("0-306-40615-2")
(True, False, True)
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any, ClassVar

from ek._calls import accepts_keyword
from ek._util import type_name
from ek.base import FieldSpec, Finding, Severity
from ek.registry import get, register

__all__ = [
    "CHECKSUMS",
    "DEFAULT_TOTALS_TOL",
    "VerifierSignal",
    "checksum_validator",
    "enum_validator",
    "iban_check",
    "isbn10_check",
    "isbn13_check",
    "isbn_check",
    "luhn_check",
    "range_validator",
    "regex_validator",
    "schema_validator",
    "totals_consistent",
]

DEFAULT_TOTALS_TOL = 0.01
"""Default absolute tolerance of `totals_consistent` (one cent)."""

_SEPARATORS = re.compile(r"[\s-]")
_ISBN10 = re.compile(r"[0-9]{9}[0-9Xx]")  # ASCII digits only: str.isdigit also accepts "٣" and "²"
_ISBN13 = re.compile(r"[0-9]{13}")
_IBAN = re.compile(r"[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}")
_THOUSANDS = re.compile(r"^[+-]?\d{1,3}(,\d{3})+(\.\d+)?$")
_NUMBER_TYPES = {"number", "float", "decimal", "amount"}
_INT_TYPES = {"int", "integer"}
_ValidatorFn = Callable[..., Iterable[Finding]]


def luhn_check(number: object) -> bool:
    """Luhn (mod 10) checksum, used by card numbers, IMEIs and some national IDs.

    Spaces and hyphens are ignored; anything else that is not a digit fails,
    as does a number of fewer than two digits.
    """
    digits = _digits(number)
    if digits is None or len(digits) < 2:
        return False
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def iban_check(iban: object) -> bool:
    """IBAN validity by the ISO 13616 / ISO 7064 mod-97 rule (the remainder must be 1).

    Spaces are ignored and letters may be lower case; the format must be two
    letters, two check digits and 11 to 30 letters or digits (ASCII only).
    """
    if not isinstance(iban, str):
        return False
    s = re.sub(r"\s", "", iban).upper()
    if not _IBAN.fullmatch(s):
        return False
    moved = s[4:] + s[:4]
    return int("".join(str(int(ch, 36)) for ch in moved)) % 97 == 1


def isbn10_check(value: object) -> bool:
    """ISBN-10 checksum: digits weighted 10 down to 1 sum to a multiple of 11 (final ``X`` is 10).

    Only ASCII digits count, as in `luhn_check` and `iban_check`: a string
    with other Unicode digits (Arabic-Indic, superscripts) is False.
    """
    s = _stripped(value)
    if s is None or not _ISBN10.fullmatch(s):
        return False
    total = sum((10 - i) * (10 if ch in "Xx" else int(ch)) for i, ch in enumerate(s))
    return total % 11 == 0


def isbn13_check(value: object) -> bool:
    """ISBN-13 / EAN-13 checksum: digits weighted alternately 1 and 3 sum to a multiple of 10.

    Only ASCII digits count: a string with other Unicode digits is False.
    """
    s = _stripped(value)
    if s is None or not _ISBN13.fullmatch(s):
        return False
    return sum((3 if i % 2 else 1) * int(ch) for i, ch in enumerate(s)) % 10 == 0


def isbn_check(value: object) -> bool:
    """Validate an ISBN-10 or ISBN-13, chosen by length (hyphens and spaces ignored)."""
    s = _stripped(value)
    if s is None:
        return False
    return isbn10_check(s) if len(s) == 10 else isbn13_check(s) if len(s) == 13 else False


CHECKSUMS: dict[str, Callable[[Any], bool]] = {
    "iban": iban_check,
    "isbn": isbn_check,
    "isbn10": isbn10_check,
    "isbn13": isbn13_check,
    "luhn": luhn_check,
}
"""The built-in checksums by name; register more in the ``"checks"`` namespace."""


def checksum_validator(kind: str = "luhn", *, field_name: str = "", layer: str = "checksum") -> _ValidatorFn:
    """A `Validator` flagging a value that fails the checksum ``kind`` (a name in ``"checks"``).

    A missing value (None) is not checked.

    >>> list(checksum_validator("luhn")("79927398713"))
    []
    """
    check = get("checks", kind) if isinstance(kind, str) else None
    if check is None:
        raise TypeError(f"checksum_validator kind must be a registered check name, got {type_name(kind)}.")

    def validate(value: Any, *, spec: FieldSpec | None = None) -> list[Finding]:
        if value is None or check(value):
            return []
        return [_finding(field_name, spec, layer, f"{value!r:.60} fails the {kind} checksum.")]

    validate.__name__ = validate.__qualname__ = f"checksum_validator_{kind}"
    return validate


def regex_validator(pattern: str, *, field_name: str = "", layer: str = "format") -> _ValidatorFn:
    """A `Validator` flagging a value whose text does not fully match ``pattern``."""
    compiled = re.compile(pattern)

    def validate(value: Any, *, spec: FieldSpec | None = None) -> list[Finding]:
        if value is None or compiled.fullmatch(str(value)):
            return []
        return [_finding(field_name, spec, layer, f"{value!r:.60} does not match {compiled.pattern!r}.")]

    return validate


def range_validator(lo: float | None, hi: float | None, *, field_name: str = "", layer: str = "range") -> _ValidatorFn:
    """A `Validator` flagging a value that is not a number in ``[lo, hi]`` (None leaves a side open)."""
    if lo is not None and hi is not None and lo > hi:
        raise ValueError(f"range_validator needs lo <= hi, got lo={lo!r}, hi={hi!r}.")

    def validate(value: Any, *, spec: FieldSpec | None = None) -> list[Finding]:
        if value is None:
            return []
        x = _as_number(value)
        if x is None:
            return [_finding(field_name, spec, layer, f"{value!r:.60} is not a number.")]
        if (lo is not None and x < lo) or (hi is not None and x > hi):
            return [_finding(field_name, spec, layer, f"{x!r} is outside [{lo}, {hi}].")]
        return []

    return validate


def enum_validator(members: Iterable[object], *, field_name: str = "", layer: str = "enum") -> _ValidatorFn:
    """A `Validator` flagging a value that is not one of ``members``."""
    allowed = tuple(members)

    def validate(value: Any, *, spec: FieldSpec | None = None) -> list[Finding]:
        if value is None or value in allowed:
            return []
        shown = ", ".join(repr(m) for m in allowed[:8]) + (", ..." if len(allowed) > 8 else "")
        return [_finding(field_name, spec, layer, f"{value!r:.60} is not one of {shown}.")]

    return validate


def schema_validator(value: object, *, spec: FieldSpec | None = None) -> Iterable[Finding]:
    """Spec-driven checks: the `FieldSpec`'s ``type`` and ``domain``.

    ``domain`` may be a ``(lo, hi)`` pair of numbers (a range), any other
    tuple/list/set (allowed values) or a string (a regex). Types checked:
    ``number``/``float``/``decimal``/``amount``, ``int``/``integer``,
    ``bool``/``boolean``, ``date`` (ISO format) and ``string``/``str``.
    Without a spec, or for a None value, it finds nothing, so it fits in any
    validator list.

    >>> from ek.base import FieldSpec
    >>> [f.layer for f in schema_validator("abc", spec=FieldSpec("amount", "number"))]
    ['type']
    """
    if spec is None or value is None:
        return []
    problem = _type_problem(value, (spec.type or "").lower())
    if problem:
        return [_finding("", spec, "type", problem)]
    domain = spec.domain
    if isinstance(domain, str) and domain:
        return regex_validator(domain, layer="domain")(value, spec=spec)
    if (
        isinstance(domain, (tuple, list))
        and len(domain) == 2
        and all(isinstance(d, numbers.Real) and not isinstance(d, bool) or d is None for d in domain)
    ):
        return range_validator(domain[0], domain[1], layer="domain")(value, spec=spec)
    if isinstance(domain, (tuple, list, set, frozenset)) and domain:
        return enum_validator(domain, layer="domain")(value, spec=spec)
    return []


def totals_consistent(
    record: object,
    *,
    total_key: str,
    item_keys: Sequence[str],
    tol: float = DEFAULT_TOTALS_TOL,
    layer: str = "cross_field",
) -> Iterable[Finding]:
    """Flag a record whose ``record[total_key]`` differs from the sum of ``item_keys`` by more than ``tol``.

    The usual cross-field check (an invoice total equals the sum of its
    lines). An item may hold a number or a list of numbers. The check is
    skipped when the total, or every item, is missing or not numeric, so it
    is safe on partial records. A NaN or infinite total or item cannot be
    reconciled: it yields one finding saying the values are non-finite.

    >>> rec = {"total": "30.00", "net": 25, "vat": 5}
    >>> list(totals_consistent(rec, total_key="total", item_keys=["net", "vat"]))
    []
    """
    if not hasattr(record, "get"):
        raise TypeError(f"totals_consistent() takes a mapping record, got {type_name(record)}.")
    total = _as_number(record.get(total_key), finite=False)
    named = [(k, p) for k in item_keys for p in _numbers(record.get(k), finite=False)]
    if total is None or not named:
        return []
    odd = [f"{k}={v!r}" for k, v in [(total_key, total), *named] if not math.isfinite(v)]
    if odd:
        return [
            Finding(
                field=total_key,
                layer=layer,
                severity=Severity.FLAG,
                message=f"{total_key} cannot be reconciled with {' + '.join(item_keys)}: non-finite "
                f"values (NaN or infinite) in {', '.join(odd)}.",
            )
        ]
    parts = [p for _, p in named]
    expected = math.fsum(parts)
    if abs(total - expected) <= tol:
        return []
    return [
        Finding(
            field=total_key,
            layer=layer,
            severity=Severity.FLAG,
            message=f"{total_key} is {total!r} but {' + '.join(item_keys)} sum to {expected!r} (tolerance {tol}).",
        )
    ]


@dataclass(frozen=True)
class VerifierSignal:
    """The share of validators a value passes, as a raw `Signal` (cost tier 1, run first).

    1.0 means every check passed (and, vacuously, no validators). The same
    object gives the `Finding` s for review through `findings`. A failed
    check is strong evidence but not a probability: calibrate before gating.

    >>> v = VerifierSignal([checksum_validator("luhn")])
    >>> v("79927398713"), v("79927398710")
    (1.0, 0.0)
    """

    name: ClassVar[str] = "verifier"

    validators: Sequence[Callable[..., Iterable[Finding]]] = field(default_factory=tuple)
    cost_tier: int = 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "validators", tuple(self.validators))

    def __call__(self, value: object, *, spec: FieldSpec | None = None) -> float:
        """Fraction of the validators that find nothing wrong with ``value``."""
        if not self.validators:
            return 1.0
        passed = sum(1 for v in self.validators if not list(_run(v, value, spec)))
        return passed / len(self.validators)

    def findings(self, value: object, *, spec: FieldSpec | None = None) -> list[Finding]:
        """Every finding the validators report for ``value`` (empty means all clear)."""
        return [f for v in self.validators for f in _run(v, value, spec)]


# --------------------------------------------------------------------------


def _run(validator: Callable[..., Iterable[Finding]], value: Any, spec: FieldSpec | None) -> Iterable[Finding]:
    if spec is not None and accepts_keyword(validator, "spec"):
        return validator(value, spec=spec)
    return validator(value)


def _finding(field_name: str, spec: FieldSpec | None, layer: str, message: str) -> Finding:
    name = field_name or (spec.name if spec is not None else "")
    return Finding(field=name, layer=layer, severity=Severity.FLAG, message=message)


def _digits(value: Any) -> str | None:
    s = _stripped(value)
    return s if s is not None and s.isdigit() and s.isascii() else None


def _stripped(value: Any) -> str | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return str(value)
    if not isinstance(value, str):
        return None
    return _SEPARATORS.sub("", value)


def _as_number(value: Any, *, finite: bool = True) -> float | None:
    """``value`` read as a float (numeric strings too), or None; ``finite=False`` keeps NaN and inf."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, numbers.Real):
        x = float(value)
    elif isinstance(value, str):
        s = value.strip()
        if _THOUSANDS.match(s):
            s = s.replace(",", "")
        try:
            x = float(s)
        except ValueError:
            return None
    else:
        return None
    return x if not finite or math.isfinite(x) else None


def _numbers(value: Any, *, finite: bool = True) -> list[float]:
    if isinstance(value, (list, tuple)):
        return [x for x in (_as_number(v, finite=finite) for v in value) if x is not None]
    x = _as_number(value, finite=finite)
    return [] if x is None else [x]


def _type_problem(value: Any, kind: str) -> str | None:
    if kind in _NUMBER_TYPES and _as_number(value) is None:
        return f"{value!r:.60} is not a number."
    if kind in _INT_TYPES:
        x = _as_number(value)
        if x is None or not x.is_integer():
            return f"{value!r:.60} is not an integer."
    if kind in ("bool", "boolean") and not (isinstance(value, bool) or str(value).strip().lower() in ("true", "false")):
        return f"{value!r:.60} is not a boolean."
    if kind == "date" and not isinstance(value, date):
        try:
            date.fromisoformat(str(value).strip())
        except ValueError:
            return f"{value!r:.60} is not an ISO date (YYYY-MM-DD)."
    if kind in ("string", "str", "text") and not isinstance(value, str):
        return f"{value!r:.60} is {type_name(value)}, not a string."
    return None


for _name, _check in CHECKSUMS.items():
    register("checks", _name, _check)
register("validators", "schema", schema_validator)
register("signals", "verifier", VerifierSignal)
del _name, _check
