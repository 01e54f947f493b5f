"""ek's default reading on real ground truth: the figures equal those at region level, and disagreeing levels are said.

The files are dinglehopper's test data and OCR-D/assets' Kant workspaces
(tests/fixtures/real/README.md has their sources and licences). Issue 29:
by default ek read the finest level present (glyphs, stored out of order on
actevedef's page; words, with punctuation standing alone on Kant's), which
gave CER 49.3% where region level gives 13.1%.
"""

from __future__ import annotations

import json
import unicodedata
import warnings

import pytest

from ek.ocr.files import evaluate_files
from ek.ocr.formats import TEXT_LEVELS, read_document
from tests.ocr._real_pairs import REAL_PAIRS

PAIRS = {
    name: REAL_PAIRS[name]
    for name in (
        "actevedef-tesseract",
        "actevedef-calamari",
        "kant-word-gt-tesseract",
        "kant-page-alto-0017",
        "kant-page-alto-0020",
        "brochrnx",
        "lorem-ipsum",
        "lorem-ipsum-bad",
        "bigger-texts",
    )
}


def _figures(real_data, name, **options):
    gold, pred = PAIRS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # private-use characters: compared as themselves here
        r = evaluate_files(real_data / gold, real_data / pred, measures=("cer", "wer"), **options)
    return r.aggregate, r.detail["measures"]["wer"], r.detail


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_the_default_figures_are_those_at_region_level(real_data, name):
    default, region = _figures(real_data, name), _figures(real_data, name, text_level="region")
    assert default[:2] == region[:2]
    assert default[2]["text_level"] in ("region", {"gold": "region", "pred": "line"})  # ALTO: line level


def test_actevedef_default_is_no_longer_the_glyph_reading(real_data):
    cer, _, detail = _figures(real_data, "actevedef-tesseract")
    glyph, _, _ = _figures(real_data, "actevedef-tesseract", text_level="glyph")
    line, _, _ = _figures(real_data, "actevedef-tesseract", text_level="line")
    # region text 13.1% (the issue's figure); glyphs and words, now in their word's and line's order, 18.7%
    assert round(cer, 3) == 0.131 and cer < line < 0.18 and glyph < 0.19  # main read the glyphs: 0.493
    assert detail["level_disagreements"] == [
        {
            "side": "gold",
            "id": "00000024.page",
            "region": "r9",
            "level": "region",
            "other_level": "line",
            "cer": pytest.approx(_r9(real_data)),
        }
    ]


def _r9(real_data) -> float:
    """The CER of region r9's line text against its own text, read with lxml and rapidfuzz (not ek's readers)."""
    from lxml import etree
    from rapidfuzz.distance import Levenshtein

    tree = etree.parse(str(real_data / PAIRS["actevedef-tesseract"][0]))
    ns = {"pc": tree.getroot().nsmap[None]}
    region = tree.find(".//pc:TextRegion[@id='r9']", ns)
    own = region.findtext("pc:TextEquiv/pc:Unicode", namespaces=ns)
    lines = "\n".join(
        line.findtext("pc:TextEquiv/pc:Unicode", namespaces=ns) for line in region.findall("pc:TextLine", ns)
    )
    own, lines = (" ".join(unicodedata.normalize("NFC", t).split()) for t in (own, lines))
    return Levenshtein.distance(own, lines) / len(own)


def test_kant_word_level_ground_truth_joins_its_punctuation(real_data):
    # "Monatsſchrift ." as two words: at word level the line text decides, so the word reading is the line's
    _, wer_word, _ = _figures(real_data, "kant-word-gt-tesseract", text_level="word")
    _, wer_line, _ = _figures(real_data, "kant-word-gt-tesseract", text_level="line")
    assert wer_word == wer_line
    doc = read_document(real_data / PAIRS["kant-word-gt-tesseract"][0], text_level="word")
    assert doc.lines[0] == "Berliniſche Monatsſchrift." and "Monatsſchrift" in doc.words and "." in doc.words


def test_a_page_whose_levels_differ_says_so_in_the_terminal_the_json_and_the_page(real_data, tmp_path, capsys):
    from ek.__main__ import main

    page = real_data / "dinglehopper/levels-are-different.page.xml"
    doc = read_document(page)
    assert (doc.text, doc.text_level) == ("Inconsistent dummy region text", "region")
    ((rid, level, other, cer),) = doc.level_disagreements
    assert (rid, level, other) == ("r1070", "region", "line") and cer > 1  # the lines hold far more text
    html = tmp_path / "page.html"
    assert main(["evaluate", str(page), str(page), "--html", str(html)]) == 0
    out = capsys.readouterr().out
    said = [line for line in out.splitlines() if line.startswith("levels: ")]
    assert len(said) == 1 and "region r1070" in said[0] and "--text-level line reads the line text" in said[0]
    assert "the figures use the region text" in said[0] and f"CER {cer:.1%}" in said[0]
    assert 'id="levels-note"' in html.read_text(encoding="utf-8")
    assert main(["evaluate", str(page), str(page), "--json", "-"]) == 0
    rows = json.loads(capsys.readouterr().out)["level_disagreements"]
    assert {(r["side"], r["region"], r["level"], r["other_level"]) for r in rows} == {
        ("gold", "r1070", "region", "line"),
        ("pred", "r1070", "region", "line"),
    }
    assert all(r["cer"] == pytest.approx(cer) for r in rows)


@pytest.mark.parametrize("name", ["brochrnx", "lorem-ipsum", "kant-page-alto-0017"])
def test_consistent_ground_truth_reports_no_disagreement(real_data, name):
    assert _figures(real_data, name)[2]["level_disagreements"] == []


TABLE_ORDER = {  # what each file's reading order says (dinglehopper's tests expect the same)
    "table-order-0001.xml": "123456789",
    "table-order-0002.xml": "147258369",
    "table-region.xml": "123456789",  # an OrderedGroupIndexed naming the TableRegion and its cells
    "table-unordered.xml": "123456789",  # an unordered group: as listed
    "table-no-reading-order.xml": "567891234",  # no reading order: document order
}


@pytest.mark.parametrize("name", sorted(TABLE_ORDER))
def test_table_cells_read_in_the_order_the_file_gives(real_data, name):
    from dinglehopper.ocr_files import page_text
    from lxml import etree

    path = real_data / "dinglehopper/table-order" / name
    assert read_document(path).text == "\n".join(TABLE_ORDER[name])
    # the profile keeps dinglehopper's own reading order, equal to dinglehopper's on each file
    profile = read_document(path, profile="dinglehopper").text
    assert profile == page_text(etree.parse(str(path))) == "\n".join(TABLE_ORDER[name])


@pytest.mark.parametrize("text_level", TEXT_LEVELS)
def test_faulty_glyphs_names_the_level_asked_for(real_data, text_level):
    path = real_data / "ocrd-assets/glyph-consistency/OCR-D-GT-PAGE/FAULTY_GLYPHS.xml"
    with pytest.raises(ValueError) as caught:
        read_document(path, text_level=text_level)
    message = str(caught.value)
    assert f"has no TextEquiv/Unicode at {text_level} level" in message and "<TextRegion id='r5'>" in message
    assert f"--text-level {text_level}" in message and "remove it from the file" in message
    assert not any(f" at {lv} level" in message for lv in TEXT_LEVELS if lv != text_level)
