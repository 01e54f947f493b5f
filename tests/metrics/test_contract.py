"""ek.metrics._contract: a foreign metric is wrapped once, at resolution, and read by its attributes after.

The registered metrics' side of the contract is checked in test_common.py;
here, what `as_metric` makes of a plain function, of a third-party object
written to the prose contract, and what the facade, the bootstrap and the
pages then read off the wrapper.
"""

from __future__ import annotations

import warnings

import pytest

import ek
from ek._bootstrap import metric_of
from ek._util import DispatchRule, as_rule
from ek.base import MetricContract, Score
from ek.metrics import StringMetric, SummedStatistics, as_metric


def exact(pred, gold, *, grammar=None):
    return float(pred == gold)


class Legacy:
    """A third-party metric written to the contract as ek.metrics described it before it was a type."""

    name = "legacy"
    higher_is_better = True
    statistics = ("hits", "n")
    options = {"normalize": "fold"}

    def __init__(self, fold=None):
        self.fold = fold

    def __call__(self, pred, gold, *, grammar=None):
        if self.fold is not None:
            pred, gold = self.fold(pred), self.fold(gold)
        hit = int(pred == gold)
        return Score(float(hit), metric="legacy", detail={"hits": hit, "n": 1})

    def compute(self, totals):
        return totals["hits"] / totals["n"]

    def aggregate(self, scores):
        return self.compute({k: sum(s.detail[k] for s in scores) for k in self.statistics})

    def with_options(self, *, normalize):
        return Legacy(normalize)


CASES = [("a", "a"), ("b", "a"), ("c", "c"), ("A", "a")]


def test_a_plain_function_is_wrapped_into_the_contract_with_default_facts():
    m = as_metric(exact)
    assert isinstance(m, MetricContract) and not isinstance(exact, MetricContract)
    assert (m.name, m.higher_is_better, m.aggregation, m.declared) == ("exact", None, "mean", False)
    assert (m.statistics, m.unit, m.percent, m.reads_documents, dict(m.options)) == (
        ("value", "n"),
        None,
        False,
        False,
        {},
    )
    assert m("a", "a") == Score(1.0, metric="exact")  # a number becomes a Score under the metric's name
    assert m.aggregate([m(p, g) for p, g in CASES]) == 0.5  # two of four exact
    assert m.compute({"value": 2.0, "n": 4}) == 0.5
    assert as_metric(exact) == m  # two wrappers of one function are equal


def test_a_wrapper_or_a_metric_is_not_wrapped_again():
    m = as_metric(exact)
    assert as_metric(m) is m
    declared = ek.metric(exact, aggregate="mean")
    assert as_metric(declared) is declared
    cer = StringMetric()
    assert as_metric(cer) is cer and isinstance(cer, SummedStatistics)


def test_a_function_metric_satisfies_the_protocol():
    m = ek.metric(exact, aggregate="mean", higher_is_better=True)
    assert isinstance(m, MetricContract)
    assert (m.declared, m.unit, m.percent, m.reads_documents, dict(m.options)) == (True, None, False, False, {})
    assert [s.value for s in m.score_many(["a", "b"], ["a", "a"])] == [1.0, 0.0]
    with pytest.raises(TypeError, match=r"'exact' does not take normalize= \(it takes no options\)"):
        m.with_options(normalize=str.lower)


def test_the_wrapped_metric_is_the_one_the_reports_carry_through_evaluate_merge_and_compare():
    m = ek.metric(exact, aggregate="mean", higher_is_better=True)
    a = ek.evaluate(CASES[:2], metric=m)
    b = ek.evaluate(CASES[2:], metric=m, ids=[2, 3])
    assert metric_of(a) is m and metric_of(b) is m
    merged = ek.merge_reports(a, ek.evaluate(CASES[2:], metric=m), metric=m)
    assert metric_of(merged) is m and merged.aggregate == 0.5
    assert merged.detail["higher_is_better"] is True
    c = ek.compare(a, ek.evaluate([("a", "a"), ("a", "a")], metric=m))
    assert c.higher_is_better is True and c.delta == 0.5


