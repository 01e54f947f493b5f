"""Tests for ek.metrics.spans: span F1 under an explicit MatchScheme (seqeval and nervaluate)."""

from __future__ import annotations

import sys
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ek
from ek.metrics.spans import MatchScheme, SpanF1Metric
from ek.registry import MissingExtraError

CONLL = SpanF1Metric(scheme=MatchScheme.SEQEVAL_CONLL)
SEQ_STRICT = SpanF1Metric(scheme=MatchScheme.SEQEVAL_STRICT)
NERVALUATE = {
    s: SpanF1Metric(scheme=s) for s in (MatchScheme.STRICT, MatchScheme.EXACT, MatchScheme.PARTIAL, MatchScheme.TYPE)
}


def span(label, start, end):
    return {"label": label, "start": start, "end": end}


# ---------------------------------------------------------------------------
# hand-worked cases


def test_spec_example():
    assert CONLL(["B-PER", "I-PER", "O"], ["B-PER", "I-PER", "O"]).f1 == 1.0


def test_every_score_names_its_scheme_and_counts():
    s = CONLL(["B-PER", "I-PER", "O", "B-LOC"], ["B-PER", "I-PER", "O", "O"])
    assert s.metric == "span_f1_seqeval_conll"
    assert s.detail["scheme"] == "seqeval_conll" and s.detail["backend"] == "seqeval"
    assert (s.detail["tp"], s.detail["fp"], s.detail["fn"]) == (1, 1, 0)
    assert (s.precision, s.recall, s.value) == (0.5, 1.0, pytest.approx(2 / 3))
    assert s.detail["per_type"] == {"LOC": {"tp": 0, "fp": 1, "fn": 0}, "PER": {"tp": 1, "fp": 0, "fn": 0}}


def test_general_electric_depends_on_the_scheme():
    """Predicting "Electric" for "General Electric" (tokens 0-1)."""
    gold, pred = [span("ORG", 0, 1)], [span("ORG", 1, 1)]
    assert NERVALUATE[MatchScheme.STRICT](pred, gold).f1 == 0.0
    assert NERVALUATE[MatchScheme.EXACT](pred, gold).f1 == 0.0
    partial = NERVALUATE[MatchScheme.PARTIAL](pred, gold)
    assert partial.detail["partial"] == 1 and partial.f1 == 0.5
    assert NERVALUATE[MatchScheme.TYPE](pred, gold).f1 == 1.0


def test_spurious_spans_lower_precision_and_missed_spans_lower_recall():
    one, two = [span("PER", 0, 0)], [span("PER", 0, 0), span("LOC", 2, 2)]
    for scheme, metric in NERVALUATE.items():
        extra = metric(two, one)  # one correct, one spurious
        assert (extra.detail["spurious"], extra.detail["missed"]) == (1, 0), scheme
        assert (extra.precision, extra.recall) == (0.5, 1.0), scheme
        short = metric(one, two)  # one correct, one missed
        assert (short.detail["spurious"], short.detail["missed"]) == (0, 1), scheme
        assert (short.precision, short.recall) == (1.0, 0.5), scheme
        assert metric.aggregate([extra, short]) == pytest.approx(2 / 3)  # 2 of 3 predicted, 2 of 3 gold


def test_wrong_type_right_boundaries():
    gold, pred = [span("PER", 0, 1)], [span("ORG", 0, 1)]
    strict = NERVALUATE[MatchScheme.STRICT](pred, gold)
    assert strict.detail["incorrect"] == 1 and strict.f1 == 0.0
    assert NERVALUATE[MatchScheme.EXACT](pred, gold).f1 == 1.0


def test_conll_and_strict_modes_disagree_on_a_dangling_inside_tag():
    # conlleval starts an entity at a stray I-; strict IOB2 decoding does not
    pred, gold = ["I-PER", "I-PER", "O"], ["B-PER", "I-PER", "O"]
    assert CONLL(pred, gold).f1 == 1.0
    assert SEQ_STRICT(pred, gold).f1 == 0.0


