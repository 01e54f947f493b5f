"""The metric contract (see `ek.metrics`), checked over every metric ek registers.

After sklearn's ``metrics/tests/test_common.py``. The metrics are listed from
a fresh interpreter that imports ``ek`` and ``ek.agents``, so the agent
metrics are included and nothing a test registers is. Every one of them
needs a pool of cases in ``CASES``; a metric registered without one fails
`test_every_registered_metric_has_cases`. For each metric:

* ``name`` is its registered name, ``higher_is_better`` a bool on the class,
  ``statistics`` detail keys every score carries as numbers;
* a perfect prediction scores best in the declared direction;
* ``aggregate`` is exactly ``compute`` of the summed statistics, also for
  float (weighted) totals;
* any split of a corpus merges to the whole, aggregate and per slice, checked
  against ``compute`` of statistics summed here by hand, and against a corpus
  figure made without ``compute`` (a reference library such as jiwer, seqeval,
  nervaluate or anls_star, or counts made here), so a constant ``compute``
  fails too;
* an empty corpus raises, and a bad input raises with a message.
"""

from __future__ import annotations

import itertools
import json
import math
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ek
from ek.agents.base import Episode, Step, Trajectory
from ek.base import MetricContract
from ek.metrics import as_metric
from ek.metrics.graphs import TypedEdge, TypedGraph, TypedNode
from ek.metrics.strings import StringMetric
from ek.metrics.tables import Table
from ek.registry import get


def _graph(amount="1", extra=False):
    nodes = [TypedNode("i", "invoice", {"total": amount}), TypedNode("l", "line", {"sku": "a"})]
    edges = [TypedEdge("i", "l", "has")]
    if extra:
        nodes.append(TypedNode("x", "line", {"sku": "b"}))
        edges.append(TypedEdge("i", "x", "has"))
    return TypedGraph(nodes, edges)


STRINGS = [("kitten", "sitting"), ("ab", "ab"), ("", "abc"), ("a b c", "a c"), ("hello wrld", "hello world"), ("x", "")]
RECORDS = [({"a": 1, "b": 2}, {"a": 1, "b": 3, "c": 4}), ({}, {"a": 1}), ({"a": 1}, {"a": 1}), ({"x": 1}, {}), ({}, {})]
TAGS = [
    (["B-PER", "I-PER", "O"], ["B-PER", "I-PER", "O"]),
    (["B-LOC", "O"], ["O", "O"]),
    (["O", "B-PER"], ["B-PER", "I-PER"]),
    (["O"], ["O"]),
    (["I-PER", "O"], ["B-PER", "O"]),
]
SPANS = [
    ([{"label": "ORG", "start": 1, "end": 1}], [{"label": "ORG", "start": 0, "end": 1}]),
    ([], [{"label": "PER", "start": 0, "end": 0}]),
    ([{"label": "PER", "start": 2, "end": 3}], [{"label": "LOC", "start": 2, "end": 3}]),
    ([{"label": "X", "start": 0, "end": 0}], [{"label": "X", "start": 0, "end": 0}]),
    ([], []),
]
TABLES = [
    ("<table><tr><td>a</td><td>b</td></tr></table>", "<table><tr><td>a</td><td>c</td></tr></table>"),
    ([["a", None], ["c", "d"]], [["a", "b"], ["c", "d"]]),
    ([["x"]], [["x", "y"], ["z", "w"]]),
    (Table(), [["a"]]),
]
ANSWERS = [
    ("Hello Wrld", "Hello World"),
    ({"a": "x", "b": ["p", "q"]}, {"a": "y", "b": ["p"]}),
    ("abc", ("abd", "x")),
    (["a", "b"], ["b", "a"]),
]
GRAPHS = [
    (_graph("2"), _graph("1")),
    (_graph(extra=True), _graph()),
    (TypedGraph(), _graph()),
    (_graph(), _graph()),
    (TypedGraph(), TypedGraph()),
]
SEARCH, ANSWER = Step("search", {"q": "cat"}), Step("answer", {"a": "meow"})
CALLS = [
    ([SEARCH, ANSWER], [SEARCH, ANSWER]),
    ([SEARCH, SEARCH, ANSWER], [SEARCH, ANSWER]),
    ([Step("search", {"q": "dog"})], [SEARCH]),
    ([], [ANSWER]),
    ([ANSWER, SEARCH], [SEARCH, ANSWER]),
    (Episode(trajectory=Trajectory([SEARCH])), [("search", {"q": "cat"})]),
    ([], []),
]
EPISODES = [
    (Episode(output="42"), "42"),
    (Episode(output="41"), "42"),
    (Episode(output=" Paris "), "paris"),
    (Episode(output=None), "x"),
]

