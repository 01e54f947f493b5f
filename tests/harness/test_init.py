"""The offline harness: evaluate_store, baselines and the regression gate (ek.harness, ek._runs)."""

from __future__ import annotations

import json
import math
import os
import re
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ek.base import Report, Score
from ek.facade import evaluate
from ek.harness import GateResult, evaluate_store, load_baseline, regression_gate, save_baseline
from ek.stores import json_store

# CER by hand: "cat"/"cat" 0 edits of 3; "dgo"/"dog" 2 edits of 3; "brid"/"bird" 2 of 4.
GOLD = {
    "a": {"input": "cat", "reference": "cat", "slice": "easy"},
    "b": {"input": "dgo", "reference": "dog", "slice": "hard"},
    "c": {"input": "brid", "reference": "bird", "slice": "hard"},
}


def echo(x):
    return x


class Counting:
    """A predictor that records its inputs."""

    def __init__(self, fail_on=()):
        self.calls = []
        self.fail_on = set(fail_on)

    def __call__(self, x):
        self.calls.append(x)
        if x in self.fail_on:
            raise RuntimeError(f"cannot read {x}")
        return x


def _gold(n):
    return {f"k{i:03d}": {"input": f"w{i}", "reference": f"w{i % 7}", "slice": "ab"[i % 2]} for i in range(n)}


# ---------------------------------------------------------------------------
# evaluate_store: scoring
# ---------------------------------------------------------------------------


def test_evaluate_store_scores_per_slice_from_summed_edits():
    r = evaluate_store(echo, GOLD)
    assert r.metric == "cer" and r.n == 3
    assert r.aggregate == pytest.approx(4 / 10)  # (0 + 2 + 2) / (3 + 3 + 4)
    assert r.per_slice == {"easy": 0.0, "hard": pytest.approx(4 / 7)}
    assert r.detail["slice_n"] == {"easy": 1, "hard": 2}
    item = r.detail["per_item"]["b"]
    assert item["prediction"] == "dgo" and item["reference"] == "dog" and item["slice"] == "hard"
    assert item["score"] == pytest.approx(2 / 3) and item["detail"] == {"edits": 2, "ref_len": 3}
    assert item["error"] is None
    assert r.detail["errors"] == {} and r.detail["run_id"] is None


def test_evaluate_store_agrees_with_evaluate():
    cases = [(echo(g["input"]), g["reference"], g["slice"]) for g in GOLD.values()]
    expected = evaluate(cases, metric="wer")
    got = evaluate_store(echo, GOLD, metric="wer")
    assert got.aggregate == expected.aggregate and got.per_slice == expected.per_slice
    assert list(got.scores) == list(expected.scores)


@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.text("abc ", max_size=6), st.text("abc ", min_size=1, max_size=6), st.sampled_from(["x", "y", None])
        ),
        min_size=1,
        max_size=12,
    )
)
def test_evaluate_store_matches_evaluate_on_any_corpus(rows):
    gold = {i: {"input": p, "reference": g, "slice": s} for i, (p, g, s) in enumerate(rows)}
    expected = evaluate([(p, g, s) for p, g, s in rows], metric="cer")
    got = evaluate_store(echo, gold, metric="cer")
    assert got.aggregate == pytest.approx(expected.aggregate)
    assert got.per_slice == pytest.approx(dict(expected.per_slice))


def test_evaluate_store_without_slices_and_custom_keys():
    gold = {1: {"q": "ab", "gt": "abc"}, 2: {"q": "x", "gt": "x"}}
    r = evaluate_store(echo, gold, input_key="q", reference_key="gt")
    assert r.aggregate == pytest.approx(1 / 4) and r.per_slice == {}
    assert list(r.detail["per_item"]) == [1, 2]


def test_evaluate_store_dispatches_on_type():
    gold = {"r": {"input": {"total": "10"}, "reference": {"total": "10", "date": "x"}}}
    r = evaluate_store(echo, gold)
    assert r.metric == "fields" and r.aggregate < 1.0


def test_evaluate_store_reads_a_gold_store_in_key_order(tmp_path):
    store = json_store("gold", rootdir=tmp_path)
    for k in ("z", "m", "a"):
        store[k] = {"input": k, "reference": k}
    r = evaluate_store(echo, store)
    assert list(r.detail["per_item"]) == ["a", "m", "z"] and r.aggregate == 0.0


