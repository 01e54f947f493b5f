"""ek.ocr.benchmark_fleet: a fleet of engines over one gold corpus, checked against evaluate_ocr + ek.compare.

Fake engines (tests/ocr/_fleet_fakes.py) carry the hand-worked figures and
the invariants; real Tesseract and RapidOCR over bundled images carry the
equality with `evaluate_ocr` + `ek.compare` engine by engine, the ROVER row,
and a run killed mid-way that resumes to the same report. They read each
page once a test run (tests/ocr/_engine_cache.py), through ``ek benchmark``
first: what is checked is the fleet's figures against evaluate_ocr's of the
same readings, not that an engine reads a page alike twice.
"""

from __future__ import annotations

import math
import os
import signal
import subprocess
import sys
import textwrap
import time
import typing
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ek
from ek.ocr import FleetReport, benchmark_fleet, evaluate_ocr
from ek.ocr._fleet.consensus import BREAK_CONFIDENCE, consensus_texts, vote_units
from ek.ocr._fleet.pages import FleetTask, Page, image_problem
from ek.ocr._fleet.schedule import engine_run_id
from ek.ocr.benchmark import ConfidenceCalibration, EngineResult
from tests.ocr import _engine_cache
from tests.ocr import _fleet_fakes as fakes
from tests.ocr._fleet_fakes import Result, reader

ROOT = Path(__file__).resolve().parents[2]
requires_tesseract = pytest.mark.needs("tesseract")  # the program (tests/conftest.py: PROGRAMS)
requires_rapidocr = pytest.mark.needs("rapidocr_onnxruntime")


def comparable(report: FleetReport) -> dict:
    """Every figure of a fleet report except the seconds (which no two runs share)."""

    def row(r):
        items = {k: {f: v for f, v in e.items() if f != "seconds"} for k, e in r.report.detail["per_item"].items()}
        c = r.comparison
        return (
            r.name,
            r.aggregate,
            r.interval,
            dict(r.slice_intervals),
            items,
            dict(r.errors),
            r.timeouts,
            r.mean_confidence,
            r.calibration,
            dict(r.report.per_slice),
            None if c is None else (c.delta, c.interval, c.p_value, c.verdict, c.n, dict(c.per_slice)),
        )

    return {
        "ranking": report.ranking,
        "best": report.best,
        "rows": [row(r) for r in report.rows],
        "texts": dict(report.consensus_texts),
        "unreadable": dict(report.unreadable),
        "skipped": dict(report.skipped),
    }


# ---------------------------------------------------------------------------
# hand-worked figures


def test_two_engines_hand_worked():
    gold = {
        "a": {"image": "a", "reference_text": "cat", "slice": "s1"},
        "b": {"image": "b", "reference_text": "dog", "slice": "s2"},
    }
    good = reader({"a": "cat", "b": "dig"})  # 1 edit / 6 characters
    bad = reader({"a": "cut", "b": "fog"})  # 2 edits / 6 characters
    report = benchmark_fleet({"good": good, "bad": bad}, gold, consensus=False)
    assert report.ranking == ("good", "bad") and report.best == "good"
    assert report["good"].aggregate == pytest.approx(1 / 6)
    assert report["bad"].aggregate == pytest.approx(2 / 6)
    assert report["good"].comparison is None
    c = report["bad"].comparison
    assert c.delta == pytest.approx(1 / 6)  # engine - best
    assert c.n == 2 and math.isnan(c.interval[0]) and c.verdict == "too few items (n=2) to tell"
    assert report["bad"].report.per_slice == {"s1": pytest.approx(1 / 3), "s2": pytest.approx(1 / 3)}
    assert math.isnan(report["bad"].interval[0])  # under 40 pages: no interval, as ek gives it
    assert report.consensus is None and report.consensus_texts == {}
    assert report.metric == "cer" and report.higher_is_better is False and report.n_items == 2


