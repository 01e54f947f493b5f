"""``ek benchmark GOLD --engine ...``: GOLD files and folders, the printed ranking, --json, --html, --save, bad input.

The engines are real (Tesseract, and RapidOCR where installed); the images
are rendered at test time, and each is read once a test run
(tests/ocr/_engine_cache.py; the README's example, which tests/test_readme.py
runs, reads every page for real). The page is opened in headless Chromium (the harness of
tests/test_html.py) and must load without a console error.
"""

from __future__ import annotations

import importlib.util
import json
import re
import warnings
from pathlib import Path

import pytest

from ek.__main__ import main
from ek.ocr import benchmark_fleet
from tests import test_html
from tests.ocr import _engine_cache
from tests.ocr.conftest import font_files, render_text

ROOT = Path(__file__).resolve().parents[1]
browser = test_html.browser  # the Chromium fixture of the page tests
pytestmark = pytest.mark.needs("tesseract", "ocracy")  # the program and ek[ocr] (tests/conftest.py)
TEXTS = {"p1": "The quick brown fox\njumps over the lazy dog.", "p2": "Pack my box with\nfive dozen liquor jugs."}


@pytest.fixture(autouse=True)
def _read_once(monkeypatch, tmp_path_factory):
    _engine_cache.read_once(monkeypatch, _engine_cache.shared_folder(tmp_path_factory))


def run(argv, capsys):
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture()
def corpus(tmp_path):
    """Two rendered pages in ``pages/`` and ``gold.jsonl`` beside them naming them by relative path."""
    folder = tmp_path / "pages"
    folder.mkdir()
    font = font_files()[0]
    for key, text in TEXTS.items():
        render_text(text, font, 36).save(folder / f"{key}.png")
    gold = tmp_path / "gold.jsonl"
    gold.write_text(
        "".join(
            json.dumps({"id": k, "image": f"pages/{k}.png", "reference_text": t, "slice": "clean", "kind": "page"})
            + "\n"
            for k, t in TEXTS.items()
        ),
        encoding="utf-8",
    )
    return gold


def test_jsonl_gold_prints_the_ranking_and_writes_the_figures_python_gives(corpus, tmp_path, capsys):
    out_json = tmp_path / "out" / "fleet.json"
    code, out, err = run(["benchmark", str(corpus), "--engine", "tesseract", "--json", str(out_json)], capsys)
    assert code == 0, err
    assert out.startswith("ek benchmark: cer (lower is better) on 2 pages, 1 engine\n")
    header = next(line for line in out.splitlines() if line.startswith("rank"))
    assert header.split() == [
        "rank",
        "engine",
        "cer",
        "95%",
        "interval",
        "vs",
        "best",
        "interval",
        "of",
        "difference",
        "p",
        "verdict",
        "s/page",
        "p95",
        "s",
        "errors",
    ]
    payload = json.loads(out_json.read_text(encoding="utf-8"))
    gold = {
        k: {"image": str(corpus.parent / "pages" / f"{k}.png"), "reference_text": t, "slice": "clean", "kind": "page"}
        for k, t in TEXTS.items()
    }
    expected = benchmark_fleet(["tesseract"], gold)
    assert payload["best"] == "tesseract" and payload["n_items"] == 2
    row = payload["ranking"][0]
    assert row["aggregate"] == expected["tesseract"].aggregate and row["verdict"] == "best"
    assert (
        payload["items"]["tesseract"]["p1"]["prediction"]
        == expected["tesseract"].report.detail["per_item"]["p1"]["prediction"]
    )
    assert re.search(rf"^1\s+tesseract\s+{row['aggregate']:.4f}\s+needs more items \(n=2\)", out, re.MULTILINE)
    assert payload["inputs"] == {"gold": str(corpus)} and payload["settings"]["engines"] == ["tesseract"]
    # what read the pages: the program's own version line and the language file (tests/ocr/test_fleet_versions.py)
    version = row["version"]
    assert version["version"].startswith("tesseract ") and [m["file"] for m in version["models"]] == ["eng.traineddata"]
    assert version == dict(expected["tesseract"].version) and row["resumed"] is None and payload["resumed"] is None