def test_empty_gold_gives_an_empty_report():
    r = evaluate_store(echo, {}, metric="cer")
    assert r.n == 0 and r.aggregate is None and r.metric == "cer"


# ---------------------------------------------------------------------------
# evaluate_store: failures and bad input
# ---------------------------------------------------------------------------


def test_a_failing_item_is_recorded_and_the_rest_kept():
    predict = Counting(fail_on={"dgo"})
    with pytest.warns(UserWarning, match=r"raised on 1 of 3 items.*errors='raise'"):
        r = evaluate_store(predict, GOLD)
    assert predict.calls == ["cat", "dgo", "brid"]
    assert r.n == 2 and r.aggregate == pytest.approx(2 / 7)
    assert r.detail["errors"] == {"b": "RuntimeError: cannot read dgo"}
    assert r.detail["per_item"]["b"]["score"] is None
    assert r.detail["per_item"]["b"]["error"] == "RuntimeError: cannot read dgo"
    assert r.per_slice == {"easy": 0.0, "hard": 0.5}


def test_errors_raise_fails_fast():
    predict = Counting(fail_on={"dgo"})
    with pytest.raises(RuntimeError, match="cannot read dgo"):
        evaluate_store(predict, GOLD, errors="raise")
    assert predict.calls == ["cat", "dgo"]


def test_every_item_failing_gives_an_empty_report():
    with pytest.warns(UserWarning):
        r = evaluate_store(Counting(fail_on={"cat", "dgo", "brid"}), GOLD, metric="cer")
    assert r.n == 0 and r.aggregate is None and len(r.detail["errors"]) == 3


def test_gold_record_without_reference():
    gold = {"a": {"input": "x", "reference": "x"}, "b": {"input": "y", "answer": "y"}}
    predict = Counting()
    with pytest.raises(ValueError, match=r"gold record 'b' has no 'reference' field.*reference_key="):
        evaluate_store(predict, gold)
    assert predict.calls == []  # checked before anything is predicted


def test_gold_record_whose_reference_is_none():
    # A None reference is a gold record with no answer, not a predictor returning the wrong type.
    gold = {"a": {"input": "x", "reference": "x"}, "b": {"input": "y", "reference": None}}
    predict = Counting()
    with pytest.raises(ValueError, match=r"gold record 'b' has reference=None.*fill it in"):
        evaluate_store(predict, gold, metric="cer")
    assert predict.calls == []


def test_gold_record_without_input():
    with pytest.raises(ValueError, match=r"gold record 'a' has no 'input' field.*input_key="):
        evaluate_store(echo, {"a": {"reference": "x"}})


def test_predictor_returning_the_wrong_type():
    with pytest.raises(TypeError, match=r"gold item 'b'.*predict returned a int but the reference is a str"):
        evaluate_store(lambda x: 3 if x == "dgo" else x, GOLD, metric="cer")


def test_predictor_returning_the_wrong_type_first():
    with pytest.raises(TypeError, match=r"gold item 'a'.*returned None but the reference is a str"):
        evaluate_store(lambda x: None, GOLD)


def test_gold_must_be_a_mapping_of_mappings():
    with pytest.raises(TypeError, match=r"gold is a list.*dict\(enumerate\(records\)\)"):
        evaluate_store(echo, [{"input": "a", "reference": "a"}])
    with pytest.raises(TypeError, match=r"gold record 'a' is a str"):
        evaluate_store(echo, {"a": "text"})


def test_bad_arguments():
    with pytest.raises(TypeError, match=r"predict is a str"):
        evaluate_store("model", GOLD)
    with pytest.raises(ValueError, match=r"errors must be 'record' or 'raise', got 'skip'"):
        evaluate_store(echo, GOLD, errors="skip")


# ---------------------------------------------------------------------------
# evaluate_store: persistence and resume
# ---------------------------------------------------------------------------


