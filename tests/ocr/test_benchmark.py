"""ek.ocr.benchmark: evaluate_ocr and add_gold_item, with fake engines and with real Tesseract."""

from __future__ import annotations

import csv
import io
import os
import random
import re
import subprocess
import threading
import time
import warnings
from concurrent.futures import ThreadPoolExecutor

import jiwer
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ek.facade import evaluate
from ek.ocr.benchmark import add_gold_item, evaluate_ocr
from ek.stores import json_store
from tests.ocr._fleet_fakes import reader

requires_tesseract = pytest.mark.needs("tesseract")  # the program (tests/conftest.py: PROGRAMS)


class Result:
    """A minimal OcrResult-shaped object."""

    def __init__(self, text, blocks=(), backend="", mean_confidence=None):
        self.text = text
        self.blocks = list(blocks)
        self.backend = backend
        if mean_confidence is not None:
            self.mean_confidence = mean_confidence


class Block:
    def __init__(self, confidence):
        self.confidence = confidence


# ---------------------------------------------------------------------------
# Hand-worked scores, slices and the per-item record


def test_spec_example_two_items_one_slice(tmp_path):
    gold = {
        "d1": {"image": "ignored", "reference_text": "cat", "slice": "easy"},
        "d2": {"image": "ignored", "reference_text": "dog", "slice": "easy"},
    }
    engine = lambda image: type("R", (), {"text": "cat"})()  # noqa: E731
    report = evaluate_ocr(engine, gold, metric="cer", rootdir=str(tmp_path))
    assert report.n == 2
    assert sorted(report.per_slice) == ["easy"]
    # d1 perfect, d2 three substitutions: 3 edits / 6 reference chars.
    assert report.aggregate == pytest.approx(3 / 6)
    assert report.per_slice["easy"] == pytest.approx(0.5)


def test_corpus_rate_sums_edits_not_mean_of_rates():
    gold = {"a": {"image": "a", "reference_text": "sitting"}, "b": {"image": "b", "reference_text": "ab"}}
    report = evaluate_ocr(reader({"a": "kitten", "b": "ab"}), gold)
    # kitten -> sitting is 3 edits over 7 chars; ab is exact: 3 / 9, not (3/7 + 0) / 2.
    assert report.aggregate == pytest.approx(3 / 9)
    assert report.per_slice == {}


def test_wer_and_normalize_are_forwarded():
    gold = {"a": {"image": "a", "reference_text": "Hello  World"}}
    assert evaluate_ocr(reader({"a": "hello world"}), gold, metric="wer").aggregate == pytest.approx(1.0)
    assert (
        evaluate_ocr(
            reader({"a": "hello world"}), gold, metric="wer", normalize=["lower", "collapse_whitespace"]
        ).aggregate
        == 0.0
    )


def test_per_item_record_and_slices():
    gold = {
        "x": {"image": "x", "reference_text": "abcd", "slice": "clean"},
        "y": {"image": "y", "reference_text": "abcd", "slice": "noisy"},
        "z": {"image": "z", "reference_text": "wxyz", "slice": "noisy"},
    }
    engine = reader(
        {
            "x": Result("abcd", blocks=[Block(0.9), Block(0.7)], backend="fake-ocr"),
            "y": Result("abed", blocks=[Block(None), Block(0.5)]),
            "z": "wxyz!",  # a plain string is accepted as the text
        }
    )
    report = evaluate_ocr(engine, gold, run_id="r1")
    assert report.per_slice == {"clean": 0.0, "noisy": pytest.approx(2 / 8)}
    assert report.detail["slice_n"] == {"clean": 1, "noisy": 2}
    items = report.detail["per_item"]
    assert list(items) == ["x", "y", "z"]
    assert items["x"]["confidence"] == pytest.approx(0.8)
    assert items["x"]["backend"] == "fake-ocr"
    assert items["y"]["confidence"] == pytest.approx(0.5)  # blocks without a confidence are skipped
    assert items["y"]["backend"] == "read"  # the callable's name when the result has no backend
    assert items["z"]["confidence"] is None
    assert items["y"] | {"seconds": 0} == {
        "prediction": "abed",
        "reference": "abcd",
        "slice": "noisy",
        "score": 0.25,
        "detail": {"edits": 1, "ref_len": 4},
        "confidence": 0.5,
        "backend": "read",
        "seconds": 0,
        "error": None,
        "confusions": {
            "char": [{"kind": "substitution", "gold": "c", "pred": "e", "count": 1}],
            "word": [{"kind": "substitution", "gold": "abcd", "pred": "abed", "count": 1}],
        },
    }
    assert report.detail["run_id"] == "r1"
    assert report.detail["engine"] == "read"
    assert report.detail["errors"] == {} and report.detail["n_errors"] == 0


