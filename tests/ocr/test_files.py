"""ek.ocr.evaluate_files: folders of PAGE/ALTO/hOCR/text files, confusions, calibration, and dinglehopper as a reference."""

from __future__ import annotations

import importlib
import json
import math
import re
import subprocess
import unicodedata
import warnings
from pathlib import Path
from xml.sax.saxutils import escape

import pytest

import ek
import ek.ocr.files
import ek.ocr.formats
from ek.ocr import evaluate_files
from ek.qe.calibrate import expected_calibration_error

DEMO = Path(ek.__file__).parent / "data" / "ocr_demo"
GOLD = json.loads((DEMO / "gold.json").read_text())
PAGE_NS = "http://schema.primaresearch.org/PAGE/gts/pagecontent/2019-07-15"


def page_xml(*regions, order=None) -> str:
    """A PAGE 2019 document with one TextRegion per list of lines (and a ReadingOrder if given)."""
    body = []
    for r, lines in enumerate(regions):
        tl = "".join(
            f'<TextLine id="r{r}l{k}"><TextEquiv><Unicode>{escape(t)}</Unicode></TextEquiv></TextLine>'
            for k, t in enumerate(lines)
        )
        body.append(f'<TextRegion id="r{r}">{tl}</TextRegion>')
    ro = ""
    if order:
        refs = "".join(f'<RegionRefIndexed index="{i}" regionRef="r{r}"/>' for i, r in enumerate(order))
        ro = f'<ReadingOrder><OrderedGroup id="g">{refs}</OrderedGroup></ReadingOrder>'
    return f'<?xml version="1.0" encoding="UTF-8"?><PcGts xmlns="{PAGE_NS}"><Page>{ro}{"".join(body)}</Page></PcGts>'


def hocr(lines) -> str:
    """An hOCR page; ``lines`` is a list of lines, each a list of (word, x_wconf percent)."""
    spans = "".join(
        "<span class='ocr_line'>"
        + "".join(f"<span class='ocrx_word' title='x_wconf {c}'>{escape(w)}</span> " for w, c in line)
        + "</span>\n"
        for line in lines
    )
    return f"<html><body><div class='ocr_page'>{spans}</div></body></html>"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_module_example_runs():
    import doctest

    assert doctest.testmod(ek.ocr.files).failed == 0


def test_folders_missing_extra_errors_and_confusions(tmp_path):
    write(tmp_path / "gt" / "a.gt.xml", page_xml(["The cat sat"]))
    write(tmp_path / "gt" / "b.gt.txt", "a cat\nand a hat")
    write(tmp_path / "gt" / "c.gt.txt", "gone")
    write(tmp_path / "ocr" / "a.hocr", hocr([[("The", 90), ("cut", 80), ("sat", 30)]]))
    write(tmp_path / "ocr" / "b.txt", "a cut\nand hat")
    write(tmp_path / "ocr" / "z.txt", "stray")
    r = evaluate_files(tmp_path / "gt", tmp_path / "ocr")
    assert r.metric == "cer" and r.n == 3
    # a: 1 edit / 11; b: a->u and a dropped "a " (2 chars) / 15 incl. the newline; c: 4 deletions
    assert r.aggregate == pytest.approx((1 + 3 + 4) / (11 + 15 + 4))
    assert r.detail["missing"] == ("c",) and r.detail["extra"] == ("z",)
    assert r.detail["errors"] == {"gold": {}, "pred": {}}
    char = {(row["gold"], row["pred"]): row["count"] for row in r.detail["confusions"]["char"]}
    assert char == {("a", "u"): 2, ("a", ""): 1, (" ", ""): 1, ("g", ""): 1, ("o", ""): 1, ("n", ""): 1, ("e", ""): 1}
    assert r.detail["confusions"]["char"][0] == {"kind": "substitution", "gold": "a", "pred": "u", "count": 2}
    words = {(row["gold"], row["pred"]): row["count"] for row in r.detail["confusions"]["word"]}
    assert words == {("cat", "cut"): 2, ("a", ""): 1, ("gone", ""): 1}
    assert r.detail["per_file"]["a"]["word"] == [{"kind": "substitution", "gold": "cat", "pred": "cut", "count": 1}]
    assert r.detail["per_file"]["c"]["char"][0]["kind"] == "deletion"
    assert set(r.detail["measures"]) == {"cer", "wer", "fca", "bow"}
    assert r.detail["measures"]["cer"] == r.aggregate


