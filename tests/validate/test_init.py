"""The public surface of the ek.validate package (ek/validate/__init__.py)."""

import inspect
import pathlib

import ek.qe.verifiers
import ek.validate as V

SPEC_NAMES = {
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
    "cross_field_validator",
    "lexicon_corrector",
    "llm_corrector",
    "lm_surprisal_validator",
    "ordering_validator",
    "stop_on_correction",
    "stop_on_flag",
    "validate",
    "validation_pipeline",
    "zscore_anomaly_findings",
}
# the module docstring of the spec says the deterministic verifiers are re-exported here
RE_EXPORTED = {
    "checksum_validator",
    "enum_validator",
    "iban_check",
    "isbn_check",
    "luhn_check",
    "range_validator",
    "regex_validator",
    "schema_validator",
    "totals_consistent",
}


def test_all_is_exactly_the_documented_names():
    assert set(V.__all__) == SPEC_NAMES | RE_EXPORTED
    assert all(hasattr(V, n) for n in V.__all__)


def test_every_public_object_reports_its_documented_home():
    for name in SPEC_NAMES:
        obj = getattr(V, name)
        if isinstance(obj, type) or inspect.isfunction(obj):  # not the constants or the Layer alias
            assert obj.__module__ == "ek.validate", name
    for name in RE_EXPORTED:
        assert getattr(V, name).__module__ == "ek.qe.verifiers", name


def test_the_old_root_helpers_are_gone():
    root = pathlib.Path(V.__file__).parent.parent
    assert not (root / "_layers.py").exists() and not (root / "_anomaly.py").exists()
    assert not (root / "validate.py").exists()


def test_verifier_objects_are_shared_not_copied():
    assert V.checksum_validator is ek.qe.verifiers.checksum_validator