PAGES = [("b one\na two", "a two\nb one"), ("Schlym\u0303", "Schly\u00f1"), ("", "abc"), ("x y", "x y z")]
WORDS = [
    ("lazy dog.", "lazy dog"),
    ("can\u2019t (stop)", "can\u2019t stop!"),
    ("3,14 m", "3.14 m"),
    ("", "a, b"),
    ("x", ""),
]

CASES = {
    "cer": STRINGS,
    "wer": STRINGS,
    "fields": RECORDS,
    "anls": ANSWERS,
    "cer_grapheme": STRINGS + PAGES,
    "fca": STRINGS + PAGES,
    "bow": STRINGS + PAGES,
    "wer_unicode": STRINGS + PAGES + WORDS,
    "span_f1_seqeval_conll": TAGS,
    "span_f1_seqeval_strict": TAGS,
    "span_f1_strict": SPANS,
    "span_f1_exact": SPANS,
    "span_f1_partial": SPANS,
    "span_f1_type": SPANS,
    "teds": TABLES,
    "teds_struct": TABLES,
    "grits": TABLES,
    "grits_top": TABLES,
    "typed_graph": GRAPHS,
    "typed_graph_bipartite": GRAPHS,
    "typed_graph_auto": GRAPHS,
    "tool_call": CALLS,
    "trajectory": CALLS,
    "task_success": EPISODES,
}

# A perfect prediction for a gold answer, where it is not the gold itself.
PERFECT = {
    "anls": lambda gold: gold[0] if isinstance(gold, tuple) else gold,  # tuples list gold alternatives
    "task_success": lambda gold: Episode(output=gold),
}

# task_success is left out: its default checker reads any value as an answer.
BAD = {
    "cer": ((1, "a"), TypeError, "compares strings"),
    "wer": (("a", None), TypeError, "compares strings"),
    "cer_grapheme": ((b"a", "a"), TypeError, "compares strings"),
    "wer_unicode": (("a", ["a"]), TypeError, "compares strings"),
    "fca": ((["a"], "a"), TypeError, "compares strings"),
    "bow": (("a", 3), TypeError, "compares strings"),
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
    "tool_call": (("search", [SEARCH]), TypeError, "pred is str; pass an Episode"),
    "trajectory": (([SEARCH], None), TypeError, "gold is None"),
}


def _registered_by_ek() -> list[str]:
    """The metric names a fresh ``import ek, ek.agents`` registers (entry points included)."""
    code = "import json, ek, ek.agents; print(json.dumps(list(ek.names('metrics'))))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


REGISTERED = _registered_by_ek()
NAMES = sorted(CASES)
# Metrics whose corpus figure is checked only through compute() of summed statistics.
# fca: its matching is the metric itself; tests/metrics/test_reading_order.py checks it by hand.
ORACLE_FREE = {"trajectory", "fca"}


def _totals(metric, scores):
    """The statistics summed here, independently of `ek._util.sum_detail`."""
    totals = dict.fromkeys(metric.statistics, 0)
    for s in scores:
        for k in metric.statistics:
            totals[k] += s.detail[k]
    return totals


def test_every_registered_metric_has_cases():
    assert {"cer", "fields", "typed_graph", "tool_call", "trajectory", "task_success"} <= set(REGISTERED)
    missing = sorted(set(REGISTERED) - set(CASES))
    assert not missing, (
        f"metrics {missing} are registered but have no contract cases; add a pool of (pred, gold) "
        "pairs for each to CASES in tests/metrics/test_common.py"
    )
    assert not set(CASES) - set(REGISTERED), "CASES names a metric ek no longer registers"