def test_mean_confidence_attribute_wins_over_blocks():
    gold = {"a": {"image": "a", "reference_text": "a"}}
    res = Result("a", blocks=[Block(0.1)], mean_confidence=0.75)
    assert evaluate_ocr(reader({"a": res}), gold).detail["per_item"]["a"]["confidence"] == 0.75


def test_a_run_not_stored_has_no_run_id_a_stored_one_gets_one_from_the_clock(tmp_path):
    gold = {"a": {"image": "a", "reference_text": "a"}}
    assert evaluate_ocr(reader({"a": "a"}), gold).detail["run_id"] is None
    stored = evaluate_ocr(reader({"a": "a"}), gold, persist=True, rootdir=tmp_path).detail["run_id"]
    assert re.fullmatch(r"run-\d{8}-\d{6}-[0-9a-f]{6}", stored)


def test_custom_field_names():
    gold = {"k": {"img": "k", "truth": "abc", "kind": "receipt"}}
    report = evaluate_ocr(reader({"k": "abd"}), gold, image_key="img", reference_key="truth", slice_key="kind")
    assert report.per_slice == {"receipt": pytest.approx(1 / 3)}


@given(st.lists(st.tuples(st.text(max_size=12), st.text(min_size=1, max_size=12)), min_size=1, max_size=8))
def test_aggregate_matches_jiwer_corpus_cer(pairs):
    pairs = [(p, g) for p, g in pairs if g.strip()]  # jiwer rejects an empty reference
    if not pairs:
        return
    gold = {str(i): {"image": str(i), "reference_text": g} for i, (_, g) in enumerate(pairs)}
    engine = reader({str(i): p for i, (p, _) in enumerate(pairs)})
    expected = jiwer.cer(reference=[g for _, g in pairs], hypothesis=[p for p, _ in pairs])
    assert evaluate_ocr(engine, gold).aggregate == pytest.approx(expected)


# ---------------------------------------------------------------------------
# Concurrency and progress


def test_max_workers_keeps_input_order_and_results():
    rng = random.Random(7)
    texts = {f"k{i:02d}": "".join(rng.choice("abc ") for _ in range(10)) for i in range(24)}
    gold = {k: {"image": k, "reference_text": "abcabcabca", "slice": f"s{i % 3}"} for i, k in enumerate(texts)}
    delays = {k: rng.random() / 200 for k in texts}
    threads = set()

    def slow(image):
        threads.add(threading.get_ident())
        time.sleep(delays[image])  # finish out of order
        return texts[image]

    one = evaluate_ocr(slow, gold)
    threads.clear()
    many = evaluate_ocr(slow, gold, max_workers=6)
    assert len(threads) > 1
    assert list(many.detail["per_item"]) == list(gold)
    assert [s.value for s in many.scores] == [s.value for s in one.scores]
    assert many.aggregate == one.aggregate and many.per_slice == one.per_slice
    assert [v["prediction"] for v in many.detail["per_item"].values()] == list(texts.values())


