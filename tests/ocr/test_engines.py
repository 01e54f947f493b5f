"""ek.ocr._engines: engine ids and the readiness report behind `ek engines` / `ek check`."""

from __future__ import annotations

import re
import shutil
import sys

import ocracy
import pytest

from ek.ocr._ids import canonical_id
from ek.ocr._engines import check_engine, installed_engines, resolve_engine_id
from ek.registry import MissingExtraError

requires_tesseract = pytest.mark.skipif(
    shutil.which("tesseract") is None,
    reason="the tesseract binary is not installed (apt-get install -y tesseract-ocr)",
)


@pytest.mark.parametrize("spelling, expected", [
    ("google_vision", "google-vision"), ("AWS_Textract", "aws-textract"), (" tesseract ", "tesseract"),
])
def test_canonical_id(spelling, expected):
    assert canonical_id(spelling) == expected
    assert resolve_engine_id(spelling) == expected


def test_resolve_unknown_engine_lists_known():
    with pytest.raises(KeyError, match=r"no OCR engine 'paddle'.*Known engines: aws-textract, "):
        resolve_engine_id("paddle")


def test_installed_engines_agree_with_ocracy():
    found = installed_engines()
    assert found == sorted(found)
    assert set(found) <= set(ocracy.available_backends())


@requires_tesseract
def test_tesseract_is_installed_and_ready():
    assert "tesseract" in installed_engines()
    report = check_engine("tesseract")
    assert report["ok"] is True and report["known"] is True and report["package"] is True
    assert report["binary"] == shutil.which("tesseract")
    assert report["profile"]["confidence_grain"] == "symbol"
    assert report["hint"] == "'tesseract' is ready to run."


def test_missing_binary_is_reported_with_the_install_line(monkeypatch):
    pytest.importorskip("pytesseract")
    monkeypatch.setattr("ek.ocr._engines.shutil.which", lambda name: None)
    report = check_engine("tesseract")
    assert report["ok"] is False and report["binary"] is None and report["package"] is True
    assert re.search(r"(apt-get|brew|choco) install .*tesseract", report["hint"])
    assert "tesseract" not in installed_engines()


def test_unknown_engine_is_reported_not_raised():
    report = check_engine("tesserakt")
    assert report["ok"] is False and report["known"] is False
    assert "Did you mean 'tesseract'?" in report["hint"] and "Known engines:" in report["hint"]
    assert report["profile"]["confidence_grain"] == "unknown"


def test_remote_engine_without_credentials_names_the_variable(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    report = check_engine("gpt_4o_vision")
    assert report["engine"] == "gpt-4o-vision" and report["ok"] is False
    assert any("OPENAI_API_KEY" in c for c in report["credentials"])
    assert "OPENAI_API_KEY" in report["hint"]


def test_without_ocracy(monkeypatch):
    monkeypatch.setitem(sys.modules, "ocracy", None)
    monkeypatch.setattr("ek.ocr._engines.is_installed", lambda name: False)
    report = check_engine("tesseract")
    assert report["ok"] is False and report["known"] is None
    assert 'pip install "ek[ocr]"' in report["hint"] and "tesseract-ocr" in report["hint"]
    with pytest.raises(MissingExtraError, match=r'Listing OCR engines needs .*pip install "ek\[ocr\]"'):
        installed_engines()


def test_check_engine_needs_an_id():
    with pytest.raises(ValueError, match="empty engine id"):
        check_engine("  ")
    with pytest.raises(TypeError, match="takes an engine id such as 'tesseract', got int"):
        check_engine(3)