def test_persisted_run_writes_results_and_summary(tmp_path):
    r = evaluate_store(echo, GOLD, run_id="nightly", rootdir=tmp_path)
    assert r.detail["run_id"] == "nightly"
    header = json_store("runs", rootdir=tmp_path)["documents.nightly"]
    assert (header["kind"], header["format"], header["status"]) == ("documents", 2, "complete")
    assert header["settings"] == {"metric": "cer", "normalize": "", "grammar": "", "weights": ""}
    summary = header["summary"]
    assert summary["metric"] == "cer"
    assert summary["n_items"] == 3 and summary["n_scored"] == 3 and summary["n_errors"] == 0
    assert summary["aggregate"] == pytest.approx(0.4)
    assert summary["per_slice"] == {"easy": 0.0, "hard": pytest.approx(4 / 7)}
    chunks = [
        json_store("results", rootdir=tmp_path)[k]
        for k in json_store("results", rootdir=tmp_path)
        if k.startswith("documents.nightly.")
    ]
    assert all((c["kind"], c["format"], c["run_id"]) == ("documents", 2, "nightly") for c in chunks)
    items = [item for c in chunks for item in c["items"].values()]
    assert sorted(i["key"] for i in items) == ["a", "b", "c"]


def test_persist_without_run_id_names_the_run(tmp_path):
    r = evaluate_store(echo, GOLD, persist=True, rootdir=tmp_path)
    assert r.detail["run_id"].startswith("run-")
    assert f"documents.{r.detail['run_id']}" in json_store("runs", rootdir=tmp_path)


def test_rerun_reuses_every_stored_item(tmp_path):
    first = evaluate_store(echo, GOLD, run_id="r", rootdir=tmp_path)
    predict = Counting()
    again = evaluate_store(predict, GOLD, run_id="r", rootdir=tmp_path)
    assert predict.calls == [] and again == first


def test_resume_after_keyboard_interrupt_scores_only_the_rest(tmp_path):
    gold = _gold(20)

    def interrupted(x):
        if x == "w12":
            raise KeyboardInterrupt
        return x

    with pytest.raises(KeyboardInterrupt):
        evaluate_store(interrupted, gold, run_id="r", rootdir=tmp_path)
    assert json_store("runs", rootdir=tmp_path)["documents.r"]["status"] == "running"
    predict = Counting()
    resumed = evaluate_store(predict, gold, run_id="r", rootdir=tmp_path)
    assert predict.calls == [f"w{i}" for i in range(12, 20)]
    fresh = evaluate_store(echo, gold, run_id="r", rootdir=tmp_path / "other")
    assert resumed == fresh
    assert json_store("runs", rootdir=tmp_path)["documents.r"]["status"] == "complete"


def _stops_at(*inputs):
    """A predictor that raises KeyboardInterrupt once on each of ``inputs`` (as a user's Ctrl-C)."""
    pending = set(inputs)

    def predict(x):
        if x in pending:
            pending.discard(x)
            raise KeyboardInterrupt
        return x

    return predict


def _raise_on_any(x):
    raise AssertionError(f"{x!r} was predicted again, but its stored result should have been reused")


@pytest.mark.parametrize("stops", [("w7",), ("w5", "w13")], ids=["one-stop", "two-stops"])
def test_results_written_before_and_after_an_interruption_all_survive(tmp_path, stops):
    """Every stored result is kept across resumes: a third run predicts nothing.

    Written against what a user sees (predictor calls and reports), so it keeps
    its meaning whatever the layout of the stored chunks.
    """
    gold = _gold(20)
    predict = _stops_at(*stops)
    for _ in stops:
        with pytest.raises(KeyboardInterrupt):
            evaluate_store(predict, gold, run_id="r", rootdir=tmp_path, metric="cer")
    resumed_calls = Counting()
    resumed = evaluate_store(resumed_calls, gold, run_id="r", rootdir=tmp_path, metric="cer")
    assert resumed_calls.calls == [f"w{i}" for i in range(int(stops[-1][1:]), 20)]

    third = Counting()
    again = evaluate_store(third, gold, run_id="r", rootdir=tmp_path, metric="cer")
    assert third.calls == []  # the items stored before and after each interruption are all on disk
    clean = evaluate_store(echo, gold, run_id="r", rootdir=tmp_path / "clean", metric="cer")
    assert again == resumed == clean
    assert set(again.detail["per_item"]) == set(gold)
    # and a fourth run that could not predict anything still returns the whole report
    assert evaluate_store(_raise_on_any, gold, run_id="r", rootdir=tmp_path, metric="cer", errors="raise") == clean


