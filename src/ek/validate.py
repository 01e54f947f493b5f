"""Check extracted values without a gold answer, and fix the safe cases.

A validation pipeline is a list of layers run from the cheapest to the most
expensive. Each layer is a callable ``(value, *, spec=None) -> Iterable[Finding]``
and falls on one side of a hard line:

* a **validator** only *flags*: its findings have ``severity=FLAG`` and it
  never proposes a new value;
* a **corrector** may also *correct*: a ``severity=CORRECT`` finding carries
  the replacement in ``suggestion``.

Only narrow, deterministic layers correct on their own: canonical folding
(L0, `canonicalize_corrector`) and nearest-member lookup in a closed
vocabulary (L2, `lexicon_corrector`). The one layer that invents text, the
injected LLM corrector (L5, `llm_corrector`), fires by default only on a value
a cheaper layer has already flagged. Everything else flags: cross-field and
ordering checks, the injected language-model surprisal check (L3), and the
column-level Benford and robust z-score anomaly checks. The deterministic
verifiers of `ek.qe.verifiers` (checksums, regex, range, enum, schema,
totals) are re-exported here so a whole stack is built from one import.

`validation_pipeline` applies the first correction of a layer before the
next layer runs, so later (dearer) layers see the repaired value, and stops
early when a ``stop_when`` policy says so. The original value is always kept
in the `ValidationResult`, beside the full audit trail of findings.

>>> fix = validation_pipeline(canonicalize_corrector("strip"),
...                           lexicon_corrector(["France", "Spain"]))
>>> r = fix("  Frnace ")
>>> r.original, r.value, [f.layer for f in r.findings]
('  Frnace ', 'France', ['canonicalize', 'lexicon'])

Errors: building a layer with a bad setting raises ``ValueError`` (bad
number) or ``TypeError`` (wrong kind of object); a layer that yields
something other than a `Finding` raises ``TypeError`` when the pipeline runs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Optional, Protocol, runtime_checkable

from ek._anomaly import (
    BENFORD_EXPECTED,
    DEFAULT_BENFORD_MIN_N,
    DEFAULT_BENFORD_TOL,
    DEFAULT_ZSCORE_THRESHOLD,
    benford_findings,
    zscore_anomaly_findings,
)
from ek._layers import (
    CanonicalizeCorrector,
    CrossFieldValidator,
    LexiconCorrector,
    LlmCorrector,
    OrderingValidator,
    SurprisalValidator,
)
from ek._util import type_name
from ek.base import FieldSpec, Finding, Severity
from ek.canonicalize import resolve_canonicalizer
from ek.qe.verifiers import (
    checksum_validator,
    enum_validator,
    iban_check,
    isbn_check,
    luhn_check,
    range_validator,
    regex_validator,
    schema_validator,
    totals_consistent,
)

# The anomaly checks live in a private module; present them under this public path.
benford_findings.__module__ = zscore_anomaly_findings.__module__ = __name__

__all__ = [
    "BENFORD_EXPECTED",
    "DEFAULT_BENFORD_MIN_N",
    "DEFAULT_BENFORD_TOL",
    "DEFAULT_LEXICON_THRESHOLD",
    "DEFAULT_ZSCORE_THRESHOLD",
    "Corrector",
    "Layer",
    "ValidationResult",
    "benford_findings",
    "canonicalize_corrector",
    "checksum_validator",
    "cross_field_validator",
    "enum_validator",
    "iban_check",
    "isbn_check",
    "lexicon_corrector",
    "llm_corrector",
    "lm_surprisal_validator",
    "luhn_check",
    "ordering_validator",
    "range_validator",
    "regex_validator",
    "schema_validator",
    "stop_on_correction",
    "stop_on_flag",
    "totals_consistent",
    "validate",
    "validation_pipeline",
    "zscore_anomaly_findings",
]

DEFAULT_LEXICON_THRESHOLD = 0.8
"""Least similarity in [0, 1] at which a closed-vocabulary match is applied.