def test_every_figure_equals_evaluate_ocr_and_compare_engine_by_engine():
    gold = fakes.gold(48)  # 40+ pages: real intervals and bootstrap p-values
    report = benchmark_fleet({"careful": fakes.careful, "sloppy": fakes.sloppy}, gold, level=0.9)
    alone = {
        name: evaluate_ocr(engine, gold) for name, engine in (("careful", fakes.careful), ("sloppy", fakes.sloppy))
    }
    assert report.best == "careful"
    for name, single in alone.items():
        row = report[name]
        assert row.aggregate == single.aggregate and row.report.n == single.n
        assert row.report.per_slice == single.per_slice
        assert row.interval == single.interval(0.9)
        assert not math.isnan(row.interval[0])
        assert row.slice_intervals == {s: single.interval(0.9, slice=s) for s in single.per_slice}
        assert [e["prediction"] for e in row.report.detail["per_item"].values()] == [
            e["prediction"] for e in single.detail["per_item"].values()
        ]
    expected = ek.compare(alone["careful"], alone["sloppy"], level=0.9)
    got = report["sloppy"].comparison
    assert (got.delta, got.interval, got.p_value, got.verdict, got.n) == (
        expected.delta,
        expected.interval,
        expected.p_value,
        expected.verdict,
        expected.n,
    )
    assert got.per_slice == expected.per_slice
    assert got.verdict == "worse"


def test_fleet_of_one_has_no_comparison_and_no_consensus():
    report = benchmark_fleet(fakes.careful, fakes.gold(3))
    assert report.ranking == ("careful",) and report.best == "careful"
    assert report["careful"].comparison is None and report.consensus is None
    assert report["careful"].aggregate == evaluate_ocr(fakes.careful, fakes.gold(3)).aggregate


def test_ranking_follows_the_metric_direction_and_keeps_ties_in_order():
    gold = {"a": {"image": "a", "reference_text": "abcd"}}
    engines = {"x": reader({"a": "abcf"}), "y": reader({"a": "abcd"}), "z": reader({"a": "abce"})}
    report = benchmark_fleet(engines, gold, consensus=False)
    assert report.ranking == ("y", "x", "z")  # x and z tie at 1/4: the order given
    assert [r.name for r in report.rows] == ["y", "x", "z"]


def test_comparison_on_the_pages_both_read_when_an_engine_fails_on_some():
    gold = fakes.gold(6)
    flaky = {f"img-{i}": (OSError("scanner jam") if i in (1, 4) else fakes.sloppy(f"img-{i}")) for i in range(6)}
    with pytest.warns(UserWarning, match="failed on 2 of 6"):
        single = evaluate_ocr(reader(flaky), gold)
    report = benchmark_fleet({"careful": fakes.careful, "flaky": reader(flaky)}, gold, consensus=False)
    row = report["flaky"]
    assert row.errors == {"p001": "OSError: scanner jam", "p004": "OSError: scanner jam"}
    assert row.report.n == 4 and row.aggregate == single.aggregate
    careful = evaluate_ocr(fakes.careful, {k: v for k, v in gold.items() if k not in row.errors})
    expected = ek.compare(careful, single)
    assert row.comparison.n == 4
    assert (row.comparison.delta, row.comparison.p_value) == (expected.delta, expected.p_value)


# ---------------------------------------------------------------------------
# the ROVER consensus


def test_rover_row_equals_evaluate_of_the_consensus_texts():
    gold = fakes.gold(10)
    report = benchmark_fleet({"careful": fakes.careful, "sloppy": fakes.sloppy, "plain": fakes.plain}, gold)
    texts = report.consensus_texts
    assert list(texts) == list(gold)
    expected = ek.evaluate(
        [(texts[k], r["reference_text"], r["slice"]) for k, r in gold.items()], metric="cer", ids=list(gold)
    )
    row = report.consensus
    assert row is report["rover"] and "rover" in report.ranking
    assert row.aggregate == expected.aggregate and row.report.per_slice == expected.per_slice
    assert row.comparison.delta == pytest.approx(row.aggregate - report[report.best].aggregate)
    # three engines: a majority forms on every word, so each page is read right
    assert all(texts[k] == r["reference_text"] for k, r in gold.items())


def test_two_engines_break_ties_by_their_word_confidences():
    gold = {"a": {"image": "a", "reference_text": "the cat sat"}}
    sure = reader({"a": Result("the cat sat", [0.9, 0.9, 0.9])})
    unsure_cot = reader({"a": Result("the cot sat", [0.9, 0.4, 0.9])})
    sure_cot = reader({"a": Result("the cot sat", [0.9, 0.99, 0.9])})
    assert benchmark_fleet({"a": sure, "b": unsure_cot}, gold).consensus_texts == {"a": "the cat sat"}
    assert benchmark_fleet({"a": sure, "b": sure_cot}, gold).consensus_texts == {"a": "the cot sat"}


