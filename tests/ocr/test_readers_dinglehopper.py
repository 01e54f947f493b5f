"""``profile="dinglehopper"`` extracts exactly the text dinglehopper 0.11 extracts, before its normalisation.

dinglehopper normalises as it extracts (``normalize_sbb``), so most pairs use
text that normalisation leaves alone, and the historical ones compare
``normalize_sbb(ek's text)`` with dinglehopper's.
"""

from __future__ import annotations

import importlib

import pytest

from ek.ocr.formats import read_document
from tests.ocr._builders import PAGE_VERSIONS, AltoWord, Line, Region, alto_document, full_region, page_document

ocr_files = pytest.importorskip("dinglehopper.ocr_files")
normalize_sbb = importlib.import_module("dinglehopper.extracted_text").normalize_sbb

REGIONS = [
    full_region("r1", ["Die Schlyn-", "gen & co"]),
    Region("t1", kind="TableRegion", regions=(full_region("c1", ["cell one"]),)),
    Region("empty"),
    Region("blank", "", (Line(""),)),
    Region("lines", None, (Line("only"), Line(""), Line("lines"))),
    Region("outer", "outer text", (Line("outer line"),), regions=(full_region("inner", ["inner text"]),)),
    full_region("r2", ["Ende gut"]),
]
ORDER = (
    '<ReadingOrder><OrderedGroup id="g0">'
    '<RegionRefIndexed index="3" regionRef="r1"/>'
    '<RegionRef regionRef="r2"/>'  # no @index in an ordered group: dinglehopper drops it
    '<UnorderedGroupIndexed index="1" id="g1"><RegionRef regionRef="t1"/><RegionRef regionRef="lines"/>'
    '<OrderedGroup id="g2"><RegionRefIndexed index="0" regionRef="inner"/></OrderedGroup></UnorderedGroupIndexed>'
    '<RegionRefIndexed index="2" regionRef="r1"/>'
    '<RegionRefIndexed index="0" regionRef="blank"/>'
    "</OrderedGroup></ReadingOrder>"
)


def _agree(tmp_path, data: bytes, *, text_level: str = "region", normalised: bool = False, name: str = "f.xml") -> str:
    path = tmp_path / name
    path.write_bytes(data)
    theirs = ocr_files.extract(str(path), textequiv_level=text_level, plain_encoding="utf-8").text
    ours = read_document(path, profile="dinglehopper", text_level=text_level, allow_empty=True).text
    if normalised:
        assert normalize_sbb(ours) == theirs
    else:
        assert normalize_sbb(theirs) == theirs  # the text needs no normalisation, so this compares extraction alone
        assert ours == theirs
    return ours


@pytest.mark.parametrize("version", PAGE_VERSIONS)
@pytest.mark.parametrize("text_level", ["region", "line"])
@pytest.mark.parametrize("order", [None, ORDER], ids=["document-order", "reading-order"])
def test_page_in_every_version_at_both_levels_with_and_without_a_reading_order(tmp_path, version, text_level, order):
    text = _agree(tmp_path, page_document(version, REGIONS, reading_order=order), text_level=text_level)
    if order is None and text_level == "region":  # every region in document order, nested ones too, "" dropped
        assert text == "Die Schlyn-\ngen & co\ncell one\nouter text\ninner text\nEnde gut"
    if (
        order is not None and text_level == "line"
    ):  # only named text regions; r1 twice; blank lines inside a region kept
        assert text == "only\n\nlines\ninner text\nDie Schlyn-\ngen & co\nDie Schlyn-\ngen & co"