def test_errors_raise_keeps_finished_items_for_resume(tmp_path):
    with pytest.raises(RuntimeError):
        evaluate_store(Counting(fail_on={"brid"}), GOLD, run_id="r", rootdir=tmp_path, errors="raise")
    predict = Counting()
    evaluate_store(predict, GOLD, run_id="r", rootdir=tmp_path)
    assert predict.calls == ["brid"]


def test_resume_retries_failed_items_and_changed_gold(tmp_path):
    with pytest.warns(UserWarning):
        evaluate_store(Counting(fail_on={"dgo"}), GOLD, run_id="r", rootdir=tmp_path)
    changed = {**GOLD, "c": {"input": "brd", "reference": "bird", "slice": "hard"}}
    predict = Counting()
    r = evaluate_store(predict, changed, run_id="r", rootdir=tmp_path)
    assert predict.calls == ["dgo", "brd"]
    assert r.detail["errors"] == {} and r.n == 3


def test_resume_false_predicts_everything_again(tmp_path):
    evaluate_store(echo, GOLD, run_id="r", rootdir=tmp_path)
    predict = Counting()
    evaluate_store(predict, GOLD, run_id="r", rootdir=tmp_path, resume=False)
    assert predict.calls == ["cat", "dgo", "brid"]
    chunks = [k for k in json_store("results", rootdir=tmp_path) if k.startswith("documents.r.")]
    # the old chunks were dropped once the new run was complete; the new ones are a generation of their own
    assert len(chunks) == 1 and re.fullmatch(r"documents\.r\.000000\.v[0-9a-f]{12}", chunks[0])


def test_resume_refuses_another_metric(tmp_path):
    evaluate_store(echo, GOLD, run_id="r", rootdir=tmp_path, metric="cer")
    with pytest.raises(
        ValueError,
        match=r"run_id 'r' was started with metric='cer', but this call has "
        r"metric='wer'.*resume=False",
    ):
        evaluate_store(echo, GOLD, run_id="r", rootdir=tmp_path, metric="wer")


def test_resumed_run_keeps_a_dispatched_metric(tmp_path):
    evaluate_store(echo, GOLD, run_id="r", rootdir=tmp_path)
    assert evaluate_store(echo, GOLD, run_id="r", rootdir=tmp_path).metric == "cer"


def test_bad_run_id(tmp_path):
    with pytest.raises(ValueError, match=r"run_id must be a non-empty str"):
        evaluate_store(echo, GOLD, run_id=".hidden", rootdir=tmp_path)


def test_predictions_json_cannot_hold_are_kept_as_repr(tmp_path):
    class Box:
        def __init__(self, text):
            self.text = text

        def __repr__(self):
            return f"Box({self.text!r})"

    gold = {"a": {"input": "ab", "reference": Box("ab")}}
    r = evaluate_store(Box, gold, metric="cer", run_id="r", rootdir=tmp_path)
    assert r.aggregate == 0.0 and r.detail["per_item"]["a"]["prediction"] == "Box('ab')"
    assert r.detail["per_item"]["a"]["reference"] == "Box('ab')"
    predict = Counting()
    assert evaluate_store(predict, gold, metric="cer", run_id="r", rootdir=tmp_path) == r
    assert predict.calls == []


def test_a_score_detail_json_cannot_hold_stops_persistence(tmp_path):
    def odd(pred, gold, *, grammar=None):
        return Score(float(pred == gold), metric="odd", detail={"alignment": object()})

    with pytest.raises(TypeError, match=r"metric 'odd' put a value JSON cannot hold in Score.detail.*persist=False"):
        evaluate_store(echo, GOLD, metric=odd, run_id="r", rootdir=tmp_path)
    assert evaluate_store(echo, GOLD, metric=odd).aggregate == pytest.approx(1 / 3)  # fine in memory


def test_chunks_are_written_while_the_run_goes_on(tmp_path, monkeypatch):
    monkeypatch.setattr("ek._runs._execute.FLUSH_SECONDS", 0.0)
    evaluate_store(echo, GOLD, run_id="r", rootdir=tmp_path)
    chunks = [k for k in json_store("results", rootdir=tmp_path) if k.startswith("documents.r.")]
    assert chunks == ["documents.r.000000", "documents.r.000001", "documents.r.000002"]