def test_consensus_keeps_a_line_break_only_where_both_engines_put_one():
    entries = [
        {"a": {"error": None, "prediction": "one two\nthree four", "blocks": None, "confidence": 0.9}},
        {"a": {"error": None, "prediction": "one\ntwo\nthree four", "blocks": None, "confidence": 0.99}},
    ]
    assert consensus_texts(["a"], entries) == {"a": "one two\nthree four"}
    b = ("\ufdd0", BREAK_CONFIDENCE)
    assert vote_units(entries[1]["a"]) == [
        *((c, 0.99) for c in "one"),
        b,
        *((c, 0.99) for c in "two"),
        b,
        *((c, 0.99) for c in "three four"),
    ]


def test_a_character_vote_mends_words_one_engine_ran_together():
    # RapidOCR drops the spaces between words; Tesseract misreads a letter: each is outvoted where it errs
    tesseract = {
        "error": None,
        "prediction": "It was the best of tirnes",
        "confidence": None,
        "blocks": [
            [w, c, "word"]
            for w, c in zip(["It", "was", "the", "best", "of", "tirnes"], [0.96, 0.95, 0.97, 0.96, 0.95, 0.6])
        ],
    }
    rapidocr = {
        "error": None,
        "prediction": "Itwasthebestof times",
        "confidence": 0.93,
        "blocks": [["Itwasthebestof times", 0.93, "line"]],
    }
    assert consensus_texts(["p"], [{"p": tesseract}, {"p": rapidocr}]) == {"p": "It was the best of times"}
    units = vote_units(tesseract)
    assert units[:4] == [("I", 0.96), ("t", 0.96), (" ", (0.96 + 0.95) / 2), ("w", 0.95)]


def test_consensus_of_a_page_no_engine_read_is_none_and_listed():
    gold = {"a": {"image": "a", "reference_text": "cat"}, "b": {"image": "b", "reference_text": "dog"}}
    broken = {"a": "cat", "b": OSError("torn page")}
    report = benchmark_fleet({"x": reader(broken), "y": reader(dict(broken))}, gold)
    assert report.consensus_texts == {"a": "cat", "b": None}
    assert report.consensus.errors == {"b": "ValueError: no engine read this page, so there is no consensus"}
    assert report.consensus.report.n == 1


def test_a_reading_ten_times_shorter_than_the_others_sits_out_the_vote():
    entries = [
        {"a": {"error": None, "prediction": "one two three four five six seven eight nine ten eleven"}},
        {"a": {"error": None, "prediction": "x"}},
    ]
    assert consensus_texts(["a"], entries) == {"a": "one two three four five six seven eight nine ten eleven"}


@settings(max_examples=30, deadline=None)
@given(st.lists(st.text(alphabet="abc \n", min_size=1, max_size=20), min_size=1, max_size=3))
def test_consensus_of_identical_readings_is_that_reading(lines):
    text = "\n".join(" ".join(line.split()) for line in "".join(lines).splitlines() if line.split())
    entries = [{"k": {"error": None, "prediction": text}} for _ in range(3)]
    assert consensus_texts(["k"], entries) == {"k": text}


# ---------------------------------------------------------------------------
# confidence and its calibration


def test_word_calibration_hand_worked():
    # words a, x, y, z against "a b c d": right, wrong, wrong, wrong at confidences .75 .75 .25 .25
    gold = {"p": {"image": "p", "reference_text": "a b c d"}}
    engine = reader({"p": Result("a x y z", [0.75, 0.75, 0.25, 0.25])})
    row = benchmark_fleet(engine, gold)["read"]
    assert row.calibration == {
        "unit": "word",
        "n": 4,
        "ece": pytest.approx(0.25),
        "curve": ek.qe.reliability_curve([0.75, 0.75, 0.25, 0.25], [True, False, False, False]),
    }
    assert row.mean_confidence == pytest.approx(0.5)
    hint = typing.get_type_hints(EngineResult)["calibration"]
    assert typing.get_args(hint)[0] is ConfidenceCalibration  # the field declares exactly these keys
    assert set(row.calibration) == ConfidenceCalibration.__required_keys__