def test_word_confidence_calibration_by_hand(tmp_path):
    write(tmp_path / "gt.xml", page_xml(["The cat sat"]))
    write(tmp_path / "ocr.hocr", hocr([[("The", 90), ("cut", 80), ("sat", 30)]]))
    cal = evaluate_files(tmp_path / "gt.xml", tmp_path / "ocr.hocr").detail["calibration"]
    # right, wrong, right at 0.9, 0.8, 0.3: bins 9, 8, 3 with gaps 0.1, 0.8, 0.7
    assert cal["n"] == 3
    assert cal["ece"] == pytest.approx((0.1 + 0.8 + 0.7) / 3)
    assert cal["ece"] == pytest.approx(expected_calibration_error([0.9, 0.8, 0.3], [True, False, True]))
    assert [(b["confidence"], b["accuracy"], b["count"]) for b in cal["curve"]] == [
        (0.3, 1.0, 1),
        (0.8, 0.0, 1),
        (0.9, 1.0, 1),
    ]
    two = evaluate_files(tmp_path / "gt.xml", tmp_path / "ocr.hocr", n_bins=2).detail["calibration"]
    assert two["ece"] == pytest.approx(2 / 3 * abs(0.85 - 0.5) + 1 / 3 * abs(0.3 - 1.0))
    write(tmp_path / "plain.txt", "The cut sat")
    assert evaluate_files(tmp_path / "gt.xml", tmp_path / "plain.txt").detail["calibration"] is None


def test_an_inserted_word_counts_as_a_wrong_confident_word(tmp_path):
    write(tmp_path / "gt.txt", "one two")
    write(tmp_path / "ocr.hocr", hocr([[("one", 100), ("extra", 100), ("two", 100)]]))
    cal = evaluate_files(tmp_path / "gt.txt", tmp_path / "ocr.hocr").detail["calibration"]
    assert cal["curve"] == [{"confidence": 1.0, "accuracy": pytest.approx(2 / 3), "count": 3}]


def test_two_column_page_read_across_scores_well_on_fca_and_bow_only(tmp_path):
    left = ["In the beginning the", "committee met twice", "to settle the budget"]
    right = ["Members then voted", "on the new harbour", "before adjourning."]
    write(tmp_path / "gt.xml", page_xml(right, left, order=[1, 0]))  # reading order: left column first
    write(tmp_path / "ocr.hocr", hocr([[(w, 95) for w in f"{a} {b}".split()] for a, b in zip(left, right)]))
    m = evaluate_files(tmp_path / "gt.xml", tmp_path / "ocr.hocr").detail["measures"]
    assert m["cer"] > 0.5 and m["wer"] > 0.5
    gold_chars = sum(map(len, left + right))
    assert m["fca"] == 1 - 3 / gold_chars and m["bow"] == 0.0  # FCA counts only the space of each merged row


def test_grapheme_segment_and_normalize_reach_every_measure(tmp_path):
    write(tmp_path / "gt.txt", "Schly\u00f1 Auſ")
    write(tmp_path / "ocr.txt", "Schlym\u0303 Aus")
    r = evaluate_files(tmp_path / "gt.txt", tmp_path / "ocr.txt", segment="grapheme", normalize=["nfc", "long_s"])
    assert r.metric == "cer_grapheme" and r.aggregate == pytest.approx(1 / 10)
    assert r.detail["measures"]["cer"] == pytest.approx(1 / 10)
    assert r.detail["confusions"]["char"] == [{"kind": "substitution", "gold": "\u00f1", "pred": "m\u0303", "count": 1}]
    plain = evaluate_files(tmp_path / "gt.txt", tmp_path / "ocr.txt")
    assert plain.aggregate == pytest.approx(3 / 10)  # ñ -> m + combining tilde is 2 code point edits, ſ -> s one
    with pytest.raises(ValueError, match="grapheme clusters change only character error rates"):
        evaluate_files(tmp_path / "gt.txt", tmp_path / "ocr.txt", metric="wer", segment="grapheme")


