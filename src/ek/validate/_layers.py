"""The layer objects behind the factories of `ek.validate`.

Each is a frozen dataclass called as ``(value, *, spec=None) -> list[Finding]``
with a ``layer`` attribute. The factories in `ek.validate` check their
arguments and document them; these classes assume clean settings and only
decide, per value, what to flag or correct.
"""

from __future__ import annotations

import itertools
import math
import numbers
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal
from typing import Any

from ek._util import type_name
from ek.base import FieldSpec, Finding, Severity

__all__ = [
    "CanonicalizeCorrector",
    "CrossFieldValidator",
    "LexiconCorrector",
    "LlmCorrector",
    "OrderingValidator",
    "SurprisalValidator",
    "field_of",
    "order_key",
    "record_dayfirst",
]

_EPS = 1e-12  # float slack when comparing a similarity with its threshold
_CUTOFF_SLACK = 0.01  # how far below the threshold rapidfuzz may prune candidates


@dataclass(frozen=True)
class CanonicalizeCorrector:
    canon: Callable[[str], str]
    field_name: str = ""
    layer: str = "canonicalize"

    def __call__(self, value: Any, *, spec: FieldSpec | None = None) -> list[Finding]:
        if not isinstance(value, str):
            return []
        folded = self.canon(value)
        if folded == value:
            return []
        return [
            Finding(
                field_of(self.field_name, spec),
                self.layer,
                Severity.CORRECT,
                f"{value!r} folds to the canonical form {folded!r}",
                folded,
            )
        ]


@dataclass(frozen=True)
class LexiconCorrector:
    members: tuple[str, ...] = field(repr=False)
    member_set: frozenset[str] = field(repr=False)
    threshold: float = 0.8
    scorer: Any = None
    scale: float = 100.0
    field_name: str = ""
    layer: str = "lexicon"
    flag_unmatched: bool = True

    def __call__(self, value: Any, *, spec: FieldSpec | None = None) -> list[Finding]:
        from rapidfuzz import process

        if isinstance(value, str) and value in self.member_set:
            return []
        name = field_of(self.field_name, spec)
        if not isinstance(value, str):
            return self._unmatched(name, f"{type_name(value)} value {value!r:.60} is not in the vocabulary")
        # rapidfuzz turns a cutoff on a normalized scorer into an integer distance and can
        # drop a score equal to it, so prune a little below the threshold and decide here.
        loose = max(self.threshold - _CUTOFF_SLACK, 0.0) * self.scale
        hits = [
            hit
            for hit in process.extract(value, self.members, scorer=self.scorer, limit=2, score_cutoff=loose)
            if hit[1] / self.scale >= self.threshold - _EPS
        ]
        if not hits:
            return self._unmatched(
                name, f"{value!r} is not in the vocabulary and no member is at least {self.threshold:g} similar"
            )
        top, score = hits[0][0], hits[0][1] / self.scale
        if len(hits) > 1 and hits[1][1] == hits[0][1]:
            tied = ", ".join(repr(h[0]) for h in hits)
            return [
                Finding(
                    name,
                    self.layer,
                    Severity.FLAG,
                    f"{value!r} is not in the vocabulary and is equally close ({score:.2f}) to {tied}; "
                    "pick one by hand",
                )
            ]
        return [
            Finding(
                name,
                self.layer,
                Severity.CORRECT,
                f"{value!r} is not in the vocabulary; nearest member {top!r} (similarity {score:.2f})",
                top,
            )
        ]

    def _unmatched(self, name: str, message: str) -> list[Finding]:
        return [Finding(name, self.layer, Severity.FLAG, message)] if self.flag_unmatched else []


@dataclass(frozen=True)
class LlmCorrector:
    correct_fn: Callable[[Any], str | None]
    only_flagged: bool = True
    field_name: str = ""
    layer: str = "llm_correct"
    wants_findings: bool = True

    def __call__(self, value: Any, *, spec: FieldSpec | None = None, findings: Iterable[Finding] = ()) -> list[Finding]:
        if self.only_flagged and not any(f.severity == Severity.FLAG for f in findings):
            return []
        proposal = self.correct_fn(value)
        if proposal is None or proposal == value:
            return []
        if not isinstance(proposal, str):
            raise TypeError(
                f"llm_corrector's correct_fn returned a {type_name(proposal)} ({proposal!r:.60}) for "
                f"{value!r:.60}; it must return the corrected str, or None to keep the value."
            )
        return [
            Finding(
                field_of(self.field_name, spec),
                self.layer,
                Severity.CORRECT,
                f"model rewrite of {value!r:.60} to {proposal!r:.60}; verify before trusting it",
                proposal,
            )
        ]


