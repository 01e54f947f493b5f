"""Text levels (the default rule, fallbacks), ek's joining rule, and the deprecated ``level=``."""

from __future__ import annotations

import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ek._files import read_pair, read_side
from ek.ocr.formats import TEXT_LEVELS, Document, read_document
from tests.ocr._builders import (
    AltoWord,
    Glyph,
    Line,
    Region,
    Word,
    alto_document,
    full_region,
    hocr_ocropus,
    hocr_tesseract,
    page_document,
)

LETTERS = st.text(alphabet="abcſéß&", min_size=1, max_size=3)
# a region: lines of words of glyphs, and for every unit whether the file gives its text
UNIT = st.booleans()
WORD = st.tuples(LETTERS, UNIT, st.lists(UNIT, min_size=3, max_size=3))
LINE = st.tuples(st.lists(WORD, min_size=1, max_size=3), UNIT)
REGION = st.tuples(st.lists(LINE, min_size=1, max_size=3), UNIT)


def _build(drawn: list) -> tuple[list, list, list]:
    """PAGE regions for the drawn trees, the true lines, and the levels each region is complete at."""
    regions, lines, complete = [], [], []
    for r, (draw_lines, region_has) in enumerate(drawn):
        texts, units, have = [], [], {lv: True for lv in TEXT_LEVELS}
        for words, line_has in draw_lines:
            text = " ".join(w for w, _, _ in words)
            texts.append(text)
            units.append(
                Line(
                    text if line_has else None,
                    tuple(
                        Word(w if word_has else None, tuple(Glyph(c if g[k] else None) for k, c in enumerate(w)))
                        for w, word_has, g in words
                    ),
                )
            )
            have["line"] &= line_has
            have["word"] &= all(word_has for _, word_has, _ in words)
            have["glyph"] &= all(all(g[: len(w)]) for w, _, g in words)
        have["region"] = region_has
        regions.append(Region(f"r{r}", "\n".join(texts) if region_has else None, tuple(units)))
        lines.extend(texts)
        complete.append([lv for lv in TEXT_LEVELS if have[lv]])
    return regions, lines, complete


@settings(max_examples=150)
@given(st.lists(REGION, min_size=1, max_size=4), st.sampled_from((None,) + TEXT_LEVELS))
def test_the_level_read_and_the_fallbacks_follow_the_rule(drawn, text_level):
    regions, lines, complete = _build(drawn)
    data = page_document("2019-07-15", regions)
    if not all(complete):
        with pytest.raises(ValueError, match="has no TextEquiv/Unicode at .* level"):
            read_document(data, text_level=text_level)
        return
    doc = read_document(data, text_level=text_level)
    assert doc.lines == tuple(lines)  # consistent levels: the same text whichever is read
    assert doc.level_disagreements == ()
    rank = {lv: k for k, lv in enumerate(TEXT_LEVELS)}
    if text_level is None:  # each region at its coarsest level; the document's is the most common
        used = [min(c, key=rank.get) for c in complete]
        text_level = min(TEXT_LEVELS, key=lambda lv: (-used.count(lv), rank[lv]))
    else:
        used = [min(c, key=lambda lv: (abs(rank[lv] - rank[text_level]), rank[lv])) for c in complete]
    assert doc.text_level == text_level
    assert doc.fallbacks == tuple((f"r{k}", lv) for k, lv in enumerate(used) if lv != text_level)


def test_a_region_without_any_complete_level_names_the_unit_missing_its_text():
    region = Region("r", lines=(Line("a", (Word("a"),)), Line(None, (Word("b"), Word(None)))))
    with pytest.raises(
        ValueError,
        match=r"^p\.xml: <Word id='w\d+'> has no TextEquiv/Unicode at word level in "
        r"<TextRegion id='r'>, and no other level covers its region",
    ):
        read_document(page_document("2019-07-15", [region]), name="p.xml")


def test_empty_regions_are_left_out_and_a_file_with_no_text_at_all_is_an_error():
    data = page_document("2019-07-15", [Region("empty"), full_region("r", ["x"])])
    assert read_document(data).lines == ("x",)
    with pytest.raises(ValueError, match=r"p\.xml has no text \(page\)"):
        read_document(page_document("2019-07-15", [Region("empty")]), name="p.xml", text_level="word")
    blank = read_document(page_document("2019-07-15", [Region("empty")]), allow_empty=True)
    assert (blank.lines, blank.text_level) == ((), "")


