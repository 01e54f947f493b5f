"""Tests for ek.metrics.fields: field-level P/R/F1 for flat records."""

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.metrics import f1_score

from ek._util import prf
from ek.facade import evaluate, merge_reports
from ek.metrics.fields import FieldMetric

F = FieldMetric()


def test_hand_worked_counts():
    s = F({"a": 1, "b": 2}, {"a": 1, "b": 3, "c": 4})
    assert (s.detail["tp"], s.detail["fp"], s.detail["fn"]) == (1, 1, 2)
    assert s.precision == 0.5 and s.recall == pytest.approx(1 / 3)
    assert s.value == s.f1 == pytest.approx(0.4)
    assert s.detail["per_field"] == {"a": (1, 0, 0), "b": (0, 1, 1), "c": (0, 0, 1)}


def test_none_is_absent_and_extra_keys_are_false_positives():
    s = F({"a": None, "z": "x"}, {"a": None, "b": None})
    assert (s.detail["tp"], s.detail["fp"], s.detail["fn"]) == (0, 1, 0)
    assert s.value == 0.0


def test_degenerate_cases_are_decided_once():
    assert prf(0, 0, 0) == (1.0, 1.0, 1.0)  # nothing to extract, nothing extracted
    assert F({}, {}).value == 1.0
    assert prf(0, 0, 3) == (0.0, 0.0, 0.0)  # all missed
    assert prf(0, 2, 0) == (0.0, 0.0, 0.0)  # all spurious
    with pytest.raises(ValueError, match="empty corpus has no aggregate"):
        F.aggregate([])


def test_micro_average_sums_counts():
    scores = [F({"a": 1}, {"a": 1}), F({"a": 1, "b": 1}, {"a": 2, "b": 2, "c": 3, "d": 4})]
    # tp=1, fp=2, fn=4 -> 2 / (2 + 6)
    assert F.aggregate(scores) == pytest.approx(0.25)
    assert F.aggregate(scores) != pytest.approx((1.0 + 0.0) / 2)


def test_micro_f1_matches_sklearn_on_slot_labels():
    # Each (record, key, value) is one binary decision; sklearn's F1 over
    # them is the micro F1 of the corpus.
    preds = [{"a": 1, "b": 2}, {"a": 5, "c": 1}, {"b": 2}]
    golds = [{"a": 1, "b": 3}, {"a": 5, "c": 1, "d": 0}, {}]
    gold_set = {(i, k, v) for i, r in enumerate(golds) for k, v in r.items()}
    pred_set = {(i, k, v) for i, r in enumerate(preds) for k, v in r.items()}
    labels = sorted(gold_set | pred_set)
    expected = f1_score([x in gold_set for x in labels], [x in pred_set for x in labels])
    assert F.aggregate([F(p, g) for p, g in zip(preds, golds)]) == pytest.approx(expected)


def test_canonicalizer_only_touches_strings():
    m = FieldMetric(canonicalizer=str.casefold)
    s = m({"city": "PARIS", "n": 1}, {"city": "paris", "n": 1.0})
    assert s.detail["tp"] == 2


def test_bad_inputs():
    with pytest.raises(TypeError, match="pred is list"):
        F([1], {"a": 1})
    with pytest.raises(TypeError, match="gold is str"):
        F({"a": 1}, "a")
    with pytest.raises(ValueError, match="has no 'tp'"):
        F.aggregate([__import__("ek").score("a", "b")])


records = st.dictionaries(st.sampled_from("abcdef"), st.one_of(st.none(), st.integers(0, 3)), max_size=6)


@given(records)
def test_identical_records_score_one(r):
    assert F(r, r).value == 1.0


def _micro_f1(pairs):
    """Corpus F1 counted slot by slot: a (key, value) pair is right when both records hold it."""
    right = n_pred = n_gold = 0
    for pred, gold in pairs:
        p = {(k, v) for k, v in pred.items() if v is not None}
        g = {(k, v) for k, v in gold.items() if v is not None}
        right, n_pred, n_gold = right + len(p & g), n_pred + len(p), n_gold + len(g)
    return 1.0 if n_pred == n_gold == 0 else 2 * right / (n_pred + n_gold)


def test_micro_f1_oracle_by_hand():
    # right: a; predicted: a, b; gold: a, b, c -> 2 * 1 / (2 + 3)
    assert _micro_f1([({"a": 1, "b": 2}, {"a": 1, "b": 3, "c": 4})]) == pytest.approx(0.4)
    assert _micro_f1([({}, {}), ({"a": None}, {})]) == 1.0


@given(st.lists(st.tuples(records, records), min_size=1, max_size=10), st.data())
def test_any_split_merges_to_whole(pairs, data):
    k = data.draw(st.integers(0, len(pairs)))
    whole = evaluate(pairs, metric="fields")
    merged = merge_reports(evaluate(pairs[:k], metric="fields"), evaluate(pairs[k:], metric="fields"))
    assert merged == whole
    assert merged.aggregate == pytest.approx(_micro_f1(pairs))


# ---------------------------------------------------------------------------
# per-field normalizers from the grammar (issue 11, item 1)


def _grammar(**fields_by_node):
    from ek.base import FieldSpec, GraphGrammar, NodeType

    return GraphGrammar(
        node_types={
            node: NodeType(node, fields={name: FieldSpec(name, normalizer=norm) for name, norm in fields.items()})
            for node, fields in fields_by_node.items()
        }
    )


