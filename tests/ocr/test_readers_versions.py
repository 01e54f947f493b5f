"""The readers over every PAGE version, ALTO v1-v4 and the hOCR of Tesseract, kraken and OCRopus.

Fixtures come from tests/ocr/_builders.py (each version as the tools of its
time wrote it) and from ocrd_models (real PAGE 2019); Tesseract's own output
is read in tests/ocr/test_formats.py.
"""

from __future__ import annotations

import datetime
import tracemalloc

import pytest

from ek.ocr.formats import TEXT_LEVELS, read_document
from tests.ocr._builders import (
    PAGE_VERSIONS,
    AltoWord,
    Glyph,
    Line,
    Region,
    Word,
    alto_document,
    full_line,
    full_region,
    hocr_kraken,
    hocr_ocropus,
    hocr_tesseract,
    page_document,
    page_xsd,
)

TEXTS = {"r1": ["Die Schlyñ-", "gen & co"], "c1": ["cell one"], "c2": ["cell two"], "r2": ["Ende gut"]}
REGIONS = [
    full_region("r1", TEXTS["r1"]),
    Region("t1", kind="TableRegion", regions=(full_region("c1", TEXTS["c1"]), full_region("c2", TEXTS["c2"]))),
    Region("img", kind="ImageRegion"),
    full_region("r2", TEXTS["r2"]),
]


@pytest.mark.parametrize("version", PAGE_VERSIONS)
@pytest.mark.parametrize("text_level", (None,) + TEXT_LEVELS)
def test_every_page_version_reads_the_same_text_at_every_level(version, text_level):
    data = page_document(version, REGIONS)
    assert (b"<Point x=" in data) == (version < "2013") and (b"<PlainText>" in data) == (version < "2019")
    doc = read_document(data, text_level=text_level)
    assert (doc.format, doc.schema) == ("page", version)
    assert doc.lines == ("Die Schlyñ-", "gen & co", "cell one", "cell two", "Ende gut")
    assert doc.words == ("Die", "Schlyñ-", "gen", "&", "co", "cell", "one", "cell", "two", "Ende", "gut")
    assert (doc.text_level, doc.fallbacks) == (text_level or "region", ())  # every region has its own text
    assert doc.level_disagreements == ()
    if version == "2019-07-15":  # as ocrd_models writes it, with the pc: prefix
        assert read_document(page_document(version, REGIONS, prefix="pc"), text_level=text_level) == doc


@pytest.mark.parametrize("version", PAGE_VERSIONS)
def test_reading_order_with_a_table_and_nested_groups_in_every_version(version):
    order = (
        '<ReadingOrder><OrderedGroup id="g0">'
        '<RegionRefIndexed index="2" regionRef="r1"/>'
        '<UnorderedGroupIndexed index="1" id="g1"><RegionRef regionRef="t1"/></UnorderedGroupIndexed>'
        '<RegionRefIndexed index="0" regionRef="img"/>'
        "</OrderedGroup></ReadingOrder>"
    )
    doc = read_document(page_document(version, REGIONS, reading_order=order))
    # the image region has no text; the table gives its cells in document order; r2 is not named: it comes last
    assert doc.lines == ("cell one", "cell two", "Die Schlyñ-", "gen & co", "Ende gut")


def test_page_2019_fixtures_are_valid_against_the_schema():
    etree = pytest.importorskip("lxml.etree")
    schema = etree.XMLSchema(etree.parse(str(page_xsd())))
    alternatives = [Region("a", "first", alternatives=(("second", 2, 0.9),)), Region("b", lines=(Line("x", conf=0.5),))]
    for data in (
        page_document("2019-07-15", REGIONS, reading_order=("r2", "t1", "r1")),
        page_document("2019-07-15", REGIONS, prefix="pc"),
        page_document("2019-07-15", alternatives),
    ):
        assert schema.validate(etree.fromstring(data)), schema.error_log.last_error


