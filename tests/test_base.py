"""Tests for ek.base: the data model and its invariants."""

import dataclasses
import math

import pytest

from ek.base import (
    AnnotatedExtraction,
    Calibrator,
    Decision,
    DecisionPolicy,
    EdgeType,
    FieldEstimate,
    FieldSpec,
    Finding,
    GraphGrammar,
    Metric,
    NodePath,
    NodeType,
    Provenance,
    QualityReport,
    Report,
    Score,
    Severity,
    Signal,
    TypeRef,
    Validator,
    default_cost_weight,
)


@pytest.fixture
def grammar():
    return GraphGrammar(
        node_types={
            "invoice": NodeType(
                "invoice", fields={"total": FieldSpec("total", "number", importance=10.0)}, importance=3.0
            ),
        },
        edge_types={"has_item": EdgeType("has_item", "invoice", "item", importance=2.5)},
    )


def test_costs_read_importance_and_default_to_one(grammar):
    assert grammar.field_cost("invoice", "total") == 10.0
    assert grammar.field_cost("invoice", "date") == 1.0
    assert grammar.field_cost("unknown", "x") == 1.0
    assert grammar.node_cost("invoice") == 3.0
    assert grammar.node_cost("item") == 1.0
    assert grammar.edge_cost("has_item") == 2.5
    assert grammar.edge_cost("other") == 1.0


def test_default_cost_weight_dispatches_on_kind(grammar):
    assert default_cost_weight(grammar, TypeRef("node", "invoice")) == 3.0
    assert default_cost_weight(grammar, TypeRef("edge", "has_item")) == 2.5
    assert default_cost_weight(grammar, TypeRef("field", "invoice", "total")) == 10.0


def test_values_are_frozen(grammar):
    with pytest.raises(dataclasses.FrozenInstanceError):
        grammar.node_types = {}
    with pytest.raises(TypeError):
        grammar.node_types["x"] = NodeType("x")  # the mapping is read-only too
    spec = FieldSpec("a")
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.importance = 2.0


def test_grammar_copies_its_input():
    fields = {"a": FieldSpec("a", importance=2.0)}
    node = NodeType("n", fields=fields)
    fields["a"] = FieldSpec("a", importance=99.0)
    assert node.fields["a"].importance == 2.0


def test_bad_importance_is_refused():
    with pytest.raises(ValueError, match="finite number >= 0"):
        FieldSpec("amount", importance=-1.0)
    with pytest.raises(ValueError, match="finite number >= 0"):
        NodeType("n", importance=math.nan)
    with pytest.raises(TypeError, match="must be a number"):
        EdgeType("e", "a", "b", importance="high")


def test_typeref_validates_kind_and_field():
    with pytest.raises(ValueError, match="'node', 'edge' or 'field'"):
        TypeRef("nodes", "x")
    with pytest.raises(ValueError, match="needs field="):
        TypeRef("field", "invoice")


def test_score_float_and_defaults():
    s = Score(0.25, metric="cer", detail={"edits": 1, "ref_len": 4})
    assert float(s) == 0.25
    assert s.precision is s.recall is s.f1 is None


def test_report_defaults_are_empty():
    r = Report()
    assert (r.metric, r.aggregate, r.n, tuple(r.scores), dict(r.per_slice)) == ("", None, 0, (), {})


def test_enums_are_strings():
    assert Decision.BLOCK == "block" and Decision("accept") is Decision.ACCEPT
    assert Severity.CORRECT == "correct" and Severity("flag") is Severity.FLAG


def test_field_estimate_rejects_nan_confidence():
    with pytest.raises(ValueError, match="finite number or None"):
        FieldEstimate("x", confidence=math.nan)
    fe = FieldEstimate("x", raw_signals={"agreement": 0.9}, findings=[Finding("x", "L1")])
    assert fe.findings == (Finding("x", "L1"),)
    assert fe.raw_signals["agreement"] == 0.9


def test_annotated_extraction_keys_by_node_path(grammar):
    path = NodePath("inv-1", "invoice", "total")
    ax = AnnotatedExtraction(grammar, {path: FieldEstimate(12.5, provenance=Provenance(engine="x"))})
    assert ax.estimates[path].value == 12.5
    assert ax.grammar is grammar
    assert QualityReport().per_field is None


def test_protocols_are_structural():
    def metric(pred, gold, *, grammar=None):
        return Score(1.0)

    class Gate:
        def __call__(self, confidence):
            return Decision.ACCEPT

    class Cal:
        def fit(self, scores, correct):
            return self

        def __call__(self, score):
            return score

    class Sig:
        cost_tier = 1

        def __call__(self, target):
            return 0.5

    assert isinstance(metric, Metric)
    assert isinstance(Gate(), DecisionPolicy)
    assert isinstance(Cal(), Calibrator)
    assert isinstance(Sig(), Signal)
    assert isinstance(lambda value, *, spec=None: (), Validator)
    assert not isinstance(object(), Calibrator)


def test_values_with_frozen_mappings_pickle_for_process_pools_and_dask():
    # MappingProxyType cannot be pickled; the values holding one pickle as plain dicts and refreeze.
    import pickle

    import cloudpickle

    from ek.base import AnnotatedExtraction, FieldEstimate, FieldSpec, GraphGrammar, NodePath, NodeType

    grammar = GraphGrammar(node_types={"inv": NodeType("inv", fields={"t": FieldSpec("t", "number", importance=3.0)})})
    extraction = AnnotatedExtraction(grammar, {NodePath("i1", "inv", "t"): FieldEstimate(12, raw_signals={"j": 0.5})})
    for value in (grammar, extraction):
        for dumps, loads in ((pickle.dumps, pickle.loads), (cloudpickle.dumps, cloudpickle.loads)):
            back = loads(dumps(value))
            assert back == value
            back_grammar = back if isinstance(back, GraphGrammar) else back.grammar
            with pytest.raises(TypeError):  # frozen again after the round trip
                back_grammar.node_types["x"] = None