def test_tesseract_runs_one_openmp_thread_per_call_only_while_concurrent(monkeypatch):
    monkeypatch.delenv("OMP_THREAD_LIMIT", raising=False)
    seen = []

    def tesseract(image):  # named like the engine, as a bound ocracy backend would be
        seen.append(os.environ.get("OMP_THREAD_LIMIT"))
        return image

    gold = {k: {"image": k, "reference_text": k} for k in "ab"}
    evaluate_ocr(tesseract, gold, max_workers=2)
    evaluate_ocr(tesseract, gold)
    assert seen == ["1", "1", None, None]
    assert "OMP_THREAD_LIMIT" not in os.environ
    monkeypatch.setenv("OMP_THREAD_LIMIT", "3")
    evaluate_ocr(tesseract, gold, max_workers=2)
    assert seen[-2:] == ["3", "3"] and os.environ["OMP_THREAD_LIMIT"] == "3"


@pytest.mark.parametrize("bad", [0, -2, 1.5, True, "4"])
def test_max_workers_must_be_a_positive_int(bad):
    with pytest.raises(ValueError, match=r"evaluate_ocr\(\) max_workers must be a whole number >= 1"):
        evaluate_ocr(reader({"a": "a"}), {"a": {"image": "a", "reference_text": "a"}}, max_workers=bad)


class _Stream(io.StringIO):
    def __init__(self, tty):
        super().__init__()
        self._tty = tty

    def isatty(self):
        return self._tty


@pytest.mark.parametrize("workers", [None, 3])
def test_progress_is_shown_on_a_terminal_only(monkeypatch, workers):
    gold = {k: {"image": k, "reference_text": k} for k in "abcd"}
    engine = reader({k: k for k in "abcd"})
    tty = _Stream(True)
    monkeypatch.setattr("sys.stderr", tty)
    evaluate_ocr(engine, gold, max_workers=workers)
    assert "4/4 images" in tty.getvalue() and tty.getvalue().endswith("\n")
    assert "evaluate_ocr[read]" in tty.getvalue()
    pipe = _Stream(False)
    monkeypatch.setattr("sys.stderr", pipe)
    evaluate_ocr(engine, gold, max_workers=workers)
    assert pipe.getvalue() == ""
    evaluate_ocr(engine, gold, progress=True)
    assert "1/4 images" in pipe.getvalue()


# ---------------------------------------------------------------------------
# Engine failures


def test_engine_raising_on_one_image_is_recorded_and_the_rest_kept():
    gold = {k: {"image": k, "reference_text": "abc", "slice": "s"} for k in ("a", "b", "c")}
    engine = reader({"a": "abc", "b": RuntimeError("engine crashed on page 2"), "c": "abd"})
    with pytest.warns(UserWarning, match=r"failed on 1 of 3 items \('b'\)"):
        report = evaluate_ocr(engine, gold)
    assert report.n == 2
    assert report.aggregate == pytest.approx(1 / 6)
    assert report.detail["errors"] == {"b": "RuntimeError: engine crashed on page 2"}
    assert report.detail["n_errors"] == 1
    item = report.detail["per_item"]["b"]
    assert item["error"] == "RuntimeError: engine crashed on page 2"
    assert item["prediction"] is None and item["score"] is None and item["confidence"] is None
    assert list(report.detail["per_item"]) == ["a", "b", "c"]


def test_result_with_null_text_is_an_empty_reading_not_a_failure():
    # A text-only or VLM engine that saw nothing returns .text None: a full miss, kept in the corpus.
    gold = {"a": {"image": "a", "reference_text": "abc"}, "b": {"image": "b", "reference_text": "abcd"}}
    engine = reader({"a": "abc", "b": Result(None)})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        report = evaluate_ocr(engine, gold)
    assert report.detail["errors"] == {} and report.n == 2
    assert report.detail["per_item"]["b"]["prediction"] == ""
    assert report.detail["per_item"]["b"]["score"] == 1.0  # 4 deletions over 4 reference chars
    assert report.aggregate == pytest.approx(4 / 7)


def test_result_with_a_non_text_text_is_an_item_error():
    gold = {"a": {"image": "a", "reference_text": "abc"}, "b": {"image": "b", "reference_text": "abc"}}
    engine = reader({"a": "abc", "b": Result(b"abc")})
    with pytest.warns(UserWarning, match="failed on 1 of 2"):
        report = evaluate_ocr(engine, gold)
    assert report.detail["errors"]["b"].startswith("TypeError: the engine returned Result with a .text that is bytes")
    assert "OcrResult-shaped object" in report.detail["errors"]["b"]