def test_nervaluate_schemes_accept_tag_sequences():
    s = NERVALUATE[MatchScheme.STRICT](["B-PER", "I-PER", "O"], ["B-PER", "I-PER", "O"])
    assert (s.detail["correct"], s.f1) == (1, 1.0)


def test_no_entities_on_either_side_is_perfect_agreement():
    assert CONLL(["O", "O"], ["O", "O"]).f1 == 1.0
    assert NERVALUATE[MatchScheme.PARTIAL]([], []).f1 == 1.0
    s = CONLL(["O", "O"], ["B-PER", "O"])
    assert (s.precision, s.recall, s.f1) == (0.0, 0.0, 0.0)


def test_sentences_are_scored_as_one_document():
    pred = [["B-PER", "O"], ["B-LOC"]]
    gold = [["B-PER", "O"], ["O"]]
    s = CONLL(pred, gold)
    assert (s.detail["tp"], s.detail["fp"], s.detail["fn"]) == (1, 1, 0)


def test_iobes_tagging_scheme():
    m = SpanF1Metric(MatchScheme.SEQEVAL_STRICT, tagging_scheme="IOBES")
    assert m(["B-PER", "E-PER", "S-LOC"], ["B-PER", "E-PER", "S-LOC"]).f1 == 1.0
    assert m(["B-PER", "E-PER", "O"], ["B-PER", "E-PER", "S-LOC"]).recall == 0.5


def test_scheme_given_as_its_string_value():
    assert SpanF1Metric("partial").scheme is MatchScheme.PARTIAL
    assert MatchScheme.PARTIAL.backend == "nervaluate" and MatchScheme.SEQEVAL_CONLL.backend == "seqeval"


# ---------------------------------------------------------------------------
# corpus aggregation


def test_aggregate_micro_averages_counts():
    m = CONLL
    a = m(["B-PER", "O"], ["B-PER", "O"])  # tp 1
    b = m(["B-PER", "B-LOC", "B-ORG"], ["O", "O", "B-ORG"])  # tp 1, fp 2
    assert m.aggregate([a, b]) == pytest.approx(2 * 2 / (2 * 2 + 2 + 0))
    assert m.aggregate([a, b]) != pytest.approx((a.f1 + b.f1) / 2)


def test_nervaluate_aggregate_gives_partial_half_credit():
    m = NERVALUATE[MatchScheme.PARTIAL]
    a = m([span("X", 1, 1)], [span("X", 0, 1)])  # partial
    b = m([span("X", 0, 0)], [span("X", 0, 0)])  # correct
    # credit 1.5 over 2 predicted and 2 gold spans
    assert m.aggregate([a, b]) == pytest.approx(0.75)


def test_aggregate_rejects_mixed_schemes():
    a = CONLL(["B-PER"], ["B-PER"])
    b = NERVALUATE[MatchScheme.STRICT]([span("PER", 0, 0)], [span("PER", 0, 0)])
    with pytest.raises(ValueError, match="not commensurable"):
        CONLL.aggregate([a, b])
    c = NERVALUATE[MatchScheme.PARTIAL]([span("PER", 0, 0)], [span("PER", 0, 0)])
    with pytest.raises(ValueError, match=r"\['partial', 'strict'\]"):
        CONLL.aggregate([b, c])


def test_evaluate_by_registered_name():
    cases = [(["B-PER", "O"], ["B-PER", "O"]), (["B-LOC", "O"], ["O", "O"])]
    r = ek.evaluate(cases, metric="span_f1_seqeval_conll")
    assert r.aggregate == pytest.approx(2 / 3)
    for scheme in MatchScheme:
        assert ek.get("metrics", f"span_f1_{scheme.value}").scheme is scheme


# ---------------------------------------------------------------------------
# cross-checks with the backends on the same tag sequences

TAGS = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC"]
tag_pairs = st.integers(1, 8).flatmap(
    lambda n: st.tuples(
        st.lists(st.sampled_from(TAGS), min_size=n, max_size=n), st.lists(st.sampled_from(TAGS), min_size=n, max_size=n)
    )
)


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


