"""Issue 31, items 3 to 8: joins by id, warnings on the command line, monitor inputs, standard input, messages."""

from __future__ import annotations

import dataclasses

import pytest

import ek

GOLD = ["the cat sat", "a dog ran", "birds sing", "fish swim"] * 25
PRED = [g.replace("a", "o") for g in GOLD]


def _audit(ids: object = None) -> ek.Report:
    return ek.evaluate(list(zip(PRED[::5], GOLD[::5])), metric="cer", ids=ids)  # type: ignore[arg-type]


# --- item 3: joins by id ----------------------------------------------------------------------------------


def test_an_audit_without_ids_is_refused_naming_ids() -> None:
    proxy = ek.agreement_proxy(PRED, [g.replace("i", "e") for g in GOLD], ids=range(100))
    with pytest.raises(ValueError) as caught:
        ek.estimate_corpus(proxy, _audit(), lam=1)
    assert str(caught.value) == (
        "estimate_corpus() got an audit of 20 items without ids, so its items would be joined to the corpus's "
        "by position; pass ids= to ek.evaluate for the audit (the corpus ids of the items audited)."
    )


def test_a_proxy_without_ids_is_refused_against_an_audit_of_named_ids() -> None:
    proxy = ek.agreement_proxy(PRED, GOLD)
    with pytest.raises(ValueError) as caught:
        ek.estimate_corpus(proxy, _audit([f"x{i}" for i in range(20)]))
    assert str(caught.value) == (
        "estimate_corpus() got a proxy of 100 items without ids (numbered 0 to 99) and an audit with ids such as "
        "'x0'; pass ids= to the proxy (ek.agreement_proxy, ek.confidence_proxy, ek.evaluate) so both name items "
        "alike."
    )


def test_positions_given_as_ids_join_as_ids_do() -> None:
    """The true CER of the audited items is what the audit alone reports; positions or ids, the same figure."""
    stand_in = [g.replace("i", "e") for g in GOLD]
    by_position = ek.estimate_corpus(ek.agreement_proxy(PRED, stand_in), _audit(range(0, 100, 5)), lam=1)
    by_id = ek.estimate_corpus(ek.agreement_proxy(PRED, stand_in, ids=range(100)), _audit(range(0, 100, 5)), lam=1)
    assert by_position.estimate == by_id.estimate
    whole = ek.estimate_corpus(ek.agreement_proxy(PRED, stand_in), ek.evaluate(list(zip(PRED, GOLD)), metric="cer"))
    assert whole.n == whole.N == 100


def _twice(report: ek.Report) -> ek.Report:
    return dataclasses.replace(report, detail={**report.detail, "ids": (5,) * report.n})


def test_repeated_ids_are_refused_by_estimate_compare_and_merge() -> None:
    proxy = ek.agreement_proxy(PRED, GOLD, ids=range(100))
    bad = _twice(_audit(range(0, 100, 5)))
    with pytest.raises(ValueError) as caught:
        ek.estimate_corpus(proxy, bad)
    assert str(caught.value) == (
        "estimate_corpus(): the audit holds the id 5 twice (items 0 and 1); every item needs its own id, or the "
        "audit cannot be joined to the corpus. Give each item one id."
    )
    with pytest.raises(ValueError, match=r"^compare\(\) report B ids hold 5 twice \(items 0 and 1\); every item"):
        ek.compare(_audit(range(20)), bad)
    with pytest.raises(ValueError, match=r"^merge_reports\(\) report 0 ids hold 5 twice \(items 0 and 1\)"):
        ek.merge_reports(bad)


def test_agreement_proxy_refuses_slices_of_another_count() -> None:
    with pytest.raises(ValueError) as caught:
        ek.agreement_proxy(["a", "b"], ["a", "b"], slices=["x", "y", "z"])
    assert str(caught.value) == (
        "agreement_proxy() got 2 predictions and 2 references, and 3 slices; give one of each per item, in the same "
        "order."
    )