def test_line_calibration_counts_a_line_right_only_when_every_word_is():
    gold = {"p": {"image": "p", "reference_text": "a b\nc d"}}
    engine = reader({"p": Result("a b\nc x", [0.9, 0.8], level="line")})
    cal = benchmark_fleet(engine, gold)["read"].calibration
    assert cal["unit"] == "line" and cal["n"] == 2
    assert cal["ece"] == pytest.approx(ek.qe.expected_calibration_error([0.9, 0.8], [True, False]))
    assert cal["ece"] == pytest.approx((0.1 + 0.8) / 2)


def test_calibration_matches_sklearn_over_many_words():
    sklearn_calibration = pytest.importorskip("sklearn.calibration")
    report = benchmark_fleet(fakes.careful, fakes.gold(30))
    cal = report["careful"].calibration
    assert cal["unit"] == "word" and cal["n"] == 30 * 8
    # careful misreads word 2 (confidence 0.55) on every third page and is right (0.95) elsewhere
    probs = [0.95] * (30 * 8 - 10) + [0.55] * 10
    correct = [True] * (30 * 8 - 10) + [False] * 10
    accuracy, confidence = sklearn_calibration.calibration_curve(correct, probs, n_bins=10)
    assert [p["accuracy"] for p in cal["curve"]] == pytest.approx(sorted(accuracy))
    assert [p["confidence"] for p in cal["curve"]] == pytest.approx(sorted(confidence))
    assert cal["ece"] == pytest.approx(10 / 240 * 0.55 + 230 / 240 * 0.05)


def test_engines_without_confidences_have_none_and_a_mean_of_page_confidences_otherwise():
    gold = {"p": {"image": "p", "reference_text": "a"}, "q": {"image": "q", "reference_text": "b"}}
    no_conf = benchmark_fleet(reader({"p": "a", "q": "b"}), gold)["read"]
    assert no_conf.calibration is None and no_conf.mean_confidence is None

    class Paged:
        def __init__(self, text, c):
            self.text, self.mean_confidence, self.blocks = text, c, []

    paged = benchmark_fleet(reader({"p": Paged("a", 0.6), "q": Paged("b", 0.8)}), gold)["read"]
    assert paged.calibration is None and paged.mean_confidence == pytest.approx(0.7)


def test_confidences_outside_zero_one_are_left_out():
    gold = {"p": {"image": "p", "reference_text": "a b"}}
    row = benchmark_fleet(reader({"p": Result("a b", [97, 0.5])}), gold)["read"]
    assert row.report.detail["per_item"]["p"]["blocks"] == [["a", None, "word"], ["b", 0.5, "word"]]
    assert row.calibration["n"] == 1


# ---------------------------------------------------------------------------
# time, failures, timeouts


def test_seconds_are_the_nearest_rank_median_and_p95_of_the_pages_read():
    report = benchmark_fleet(fakes.careful, fakes.gold(21))
    row = report["careful"]
    seconds = sorted(e["seconds"] for e in row.report.detail["per_item"].values())
    assert row.seconds_median == seconds[10]  # rank ceil(0.5 * 21) = 11
    assert row.seconds_p95 == seconds[19]  # rank ceil(0.95 * 21) = 20


def test_a_page_past_the_timeout_is_that_engines_error():
    gold = {"fast": {"image": "fast", "reference_text": "a"}, "slow": {"image": "slow", "reference_text": "b"}}

    def engine(image):
        if image == "slow":
            time.sleep(3)
        return "a" if image == "fast" else "b"

    row = benchmark_fleet(engine, gold, timeout=0.5)["engine"]
    assert row.timeouts == ("slow",)
    assert row.errors["slow"].startswith("TimeoutError: the engine did not read the image within timeout=0.5 s")
    assert row.report.n == 1


def test_engine_that_fails_on_every_page_is_left_out_and_the_rest_runs():
    gold = fakes.gold(3)
    broken = reader({f"img-{i}": RuntimeError("no licence") for i in range(3)})
    report = benchmark_fleet({"careful": fakes.careful, "broken": broken}, gold)
    assert report.ranking == ("careful",)
    assert report.skipped == {"broken": "failed on all 3 pages; first, 'p000': RuntimeError: no licence"}
    with pytest.raises(RuntimeError, match="no engine of the fleet could read the corpus: broken: failed on all"):
        benchmark_fleet({"broken": broken}, gold)