def test_alternatives_are_chosen_by_index_then_confidence_then_position(tmp_path):
    def region(rid, *equivs):
        alts = "".join(f"<TextEquiv{attrs}><Unicode>{text}</Unicode></TextEquiv>" for text, attrs in equivs)
        return f'<TextRegion id="{rid}">{alts}</TextRegion>'

    body = "".join(
        [
            region("a", ("a-no-index", ""), ("a-two", ' index="2"'), ("a-one", ' index="1" conf="0.1"')),
            region("b", ("b-low", ' conf="0.2"'), ("b-high", ' conf="0.9"'), ("b-none", "")),
            region("c", ("c-first", ""), ("c-second", "")),
            region("d", ("d-tie-1", ' index="1"'), ("d-tie-2", ' index="1"')),
            (
                '<TextRegion id="e"><TextEquiv index="0"/><TextEquiv index="1"><Unicode>e-has-unicode</Unicode></TextEquiv>'
                "</TextRegion>"
            ),
        ]
    )
    data = (
        f'<PcGts xmlns="http://schema.primaresearch.org/PAGE/gts/pagecontent/2019-07-15"><Page imageFilename="x"'
        f' imageWidth="1" imageHeight="1">{body}</Page></PcGts>'
    ).encode()
    # e: the lowest index has no Unicode, so dinglehopper reads "" and drops the region (ek's own rule reads it)
    assert _agree(tmp_path, data) == "a-one\nb-high\nc-first\nd-tie-1"
    assert read_document(data).lines[-1] == "e-has-unicode"


@pytest.mark.parametrize("version", ["v1", "v2", "v3", "v4"])
def test_alto_lines_of_strings_without_hyphens(tmp_path, version):
    blocks = [
        [[AltoWord("Die", 0.9), AltoWord("Schlyn")], [AltoWord("gen"), AltoWord(""), AltoWord("co")], []],
        [[AltoWord("Ende")]],
    ]
    text = _agree(tmp_path, alto_document(version, blocks, hyphens={(0, 0): "-"}))
    assert text == "Die Schlyn\ngen  co\n\nEnde"  # HYP ignored, an empty string still joined, a blank line kept
    assert read_document(tmp_path / "f.xml", profile="dinglehopper").word_confidences[0] == 0.9


@pytest.mark.parametrize(
    "data",
    [
        b"a\n\nb\n",
        b"a\r\nb\r\n\r\n",
        b"  a  \n\tb",
        b"a\rb",
        b"\n\na\n",
        "\ufeffa\nb".encode(),
        "a\u2028\nb\x0c\n".encode(),
        b"a",
    ],
)
def test_plain_text_lines_stripped_blank_lines_kept(tmp_path, data):
    text = _agree(tmp_path, data, name="f.txt")
    assert "\r" not in text


def test_historical_text_agrees_after_dinglehopper_normalises_ours(tmp_path):
    lines = ["ſchön Schlym\u0303", "e\u0301tude ﬁne", "’tis—so", "\uf502 MUFI", "q\u0301 cafe\u0301"]
    page = page_document("2019-07-15", [full_region("r1", lines[:3]), full_region("r2", lines[3:])])
    ours = _agree(tmp_path, page, normalised=True)
    assert ours == "\n".join(lines)  # no normalisation at extraction: the scorer applies dinglehopper's
    _agree(tmp_path, page, text_level="line", normalised=True)
    _agree(tmp_path, alto_document("v2", [[[AltoWord(w) for w in line.split()] for line in lines]]), normalised=True)
    _agree(tmp_path, "\n".join(lines).encode(), normalised=True, name="f.txt")


def test_hocr_is_read_by_ek_rules_under_the_profile():
    html = b"<div class='ocr_page'><span class='ocr_line'>a  b</span><span class='ocr_line'> </span></div>"
    assert read_document(html, profile="dinglehopper").lines == ("a b",)


@pytest.mark.parametrize("asked, levels, other", [(None, ("line",), "line"), ("line", ("region",), "region")])
def test_a_page_without_text_at_the_profile_level_says_which_level_has_it(tmp_path, asked, levels, other):
    # dinglehopper reads such a page as empty; ek refuses it and names the level that has text
    region = Region(
        "r1", "eins zwei" if "region" in levels else None, (Line("eins zwei"),) if "line" in levels else (Line(None),)
    )
    path = tmp_path / "gt.xml"
    path.write_bytes(page_document("2019-07-15", [region]))
    with pytest.raises(
        ValueError,
        match=rf"has no text \(page\) at {asked or 'region'} level, where the dinglehopper "
        rf"profile reads it .*; it has text at {other} level: read that with "
        rf"--text-level {other}",
    ):
        read_document(path, profile="dinglehopper", text_level=asked)
    assert read_document(path, profile="dinglehopper", text_level=other).text == "eins zwei"