def test_a_missing_image_is_listed_and_an_error_for_every_engine(corpus, tmp_path, capsys):
    with corpus.open("a", encoding="utf-8") as f:
        f.write(
            json.dumps(
                {"id": "p3", "image": "pages/p3.png", "reference_text": "lost", "slice": "clean", "kind": "page"}
            )
            + "\n"
        )
    out_json = tmp_path / "fleet.json"
    code, out, err = run(["benchmark", str(corpus), "--engine", "tesseract", "--json", str(out_json)], capsys)
    assert code == 0, err
    assert "unreadable: 1 page(s) whose image cannot be read (an error for every engine):" in out
    assert re.search(r"^  p3: image file '.*p3\.png' does not exist", out, re.MULTILINE)
    payload = json.loads(out_json.read_text(encoding="utf-8"))
    assert payload["ranking"][0]["n_errors"] == 1 and payload["ranking"][0]["n"] == 2
    assert list(payload["unreadable"]) == ["p3"]


def test_gold_without_images_is_refused(tmp_path, capsys):
    gold = tmp_path / "gold.jsonl"
    gold.write_text('{"id": "a", "reference_text": "x"}\n', encoding="utf-8")
    code, out, err = run(["benchmark", str(gold), "--engine", "tesseract"], capsys)
    assert code == 2 and out == ""
    assert "has no 'image' field" in err and "gold without images gives the engines nothing to read" in err
    assert err.count("\n") == 1


def test_gold_csv_with_a_reference_column_and_ids_by_position(tmp_path, capsys):
    font = font_files()[0]
    render_text("Hello world", font, 40).save(tmp_path / "a.png")
    gold = tmp_path / "gold.csv"
    gold.write_text("image,reference\na.png,Hello world\n", encoding="utf-8")
    code, out, err = run(["benchmark", str(gold), "--engine", "tesseract", "--id", "", "--json", "-"], capsys)
    assert code == 0, err
    payload = json.loads(out)
    assert list(payload["items"]["tesseract"]) == ["1"]
    assert payload["ranking"][0]["aggregate"] == 0.0


def test_a_folder_of_images_with_their_ground_truth(tmp_path, capsys):
    font = font_files()[0]
    render_text(TEXTS["p1"], font, 48).save(tmp_path / "p1.png")  # over 160 pixels high: read as a page
    (tmp_path / "p1.gt.txt").write_text(TEXTS["p1"], encoding="utf-8")
    render_text(TEXTS["p2"], font, 48).save(tmp_path / "scan-0002.png")
    lines = "".join(
        f"<TextLine id='l{i}'><TextEquiv><Unicode>{t}</Unicode></TextEquiv></TextLine>"
        for i, t in enumerate(TEXTS["p2"].splitlines())
    )
    (tmp_path / "p2.gt.xml").write_text(
        "<?xml version='1.0' encoding='UTF-8'?><PcGts xmlns='http://schema.primaresearch.org/PAGE/gts/pagecontent/"
        "2019-07-15'><Page imageFilename='scan-0002.png' imageWidth='1' imageHeight='1'><TextRegion id='r'>"
        f"{lines}</TextRegion></Page></PcGts>",
        encoding="utf-8",
    )
    code, out, err = run(["benchmark", str(tmp_path), "--engine", "tesseract", "--json", "-"], capsys)
    assert code == 0, err
    payload = json.loads(out)
    assert sorted(payload["items"]["tesseract"]) == ["p1", "p2"]
    assert payload["settings"]["normalize"] == "nfc"  # documents, as ek evaluate reads them
    assert payload["items"]["tesseract"]["p2"]["prediction"].startswith("Pack")


def test_a_folder_whose_ground_truth_has_no_image_is_refused(tmp_path, capsys):
    (tmp_path / "p1.gt.txt").write_text("text", encoding="utf-8")
    code, _, err = run(["benchmark", str(tmp_path), "--engine", "tesseract"], capsys)
    assert code == 2
    assert re.search(r"no image found for 1 ground-truth file\(s\): .*p1\.gt\.txt; put NAME\.png beside", err)