def test_unreadable_files_are_an_error_or_left_out_and_listed_with_keep_going(tmp_path):
    # issue 19: never a silently dropped gold or an empty-scored prediction
    write(tmp_path / "gt" / "a.gt.txt", "fine")
    write(
        tmp_path / "gt" / "b.gt.xml",
        page_xml(["x"]).replace("<TextEquiv>", "<TextEquivX>").replace("</TextEquiv>", "</TextEquivX>"),
    )
    write(tmp_path / "gt" / "c.gt.txt", "good")
    write(tmp_path / "ocr" / "a.xml", "<alto><broken")
    write(tmp_path / "ocr" / "b.txt", "x")
    write(tmp_path / "ocr" / "c.txt", "gold")
    with pytest.raises(ValueError, match=r"2 documents could not be read: .*b\.gt\.xml.*a\.xml.*keep_going=True"):
        evaluate_files(tmp_path / "gt", tmp_path / "ocr")
    r = evaluate_files(tmp_path / "gt", tmp_path / "ocr", keep_going=True)
    assert (
        r.n == 1 and r.detail["ids"] == ("c",) and r.aggregate == pytest.approx(1 / 4)
    )  # good -> gold; a and b left out
    assert "has no TextEquiv/Unicode at line level" in r.detail["errors"]["gold"]["b"]
    assert "malformed XML at line 1" in r.detail["errors"]["pred"]["a"]


def test_folder_options_pair_as_the_command_line_does(tmp_path):
    write(tmp_path / "p1.gt.txt", "Hello World")
    write(tmp_path / "p1.tess.txt", "Hello Wor1d")
    write(tmp_path / "p1.other.txt", "Hel1o World")
    with pytest.raises(ValueError, match="--pred-suffix"):
        evaluate_files(tmp_path, tmp_path)
    assert evaluate_files(tmp_path, tmp_path, gold_suffix=".gt.txt", pred_suffix=".tess.txt").aggregate == 1 / 11
    write(tmp_path / "ocr" / "p1.txt", "Hello World")
    write(tmp_path / "ocr" / "p1.hocr", hocr([[("Hello", 90), ("Wor1d", 90)]]))
    assert evaluate_files(tmp_path / "p1.gt.txt", tmp_path / "ocr" / "p1.hocr").aggregate == 1 / 11
    assert evaluate_files(tmp_path, tmp_path / "ocr", pred_format="hocr", gold_suffix=".gt.txt").aggregate == 1 / 11


# -- real OCR: Tesseract output against PAGE ground truth, dinglehopper as the reference --------


@pytest.fixture(scope="module")
def demo_folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("demo")  # without tesseract, its run raises FileNotFoundError: a skip
    for fmt in ("hocr", "alto"):
        (root / fmt).mkdir()
    for key, record in GOLD.items():
        write(root / "gt" / f"{key}.xml", page_xml(record["reference_text"].split("\n")))
        subprocess.run(
            ["tesseract", str(DEMO / record["image"]), str(root / "hocr" / key), "hocr", "alto"],
            check=True,
            capture_output=True,
        )
        (root / "hocr" / f"{key}.xml").rename(root / "alto" / f"{key}.xml")
    return root


def test_tesseract_hocr_against_page_ground_truth(demo_folders):
    r = evaluate_files(demo_folders / "gt", demo_folders / "hocr")
    assert r.n == len(GOLD) and r.detail["missing"] == () and r.detail["extra"] == ()
    texts = [
        (ek.ocr.formats.read_document(demo_folders / "hocr" / f"{k}.hocr").text, GOLD[k]["reference_text"])
        for k in sorted(GOLD)
    ]
    assert r.aggregate == pytest.approx(ek.evaluate(texts, metric="cer").aggregate)
    assert 0 <= r.aggregate < 0.5  # clean and degraded scans of short texts
    cal = r.detail["calibration"]
    assert cal["n"] == sum(len(ek.ocr.formats.read_document(p).words) for p in (demo_folders / "hocr").iterdir())
    assert 0 <= cal["ece"] <= 1 and sum(b["count"] for b in cal["curve"]) == cal["n"]