@settings(max_examples=150, deadline=None)
@given(st.lists(tag_pairs, min_size=1, max_size=4))
def test_seqeval_conll_corpus_f1_matches_seqeval(docs):
    seq = pytest.importorskip("seqeval.metrics")
    preds, golds = [p for p, _ in docs], [g for _, g in docs]
    scores = [CONLL(p, g) for p, g in docs]
    expected = _quiet(seq.f1_score, golds, preds)
    ours = CONLL.aggregate(scores)
    if any(s.detail["tp"] + s.detail["fp"] + s.detail["fn"] for s in scores):
        assert ours == pytest.approx(expected)
    for s, (p, g) in zip(scores, docs):
        if s.detail["tp"] + s.detail["fp"] and s.detail["tp"] + s.detail["fn"]:
            assert s.precision == pytest.approx(_quiet(seq.precision_score, [g], [p]))
            assert s.recall == pytest.approx(_quiet(seq.recall_score, [g], [p]))


@settings(max_examples=150, deadline=None)
@given(st.lists(tag_pairs, min_size=1, max_size=4))
def test_seqeval_strict_corpus_f1_matches_seqeval(docs):
    seq = pytest.importorskip("seqeval.metrics")
    from seqeval.scheme import IOB2

    preds, golds = [p for p, _ in docs], [g for _, g in docs]
    scores = [SEQ_STRICT(p, g) for p, g in docs]
    if any(s.detail["tp"] + s.detail["fp"] + s.detail["fn"] for s in scores):
        expected = _quiet(seq.f1_score, golds, preds, mode="strict", scheme=IOB2)
        assert SEQ_STRICT.aggregate(scores) == pytest.approx(expected)


@settings(max_examples=150, deadline=None)
@given(st.lists(tag_pairs, min_size=1, max_size=4), st.sampled_from(list(NERVALUATE)))
def test_nervaluate_corpus_figures_match_nervaluate(docs, scheme):
    nerv = pytest.importorskip("nervaluate")
    preds, golds = [p for p, _ in docs], [g for _, g in docs]
    m = NERVALUATE[scheme]
    scores = [m(p, g) for p, g in docs]
    key = {"type": "ent_type"}.get(scheme.value, scheme.value)
    result = nerv.Evaluator(golds, preds, tags=["PER", "LOC"], loader="list").evaluate()["overall"]
    if key in result:
        ref = result[key]
        for k in ("correct", "incorrect", "partial", "missed", "spurious"):
            assert sum(s.detail[k] for s in scores) == getattr(ref, k)
        if ref.actual and ref.possible:
            assert m.aggregate(scores) == pytest.approx(ref.f1)


# ---------------------------------------------------------------------------
# bad input


def test_missing_scheme_is_a_type_error():
    with pytest.raises(TypeError, match=r"requires an explicit scheme=MatchScheme"):
        SpanF1Metric()


def test_tag_sequences_of_different_length():
    with pytest.raises(ValueError, match="pred has 2 tags but gold has 3"):
        CONLL(["B-PER", "O"], ["B-PER", "O", "O"])
    with pytest.raises(ValueError, match="pred has 1 tags but gold has 2 in sentence 1"):
        CONLL([["O"], ["O"]], [["O"], ["O", "O"]])
    with pytest.raises(ValueError, match="pred has 1 tags but gold has 2"):
        NERVALUATE[MatchScheme.STRICT](["O"], ["O", "B-PER"])


def test_other_bad_inputs():
    with pytest.raises(ValueError, match="Unknown span match scheme 'fuzzy'"):
        SpanF1Metric("fuzzy")
    with pytest.raises(ValueError, match="Unknown tagging_scheme 'BIO'"):
        SpanF1Metric(MatchScheme.SEQEVAL_STRICT, tagging_scheme="BIO")
    with pytest.raises(TypeError, match="the seqeval schemes take a sequence of BIO/IOBES tag strings"):
        CONLL("B-PER O", "B-PER O")
    with pytest.raises(TypeError, match=r"pred\[0\] is .*'label', 'start' and 'end'"):
        NERVALUATE[MatchScheme.STRICT]([{"label": "X"}], [])
    with pytest.raises(ValueError, match=r"gold\[0\] .* is not a valid span"):
        NERVALUATE[MatchScheme.STRICT]([], [span("X", 3, 1)])
    with pytest.raises(ValueError, match="could not read the tags as IOBES"):
        SpanF1Metric(MatchScheme.SEQEVAL_STRICT, tagging_scheme="IOBES")(["X-PER"], ["O"])
    with pytest.raises(ValueError, match="no 'scheme' in its detail"):
        CONLL.aggregate([ek.score("a", "b")])