# ---------------------------------------------------------------------------
# evaluate_store: progress
# ---------------------------------------------------------------------------


def test_progress_bar_when_asked(capsys):
    evaluate_store(echo, GOLD, progress=True)
    err = capsys.readouterr().err
    assert "evaluate_store |" in err and "3/3" in err and err.endswith("\n")


def test_no_progress_bar_off_a_terminal(capsys):
    evaluate_store(echo, GOLD)  # captured stderr is not a terminal
    evaluate_store(echo, GOLD, progress=False)
    assert capsys.readouterr().err == ""


def test_progress_bar_counts_reused_and_failed_items(tmp_path, capsys):
    evaluate_store(echo, GOLD, run_id="r", rootdir=tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        evaluate_store(
            Counting(fail_on={"dgo"}),
            {**GOLD, "d": {"input": "dgo", "reference": "dog"}},
            run_id="r",
            rootdir=tmp_path,
            progress=True,
        )
    err = capsys.readouterr().err
    assert "4/4" in err and "3 reused" in err and "1 failed" in err


# ---------------------------------------------------------------------------
# baselines
# ---------------------------------------------------------------------------


def test_save_and_load_baseline_round_trip(tmp_path):
    report = evaluate_store(echo, GOLD)
    saved = save_baseline(report, "main", rootdir=tmp_path)
    assert saved == load_baseline("main", rootdir=tmp_path)
    assert saved["metric"] == "cer" and saved["higher_is_better"] is False
    assert saved["aggregate"] == pytest.approx(0.4) and saved["n"] == 3
    assert saved["per_slice"] == {"easy": 0.0, "hard": pytest.approx(4 / 7)}
    assert saved["slice_n"] == {"easy": 1, "hard": 2}


def test_load_missing_baseline_is_none(tmp_path):
    assert load_baseline("nope", rootdir=tmp_path) is None


def test_baseline_uses_ek_data_home(tmp_path, monkeypatch):
    monkeypatch.setenv("EK_DATA_HOME", str(tmp_path))
    save_baseline(evaluate_store(echo, GOLD), "env")
    assert (tmp_path / "baselines" / "documents.env.json").is_file()
    assert regression_gate(evaluate_store(echo, GOLD), "env")


def test_save_baseline_refuses_empty_reports_and_non_reports(tmp_path):
    with pytest.raises(ValueError, match=r"empty 'cer' report"):
        save_baseline(Report(metric="cer"), "x", rootdir=tmp_path)
    with pytest.raises(TypeError, match=r"takes a Report, got dict"):
        save_baseline({"aggregate": 1.0}, "x", rootdir=tmp_path)


# ---------------------------------------------------------------------------
# regression gate
# ---------------------------------------------------------------------------


def _report(metric, aggregate, per_slice, higher_is_better=None):
    detail = {} if higher_is_better is None else {"higher_is_better": higher_is_better}
    return Report(
        metric=metric,
        aggregate=aggregate,
        n=2,
        scores=(Score(aggregate, metric=metric),),
        per_slice=per_slice,
        detail=detail,
    )


def test_gate_passes_on_the_same_report(tmp_path):
    report = evaluate_store(echo, GOLD)
    save_baseline(report, "main", rootdir=tmp_path)
    gate = regression_gate(report, "main", rootdir=tmp_path)
    assert isinstance(gate, GateResult) and gate and gate.passed and gate.regressions == ()
    assert gate.higher_is_better is False and gate.metric == "cer"
    assert str(gate).startswith("PASS")


def test_gate_catches_a_slice_regression_behind_a_better_aggregate(tmp_path):
    baseline = save_baseline(evaluate_store(echo, GOLD), "main", rootdir=tmp_path)
    # New system: fixes "dgo" and "brid" entirely but breaks the easy item.
    better = {"cat": "cta", "dgo": "dog", "brid": "bird"}
    report = evaluate_store(better.get, GOLD)
    assert report.aggregate < baseline["aggregate"]  # CER went down overall
    gate = regression_gate(report, baseline)
    assert not gate
    assert [(r["slice"], r["baseline"], r["current"]) for r in gate.regressions] == [
        ("easy", 0.0, pytest.approx(2 / 3))
    ]
    assert "slice 'easy'" in str(gate) and str(gate).startswith("FAIL")


def test_gate_direction_comes_from_the_report_detail():
    base = {"metric": "custom", "aggregate": 0.5, "per_slice": {}}
    assert not regression_gate(_report("custom", 0.6, {}, higher_is_better=False), base)
    assert regression_gate(_report("custom", 0.6, {}, higher_is_better=True), base)


def test_gate_tolerance_and_override():
    base = {"metric": "fields", "aggregate": 0.80, "per_slice": {"pdf": 0.9}}
    current = _report("fields", 0.79, {"pdf": 0.9})
    gate = regression_gate(current, base)  # field F1: the registered metric says higher is better
    assert not gate and gate.regressions[0]["slice"] is None
    assert gate.regressions[0]["delta"] == pytest.approx(-0.01)
    assert regression_gate(current, base, tolerance=0.02)
    assert regression_gate(current, base, higher_is_better=False)


def test_gate_missing_slice_is_a_regression():
    base = {"metric": "cer", "aggregate": 0.1, "per_slice": {"scans": 0.2, "born-digital": 0.05}}
    gate = regression_gate(_report("cer", 0.1, {"born-digital": 0.05}), base)
    assert not gate and gate.regressions == ({"slice": "scans", "baseline": 0.2, "current": None, "delta": None},)
    assert "missing from the report" in str(gate)


def test_gate_new_slices_cannot_regress():
    base = {"metric": "cer", "aggregate": 0.1, "per_slice": {}}
    assert regression_gate(_report("cer", 0.1, {"new": 0.9}), base)


def test_gate_refuses_a_baseline_of_another_metric():
    base = {"metric": "wer", "aggregate": 0.1, "per_slice": {}}
    with pytest.raises(ValueError, match=r"refuses to compare a 'cer' report with a baseline of metric 'wer'"):
        regression_gate(_report("cer", 0.1, {}), base)


def test_gate_missing_named_baseline(tmp_path):
    with pytest.raises(ValueError, match=r"no documents baseline named 'main'.*save_baseline\(report, 'main'\)"):
        regression_gate(_report("cer", 0.1, {}), "main", rootdir=tmp_path)


def test_gate_bad_baseline_and_tolerance():
    with pytest.raises(ValueError, match=r"baseline has no 'aggregate' entry"):
        regression_gate(_report("cer", 0.1, {}), {"metric": "cer"})
    with pytest.raises(TypeError, match=r"baseline is a float"):
        regression_gate(_report("cer", 0.1, {}), 0.1)
    with pytest.raises(ValueError, match=r"tolerance must be a finite number >= 0, got -0.1"):
        regression_gate(_report("cer", 0.1, {}), {"metric": "cer", "aggregate": 0.1}, tolerance=-0.1)


def test_gate_refuses_an_empty_report():
    with pytest.raises(ValueError, match=r"empty 'cer' report"):
        regression_gate(Report(metric="cer"), {"metric": "cer", "aggregate": 0.1})


def test_gate_unknown_direction_asks_for_it():
    report = Report(metric="zap", aggregate=1.0, n=1, scores=(Score(1.0, metric="zap"),))
    with pytest.raises(ValueError, match=r"cannot tell whether higher or lower 'zap'.*higher_is_better="):
        regression_gate(report, {"metric": "zap", "aggregate": 1.0})
    assert regression_gate(report, {"metric": "zap", "aggregate": 1.0, "higher_is_better": True})
    # the name alone is not guessed at: no registered metric is called this
    unregistered = Report(metric="word_error_rate", aggregate=0.5, n=1, scores=(Score(0.5),))
    with pytest.raises(ValueError, match=r"nor a metric registered under that name"):
        regression_gate(unregistered, {"metric": "word_error_rate", "aggregate": 0.6})


def test_gate_direction_from_the_registered_metric():
    report = Report(metric="fields", aggregate=0.5, n=1, scores=(Score(0.5),))
    assert not regression_gate(report, {"metric": "fields", "aggregate": 0.6})
    report = Report(metric="wer", aggregate=0.5, n=1, scores=(Score(0.5),))
    assert regression_gate(report, {"metric": "wer", "aggregate": 0.6})
    # the report's own record wins over the registered metric of its name
    assert not regression_gate(_report("wer", 0.5, {}, higher_is_better=True), {"metric": "wer", "aggregate": 0.6})


@pytest.mark.parametrize("name,higher", [("typed_graph", False), ("trajectory", False), ("tool_call", True)])
def test_gate_direction_of_the_graph_and_agent_metric_names(name, higher):
    # The spec: CER/WER/graph are lower-is-better. A report without declared scores
    # (a hand-built one, or a baseline dict) must still get the direction from the name.
    report = Report(metric=name, aggregate=0.5, n=1, scores=(Score(0.5),))
    gate = regression_gate(report, {"metric": name, "aggregate": 0.4})
    assert gate.higher_is_better is higher
    assert bool(gate) is higher


def test_harness_public_names():
    import ek.harness as H

    assert set(H.__all__) == {
        "BaselineRecord",  # the declared records of issue 32
        "GateResult",
        "Regression",
        "RunOptions",  # the run options as one value (issue 32)
        "cohen_kappa",
        "evaluate_store",
        "krippendorff_alpha",
        "load_baseline",
        "percent_agreement",
        "regression_gate",
        "save_baseline",
    }
    # a package whose helpers (agreement statistics, baselines) sit beside it, privately
    assert H.__file__.endswith(os.path.join("harness", "__init__.py"))
    assert {H.cohen_kappa.__module__, H.regression_gate.__module__} == {"ek.harness"}


def test_resume_refuses_other_scoring_settings(tmp_path):
    gold = {"a": {"input": "Cat", "reference": "cat"}, "b": {"input": "DOG", "reference": "dog"}}
    evaluate_store(lambda x: x, gold, metric="cer", run_id="r", rootdir=tmp_path)
    with pytest.raises(
        ValueError,
        match=r"run_id 'r' was started with normalize='', but this call has "
        r"normalize='lower'",
    ):
        evaluate_store(lambda x: x, gold, metric="cer", run_id="r", rootdir=tmp_path, normalize="lower")
    # the same settings resume; resume=False starts over under the new ones
    again = evaluate_store(lambda x: x, gold, metric="cer", run_id="r", rootdir=tmp_path)
    fresh = evaluate_store(
        lambda x: x, gold, metric="cer", run_id="r", rootdir=tmp_path, normalize="lower", resume=False
    )
    assert again.aggregate == pytest.approx(4 / 6) and fresh.aggregate == 0.0


# ---------------------------------------------------------------------------
# faults found by a hostile user
# ---------------------------------------------------------------------------


def test_per_item_scores_are_numbers_to_sort_and_threshold():
    r = evaluate_store(echo, GOLD)
    items = r.detail["per_item"]
    worst = sorted(items, key=lambda k: items[k]["score"], reverse=True)
    assert worst == ["b", "c", "a"] and [k for k in items if items[k]["score"] > 0.5] == ["b"]
    assert items["c"]["detail"] == {"edits": 2, "ref_len": 4}


@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_a_non_finite_report_or_baseline_is_refused_by_the_gate(tmp_path, bad):
    good = {"metric": "cer", "aggregate": 0.1, "per_slice": {"pdf": 0.2}}
    figure = r"a NaN, infinite or non-numeric {} figure \((nan|inf)\), which cannot be compared"
    with pytest.raises(ValueError, match=r"regression_gate\(\): the report has " + figure.format("aggregate")):
        regression_gate(_report("cer", bad, {}), good)
    with pytest.raises(ValueError, match=r"the report has " + figure.format("slice 'pdf'")):
        regression_gate(_report("cer", 0.1, {"pdf": bad}), good)
    with pytest.raises(ValueError, match=r"regression_gate\(\) baseline has " + figure.format("aggregate")):
        regression_gate(_report("cer", 0.1, {}), {**good, "aggregate": bad})
    with pytest.raises(ValueError, match=r"save_baseline\(\): the report has " + figure.format("aggregate")):
        save_baseline(_report("cer", bad, {}), "main", rootdir=tmp_path)
    assert load_baseline("main", rootdir=tmp_path) is None


def test_a_metric_returning_nan_is_an_error_naming_the_item():
    def shaky(pred, gold, *, grammar=None):
        return Score(math.nan if pred == "dgo" else 0.0, metric="shaky", detail={"n": 1})

    with pytest.raises(
        ValueError,
        match=r"could not score gold item 'b' \(prediction 'dgo'\).*metric 'shaky' "
        r"returned NaN for item 0 \(id 'b'\)",
    ):
        evaluate_store(echo, GOLD, metric=shaky)


def test_slice_labels_that_merge_as_text_are_refused_and_the_old_baseline_kept(tmp_path):
    save_baseline(evaluate_store(echo, GOLD), "main", rootdir=tmp_path)
    merged = Report(metric="cer", aggregate=0.1, n=2, per_slice={1: 0.0, "1": 0.2})
    with pytest.raises(ValueError, match=r"slice labels 1 and '1' are both stored as '1'"):
        save_baseline(merged, "main", rootdir=tmp_path)
    assert load_baseline("main", rootdir=tmp_path)["aggregate"] == pytest.approx(0.4)


def test_document_and_agent_baselines_of_one_name_coexist(tmp_path):
    from ek.agents import TaskSpec, load_agent_baseline, run_suite, save_agent_baseline

    doc = save_baseline(evaluate_store(echo, GOLD), "main", rootdir=tmp_path)
    agent = save_agent_baseline(run_suite(lambda t: t.gold, [TaskSpec("t", gold="a")]), "main", rootdir=tmp_path)
    assert load_baseline("main", rootdir=tmp_path) == doc and doc["kind"] == "documents"
    assert load_agent_baseline("main", rootdir=tmp_path) == agent and agent["kind"] == "agents"
    save_agent_baseline(run_suite(lambda t: t.gold, [TaskSpec("t", gold="a")]), "agents-only", rootdir=tmp_path)
    with pytest.raises(
        ValueError,
        match=r"load_baseline\('agents-only'\): the baseline of that name is an? agents "
        r"baseline.*ek.agents.load_agent_baseline\(\)",
    ):
        load_baseline("agents-only", rootdir=tmp_path)
    save_baseline(evaluate_store(echo, GOLD), "docs-only", rootdir=tmp_path)
    with pytest.raises(ValueError, match=r"is a documents baseline.*ek.harness.load_baseline\(\)"):
        load_agent_baseline("docs-only", rootdir=tmp_path)


def test_a_baseline_saved_before_baselines_had_a_kind_is_still_read(tmp_path):
    json_store("baselines", rootdir=tmp_path)["old"] = {
        "name": "old",
        "metric": "cer",
        "higher_is_better": False,
        "aggregate": 0.4,
        "n": 3,
        "per_slice": {"easy": 0.0},
        "slice_n": {"easy": 1},
        "saved_at": "2024-06-01T00:00:00+00:00",
    }
    base = load_baseline("old", rootdir=tmp_path)
    assert base["aggregate"] == 0.4 and base["kind"] == "documents"
    gate = regression_gate(evaluate_store(echo, GOLD), "old", rootdir=tmp_path)
    assert gate and gate.aggregate_baseline == 0.4 and gate.higher_is_better is False


@pytest.mark.parametrize(
    "edit,problem",
    [
        (lambda b: b.update(aggregate="0.4"), r"non-numeric aggregate figure \('0.4'\)"),
        (lambda b: b.update(per_slice=[0.1]), r"has a per_slice that is list, not a mapping"),
        (lambda b: b.update(metric=None), r"has metric None, not a metric name"),
        (lambda b: b.update(kind="agents"), r"its kind is 'agents', not 'documents'"),
    ],
)
def test_a_damaged_baseline_names_its_file_and_what_is_wrong(tmp_path, edit, problem):
    save_baseline(evaluate_store(echo, GOLD), "main", rootdir=tmp_path)
    path = tmp_path / "baselines" / "documents.main.json"
    record = json.loads(path.read_text())
    edit(record)
    path.write_text(json.dumps(record))
    with pytest.raises(ValueError, match=rf"{path} is a damaged documents baseline: .*{problem}.*save_baseline"):
        regression_gate(evaluate_store(echo, GOLD), "main", rootdir=tmp_path)