@dataclass(frozen=True)
class SurprisalValidator:
    scorer: Callable[[str], float]
    threshold: float
    higher_is_worse: bool = True
    field_name: str = ""
    layer: str = "lm_prior"

    def __call__(self, value: Any, *, spec: FieldSpec | None = None) -> list[Finding]:
        if not isinstance(value, str):
            return []
        s = self.scorer(value)
        if getattr(s, "ndim", None) == 0 and hasattr(s, "item"):
            s = s.item()  # a 0-d array or tensor from a model-backed scorer
        if isinstance(s, bool) or not isinstance(s, numbers.Real):
            raise TypeError(
                f"lm_surprisal_validator's scorer returned a {type_name(s)} for {value!r:.60}; it "
                "must return one float per string."
            )
        s = float(s)
        if math.isnan(s):
            raise ValueError(
                f"lm_surprisal_validator's scorer returned NaN for {value!r:.60}; make it return "
                "a finite score (e.g. skip empty strings in the scorer)."
            )
        bad = s > self.threshold if self.higher_is_worse else s < self.threshold
        if not bad:
            return []
        side = "above" if self.higher_is_worse else "below"
        return [
            Finding(
                field_of(self.field_name, spec),
                self.layer,
                Severity.FLAG,
                f"{value!r:.60} is unlikely under the language model: score {s:.3g} is {side} "
                f"the threshold {self.threshold:g}",
            )
        ]


@dataclass(frozen=True)
class CrossFieldValidator:
    predicate: Callable[[Any], bool]
    message: str
    fields: tuple[str, ...] = ()
    layer: str = "cross_field"

    def __call__(self, record: Any, *, spec: FieldSpec | None = None) -> list[Finding]:
        try:
            ok = self.predicate(record)
        except Exception:  # a partial record: nothing to compare, so nothing to flag
            return []
        return [] if ok else [Finding(",".join(self.fields), self.layer, Severity.FLAG, self.message)]


@dataclass(frozen=True)
class OrderingValidator:
    keys: tuple[str, ...]
    strict: bool = True
    layer: str = "cross_field"
    dayfirst: bool | None = True

    def __call__(self, record: Any, *, spec: FieldSpec | None = None) -> list[Finding]:
        getter = getattr(record, "get", None)
        if getter is None:
            raise TypeError(
                f"ordering_validator({list(self.keys)!r}) checks a record (a mapping of field to "
                f"value), got a {type_name(record)}; run it on the whole record, not on one field."
            )
        values = [(k, getter(k)) for k in self.keys]
        values = [(k, v) for k, v in values if v is not None]
        dayfirst = record_dayfirst((v for _, v in values), self.dayfirst)
        present = [(k, v, order_key(v, dayfirst=dayfirst)) for k, v in values]
        out = []
        for (ka, a, oa), (kb, b, ob) in itertools.pairwise(present):
            if oa[0] != ob[0] or oa[0] == "ambiguous":  # a number and a date, say: nothing to say
                continue
            try:
                wrong = oa[1] >= ob[1] if self.strict else oa[1] > ob[1]
            except TypeError:  # e.g. an aware and a naive time, or two arbitrary objects
                continue
            if wrong:
                relation = "is not before" if self.strict else "is after"
                message = f"{ka} ({a!r}) {relation} {kb} ({b!r})"
                out.append(Finding(f"{ka},{kb}", self.layer, Severity.FLAG, message))
        return out


