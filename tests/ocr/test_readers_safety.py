"""The readers refuse what they must (DTDs, entities, bad confidences) in one line, and survive deep nesting."""

from __future__ import annotations

import tracemalloc

import pytest

from ek.ocr.formats import read_document
from tests.ocr._builders import AltoWord, Line, Region, alto_document, hocr_tesseract, page_document

NS = "http://schema.primaresearch.org/PAGE/gts/pagecontent/2019-07-15"
BODY = (
    '<Page imageFilename="x" imageWidth="1" imageHeight="1"><TextRegion id="r"><TextEquiv><Unicode>a&e;</Unicode>'
    "</TextEquiv></TextRegion></Page>"
)


@pytest.mark.parametrize(
    "doctype",
    [
        '<!DOCTYPE PcGts SYSTEM "a>b" [<!ENTITY e "X">]>',  # the '>' inside the system id hid the subset from a pattern
        "<!DOCTYPE PcGts PUBLIC '-//ek//x' 'q>' [<!ENTITY e 'X'>]>",
        '<!DOCTYPE PcGts [\n<!ELEMENT PcGts ANY>\n<!ENTITY e SYSTEM "file:///etc/passwd">]>',
        '<!DOCTYPE PcGts [<!ENTITY % p "x"> ]>',
    ],
)
def test_a_dtd_internal_subset_is_refused_however_it_is_spelled(doctype):
    data = f'<?xml version="1.0"?>\n{doctype}\n<PcGts xmlns="{NS}">{BODY}</PcGts>'.encode()
    with pytest.raises(
        ValueError,
        match=r"^d\.xml declares a DTD internal subset \(<!DOCTYPE \.\.\. \[ \.\.\. \]>\); "
        r"ek expands no XML entities",
    ) as caught:
        read_document(data, name="d.xml")
    assert "\n" not in str(caught.value)


def test_an_external_dtd_is_not_fetched_and_its_entities_stay_unresolved(tmp_path):
    dtd = tmp_path / "e.dtd"
    dtd.write_text('<!ENTITY e "FROM THE DTD">')
    data = f'<?xml version="1.0"?><!DOCTYPE PcGts SYSTEM "{dtd.as_uri()}"><PcGts xmlns="{NS}">{BODY}</PcGts>'.encode()
    with pytest.raises(ValueError, match=r"d\.xml is malformed XML at line 1, column \d+: undefined entity"):
        read_document(data, name="d.xml")
    plain = data.replace(b"a&e;", b"a")
    assert read_document(plain).text == "a"  # a DTD reference alone is harmless


def test_an_entity_declared_in_an_hocr_doctype_is_refused():
    html = b'<!DOCTYPE html [<!ENTITY e "X">]><html><body><span class="ocr_line">a&e;</span></body></html>'
    with pytest.raises(ValueError, match=r"^h\.hocr declares a DTD internal subset or an entity"):
        read_document(html, name="h.hocr")


@pytest.mark.parametrize(
    "make",
    [
        lambda n: f'<PcGts xmlns="{NS}"><Page>' + "<TextRegion id='r'>" * n + "</TextRegion>" * n + "</Page></PcGts>",
        lambda n: (
            f'<PcGts xmlns="{NS}"><Page><ReadingOrder>'
            + '<OrderedGroup id="g">' * n
            + "</OrderedGroup>" * n
            + "</ReadingOrder></Page></PcGts>"
        ),
        lambda n: (
            '<alto xmlns="http://www.loc.gov/standards/alto/ns-v4#">'
            + "<TextBlock>" * n
            + "</TextBlock>" * n
            + "</alto>"
        ),
        lambda n: "<div class='ocr_page'>" + "<span class='ocr_line'>" * n,
    ],
    ids=["page-regions", "page-groups", "alto", "hocr"],
)
def test_a_hundred_thousand_levels_of_nesting_is_a_one_line_error_not_a_recursion_error(make):
    with pytest.raises(ValueError, match=r"^n\.xml has no text \((page|alto|hocr)\); transcribe it") as caught:
        read_document(make(100_000).encode(), name="n.xml")
    assert "\n" not in str(caught.value)


