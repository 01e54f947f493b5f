"""ek.cli._demo._fleet: the engine section of `ek demo`, the fleet over the bundled corpus (or how to install it)."""

from __future__ import annotations

import json
import re
import shutil
from importlib import resources

import pytest

from ek.cli._commands import benchmark
from ek.cli._demo import _fleet as _demo
from tests.ocr._fleet_fakes import without_seconds

requires_tesseract = pytest.mark.skipif(
    shutil.which("tesseract") is None,
    reason="the tesseract binary is not installed (apt-get install -y tesseract-ocr)",
)


def test_bundled_demo_scans_name_existing_images():
    folder = resources.files("ek").joinpath("data", "ocr_demo")
    gold = json.loads(folder.joinpath("gold.json").read_text(encoding="utf-8"))
    assert 4 <= len(gold) <= 8
    assert {r["slice"] for r in gold.values()} == {"clean", "degraded"}
    for record in gold.values():
        assert folder.joinpath(record["image"]).is_file()
        assert record["reference_text"].strip()


def _status(ready):
    def check(engine):
        ok = engine in ready
        return {"ok": ok, "hint": f"{engine!r} is ready to run." if ok else f"{engine!r} is not ready: install it."}

    return lambda engine: check(engine)


@requires_tesseract
def test_demo_prints_what_ek_benchmark_prints_on_the_bundled_corpus(monkeypatch):
    monkeypatch.setattr(_demo, "check_requirements", lambda engine: _status({"tesseract"})(engine))
    text = _demo.fleet_demo()
    gold = resources.files("ek").joinpath("data", "ocr_fleet", "gold.jsonl")
    lines = text.splitlines()
    assert lines[0] == "2. Choose an engine: Tesseract and RapidOCR on the bundled pages and lines"
    assert lines[2] == f"   ek benchmark {gold} --engine tesseract"
    printed = benchmark(str(gold), engine=["tesseract"]).stdout
    assert without_seconds(printed) in without_seconds(text)
    assert text.rstrip().endswith("rapidocr was left out: 'rapidocr' is not ready: install it.")


def test_demo_without_engines_says_how_to_install_them(monkeypatch):
    monkeypatch.setattr(_demo, "check_requirements", lambda engine: _status(set())(engine))
    text = _demo.fleet_demo()
    assert text.splitlines() == [
        (
            "2. Choose an engine: Tesseract and RapidOCR on the bundled pages and lines: skipped, no engine is installed "
            "here."
        ),
        "   tesseract: 'tesseract' is not ready: install it.",
        "   rapidocr: 'rapidocr' is not ready: install it.",
    ]


def test_demo_without_tesseract_gives_the_real_install_line(monkeypatch):
    monkeypatch.setattr("ek.ocr._engines.shutil.which", lambda name: None)
    monkeypatch.setattr(_demo, "ENGINES", ("tesseract",))
    text = _demo.fleet_demo()
    assert "skipped, no engine is installed here" in text
    assert re.search(r"(apt-get|brew|choco) install", text)
