"""The table of document formats (``ek._files._formats``): every row read end to end, and everyone reading the table.

Each row needs a sample here (`SAMPLES`), so a new format cannot be added without one: the sample
must be told apart by its content and by its file name, read to its text, and named in every list
of formats a user sees.
"""

from __future__ import annotations

import os

import pytest

from ek._files import PRED_FORMATS, InputError, read_document, read_pair
from ek._files._formats import DOCUMENT_SUFFIXES, FORMATS, NAMES, by_name, file_format, identify
from ek._files._pairing import Naming

PAGE = "http://schema.primaresearch.org/PAGE/gts/pagecontent/2019-07-15"
ALTO = "http://www.loc.gov/standards/alto/ns-v4#"
ABBYY = "http://www.abbyy.com/FineReader_xml/FineReader10-schema-v1.xml"

SAMPLES = {
    "text": ("p.txt", "Hallo Welt\n", ""),
    "hocr": (
        "p.hocr",
        (
            "<html><body><div class='ocr_page'><span class='ocr_line'><span class='ocrx_word'>Hallo</span> "
            "<span class='ocrx_word'>Welt</span></span></div></body></html>"
        ),
        "",
    ),
    "alto": (
        "p.xml",
        (
            f'<alto xmlns="{ALTO}"><Layout><Page><PrintSpace><TextBlock ID="b"><TextLine ID="l">'
            '<String CONTENT="Hallo"/><SP/><String CONTENT="Welt"/></TextLine></TextBlock></PrintSpace></Page></Layout></alto>'
        ),
        "v4",
    ),
    "page": (
        "p.xml",
        (
            f'<PcGts xmlns="{PAGE}"><Page><TextRegion id="r"><TextLine id="l"><TextEquiv><Unicode>Hallo Welt</Unicode>'
            "</TextEquiv></TextLine></TextRegion></Page></PcGts>"
        ),
        "2019-07-15",
    ),
    "abbyy": (
        "p.xml",
        (
            f'<?xml version="1.0" encoding="UTF-8"?>\n<document xmlns="{ABBYY}" version="1.0"><page><block blockType="Text">'
            "<text><par><line><formatting>Hallo Welt</formatting></line></par></text></block></page></document>"
        ),
        "10v1",
    ),
}


def test_every_row_has_a_sample_and_one_name():
    assert set(SAMPLES) == set(NAMES) and len(set(NAMES)) == len(NAMES) == len(FORMATS)
    assert PRED_FORMATS == NAMES  # --pred-format's choices are the table's rows, in its order


@pytest.mark.parametrize("name", NAMES)
def test_each_row_is_told_by_content_and_by_name_and_read_to_its_text(name, tmp_path):
    rel, text, schema = SAMPLES[name]
    data = text.encode()
    fmt, _, found_schema = identify(data, "<sample>")
    assert fmt is by_name(name) and found_schema == schema
    doc = read_document(data)
    assert doc.format == name and doc.schema == schema and doc.text == "Hallo Welt"
    assert doc.words == ("Hallo", "Welt")
    assert file_format(rel, lambda: data) == name
    assert os.path.splitext(rel)[1] in fmt.extensions
    (tmp_path / rel).write_bytes(data)
    assert read_document(tmp_path / rel).text == "Hallo Welt"  # a path reads as its bytes do


@pytest.mark.parametrize("name", NAMES)
def test_a_format_dinglehopper_does_not_read_is_read_by_eks_rules_under_its_profile(name):
    fmt = by_name(name)
    data = SAMPLES[name][1].encode()
    under_profile = read_document(data, profile="dinglehopper", text_level="line")  # the sample's PAGE has lines only
    if fmt.dinglehopper is None:
        assert under_profile == read_document(data, text_level="line")
    else:
        assert under_profile.text == "Hallo Welt"


def test_the_rows_are_consistent():
    for fmt in FORMATS:
        assert fmt.extensions and all(e.startswith(".") and e == e.lower() for e in fmt.extensions)
        assert bool(fmt.namespaces) == fmt.xml, fmt.name  # an XML format names its schemas; no other does
        assert not fmt.xml or fmt.root, fmt.name
    assert DOCUMENT_SUFFIXES == tuple(dict.fromkeys(e for f in FORMATS for e in f.extensions))
    assert DOCUMENT_SUFFIXES == (".txt", ".hocr", ".html", ".htm", ".xml")


def test_an_extension_of_one_format_decides_without_reading_the_head():
    def unread() -> bytes:
        raise AssertionError("the head was read")

    assert [file_format(f"a/p{ext}", unread) for ext in (".txt", ".hocr", ".html", ".htm")] == ["text"] + ["hocr"] * 3
    assert file_format("p.gt.TXT", unread) == "text"


def test_an_xml_file_is_the_format_whose_root_comes_first_in_its_head():
    alto, page = SAMPLES["alto"][1], SAMPLES["page"][1]
    assert file_format("p.xml", lambda: f"<!-- {page[:6]} -->{alto}".encode()) == "page"
    assert file_format("p.xml", lambda: b"<svg/>") == "xml"
    assert file_format("p.xml", lambda: b"") == "xml"
    assert file_format("README", lambda: b"<PcGts>") == "xml"  # no extension ek reads: not a document's


def test_messages_list_the_table():
    with pytest.raises(ValueError, match=r"must be one of text, hocr, alto, page, abbyy, got 'pdf'\.$"):
        Naming(pred_format="pdf")
    with pytest.raises(InputError, match=r"root element <svg>, which is not an OCR format; expected hOCR"):
        read_document(b"<svg/>")


def test_a_folder_without_documents_names_the_tables_extensions(tmp_path):
    (tmp_path / "gt").mkdir()
    (tmp_path / "gt" / "notes.md").write_text("x")
    with pytest.raises(InputError, match=r"holds no document \(\.txt, \.hocr, \.html, \.htm, \.xml\)"):
        read_pair(tmp_path / "gt", tmp_path / "gt")
