"""Tests for ek.facade: dispatch, corpus aggregation, slices and merging."""

from dataclasses import dataclass, field
from types import MappingProxyType

import jiwer
import pytest
from hypothesis import given
from hypothesis import strategies as st

import ek
from ek import registry
from ek._util import DispatchRule
from ek.agents.base import Episode
from ek.base import Report, Score
from ek.facade import evaluate, merge_reports, score
from ek.metrics import FieldMetric, StringMetric, SummedStatistics, Table


@dataclass
class Page:
    text: str


def test_type_dispatch():
    assert score("hello wrld", "hello world").metric == "cer"
    assert score({"a": 1}, {"a": 1}).metric == "fields"
    s = score(Page("hello wrld"), Page("hello world"))
    assert s.metric == "cer" and s.value == pytest.approx(1 / 11)


def test_named_and_callable_metrics():
    assert score("hello wrld", "hello world", metric="wer").value == 0.5
    assert score(Page("a b"), Page("a c"), metric="wer").value == 0.5

    def exact(pred, gold, *, grammar=None):
        return float(pred == gold)

    s = score("a", "a", metric=exact)
    assert s == Score(1.0, metric="exact")
    assert score("x", "y", metric=StringMetric("wer")).metric == "wer"


def test_normalize_reaches_the_metric():
    assert score("HELLO  World", "hello world", normalize="lower").value > 0
    assert score("HELLO  World", "hello world", normalize=["lower", "collapse_whitespace"]).value == 0
    assert score({"c": "PARIS "}, {"c": "paris"}, normalize=ek.default_canonicalizer()).value == 1.0


def test_grammar_is_passed_through():
    seen = {}

    def spy(pred, gold, *, grammar=None):
        seen["grammar"] = grammar
        return 1.0

    g = ek.GraphGrammar()
    score("a", "b", metric=spy, grammar=g)
    assert seen["grammar"] is g


def test_bad_inputs():
    with pytest.raises(TypeError, match="got None as pred"):
        score(None, "x")
    with pytest.raises(TypeError, match="pred is str but gold is dict"):
        score("a", {"a": 1})
    with pytest.raises(TypeError, match="CER compares strings, but pred is int"):
        score(3, "3", metric="cer")
    with pytest.raises(KeyError, match="Registered names: .*'cer'.*'fields'.*'wer'"):
        score("a", "b", metric="bleu")
    with pytest.raises(TypeError, match="no default metric for int"):
        score(1, 2)
    with pytest.raises(TypeError, match="does not take weights="):
        score("a", "b", weights=lambda g, r: 1.0)
    with pytest.raises(TypeError, match="must return a Score or a number"):
        score("a", "b", metric=lambda p, g, *, grammar=None: "good")
    with pytest.raises(TypeError, match="metric must be a registered name"):
        score("a", "b", metric=3)


def test_evaluate_empty_corpus():
    r = evaluate([])
    assert (r.n, r.aggregate, tuple(r.scores), dict(r.per_slice)) == (0, None, (), {})
    assert evaluate([], metric="wer").metric == "wer"


def test_evaluate_malformed_cases():
    with pytest.raises(ValueError, match=r"item 1 has 4 elements.*zip\(preds, golds\)"):
        evaluate([("a", "a"), ("a", "b", "s", "extra")])
    with pytest.raises(ValueError, match="item 0 is a str"):
        evaluate(["ab"])
    # lengths that sum to 2n or 3n without all being 2 or 3 are still refused, naming the item
    with pytest.raises(ValueError, match=r"item 1 has 1 elements; each case must be \(pred, gold\)"):
        evaluate([("a", "b", "s"), ("a",)])
    with pytest.raises(ValueError, match=r"item 1 has 4 elements"):
        evaluate([("a", "b"), ("a", "b", "s", "t")])
    with pytest.raises(ValueError, match=r"item 0 has 0 elements"):
        evaluate([(), ("a", "b", "s", "t")])
    with pytest.raises(TypeError, match="iterable of \\(pred, gold\\)"):
        evaluate("ab")
    with pytest.raises(TypeError, match="item 1 gold is int"):
        evaluate([("a", "a"), ("a", 5)])
    with pytest.raises(TypeError, match="item 1 has slice label \\['x'\\].*hashable label"):
        evaluate([("a", "a", "s"), ("a", "b", ["x"])])


