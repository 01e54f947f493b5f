"""The bundled fleet corpus src/ek/data/ocr_fleet: its integrity, its generator, and real engines on it.

The real engines read each page once a test run (tests/ocr/_engine_cache.py): pages the README's
``ek benchmark`` example may have read already.
"""

from __future__ import annotations

import importlib.util
import json
import unicodedata
from collections import Counter
from pathlib import Path

import pytest

import ek
from ek.facade import score
from ek.ocr import engine_specs, evaluate_ocr, fleet_engine
from ek.ocr._engines import check_engine
from ek.ocr._line_images import is_line_image
from tests.ocr import _engine_cache

CORPUS = Path(ek.__file__).parent / "data" / "ocr_fleet"
SCRIPT = Path(__file__).parents[2] / "scripts" / "make_fleet_corpus.py"
FIELDS = {"id", "image", "reference_text", "slice", "kind", "lang", "font", "source"}


def _records():
    lines = (CORPUS / "gold.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def _script():
    spec = importlib.util.spec_from_file_location("make_fleet_corpus", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _requires(engine):
    report = check_engine(engine)
    return pytest.mark.skipif(not report["ok"], reason=report["hint"])


def test_every_record_has_the_fields_and_its_image():
    records = _records()
    assert len(records) == 54
    for record in records:
        assert set(record) == FIELDS, record["id"]
        assert all(isinstance(record[f], str) and record[f] for f in FIELDS), record["id"]
        assert (CORPUS / record["image"]).is_file(), record["image"]
        assert record["kind"] in ("line", "page") and record["slice"] in ("clean", "degraded", "skewed")
        assert record["lang"] in ("en", "de")
    assert len({r["id"] for r in records}) == len(records) == len({r["image"] for r in records})


def test_no_file_in_the_folder_is_left_out():
    listed = {r["image"] for r in _records()} | {"gold.jsonl"}
    assert {p.name for p in CORPUS.iterdir()} == listed


def test_forty_eight_lines_and_six_pages_spread_over_slices_languages_and_fonts():
    records = _records()
    assert Counter(r["kind"] for r in records) == {"line": 48, "page": 6}
    assert Counter((r["kind"], r["slice"]) for r in records) == {
        ("line", s): 16 for s in ("clean", "degraded", "skewed")
    } | {("page", s): 2 for s in ("clean", "degraded", "skewed")}
    for cut in ("clean", "degraded", "skewed"):
        assert {r["lang"] for r in records if r["slice"] == cut and r["kind"] == "page"} == {"en", "de"}
        assert len({r["font"] for r in records if r["slice"] == cut and r["kind"] == "line"}) == 4
    assert {r["font"].split("Serif")[0].split("Sans")[0] for r in records} == {"DejaVu", "Liberation"}


def test_small_enough_to_ship():
    assert sum(p.stat().st_size for p in CORPUS.iterdir()) < 2_000_000


def test_the_line_rule_tells_every_image_by_its_kind():
    from PIL import Image

    for record in _records():
        with Image.open(CORPUS / record["image"]) as image:
            assert is_line_image(*image.size) is (record["kind"] == "line"), (record["id"], image.size)
            assert image.mode == "L"


def test_references_are_clean_text():
    for record in _records():
        text = record["reference_text"]
        assert text == unicodedata.normalize("NFC", text) and text == text.strip()
        assert all(line == line.strip() and line for line in text.split("\n")), record["id"]
        assert ("\n" in text) is (record["kind"] == "page")
    german = "".join(r["reference_text"] for r in _records() if r["lang"] == "de")
    assert set("äöüß") <= set(german)  # letters an English model lacks: real errors


def test_the_gold_file_is_what_the_script_writes():
    module = _script()
    assert module.records() == _records()


@pytest.mark.parametrize("record_id", ["line-01", "line-02", "line-03", "page-4"])
def test_the_script_renders_the_bundled_pixels(record_id):
    from PIL import Image

    module = _script()
    records = module.records()
    seed, record = next((i, r) for i, r in enumerate(records) if r["id"] == record_id)
    font = Path(module.FONT_FILES[record["font"]])
    if not font.is_file():
        pytest.skip(f"font {font} is missing (apt-get install -y fonts-dejavu-core fonts-liberation)")
    with Image.open(CORPUS / record["image"]) as bundled:
        assert module.make_image(record, seed).tobytes() == bundled.tobytes()


def _gold(*ids):
    records = {r["id"]: r for r in _records()}
    return {i: {**records[i], "image": str(CORPUS / records[i]["image"])} for i in ids}


def _cer(read, record_id):
    (record,) = _gold(record_id).values()
    return score(read(record["image"], kind=record["kind"]).text, record["reference_text"], metric="cer").value


@_requires("tesseract")
def test_real_tesseract_on_the_corpus(monkeypatch, tmp_path_factory):
    _engine_cache.read_once(monkeypatch, _engine_cache.shared_folder(tmp_path_factory))
    read = fleet_engine(engine_specs("tesseract")[0])
    assert _cer(read, "line-01") == 0.0  # clean English line, psm 7
    assert 0.05 < _cer(read, "line-08") < 0.5  # degraded German line: umlauts an English model lacks
    assert 0.1 < _cer(read, "page-3") < 0.7  # degraded page: real errors
    report = evaluate_ocr(read, _gold("line-01", "line-08", "page-1", "page-3"), progress=False)
    assert 0.0 < report.aggregate < 0.5 and report.detail["engine"] == "tesseract"
    assert set(report.per_slice) == {"clean", "degraded"} and report.per_slice["clean"] < report.per_slice["degraded"]


@_requires("rapidocr")
def test_real_rapidocr_on_the_corpus(monkeypatch, tmp_path_factory):
    _engine_cache.read_once(monkeypatch, _engine_cache.shared_folder(tmp_path_factory))
    read = fleet_engine(engine_specs("rapidocr")[0])
    assert _cer(read, "line-01") == 0.0  # clean line, recognition only
    assert _cer(read, "line-09") == 0.0  # a line skewed by degrees, straightened first
    assert 0.0 < _cer(read, "page-1") < 0.15  # a clean page through the detector: words run together
    (line,) = _gold("line-09").values()
    assert read(line["image"]).meta["det"] is False  # told a line by its shape, without the record's kind
    report = evaluate_ocr(read, _gold("line-01", "line-08", "page-1"), progress=False)
    assert 0.0 < report.aggregate < 0.2 and report.detail["engine"] == "rapidocr"