_ISO_DATE = re.compile(
    r"(?P<y>[0-9]{4})-(?P<m>[0-9]{2})-(?P<d>[0-9]{2})"
    r"(?:[T ](?P<H>[0-9]{2}):(?P<M>[0-9]{2})(?::(?P<S>[0-9]{2})(?:[.,](?P<f>[0-9]{1,6})[0-9]*)?)?"
    r"(?P<tz>Z|[+-][0-9]{2}:?[0-9]{2})?)?"
)
# A day, a month and a four-digit year, in either order of day and month, one separator throughout.
_NUMERIC_DATE = re.compile(r"(?P<a>[0-9]{1,2})(?P<sep>[./-])(?P<b>[0-9]{1,2})(?P=sep)(?P<y>[0-9]{4})")
_NUMERIC = re.compile(r"[+-]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def order_key(value: Any, *, dayfirst: bool | None = True) -> tuple[str, Any]:
    """``(kind, comparable)`` for `OrderingValidator`: numbers, then dates and times, then the rest.

    * ``"number"``: an int, float or `decimal.Decimal` (not a bool), or a string
      of ASCII digits such as ``"10"``, ``"-2.5"``, ``"1e3"``, read exactly as a
      `decimal.Decimal` (so ``"10"`` comes after ``"9"``).
    * ``"time"``: a `datetime.date` or `datetime.datetime`, or an ISO 8601
      string ``YYYY-MM-DD``, optionally followed by ``T`` (or a space)
      ``HH:MM[:SS[.ffffff]]`` and ``Z`` or an offset ``+HH:MM``. A date counts
      as the midnight that starts it; a time with an offset only compares
      with another that has one. Also a date written ``DD/MM/YYYY``,
      ``DD.MM.YYYY`` or ``DD-MM-YYYY`` (one or two digits for the day and the
      month), read day first when ``dayfirst`` is True and month first when
      it is False; a value only one reading makes a date of (``25/12/2024``)
      is read that way whatever ``dayfirst`` says.
    * ``"ambiguous"``: with ``dayfirst=None``, a date both readings fit
      (``02/05/2024``); it is compared with nothing.
    * ``"text"`` for any other string (compared as text), else ``"other"``.
    """
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return "number", value
    if isinstance(value, Decimal):
        return "number", value
    if isinstance(value, datetime):
        return "time", value
    if isinstance(value, date):
        return "time", datetime(value.year, value.month, value.day)
    if isinstance(value, str):
        s = value.strip()
        if _NUMERIC.fullmatch(s):
            return "number", Decimal(s.replace("_", ""))
        when = _iso_time(s) or _numeric_date(s, dayfirst)
        if when is not None:
            return "time", when
        if dayfirst is None and _numeric_date(s, True) is not None:
            return "ambiguous", value
        return "text", value
    return "other", value


def _iso_time(s: str) -> datetime | None:
    m = _ISO_DATE.fullmatch(s)
    if m is None:
        return None
    g = m.groupdict()
    tz = None
    if g["tz"]:
        if g["tz"] == "Z":
            tz = timezone.utc
        else:
            sign = -1 if g["tz"][0] == "-" else 1
            hh, mm = int(g["tz"][1:3]), int(g["tz"][-2:])
            tz = timezone(sign * timedelta(hours=hh, minutes=mm))
    try:
        return datetime(
            int(g["y"]),
            int(g["m"]),
            int(g["d"]),
            int(g["H"] or 0),
            int(g["M"] or 0),
            int(g["S"] or 0),
            int((g["f"] or "0").ljust(6, "0")),
            tzinfo=tz,
        )
    except ValueError:  # month 13, February 30, an offset of 24 hours or more
        return None


def record_dayfirst(values: Iterable[Any], default: bool | None) -> bool | None:
    """Whether a record's ``DD/MM/YYYY``-style dates put the day first.

    Dates only one reading fits decide: a first number above 12
    (``25/12/2024``) says day first, a second one above 12 (``12/25/2024``)
    month first. With no such date, or dates that say both, ``default``.
    """
    said = set()
    for value in values:
        m = _NUMERIC_DATE.fullmatch(value.strip()) if isinstance(value, str) else None
        if m is not None:
            a, b = int(m["a"]), int(m["b"])
            if a > 12 >= b:
                said.add(True)
            elif b > 12 >= a:
                said.add(False)
    return said.pop() if len(said) == 1 else default


def _numeric_date(s: str, dayfirst: bool | None) -> datetime | None:
    """The midnight of a ``DD/MM/YYYY``-style date (see `order_key`), or None."""
    m = _NUMERIC_DATE.fullmatch(s)
    if m is None:
        return None
    a, b, year = int(m["a"]), int(m["b"]), int(m["y"])
    readings: list[datetime | None] = []
    for day, month in ((a, b), (b, a)):
        try:
            readings.append(datetime(year, month, day))
        except ValueError:  # month 13, 31 June
            readings.append(None)
    day_first, month_first = readings
    if day_first is None or month_first is None or day_first == month_first:
        return day_first or month_first
    if dayfirst is None:
        return None
    return day_first if dayfirst else month_first


def field_of(field_name: str, spec: FieldSpec | None) -> str:
    """The field name a finding carries: the explicit one, else the spec's."""
    return field_name or (getattr(spec, "name", "") if spec is not None else "")