def test_page_2019_written_by_ocrd_models():
    page = pytest.importorskip("ocrd_models.ocrd_page")
    pcgts = page.PcGtsType(
        Metadata=page.MetadataType(
            Creator="ek tests", Created=datetime.datetime(2020, 1, 1), LastChange=datetime.datetime(2020, 1, 1)
        ),
        Page=page.PageType(imageFilename="x.png", imageWidth=100, imageHeight=100),
    )
    coords = "0,0 10,0 10,5"
    for rid, lines in (("r0", ["erſte Zeile", "zweite"]), ("r1", ["Schluß"])):
        region = page.TextRegionType(id=rid, Coords=page.CoordsType(points=coords))
        for k, text in enumerate(lines):
            line = page.TextLineType(id=f"{rid}l{k}", Coords=page.CoordsType(points=coords))
            for j, word in enumerate(text.split()):
                w = page.WordType(id=f"{rid}l{k}w{j}", Coords=page.CoordsType(points=coords))
                w.add_TextEquiv(page.TextEquivType(Unicode=word, conf=0.75, index=1))
                w.add_TextEquiv(page.TextEquivType(Unicode=word.upper(), conf=0.25, index=2))
                line.add_Word(w)
            line.add_TextEquiv(page.TextEquivType(Unicode=text, conf=0.5))
            region.add_TextLine(line)
        pcgts.get_Page().add_TextRegion(region)
    group = page.OrderedGroupType(id="ro")
    for k, rid in enumerate(["r1", "r0"]):
        group.add_RegionRefIndexed(page.RegionRefIndexedType(index=k, regionRef=rid))
    pcgts.get_Page().set_ReadingOrder(page.ReadingOrderType(OrderedGroup=group))
    data = page.to_xml(pcgts).encode()
    assert b"<pc:PcGts" in data
    doc = read_document(data)
    assert (doc.schema, doc.text_level) == ("2019-07-15", "line")  # the regions have no text of their own
    assert doc.lines == ("Schluß", "erſte Zeile", "zweite")
    assert doc.word_confidences == (0.75,) * 4 and doc.line_confidences == (0.5,) * 3
    assert read_document(data, pick="conf", text_level="word").lines == doc.lines
    assert read_document(data, text_level="line").line_confidences == (0.5,) * 3


def test_each_level_gives_its_own_text_the_default_is_the_region_s_and_the_levels_are_checked():
    # a ground truth corrected at word level only: region and line text are stale
    line = Line("teh cat", words=(Word("the", (Glyph("t"), Glyph("h"), Glyph("e"))), Word("cat")))
    data = page_document("2019-07-15", [Region("r", "teh kat", (line,))])
    texts = {lv: read_document(data, text_level=lv).text for lv in TEXT_LEVELS}
    assert texts == {"region": "teh kat", "line": "teh cat", "word": "the cat", "glyph": "the cat"}
    doc = read_document(data)
    assert (doc.text, doc.text_level, doc.fallbacks) == ("teh kat", "region", ())
    # each level read is checked against the next finer one it has (the finest against the next coarser)
    assert doc.level_disagreements == (("r", "region", "line", 1 / 7),)  # one edit over "teh kat"
    assert read_document(data, text_level="line").level_disagreements == (("r", "line", "word", 2 / 7),)
    glyph = read_document(data, text_level="glyph")
    assert glyph.fallbacks == (("r", "word"),)  # "cat" has no glyphs
    assert glyph.level_disagreements == (("r", "word", "line", 2 / 7),)


def test_glyphs_join_into_words_and_words_into_lines():
    line = Line(None, words=(Word(None, tuple(map(Glyph, "Sch"))), Word(None, tuple(map(Glyph, "ön")))))
    doc = read_document(page_document("2019-07-15", [Region("r", lines=(line,))]))
    assert (doc.lines, doc.words, doc.text_level) == (("Sch ön",), ("Sch", "ön"), "glyph")