def test_object_without_text_attribute_on_every_item_raises():
    gold = {"a": {"image": "a", "reference_text": "abc"}}
    with pytest.raises(RuntimeError, match=r"failed on all 1 items.*item 'a'.*returned object with no \.text"):
        evaluate_ocr(lambda image: object(), gold)


def test_engine_failing_everywhere_raises_with_the_first_error():
    gold = {k: {"image": k, "reference_text": "x"} for k in ("p", "q")}

    def broken(image):
        raise OSError(f"cannot open {image}")

    with pytest.raises(RuntimeError, match=r"'broken' failed on all 2 items.*item 'p': OSError: cannot open p"):
        evaluate_ocr(broken, gold)


# ---------------------------------------------------------------------------
# Bad gold and bad options


def test_gold_must_be_a_mapping():
    with pytest.raises(TypeError, match=r"gold is a list; it must be a mapping key -> record"):
        evaluate_ocr(reader({}), [{"image": "a", "reference_text": "a"}])


def test_empty_gold_is_refused():
    with pytest.raises(ValueError, match="empty gold corpus"):
        evaluate_ocr(reader({}), {})


def test_gold_record_must_be_a_mapping():
    with pytest.raises(TypeError, match="gold record 'a' is a str; each record must be a mapping"):
        evaluate_ocr(reader({}), {"a": "hello"})


def test_gold_record_missing_reference_names_the_option():
    with pytest.raises(ValueError, match=r"gold record 'a' has no 'reference_text' field .*reference_key="):
        evaluate_ocr(reader({}), {"a": {"image": "a", "text": "x"}})


def test_gold_record_missing_image_names_the_option():
    with pytest.raises(ValueError, match=r"gold record 'a' has no 'image' field .*image_key="):
        evaluate_ocr(reader({}), {"a": {"reference_text": "x"}})


def test_gold_reference_must_be_text():
    with pytest.raises(TypeError, match="field 'reference_text' is int"):
        evaluate_ocr(reader({}), {"a": {"image": "a", "reference_text": 12}})


def test_engine_must_be_an_id_or_callable():
    with pytest.raises(TypeError, match="engine must be an ocracy backend id .* got int"):
        evaluate_ocr(42, {"a": {"image": "a", "reference_text": "a"}})


def test_unknown_engine_id_lists_the_known_ones():
    with pytest.raises(KeyError, match=r"no OCR engine 'tesserakt'.*Did you mean 'tesseract'.*Known engines: "):
        evaluate_ocr("tesserakt", {"a": {"image": "a", "reference_text": "a"}})


def test_unknown_metric_fails_before_the_engine_runs():
    calls = []
    with pytest.raises(KeyError, match=r"registered as 'cerr'.*Did you mean 'cer'"):
        evaluate_ocr(
            lambda image: calls.append(image) or "a", {"a": {"image": "a", "reference_text": "a"}}, metric="cerr"
        )
    assert calls == []


def test_unknown_normalizer_fails_before_the_engine_runs():
    calls = []
    with pytest.raises(KeyError, match="lowercase"):
        evaluate_ocr(
            lambda image: calls.append(image) or "a",
            {"a": {"image": "a", "reference_text": "a"}},
            normalize="lowercase",
        )
    assert calls == []


@pytest.mark.parametrize("bad", ["", "a/b", ".hidden", 7])
def test_run_id_must_be_storable(bad):
    with pytest.raises(ValueError, match="cannot name a stored run"):
        evaluate_ocr(reader({"a": "a"}), {"a": {"image": "a", "reference_text": "a"}}, run_id=bad)


# ---------------------------------------------------------------------------
# Persistence


