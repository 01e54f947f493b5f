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
`ek.estimate_quality` runs its ``validators=`` through this same pipeline.

Three registry namespaces sound alike: ``"validators"`` holds layers like
these (``value -> findings``), ``"checks"`` holds the checksum predicates of
`ek.qe.verifiers` (``value -> bool``), and ``"checkers"`` (in `ek.agents`)
holds agent success checkers, which have nothing to do with validation.

>>> fix = validation_pipeline(canonicalize_corrector("strip"),
...                           lexicon_corrector(["France", "Spain"]))
>>> r = fix("  Frnace ")
>>> r.original, r.value, [f.layer for f in r.findings]
('  Frnace ', 'France', ['canonicalize', 'lexicon'])

Errors: building a layer with a bad setting raises ``ValueError`` (bad
number) or ``TypeError`` (wrong kind of object); a layer that yields
something other than a `Finding` raises ``TypeError`` when the pipeline runs.

The code lives in private modules: `_pipeline` (the pipeline and its
result), `_factories` (the layer factories), `_layers` (the layer objects)
and `_anomaly` (the column checks); every public name is presented here.
"""

from ek._util import rehome
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
from ek.validate._anomaly import (
    BENFORD_EXPECTED,
    DEFAULT_BENFORD_MIN_N,
    DEFAULT_BENFORD_TOL,
    DEFAULT_ZSCORE_THRESHOLD,
    benford_findings,
    zscore_anomaly_findings,
)
from ek.validate._factories import (
    DEFAULT_LEXICON_THRESHOLD,
    canonicalize_corrector,
    cross_field_validator,
    lexicon_corrector,
    llm_corrector,
    lm_surprisal_validator,
    ordering_validator,
)
from ek.validate._pipeline import (
    Corrector,
    Layer,
    ValidationResult,
    stop_on_correction,
    stop_on_flag,
    validate,
    validation_pipeline,
)

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

# The objects of the private modules report this documented home; the re-exported
# verifiers keep theirs (ek.qe.verifiers), where the reference documents them.
rehome(globals())