def test_a_region_with_text_only_at_region_level_beside_line_regions():
    regions = [
        Region("a", "only the region"),
        Region("b", lines=(full_line("a line"),)),
        Region("c", lines=(full_line("another"),)),
    ]
    doc = read_document(page_document("2019-07-15", regions))
    # each region at its own text, else its lines: the document's level is the one most regions were read at
    assert doc.text == "only the region\na line\nanother"
    assert (doc.text_level, doc.fallbacks) == ("line", (("a", "region"),))


def test_alternatives_by_index_at_every_level_and_by_confidence():
    word = (
        '<Word id="w"><TextEquiv index="2" conf="0.9"><Unicode>B</Unicode></TextEquiv>'
        '<TextEquiv index="1" conf="0.2"><Unicode>A</Unicode></TextEquiv></Word>'
    )
    body = (
        f'<TextRegion id="r"><TextLine id="l">{word}<TextEquiv index="0"><Unicode>line</Unicode></TextEquiv>'
        "<TextEquiv><Unicode>no index</Unicode></TextEquiv></TextLine></TextRegion>"
    )
    data = _page(body)
    assert read_document(data, text_level="word").text == "A"
    assert read_document(data, text_level="word", pick="conf").text == "B"
    assert read_document(data, text_level="line").text == "line"


@pytest.mark.parametrize("index", ["abc", "1.5", "٣", "9" * 5000])
def test_a_bad_index_names_the_file_and_the_element(index):
    body = (
        f'<TextRegion id="r"><TextLine id="l7"><TextEquiv index="{index}"><Unicode>x</Unicode></TextEquiv>'
        "</TextLine></TextRegion>"
    )
    with pytest.raises(
        ValueError,
        match=r"^g\.xml: <TextEquiv> of <TextLine id='l7'> has index='.*', which is not "
        r"a whole number \(of at most 18 digits\); @index ranks alternatives",
    ) as caught:
        read_document(_page(body), name="g.xml")
    assert "\n" not in str(caught.value) and len(str(caught.value)) < 300
    order = (
        '<ReadingOrder><OrderedGroup id="g"><RegionRefIndexed index="x" regionRef="r"/></OrderedGroup></ReadingOrder>'
    )
    with pytest.raises(ValueError, match=r"g\.xml: <RegionRefIndexed regionRef='r'> in the ReadingOrder has index='x'"):
        read_document(
            _page(order + '<TextRegion id="r"><TextEquiv><Unicode>x</Unicode></TextEquiv></TextRegion>'), name="g.xml"
        )


def test_reading_order_groups_refs_duplicates_and_unknown_names():
    regions = "".join(
        f'<TextRegion id="r{k}"><TextEquiv><Unicode>{k}</Unicode></TextEquiv></TextRegion>' for k in range(6)
    )
    order = (
        '<ReadingOrder><UnorderedGroup id="u"><UserDefined/><Labels/>'
        '<OrderedGroup id="o" regionRef="r5"><Labels/>'
        '<RegionRefIndexed index="9" regionRef="r1"/><RegionRefIndexed index="3" regionRef="r2"/></OrderedGroup>'
        '<RegionRef regionRef="r1"/><RegionRef regionRef="nowhere"/><RegionRef regionRef="r0"/>'
        "</UnorderedGroup></ReadingOrder>"
    )
    # the group's own region first, then its members by index; r1 is read once; r3, r4 follow in document order
    assert read_document(_page(order + regions)).lines == ("5", "2", "1", "0", "3", "4")