def test_persist_writes_results_and_run(tmp_path):
    gold = {
        "a": {"image": "a", "reference_text": "abc", "slice": "s1"},
        "b": {"image": "b", "reference_text": "abc", "slice": "s2"},
    }
    engine = reader({"a": "abc", "b": Result("abd", blocks=[Block(0.25)])})
    report = evaluate_ocr(engine, gold, persist=True, run_id="run-1", rootdir=str(tmp_path))
    chunk = json_store("results", rootdir=tmp_path)["ocr.run-1.000000"]
    assert (chunk["kind"], chunk["format"], chunk["run_id"]) == ("ocr", 2, "run-1")
    items = {item["key"]: item for item in chunk["items"].values()}
    assert items["b"]["prediction"] == "abd"
    assert items["b"]["confidence"] == 0.25
    header = json_store("runs", rootdir=tmp_path)["ocr.run-1"]
    assert header["settings"] == {"engine": "read", "metric": "cer", "normalize": "", "grammar": ""}
    run = header["summary"]
    assert run["engine"] == "read" and run["metric"] == "cer"
    assert run["aggregate"] == pytest.approx(report.aggregate) == pytest.approx(1 / 6)
    assert run["per_slice"] == {"s1": 0.0, "s2": pytest.approx(1 / 3)}
    assert run["n_scored"] == 2 and run["n_errors"] == 0 and run["slice_n"] == {"s1": 1, "s2": 1}


def test_nothing_is_written_without_persist(tmp_path):
    evaluate_ocr(reader({"a": "a"}), {"a": {"image": "a", "reference_text": "a"}}, rootdir=str(tmp_path))
    assert list(json_store("runs", rootdir=tmp_path)) == []
    assert list(json_store("results", rootdir=tmp_path)) == []


def test_persist_uses_ek_data_home_by_default(tmp_path, monkeypatch):
    monkeypatch.setenv("EK_DATA_HOME", str(tmp_path / "home"))
    evaluate_ocr(reader({"a": "a"}), {"a": {"image": "a", "reference_text": "a"}}, persist=True, run_id="r")
    assert list(json_store("runs")) == ["ocr.r"]
    assert (tmp_path / "home" / "runs" / "ocr.r.json").is_file()


def test_add_gold_item_round_trips_through_the_store(tmp_path):
    add_gold_item("doc-1", tmp_path / "one.png", "hello", slice="clean", rootdir=str(tmp_path), lang="en")
    add_gold_item("doc-2", "two.png", "world", rootdir=str(tmp_path))
    store = json_store("gold", rootdir=tmp_path)
    assert store["doc-1"] == {
        "image": str(tmp_path / "one.png"),
        "reference_text": "hello",
        "slice": "clean",
        "lang": "en",
    }
    assert store["doc-2"]["slice"] is None
    engine = reader({str(tmp_path / "one.png"): "hello", "two.png": "word"})
    report = evaluate_ocr(engine, store)
    assert report.aggregate == pytest.approx(1 / 10)
    assert report.per_slice == {"clean": 0.0}


def test_add_gold_item_refuses_image_bytes(tmp_path):
    with pytest.raises(TypeError, match="keeps a reference, not the image"):
        add_gold_item("k", b"\x89PNG...", "text", rootdir=str(tmp_path))


def test_add_gold_item_needs_text_reference(tmp_path):
    with pytest.raises(TypeError, match="reference_text must be the transcription as a str"):
        add_gold_item("k", "a.png", None, rootdir=str(tmp_path))


def test_add_gold_item_refuses_unsafe_key(tmp_path):
    with pytest.raises(ValueError, match="path separator"):
        add_gold_item("a/b", "a.png", "x", rootdir=str(tmp_path))


def test_add_gold_item_refuses_non_json_extra(tmp_path):
    with pytest.raises(TypeError, match="JSON cannot store"):
        add_gold_item("k", "a.png", "x", rootdir=str(tmp_path), when=object())


# ---------------------------------------------------------------------------
# Real Tesseract, checked against the tesseract binary run directly + jiwer

_TEXTS = ("Invoice 2024-0117\nTotal due: 1,284.50 EUR", "The quick brown fox\njumps over the lazy dog.")


