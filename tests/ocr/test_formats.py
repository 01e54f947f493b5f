"""ek.ocr.formats: PAGE (2013, 2019), ALTO (v2-v4), hOCR and text documents, written here and made by Tesseract.

Every version and dialect, the text levels, safety and dinglehopper's profile: tests/ocr/test_readers_*.py.
"""

from __future__ import annotations

import doctest
import os
import subprocess
from pathlib import Path

import pytest

import ek.ocr.formats
from ek.ocr.formats import Document, read_document

PAGE_2019 = "http://schema.primaresearch.org/PAGE/gts/pagecontent/2019-07-15"
PAGE_2013 = "http://schema.primaresearch.org/PAGE/gts/pagecontent/2013-07-15"
DEMO = Path(ek.__file__).parent / "data" / "ocr_demo"


def page(body: str, ns: str = PAGE_2019, reading_order: str = "") -> bytes:
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<PcGts xmlns="{ns}">\n<Page imageFilename="x.png">\n'
        f"{reading_order}{body}\n</Page>\n</PcGts>\n"
    ).encode()


def equiv(text: str, **attrs) -> str:
    extra = "".join(f' {k}="{v}"' for k, v in attrs.items())
    return f"<TextEquiv{extra}><Unicode>{text}</Unicode></TextEquiv>"


def line(lid: str, text: str, words=(), **attrs) -> str:
    ws = "".join(f'<Word id="{lid}w{k}">{equiv(w, conf=c)}</Word>' for k, (w, c) in enumerate(words))
    return f'<TextLine id="{lid}">{ws}{equiv(text, **attrs)}</TextLine>'


TWO_REGIONS = (
    f'<TextRegion id="r1">{line("l1", "first line", words=[("first", 0.9), ("line", 0.5)], conf=0.7)}'
    f"{line('l2', 'second')}{equiv('first line&#10;second')}</TextRegion>"
    f'<TextRegion id="r2">{line("l3", "Schlym&#771;")}{equiv("Schlym&#771;")}</TextRegion>'
)


def test_module_examples_run():
    assert doctest.testmod(ek.ocr.formats).failed == 0


def test_page_2019_line_level_with_word_confidences():
    doc = read_document(page(TWO_REGIONS))
    assert (doc.format, doc.schema) == ("page", "2019-07-15")
    assert doc.lines == ("first line", "second", "Schlym\u0303")
    assert doc.text == "first line\nsecond\nSchlym\u0303"
    assert doc.line_confidences == (0.7, None, None)
    # words from Word elements where the line has them, else split from the line's text
    assert doc.words == ("first", "line", "second", "Schlym\u0303")
    assert doc.word_confidences == (0.9, 0.5, None, None)


def test_page_2013_region_and_word_levels():
    doc = read_document(page(TWO_REGIONS, ns=PAGE_2013), text_level="region")
    assert doc.schema == "2013-07-15" and doc.lines == ("first line", "second", "Schlym\u0303")
    # region level: its lines are the region's text, so the words and their confidences come from them
    assert doc.word_confidences == (0.9, 0.5, None, None)
    # l2 and l3 have no words: their regions fall back to the line level, and say so
    doc = read_document(page(TWO_REGIONS), text_level="word")
    assert doc.lines == ("first line", "second", "Schlym\u0303")
    assert (doc.text_level, doc.fallbacks) == ("word", (("r1", "line"), ("r2", "line")))
    words = page(
        f'<TextRegion id="r"><TextLine id="l">'
        f'<Word id="w1">{equiv("a", conf=0.2)}</Word><Word id="w2">{equiv("b")}</Word></TextLine></TextRegion>'
    )
    doc = read_document(words, text_level="word")
    assert doc.lines == ("a b",) and doc.word_confidences == (0.2, None) and doc.fallbacks == ()


def test_page_reading_order_nested_groups_and_unreferenced_regions():
    regions = "".join(f'<TextRegion id="r{k}">{line(f"l{k}", f"text {k}")}</TextRegion>' for k in range(1, 5))
    order = (
        '<ReadingOrder><OrderedGroup id="g0">'
        '<RegionRefIndexed index="2" regionRef="r1"/>'
        '<UnorderedGroupIndexed index="1" id="g1"><RegionRef regionRef="r3"/></UnorderedGroupIndexed>'
        '<RegionRefIndexed index="0" regionRef="r4"/>'
        "</OrderedGroup></ReadingOrder>"
    )
    doc = read_document(page(regions, reading_order=order))
    assert doc.lines == ("text 4", "text 3", "text 1", "text 2")  # r2 is not in the order: it comes last