def test_eight_thousand_references_to_a_table_take_linear_memory():
    n = 8000
    cells = "".join(
        f'<TextRegion id="c{k}"><TextEquiv><Unicode>{k}</Unicode></TextEquiv></TextRegion>' for k in range(n)
    )
    refs = "".join(f'<RegionRefIndexed index="{k}" regionRef="t"/>' for k in range(n))
    data = _page(
        f'<ReadingOrder><OrderedGroup id="g">{refs}</OrderedGroup></ReadingOrder>'
        f'<TableRegion id="t">{cells}</TableRegion>'
    )
    tracemalloc.start()
    try:
        doc = read_document(data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert doc.lines == tuple(map(str, range(n)))
    assert peak < 60 * len(data)  # was ~1 GB (each reference walked the table again); now a few times the file


def test_five_thousand_nested_groups_are_followed_without_recursion():
    n = 5000
    groups = "".join(
        f'<OrderedGroupIndexed id="g{k}" index="1"><RegionRefIndexed index="0" regionRef="r{k}"/>' for k in range(n)
    )
    order = f'<ReadingOrder><OrderedGroup id="top">{groups}{"</OrderedGroupIndexed>" * n}</OrderedGroup></ReadingOrder>'
    regions = "".join(
        f'<TextRegion id="r{k}"><TextEquiv><Unicode>{k}</Unicode></TextEquiv></TextRegion>' for k in reversed(range(n))
    )
    assert read_document(_page(order + regions)).lines == tuple(map(str, range(n)))


def _page(body: str) -> bytes:
    return (
        f'<PcGts xmlns="http://schema.primaresearch.org/PAGE/gts/pagecontent/2019-07-15"><Page imageFilename="x" '
        f'imageWidth="1" imageHeight="1">{body}</Page></PcGts>'
    ).encode()


# -- ALTO -------------------------------------------------------------------

BLOCKS = [
    [
        [AltoWord("Die", 0.91), AltoWord("Schlyñ", 0.5, subs=("HypPart1", "Schlyñgen"))],
        [AltoWord("gen", 1.0, subs=("HypPart2", "Schlyñgen")), AltoWord("&", 0.25), AltoWord("co")],
    ],
    [[AltoWord("Ende")]],
]


@pytest.mark.parametrize("version", ["v1", "v2", "v3", "v4", ""])
def test_alto_versions_spaces_hyphens_and_substitutions(version):
    doc = read_document(alto_document(version, BLOCKS, hyphens={(0, 0): "-"}))
    assert (doc.format, doc.schema, doc.text_level) == ("alto", version, "line")  # ALTO: line level by default
    # HYP ends the line as printed; SUBS_CONTENT (the joined word) is not used
    assert doc.lines == ("Die Schlyñ-", "gen & co", "Ende")
    assert doc.words == ("Die", "Schlyñ-", "gen", "&", "co", "Ende")
    assert doc.word_confidences == (0.91, 0.5, 1.0, 0.25, None, None)
    assert read_document(alto_document(version, BLOCKS), text_level="region").lines == (
        "Die Schlyñ",
        "gen & co",
        "Ende",
    )


def test_alto_hyphen_is_not_doubled_and_may_stand_alone():
    blocks = [[[AltoWord("Schlyñ¬")], []], [[]]]
    doc = read_document(alto_document("v4", blocks, hyphens={(0, 0): "¬", (0, 1): "-", (1, 0): "⸗"}))
    assert doc.lines == ("Schlyñ¬", "-", "⸗")


def test_alto_glyph_level():
    blocks = [[[AltoWord("Fiſch", glyphs=tuple("Fiſch")), AltoWord("zu", glyphs=("z", "u"))]], [[AltoWord("Ende")]]]
    doc = read_document(alto_document("v3", blocks, hyphens={(0, 0): "-"}))
    assert (doc.lines, doc.text_level, doc.fallbacks) == (("Fiſch zu-", "Ende"), "line", ())
    doc = read_document(alto_document("v3", blocks, hyphens={(0, 0): "-"}), text_level="glyph")
    assert (doc.lines, doc.fallbacks) == (("Fiſch zu-", "Ende"), (("block_1", "word"),))


# -- hOCR -------------------------------------------------------------------


def test_hocr_from_tesseract_kraken_and_ocropus():
    tess = read_document(hocr_tesseract([["Fish and", "chips"], ["x"]], confs=[96, 41, 7, 100]))
    assert (tess.lines, tess.text_level) == (("Fish and", "chips", "x"), "line")  # hOCR: line level by default
    assert tess.word_confidences == (0.96, 0.41, 0.07, 1.0)
    glyphs = read_document(hocr_tesseract([["Fish and"]], glyphs=True))
    assert (glyphs.lines, glyphs.text_level) == (("Fish and",), "line")
    assert read_document(hocr_tesseract([["Fish and"]], glyphs=True), text_level="glyph").text_level == "glyph"
    kraken = read_document(hocr_kraken(["Fish and", "chips"]))
    assert (kraken.lines, kraken.text_level, kraken.word_confidences) == (("Fish and", "chips"), "line", (None,) * 3)
    ocropus = read_document(hocr_ocropus(["Fish  and ", "chips"]))
    assert (ocropus.lines, ocropus.text_level, ocropus.fallbacks) == (("Fish and", "chips"), "line", ())
    words = read_document(hocr_ocropus(["Fish"]), text_level="word")
    assert words.fallbacks == (("region 1", "line"),)  # lines right in the page: the page is the region


def test_hocr_regions_are_paragraphs_else_content_areas():
    html = (
        "<div class='ocr_page'><div class='ocr_carea' id='a1'><span class='ocr_line'>loose</span>"
        "<p class='ocr_par' id='p1'><span class='ocr_line'><span class='ocrx_word'>in</span></span></p>"
        "<span class='ocr_line'>after</span></div></div>"
    )
    doc = read_document(html.encode(), text_level="word")
    assert doc.lines == ("loose", "in", "after")
    assert doc.fallbacks == (("a1", "line"), ("a1", "line"))  # the paragraph p1 has words; the area's lines do not


def test_unclosed_hocr_line_spans_each_make_a_line():
    n = 60_000  # 1.5 MB: each span's text used to walk every open element (236 s); now a counter per role
    data = ("<div class='ocr_page'>" + "<span class='ocr_line'>x " * n).encode()
    doc = read_document(data)
    assert len(data) > 1_500_000 and doc.lines == ("x",) * n


def test_a_group_naming_a_table_reads_the_cells_it_names_in_its_order_then_the_others():
    cells = tuple(full_region(f"c{k}", [f"cell {k}"]) for k in range(1, 5))
    regions = [Region("t", kind="TableRegion", regions=cells), full_region("after", ["after"])]
    for group in ("OrderedGroupIndexed", "UnorderedGroupIndexed"):
        members = (
            '<RegionRefIndexed index="0" regionRef="c3"/><RegionRefIndexed index="1" regionRef="c1"/>'
            if group.startswith("Ordered")
            else '<RegionRef regionRef="c3"/><RegionRef regionRef="c1"/>'
        )
        order = (
            f'<ReadingOrder><OrderedGroup id="g"><{group} id="t_order" regionRef="t" index="0">{members}'
            f'</{group}><RegionRefIndexed index="1" regionRef="after"/></OrderedGroup></ReadingOrder>'
        )
        doc = read_document(page_document("2019-07-15", regions, reading_order=order))
        # the group's order (an unordered group: as listed), then c2 and c4 in document order, then "after"
        assert doc.lines == ("cell 3", "cell 1", "cell 2", "cell 4", "after"), group


def test_a_group_naming_a_text_region_with_regions_inside_gives_its_own_lines_first():
    inner = (full_region("i1", ["inner one"]), full_region("i2", ["inner two"]))
    regions = [Region("outer", lines=(full_line("outer line"),), regions=inner)]
    order = (
        '<ReadingOrder><OrderedGroup id="g" regionRef="outer"><RegionRefIndexed index="0" regionRef="i2"/>'
        "</OrderedGroup></ReadingOrder>"
    )
    doc = read_document(page_document("2019-07-15", regions, reading_order=order))
    assert doc.lines == ("outer line", "inner two", "inner one")