def test_a_fleet_that_read_nothing_says_so_in_the_command_line_s_words(tmp_path, capsys):
    (tmp_path / "p1.png").write_bytes(b"not an image")
    gold = tmp_path / "gold.jsonl"
    gold.write_text('{"id": "p1", "image": "p1.png", "reference_text": "x"}\n', encoding="utf-8")
    code, out, err = run(["benchmark", str(gold), "--engine", "tesseract"], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(
        "ek benchmark: error: no engine of the fleet could read the corpus: tesseract: failed on all 1 pages; "
        "first, 'p1': ValueError: image file "
    )
    assert "benchmark_fleet" not in err and "()" not in err


def test_an_unknown_engine_says_did_you_mean(corpus, capsys):
    code, _, err = run(["benchmark", str(corpus), "--engine", "teseract"], capsys)
    assert code == 2 and "Did you mean 'tesseract'?" in err


def test_no_engine_is_refused(corpus, capsys):
    code, _, err = run(["benchmark", str(corpus)], capsys)
    assert code == 2 and "name the engines to run with --engine" in err


def _uninstalled_engine():
    from ek.ocr._engines import check_engine, known_engines

    for engine in ("easyocr", "paddleocr", "trocr-handwritten", "pix2tex-latex-ocr"):
        if engine in known_engines() and check_engine(engine)["state"] == "not installed":
            return engine
    pytest.skip("every candidate engine is installed here")


def test_an_engine_not_installed_fails_the_run_unless_keep_going(corpus, capsys):
    from ek.registry import check_requirements

    missing = _uninstalled_engine()
    hint = check_requirements(engine=missing)["hint"]  # "'x' is not ready: ... Run: pip install ..."
    assert "pip install" in hint
    code, out, err = run(["benchmark", str(corpus), "--engine", "tesseract", "--engine", missing], capsys)
    assert code == 2 and out == ""
    assert err == (f"ek benchmark: error: {hint.rstrip('.')}; or pass --keep-going to rank tesseract without it.\n")
    code, out, err = run(["benchmark", str(corpus), "--engine", missing], capsys)
    assert code == 2 and err == f"ek benchmark: error: {hint.rstrip('.')}.\n"  # nothing else to rank
    code, out, err = run(["benchmark", str(corpus), "--engine", missing, "--keep-going"], capsys)
    assert code == 2 and err.startswith(f"ek benchmark: error: {hint.rstrip('.')}.")


def test_keep_going_ranks_the_others_and_says_once_what_was_left_out(corpus, capsys):
    missing = _uninstalled_engine()
    argv = ["benchmark", str(corpus), "--engine", "tesseract", "--engine", missing, "--keep-going"]
    code, out, err = run(argv, capsys)
    assert code == 0 and err == ""
    assert out.count(f"{missing}: not installed:") == 1 and "pip install" in out
    assert f"left out: 1 engine(s):\n  {missing}: not installed:" in out
    code, out, err = run([*argv, "--json", "-"], capsys)  # stdout is the JSON: the note goes to stderr, once
    assert code == 0 and list(json.loads(out)["skipped"]) == [missing]
    assert err.count("\n") == 1 and err.startswith(f"ek benchmark: engine {missing} left out: not installed")


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--level", "2"], "--level must be between 0 and 1"),
        (["--timeout", "0"], "--timeout must be a number of seconds above 0, got 0"),
        (["--max-workers", "0"], "--max-workers must be a whole number of 1 or more, got 0"),
        (["--max-workers", "two"], "--max-workers must be a whole number of 1 or more, got two"),
        (["--save", "bad name"], "cannot name a run"),
    ],
)
def test_bad_options_exit_2_with_one_line(corpus, capsys, extra, message):
    code, _, err = run(["benchmark", str(corpus), "--engine", "tesseract", *extra], capsys)
    assert code == 2 and message in err and err.count("\n") == 1


def test_outputs_may_not_overwrite_gold(corpus, capsys):
    code, _, err = run(["benchmark", str(corpus), "--engine", "tesseract", "--json", str(corpus)], capsys)
    assert code == 2 and "would overwrite what the run reads" in err


def test_save_keeps_the_runs_and_a_second_run_reads_nothing_again(corpus, tmp_path, capsys, monkeypatch):
    argv = ["benchmark", str(corpus), "--engine", "tesseract", "--save", "nightly", "--json", "-"]
    code, first, err = run(argv, capsys)
    assert code == 0, err
    from ek.ocr import bridge

    def no_reading(*args, **kwargs):
        raise AssertionError("a saved run must not read its pages again")

    no_reading.backend, no_reading.options = "tesseract", {}
    monkeypatch.setattr(bridge, "ocracy_backend", lambda *a, **k: no_reading)
    code, second, err = run(argv, capsys)
    assert code == 0, err

    def strip(text):  # all but the date and what the second run took from the first
        payload = {k: v for k, v in json.loads(text).items() if k not in ("date", "resumed")}
        payload["ranking"] = [{k: v for k, v in row.items() if k != "resumed"} for row in payload["ranking"]]
        return payload

    assert strip(second) == strip(first)
    assert json.loads(first)["run_id"] == "nightly"
    assert json.loads(first)["resumed"] == {"reused": 0, "read": 2}
    assert json.loads(second)["resumed"] == {"reused": 2, "read": 0}
    assert json.loads(second)["ranking"][0]["resumed"] == {"reused": 2, "read": 0}