def test_unreadable_images_are_an_error_for_every_engine_and_no_engine_sees_them(tmp_path):
    from PIL import Image

    good = tmp_path / "good.png"
    Image.new("L", (20, 10), 255).save(good)
    (tmp_path / "bad.png").write_bytes(b"not an image at all")
    gold = {
        "g": {"image": str(good), "reference_text": "a"},
        "bad": {"image": str(tmp_path / "bad.png"), "reference_text": "b"},
        "gone": {"image": str(tmp_path / "gone.png"), "reference_text": "c"},
        "dir": {"image": str(tmp_path), "reference_text": "d"},
    }
    seen = []

    def engine(image):
        seen.append(image)
        return "a"

    report = benchmark_fleet({"one": engine, "two": engine}, gold, check_images=True)
    assert seen == [str(good), str(good)]
    assert set(report.unreadable) == {"bad", "gone", "dir"}
    assert "cannot be read as an image" in report.unreadable["bad"]
    assert "does not exist" in report.unreadable["gone"] and "is a folder" in report.unreadable["dir"]
    for name in ("one", "two"):
        assert set(report[name].errors) == {"bad", "gone", "dir"}
        assert report[name].errors["bad"] == "ValueError: " + report.unreadable["bad"]
    assert image_problem(good.read_bytes()) is None and "image bytes" in image_problem(b"\x89PNG broken")


def test_without_an_ocracy_engine_images_are_given_to_the_callables_as_they_are():
    report = benchmark_fleet(reader({"nowhere.png": "a"}), {"k": {"image": "nowhere.png", "reference_text": "a"}})
    assert report.unreadable == {} and report["read"].aggregate == 0.0


# ---------------------------------------------------------------------------
# engines that cannot run, and bad input


def _uninstalled_engine():
    from ek.ocr._engines import check_engine, known_engines

    for engine in ("easyocr", "paddleocr", "trocr-handwritten", "pix2tex-latex-ocr"):
        if engine in known_engines() and check_engine(engine)["state"] == "not installed":
            return engine
    pytest.skip("every candidate engine is installed here")


def test_an_engine_not_installed_is_left_out_with_its_install_line():
    missing = _uninstalled_engine()
    with pytest.warns(UserWarning, match=f"left out: {missing}"):
        report = benchmark_fleet({"careful": fakes.careful, missing: missing}, fakes.gold(2))
    assert report.ranking == ("careful",)
    assert report.skipped[missing].startswith("not installed: ")
    assert "pip install" in report.skipped[missing]
    with pytest.raises(ImportError, match=rf"strict=True\): engine '{missing}' is not installed: .*pip install"):
        benchmark_fleet({"careful": fakes.careful, missing: missing}, fakes.gold(2), strict=True)


def test_an_unknown_engine_id_says_did_you_mean():
    with pytest.raises(KeyError, match="Did you mean 'tesseract'"):
        benchmark_fleet(["teseract"], fakes.gold(1))


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (
            {"level": 1.5},
            r"^benchmark_fleet\(\) level must be a number between 0 and 1 \(e\.g\. 0\.95 for a 95% interval\), got 1\.5\.$",
        ),
        (
            {"level": True},
            r"^benchmark_fleet\(\) level must be a number between 0 and 1 \(e\.g\. 0\.95 for a 95% interval\), got True\.$",
        ),
        ({"timeout": 0}, r"timeout must be a positive number of seconds per item"),
        ({"timeout": float("nan")}, r"timeout must be a positive number"),
        ({"max_workers": 0}, r"benchmark_fleet\(\) max_workers must be a whole number >= 1"),
        ({"metric": "cerr"}, r"cer"),
        ({"run_id": "a/b"}, r"run_id must be a non-empty str"),
    ],
)
def test_bad_options_are_refused_before_any_engine_runs(kwargs, message):
    fakes.CALLS.clear()
    with pytest.raises((ValueError, KeyError), match=message):
        benchmark_fleet(fakes.careful, fakes.gold(2), **kwargs)
    assert fakes.CALLS == []