def test_page_reading_order_through_a_table_region():
    table = f'<TableRegion id="t"><TextRegion id="c1">{line("l1", "cell")}</TextRegion></TableRegion>'
    other = f'<TextRegion id="r">{line("l2", "para")}</TextRegion>'
    order = (
        '<ReadingOrder><OrderedGroup id="g"><RegionRefIndexed index="0" regionRef="r"/>'
        '<RegionRefIndexed index="1" regionRef="t"/></OrderedGroup></ReadingOrder>'
    )
    assert read_document(page(table + other, reading_order=order)).lines == ("para", "cell")


def test_page_picks_the_lowest_index_or_the_highest_confidence():
    alternatives = (
        f'<TextRegion id="r"><TextLine id="l">{equiv("second", index=2, conf=0.9)}'
        f"{equiv('first', index=1, conf=0.4)}{equiv('third', index=3, conf=0.95)}</TextLine></TextRegion>"
    )
    assert read_document(page(alternatives)).lines == ("first",)
    doc = read_document(page(alternatives), pick="conf")
    assert doc.lines == ("third",) and doc.line_confidences == (0.95,)
    no_index = f'<TextRegion id="r"><TextLine id="l">{equiv("a")}{equiv("b")}</TextLine></TextRegion>'
    assert read_document(page(no_index)).lines == ("a",)


@pytest.mark.parametrize(
    "data, message",
    [
        (
            page('<TextRegion id="r"><TextLine id="l9"><Coords points="0,0"/></TextLine></TextRegion>'),
            (
                r"x\.xml: <TextLine id='l9'> has no TextEquiv/Unicode at line level in <TextRegion id='r'>, and the "
                r"region has no text at any level \(region, line, word or glyph\); transcribe the region, or remove it"
            ),
        ),
        (
            page("", ns="http://schema.primaresearch.org/PAGE/gts/pagecontent/2011-01-01"),
            r"x\.xml is PAGE with namespace '.*2011-01-01', which ek does not know; expected one of: .*2013-07-15, .*2019-07-15",
        ),
        (
            b'<alto xmlns="http://www.loc.gov/standards/alto/ns-v9#"/>',
            r"is ALTO with namespace .*ns-v9#.*expected one of: .*ns-v2#, .*ns-v3#, .*ns-v4#",
        ),
        (
            b'<?xml version="1.0"?>\n<PcGts>\n  <Page>\n</PcGts>',
            r"x\.xml is malformed XML at line 4, column 3: mismatched tag",
        ),
        (
            b"<svg/>",
            r"root element <svg>, which is not an OCR format; expected hOCR \(<html>\), ALTO \(<alto>\), PAGE "
            + r"\(<PcGts>\) or ABBYY FineReader \(<document>\)\.$",
        ),
        (page(f'<TextRegion id="r">{line("l", " ")}</TextRegion>'), r"x\.xml has no text \(page\)"),
        (
            page(f'<TextRegion id="r"><TextLine id="l">{equiv("x", conf="high")}</TextLine></TextRegion>'),
            r"x\.xml: <TextEquiv> of <TextLine id='l'> has conf='high', which is not a number",
        ),
        (
            '<?xml version="1.0" encoding="UTF-8"?><PcGts>é</PcGts>'.encode("latin-1"),
            r"x\.xml is not UTF-8: byte 0xe9 at offset 45",
        ),
        (b"<html><body><p>no hOCR here</p></body></html>", r"is HTML without hOCR classes"),
    ],
)
def test_bad_documents_say_which_file_and_why(data, message):
    with pytest.raises(ValueError, match=message) as caught:
        read_document(data, name="x.xml")
    assert "\n" not in str(caught.value)


def test_region_level_falls_back_to_lines_where_a_region_has_no_text_of_its_own():
    doc = read_document(page(f'<TextRegion id="r9">{line("l", "x")}</TextRegion>'), text_level="region")
    assert (doc.lines, doc.text_level, doc.fallbacks) == (("x",), "region", (("r9", "line"),))


