"""The TypedDicts of `ek.CorpusEstimate`'s dict-valued fields name exactly the keys the estimate produces."""

from __future__ import annotations

import typing

import pytest

import ek
from ek._ppi._values import Classical, CorpusEstimate, Entry, NotedEntry

pytest.importorskip("numpy")


def _sliced_estimate() -> CorpusEstimate:
    # slice a: 4 audited items (an interval, noted "below 40"), b: 1 (no interval), c: none
    cases = [("ab", "ab", "a"), ("ax", "ab", "a"), ("ab", "ab", "b"), ("xb", "ab", "b"), ("ab", "ab", "c")] * 10
    proxy = ek.evaluate(cases, metric="cer", ids=list(range(len(cases))))
    audited = [0, 1, 5, 6, 2]
    audit = ek.evaluate([cases[k] for k in audited], metric="cer", ids=audited)
    return ek.estimate_corpus(proxy, audit)


def test_the_field_hints_name_the_typed_dicts():
    hints = typing.get_type_hints(CorpusEstimate)
    assert hints["classical"] is Classical
    assert typing.get_args(hints["per_slice"])[1] is NotedEntry


def test_classical_and_every_slice_hold_the_declared_keys():
    est = _sliced_estimate()
    assert set(est.classical) == Classical.__required_keys__ == {"estimate", "interval"}
    assert set(est.per_slice) == {"a", "b", "c"}
    for entry in est.per_slice.values():
        assert set(entry) - {"note"} == Entry.__required_keys__
        assert set(entry["classical"]) == Classical.__required_keys__
    assert NotedEntry.__optional_keys__ == {"note"}
    assert {label for label, entry in est.per_slice.items() if "note" in entry} == {"a", "b", "c"}
