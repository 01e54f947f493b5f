"""ABBYY FineReader XML (``ek._files._abbyy``): hand-written files of FineReader 6 to 10, and two public samples.

The samples in ``tests/fixtures/abbyy`` come from kba/ocr-fileformat-samples (CC0): a FineReader
Engine 11 page of 1776 French (schema 10v1, lines without character attributes) and the first
three lines of a FineReader 8 page of the Grenzboten (schema 8v2, one ``charParams`` per
character). The expected lines were read off the files by eye.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ek._files import InputError, read_document, read_pair

FIXTURES = Path(__file__).parent.parent / "fixtures" / "abbyy"
FR = "http://www.abbyy.com/FineReader_xml/FineReader{}-schema-v{}.xml"


def chars(text: str, *, start_flags: str = "1") -> str:
    """One ``charParams`` per character, a space one of its own, each on its own line as FineReader writes them."""
    out = []
    for k, c in enumerate(text):
        if c == " ":
            out.append('<charParams l="0" t="0" r="1" b="1"> </charParams>')
            continue
        start = start_flags if k == 0 or text[k - 1] == " " else ("0" if start_flags == "1" else "false")
        out.append(f'<charParams l="0" t="0" r="1" b="1" wordStart="{start}" charConfidence="87">{c}</charParams>')
    return "\n" + "\n".join(out) + "\n"


def document(blocks: str, *, version: tuple[int, int] = (6, 1), prefix: str = "") -> bytes:
    p = f"{prefix}:" if prefix else ""
    xmlns = f'xmlns{":" + prefix if prefix else ""}="{FR.format(*version)}"'
    body = blocks.replace("<", f"<{p}").replace(f"<{p}/", f"</{p}") if prefix else blocks
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<{p}document {xmlns} version="1.0" producer="FineReader 6.0">\n'
        f'<{p}page width="2000" height="3000" resolution="300">\n{body}\n</{p}page>\n</{p}document>\n'
    ).encode()


def text_block(*pars: list[str], block_id: str | None = None, with_chars: bool = True) -> str:
    ident = f' id="{block_id}"' if block_id else ""
    xml_pars = []
    for lines in pars:
        xml_lines = [
            f'<line baseline="10" l="0" t="0" r="9" b="9"><formatting lang="GermanStandard">'
            f"{chars(line) if with_chars else line}</formatting></line>"
            for line in lines
        ]
        xml_pars.append("<par>" + "\n".join(xml_lines) + "</par>")
    region = '<region><rect l="0" t="0" r="9" b="9"/></region>'
    return f'<block blockType="Text"{ident} l="0" t="0" r="9" b="9">{region}<text>{"".join(xml_pars)}</text></block>'


SEPARATOR = (
    '<block blockType="Separator" l="0" t="0" r="1" b="9"><region><rect l="0" t="0" r="1" b="9"/></region></block>'
)
PICTURE = '<block blockType="Picture" l="0" t="0" r="9" b="9"><region><rect l="0" t="0" r="9" b="9"/></region></block>'


def test_a_finereader_6_page_reads_its_blocks_lines_and_words():
    data = document(
        text_block(["Die Leiden des", "jungen Werthers."], ["Erster Theil."], block_id="b1")
        + SEPARATOR
        + PICTURE
        + text_block(["Am 4. May 1771."])
    )
    doc = read_document(data)
    assert doc.format == "abbyy" and doc.schema == "6v1" and doc.text_level == "line"
    assert doc.lines == ("Die Leiden des", "jungen Werthers.", "Erster Theil.", "Am 4. May 1771.")
    assert doc.words == ("Die", "Leiden", "des", "jungen", "Werthers.", "Erster", "Theil.", "Am", "4.", "May", "1771.")
    assert set(doc.line_confidences) == {None} and set(doc.word_confidences) == {None}  # characters only are rated
    assert doc.fallbacks == () and doc.level_disagreements == ()


@pytest.mark.parametrize("text_level", ["region", "line", "word", "glyph"])
def test_every_level_reads_the_same_text(text_level):
    data = document(text_block(["Die Leiden des", "jungen Werthers."]) + text_block(["Erster Theil."]))
    doc = read_document(data, text_level=text_level)
    assert doc.text == "Die Leiden des\njungen Werthers.\nErster Theil." and doc.text_level == text_level
    assert doc.fallbacks == ()


def test_lines_without_character_attributes_read_their_formatting_text():
    # FineReader 10 and later write a line's text straight into <formatting> unless asked for charParams;
    # a change of font within a line is a second <formatting>.
    line = (
        '<line baseline="10" l="0" t="0" r="9" b="9"><formatting lang="French">Dans ce même </formatting>'
        '<formatting lang="French" bold="1">temps,</formatting><formatting lang="French"> c’est-</formatting></line>'
    )
    data = document(f'<block blockType="Text"><text><par>{line}</par></text></block>', version=(10, 1))
    doc = read_document(data)
    assert doc.schema == "10v1" and doc.lines == ("Dans ce même temps, c’est-",)
    assert doc.words == ("Dans", "ce", "même", "temps,", "c’est-")
    glyph = read_document(data, text_level="glyph")  # no characters to read: the nearest level, the word, instead
    assert glyph.text == doc.text and glyph.fallbacks == (("region 1", "word"),)


def test_a_table_block_gives_its_cells_lines_in_document_order():
    cell = '<cell><text><par><line baseline="1" l="0" t="0" r="1" b="1"><formatting>{}</formatting></line></par></text></cell>'
    table = (
        '<block blockType="Table"><row>'
        + cell.format(chars("Jahr"))
        + cell.format(chars("Preis"))
        + "</row><row>"
        + cell.format(chars("1771"))
        + cell.format(chars("3 Thaler"))
        + "</row></block>"
    )
    doc = read_document(document(table, version=(8, 2)))
    assert doc.schema == "8v2" and doc.lines == ("Jahr", "Preis", "1771", "3 Thaler")


def test_the_blanks_a_pretty_printer_puts_between_characters_are_not_text():
    # Each charParams on its own line, indented: only the space characters separate words.
    pretty = chars("ab cd").replace("\n", "\n        ")
    data = document(
        f'<block blockType="Text"><text><par><line><formatting>{pretty}</formatting></line></par></text></block>'
    )
    assert read_document(data).words == ("ab", "cd")


def test_a_line_end_hyphen_stays_as_printed():
    data = document(text_block(["les ec¬", "clésiastiques pas seule-", "ment"]), version=(9, 1))
    doc = read_document(data)
    assert doc.schema == "9v1" and doc.lines == ("les ec¬", "clésiastiques pas seule-", "ment")


def test_a_namespace_prefix_is_read_as_any_other():
    doc = read_document(document(text_block(["Hallo Welt"]), prefix="fr"))
    assert doc.format == "abbyy" and doc.text == "Hallo Welt"


@pytest.mark.parametrize("version, schema", [((6, 1), "6v1"), ((8, 2), "8v2"), ((9, 1), "9v1"), ((10, 1), "10v1")])
def test_each_finereader_schema_names_its_version(version, schema):
    assert read_document(document(text_block(["x"]), version=version)).schema == schema


def test_an_unknown_namespace_is_refused_listing_the_known_ones():
    data = document(text_block(["x"]), version=(99, 1))
    with pytest.raises(
        InputError,
        match=r"x\.xml is ABBYY FineReader with namespace '.*FineReader99-schema-v1\.xml', which ek does not know; "
        r"expected one of: .*FineReader6-schema-v1\.xml, .*FineReader8-schema-v2\.xml, .*FineReader9-schema-v1\.xml, "
        r".*FineReader10-schema-v1\.xml\.$",
    ):
        read_document(data, name="x.xml")
    bare = b"<document><page><block><text><par><line><formatting>x</formatting></line></par></text></block></page></document>"
    with pytest.raises(InputError, match=r"is ABBYY FineReader with namespace '\(none\)'"):
        read_document(bare)


def test_a_page_without_text_blocks_has_no_text():
    with pytest.raises(InputError, match=r"x\.xml has no text \(abbyy\); transcribe it or leave the file out\."):
        read_document(document(SEPARATOR + PICTURE), name="x.xml")
    assert read_document(document(SEPARATOR), allow_empty=True).lines == ()


def test_the_dinglehopper_profile_reads_abbyy_by_eks_rules():
    data = document(text_block(["Die Leiden des", "jungen Werthers."]))
    assert read_document(data, profile="dinglehopper") == read_document(data)


# -- the public samples -----------------------------------------------------------------


def test_a_finereader_engine_11_page_without_character_attributes():
    doc = read_document(FIXTURES / "417589220_0018.abbyy.xml")
    assert doc.format == "abbyy" and doc.schema == "10v1" and len(doc.lines) == 29
    assert doc.lines[:3] == ("$ înfîìtution", "les ecclésiastiques à paroître es", "jugement devant eux: & Inno-")
    assert doc.lines[11] == "dire , le douzième siecle ,.les ec¬"
    assert doc.lines[-1] == "clercs avoient conservé la tradi-"
    assert doc.words[:4] == ("$", "înfîìtution", "les", "ecclésiastiques")


def test_a_finereader_8_page_with_one_element_per_character():
    path = FIXTURES / "184853.first-blocks.xml"
    doc = read_document(path)
    assert doc.format == "abbyy" and doc.schema == "8v2"
    assert doc.lines == (
        "81",
        "II.",
        "Aus Stuttgart.",
        "Leere Gerüchte. — Gefürchtet- und glücklich vorübergegangene Aufführung dcS Cgmont. — Der erwartete",
    )
    glyphs = read_document(path, text_level="glyph")
    assert glyphs.text == doc.text and glyphs.text_level == "glyph" and glyphs.fallbacks == ()


# -- a folder of an engine's outputs -------------------------------------------------------


def write(path: Path, data: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)


def test_pred_format_abbyy_picks_the_finereader_file_among_a_pages_outputs(tmp_path):
    write(tmp_path / "gt" / "p1.gt.txt", "Hello World")
    write(tmp_path / "ocr" / "p1.txt", "Hello Wor1d")
    write(tmp_path / "ocr" / "p1.xml", document(text_block(["He1lo World"])))
    with pytest.raises(InputError, match=r"pick one with --pred-format text\|hocr\|alto\|page\|abbyy \("):
        read_pair(tmp_path / "gt", tmp_path / "ocr")
    joined = read_pair(tmp_path / "gt", tmp_path / "ocr", pred_format="abbyy")
    assert joined.preds == ("He1lo World",)
    assert {os.path.basename(s.path): s.reason for s in joined.skipped} == {
        "p1.txt": "its format is text; --pred-format abbyy reads only abbyy files"
    }


def test_an_xml_file_whose_root_is_another_document_is_not_taken_for_abbyy(tmp_path):
    # <document> is a common root name: without FineReader's namespace in its start tag the head says "xml".
    write(tmp_path / "gt" / "p1.gt.txt", "x")
    write(tmp_path / "ocr" / "p1.xml", b'<document xmlns="urn:other"><page/></document>')
    write(tmp_path / "ocr" / "p1.txt", "x")
    with pytest.raises(InputError, match=r"holds no abbyy document \(--pred-format abbyy\); 2 of other formats"):
        read_pair(tmp_path / "gt", tmp_path / "ocr", pred_format="abbyy")
    joined = read_pair(tmp_path / "gt", tmp_path / "ocr", pred_format="text")
    assert [s.reason for s in joined.skipped] == ["its format is xml; --pred-format text reads only text files"]


def test_ek_evaluate_scores_finereader_output_against_ground_truth(tmp_path, capsys):
    from ek.__main__ import main

    write(tmp_path / "gt" / "p1.gt.txt", "Hello World")
    write(tmp_path / "gt" / "p2.gt.txt", "Guten Tag")
    write(tmp_path / "ocr" / "p1.xml", document(text_block(["He1lo World"])))
    write(tmp_path / "ocr" / "p2.xml", document(text_block(["Guten", "Tag"]), version=(10, 1)))
    write(tmp_path / "ocr" / "p2.txt", "Gutn Tag")  # another engine's output, skipped
    code = main(["evaluate", str(tmp_path / "gt"), str(tmp_path / "ocr"), "--pred-format", "abbyy", "--json", "-"])
    out = capsys.readouterr()
    assert code == 0, out.err
    report = json.loads(out.out)
    # p1: one substitution in 11 characters; p2: the line break against a space, one substitution in 9.
    assert report["aggregate"] == pytest.approx(2 / 20) and report["n"] == 2
    assert [s["reason"] for s in report["skipped"]] == [
        "its format is text; --pred-format abbyy reads only abbyy files"
    ]