def test_a_resumed_benchmark_says_what_it_read_earlier(corpus, tmp_path, capsys):
    one_page = tmp_path / "one.jsonl"
    one_page.write_text(corpus.read_text(encoding="utf-8").splitlines()[0] + "\n", encoding="utf-8")  # p1
    code, out, err = run(["benchmark", str(one_page), "--engine", "tesseract", "--save", "grow"], capsys)
    assert code == 0, err
    assert "resumed" not in out  # a first run reused nothing
    page = tmp_path / "fleet.html"
    argv = ["benchmark", str(corpus), "--engine", "tesseract", "--save", "grow", "--html", str(page)]
    code, out, err = run(argv, capsys)
    assert code == 0, err
    assert out.splitlines()[2] == "resumed: 1 of 2 pages read earlier, 1 read now"
    html = page.read_text(encoding="utf-8")
    assert "1 of 2 pages read earlier, 1 read now" in html and "eng.traineddata" in html


def _has(module):
    return importlib.util.find_spec(module) is not None


def test_the_page_opens_in_chromium_without_console_errors(corpus, tmp_path, capsys, browser):
    engines = ["--engine", "tesseract"] + (["--engine", "rapidocr"] if _has("rapidocr_onnxruntime") else [])
    page = tmp_path / "fleet.html"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code, _out, err = run(
            ["benchmark", str(corpus), *engines, "--html", str(page), "--json", str(tmp_path / "f.json")], capsys
        )
    assert code == 0, err
    payload = json.loads((tmp_path / "f.json").read_text(encoding="utf-8"))
    browser.get_log("browser")
    browser.get(page.as_uri())
    assert browser.execute_script("return document.readyState") == "complete"
    errors = [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
    assert errors == []
    value = browser.execute_script("return document.getElementById('headline-value').dataset.value")
    assert float(value) == payload["ranking"][0]["aggregate"]
    ranked = browser.execute_script(
        "return Array.from(document.getElementById('ranking-table').tBodies[0].rows)"
        ".map(function (r) { return r.cells[1].textContent; });"
    )
    assert ranked == [r["name"] + (" (consensus)" if r["consensus"] else "") for r in payload["ranking"]]
    charts = browser.execute_script("return Array.from(document.querySelectorAll('svg.chart')).map(s => s.id)")
    assert "ranking-chart" in charts
    sections = browser.execute_script("return Array.from(document.querySelectorAll('section')).map(s => s.id)")
    assert {"ranking", "slices", "side-by-side", "worst", "provenance"} <= set(sections)
    if len(engines) > 2:
        assert "delta-chart" in charts and "calibration" in sections


def test_the_command_s_options_are_the_fleet_s_settings_and_its_own_flags():
    from ek.cli._commands._benchmark import benchmark_options
    from ek.harness import RunOptions
    from ek.ocr.benchmark import FleetSettings

    flags = {"metric": "wer", "normalize": ["nfc"], "level": 0.9, "keep_going": True, "timeout": 5.0}
    flags |= {"id": "", "gold_field": "text", "slice": "font"}
    saved = benchmark_options(save="nightly", max_workers=2, **flags)
    run = RunOptions(persist=True, run_id="nightly", max_workers=2, timeout=5.0)
    fleet = FleetSettings(metric="wer", normalize=["nfc"], level=0.9, check_images=True, run=run)
    assert saved.fleet == fleet and (saved.save, saved.keep_going) == ("nightly", True)
    assert (saved.id, saved.gold_field, saved.slice) == ("", "text", "font")
    plain = benchmark_options(save=None, max_workers=None, **flags).fleet.run
    assert (plain.persist, plain.run_id, plain.max_workers) == (False, None, 1)  # one engine after the other