@pytest.fixture(scope="module")
def dinglehopper():
    pytest.importorskip("dinglehopper")
    # the package re-exports functions under its modules' names, so import the modules by path
    return tuple(
        importlib.import_module(f"dinglehopper.{m}") for m in ("ocr_files", "character_error_rate", "word_error_rate")
    )


def test_cer_matches_dinglehopper_on_page_against_alto(demo_folders, dinglehopper):
    ocr_files, cer, _ = dinglehopper
    r = evaluate_files(demo_folders / "gt", demo_folders / "alto", segment="grapheme", normalize="nfc")
    for i, score in zip(r.detail["ids"], r.scores):
        gt = ocr_files.extract(str(demo_folders / "gt" / f"{i}.xml"), textequiv_level="line")
        ocr = ocr_files.extract(str(demo_folders / "alto" / f"{i}.xml"))
        rate, n = cer.character_error_rate_n(gt, ocr)
        assert (score.detail["ref_len"], score.value) == (n, pytest.approx(rate)), i
    # dinglehopper reports one pair at a time; summed over the corpus they give ek's corpus rate
    edits = sum(s.detail["edits"] for s in r.scores)
    assert r.aggregate == pytest.approx(edits / sum(s.detail["ref_len"] for s in r.scores))


def test_grapheme_cer_matches_dinglehopper(dinglehopper):
    _, cer, _ = dinglehopper
    pairs = [
        ("Schly\u00f1", "Schlym\u0303"),
        ("cafe\u0301 au lait", "café au lait"),
        ("ſchön", "schon"),
        ("e\u0301\u0301x", "ex"),
        ("Ꙋ\u0483ста", "уста"),
        ("", ""),
    ]
    for gold, pred in pairs:
        ours = ek.score(pred, gold, metric="cer_grapheme", normalize="nfc").value
        assert ours == pytest.approx(cer.character_error_rate(gold, pred)), (gold, pred)


def test_wer_matches_dinglehopper_where_the_word_definitions_agree(dinglehopper):
    _, _, wer = dinglehopper
    gold, pred = "the quick brown fox\njumps over the dog", "the quack brown\nfox jumps over a the dog"
    words = lambda s: list(wer.words_normalized(s))  # noqa: E731
    rate, n = wer.word_error_rate_n(words(gold), words(pred))
    assert ek.score(pred, gold, metric="wer").value == pytest.approx(rate) and n == 8
    # with punctuation they differ: dinglehopper drops it (UAX #29 words), ek splits on whitespace
    assert words("lazy dog.") == ["lazy", "dog"]
    assert ek.score("lazy dog", "lazy dog.", metric="wer").value == 0.5
    assert wer.word_error_rate_n(words("lazy dog."), words("lazy dog"))[0] == 0


def test_an_empty_reference_is_infinite_for_dinglehopper_and_counted_for_ek(dinglehopper):
    _, cer, _ = dinglehopper
    assert math.isinf(cer.character_error_rate("", "abc"))
    assert ek.score("abc", "", metric="cer_grapheme").value == 3.0  # one error per inserted unit, as jiwer 4


# -- issue 19: the default normalisation, the settings in the report, words, the profile --------------


def test_an_nfd_and_an_nfc_encoding_of_the_same_page_score_zero_by_default(tmp_path):
    text = "Schöne Grüße aus Köln\nÄrger über Öl"
    write(tmp_path / "gt.txt", unicodedata.normalize("NFC", text))
    write(tmp_path / "ocr.txt", unicodedata.normalize("NFD", text))
    r = evaluate_files(tmp_path / "gt.txt", tmp_path / "ocr.txt")
    assert r.aggregate == 0.0 and r.detail["measures"] == {"cer": 0.0, "wer": 0.0, "fca": 1.0, "bow": 0.0}
    assert r.detail["confusions"] == {"char": [], "word": []}
    raw = evaluate_files(tmp_path / "gt.txt", tmp_path / "ocr.txt", normalize=None)
    assert raw.aggregate == pytest.approx(12 / 35)  # 6 umlauts: each a deletion and a substitution
    assert (r.detail["normalize"], raw.detail["normalize"]) == ("nfc", None)