def _tesseract_tsv(path):
    """Text and mean word confidence from the tesseract CLI's TSV output, parsed here."""
    env = {**os.environ, "OMP_THREAD_LIMIT": "1"}  # as evaluate_ocr does when concurrent
    out = subprocess.run(
        ["tesseract", str(path), "stdout", "tsv"], capture_output=True, text=True, check=True, env=env
    ).stdout
    lines, confidences = {}, []
    for row in csv.DictReader(io.StringIO(out), delimiter="\t", quoting=csv.QUOTE_NONE):
        word = row["text"]
        if not word or not word.strip():
            continue
        lines.setdefault((row["block_num"], row["par_num"], row["line_num"]), []).append(word)
        if float(row["conf"]) >= 0:
            # pytesseract truncates each confidence to an int percentage.
            confidences.append(int(float(row["conf"])) / 100)
    text = "\n".join(" ".join(words) for words in lines.values())
    return text, (sum(confidences) / len(confidences) if confidences else None)


@pytest.fixture(scope="module")
def tesseract_run(tmp_path_factory, fonts, render, degraded):
    """A rendered corpus (fonts x sizes x texts, clean and degraded), read by evaluate_ocr."""
    folder = tmp_path_factory.mktemp("ocr-corpus")
    gold = {}
    n = 0
    for font in fonts[:3]:
        for size, text in ((20, _TEXTS[0]), (28, _TEXTS[1])):
            clean = render(text, font, size)
            for label, image in (("clean", clean), ("degraded", degraded(clean, seed=n))):
                key = f"img{n:02d}-{label}"
                image.save(folder / f"{key}.png")
                gold[key] = {"image": str(folder / f"{key}.png"), "reference_text": text, "slice": label}
                n += 1
    report = evaluate_ocr("tesseract", gold, max_workers=2, progress=False)
    with ThreadPoolExecutor(max_workers=2) as pool:
        direct = dict(zip(gold, pool.map(_tesseract_tsv, [r["image"] for r in gold.values()]), strict=True))
    return gold, report, direct


@requires_tesseract
def test_tesseract_text_matches_the_binary(tesseract_run):
    gold, report, direct = tesseract_run
    assert report.n == len(gold) >= 8 and report.detail["errors"] == {}
    for key, item in report.detail["per_item"].items():
        assert item["prediction"] == direct[key][0], key
        assert item["backend"] == "tesseract"


@requires_tesseract
def test_tesseract_report_matches_jiwer_on_raw_output(tesseract_run):
    gold, report, direct = tesseract_run
    keys = list(gold)
    expected = jiwer.cer(reference=[gold[k]["reference_text"] for k in keys], hypothesis=[direct[k][0] for k in keys])
    assert report.aggregate == pytest.approx(expected)
    for label in ("clean", "degraded"):
        part = [k for k in keys if gold[k]["slice"] == label]
        expected = jiwer.cer(
            reference=[gold[k]["reference_text"] for k in part], hypothesis=[direct[k][0] for k in part]
        )
        assert report.per_slice[label] == pytest.approx(expected), label
    for key in keys:
        expected = jiwer.cer(reference=gold[key]["reference_text"], hypothesis=direct[key][0])
        assert report.detail["per_item"][key]["score"] == pytest.approx(expected), key
    # Clean print in common fonts is read nearly perfectly.
    assert report.per_slice["clean"] < 0.1


@requires_tesseract
def test_tesseract_wer_from_the_same_predictions(tesseract_run):
    _gold, report, _direct = tesseract_run
    cases = [(v["prediction"], v["reference"]) for v in report.detail["per_item"].values()]
    # jiwer splits words on spaces only; ek on any whitespace, so give jiwer spaces.
    expected = jiwer.wer(
        reference=[g.replace("\n", " ") for _, g in cases], hypothesis=[p.replace("\n", " ") for p, _ in cases]
    )
    assert evaluate(cases, metric="wer").aggregate == pytest.approx(expected)


@requires_tesseract
def test_tesseract_mean_confidence_per_item(tesseract_run):
    _gold, report, direct = tesseract_run
    for key, item in report.detail["per_item"].items():
        assert item["confidence"] == pytest.approx(direct[key][1]), key
        assert 0.0 <= item["confidence"] <= 1.0