def test_gold_without_images_or_references_is_refused_naming_the_field():
    with pytest.raises(ValueError, match=r"gold record 'a' has no 'image' field .*image_key="):
        benchmark_fleet(fakes.careful, {"a": {"reference_text": "x"}})
    with pytest.raises(ValueError, match=r"empty gold corpus"):
        benchmark_fleet(fakes.careful, {})
    with pytest.raises(TypeError, match=r"reference must be the true transcription as a str"):
        benchmark_fleet(fakes.careful, {"a": {"image": "img-1", "reference_text": 3}})


def test_a_bad_kind_is_refused():
    with pytest.raises(ValueError, match=r"field 'kind' is 'paragraph'; it must be 'line' or 'page'"):
        benchmark_fleet(fakes.careful, {"a": {"image": "img-1", "reference_text": "x", "kind": "paragraph"}})


def test_the_consensus_name_is_reserved():
    with pytest.raises(ValueError, match="'rover' is the name of the ROVER consensus row"):
        benchmark_fleet({"rover": fakes.careful, "b": fakes.sloppy}, fakes.gold(2))
    plain = benchmark_fleet({"rover": fakes.careful, "b": fakes.plain}, fakes.gold(3), consensus=False)
    assert plain.best == "b" and plain.ranking == ("b", "rover") and plain["rover"].engine == "careful"


def test_the_task_gives_the_page_kind_to_the_engine():
    calls = []

    def read(image, kind=None):
        calls.append((image, kind))
        return "x"

    task = FleetTask(read, "cer", {}, {}, None)
    task.step(Page("k", "img.png", "x", None, "line"))
    task.step(Page("k", "img.png", "x", None, None))
    assert calls == [("img.png", "line"), ("img.png", None)]


def test_engine_run_ids_are_store_safe():
    assert engine_run_id("r1", "tesseract") == "r1.tesseract"
    assert engine_run_id("r1", "tesseract:lang=deu,psm=7") == "r1.tesseract:lang=deu,psm=7"
    odd = engine_run_id("r1", "my/engine")
    assert odd.startswith("r1.my_engine-") and "/" not in odd
    assert engine_run_id("r1", "my/engine") != engine_run_id("r1", "my_engine")


# ---------------------------------------------------------------------------
# concurrency and persistence


def test_engines_side_by_side_give_the_same_report_as_one_after_the_other():
    gold = fakes.gold(12)
    engines = {"careful": fakes.careful, "sloppy": fakes.sloppy, "plain": fakes.plain}
    assert comparable(benchmark_fleet(engines, gold, max_workers=3)) == comparable(benchmark_fleet(engines, gold))


def test_a_persisted_fleet_reads_nothing_twice(tmp_path):
    gold = fakes.gold(8)
    engines = {"careful": fakes.careful, "sloppy": fakes.sloppy}
    first = benchmark_fleet(engines, gold, persist=True, run_id="nightly", rootdir=str(tmp_path))
    fakes.CALLS.clear()
    again = benchmark_fleet(engines, gold, persist=True, run_id="nightly", rootdir=str(tmp_path))
    assert fakes.CALLS == []
    assert comparable(again) == comparable(first) and again.run_id == "nightly"
    stored = ek.stores.json_store("runs", rootdir=str(tmp_path))
    assert {"fleet.nightly.careful", "fleet.nightly.sloppy"} <= set(stored)
    with pytest.raises(ValueError, match="engine"):  # another engine under the same name is refused
        benchmark_fleet({"careful": fakes.sloppy}, gold, persist=True, run_id="nightly", rootdir=str(tmp_path))


def test_a_resumed_fleet_says_what_it_reused_engine_by_engine(tmp_path):
    engines = {"careful": fakes.careful, "sloppy": fakes.sloppy}
    assert benchmark_fleet(engines, fakes.gold(6)).resumed is None  # not stored: nothing to resume
    first = benchmark_fleet(engines, fakes.gold(6), run_id="n", rootdir=str(tmp_path))
    assert first.resumed == {"reused": 0, "read": 12}
    assert first["careful"].resumed == first["sloppy"].resumed == {"reused": 0, "read": 6}
    fakes.CALLS.clear()
    more = benchmark_fleet(engines, fakes.gold(8), run_id="n", rootdir=str(tmp_path))  # two new pages
    assert len(fakes.CALLS) == 4
    assert more.resumed == {"reused": 12, "read": 4} and more["sloppy"].resumed == {"reused": 6, "read": 2}
    assert more.consensus.resumed is None  # the consensus is computed, never stored
    runs = ek.stores.json_store("runs", rootdir=str(tmp_path))
    assert runs["fleet.n.careful"]["resumed"] == {"reused": 6, "read": 2}  # the run's own record says so too
    assert runs["fleet.n.careful"]["summary"]["version"] == dict(more["careful"].version)  # and what read them