def test_the_report_records_its_settings(tmp_path):
    write(tmp_path / "gt.txt", "a b")
    write(tmp_path / "ocr.txt", "a c")
    d = evaluate_files(
        tmp_path / "gt.txt", tmp_path / "ocr.txt", segment="grapheme", words="unicode", normalize=["nfc", "long_s"]
    ).detail
    assert {k: d[k] for k in ("profile", "normalize", "segment", "words", "text_level")} == {
        "profile": None,
        "normalize": "nfc+long_s@1",
        "segment": "grapheme",
        "words": "unicode",
        "text_level": None,
    }
    p = evaluate_files(tmp_path / "gt.txt", tmp_path / "ocr.txt", profile="dinglehopper").detail
    assert {k: p[k] for k in ("profile", "normalize", "segment", "words")} == {
        "profile": "dinglehopper",
        "normalize": "dinglehopper@1",
        "segment": "grapheme",
        "words": "unicode",
    }


def test_document_mean_is_the_mean_of_the_per_document_rates(tmp_path):
    write(tmp_path / "gt" / "a.txt", "abcd")  # 1 edit in 4
    write(tmp_path / "gt" / "b.txt", "ab cd ef gh")  # 0 edits
    write(tmp_path / "ocr" / "a.txt", "abcx")
    write(tmp_path / "ocr" / "b.txt", "ab cd ef gh")
    r = evaluate_files(tmp_path / "gt", tmp_path / "ocr")
    assert r.aggregate == pytest.approx(1 / 15)  # ek's corpus figure: summed edits over summed length
    assert r.detail["document_mean"] == {"cer": pytest.approx((1 / 4 + 0) / 2), "wer": pytest.approx((1 + 0) / 2)}


def test_unicode_words_reach_wer_the_bag_of_words_and_the_word_confusions(tmp_path):
    write(tmp_path / "gt.txt", "The cat, (sat).")
    write(tmp_path / "ocr.txt", "The cat sat")
    spaces = evaluate_files(tmp_path / "gt.txt", tmp_path / "ocr.txt")
    words = evaluate_files(tmp_path / "gt.txt", tmp_path / "ocr.txt", words="unicode")
    assert spaces.detail["measures"]["wer"] == pytest.approx(2 / 3) and spaces.detail["measures"]["bow"] > 0
    assert words.detail["measures"]["wer"] == 0.0 and words.detail["measures"]["bow"] == 0.0
    assert words.detail["confusions"]["word"] == [] and len(spaces.detail["confusions"]["word"]) == 2
    assert (
        evaluate_files(tmp_path / "gt.txt", tmp_path / "ocr.txt", metric="wer", words="unicode").metric == "wer_unicode"
    )


def test_level_still_works_with_a_deprecation_warning(tmp_path):
    write(tmp_path / "gt.xml", page_xml(["one two", "three"]))
    write(tmp_path / "ocr.txt", "one two\nthree")
    with pytest.warns(DeprecationWarning, match="use text_level="):
        old = evaluate_files(tmp_path / "gt.xml", tmp_path / "ocr.txt", level="line")
    assert old.aggregate == 0.0
    with (
        pytest.raises(ValueError, match="text_level='line' and its deprecated alias level='region' disagree"),
        pytest.warns(DeprecationWarning),
    ):
        evaluate_files(tmp_path / "gt.xml", tmp_path / "ocr.txt", text_level="line", level="region")