def test_entity_declarations_are_refused_before_parsing():
    bomb = (
        b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]>'
        b"<PcGts>&lol2;</PcGts>"
    )
    with pytest.raises(ValueError, match=r"declares a DTD internal subset .* ek expands no XML entities"):
        read_document(bomb, name="bomb.xml")
    external = b'<?xml version="1.0"?><PcGts>&xxe;</PcGts>'
    with pytest.raises(ValueError, match="undefined entity"):
        read_document(external)


def test_xml_in_another_declared_encoding_is_read():
    data = page(f'<TextRegion id="r">{line("l", "café")}</TextRegion>').decode().replace("UTF-8", "ISO-8859-1")
    assert read_document(data.encode("latin-1")).text == "café"


ALTO = """<?xml version="1.0" encoding="UTF-8"?>
<alto xmlns="http://www.loc.gov/standards/alto/ns-v{v}#"><Layout><Page><PrintSpace>
<TextBlock ID="b1">
 <TextLine ID="t1"><String CONTENT="Die" WC="0.91"/><SP/><String CONTENT="Schlyñ" WC="0.5"/><HYP CONTENT="-"/></TextLine>
 <TextLine ID="t2"><String CONTENT="gen" WC="1"/><SP/><String CONTENT="&amp;" WC="0.25"/><String CONTENT="co"/></TextLine>
</TextBlock>
<TextBlock ID="b2"><TextLine ID="t3"><String CONTENT="Ende"/></TextLine></TextBlock>
</PrintSpace></Page></Layout></alto>"""


@pytest.mark.parametrize("version", [2, 3, 4])
def test_alto_strings_spaces_hyphens_and_word_confidences(version):
    doc = read_document(ALTO.format(v=version).encode())
    assert (doc.format, doc.schema) == ("alto", f"v{version}")
    assert doc.lines == ("Die Schlyñ-", "gen & co", "Ende")  # HYP: the printed hyphen ends the line
    assert doc.words == ("Die", "Schlyñ-", "gen", "&", "co", "Ende")
    assert doc.word_confidences == (0.91, 0.5, 1.0, 0.25, None, None)
    assert doc.line_confidences == (None, None, None)


HOCR = """<!DOCTYPE html><html><head><meta charset="utf-8"><title></title></head><body>
<div class='ocr_page' id='page_1'><div class='ocr_carea'><p class='ocr_par'>
 <span class='ocr_line' id='line_1'>
  <span class='ocrx_word' title='bbox 1 1 2 2; x_wconf 96'>Fish</span>
  <span class='ocrx_word' title='bbox 3 1 4 2; x_wconf 41'><strong>&amp;</strong></span>
  <span class='ocrx_word' title='bbox 5 1 6 2'>chips&nbsp;</span>
 </span>
 <span class='ocr_caption' id='line_2'>A caption line</span><br>
 <span class='ocr_line' id='line_3'><span class='ocrx_word' title='x_wconf 7'>x</span></span>
</p></div></div></body></html>"""


def test_hocr_words_lines_confidences_and_entities():
    doc = read_document(HOCR.encode(), name="page.hocr")
    assert doc.format == "hocr"
    assert doc.lines == ("Fish & chips", "A caption line", "x")
    assert doc.words == ("Fish", "&", "chips", "A", "caption", "line", "x")
    assert doc.word_confidences == (0.96, 0.41, None, None, None, None, 0.07)


def test_plain_text_and_detection_by_content_not_extension(tmp_path):
    text = tmp_path / "looks-like.xml"
    text.write_text("line one\n  line two  \n\n\f")
    doc = read_document(text)
    assert doc.format == "text" and doc.lines == ("line one", "line two")  # ek's joining: stripped, no blanks
    pagefile = tmp_path / "page.txt"
    pagefile.write_bytes(page(f'<TextRegion id="r">{line("l", "x")}</TextRegion>'))
    assert read_document(pagefile).format == "page"
    with pytest.raises(ValueError, match=r"cannot read .*absent\.txt: No such file"):
        read_document(tmp_path / "absent.txt")
    assert read_document(b"", allow_empty=True).lines == ()