def test_a_plain_function_is_wrapped_once_per_resolution_into_equal_wrappers():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a, b = ek.evaluate(CASES[:2], metric=exact), ek.evaluate(CASES[2:], metric=exact)
        merged = ek.merge_reports(a, b, metric=exact)
    assert metric_of(a).target is exact and metric_of(b).target is exact
    assert metric_of(merged) == metric_of(a) == metric_of(b)
    assert merged.aggregate == 0.5 and merged.detail["aggregation"] == "mean"


def test_the_mean_warning_is_the_facade_reading_declared():
    with pytest.warns(UserWarning, match=r"by the mean of its per-item values because it has no aggregate\(\)"):
        report = ek.evaluate(CASES, metric=exact)
    assert report.aggregate == 0.5 and report.detail["aggregation"] == "mean"
    assert ek.evaluate(CASES * 10, metric=ek.metric(exact)).interval() == report_40(exact).interval()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ek.evaluate(CASES, metric=ek.metric(exact))


def test_a_legacy_object_is_read_once_and_keeps_what_it_declares():
    legacy = Legacy()
    m = as_metric(legacy)
    assert m is not legacy and not isinstance(legacy, MetricContract)
    assert (m.name, m.higher_is_better, m.statistics, m.aggregation, m.declared) == (
        "legacy",
        True,
        ("hits", "n"),
        "statistics",
        True,
    )
    report = ek.evaluate(CASES, metric=legacy)
    assert report.aggregate == 0.5 and report.detail == {"higher_is_better": True, "aggregation": "statistics"}
    assert ek.evaluate(CASES, metric=legacy, normalize="lower").aggregate == 0.75  # "A" against "a" now agrees
    with pytest.raises(TypeError, match=r"metric 'legacy' does not take weights="):
        ek.evaluate(CASES, metric=legacy, weights=lambda g, r: 1.0)


def test_a_legacy_custom_aggregate_has_no_compute():
    class Custom:
        def __call__(self, pred, gold, *, grammar=None):
            return float(pred == gold)

        def aggregate(self, scores):
            return max(s.value for s in scores)

    m = as_metric(Custom())
    assert (m.name, m.aggregation, m.statistics, m.declared) == ("Custom", "custom", (), True)
    assert ek.evaluate(CASES, metric=Custom()).aggregate == 1.0
    with pytest.raises(TypeError, match=r"'Custom' has no compute\(\); it aggregates without summed statistics"):
        m.compute({})


def test_bad_metrics_and_results_raise_with_a_message():
    with pytest.raises(TypeError, match="a metric must be callable .* got int"):
        as_metric(3)
    rough = _named(lambda p, g, grammar=None: [1], "rough")
    wrapped = as_metric(rough)  # builds fine: the call is what fails
    with pytest.raises(TypeError, match=r"metric 'rough' returned list; a metric must return a Score or a number"):
        wrapped("a", "a")
    with pytest.raises(TypeError, match=r"metric 'rough' returned list; a metric must return a Score or a number"):
        ek.evaluate([("a", "a")], metric=rough)
    with pytest.raises(ValueError, match="got 2 predictions but 1 references"):
        as_metric(exact).score_many(["a", "b"], ["a"])
    with pytest.raises(ValueError, match="no scores; an empty corpus has no aggregate"):
        as_metric(exact).aggregate([])


def test_a_dispatch_predicate_is_read_once_into_a_rule():
    def is_bytes(obj):
        return isinstance(obj, bytes)

    is_bytes.priority, is_bytes.metric = 5, "cer"
    rule = as_rule(is_bytes)
    assert (rule.accepts, rule.metric, rule.pairs, rule.prepare, rule.priority) == (is_bytes, "cer", "either", None, 5)
    declared = DispatchRule(accepts=is_bytes, pairs="both")
    assert as_rule(declared) is declared
    is_bytes.pairs = "sometimes"
    with pytest.raises(ValueError, match="pairs must be 'either', 'same' or 'both', got 'sometimes'"):
        as_rule(is_bytes)


def report_40(fn):
    """40 items of a plain function: resampled by the mean of its values, like ek.metric(fn)'s."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ek.evaluate(CASES * 10, metric=fn)


def _named(fn, name):
    fn.__name__ = name
    return fn