def test_evaluate_corpus_and_slices_match_jiwer():
    cases = [("ct", "cat", "x"), ("dg", "dog", "y"), ("kitten", "sitting", "x"), ("ab", "ab")]
    r = evaluate(cases, metric="cer")
    assert r.n == 4 and r.metric == "cer"
    assert r.aggregate == jiwer.cer(reference=[c[1] for c in cases], hypothesis=[c[0] for c in cases])
    assert r.per_slice["x"] == jiwer.cer(reference=["cat", "sitting"], hypothesis=["ct", "kitten"])
    assert r.per_slice["y"] == pytest.approx(1 / 3)
    assert None not in r.per_slice
    assert r.detail["slice_n"] == {"x": 2, "y": 1}


def test_corpus_cer_pools_edits_over_items_of_unequal_length():
    # by hand: 1 edit of 3, 3 of 7 ("kitten"/"sitting"), 2 of 11 ("helo wrld"/"hello world")
    cases = [("ct", "cat"), ("kitten", "sitting"), ("helo wrld", "hello world")]
    r = evaluate(cases, metric="cer")
    assert r.aggregate == pytest.approx(6 / 21)
    assert r.aggregate == pytest.approx(jiwer.cer(reference=[g for _, g in cases], hypothesis=[p for p, _ in cases]))
    mean_of_rates = (1 / 3 + 3 / 7 + 2 / 11) / 3  # 0.3147, what averaging per-item rates would give
    assert abs(r.aggregate - mean_of_rates) > 0.02
    assert [s.value for s in r.scores] == pytest.approx([1 / 3, 3 / 7, 2 / 11])


def test_evaluate_fields_is_micro_f1():
    r = evaluate([({"a": 1}, {"a": 1}), ({"a": 1, "b": 1}, {"a": 2, "b": 2, "c": 3, "d": 4})])
    assert r.metric == "fields" and r.aggregate == pytest.approx(0.25)


def test_evaluate_mean_for_metric_without_aggregate():
    with pytest.warns(UserWarning, match=r"evaluate\(\) aggregates metric '<lambda>' by the mean"):
        r = evaluate([("a", "a"), ("a", "b")], metric=lambda p, g, *, grammar=None: float(p == g))
    assert r.aggregate == 0.5 and r.detail["aggregation"] == "mean"


def test_scores_materialize_like_score():
    cases = [("ct", "cat"), ("dog", "dog")]
    r = evaluate(cases)
    assert list(r.scores) == [score(p, g) for p, g in cases]
    assert r.scores[-1] == score("dog", "dog")
    assert r.scores[0:1] == [score("ct", "cat")]


def test_merge_rejects_mixed_metrics_and_nothing():
    with pytest.raises(ValueError, match="different metrics"):
        merge_reports(evaluate([("a", "b")], metric="cer"), evaluate([("a", "b")], metric="wer"))
    with pytest.raises(ValueError, match="at least one Report"):
        merge_reports()
    with pytest.raises(TypeError, match="argument 1 is dict"):
        merge_reports(Report(), {})


def test_merge_with_unregistered_metric_needs_metric_argument():
    def exact(pred, gold, *, grammar=None):
        return float(pred == gold)

    with pytest.warns(UserWarning, match="by the mean"):
        a = evaluate([("a", "a")], metric=exact)
        b = evaluate([("a", "b")], metric=exact)
    with pytest.raises(KeyError, match="exact"):
        merge_reports(a, b)
    with pytest.warns(UserWarning, match=r"merge_reports\(\) aggregates metric 'exact' by the mean"):
        assert merge_reports(a, b, metric=exact).aggregate == 0.5


text = st.text(alphabet="ab c", max_size=10)
case = st.tuples(text, text, st.sampled_from(["s1", "s2", None]))


@pytest.mark.parametrize("metric", ["cer", "wer"])
@given(cases=st.lists(case, max_size=15), data=st.data())
def test_any_split_merges_to_the_whole(metric, cases, data):
    cases = [c if c[2] is not None else c[:2] for c in cases]
    k = data.draw(st.integers(0, len(cases)))
    whole = evaluate(cases, metric=metric)
    merged = merge_reports(evaluate(cases[:k], metric=metric), evaluate(cases[k:], metric=metric))
    if not cases:
        assert merged.n == 0
        return
    assert merged.aggregate == whole.aggregate
    assert merged.per_slice == whole.per_slice
    assert merged.n == whole.n
    assert merged == whole


records = st.dictionaries(st.sampled_from("abc"), st.integers(0, 2), max_size=3)


