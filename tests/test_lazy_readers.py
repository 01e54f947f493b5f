"""``ek evaluate`` on JSONL records loads none of the document readers: their parsers load with the first document.

The readers of PAGE, ALTO, hOCR and ABBYY files, the METS reader and the
HTML page's package bring ``xml.etree``, ``html.parser`` and more (tens of
milliseconds of every command's start); `ek._files._formats` and
`ek._files` import them at their first use.
"""

from __future__ import annotations

import json
import subprocess
import sys

DOCUMENT_MODULES = [
    "xml.etree.ElementTree",
    "html.parser",
    "ek._files._alto",
    "ek._files._page",
    "ek._files._hocr",
    "ek._files._abbyy",
    "ek._files._dinglehopper",
    "ek._files._xml",
    "ek._files._mets",
    "ek.cli._html",
    "importlib.metadata",
]


def _run(code: str) -> list[str]:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    loaded: list[str] = json.loads(out.stdout.splitlines()[-1])
    return loaded


def test_evaluating_records_loads_no_document_reader(tmp_path):
    gold, pred = tmp_path / "gold.jsonl", tmp_path / "pred.jsonl"
    gold.write_text('{"id": "a", "text": "the cat"}\n{"id": "b", "text": "a dog"}\n')
    pred.write_text('{"id": "a", "text": "the bat"}\n{"id": "b", "text": "a dog"}\n')
    code = (
        "import json, sys; from ek.__main__ import main; "
        f"main(['evaluate', {str(gold)!r}, {str(pred)!r}, '--metric', 'cer']); "
        f"print(json.dumps([m for m in {DOCUMENT_MODULES!r} if m in sys.modules]))"
    )
    assert _run(code) == []


def test_a_document_loads_its_reader_on_first_use(tmp_path):
    page = tmp_path / "p.xml"
    page.write_text(
        '<PcGts xmlns="http://schema.primaresearch.org/PAGE/gts/pagecontent/2019-07-15"><Page>'
        "<TextRegion><TextEquiv><Unicode>Hello</Unicode></TextEquiv></TextRegion></Page></PcGts>"
    )
    code = (
        "import json, sys; from ek._files import read_document, read_workspace; "
        f"doc = read_document({str(page)!r}); assert doc.text == 'Hello', doc.text; "
        "assert read_workspace.__module__ == 'ek._files._mets'; "
        "print(json.dumps([m for m in ['ek._files._page', 'ek._files._xml', 'ek._files._mets'] if m in sys.modules]))"
    )
    assert _run(code) == ["ek._files._page", "ek._files._xml", "ek._files._mets"]


def test_an_unknown_name_is_still_an_attribute_error():
    import pytest

    import ek._files

    with pytest.raises(AttributeError, match="module 'ek._files' has no attribute 'read_nothing'"):
        _ = ek._files.read_nothing