def test_a_field_normalizer_from_the_grammar_is_applied_to_both_sides():
    import ek

    g = _grammar(invoice={"city": "lower", "iban": "collapse_whitespace+lower", "note": None})
    pred = {"city": "PARIS", "iban": "DE89  3704", "note": "Hi", "zip": "75001"}
    gold = {"city": "Paris", "iban": "de89 3704", "note": "hi", "zip": "75001"}
    s = FieldMetric()(pred, gold, grammar=g)
    assert s.detail["per_field"] == {"city": (1, 0, 0), "iban": (1, 0, 0), "note": (0, 1, 1), "zip": (1, 0, 0)}
    assert FieldMetric()(pred, gold).detail["tp"] == 1  # without the grammar only zip matches
    assert ek.score(pred, gold, metric="fields", grammar=g).detail["tp"] == 3
    assert ek.score(pred, gold, grammar=g).detail["tp"] == 3  # dispatched by type
    assert ek.evaluate([(pred, gold)], grammar=g).aggregate == pytest.approx(prf(3, 4, 4)[2])


def test_the_field_normalizer_wins_over_normalize_for_the_fields_it_names():
    import ek

    g = _grammar(invoice={"city": "strip"})
    pred, gold = {"city": " Paris ", "name": "ACME"}, {"city": "Paris", "name": "acme"}
    s = ek.score(pred, gold, metric="fields", grammar=g, normalize="lower")
    assert s.detail["per_field"] == {"city": (1, 0, 0), "name": (1, 0, 0)}  # lower still serves "name"
    s = ek.score({"city": " PARIS "}, {"city": "paris"}, metric="fields", grammar=g, normalize="lower")
    assert s.detail["per_field"] == {"city": (0, 1, 1)}  # "strip" alone applies to city


def test_a_field_declared_in_several_node_types():
    g = _grammar(invoice={"city": "lower"}, customer={"city": "lower", "name": None}, line={"sku": "strip"})
    assert FieldMetric()({"city": "ROME", "sku": " x"}, {"city": "rome", "sku": "x"}, grammar=g).value == 1.0
    clash = _grammar(invoice={"city": "lower"}, customer={"city": "strip"})
    assert FieldMetric()({"zip": "1"}, {"zip": "1"}, grammar=clash).value == 1.0  # only keys present matter
    with pytest.raises(
        ValueError,
        match=r"field 'city' has different normalizers .*'lower' in node type\(s\) "
        r"'invoice'; 'strip' in node type\(s\) 'customer'",
    ):
        FieldMetric()({"city": "ROME"}, {"city": "rome"}, grammar=clash)


def test_field_normalizer_bad_inputs():
    with pytest.raises(KeyError, match="No 'normalizers' strategy is registered as 'nope'"):
        FieldMetric()({"city": "a"}, {"city": "a"}, grammar=_grammar(invoice={"city": "nope"}))
    with pytest.raises(TypeError, match="grammar must be a GraphGrammar, got dict"):
        FieldMetric()({"city": "a"}, {"city": "a"}, grammar={"city": "lower"})


# --------------------------------------------------------------------------
# issue 20, item 11: NaN is equal to NaN; booleans are not numbers
# --------------------------------------------------------------------------


def test_identical_records_holding_nan_score_one():
    record = {"total": float("nan"), "net": 1.5, "tax": 0.5, "vat": float("nan")}
    copy = {"total": float("nan"), "net": 1.5, "tax": 0.5, "vat": float("nan")}  # other NaN objects
    s = F(record, copy)
    assert (s.detail["tp"], s.detail["fp"], s.detail["fn"]) == (4, 0, 0) and s.value == 1.0
    nested = F(
        {"lines": [float("nan"), 2], "meta": {"x": float("nan")}},
        {"lines": [float("nan"), 2], "meta": {"x": float("nan")}},
    )
    assert nested.value == 1.0


def test_nan_against_a_number_is_wrong():
    s = F({"total": float("nan"), "net": 2}, {"total": 3.0, "net": 2})
    assert s.detail["per_field"] == {"total": (0, 1, 1), "net": (1, 0, 0)}
    assert F({"total": 3.0}, {"total": float("nan")}).value == 0.0


@pytest.mark.parametrize(
    "pred, gold", [(True, 1), (False, 0), (1, True), (0, False), (True, 1.0), ([True], [1]), ({"a": False}, {"a": 0})]
)
def test_booleans_and_numbers_are_different_values(pred, gold):
    s = F({"paid": pred}, {"paid": gold})
    assert s.detail["per_field"] == {"paid": (0, 1, 1)} and s.value == 0.0


def test_equal_values_of_one_kind_still_match():
    s = F(
        {"a": True, "b": False, "c": 1, "d": [1, "x"], "e": {"k": 2}},
        {"a": True, "b": False, "c": 1.0, "d": [1, "x"], "e": {"k": 2.0}},
    )
    assert s.value == 1.0
    assert F({"d": [1, 2]}, {"d": (1, 2)}).value == 0.0  # a list is not a tuple, as in Python
    assert F({"d": [1, 2]}, {"d": [1, 2, 3]}).value == 0.0


def test_json_true_and_one_through_evaluate():
    import json

    preds = [json.loads('{"paid": true, "n": 1}'), json.loads('{"x": NaN}')]
    golds = [json.loads('{"paid": 1, "n": 1}'), json.loads('{"x": NaN}')]
    report = evaluate(list(zip(preds, golds)), metric="fields")
    # tp = 1 (n) + 1 (x), fp = fn = 1 (paid): F1 = 2*2 / (2*2 + 1 + 1)
    assert report.aggregate == pytest.approx(4 / 6)