def test_a_blank_line_needs_no_words():
    region = Region("r", lines=(Line("a b", (Word("a"), Word("b"))), Line("", ())))
    doc = read_document(page_document("2019-07-15", [region]), text_level="word")
    assert (doc.lines, doc.text_level, doc.fallbacks) == (("a b",), "word", ())


# -- ek's joining rule ------------------------------------------------------------


def test_plain_text_and_every_format_join_lines_the_same_way():
    texts = [b"a\nb\n", b"a\n\nb\n", b"  a \r\n\r\nb\t\n\n\f", b"\xef\xbb\xbfa\nb"]
    documents = texts + [
        page_document("2019-07-15", [Region("r", lines=(Line("a"), Line(" b ")))]),
        page_document("2013-07-15", [Region("r", "a\n\nb\n")]),
        alto_document("v4", [[[AltoWord("a")], []], [[AltoWord(" b")]]]),
        hocr_tesseract([["a"], [], ["b"]]),
        hocr_ocropus(["a", "", "b"]),
    ]
    assert {read_document(d).text for d in documents} == {"a\nb"}


def test_line_confidences_stay_with_their_lines_when_blank_lines_go():
    region = Region("r", lines=(Line("a", conf=0.1), Line(" ", conf=0.2), Line("b", conf=0.3)))
    doc = read_document(page_document("2019-07-15", [region]), text_level="line")
    assert (doc.lines, doc.line_confidences) == (("a", "b"), (0.1, 0.3))


def test_document_records_its_level_and_fallbacks():
    doc = Document(
        lines=("a",),
        words=("a",),
        line_confidences=(None,),
        word_confidences=(None,),
        text_level="line",
        fallbacks=[["r1", "region"]],
    )
    assert doc.fallbacks == (("r1", "region"),)
    with pytest.raises(ValueError, match="Document.text_level must be one of 'region', 'line', 'word', 'glyph' or ''"):
        Document(lines=(), words=(), line_confidences=(), word_confidences=(), text_level="page")


# -- options ----------------------------------------------------------------------


def test_level_still_works_with_a_deprecation_warning(tmp_path):
    data = page_document("2019-07-15", [Region("r", "region text", (Line("line text"),))])
    with pytest.warns(
        DeprecationWarning, match=r"read_document\(level=\.\.\.\) is deprecated .* use text_level="
    ) as seen:
        doc = read_document(data, level="region")
    assert seen[0].filename == __file__  # the warning points at the caller
    assert doc == read_document(data, text_level="region") and doc.text == "region text"
    path = tmp_path / "gold.xml"
    path.write_bytes(data)
    with pytest.warns(DeprecationWarning, match=r"read_side\(level=\.\.\.\)") as seen:
        side = read_side(path, level="region")
    assert seen[0].filename == __file__ and side.values == ("region text",)
    with pytest.warns(DeprecationWarning, match=r"read_pair\(level=\.\.\.\)") as seen:
        joined = read_pair(path, path, level="region")
    assert seen[0].filename == __file__ and joined.golds == joined.preds == ("region text",)
    with (
        pytest.raises(
            ValueError, match=r"got text_level='line' and the deprecated level='region'; pass text_level only"
        ),
        pytest.warns(DeprecationWarning),
    ):
        read_document(data, text_level="line", level="region")


def test_text_level_and_profile_pass_through_read_pair(tmp_path):
    data = page_document("2019-07-15", [Region("r", "region text", (Line("line text"),))])
    path = tmp_path / "gold.xml"
    path.write_bytes(data)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert read_pair(path, path).golds == ("region text",)  # the region's own text by default
        assert read_pair(path, path, text_level="line").golds == ("line text",)
        assert read_side(path, profile="dinglehopper").values == ("region text",)  # dinglehopper's default level
        folder = tmp_path / "folder"
        folder.mkdir()
        (folder / "p.xml").write_bytes(data)
        assert read_side(folder, text_level="region").documents["p"].text_level == "region"