def test_missing_extra_gives_the_install_hint(monkeypatch):
    monkeypatch.setitem(sys.modules, "seqeval.metrics.sequence_labeling", None)
    monkeypatch.setitem(sys.modules, "nervaluate.evaluator", None)
    with pytest.raises(MissingExtraError, match=r'SpanF1Metric.*pip install "ek\[metrics\]"'):
        CONLL(["B-PER"], ["B-PER"])
    with pytest.raises(MissingExtraError, match=r'pip install "ek\[metrics\]"'):
        NERVALUATE[MatchScheme.EXACT]([span("X", 0, 0)], [])


# ---------------------------------------------------------------------------
# the per-type report: macro, weighted and F-beta next to micro (issue 11, item 25)

TYPED_TAGS = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC", "B-ORG"]
typed_pairs = st.integers(1, 8).flatmap(
    lambda n: st.tuples(
        st.lists(st.sampled_from(TYPED_TAGS), min_size=n, max_size=n),
        st.lists(st.sampled_from(TYPED_TAGS), min_size=n, max_size=n),
    )
)
REPORT_KEYS = ("precision", "recall", "f1-score", "support")


def _assert_same_report(ours, theirs):
    assert set(ours) == set(theirs), (sorted(ours), sorted(theirs))
    for row, figures in theirs.items():
        for key in REPORT_KEYS:
            assert ours[row][key] == pytest.approx(float(figures[key]), rel=1e-12, abs=1e-15), (row, key)


@settings(max_examples=150, deadline=None)
@given(st.lists(typed_pairs, min_size=1, max_size=4), st.sampled_from(["seqeval_conll", "seqeval_strict"]))
def test_report_equals_seqeval_classification_report(docs, scheme):
    seq = pytest.importorskip("seqeval.metrics")
    from seqeval.scheme import IOB2

    m = SpanF1Metric(scheme=scheme)
    preds, golds = [p for p, _ in docs], [g for _, g in docs]
    scores = [m(p, g) for p, g in docs]
    if not any(s.detail["per_type"] for s in scores):
        return  # no entity anywhere: seqeval has no rows to compare (see the hand-worked test)
    from seqeval.metrics import sequence_labeling, v1

    options = {"mode": "strict", "scheme": IOB2} if scheme == "seqeval_strict" else {}
    theirs = _quiet(seq.classification_report, golds, preds, output_dict=True, **options)
    _assert_same_report(m.report(scores), theirs)
    # F-beta as seqeval computes it, averaged three ways
    ours = m.report(scores, beta=0.5)
    prfs, fbeta_options = sequence_labeling.precision_recall_fscore_support, {}
    if scheme == "seqeval_strict":
        prfs, fbeta_options = v1.precision_recall_fscore_support, {"scheme": IOB2}
    for average in ("micro", "macro", "weighted"):
        *_, f, _ = _quiet(prfs, golds, preds, average=average, beta=0.5, **fbeta_options)
        assert ours[f"{average} avg"]["fbeta-score"] == pytest.approx(f, rel=1e-12, abs=1e-15)
    assert m.report(scores)["micro avg"]["f1-score"] == pytest.approx(m.aggregate(scores))