def test_engine_names_with_colons_are_stored_under_safe_file_names(tmp_path):
    import re

    from ek._runs import store_key, stored_runs

    engines = {"careful:lang=deu,psm=7": fakes.careful, "sloppy": fakes.sloppy}
    benchmark_fleet(engines, fakes.gold(3), run_id="n", rootdir=str(tmp_path))
    names = [p.name for p in tmp_path.rglob("*") if p.is_file()]
    assert names and all(re.fullmatch(r"[A-Za-z0-9._-]+", name) for name in names), names
    assert stored_runs("fleet", rootdir=str(tmp_path)) == ["n.careful:lang=deu,psm=7", "n.sloppy"]
    assert f"{store_key('fleet', 'n.careful:lang=deu,psm=7')}.json" in names
    fakes.CALLS.clear()
    again = benchmark_fleet(engines, fakes.gold(3), run_id="n", rootdir=str(tmp_path))
    assert fakes.CALLS == [] and again.resumed == {"reused": 6, "read": 0}


def test_a_fleet_stored_under_raw_engine_names_by_an_earlier_ek_resumes_where_it_is(tmp_path, monkeypatch):
    from ek._runs import _records

    engines = {"careful:lang=deu": fakes.careful}
    with monkeypatch.context() as old:  # an earlier ek named the files by the raw run id
        old.setattr(_records, "store_key", lambda kind, run_id: f"{kind}.{run_id}")
        first = benchmark_fleet(engines, fakes.gold(4), run_id="n", rootdir=str(tmp_path))
    before = {p.name for p in tmp_path.rglob("*.json")}
    assert "fleet.n.careful:lang=deu.json" in before
    fakes.CALLS.clear()
    again = benchmark_fleet(engines, fakes.gold(4), run_id="n", rootdir=str(tmp_path))
    assert fakes.CALLS == [] and again.resumed == {"reused": 4, "read": 0}
    assert comparable(again) == comparable(first)
    assert {p.name for p in tmp_path.rglob("*.json")} == before  # read where it is: nothing moved, nothing lost


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_a_fleet_killed_mid_way_resumes_engine_by_engine_to_the_same_report(tmp_path):
    root = tmp_path / "data"
    script = textwrap.dedent(f"""
        import sys, warnings
        sys.path.insert(0, {str(Path(__file__).parent)!r})  # not ROOT: ppi-python installs a package named tests
        warnings.simplefilter("ignore")
        import ek._runs._execute
        ek._runs._execute.FLUSH_SECONDS = 0.0  # write each finished page before the next starts
        import _fleet_fakes as fakes
        from ek.ocr import benchmark_fleet
        benchmark_fleet({{"careful": fakes.careful, "sloppy": fakes.sloppy}}, fakes.gold(10), persist=True,
                        run_id="killed", rootdir={str(root)!r})
    """)
    proc = subprocess.run(
        [sys.executable, "-c", script],
        env={**os.environ, "KILL_AT": "14"},
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    runs = ek.stores.json_store("runs", rootdir=str(root))
    assert runs["fleet.killed.careful"]["status"] == "complete"  # the first engine finished its 10 pages
    assert runs["fleet.killed.sloppy"]["status"] == "running"  # the second was killed on its 4th
    fakes.CALLS.clear()
    resumed = benchmark_fleet(
        {"careful": fakes.careful, "sloppy": fakes.sloppy},
        fakes.gold(10),
        persist=True,
        run_id="killed",
        rootdir=str(root),
    )
    assert len(fakes.CALLS) == 7  # sloppy's pages 4 to 10; careful's all stored
    assert resumed["careful"].resumed == {"reused": 10, "read": 0}
    assert resumed["sloppy"].resumed == {"reused": 3, "read": 7}
    clean = benchmark_fleet({"careful": fakes.careful, "sloppy": fakes.sloppy}, fakes.gold(10))
    assert comparable(resumed) == comparable(clean)


# ---------------------------------------------------------------------------
# real engines


def _corpus(n=None):
    """The bundled fleet corpus (48 line and 6 page images), or its first ``n`` records."""
    import json

    folder = ROOT / "src" / "ek" / "data" / "ocr_fleet"
    records = [json.loads(line) for line in (folder / "gold.jsonl").read_text(encoding="utf-8").splitlines()]
    return {r["id"]: {**r, "image": str(folder / r["image"])} for r in records[:n]}


@requires_tesseract
@requires_rapidocr
def test_real_engines_every_figure_equals_evaluate_ocr_and_compare(monkeypatch, tmp_path_factory):
    from ek.ocr._fleet.engines import engine_specs, fleet_engine

    # ek benchmark over the corpus, as the README runs it (once per test run): every page read for real
    shared = _engine_cache.shared_folder(tmp_path_factory)
    code, _, err = _engine_cache.benchmark_run(_engine_cache.FLEET_COMMAND, shared)
    assert code == 0, err
    _engine_cache.read_once(monkeypatch, shared)
    misses = len(_engine_cache.MISSES)
    gold = _corpus()
    report = benchmark_fleet(["tesseract", "rapidocr"], gold, max_workers=2)
    assert set(report.engines) == {"tesseract", "rapidocr"} and report.skipped == {}
    alone = {}
    for spec in engine_specs(["tesseract", "rapidocr"]):
        read = fleet_engine(spec)
        kinds = {r["image"]: r["kind"] for r in gold.values()}
        alone[spec.name] = evaluate_ocr(lambda image: read(image, kind=kinds[image]), gold)
        row = report[spec.name]
        assert row.aggregate == alone[spec.name].aggregate
        assert row.report.per_slice == alone[spec.name].per_slice
        assert row.interval == alone[spec.name].interval()
    # the pages, kinds and options the command read: benchmark_fleet and evaluate_ocr read no page again
    assert len(_engine_cache.MISSES) == misses
    best = report.best
    other = next(name for name in report.engines if name != best)
    expected = ek.compare(alone[best], alone[other])
    got = report[other].comparison
    assert (got.delta, got.p_value, got.verdict, got.per_slice) == (
        expected.delta,
        expected.p_value,
        expected.verdict,
        expected.per_slice,
    )
    texts = report.consensus_texts
    rover = ek.evaluate(
        [(texts[k], r["reference_text"], r["slice"]) for k, r in gold.items()], metric="cer", ids=list(gold)
    )
    assert report.consensus.aggregate == rover.aggregate
    assert report["tesseract"].calibration["unit"] == "word" and report["rapidocr"].calibration["unit"] == "line"
    assert all(0 < row.aggregate < 0.5 for row in report.engines.values())  # both make real errors here
    for row in report.engines.values():
        assert row.seconds_median <= row.seconds_p95 and row.errors == {} and row.timeouts == ()
        assert 0 <= row.calibration["ece"] <= 1 and row.calibration["n"] > 30


@requires_tesseract
@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_real_tesseract_fleet_killed_mid_way_resumes_to_the_same_report(tmp_path, monkeypatch, tmp_path_factory):
    # here, not in the killed process: it reads its pages for real
    _engine_cache.read_once(monkeypatch, _engine_cache.shared_folder(tmp_path_factory))
    root = tmp_path / "data"
    gold = _corpus(8)
    script = textwrap.dedent(f"""
        import os, signal, sys, threading, warnings
        warnings.simplefilter("ignore")
        import ek._runs._execute
        ek._runs._execute.FLUSH_SECONDS = 0.0
        import ek._runs._records as records
        written = records.RunStore.write
        def write(self, batch):  # the third page stored: die at once, as a kill would take us
            written(self, batch)
            write.n = getattr(write, "n", 0) + len(batch)
            if write.n >= 3:
                os.kill(os.getpid(), signal.SIGKILL)
        records.RunStore.write = write
        from ek.ocr import benchmark_fleet
        benchmark_fleet(["tesseract"], {gold!r}, persist=True, run_id="killed", rootdir={str(root)!r})
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert ek.stores.json_store("runs", rootdir=str(root))["fleet.killed.tesseract"]["status"] == "running"
    resumed = benchmark_fleet(["tesseract"], gold, persist=True, run_id="killed", rootdir=str(root))
    clean = benchmark_fleet(["tesseract"], gold)
    assert comparable(resumed) == comparable(clean)