@pytest.mark.parametrize("name", NAMES)
def test_declared_contract(name):
    m = get("metrics", name)
    assert m.name == name
    assert ek.score(*CASES[name][0], metric=name).metric == name
    assert isinstance(type(m).higher_is_better, bool)
    assert isinstance(m.statistics, tuple) and m.statistics
    assert all(isinstance(k, str) for k in m.statistics)
    assert callable(m.compute) and callable(m.aggregate)


# What each registered metric declares for the pages: (unit, percent, reads_documents).
FACTS = {
    "cer": ("char", True, True),
    "cer_grapheme": ("grapheme", True, True),
    "wer": ("word", True, True),
    "wer_unicode": ("unicode_word", True, True),
    "fca": (None, True, True),
    "bow": (None, True, True),
    "fields": (None, True, False),
    "anls": (None, True, False),
    "teds": (None, True, False),
    "teds_struct": (None, True, False),
    "grits": (None, True, False),
    "grits_top": (None, True, False),
    "task_success": (None, True, False),
    "tool_call": (None, True, False),
    "trajectory": (None, True, False),
    **{
        f"span_f1_{s}": (None, True, False)
        for s in ("exact", "partial", "strict", "type", "seqeval_conll", "seqeval_strict")
    },
    **{n: (None, False, False) for n in ("typed_graph", "typed_graph_auto", "typed_graph_bipartite")},
}


@pytest.mark.parametrize("name", NAMES)
def test_every_registered_metric_satisfies_the_protocol(name):
    m = get("metrics", name)
    assert isinstance(m, MetricContract)
    assert as_metric(m) is m  # nothing to wrap: the facade uses the registered object itself
    assert m.aggregation == "statistics" and m.declared is True
    assert isinstance(m.higher_is_better, bool) and m.higher_is_better is type(m).higher_is_better
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in m.options.items())
    assert (m.unit, m.percent, m.reads_documents) == FACTS[name]


def test_every_registered_metric_declares_its_facts():
    assert set(FACTS) == set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_score_many_is_one_call_per_pair(name):
    m = get("metrics", name)
    pairs = CASES[name]
    batch = m.score_many([p for p, _ in pairs], [g for _, g in pairs])
    assert [s.value for s in batch] == [m(p, g).value for p, g in pairs]
    with pytest.raises(ValueError, match="one gold per prediction"):
        m.score_many([p for p, _ in pairs], [g for _, g in pairs][1:])


@pytest.mark.parametrize("name", NAMES)
def test_every_score_carries_the_statistics_as_numbers(name):
    m = get("metrics", name)
    for pred, gold in CASES[name]:
        s = m(pred, gold)
        # Direction belongs to the metric; the reference documents a copy on string scores only.
        assert s.detail.get("higher_is_better", type(m).higher_is_better) is type(m).higher_is_better
        if not isinstance(m, StringMetric):
            assert "higher_is_better" not in s.detail
        for k in m.statistics:
            v = s.detail[k]
            assert isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v), (name, k, v)


@pytest.mark.parametrize("name", NAMES)
def test_a_perfect_prediction_scores_best(name):
    m = get("metrics", name)
    best = 1.0 if type(m).higher_is_better else 0.0
    perfect = PERFECT.get(name, lambda gold: gold)
    pairs = [(perfect(gold), gold) for _, gold in CASES[name]]
    for pred, gold in pairs:
        assert m(pred, gold).value == pytest.approx(best), (name, gold)
    assert ek.evaluate(pairs, metric=name).aggregate == pytest.approx(best)


@pytest.mark.parametrize("name", NAMES)
def test_values_are_in_range(name):
    m = get("metrics", name)
    for pred, gold in CASES[name]:
        s = m(pred, gold)
        if name not in ("cer", "wer", "cer_grapheme", "wer_unicode", "bow"):  # error rates are unbounded above
            assert 0.0 <= s.value <= 1.0, (name, pred, gold, s.value)


@pytest.mark.parametrize("name", NAMES)
def test_aggregate_is_compute_of_the_summed_statistics(name):
    m = get("metrics", name)
    scores = [m(p, g) for p, g in CASES[name]]
    totals = _totals(m, scores)
    assert m.aggregate(scores) == m.compute(totals)
    # compute takes float (weighted) totals: weight 2 on every item is the corpus twice over
    doubled = {k: 2.0 * v for k, v in totals.items()}
    assert m.compute(doubled) == pytest.approx(m.aggregate(scores + scores))
    assert isinstance(m.compute(doubled), float)