@pytest.mark.parametrize(
    "option, value, says",
    [
        ("normalize", ["nfc", "lower"], "sets normalize='dinglehopper', but normalize=['nfc', 'lower'] was passed"),
        ("normalize", None, "sets normalize='dinglehopper', but normalize=None was passed"),
        ("segment", "codepoint", "sets segment='grapheme', but segment='codepoint' was passed"),
        ("words", "whitespace", "sets words='unicode', but words='whitespace' was passed"),
    ],
)
def test_settings_that_contradict_the_profile_are_refused(tmp_path, option, value, says):
    write(tmp_path / "gt.txt", "a")
    with pytest.raises(ValueError, match=re.escape(says) + ".*drop profile="):
        evaluate_files(tmp_path / "gt.txt", tmp_path / "gt.txt", profile="dinglehopper", **{option: value})


def test_the_profile_accepts_its_own_settings_and_refuses_unknown_names(tmp_path):
    write(tmp_path / "gt.txt", "a b")
    r = evaluate_files(
        tmp_path / "gt.txt",
        tmp_path / "gt.txt",
        profile="dinglehopper",
        normalize="dinglehopper",
        segment="grapheme",
        words="unicode",
    )
    assert r.aggregate == 0.0 and r.metric == "cer_grapheme"
    with pytest.raises(ValueError, match="profile must be None .* or one of 'dinglehopper', got 'ocrd'"):
        evaluate_files(tmp_path / "gt.txt", tmp_path / "gt.txt", profile="ocrd")
    with pytest.raises(ValueError, match="words must be one of 'whitespace', 'unicode', got 'spaces'"):
        evaluate_files(tmp_path / "gt.txt", tmp_path / "gt.txt", words="spaces")


def test_the_profile_counts_graphemes_dinglehopper_substitutions_and_the_edge_whitespace(tmp_path):
    write(tmp_path / "gt.txt", "Schly\u00f1 ſchoͤn — Gott’s")
    write(tmp_path / "ocr.txt", "Schlym\u0303 ſchön – Gott's")
    r = evaluate_files(tmp_path / "gt.txt", tmp_path / "ocr.txt", profile="dinglehopper")
    assert r.aggregate == pytest.approx(1 / 21)  # only ñ / m̃ differs once ſchoͤn, —, ’ are normalised
    assert r.detail["measures"]["wer"] == pytest.approx(1 / 3)  # Schlyñ; the dash is no word


# -- private-use characters ---------------------------------------------------------------------------


def test_private_use_characters_left_by_the_normalisation_warn_once(tmp_path):
    write(tmp_path / "gt" / "a.txt", "\uf502riſt Gl\ue72bck")
    write(tmp_path / "gt" / "b.txt", "wa\ueec4er \ue000")
    write(tmp_path / "ocr" / "a.txt", "chriſt Glück")
    write(tmp_path / "ocr" / "b.txt", "wacker x")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        evaluate_files(tmp_path / "gt", tmp_path / "ocr")
    messages = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
    assert len(messages) == 1
    assert "U+E000" in messages[0] and "U+E72B" in messages[0] and "U+F502" in messages[0]
    assert 'Pass normalize=[..., "mufi"] or profile="dinglehopper"' in messages[0]
    assert caught[0].filename == __file__  # points at the caller


@pytest.mark.parametrize("options", [{"normalize": ["nfc", "mufi"]}, {"profile": "dinglehopper"}])
def test_mufi_or_the_profile_maps_them_and_silences_the_warning(tmp_path, options):
    write(tmp_path / "gt.txt", "\uf502riſt Gl\ue72bck wa\ueec4er")
    write(tmp_path / "ocr.txt", "chriſt Glück wacker")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = evaluate_files(tmp_path / "gt.txt", tmp_path / "ocr.txt", **options)
    assert r.aggregate == 0.0


def test_private_use_characters_no_step_maps_get_another_hint(tmp_path):
    write(tmp_path / "gt.txt", "a\ue000b")
    with pytest.warns(UserWarning, match=r"U\+E000.*No ek step maps these"):
        evaluate_files(tmp_path / "gt.txt", tmp_path / "gt.txt", normalize=["nfc", "mufi"])