@requires_tesseract
def test_tesseract_missing_and_unreadable_images_are_item_errors(tmp_path, render, fonts):
    good = tmp_path / "good.png"
    render("Hello world", fonts[0], 28).save(good)
    junk = tmp_path / "junk.png"
    junk.write_bytes(b"this is not an image")
    cut = tmp_path / "cut.png"
    cut.write_bytes(good.read_bytes()[: good.stat().st_size // 2])  # header intact, data cut
    gold = {
        "good": {"image": str(good), "reference_text": "Hello world"},
        "missing": {"image": str(tmp_path / "nope.png"), "reference_text": "x"},
        "junk": {"image": str(junk), "reference_text": "x"},
        "cut": {"image": str(cut), "reference_text": "x"},
    }
    with pytest.warns(UserWarning, match="failed on 3 of 4 items"):
        report = evaluate_ocr("tesseract", gold)
    errors = report.detail["errors"]
    assert errors["cut"].startswith("ValueError: image file ")
    assert "could not be decoded as an image (image file is truncated)" in errors["cut"]
    assert errors["missing"].startswith("FileNotFoundError: image file ")
    assert "nope.png' does not exist" in errors["missing"]
    assert errors["junk"].startswith("ValueError: image file ")
    assert "could not be decoded as an image" in errors["junk"]
    assert report.n == 1


# -- issue 14: gold references in OCR files, confusions in the report --------------------------

_PAGE = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<PcGts xmlns="http://schema.primaresearch.org/PAGE/gts/pagecontent/2019-07-15">'
    '<Page imageFilename="x.png"><TextRegion id="r1">'
    '<TextLine id="l1"><TextEquiv><Unicode>the cat</Unicode></TextEquiv></TextLine>'
    '<TextLine id="l2"><TextEquiv><Unicode>sat down</Unicode></TextEquiv></TextLine>'
    "</TextRegion></Page></PcGts>\n"
)


def test_a_gold_record_may_name_a_page_xml_reference_file(tmp_path):
    path = tmp_path / "p1.xml"
    path.write_text(_PAGE, encoding="utf-8")
    gold = {"p1": {"image": "p1.png", "reference_file": str(path)}, "p2": {"image": "p2.png", "reference_text": "dog"}}
    report = evaluate_ocr(lambda image: "the cat\nsat dawn" if image == "p1.png" else "dog", gold)
    assert report.detail["per_item"]["p1"]["reference"] == "the cat\nsat down"
    # 1 substitution over the 16 characters of the PAGE text plus 3 of "dog"
    assert report.aggregate == pytest.approx(
        jiwer.cer(reference=["the cat\nsat down", "dog"], hypothesis=["the cat\nsat dawn", "dog"])
    )
    assert report.aggregate == pytest.approx(1 / 19)


def test_an_unreadable_reference_file_fails_before_the_engine_runs(tmp_path):
    bad = tmp_path / "broken.xml"
    bad.write_text("<PcGts><Page>", encoding="utf-8")
    calls = []
    with pytest.raises(ValueError, match="broken.xml"):
        evaluate_ocr(lambda image: calls.append(image) or "x", {"a": {"image": "a", "reference_file": str(bad)}})
    assert calls == []
    with pytest.raises(TypeError, match="reference_file"):
        evaluate_ocr(lambda image: "x", {"a": {"image": "a", "reference_file": 3}})


def test_the_report_lists_the_most_frequent_confusions():
    gold = {"a": {"image": "a", "reference_text": "cello cello"}, "b": {"image": "b", "reference_text": "hello"}}
    report = evaluate_ocr(lambda image: {"a": "ceIIo cello", "b": "heIlo"}[image], gold)
    # l -> I three times (twice in a, once in b); counted by hand
    top = report.detail["confusions"]["char"][0]
    assert (top["kind"], top["gold"], top["pred"], top["count"]) == ("substitution", "l", "I", 3)
    assert report.detail["per_item"]["b"]["confusions"]["char"][0]["count"] == 1
    words = {(r["gold"], r["pred"]): r["count"] for r in report.detail["confusions"]["word"]}
    assert words == {("cello", "ceIIo"): 1, ("hello", "heIlo"): 1}
