"""Contract tests over every metric registered by ek.metrics (after sklearn's test_common).

For each registered name: identical pred and gold give the best value, the
aggregate of any split of a corpus merged with `ek.merge_reports` equals the
aggregate of the whole, a bad input raises with a message, and the registered
name is the metric's own ``name`` (which `merge_reports` relies on).
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ek
from ek.metrics.graphs import TypedEdge, TypedGraph, TypedNode
from ek.metrics.tables import Table
from ek.registry import get, names


def _graph(amount="1", extra=False):
    nodes = [TypedNode("i", "invoice", {"total": amount}), TypedNode("l", "line", {"sku": "a"})]
    edges = [TypedEdge("i", "l", "has")]
    if extra:
        nodes.append(TypedNode("x", "line", {"sku": "b"}))
        edges.append(TypedEdge("i", "x", "has"))
    return TypedGraph(nodes, edges)


STRINGS = [("kitten", "sitting"), ("ab", "ab"), ("", "abc"), ("a b c", "a c"), ("hello wrld", "hello world")]
RECORDS = [({"a": 1, "b": 2}, {"a": 1, "b": 3, "c": 4}), ({}, {"a": 1}), ({"a": 1}, {"a": 1}), ({"x": 1}, {})]
TAGS = [(["B-PER", "I-PER", "O"], ["B-PER", "I-PER", "O"]), (["B-LOC", "O"], ["O", "O"]),
        (["O", "B-PER"], ["B-PER", "I-PER"]), (["O"], ["O"]), (["I-PER", "O"], ["B-PER", "O"])]
SPANS = [([{"label": "ORG", "start": 1, "end": 1}], [{"label": "ORG", "start": 0, "end": 1}]),
         ([], [{"label": "PER", "start": 0, "end": 0}]),
         ([{"label": "PER", "start": 2, "end": 3}], [{"label": "LOC", "start": 2, "end": 3}]),
         ([{"label": "X", "start": 0, "end": 0}], [{"label": "X", "start": 0, "end": 0}])]
TABLES = [
    ("<table><tr><td>a</td><td>b</td></tr></table>", "<table><tr><td>a</td><td>c</td></tr></table>"),
    ([["a", None], ["c", "d"]], [["a", "b"], ["c", "d"]]),
    ([["x"]], [["x", "y"], ["z", "w"]]),
    (Table(), [["a"]]),
]
ANSWERS = [("Hello Wrld", "Hello World"), ({"a": "x", "b": ["p", "q"]}, {"a": "y", "b": ["p"]}), ("abc", ("abd", "x")),
           (["a", "b"], ["b", "a"])]
GRAPHS = [(_graph("2"), _graph("1")), (_graph(extra=True), _graph()), (TypedGraph(), _graph()), (_graph(), _graph())]

CASES = {
    "cer": STRINGS, "wer": STRINGS, "fields": RECORDS, "anls": ANSWERS,
    "span_f1_seqeval_conll": TAGS, "span_f1_seqeval_strict": TAGS,
    "span_f1_strict": SPANS, "span_f1_exact": SPANS, "span_f1_partial": SPANS, "span_f1_type": SPANS,
    "teds": TABLES, "teds_struct": TABLES, "grits": TABLES, "grits_top": TABLES,
    "typed_graph": GRAPHS, "typed_graph_bipartite": GRAPHS, "typed_graph_auto": GRAPHS,
}

BAD = {
    "cer": ((1, "a"), TypeError, "compares strings"),
    "wer": (("a", None), TypeError, "compares strings"),
    "fields": (("a", {}), TypeError, "compares two dict records"),
    "anls": (({1, 2}, "a"), TypeError, "is set"),
    "span_f1_seqeval_conll": ((["O"], ["O", "O"]), ValueError, "pred has 1 tags but gold has 2"),
    "span_f1_seqeval_strict": ((["O"], ["O", "O"]), ValueError, "pred has 1 tags but gold has 2"),
    "span_f1_strict": (([{"label": 1, "start": 0, "end": 0}], []), ValueError, "not a valid span"),
    "span_f1_exact": (("x", []), TypeError, "take a list of"),
    "span_f1_partial": (([{"start": 0}], []), TypeError, "'label', 'start' and 'end'"),
    "span_f1_type": (([], [{"label": "X", "start": 2, "end": 1}]), ValueError, "not a valid span"),
    "teds": (("<div>no table</div>", [["a"]]), ValueError, "no <table> element"),
    "teds_struct": (("<table><td>x</td></table>", [["a"]]), ValueError, "outside any <tr>"),
    "grits": (([[None]], [["a"]]), ValueError, "no cell to its left or above"),
    "grits_top": ((5, [["a"]]), TypeError, "Cannot read a table"),
    "typed_graph": (({"a": 1}, _graph()), TypeError, "compares two TypedGraphs"),
    "typed_graph_bipartite": ((_graph(), [1]), TypeError, "compares two TypedGraphs"),
    "typed_graph_auto": ((None, _graph()), TypeError, "compares two TypedGraphs"),
}


def _ek_metrics() -> list[str]:
    return [n for n in names("metrics") if type(get("metrics", n)).__module__.startswith("ek.metrics")]


def test_every_registered_metric_has_cases():
    missing = sorted(set(_ek_metrics()) - set(CASES))
    assert not missing, f"add contract cases for {missing}"


@pytest.mark.parametrize("name", sorted(CASES))
def test_registered_name_is_the_metric_name(name):
    assert get("metrics", name).name == name
    assert ek.score(*CASES[name][0], metric=name).metric == name


@pytest.mark.parametrize("name", sorted(CASES))
def test_identical_pred_and_gold_give_the_best_value(name):
    m = get("metrics", name)
    for _, gold in CASES[name]:
        if name == "anls" and isinstance(gold, tuple):
            continue  # tuples are gold-only alternatives in ANLS*
        s = m(gold, gold)
        best = 1.0 if s.detail["higher_is_better"] else 0.0
        assert s.value == pytest.approx(best), (name, gold)


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_are_in_range_and_direction_is_declared(name):
    m = get("metrics", name)
    for pred, gold in CASES[name]:
        s = m(pred, gold)
        assert isinstance(s.detail["higher_is_better"], bool)
        if name not in ("cer", "wer"):  # error rates are unbounded above
            assert 0.0 <= s.value <= 1.0, (name, pred, gold, s.value)


@settings(max_examples=25, deadline=None)
@given(data=st.data())
@pytest.mark.parametrize("name", sorted(CASES))
def test_any_split_merges_to_the_whole(name, data):
    pool = CASES[name]
    corpus = data.draw(st.lists(st.sampled_from(pool), min_size=1, max_size=8), label="corpus")
    cuts = sorted(data.draw(st.lists(st.integers(0, len(corpus)), max_size=3), label="cuts"))
    bounds = [0, *cuts, len(corpus)]
    parts = [corpus[a:b] for a, b in zip(bounds, bounds[1:])]
    whole = ek.evaluate(corpus, metric=name)
    merged = ek.merge_reports(*[ek.evaluate(p, metric=name) for p in parts])
    assert merged.n == whole.n == len(corpus)
    assert merged.aggregate == pytest.approx(whole.aggregate)
    assert whole.aggregate == pytest.approx(get("metrics", name).aggregate(whole.scores))
    assert merged.aggregate == pytest.approx(_oracle(name, corpus))


# ---------------------------------------------------------------------------
# the corpus figure of each metric, computed without its aggregate


def _oracle(name, corpus):
    """A reference library's corpus figure, or one pooled here from counts made here."""
    preds, golds = [p for p, _ in corpus], [g for _, g in corpus]
    if name in ("cer", "wer"):
        import jiwer

        return getattr(jiwer, name)(reference=golds, hypothesis=preds)
    if name == "fields":
        return _slot_f1(preds, golds)
    if name.startswith("span_f1_seqeval"):
        return _seqeval_f1(preds, golds, strict=name.endswith("strict"))
    if name.startswith("span_f1_"):
        return _nervaluate_f1(preds, golds, name.removeprefix("span_f1_"))
    if name == "anls":
        from anls_star import anls_score

        return sum(anls_score(g, p) for p, g in corpus) / len(corpus)
    metric = get("metrics", name)
    if name.startswith("teds"):  # the mean of per-table TEDS, each checked against apted in test_tables
        return sum(metric(p, g).value for p, g in corpus) / len(corpus)
    if name.startswith("grits"):  # pooled overlap over pooled grid sizes
        sizes = [(_grid_size(p), _grid_size(g)) for p, g in corpus]
        overlap = sum(metric(p, g).recall * n_gold for (p, g), (_, n_gold) in zip(corpus, sizes))
        total = sum(n_pred + n_gold for n_pred, n_gold in sizes)
        return 2 * overlap / total if total else 1.0
    if name.startswith("typed_graph"):  # pooled distance over pooled maxima, the maxima counted here
        tops = [_graph_top(p) + _graph_top(g) for p, g in corpus]
        raw = sum(metric(p, g).value * top for (p, g), top in zip(corpus, tops))
        return raw / sum(tops) if sum(tops) else 0.0
    raise AssertionError(f"no oracle for {name}")