@pytest.mark.parametrize(
    "options, message",
    [
        ({"text_level": "paragraph"}, r"text_level must be one of 'region', 'line', 'word', 'glyph' \(or None"),
        ({"profile": "ocrd"}, r"profile must be None \(ek's rules\) or one of 'dinglehopper', got 'ocrd'"),
        (
            {"profile": "dinglehopper", "text_level": "word"},
            r"profile='dinglehopper' reads PAGE at region or line level",
        ),
        ({"profile": "dinglehopper", "pick": "conf"}, r"pick='conf' contradicts it"),
    ],
)
def test_bad_options_say_what_is_allowed(options, message, tmp_path):
    with pytest.raises(ValueError, match=message):
        read_document(b"x", **options)
    if "pick" not in options:
        with pytest.raises(ValueError, match=message):
            read_side(tmp_path, **options)  # checked before any file is read


# -- the default level, and the check that levels agree ------------------------------


def test_the_default_reads_each_region_at_its_own_text_else_its_coarsest_complete_level():
    regions = [
        Region("own", "Region text", (Line("Line text", (Word("Line"), Word("text"))),)),
        Region("lines", lines=(Line("a line", (Word("a"), Word("line"))),)),
        Region("words", lines=(Line(None, (Word("some"), Word("words"))),)),
        Region("glyphs", lines=(Line(None, (Word(None, (Glyph("g"), Glyph("l"))),)),)),
    ]
    doc = read_document(page_document("2019-07-15", regions))
    assert doc.lines == ("Region text", "a line", "some words", "gl")
    # four regions at four levels: the tie goes to the coarsest, and the other three are fallbacks
    assert doc.text_level == "region"
    assert doc.fallbacks == (("lines", "line"), ("words", "word"), ("glyphs", "glyph"))
    # only "own" has two texts that differ: "Line" -> "Region" is 5 edits over the 11 characters read
    assert doc.level_disagreements == (("own", "region", "line", 5 / 11),)
    forced = read_document(page_document("2019-07-15", regions), text_level="line")
    assert forced.lines == ("Line text", "a line", "some words", "gl")
    assert forced.level_disagreements == ()  # the lines agree with their words


def test_levels_are_compared_after_nfc_and_whitespace_collapsing():
    region = Region("r", "  Schlyn\u0303\n\n  gen  ", (Line("Schly\u00f1"), Line("gen")))
    doc = read_document(page_document("2019-07-15", [region]))
    assert doc.level_disagreements == ()  # NFD against NFC, blank lines and spaces are no disagreement
    assert doc.lines == ("Schlyn\u0303", "gen")  # the region's own text is read, as it is typed


def test_a_region_whose_lines_are_its_text_keeps_the_line_and_word_confidences():
    line = Line("the cat", (Word("the", conf=0.9), Word("cat", conf=0.4)), conf=0.7)
    doc = read_document(page_document("2019-07-15", [Region("r", "the cat", (line,), conf=0.2)]))
    assert (doc.text_level, doc.line_confidences, doc.word_confidences) == ("region", (0.7,), (0.9, 0.4))
    stale = read_document(page_document("2019-07-15", [Region("r", "the bat", (line,), conf=0.2)]))
    assert (stale.text, stale.line_confidences, stale.word_confidences) == ("the bat", (0.2,), (None, None))


# -- joining words and glyphs ---------------------------------------------------------


def _one_line(line_text, words, region_text=None):
    region = Region("r", region_text, (Line(line_text, tuple(Word(w) for w in words)),))
    return read_document(page_document("2019-07-15", [region]), text_level="word").text


def test_words_join_without_a_space_before_closing_punctuation_where_the_coarser_text_shows_none():
    words = ["Berliniſche", "Monatsſchrift", "."]
    assert _one_line("Berliniſche Monatsſchrift.", words) == "Berliniſche Monatsſchrift."
    assert _one_line("Berliniſche Monatsſchrift .", words) == "Berliniſche Monatsſchrift ."  # as the line has it
    # no line text: the region's text guides, line by line
    assert _one_line(None, words, "Berliniſche Monatsſchrift .") == "Berliniſche Monatsſchrift ."
    # opening punctuation too, where the line shows it
    assert _one_line("„Was iſt", ["„", "Was", "iſt"]) == "„Was iſt"
    assert _one_line("« mot »", ["«", "mot", "»"]) == "« mot »"
    # words without punctuation always get their space, whatever the line says
    assert _one_line("ab", ["a", "b"]) == "a b"