@settings(max_examples=25, deadline=None)
@given(data=st.data())
@pytest.mark.parametrize("name", NAMES)
def test_any_split_merges_to_the_whole(name, data):
    m = get("metrics", name)
    pool = CASES[name]
    pairs = data.draw(st.lists(st.sampled_from(pool), min_size=1, max_size=8), label="corpus")
    labels = data.draw(st.lists(st.sampled_from(["a", "b", None]), min_size=len(pairs), max_size=len(pairs)))
    corpus = [(p, g) if label is None else (p, g, label) for (p, g), label in zip(pairs, labels)]
    cuts = sorted(data.draw(st.lists(st.integers(0, len(corpus)), max_size=3), label="cuts"))
    bounds = [0, *cuts, len(corpus)]
    parts = [corpus[a:b] for a, b in itertools.pairwise(bounds)]
    whole = ek.evaluate(corpus, metric=name)
    merged = ek.merge_reports(*[ek.evaluate(p, metric=name) for p in parts])
    assert merged.n == whole.n == len(corpus)
    assert merged.aggregate == pytest.approx(whole.aggregate)
    assert merged.per_slice == pytest.approx(dict(whole.per_slice))
    assert merged.detail["higher_is_better"] is type(m).higher_is_better
    assert merged.detail["aggregation"] == "statistics"
    # the oracle: compute() of statistics summed here, over the whole and over each slice
    scores = [m(*case[:2]) for case in corpus]
    assert merged.aggregate == pytest.approx(m.compute(_totals(m, scores)))
    for label in {case[2] for case in corpus if len(case) == 3}:
        part = [s for s, case in zip(scores, corpus) if len(case) == 3 and case[2] == label]
        assert merged.per_slice[label] == pytest.approx(m.compute(_totals(m, part)))
    # and compute() itself against a figure made without it (a constant compute passes the above)
    if name in ORACLE_FREE:
        return
    assert merged.aggregate == pytest.approx(_oracle(name, pairs))
    for label in {case[2] for case in corpus if len(case) == 3}:
        part = [case[:2] for case in corpus if len(case) == 3 and case[2] == label]
        assert merged.per_slice[label] == pytest.approx(_oracle(name, part))


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
    if name == "task_success":  # successes over episodes
        return sum(metric(p, g).value for p, g in corpus) / len(corpus)
    if name == "tool_call":  # pooled matched calls over pooled call counts, the counts made here
        sizes = [(_n_calls(p), len(g)) for p, g in corpus]
        matched = sum(metric(p, g).recall * n_gold for (p, g), (_, n_gold) in zip(corpus, sizes))
        total = sum(n_pred + n_gold for n_pred, n_gold in sizes)
        return 2 * matched / total if total else 1.0
    if name == "cer_grapheme":  # UAX #29 clusters (regex's \X), one edit distance over the cluster lists
        import regex
        from rapidfuzz.distance import Levenshtein

        clusters = [(regex.findall(r"\X", p.strip()), regex.findall(r"\X", g.strip())) for p, g in corpus]
        edits = sum(Levenshtein.distance(pc, gc) for pc, gc in clusters)
        ref = sum(len(gc) for _, gc in clusters)
        return edits / ref if ref else float(edits)
    if name == "wer_unicode":  # dinglehopper's words (uniseg's UAX #29 segmentation), one distance per pair
        import importlib

        from rapidfuzz.distance import Levenshtein

        words = importlib.import_module("dinglehopper.word_error_rate").words
        cut = [(list(words(p)), list(words(g))) for p, g in corpus]
        edits = sum(Levenshtein.distance(pw, gw) for pw, gw in cut)
        ref = sum(len(gw) for _, gw in cut)
        return edits / ref if ref else float(edits)
    if name == "bow":  # unmatched word counts, order ignored, over the gold word count
        from collections import Counter

        edits = ref = 0
        for p, g in corpus:
            pc, gc = Counter(p.split()), Counter(g.split())
            edits += max(sum(pc.values()), sum(gc.values())) - sum((pc & gc).values())
            ref += sum(gc.values())
        return edits / ref if ref else float(edits)
    raise AssertionError(f"no oracle for {name}")


