"""ek.cli._demo._fleet: the engine section of `ek demo`, the fleet over the bundled corpus (or how to install it)."""

from __future__ import annotations

import json
import re
import shlex
from collections import Counter
from importlib import resources
from pathlib import Path

import pytest

from ek.__main__ import main
from ek.cli._demo import _fleet as _demo
from tests.demo._fakes import fake_rapidocr_text, fake_tesseract_text, records
from tests.ocr._fleet_fakes import without_seconds

requires_tesseract = pytest.mark.needs("tesseract", "ocracy")  # the program and ek[ocr] (tests/conftest.py)
TITLE = "2. Choose an engine: Tesseract and RapidOCR on the bundled pages and lines"


def test_bundled_demo_scans_name_existing_images():
    folder = resources.files("ek").joinpath("data", "ocr_demo")
    gold = json.loads(folder.joinpath("gold.json").read_text(encoding="utf-8"))
    assert 4 <= len(gold) <= 8
    assert {r["slice"] for r in gold.values()} == {"clean", "degraded"}
    for record in gold.values():
        assert folder.joinpath(record["image"]).is_file()
        assert record["reference_text"].strip()


def test_the_subset_is_two_lines_a_slice_of_the_full_corpus_its_records_verbatim():
    full = {r["id"]: r for r in records(_demo.FULL)}
    subset = records(_demo.SUBSET)
    assert len(subset) == 6 and len({r["id"] for r in subset}) == 6
    data = Path(str(_demo.bundled(_demo.SUBSET))).parent
    for record in subset:
        original = full[record["id"]]
        assert {**record, "image": original["image"]} == original
        # the image is the full corpus's own file, named relative to the subset file
        assert (data / record["image"]).resolve() == (data / "ocr_fleet" / original["image"]).resolve()
        assert record["kind"] == "line"
    assert Counter((r["slice"], r["lang"]) for r in subset) == {
        (s, lang): 1 for s in {r["slice"] for r in full.values()} for lang in ("en", "de")
    }


def test_by_default_the_fleet_reads_the_subset_once_per_engine(fake_engines):
    text = _demo.fleet_demo()
    images = [Path(r["image"]).name for r in records(_demo.SUBSET)]
    assert sorted(fake_engines["tesseract"]) == sorted(fake_engines["rapidocr"]) == sorted(images)
    lines = text.splitlines()
    gold = str(_demo.bundled(_demo.SUBSET))
    assert lines[:5] == [
        "2. Choose an engine: Tesseract and RapidOCR on 6 of the bundled lines",
        "",
        f"   ek benchmark {gold} --engine tesseract --engine rapidocr --max-workers 2",
        "   (6 of the 54 bundled pages and lines; ek demo --engines reads them all)",
        "",
    ]
    assert lines[5] == "ek benchmark: cer (lower is better) on 6 pages, 2 engines and their ROVER consensus"


def test_full_reads_every_bundled_page_and_line(fake_engines):
    text = _demo.fleet_demo(full=True)
    images = [Path(r["image"]).name for r in records(_demo.FULL)]
    assert len(images) == 54
    assert sorted(fake_engines["tesseract"]) == sorted(fake_engines["rapidocr"]) == sorted(images)
    lines = text.splitlines()
    gold = str(_demo.bundled(_demo.FULL))
    assert lines[:4] == [TITLE, "", f"   ek benchmark {gold} --engine tesseract --engine rapidocr --max-workers 2", ""]
    assert lines[4] == "ek benchmark: cer (lower is better) on 54 pages, 2 engines and their ROVER consensus"


@pytest.mark.parametrize("full", [False, True])
def test_the_printed_command_prints_the_section_s_tables(fake_engines, capsys, full):
    text = _demo.fleet_demo(full=full)
    lines = text.splitlines()
    argv = shlex.split(lines[2])
    assert argv[:2] == ["ek", "benchmark"]
    assert main(argv[1:]) == 0
    printed = capsys.readouterr().out.rstrip("\n")
    shown = "\n".join(lines[lines.index("", 3) + 1 :])
    assert without_seconds(shown) == without_seconds(printed)


def test_the_ranking_shows_each_engine_s_corpus_cer_on_the_subset(fake_engines):
    jiwer = pytest.importorskip("jiwer")
    text = _demo.fleet_demo()
    subset = records(_demo.SUBSET)
    gold = [r["reference_text"] for r in subset]
    for engine, read in (("tesseract", fake_tesseract_text), ("rapidocr", fake_rapidocr_text)):
        expected = jiwer.cer(reference=gold, hypothesis=[read(r) for r in subset])
        assert expected > 0, engine  # each fake misreads some line of the subset
        row = re.search(rf"^\d\s+{engine}\s+(\d\.\d{{4}})\s", text, re.MULTILINE)
        assert row is not None, text
        assert float(row.group(1)) == pytest.approx(expected, abs=5e-5), engine


def _status(ready):
    def check(engine):
        ok = engine in ready
        return {"ok": ok, "hint": f"{engine!r} is ready to run." if ok else f"{engine!r} is not ready: install it."}

    return lambda engine: check(engine)


@requires_tesseract
def test_with_real_tesseract_the_printed_command_prints_the_section_s_tables(monkeypatch, capsys):
    monkeypatch.setattr(_demo, "check_requirements", lambda engine: _status({"tesseract"})(engine))
    text = _demo.fleet_demo()
    gold = _demo.bundled(_demo.SUBSET)
    lines = text.splitlines()
    assert lines[0] == "2. Choose an engine: Tesseract and RapidOCR on 6 of the bundled lines"
    assert lines[2] == f"   ek benchmark {gold} --engine tesseract"
    assert main(shlex.split(lines[2])[1:]) == 0
    printed = capsys.readouterr().out.rstrip("\n")
    assert printed.startswith("ek benchmark: cer (lower is better) on 6 pages, 1 engine\n")
    assert without_seconds(printed) in without_seconds(text)
    assert text.rstrip().endswith("rapidocr was left out: 'rapidocr' is not ready: install it.")


def test_one_engine_reads_one_page_at_a_time_and_the_command_says_so():
    options = _demo.benchmark_options(["tesseract"])
    assert options == {"engine": ["tesseract"], "max_workers": None}
    assert _demo.benchmark_command("gold.jsonl", options) == "ek benchmark gold.jsonl --engine tesseract"


def test_a_gold_path_with_a_space_is_quoted_in_the_command():
    options = _demo.benchmark_options(["tesseract", "rapidocr"])
    command = _demo.benchmark_command("/my data/demo_fleet.jsonl", options)
    assert command.startswith("ek benchmark '/my data/demo_fleet.jsonl' --engine tesseract")
    assert shlex.split(command)[2] == "/my data/demo_fleet.jsonl"


def test_demo_without_engines_says_how_to_install_them(monkeypatch):
    monkeypatch.setattr(_demo, "check_requirements", lambda engine: _status(set())(engine))
    text = _demo.fleet_demo()
    assert text.splitlines() == [
        f"{TITLE}: skipped, no engine is installed here.",
        "   tesseract: 'tesseract' is not ready: install it.",
        "   rapidocr: 'rapidocr' is not ready: install it.",
    ]
    assert _demo.fleet_demo(full=True) == text


def test_demo_without_tesseract_gives_the_real_install_line(monkeypatch):
    monkeypatch.setattr("ek.ocr._engines.shutil.which", lambda name: None)
    monkeypatch.setattr(_demo, "ENGINES", ("tesseract",))
    text = _demo.fleet_demo()
    assert "skipped, no engine is installed here" in text
    assert re.search(r"(apt-get|brew|choco) install", text)