@given(cases=st.lists(st.tuples(records, records), min_size=1, max_size=10), data=st.data())
def test_field_reports_merge_exactly(cases, data):
    k = data.draw(st.integers(1, len(cases)))
    whole = evaluate(cases)
    merged = merge_reports(evaluate(cases[:k]), evaluate(cases[k:]))
    assert merged == whole


@given(st.text(max_size=20), st.text(max_size=20))
def test_one_case_evaluate_equals_score(pred, gold):
    r = evaluate([(pred, gold)])
    assert r.n == 1 and r.aggregate == score(pred, gold).value
    assert r.scores[0] == score(pred, gold)
    assert evaluate([(pred, gold)], metric="wer").aggregate == score(pred, gold, metric="wer").value


def test_field_metric_instance_in_evaluate():
    r = evaluate([({"a": "X"}, {"a": "x"})], metric=FieldMetric(), normalize="lower")
    assert r.aggregate == 1.0


# ---------------------------------------------------------------------------
# the contract as the facade reads it


def test_report_records_the_metric_direction_and_aggregation():
    assert evaluate([("a", "b")]).detail == {"higher_is_better": False, "aggregation": "statistics"}
    fields = evaluate([({"a": 1}, {"a": 1}, "s")])
    assert fields.detail["higher_is_better"] is True and fields.detail["aggregation"] == "statistics"
    assert fields.detail["slices"] == ("s",) and fields.detail["slice_n"] == {"s": 1}
    merged = merge_reports(evaluate([("a", "b")], metric="wer"), evaluate([("c", "c")], metric="wer"))
    assert merged.detail == {"higher_is_better": False, "aggregation": "statistics"}


@dataclass(frozen=True)
class _Sniffable:
    """Has a canonicalizer field but declares no options: the facade must not find it."""

    canonicalizer: object = None
    name = "sniffable"

    def __call__(self, pred, gold, *, grammar=None):
        return float(pred == gold)


@dataclass(frozen=True)
class _Casefolded(SummedStatistics):
    """Declares normalize= through options; its field has another name."""

    fold: object = field(default=None, kw_only=True)
    name = "casefolded"
    higher_is_better = True
    statistics = ("hits", "n")
    options = MappingProxyType({"normalize": "fold"})

    def __call__(self, pred, gold, *, grammar=None):
        fold = self.fold or (lambda s: s)
        hit = int(fold(pred) == fold(gold))
        return Score(float(hit), metric=self.name, detail={"hits": hit, "n": 1})

    def compute(self, totals):
        return totals["hits"] / totals["n"]


def test_options_reach_a_metric_only_through_its_declared_options():
    with pytest.raises(TypeError, match=r"metric 'sniffable' does not take normalize=.*declares 'normalize'"):
        score("A", "a", metric=_Sniffable(), normalize="lower")
    assert score("A", "a", metric=_Casefolded()).value == 0.0
    assert score("A", "a", metric=_Casefolded(), normalize="lower").value == 1.0
    assert evaluate([("A", "a"), ("B", "c")], metric=_Casefolded(), normalize="lower").aggregate == 0.5
    with pytest.raises(TypeError, match="metric 'casefolded' does not take weights="):
        score("A", "a", metric=_Casefolded(), weights=lambda g, r: 1.0)
    with pytest.raises(TypeError, match="metric 'anls' does not take normalize="):
        score("A", "a", metric="anls", normalize="lower")
    with pytest.raises(TypeError, match=r"_Casefolded does not take weights= \(it takes normalize=\)"):
        _Casefolded().with_options(weights=None)
    assert StringMetric().with_options(normalize=str.lower) == StringMetric(canonicalizer=str.lower)


# ---------------------------------------------------------------------------
# default metrics by type: the "dispatch" rules


def test_dispatch_rules_are_tried_by_priority_then_name():
    order = [rule[0] for rule in ek.facade._rules()]
    builtin = [n for n in order if n in {"task_success", "teds", "typed_graph", "cer", "fields"}]
    assert builtin == ["task_success", "teds", "typed_graph", "cer", "fields", "cer"]  # str, mapping, text


def test_a_specific_type_wins_over_str():
    # an Episode graded against a plain string answer is task success, not a str mismatch
    assert score(Episode(output="42"), "42").metric == "task_success"
    html = "<table><tr><td>a</td></tr></table>"
    assert score(Table.from_html(html), html).metric == "teds"


