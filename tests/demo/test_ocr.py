"""ek._demo._ocr: the Tesseract section of `ek demo` on the bundled images."""

from __future__ import annotations

import json
import re
import shutil
from importlib import resources

import jiwer
import pytest

from ek._demo import _ocr as _demo

requires_tesseract = pytest.mark.skipif(
    shutil.which("tesseract") is None,
    reason="the tesseract binary is not installed (apt-get install -y tesseract-ocr)",
)


def test_bundled_gold_names_existing_images():
    folder = resources.files("ek").joinpath("data", "ocr_demo")
    gold = json.loads(folder.joinpath("gold.json").read_text(encoding="utf-8"))
    assert 4 <= len(gold) <= 8
    assert {r["slice"] for r in gold.values()} == {"clean", "degraded"}
    for record in gold.values():
        assert folder.joinpath(record["image"]).is_file()
        assert record["reference_text"].strip()


@requires_tesseract
def test_demo_report_matches_jiwer(monkeypatch):
    captured = {}
    real = _demo.evaluate

    def spy(cases, **kwargs):  # the WER pass sees the engine's predictions
        captured["cases"] = list(cases)
        return real(cases, **kwargs)

    monkeypatch.setattr(_demo, "evaluate", spy)
    text = _demo.tesseract_demo()
    cases = captured["cases"]
    assert len(cases) == 6
    cer = jiwer.cer(reference=[g for _, g, _ in cases], hypothesis=[p for p, _, _ in cases])
    all_row = next(line for line in text.splitlines() if line.startswith("all "))
    assert f"{cer:.2%}" in all_row
    for label in ("clean", "degraded"):
        part = [c for c in cases if c[2] == label]
        rate = jiwer.cer(reference=[g for _, g, _ in part], hypothesis=[p for p, _, _ in part])
        row = next(line for line in text.splitlines() if line.startswith(label + " "))
        assert f"{rate:.2%}" in row
    assert "mean conf" in text and "invoice-degraded" in text
    assert len(re.findall(r"\d+\.\d\d%", all_row)) == 3  # CER, WER, mean confidence


def test_demo_without_tesseract_says_how_to_install(monkeypatch):
    monkeypatch.setattr("ek.ocr._engines.shutil.which", lambda name: None)
    text = _demo.tesseract_demo()
    assert text.startswith("2. Tesseract benchmark skipped: 'tesseract' is not ready: the 'tesseract' program")
    assert re.search(r"(apt-get|brew|choco) install", text)