def _slot_f1(preds, golds):
    """sklearn's F1 over one binary decision per (record, key, value)."""
    from sklearn.metrics import f1_score

    gold_slots = {(i, k, v) for i, r in enumerate(golds) for k, v in r.items()}
    pred_slots = {(i, k, v) for i, r in enumerate(preds) for k, v in r.items()}
    slots = sorted(gold_slots | pred_slots, key=repr)
    if not slots:
        return 1.0  # nothing to extract and nothing extracted
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
    result = Evaluator(golds, preds, tags=labels, loader="dict").evaluate()["overall"]
    result = result[{"type": "ent_type"}.get(scheme, scheme)]
    return 1.0 if result.actual == result.possible == 0 else result.f1


def _n_calls(pred):
    return len(pred.trajectory.steps) if isinstance(pred, Episode) else len(pred)


def _grid_size(table):
    return sum(len(row) for row in Table.coerce(table).as_grid())


def _graph_top(graph):
    """Cost of deleting the whole graph with every weight 1: nodes, their set fields, edges."""
    return sum(1 + sum(v is not None for v in n.fields.values()) for n in graph.nodes) + len(graph.edges)


@pytest.mark.parametrize("name", NAMES)
def test_an_empty_corpus_has_no_aggregate(name):
    # never a silent 0.0 or 1.0
    with pytest.raises(ValueError, match="no scores"):
        get("metrics", name).aggregate([])
    assert ek.evaluate([], metric=name).aggregate is None


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_input_raises_with_a_message(name):
    (pred, gold), exc, message = BAD[name]
    with pytest.raises(exc, match=message):
        get("metrics", name)(pred, gold)


def _unregistered():
    """ek's metric classes that need configuration, so none is registered."""
    from ek.agents.cost import per_million
    from ek.agents.judge import JudgeMetric
    from ek.agents.metrics import CostPerSuccessMetric

    judge = JudgeMetric(judge=lambda out, *, criteria, reference: float(out == reference))
    cost = CostPerSuccessMetric(price=per_million(1.0, 1.0))
    answers = [
        (Episode(output="a", cost=ek.agents.base.Cost(input_tokens=1_000_000)), "a"),
        (Episode(output="b", cost=ek.agents.base.Cost(input_tokens=3_000_000)), "a"),
    ]
    return [(judge, [("a", "a"), ("b", "a")], 0.5), (cost, answers, 4.0)]


@pytest.mark.parametrize("metric, pairs, expected", _unregistered(), ids=["judge", "cost_per_success"])
def test_the_configured_metrics_follow_the_contract(metric, pairs, expected):
    # judge: one of two answers right; cost per success: $4 spent for one success
    assert isinstance(type(metric).higher_is_better, bool)
    assert isinstance(metric, MetricContract) and as_metric(metric) is metric
    assert (metric.unit, metric.percent, metric.reads_documents) == (None, False, False)
    scores = [metric(p, g) for p, g in pairs]
    assert all(isinstance(s.detail[k], (int, float)) for s in scores for k in metric.statistics)
    assert metric.aggregate(scores) == metric.compute(_totals(metric, scores)) == pytest.approx(expected)
    report = ek.merge_reports(
        ek.evaluate(pairs[:1], metric=metric), ek.evaluate(pairs[1:], metric=metric), metric=metric
    )
    assert report.aggregate == metric.aggregate(scores)
    assert report.detail["higher_is_better"] is type(metric).higher_is_better
    with pytest.raises(ValueError, match="no scores"):
        metric.aggregate([])


def test_hand_worked_oracles():
    # figures worked out by hand, not through compute()
    cer = ek.evaluate([("kitten", "sitting"), ("ab", "ab")], metric="cer")
    assert cer.aggregate == pytest.approx(3 / 9)
    fields = ek.evaluate(RECORDS[:2], metric="fields")  # tp 1, fp 1, fn 3
    assert fields.aggregate == pytest.approx(2 * 1 / (2 * 1 + 1 + 3))
    tasks = ek.evaluate(EPISODES, metric="task_success")  # "42" and " Paris " pass
    assert tasks.aggregate == 0.5


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