def test_the_text_level_read_is_recorded_one_level_or_per_side(tmp_path):
    write(tmp_path / "gt" / "a.xml", page_xml(["one two", "three"]))
    write(tmp_path / "gt" / "b.xml", page_xml(["four"]))
    write(tmp_path / "ocr" / "a.hocr", hocr([[("one", 90), ("two", 90)], [("three", 90)]]))
    write(tmp_path / "ocr" / "b.txt", "four")
    assert evaluate_files(tmp_path / "gt", tmp_path / "ocr").detail["text_level"] == "line"  # hOCR: line level
    word_line = (
        '<TextLine id="l"><Word id="w"><TextEquiv><Unicode>five</Unicode></TextEquiv></Word>'
        "<TextEquiv><Unicode>five</Unicode></TextEquiv></TextLine><TextEquiv><Unicode>five</Unicode></TextEquiv>"
    )  # complete down to the word, and the region's own text
    write(
        tmp_path / "gt" / "c.xml",
        f'<?xml version="1.0"?><PcGts xmlns="{PAGE_NS}"><Page><TextRegion id="r">'
        f"{word_line}</TextRegion></Page></PcGts>",
    )
    assert evaluate_files(tmp_path / "gt", tmp_path / "gt").detail["text_level"] == {
        "gold": {"line": 2, "region": 1},
        "pred": {"line": 2, "region": 1},
    }
    assert evaluate_files(tmp_path / "gt" / "a.xml", tmp_path / "gt" / "a.xml").detail["text_level"] == "line"
    with_region = page_xml(["four"]).replace(
        "</TextRegion>", "<TextEquiv><Unicode>four</Unicode></TextEquiv></TextRegion>"
    )
    write(tmp_path / "b.xml", with_region)
    region = evaluate_files(tmp_path / "b.xml", tmp_path / "ocr" / "b.txt", profile="dinglehopper")
    assert region.detail["text_level"] == "region" and region.aggregate == 0.0  # the profile reads PAGE regions
    line = evaluate_files(
        tmp_path / "gt" / "a.xml", tmp_path / "ocr" / "b.txt", profile="dinglehopper", text_level="line"
    )
    assert line.detail["text_level"] == "line"


def test_regions_read_at_another_level_are_listed_in_the_detail(tmp_path):
    # region r2 has no line, so text_level="line" reads it at region level: the report says so per region
    (tmp_path / "gt.xml").write_text(
        f'<PcGts xmlns="{PAGE_NS}"><Page><TextRegion id="r1"><TextLine id="l1"><TextEquiv><Unicode>Hello'
        '</Unicode></TextEquiv></TextLine></TextRegion><TextRegion id="r2"><TextEquiv><Unicode>world</Unicode>'
        "</TextEquiv></TextRegion></Page></PcGts>",
        encoding="utf-8",
    )
    (tmp_path / "ocr.txt").write_text("Hello\nworld\n", encoding="utf-8")
    report = evaluate_files(tmp_path / "gt.xml", tmp_path / "ocr.txt", text_level="line")
    assert report.aggregate == 0.0 and report.detail["text_level"] == "line"
    assert report.detail["fallbacks"] == [{"side": "gold", "id": "gt", "region": "r2", "level": "region"}]
    region = evaluate_files(tmp_path / "gt.xml", tmp_path / "ocr.txt", text_level="region")  # r1 has no region text
    assert region.detail["fallbacks"] == [{"side": "gold", "id": "gt", "region": "r1", "level": "line"}]


def test_a_headline_fca_is_computed_on_every_page_however_long(tmp_path):
    # the FCA measure skips pages over fca_max_chars; an FCA asked for as the metric never does
    write(tmp_path / "gt.txt", "abcd efgh\nijkl")
    write(tmp_path / "ocr.txt", "ijkl\nabcd efgx")
    report = evaluate_files(tmp_path / "gt.txt", tmp_path / "ocr.txt", metric="fca", fca_max_chars=3)
    assert report.metric == "fca" and report.aggregate == pytest.approx(1 - 1 / 13)  # the lines matched across
    assert report.detail["measures_left_out"] == {}
    measured = evaluate_files(tmp_path / "gt.txt", tmp_path / "ocr.txt", fca_max_chars=3).detail
    assert "fca" not in measured["measures"] and measured["measures_left_out"]["fca"]["ids"]