def _slot_f1(preds, golds):
    """sklearn's F1 over one binary decision per (record, key, value)."""
    from sklearn.metrics import f1_score

    gold_slots = {(i, k, v) for i, r in enumerate(golds) for k, v in r.items()}
    pred_slots = {(i, k, v) for i, r in enumerate(preds) for k, v in r.items()}
    slots = sorted(gold_slots | pred_slots, key=repr)
    return f1_score([s in gold_slots for s in slots], [s in pred_slots for s in slots], zero_division=1.0)


def _seqeval_f1(preds, golds, *, strict):
    import warnings

    from seqeval.metrics import f1_score
    from seqeval.scheme import IOB2

    options = {"mode": "strict", "scheme": IOB2} if strict else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # seqeval warns on a corpus without entities
        return f1_score(golds, preds, zero_division=1, **options)


def _nervaluate_f1(preds, golds, scheme):
    from nervaluate import Evaluator

    labels = sorted({s["label"] for doc in preds + golds for s in doc})
    result = Evaluator(golds, preds, tags=labels).evaluate()["overall"][{"type": "ent_type"}.get(scheme, scheme)]
    return 1.0 if result.actual == result.possible == 0 else result.f1


def _grid_size(table):
    return sum(len(row) for row in Table.coerce(table).as_grid())


def _graph_top(graph):
    """Cost of deleting the whole graph with every weight 1: nodes, their set fields, edges."""
    return sum(1 + sum(v is not None for v in n.fields.values()) for n in graph.nodes) + len(graph.edges)


@pytest.mark.parametrize("name", sorted(CASES))
def test_aggregate_of_an_empty_corpus_raises(name):
    # an empty corpus has no aggregate: never a silent 0.0 or 1.0
    with pytest.raises(ValueError, match="no scores"):
        get("metrics", name).aggregate([])


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_input_raises_with_a_message(name):
    (pred, gold), exc, message = BAD[name]
    with pytest.raises(exc, match=message):
        get("metrics", name)(pred, gold)


def test_importing_ek_loads_no_metric_backend():
    code = (
        "import sys, ek, ek.metrics\n"
        "ek.TypedGraphMetric(); ek.SpanF1Metric(ek.MatchScheme.STRICT); ek.TedsMetric(); ek.AnlsMetric()\n"
        "heavy = [m for m in ('numpy', 'scipy', 'networkx', 'apted', 'seqeval', 'nervaluate', 'anls_star',"
        " 'html.parser') if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
