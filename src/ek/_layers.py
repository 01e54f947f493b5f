"""The layer objects behind the factories of `ek.validate`.

Each is a frozen dataclass called as ``(value, *, spec=None) -> list[Finding]``
with a ``layer`` attribute. The factories in `ek.validate` check their
arguments and document them; these classes assume clean settings and only
decide, per value, what to flag or correct.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Optional

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
]

_EPS = 1e-12  # float slack when comparing a similarity with its threshold
_CUTOFF_SLACK = 0.01  # how far below the threshold rapidfuzz may prune candidates


@dataclass(frozen=True)
class CanonicalizeCorrector:
    canon: Callable[[str], str]
    field_name: str = ""
    layer: str = "canonicalize"

    def __call__(self, value: Any, *, spec: Optional[FieldSpec] = None) -> list[Finding]:
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
    members: tuple = field(repr=False)
    member_set: frozenset = field(repr=False)
    threshold: float = 0.8
    scorer: Any = None
    scale: float = 100.0
    field_name: str = ""
    layer: str = "lexicon"
    flag_unmatched: bool = True

    def __call__(self, value: Any, *, spec: Optional[FieldSpec] = None) -> list[Finding]:
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
            hit for hit in process.extract(value, self.members, scorer=self.scorer, limit=2, score_cutoff=loose)
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
    correct_fn: Callable[[Any], Optional[str]]
    only_flagged: bool = True
    field_name: str = ""
    layer: str = "llm_correct"
    wants_findings: bool = True

    def __call__(
        self, value: Any, *, spec: Optional[FieldSpec] = None, findings: Iterable[Finding] = ()
    ) -> list[Finding]:
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

    def __call__(self, value: Any, *, spec: Optional[FieldSpec] = None) -> list[Finding]:
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
    fields: tuple = ()
    layer: str = "cross_field"

    def __call__(self, record: Any, *, spec: Optional[FieldSpec] = None) -> list[Finding]:
        try:
            ok = self.predicate(record)
        except Exception:  # a partial record: nothing to compare, so nothing to flag
            return []
        return [] if ok else [Finding(",".join(self.fields), self.layer, Severity.FLAG, self.message)]


@dataclass(frozen=True)
class OrderingValidator:
    keys: tuple
    strict: bool = True
    layer: str = "cross_field"

    def __call__(self, record: Any, *, spec: Optional[FieldSpec] = None) -> list[Finding]:
        getter = getattr(record, "get", None)
        if getter is None:
            raise TypeError(
                f"ordering_validator({list(self.keys)!r}) checks a record (a mapping of field to "
                f"value), got a {type_name(record)}; run it on the whole record, not on one field."
            )
        present = [(k, getter(k)) for k in self.keys]
        present = [(k, v) for k, v in present if v is not None]
        out = []
        for (ka, a), (kb, b) in zip(present, present[1:]):
            try:
                wrong = a >= b if self.strict else a > b
            except TypeError:  # not mutually comparable: nothing to say
                continue
            if wrong:
                relation = "is not before" if self.strict else "is after"
                message = f"{ka} ({a!r}) {relation} {kb} ({b!r})"
                out.append(Finding(f"{ka},{kb}", self.layer, Severity.FLAG, message))
        return out


def field_of(field_name: str, spec: Optional[FieldSpec]) -> str:
    """The field name a finding carries: the explicit one, else the spec's."""
    return field_name or (getattr(spec, "name", "") if spec is not None else "")