Below it the value is flagged instead. One swapped or mistyped letter in a
six-letter word scores about 0.83 with ``fuzz.ratio``; unrelated words score
near 0.3, so 0.8 fixes common typos while rarely replacing a real value.
"""

Layer = Callable[..., Iterable[Finding]]
"""One pipeline step: ``(value, *, spec=None) -> Iterable[Finding]``."""


@runtime_checkable
class Corrector(Protocol):
    """A validator that may also propose a replacement value.

    Called like any `ek.base.Validator`; a finding with ``severity=CORRECT``
    carries the replacement in ``suggestion``. ``layer`` names the step's
    place on the cheap-to-expensive spine (``"canonicalize"``, ``"lexicon"``).
    """

    layer: str

    def __call__(self, value: Any, *, spec: Optional[FieldSpec] = None) -> Iterable[Finding]: ...


@dataclass(frozen=True)
class ValidationResult:
    """What a pipeline made of one value: the input, the output and every finding.

    ``original`` is the value passed in, ``value`` the value after any
    applied corrections, and ``findings`` the audit trail (flags and
    corrections) in the order the layers produced them.
    """

    original: Any
    value: Any
    findings: tuple = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "findings", tuple(self.findings))

    @property
    def clean(self) -> bool:
        """True when no layer had anything to say about the value."""
        return not self.findings

    @property
    def corrected(self) -> bool:
        """True when an applied correction left ``value`` different from ``original``."""
        return any(f.severity == Severity.CORRECT for f in self.findings) and _differs(
            self.value, self.original
        )

    @property
    def flagged(self) -> bool:
        """True when some layer flagged the value for a person to look at."""
        return any(f.severity == Severity.FLAG for f in self.findings)


# ---------------------------------------------------------------------------
# Stop policies
# ---------------------------------------------------------------------------


def stop_on_correction(findings: Iterable[Finding]) -> bool:
    """Stop policy: True once any layer has proposed a correction.

    >>> stop_on_correction([Finding("x", "lexicon", Severity.CORRECT, suggestion="y")])
    True
    """
    return any(f.severity == Severity.CORRECT for f in findings)


def stop_on_flag(findings: Iterable[Finding]) -> bool:
    """Stop policy: True at the first flag, so the pass fails fast.

    >>> stop_on_flag([]), stop_on_flag([Finding("x", "range")])
    (False, True)
    """
    return any(f.severity == Severity.FLAG for f in findings)


def _run_every_layer(findings: Iterable[Finding]) -> bool:
    """The default stop policy: never stop early."""
    return False


# ---------------------------------------------------------------------------
# The pipeline
# ---------------------------------------------------------------------------


def validation_pipeline(
    *layers: Layer,
    apply_corrections: bool = True,
    stop_when: Callable[[tuple], bool] = _run_every_layer,
) -> Callable[..., ValidationResult]:
    """A callable ``(value, *, spec=None) -> ValidationResult`` running ``layers`` in order.

    Put the layers cheapest first: the order is the cost spine. After each
    layer, its first ``CORRECT`` finding (one with a ``suggestion``) replaces
    the value when ``apply_corrections`` is on, so the next layer sees the
    repaired value. Then ``stop_when(findings_so_far)`` is asked whether to
    end the pass; the default runs every layer. A layer with a true
    ``wants_findings`` attribute (see `llm_corrector`) is also given the
    findings so far as ``findings=``.

    Args:
        *layers: validators and correctors, each ``(value, *, spec) -> Iterable[Finding]``.
        apply_corrections: apply corrections as they come (default); when
            False, corrections are only recorded and ``value`` stays the input.
        stop_when: early-exit policy, e.g. `stop_on_correction` or `stop_on_flag`.

    Raises:
        TypeError: a layer or ``stop_when`` is not callable.

    >>> p = validation_pipeline(lexicon_corrector(["EUR", "USD"]), stop_when=stop_on_flag)
    >>> p("GBP").flagged, p("USD").clean
    (True, True)
    """
    for i, layer in enumerate(layers):
        if not callable(layer):
            raise TypeError(
                f"validation_pipeline() layer {i} is a {type_name(layer)}, not a callable; each "
                "layer must be a validator or corrector (value, *, spec=None) -> Iterable[Finding], "
                "e.g. lexicon_corrector([...]). Did you call the factory's result by mistake?"
            )
    if not callable(stop_when):
        raise TypeError(
            f"validation_pipeline() stop_when is a {type_name(stop_when)}, not a callable; pass "
            "a policy findings -> bool such as stop_on_correction or stop_on_flag."
        )
    return _Pipeline(tuple(layers), bool(apply_corrections), stop_when)


def validate(
    value: Any,
    *,
    layers: Iterable[Layer] = (),
    spec: Optional[FieldSpec] = None,
    apply_corrections: bool = True,
    stop_when: Callable[[tuple], bool] = _run_every_layer,
) -> ValidationResult:
    """Run one value through ``layers`` and return the `ValidationResult`.

    The one-call form of `validation_pipeline`. When ``layers`` is empty and
    a ``spec`` is given, the spec-driven `schema_validator` runs, so
    ``validate(v, spec=field_spec)`` checks the declared type and domain.

    >>> validate("Spian", layers=[lexicon_corrector(["Spain", "Italy"])]).value
    'Spain'
    >>> validate(150, spec=FieldSpec("age", "number", domain=(0, 120))).flagged
    True
    """
    chosen = tuple(layers)
    if not chosen and spec is not None:
        chosen = (schema_validator,)
    pipeline = validation_pipeline(*chosen, apply_corrections=apply_corrections, stop_when=stop_when)
    return pipeline(value, spec=spec)


@dataclass(frozen=True)
class _Pipeline:
    """The composed layers; see `validation_pipeline`."""

    layers: tuple
    apply_corrections: bool = True
    stop_when: Callable[[tuple], bool] = _run_every_layer

    def __call__(self, value: Any, *, spec: Optional[FieldSpec] = None) -> ValidationResult:
        original = value
        trail: list[Finding] = []
        for i, layer in enumerate(self.layers):
            if getattr(layer, "wants_findings", False):
                produced = layer(value, spec=spec, findings=tuple(trail))
            else:
                produced = layer(value, spec=spec)
            found = _collect(produced, i, layer)
            trail.extend(found)
            if self.apply_corrections:
                fix = next(
                    (f for f in found if f.severity == Severity.CORRECT and f.suggestion is not None),
                    None,
                )
                if fix is not None:
                    value = fix.suggestion
            if self.stop_when(tuple(trail)):
                break
        return ValidationResult(original, value, tuple(trail))


def _collect(produced: Any, index: int, layer: Any) -> list[Finding]:
    """The findings of one layer call, checked to really be `Finding` s."""
    if produced is None:
        return []
    name = getattr(layer, "layer", None) or getattr(layer, "__name__", type(layer).__name__)
    try:
        found = list(produced)
    except TypeError:
        raise TypeError(
            f"pipeline layer {index} ({name}) returned a {type_name(produced)}, not an iterable of "
            "Finding; a layer must return (or yield) zero or more ek.base.Finding objects."
        ) from None
    for item in found:
        if not isinstance(item, Finding):
            raise TypeError(
                f"pipeline layer {index} ({name}) yielded a {type_name(item)} ({item!r:.60}); a "
                "layer must yield ek.base.Finding objects. Wrap the message in "
                "Finding(field, layer, message=...)."
            )
    return found


# ---------------------------------------------------------------------------
# Correctors: L0 canonicalization, L2 closed lexicon, L5 gated LLM
# ---------------------------------------------------------------------------


def canonicalize_corrector(normalize: Any, *, field_name: str = "", layer: str = "canonicalize") -> Corrector:
    """L0: a corrector proposing the canonical form of a string when it differs.

    ``normalize`` is anything `ek.canonicalize.resolve_canonicalizer` takes: a
    registered step name, a list of steps, a callable or a `Canonicalizer`.
    Run it first so the later layers compare canonical forms. Values that
    are not strings pass untouched.

    Raises:
        ValueError: ``normalize`` is None.
        TypeError: ``normalize`` is not something a canonicalizer can be built from.

    >>> [f.suggestion for f in canonicalize_corrector(["strip", "lower"])("  ACME ")]
    ['acme']
    """
    if normalize is None:
        raise ValueError(
            "canonicalize_corrector() needs a normalizer, got None; pass a step name such as "
            "'collapse_whitespace', a list of steps, or a str -> str callable."
        )
    return CanonicalizeCorrector(resolve_canonicalizer(normalize), field_name, layer)


def lexicon_corrector(
    vocabulary: Iterable[str],
    *,
    threshold: float = DEFAULT_LEXICON_THRESHOLD,
    scorer: Any = None,
    field_name: str = "",
    layer: str = "lexicon",
    flag_unmatched: bool = True,
) -> Corrector:
    """L2: resolve a string to the nearest member of a closed vocabulary (rapidfuzz).

    A member of the vocabulary passes untouched. Otherwise the most similar
    member is proposed as a correction when its similarity is at least
    ``threshold`` and no other member ties with it; a tie is flagged as
    ambiguous, and a value with no member close enough is flagged as out
    of vocabulary (unless ``flag_unmatched=False``, the setting for an open
    vocabulary where a miss proves nothing).

    Args:
        vocabulary: the allowed values (country codes, SKUs, enum members).
        threshold: least similarity in [0, 1] for an automatic correction.
        scorer: a rapidfuzz similarity scorer, default ``rapidfuzz.fuzz.ratio``.
            Scorers on a 0-100 or a 0-1 scale both work.
        field_name: name put on the findings (default: the spec's name).
        layer: the findings' layer name.
        flag_unmatched: flag a value no member is close to.

    Raises:
        ValueError: an empty vocabulary, or ``threshold`` outside [0, 1].
        TypeError: ``vocabulary`` is a single string or holds non-strings.

    >>> fix = lexicon_corrector(["France", "Germany", "Spain"])
    >>> [(f.severity.value, f.suggestion) for f in fix("Frnace")]
    [('correct', 'France')]
    >>> [f.severity.value for f in fix("Atlantis")]
    ['flag']
    """
    from rapidfuzz import fuzz

    if isinstance(vocabulary, (str, bytes)):
        raise TypeError(
            f"lexicon_corrector() vocabulary is the single string {vocabulary!r:.40}; pass a "
            "list of allowed values, e.g. ['France', 'Spain']."
        )
    members = tuple(dict.fromkeys(vocabulary))
    if not members:
        raise ValueError(
            "lexicon_corrector() got an empty vocabulary, so every value would be flagged; "
            "pass the closed set of allowed values."
        )
    for m in members:
        if not isinstance(m, str):
            raise TypeError(
                f"lexicon_corrector() vocabulary holds a {type_name(m)} ({m!r:.40}); fuzzy "
                "matching compares strings, so convert the members with str() first."
            )
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0 <= threshold <= 1:
        raise ValueError(
            f"lexicon_corrector() threshold must be a similarity in [0, 1], got {threshold!r}; "
            f"the default is {DEFAULT_LEXICON_THRESHOLD}."
        )
    scorer = fuzz.ratio if scorer is None else scorer
    if not callable(scorer):
        raise TypeError(
            f"lexicon_corrector() scorer is a {type_name(scorer)}; pass a rapidfuzz scorer such "
            "as rapidfuzz.fuzz.ratio."
        )
    best = float(scorer("lexicon", "lexicon"))
    if not best > 0:
        raise ValueError(
            f"lexicon_corrector() scorer gives {best!r} for two identical strings; it must be a "
            "similarity (identical strings score highest), such as rapidfuzz.fuzz.ratio."
        )
    return LexiconCorrector(
        members, frozenset(members), float(threshold), scorer, best, field_name, layer, bool(flag_unmatched)
    )


def llm_corrector(
    correct_fn: Callable[[Any], Optional[str]],
    *,
    only_flagged: bool = True,
    field_name: str = "",
    layer: str = "llm_correct",
) -> Corrector:
    """L5: a gated corrector that asks an injected model for a fixed value.

    ``correct_fn(value)`` is your own LLM or seq2seq call; it returns the
    corrected string, or None to leave the value alone. It is the only layer
    that invents text, so with ``only_flagged`` (default) it runs only when
    an earlier layer of the same pass flagged the value: the pipeline hands
    it the findings so far (its ``wants_findings`` attribute asks for them).
    Called outside a pipeline with no findings, a gated corrector does
    nothing. Its proposal is a CORRECT finding; the pipeline keeps the
    original beside it, and you should still verify the rewrite downstream.

    A sketch with the Anthropic client: ``llm_corrector(lambda v: client.messages.create(
    model=..., max_tokens=64, messages=[{"role": "user", "content": prompt(v)}]).content[0].text.strip())``.

    Raises:
        TypeError: ``correct_fn`` is not callable; when run, it returned
            something other than a str or None.

    >>> fix = llm_corrector(lambda v: v.replace("0", "O"))
    >>> validation_pipeline(lexicon_corrector(["OSLO"], threshold=0.9), fix)("0SL0").value
    'OSLO'
    """
    if not callable(correct_fn):
        raise TypeError(
            f"llm_corrector() correct_fn is a {type_name(correct_fn)}; pass a callable "
            "value -> corrected str (or None to keep the value)."
        )
    return LlmCorrector(correct_fn, bool(only_flagged), field_name, layer)


# ---------------------------------------------------------------------------
# Validators: L3 language-model surprisal, cross-field, ordering
# ---------------------------------------------------------------------------


def lm_surprisal_validator(
    scorer: Callable[[str], float],
    *,
    threshold: float,
    higher_is_worse: bool = True,
    field_name: str = "",
    layer: str = "lm_prior",
) -> Layer:
    """L3: flag a string that an injected language model finds too unlikely.

    ``scorer(text)`` returns a surprisal, perplexity or negative
    log-likelihood; a value scoring above ``threshold`` is flagged. For a
    scorer returning a probability or log-probability (higher is better)
    set ``higher_is_worse=False``, and a score below ``threshold`` is
    flagged. An in-domain model makes this useful; with a masked LM via
    ``minicons``: ``m = scorer.MaskedLMScorer("bert-base-uncased", "cpu")`` and
    ``scorer=lambda s: -m.sequence_score(s)[0]``. Non-strings are skipped.
    Flags only: pair it with `lexicon_corrector` or `llm_corrector` to fix.

    Raises:
        TypeError: ``scorer`` is not callable; when run, it returned a non-number.
        ValueError: ``threshold`` is not a finite number; when run, the score is NaN.

    >>> check = lm_surprisal_validator(len, threshold=5)
    >>> [f.layer for f in check("gibberish")], list(check("fine"))
    (['lm_prior'], [])
    """
    if not callable(scorer):
        raise TypeError(
            f"lm_surprisal_validator() scorer is a {type_name(scorer)}; pass a callable "
            "str -> float returning surprisal (or a probability with higher_is_worse=False)."
        )
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not math.isfinite(threshold):
        raise ValueError(
            f"lm_surprisal_validator() threshold must be a finite number, got {threshold!r}; "
            "pick it on held-out clean values, e.g. their 99th percentile surprisal."
        )
    return SurprisalValidator(scorer, float(threshold), bool(higher_is_worse), field_name, layer)


def cross_field_validator(
    predicate: Callable[[Any], bool],
    *,
    message: str,
    fields: Iterable[str] = (),
    layer: str = "cross_field",
) -> Layer:
    """Flag a whole record when ``predicate(record)`` is false.

    A predicate that raises (a missing key, a None where a number was
    expected) is skipped silently: a partial record is not a cross-field
    violation. ``fields`` names the fields involved; the finding's ``field``
    is them joined with commas.

    Raises:
        TypeError: ``predicate`` is not callable or ``message`` is not a str.

    >>> check = cross_field_validator(lambda r: r["net"] <= r["gross"], message="net above gross",
    ...                               fields=("net", "gross"))
    >>> [f.field for f in check({"net": 12, "gross": 10})], list(check({"net": 1}))
    (['net,gross'], [])
    """
    if not callable(predicate):
        raise TypeError(
            f"cross_field_validator() predicate is a {type_name(predicate)}; pass a callable "
            "record -> bool that is True when the record is consistent."
        )
    if not isinstance(message, str) or not message:
        raise TypeError(
            f"cross_field_validator() message must be a non-empty str, got {message!r:.40}; "
            "say what is inconsistent, e.g. 'net amount exceeds gross amount'."
        )
    names = (fields,) if isinstance(fields, str) else tuple(fields)
    return CrossFieldValidator(predicate, message, names, layer)


def ordering_validator(keys: Iterable[str], *, strict: bool = True, layer: str = "cross_field") -> Layer:
    """Flag a record whose values at ``keys`` are out of ascending order.

    The date and sequence check: ``start`` before ``end``, ``issued`` before
    ``due``. With ``strict`` (default) equal neighbours are flagged too
    (each value must be smaller than the next); ``strict=False`` allows ties.
    Keys that are missing or None are skipped, and so is a pair of values
    that cannot be compared, so partial records are safe. One finding per
    out-of-order neighbouring pair.

    Raises:
        ValueError: fewer than two keys.
        TypeError: when run on something that is not a mapping.

    >>> check = ordering_validator(["issued", "due"])
    >>> [f.message for f in check({"issued": "2024-05-02", "due": "2024-04-30"})]
    ["issued ('2024-05-02') is not before due ('2024-04-30')"]
    """
    names = (keys,) if isinstance(keys, str) else tuple(keys)
    if len(names) < 2:
        raise ValueError(
            f"ordering_validator() needs at least two keys to compare, got {list(names)!r}; "
            "pass them in the order they must ascend, e.g. ['start', 'end']."
        )
    return OrderingValidator(names, bool(strict), layer)


# ---------------------------------------------------------------------------


def _differs(a: Any, b: Any) -> bool:
    try:
        return bool(a != b)
    except Exception:  # values whose comparison is not a plain bool (arrays)
        return a is not b
