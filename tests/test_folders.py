"""ek._files on folders of documents: the pairing layouts, the suffix and format options, and what is not read.

Each layout is built in a temporary folder; the expected pairs are written
out by hand. Tests that put a FIFO or a link to /dev/zero in a folder run
the command in a subprocess with a timeout, so a regression hangs nothing.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from ek._files import InputError, read_pair, read_side
from ek._files._folders import list_files, read_bounded
from ek._files._pairing import Naming, candidates

PAGE_NS = "http://schema.primaresearch.org/PAGE/gts/pagecontent/2019-07-15"
ALTO_NS = "http://www.loc.gov/standards/alto/ns-v4#"


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return path


def page(text):
    return (
        f'<?xml version="1.0" encoding="UTF-8"?><PcGts xmlns="{PAGE_NS}"><Page><TextRegion id="r1">'
        f'<TextLine id="l1"><TextEquiv><Unicode>{text}</Unicode></TextEquiv></TextLine></TextRegion></Page></PcGts>'
    )


def alto(words):
    strings = "<SP/>".join(f'<String CONTENT="{w}"/>' for w in words)
    return (
        f'<alto xmlns="{ALTO_NS}"><Layout><Page><PrintSpace><TextBlock><TextLine>{strings}</TextLine>'
        "</TextBlock></PrintSpace></Page></Layout></alto>"
    )


def hocr(words):
    spans = " ".join(f"<span class='ocrx_word'>{w}</span>" for w in words)
    return f"<html><body><div class='ocr_page'><span class='ocr_line'>{spans}</span></div></body></html>"


def ek(*args, timeout=60):
    return subprocess.run(
        [sys.executable, "-m", "ek", *map(str, args)], capture_output=True, text=True, timeout=timeout
    )


# -- layouts found without options ------------------------------------------------


def test_gt_beside_engine_outputs_in_one_folder(tmp_path):
    # the tesstrain / OCR-D line layout: NAME.gt.txt beside NAME.ENGINE.txt
    for name, text in {
        "l1.gt.txt": "Hello",
        "l1.tess.txt": "Hallo",
        "l2.gt.txt": "World",
        "l2.tess.txt": "World",
        "l3.gt.txt": "Gone",
        "l1.png": "not text",
    }.items():
        write(tmp_path / name, text)
    j = read_pair(tmp_path, tmp_path)
    assert j.ids == ("l1", "l2", "l3") and j.golds == ("Hello", "World", "Gone")
    assert j.preds == ("Hallo", "World", "") and j.missing == ("l3",) and j.extra == ()


@pytest.mark.parametrize("gold_name, pred_name", [("gt", "ocr"), ("GT", "pred")])
def test_gt_and_ocr_subfolders_of_one_folder(tmp_path, gold_name, pred_name):
    write(tmp_path / gold_name / "a.txt", "cat")
    write(tmp_path / gold_name / "sub" / "b.txt", "dog")
    write(tmp_path / pred_name / "a.txt", "cut")
    write(tmp_path / pred_name / "sub" / "b.txt", "dig")
    for pred in (tmp_path, tmp_path / pred_name):
        j = read_pair(tmp_path, pred)
        assert j.ids == ("a", "sub/b") and j.golds == ("cat", "dog") and j.preds == ("cut", "dig"), pred
    assert read_side(tmp_path, role="gold").source == f"GOLD {tmp_path / gold_name}"


def test_a_folder_with_both_ocr_and_pred_subfolders_is_refused_as_pred(tmp_path):
    for sub in ("gt", "ocr", "pred"):
        write(tmp_path / sub / "a.txt", "x")
    assert read_side(tmp_path, role="gold").ids == ("a",)
    with pytest.raises(InputError, match=r"PRED .* holds the folders ocr/ and pred/; point PRED at the one to read"):
        read_side(tmp_path, role="pred")


def test_documents_of_their_own_next_to_gt_and_ocr_keep_the_folder_as_it_is(tmp_path):
    write(tmp_path / "gt" / "a.txt", "x")
    write(tmp_path / "ocr" / "a.txt", "y")
    write(tmp_path / "notes.txt", "z")
    assert read_side(tmp_path, role="gold").ids == ("gt/a", "notes", "ocr/a")


def test_one_subfolder_per_document(tmp_path):
    write(tmp_path / "p1" / "p1.gt.txt", "abc")  # named as its folder
    write(tmp_path / "p1" / "tesseract.txt", "abd")
    write(tmp_path / "p2" / "gt.txt", "xyz")  # gt.EXT in its folder
    write(tmp_path / "p2" / "p2.txt", "xyz")
    write(tmp_path / "p3" / "gt.txt", "only gold")
    j = read_pair(tmp_path, tmp_path)
    assert j.ids == ("p1", "p2", "p3") and j.preds == ("abd", "xyz", "") and j.missing == ("p3",)


def test_candidates_drop_dotted_parts_then_fall_back_to_the_folder():
    assert candidates("l1.tess.v2") == ("l1.tess.v2", "l1.tess", "l1")
    assert candidates("sub/p1/ocr") == ("sub/p1/ocr", "sub/p1")
    assert candidates("p1/p1.kraken") == ("p1/p1.kraken", "p1")  # p1/p1 is the folder's document
    assert candidates("plain") == ("plain",)


# -- folders mixing kinds of file: every document pairs by its stem -----------------------


def test_a_gold_folder_mixing_gt_txt_and_page_reads_both_as_gold(tmp_path):
    # issue 29: the PAGE files beside x.gt.txt were dropped from GOLD and listed as extra predictions
    write(tmp_path / "gt" / "x.gt.txt", "Tis is a test")
    write(tmp_path / "gt" / "kant_0017.xml", page("Was ist Aufklärung"))
    write(tmp_path / "gt" / "sub" / "kant_0020.hocr", hocr(["Muth", "dich"]))
    write(tmp_path / "ocr" / "x.txt", "This is a test")
    write(tmp_path / "ocr" / "kant_0017.xml", alto(["Was", "ist", "Aufklarung"]))
    write(tmp_path / "ocr" / "sub" / "kant_0020.txt", "Muth dich")
    j = read_pair(tmp_path / "gt", tmp_path / "ocr")
    assert j.ids == ("kant_0017", "sub/kant_0020", "x") and j.extra == () and j.missing == ()
    assert j.golds == ("Was ist Aufklärung", "Muth dich", "Tis is a test")
    assert [j.documents[i][0].format for i in j.ids] == ["page", "hocr", "text"]
    assert j.preds == ("Was ist Aufklarung", "Muth dich", "This is a test")


def test_one_folder_as_both_sides_keeps_gold_to_the_gt_files(tmp_path):
    # a document named for no .gt file is a prediction there (an extra), as before; with PRED elsewhere it is gold
    lines, ocr = tmp_path / "lines", tmp_path / "ocr"
    write(lines / "l1.gt.txt", "Hello")
    write(lines / "l1.tess.txt", "Hallo")
    write(lines / "l2.gt.txt", "World")
    write(lines / "l2.xml", page("Wor1d"))  # NAME.EXT beside NAME.gt.EXT: the prediction here
    write(lines / "notes.txt", "a stray file")
    j = read_pair(lines, lines)
    assert j.ids == ("l1", "l2") and j.preds == ("Hallo", "Wor1d") and j.extra == ("notes",)
    write(ocr / "l1.txt", "Hullo")
    write(ocr / "notes.txt", "a stray fil")
    with pytest.raises(InputError, match=r"two gold files for 'l2'"):
        read_pair(lines, ocr)  # PRED elsewhere: l2.xml would be a second gold file
    j = read_pair(lines, ocr, gold_suffix=".gt.txt")
    assert j.ids == ("l1", "l2") and j.preds == ("Hullo", "") and j.extra == ("notes",)  # the suffix names gold
    (lines / "l2.xml").unlink()
    j = read_pair(lines, ocr)
    assert j.ids == ("l1", "l2", "notes") and j.preds == ("Hullo", "", "a stray fil")  # PRED elsewhere: notes is gold


@pytest.mark.parametrize(
    "names, listed, fix",
    [
        (("a.gt.txt", "a.xml"), r"\(\S*a\.gt\.txt and \S*a\.xml\)", r"--gold-suffix \.gt\.txt"),
        (("a.gt.xml", "a.txt"), r"\(\S*a\.gt\.xml and \S*a\.txt\)", r"--gold-suffix \.gt\.xml"),
        (("a/gt.txt", "a/a.xml"), r"\(\S*a/gt\.txt and \S*a/a\.xml\)", r"--gold-suffix gt\.txt"),
    ],
)
def test_two_gold_files_for_one_stem_are_an_error_naming_both_and_the_fix(tmp_path, names, listed, fix):
    write(tmp_path / "gt" / names[0], "one")
    write(tmp_path / "gt" / names[1], page("two") if names[1].endswith(".xml") else "two")
    write(tmp_path / "ocr" / "a.txt", "on")
    with pytest.raises(InputError, match=rf"^GOLD \S*gt has two gold files for 'a' {listed}; keep one, or pass {fix}"):
        read_pair(tmp_path / "gt", tmp_path / "ocr")
    j = read_pair(tmp_path / "gt", tmp_path / "gt")  # one folder as both sides: the second file is the prediction
    assert j.ids == ("a",) and j.golds == ("one",) and j.preds == ("two",)


def test_two_files_for_one_stem_without_a_gt_name_are_refused_on_either_side(tmp_path):
    write(tmp_path / "gt" / "a.txt", "one")
    write(tmp_path / "gt" / "a.xml", page("two"))
    write(tmp_path / "ocr" / "a.txt", "one")
    with pytest.raises(InputError, match=r"GOLD \S*gt has two files for 'a' \(a\.txt and a\.xml\); keep one"):
        read_pair(tmp_path / "gt", tmp_path / "ocr")
    with pytest.raises(InputError, match=r"PRED \S*gt holds several outputs for the document 'a' \(a\.txt, a\.xml\)"):
        read_pair(tmp_path / "ocr", tmp_path / "gt")


def test_real_kant_page_and_line_dirs_text_in_one_gold_folder(real_data, tmp_path):
    complex_ = real_data / "ocrd-assets" / "kant_aufklaerung_1784-complex"
    tess = "OCR-D-OCR-TESS-frk-SEG-LINE-tesseract-ocropy-DEWARP"
    lines = real_data / "dinglehopper" / "line_dirs" / "basic"
    files = {
        "gt/kant_0017.xml": complex_ / "OCR-D-GT-PAGE" / "PAGE_0017_PAGE.xml",
        "gt/kant_0020.xml": complex_ / "OCR-D-GT-PAGE" / "PAGE_0020_PAGE.xml",
        "gt/x.gt.txt": lines / "gt" / "a.gt.txt",
        "ocr/kant_0017.xml": complex_ / tess / f"{tess}_0001.xml",
        "ocr/kant_0020.xml": complex_ / tess / f"{tess}_0002.xml",
        "ocr/x.txt": lines / "ocr" / "a.some-ocr.txt",
    }
    for name, source in files.items():
        write(tmp_path / name, source.read_bytes())
    j = read_pair(tmp_path / "gt", tmp_path / "ocr")
    assert j.ids == ("kant_0017", "kant_0020", "x") and j.extra == () and j.missing == ()
    assert [j.documents[i][0].format for i in j.ids] == ["page", "page", "text"]
    assert j.golds[2] == "This is a test." and j.preds[2] == "Tis is a test."
    # the OCR-D GT beside its own ALTO export, as one folder: a second gold file unless PRED is that folder
    write(tmp_path / "gt" / "kant_0017.gt.xml", (complex_ / "OCR-D-GT-PAGE" / "PAGE_0017_PAGE.xml").read_bytes())
    with pytest.raises(
        InputError, match=r"two gold files for 'kant_0017' \(\S*kant_0017\.gt\.xml and \S*kant_0017\.xml\)"
    ):
        read_pair(tmp_path / "gt", tmp_path / "ocr")


def test_real_line_dirs_layouts_still_pair(real_data):
    lines = real_data / "dinglehopper" / "line_dirs"
    for gold, pred in (
        (lines / "basic" / "gt", lines / "basic" / "ocr"),
        (lines / "subdirs", lines / "subdirs"),
        (lines / "merged", lines / "merged"),
    ):
        j = read_pair(gold, pred)
        assert j.ids == ("a", "b") and j.golds == ("This is a test.", "Another test."), gold
        assert j.preds == ("Tis is a test.", "AnÖther test.") and j.extra == () and j.missing == (), gold


# -- empty files --------------------------------------------------------------------------


def test_an_empty_prediction_is_noted_with_its_file(tmp_path):
    write(tmp_path / "gt" / "a.txt", "cat")
    write(tmp_path / "gt" / "b.txt", "dog")
    write(tmp_path / "gt" / "c.txt", "emu")
    empty = write(tmp_path / "ocr" / "a.txt", b"")  # 0 bytes
    write(tmp_path / "ocr" / "b.txt", "dog")
    blank = write(tmp_path / "ocr" / "c.xml", page(""))  # a page with no text
    j = read_pair(tmp_path / "gt", tmp_path / "ocr")
    assert j.preds == ("", "dog", "") and j.missing == ()
    assert j.empty == (("a", str(empty)), ("c", str(blank)))
    single = read_pair(tmp_path / "gt" / "a.txt", empty)
    assert single.empty == (("a", str(empty)),)


def test_the_command_notes_each_empty_prediction_and_refuses_an_empty_gold_file(tmp_path):
    write(tmp_path / "gt" / "a.gt.txt", "Hello")
    write(tmp_path / "gt" / "b.gt.txt", "World")
    write(tmp_path / "ocr" / "a.txt", "Hallo")
    empty = write(tmp_path / "ocr" / "b.txt", b"")
    out = ek("evaluate", tmp_path / "gt", tmp_path / "ocr")
    assert out.returncode == 0, out.stderr
    assert f"note: {empty}: empty prediction: scored as all deletions\n" in out.stdout
    data = json.loads(ek("evaluate", tmp_path / "gt", tmp_path / "ocr", "--json", "-").stdout)
    assert data["notes"] == [{"id": "b", "path": str(empty), "note": "empty prediction: scored as all deletions"}]
    assert data["aggregate"] == pytest.approx((1 + 5) / 10)  # all 5 characters of "World" deleted
    write(tmp_path / "gt" / "c.gt.txt", b"")  # a 0-byte gold file: nothing to score against, an error
    out = ek("evaluate", tmp_path / "gt", tmp_path / "ocr")
    assert out.returncode == 2 and out.stdout == ""
    assert re.search(r"GOLD \S*c\.gt\.txt has no text \(text\); transcribe it or leave the file out", out.stderr)
    assert "--keep-going" in out.stderr
    kept = ek("evaluate", tmp_path / "gt", tmp_path / "ocr", "--keep-going")
    assert kept.returncode == 0 and "failed: 1 document could not be read (left out):" in kept.stdout


# -- --gold-suffix / --pred-suffix -----------------------------------------------------


def test_suffixes_pair_two_kinds_of_file_in_one_folder_with_subfolders(tmp_path):
    write(tmp_path / "a.gt.txt", "one")
    write(tmp_path / "a.some-ocr.txt", "ane")
    write(tmp_path / "a.other-ocr.txt", "zzz")
    write(tmp_path / "vol1" / "b" / "b.gt.txt", "two")
    write(tmp_path / "vol1" / "b" / "b.some-ocr.txt", "tw0")
    with pytest.raises(
        InputError,
        match=r"several predictions for the GOLD id 'a' \(.*a\.other-ocr\.txt, "
        r".*a\.some-ocr\.txt\); keep one, or name the files to read with "
        r"--pred-suffix \(e\.g\. --pred-suffix \.some-ocr\.txt\)",
    ):
        read_pair(tmp_path, tmp_path)
    j = read_pair(tmp_path, tmp_path, gold_suffix=".gt.txt", pred_suffix=".some-ocr.txt")
    assert j.ids == ("a", "vol1/b") and j.golds == ("one", "two") and j.preds == ("ane", "tw0")
    assert j.extra == () and j.skipped == ()


def test_page_and_alto_suffixes(tmp_path):
    write(tmp_path / "p1_PAGE.xml", page("Hello World"))
    write(tmp_path / "p1_ALTO.xml", alto(["Hello", "Wor1d"]))
    write(tmp_path / "p2_PAGE.xml", page("Second"))
    j = read_pair(tmp_path, tmp_path, gold_suffix="_PAGE.xml", pred_suffix="_ALTO.xml")
    assert j.ids == ("p1", "p2") and j.golds == ("Hello World", "Second") and j.preds == ("Hello Wor1d", "")
    assert j.documents["p1"][0].format == "page" and j.documents["p1"][1].format == "alto"


def test_the_longer_of_two_matching_suffixes_decides(tmp_path):
    write(tmp_path / "a.txt", "gold")
    write(tmp_path / "a.ocr.txt", "gald")
    j = read_pair(tmp_path, tmp_path, gold_suffix=".txt", pred_suffix=".ocr.txt")
    assert j.ids == ("a",) and j.golds == ("gold",) and j.preds == ("gald",)


@pytest.mark.parametrize("suffix", ["", "sub/x.txt", 7])
def test_a_suffix_must_be_the_end_of_a_name(tmp_path, suffix):
    write(tmp_path / "a.txt", "x")
    with pytest.raises(ValueError, match=r"gold_suffix \(--gold-suffix\) must be the end of a file name"):
        read_side(tmp_path, gold_suffix=suffix)


# -- several outputs of one engine: --pred-format ---------------------------------------


@pytest.fixture
def tesseract_outputs(tmp_path):
    write(tmp_path / "gt" / "p1.txt", "Hello World")
    write(tmp_path / "ocr" / "p1.txt", "Hello Wor1d")
    write(tmp_path / "ocr" / "p1.hocr", hocr(["Hel1o", "World"]))
    write(tmp_path / "ocr" / "p1.xml", alto(["Hello", "W0rld"]))
    return tmp_path


def test_several_outputs_for_one_page_are_refused_naming_pred_format(tesseract_outputs):
    with pytest.raises(
        InputError,
        match=r"holds several outputs for the document 'p1' \(p1\.hocr, p1\.txt, p1\.xml\); "
        r"pick one with --pred-format text\|hocr\|alto\|page",
    ):
        read_pair(tesseract_outputs / "gt", tesseract_outputs / "ocr")


@pytest.mark.parametrize(
    "fmt, text, kept",
    [("text", "Hello Wor1d", "p1.txt"), ("hocr", "Hel1o World", "p1.hocr"), ("alto", "Hello W0rld", "p1.xml")],
)
def test_pred_format_reads_one_and_lists_the_others_as_skipped(tesseract_outputs, fmt, text, kept):
    ocr = tesseract_outputs / "ocr"
    j = read_pair(tesseract_outputs / "gt", ocr, pred_format=fmt)
    assert j.preds == (text,)
    skipped = {os.path.basename(s.path): s.reason for s in j.skipped}
    assert set(skipped) == {"p1.txt", "p1.hocr", "p1.xml"} - {kept}
    assert all(r.endswith(f"--pred-format {fmt} reads only {fmt} files") for r in skipped.values())
    if fmt == "text":
        assert skipped["p1.xml"].startswith("its format is alto")


def test_gold_never_picks_among_several_files_of_one_id(tesseract_outputs):
    with pytest.raises(
        InputError, match=r"GOLD .*ocr has 3 files for 'p1' \(p1\.hocr, p1\.txt and p1\.xml\); keep one"
    ):
        read_side(tesseract_outputs / "ocr", pred_format="hocr")  # --pred-format is for PRED only


def test_pred_format_must_be_a_known_format(tmp_path):
    write(tmp_path / "a.txt", "x")
    with pytest.raises(ValueError, match=r"pred_format \(--pred-format\) must be one of text, hocr, alto, page"):
        read_side(tmp_path, role="pred", pred_format="pdf")


# -- nothing paired ------------------------------------------------------------------------


def test_folders_sharing_no_id_are_an_error_showing_names_from_each_side(tmp_path):
    for name in ("a", "b", "c", "d"):
        write(tmp_path / "gt" / f"{name}.gt.txt", name)
    for name in ("x", "y"):
        write(tmp_path / "ocr" / f"page_{name}.txt", name)
    with pytest.raises(
        InputError,
        match=r"nothing paired: no id of PRED .*ocr is an id of GOLD .*gt \(GOLD has 'a', "
        r"'b', 'c' and 1 more; PRED has 'page_x', 'page_y'\); name the files alike, "
        r"or pair them with --gold-suffix and --pred-suffix",
    ):
        read_pair(tmp_path / "gt", tmp_path / "ocr")


def test_records_sharing_no_id_are_an_error_too(tmp_path):
    gold = write(tmp_path / "g.jsonl", '{"id": "a", "text": "x"}\n')
    pred = write(tmp_path / "p.jsonl", '{"id": "b", "text": "x"}\n')
    with pytest.raises(
        InputError,
        match=r"nothing paired: .*\(GOLD has 'a'; PRED has 'b'\); check that both sides "
        r"carry the same ids \(--id names the id field\)",
    ):
        read_pair(gold, pred)


# -- what is read, what is skipped -----------------------------------------------------------


def test_links_inside_are_read_links_out_are_skipped_unless_followed(tmp_path):
    outside = write(tmp_path / "elsewhere" / "b.txt", "from outside")
    write(tmp_path / "gt" / "a.txt", "inside")
    write(tmp_path / "gt" / "b.txt", "gold b")
    write(tmp_path / "ocr" / "real" / "a.txt", "inside")
    os.symlink(tmp_path / "ocr" / "real" / "a.txt", tmp_path / "ocr" / "a.txt")
    os.symlink(outside, tmp_path / "ocr" / "b.txt")
    os.symlink(tmp_path / "nowhere.txt", tmp_path / "ocr" / "c.txt")
    os.symlink(tmp_path / "ocr", tmp_path / "ocr" / "loop")  # a folder link back up: walked once
    j = read_pair(tmp_path / "gt", tmp_path / "ocr")
    assert j.ids == ("a", "b") and j.preds == ("inside", "") and j.missing == ("b",)
    reasons = {os.path.basename(s.path): s.reason for s in j.skipped}
    assert reasons == {
        "b.txt": f"a link out of the folder (to {outside}); pass --follow-symlinks to read it",
        "c.txt": "a broken link (its target does not exist)",
    }
    assert j.extra == ("real/a",)
    followed = read_pair(tmp_path / "gt", tmp_path / "ocr", follow_symlinks=True)
    assert followed.preds == ("inside", "from outside")


def test_a_fifo_and_a_device_are_listed_never_opened(tmp_path):
    os.mkfifo(tmp_path / "pipe.txt")
    os.symlink("/dev/null", tmp_path / "null.txt")
    write(tmp_path / "a.txt", "x")
    listing = list_files(str(tmp_path), Naming().wants, follow_symlinks=True)  # a stat never blocks on a FIFO
    assert [e.rel for e in listing.entries] == ["a.txt"]
    assert {os.path.basename(s.path): s.reason for s in listing.skipped} == {
        "pipe.txt": "a FIFO (named pipe)",
        "null.txt": "a character device",
    }


def test_the_size_bound(tmp_path):
    big = write(tmp_path / "ocr" / "a.txt", "x" * 3000)
    write(tmp_path / "gt" / "a.txt", "x")
    j = read_pair(tmp_path / "gt", tmp_path / "ocr", max_file_mb=0.002)
    assert list(j.pred_errors) == ["a"]
    assert j.pred_errors["a"].endswith(
        "a.txt is 0.00286 MB, more than --max-file-mb 0.002; raise --max-file-mb (max_file_mb=) to read it."
    )
    assert [(f.side, f.path, f.id) for f in j.failures] == [("pred", str(big), "a")]
    with pytest.raises(InputError, match=r"^/dev/zero holds more than --max-file-mb 1 MB; raise --max-file-mb"):
        read_bounded("/dev/zero", "/dev/zero", 1024 * 1024)  # a device has no size to check first: the read stops
    for bad in (0, -1, float("nan"), float("inf"), "9", True):
        with pytest.raises(ValueError, match=r"max_file_mb \(--max-file-mb\) must be a positive number of megabytes"):
            read_side(tmp_path / "gt", max_file_mb=bad)


def test_failures_carry_side_path_and_id(tmp_path):
    write(tmp_path / "gt" / "a.gt.txt", "fine")
    bad_gold = write(tmp_path / "gt" / "b.gt.txt", "caf\xe9".encode("latin-1"))
    write(tmp_path / "ocr" / "a.txt", b"\xff")
    write(tmp_path / "ocr" / "b.txt", "x")
    j = read_pair(tmp_path / "gt", tmp_path / "ocr")
    assert [(f.side, os.path.basename(f.path), f.id) for f in j.failures] == [
        ("gold", "b.gt.txt", "b"),
        ("pred", "a.txt", "a"),
    ]
    assert j.failures[0].path == str(bad_gold) and "is not UTF-8" in j.failures[0].message


# -- the command line: skipped files never block, and are listed ----------------------------


def test_a_fifo_and_a_link_to_dev_zero_in_a_folder_neither_block_nor_read_forever(tmp_path):
    gt, ocr = tmp_path / "gt", tmp_path / "ocr"
    for name, text in (("a", "cat"), ("b", "dog"), ("c", "emu")):
        write(gt / f"{name}.txt", text)
    write(ocr / "a.txt", "cut")
    os.mkfifo(ocr / "b.txt")
    os.symlink("/dev/zero", ocr / "c.txt")
    out = ek("evaluate", gt, ocr, "--json", "-")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["missing"] == ["b", "c"] and data["aggregate"] == pytest.approx((1 + 3 + 3) / 9)
    assert data["skipped"] == [
        {"path": str(ocr / "b.txt"), "reason": "a FIFO (named pipe)"},
        {
            "path": str(ocr / "c.txt"),
            "reason": "a link out of the folder (to /dev/zero); pass --follow-symlinks to read it",
        },
    ]
    followed = ek("evaluate", gt, ocr, "--follow-symlinks")
    assert followed.returncode == 0, followed.stderr
    assert "skipped: 2 files not read:" in followed.stdout
    assert f"  {ocr / 'c.txt'}: a character device" in followed.stdout


def test_a_folder_side_without_any_document_is_refused(tmp_path):
    write(tmp_path / "gt" / "a.txt", "x")
    write(tmp_path / "ocr" / "a.png", b"\x89PNG")
    with pytest.raises(InputError, match=r"PRED .*ocr holds no document \(\.txt, .*\); point PRED at the predictions"):
        read_pair(tmp_path / "gt", tmp_path / "ocr")
    write(tmp_path / "ocr" / "a.txt", "x")
    with pytest.raises(InputError, match=r"PRED .*ocr holds no file ending with '_ALTO\.xml'; .*--pred-suffix"):
        read_pair(tmp_path / "gt", tmp_path / "ocr", pred_suffix="_ALTO.xml")
    with pytest.raises(
        InputError,
        match=r"holds no hocr document \(--pred-format hocr\); 1 of other formats are "
        r"skipped",
    ):
        read_pair(tmp_path / "gt", tmp_path / "ocr", pred_format="hocr")
    with pytest.raises(
        InputError,
        match=r"GOLD .*gt holds no file ending with '\.gt\.txt'; point GOLD at the "
        r"transcriptions, or name them with --gold-suffix",
    ):
        read_side(tmp_path / "gt", gold_suffix=".gt.txt")