def test_document_checks_its_confidences_and_options():
    with pytest.raises(ValueError, match="Document has 2 words but 1 word_confidences"):
        Document(lines=("a b",), words=("a", "b"), line_confidences=(None,), word_confidences=(None,))
    with pytest.raises(ValueError, match="text_level must be one of 'region', 'line', 'word', 'glyph'"):
        read_document(b"x", text_level="paragraph")
    with pytest.raises(ValueError, match="pick must be 'index'"):
        read_document(b"x", pick="best")
    with pytest.raises(TypeError, match="takes a path or bytes"):
        read_document(3)


# -- real files from Tesseract --------------------------------------------------

needs_tesseract = pytest.mark.needs("tesseract")  # the program (tests/conftest.py: PROGRAMS)


def run_tesseract(tmp_path_factory, *options: str) -> Path:
    """A folder of Tesseract's outputs for every demo image (without tesseract its run raises FileNotFoundError,
    which tests/conftest.py turns into a skip naming the install line)."""
    out = tmp_path_factory.mktemp("tesseract")
    # One OpenMP thread: the same files, and a quarter less CPU than threads that wait for a busy machine's cores.
    env = {**os.environ, "OMP_THREAD_LIMIT": "1"}
    for image in sorted(DEMO.glob("*.png")):
        run = ["tesseract", str(image), str(out / image.stem), *options]
        subprocess.run(run, check=True, capture_output=True, env=env)
    return out


@pytest.fixture(scope="module")
def tesseract_outputs(tmp_path_factory):
    return run_tesseract(tmp_path_factory, "hocr", "alto", "txt")


@pytest.fixture(scope="module")
def tesseract_glyphs(tmp_path_factory):
    return run_tesseract(tmp_path_factory, "-c", "hocr_char_boxes=1", "hocr", "alto")


@pytest.mark.parametrize("stem", sorted(p.stem for p in DEMO.glob("*.png")))
def test_tesseract_glyph_level_hocr_agrees_with_its_words_and_its_alto(tesseract_glyphs, stem):
    glyphs = read_document(tesseract_glyphs / f"{stem}.hocr", text_level="glyph", allow_empty=True)
    words = read_document(tesseract_glyphs / f"{stem}.hocr", text_level="word", allow_empty=True)
    alto = read_document(tesseract_glyphs / f"{stem}.xml", allow_empty=True)
    assert (alto.schema, alto.text_level) == ("v3", "line") and glyphs.text_level in ("glyph", "")
    assert glyphs.lines == words.lines == alto.lines and glyphs.words == alto.words
    assert glyphs.word_confidences == words.word_confidences


@needs_tesseract
@pytest.mark.parametrize("stem", sorted(p.stem for p in DEMO.glob("*.png")))
def test_tesseract_hocr_and_alto_agree_with_its_text_output(tesseract_outputs, stem):
    hocr = read_document(tesseract_outputs / f"{stem}.hocr")
    alto = read_document(tesseract_outputs / f"{stem}.xml")
    txt = read_document(tesseract_outputs / f"{stem}.txt", allow_empty=True)
    assert (hocr.format, alto.format, alto.schema) == ("hocr", "alto", "v3")
    assert hocr.words == alto.words == tuple(txt.text.split())
    assert [" ".join(line.split()) for line in hocr.lines] == [
        " ".join(line.split()) for line in txt.lines if line.strip()
    ]
    # the same confidences, as x_wconf percent and as WC
    assert all(0 <= c <= 1 for c in hocr.word_confidences)
    for h, a in zip(hocr.word_confidences, alto.word_confidences):
        # Tesseract 5.3 writes a confidence under 10% into WC as "0.<percent>" (3% -> "0.3")
        assert a == pytest.approx(h, abs=0.006) or (h < 0.1 and a == pytest.approx(h * 10, abs=0.06))


def test_hocr_fragments_are_detected_and_markup_in_page_text_is_not():
    fragment = (
        b"<div class='ocr_page'><span class='ocr_line'><span class='ocrx_word'>hi</span></span>"
        b"<span class='ocr_line'> </span></div>"
    )
    doc = read_document(fragment)
    assert doc.format == "hocr" and doc.lines == ("hi",)  # the blank line is dropped
    markup = line("l", "&lt;div class='ocr_page'&gt;")
    escaped = page('<TextRegion id="r">' + markup + "</TextRegion>")
    assert read_document(escaped).lines == ("<div class='ocr_page'>",)