def test_text_objects_and_mismatches():
    assert score(Page("a b"), Page("a c"), metric="wer").value == 0.5
    with pytest.raises(TypeError, match="pred is Page but gold is str"):
        score(Page("a"), "a")
    with pytest.raises(TypeError, match="pred is dict but gold is Page"):
        score({"a": 1}, Page("a"))
    with pytest.raises(TypeError, match="no default metric for Page"):
        score(Page("a"), 3)
    with pytest.raises(TypeError, match=r"item 1 gold: int has no str \.text to compare"):
        evaluate([(Page("a"), Page("a")), (Page("b"), 5)])
    with pytest.raises(TypeError, match="got None as gold"):
        score(Page("a"), None)


def test_a_registered_rule_joins_the_order(monkeypatch):
    joined = DispatchRule(lambda obj: isinstance(obj, tuple), metric="wer", pairs="both", prepare=" ".join, priority=50)
    monkeypatch.setitem(registry._registry["dispatch"], "word_tuple", joined)
    s = score(("a", "b"), ("a", "c"))
    assert (s.metric, s.value) == ("wer", 0.5)
    with pytest.raises(TypeError, match="no default metric for tuple"):
        score(("a", "b"), 3)  # "both": one tuple is not enough
    first = DispatchRule(lambda obj: isinstance(obj, str), metric="wer", priority=-1)
    monkeypatch.setitem(registry._registry["dispatch"], "zz_words_first", first)
    assert score("a b", "a c").metric == "wer"  # a lower priority number is tried first
    monkeypatch.setitem(registry._registry["dispatch"], "zz_words_first", lambda obj: False)
    assert score("a b", "a c").metric == "cer"  # a bare predicate is a rule with the defaults


def test_dispatch_rule_checks_pairs():
    with pytest.raises(ValueError, match="pairs must be 'either', 'same' or 'both'"):
        DispatchRule(bool, pairs="any")


def test_estimate_quality_reaches_no_private_module_of_another_package():
    import ast
    import pathlib

    import ek.facade

    root = pathlib.Path(ek.facade.__file__).parent
    for path in (root / "facade.py", root / "_estimate.py"):
        tree = ast.parse(path.read_text())
        imported = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module]
        imported += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        private = [m for m in imported if any(p.startswith("_") for p in m.split(".")[2:])]
        assert private == [], (path.name, private)


# --------------------------------------------------------------------------
# issue 20 item 12: a metric returning NaN for an item is refused, naming the item
# --------------------------------------------------------------------------


def _nan_for_dgo(pred, gold, *, grammar=None):
    return Score(float("nan") if pred == "dgo" else 0.5, metric="shaky", detail={"n": 1})


@dataclass(frozen=True)
class _SummedShaky(SummedStatistics):
    """A summed metric whose one item has a NaN statistic (and so a NaN value)."""

    name = "summed_shaky"
    higher_is_better = True
    statistics = ("hits", "n")

    def __call__(self, pred, gold, *, grammar=None):
        hits = float("nan") if pred == "dgo" else float(pred == gold)
        return Score(hits, metric=self.name, detail={"hits": hits, "n": 1})

    def compute(self, totals):
        return totals["hits"] / totals["n"]


def test_a_nan_item_is_refused_naming_its_index():
    cases = [("cat", "cat"), ("cow", "cow"), ("dgo", "dog")]
    with (
        pytest.warns(UserWarning, match="mean"),
        pytest.raises(
            ValueError,
            match=r"evaluate\(\): metric '_nan_for_dgo' returned NaN for item 2, prediction 'dgo'; "
            r"no aggregate can use a NaN\..*to skip the item, leave it out of cases",
        ),
    ):
        evaluate(cases, metric=_nan_for_dgo)


def test_a_nan_item_is_named_by_its_id_when_ids_are_given():
    cases = [("dgo", "dog"), ("cat", "cat")]
    with pytest.raises(ValueError, match=r"returned NaN for item 0 \(id 'doc-7'\), prediction 'dgo'"):
        evaluate(cases, metric=_SummedShaky(), ids=["doc-7", "doc-8"])


def test_skipping_the_item_as_the_message_says_scores_the_rest():
    cases = [("cat", "cat"), ("dgo", "dog"), ("cow", "cox")]
    kept = [c for i, c in enumerate(cases) if i != 1]
    report = evaluate(kept, metric=_SummedShaky(), ids=["a", "c"])
    assert report.n == 2 and report.aggregate == 0.5  # 1 hit of 2


def test_column_backed_scores_are_not_refused_without_nan():
    report = evaluate([("", ""), ("a", "")], metric="cer")  # empty references decide 0/0 without NaN
    assert report.aggregate == 1.0 and report.n == 2