def test_regions_nested_five_thousand_deep_and_all_named_are_read_in_linear_memory():
    n = 5000
    regions = (
        "".join(
            f'<TextRegion id="r{k}"><TextLine id="l{k}"><TextEquiv><Unicode>{k}</Unicode></TextEquiv></TextLine>'
            for k in range(n)
        )
        + "</TextRegion>" * n
    )
    refs = "".join(f'<RegionRefIndexed index="{k}" regionRef="r{k}"/>' for k in range(n))
    data = (
        f'<PcGts xmlns="{NS}"><Page><ReadingOrder><OrderedGroup id="g">{refs}</OrderedGroup></ReadingOrder>'
        f"{regions}</Page></PcGts>"
    )
    tracemalloc.start()
    try:
        doc = read_document(data.encode())
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert doc.lines == tuple(map(str, range(n)))
    assert peak < 60 * len(data)  # each reference used to list every region inside it again: n^2 / 2 entries


@pytest.mark.parametrize(
    "conf, problem",
    [
        ("5", r"which is outside \[0, 1\]"),
        ("-3", r"which is outside \[0, 1\]"),
        ("nan", "which is not a finite number"),
        ("inf", "which is not a finite number"),
        ("", "which is not a number"),
    ],
)
def test_page_confidences_outside_zero_one_name_the_file_and_the_element(conf, problem):
    for at in ("line", "region", "word"):
        line = Line("x", conf=conf) if at == "line" else Line("x")
        region = Region("r7", "x", (line,), conf=conf if at == "region" else None)
        data = page_document("2019-07-15", [region])
        if at == "word":
            data = data.replace(
                b"</TextLine>",
                f'<Word id="w3"><TextEquiv conf="{conf}"><Unicode>x</Unicode></TextEquiv></Word></TextLine>'.encode(),
            )
        owner = {"line": r"<TextLine id='l\d+'>", "region": "<TextRegion id='r7'>", "word": "<Word id='w3'>"}[at]
        with pytest.raises(
            ValueError,
            match=rf"^c\.xml: <TextEquiv> of {owner} has conf='{conf}', {problem}; "
            r"confidences are numbers between 0 and 1",
        ):
            read_document(data, name="c.xml")


@pytest.mark.parametrize("wc", ["1.5", "-0.1", "nan", "inf"])
def test_alto_word_confidences_outside_zero_one(wc):
    data = alto_document("v3", [[[AltoWord("a", 0.5), AltoWord("b")]]]).replace(
        b'CONTENT="b"', f'CONTENT="b" WC="{wc}"'.encode()
    )
    with pytest.raises(ValueError, match=rf"^a\.xml: <String ID='string_0_0_1'> has WC='{wc}', which is"):
        read_document(data, name="a.xml")


@pytest.mark.parametrize(
    "wconf, problem",
    [
        ("150", r"outside \[0, 100\]"),
        ("-3", r"outside \[0, 100\]"),
        ("nan", "not a finite number"),
        ("high", "not a number"),
    ],
)
def test_hocr_word_confidences_outside_zero_hundred(wconf, problem):
    data = hocr_tesseract([["a b"]], confs=[50, wconf])
    with pytest.raises(
        ValueError,
        match=rf"^h\.hocr: <span class='ocrx_word' id='word_1_2'> has x_wconf='{wconf}', "
        rf"which is {problem}",
    ):
        read_document(data, name="h.hocr")


def test_hocr_after_its_last_tag_is_text_and_unclosable_tags_cost_one_pass():
    cut = b"<div class='ocr_page'><span class='ocr_line'>a</span><span class='ocr_line'>b &amp; c"
    assert read_document(cut).lines == ("a", "b & c")  # a file cut short keeps its last line
    # html.parser rescanned the rest of the file from each "<" it could not close: 26 s for these 200 kB
    stray = cut + b" <a" * 70_000
    assert read_document(stray).lines == ("a", "b & c <a" + " <a" * 69_999)


def test_a_huge_confidence_is_named_in_a_short_message():
    data = page_document("2019-07-15", [Region("r", "x", conf="9" * 5000)])
    with pytest.raises(ValueError, match=r"has conf='9{40}\.\.\.', which is not a finite number") as caught:
        read_document(data)
    assert len(str(caught.value)) < 300