def test_words_with_no_coarser_text_join_by_the_typographic_rule():
    assert _one_line(None, ["Monatsſchrift", "."]) == "Monatsſchrift."
    assert _one_line(None, ["a", ",", "b", ")", ";", "c", "»"]) == "a, b); c»"
    assert _one_line(None, ["(", "S.", "516.", ")"]) == "(S. 516.)"  # no space after an opening bracket
    assert _one_line(None, ["„", "Was"]) == "„Was"  # „ opens (Unicode Ps)
    assert _one_line(None, ["Men", "-"]) == "Men-"  # a hyphen alone at the end of the line
    assert _one_line(None, ["Berlin", "-", "Paris"]) == "Berlin - Paris"  # a dash inside the line keeps its spaces
    assert _one_line(None, ["&", "co"]) == "& co"  # other punctuation keeps its spaces


def test_the_guide_that_loses_its_place_leaves_the_rest_to_the_rule():
    # "x" is not in the line text: from there on the rule joins
    assert _one_line("a . b", ["a", ".", "x", "."]) == "a . x."


def test_alto_strings_join_by_sp_where_it_stands_else_by_the_rule():
    ns = "http://www.loc.gov/standards/alto/ns-v3#"
    line = (
        '<TextLine ID="l"><String CONTENT="Monatsſchrift"/><String CONTENT="."/><String CONTENT="1784"/>'
        '<SP/><String CONTENT="."/><String CONTENT="Men"/><String CONTENT="-"/></TextLine>'
    )
    data = f'<alto xmlns="{ns}"><Layout><Page><PrintSpace><TextBlock ID="b">{line}</TextBlock></PrintSpace></Page></Layout></alto>'
    doc = read_document(data.encode())
    assert doc.lines == ("Monatsſchrift. 1784 . Men-",)  # the SP before the second "." keeps its space
    assert doc.words == ("Monatsſchrift", ".", "1784", ".", "Men", "-")


def test_glyphs_are_read_in_the_order_of_their_word_s_text():
    shuffled = Word("Calau", tuple(map(Glyph, "ualaC")))  # as actevedef's ground truth stores them
    ligature = Word("Schiff", (Glyph("ff"), Glyph("S"), Glyph("c"), Glyph("h"), Glyph("i")))
    wrong = Word("abc", tuple(map(Glyph, "xbc")))  # not a reordering of the word's text: document order
    region = Region("r", lines=(Line(None, (shuffled, ligature, wrong)),))
    doc = read_document(page_document("2019-07-15", [region]), text_level="glyph")
    assert doc.text == "Calau Schiff xbc"
    assert doc.level_disagreements == (("r", "glyph", "word", 1 / 16),)  # "xbc" against "abc"


# -- what a region without text says --------------------------------------------------


@pytest.mark.parametrize("text_level", TEXT_LEVELS)
def test_a_region_with_no_text_at_any_level_names_the_level_asked_for(text_level):
    region = Region("r5", lines=(Line(None, (Word(None, (Glyph(None),)),)),))
    data = page_document("2019-07-15", [full_region("r1", ["x"]), region])
    unit = {"region": "TextRegion", "line": "TextLine", "word": "Word", "glyph": "Glyph"}[text_level]
    with pytest.raises(ValueError) as caught:
        read_document(data, name="p.xml", text_level=text_level)
    message = str(caught.value)
    assert message.startswith(f"p.xml: <{unit} id=")
    assert f"has no TextEquiv/Unicode at {text_level} level" in message
    assert f"(the level asked for: --text-level {text_level}, text_level={text_level!r})" in message
    assert "the region has no text at any level" in message and "remove it from the file" in message
    other = {"region", "line", "word", "glyph"} - {text_level}
    assert not any(f"at {lv} level" in message for lv in other)