@settings(max_examples=150, deadline=None)
@given(st.lists(typed_pairs, min_size=1, max_size=4), st.sampled_from(list(NERVALUATE)))
def test_report_per_type_counts_equal_nervaluate(docs, scheme):
    nerv = pytest.importorskip("nervaluate")
    m = NERVALUATE[scheme]
    preds, golds = [p for p, _ in docs], [g for _, g in docs]
    scores = [m(p, g) for p, g in docs]
    report = m.report(scores)
    key = {"type": "ent_type"}.get(scheme.value, scheme.value)
    labels = sorted({t[2:] for doc in preds + golds for t in doc if t != "O"})
    results = nerv.Evaluator(golds, preds, tags=labels or ["PER"], loader="list").evaluate()
    seen = {label for label, row in report.items() if not label.endswith(" avg")}
    for label, by_scheme in results["entities"].items():
        ref = by_scheme[key]
        if label not in seen:  # a type with no span on either side
            assert ref.actual == ref.possible == 0
            continue
        row = report[label]
        for k in ("correct", "incorrect", "partial", "missed", "spurious"):
            assert row[k] == getattr(ref, k), (label, k)
        assert row["support"] == ref.possible
        if ref.actual:
            assert row["precision"] == pytest.approx(ref.precision, rel=1e-12)
        if ref.possible:
            assert row["recall"] == pytest.approx(ref.recall, rel=1e-12)
        if ref.actual and ref.possible:
            assert row["f1-score"] == pytest.approx(ref.f1, rel=1e-12)
    overall = results["overall"][key]
    micro = report["micro avg"]
    assert [micro[k] for k in ("correct", "incorrect", "partial", "missed", "spurious")] == [
        overall.correct,
        overall.incorrect,
        overall.partial,
        overall.missed,
        overall.spurious,
    ]


def test_report_hand_worked():
    scores = [
        CONLL(["B-PER", "I-PER", "O", "B-LOC"], ["B-PER", "I-PER", "O", "O"]),
        CONLL(["B-LOC", "O", "B-PER"], ["B-LOC", "O", "B-ORG"]),
    ]
    r = CONLL.report(scores, beta=2)
    # PER: tp 1, fp 1, fn 0; LOC: tp 1, fp 1, fn 0; ORG: tp 0, fp 0, fn 1
    assert r["PER"] == {
        "precision": 0.5,
        "recall": 1.0,
        "f1-score": pytest.approx(2 / 3),
        "support": 1,
        "fbeta-score": pytest.approx(5 * 0.5 / (4 * 0.5 + 1)),
        "tp": 1,
        "fp": 1,
        "fn": 0,
    }
    assert r["ORG"]["f1-score"] == 0.0 and r["ORG"]["support"] == 1
    assert r["micro avg"]["tp"] == 2 and r["micro avg"]["f1-score"] == pytest.approx(CONLL.aggregate(scores))
    assert r["macro avg"]["f1-score"] == pytest.approx((2 / 3 + 2 / 3 + 0) / 3)
    assert r["weighted avg"]["recall"] == pytest.approx((1 * 1 + 1 * 1 + 1 * 0) / 3)
    assert r["macro avg"]["support"] == r["weighted avg"]["support"] == 3
    # a split of the corpus merges: the report is a function of summed counts
    assert CONLL.report(scores[:1] + scores[1:]) == CONLL.report(scores)


def test_report_degenerate_corpora():
    empty = CONLL.report([CONLL(["O"], ["O"])])
    assert set(empty) == {"micro avg", "macro avg", "weighted avg"}
    assert empty["macro avg"] == {"precision": 1.0, "recall": 1.0, "f1-score": 1.0, "support": 0}
    only_predicted = CONLL.report([CONLL(["B-PER"], ["O"])])
    assert only_predicted["weighted avg"] == {"precision": 0.0, "recall": 0.0, "f1-score": 0.0, "support": 0}
    with pytest.raises(ValueError, match="empty corpus has no aggregate"):
        CONLL.report([])
    with pytest.raises(ValueError, match="beta must be a number >= 0"):
        CONLL.report([CONLL(["O"], ["O"])], beta=-1)
    with pytest.raises(ValueError, match="not commensurable"):
        CONLL.report([CONLL(["O"], ["O"]), SEQ_STRICT(["O"], ["O"])])
