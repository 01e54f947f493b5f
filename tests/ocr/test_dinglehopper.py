"""ek's figures under profile="dinglehopper" against dinglehopper 0.11 itself, pair by pair and over a corpus.

dinglehopper is run in-process (``dinglehopper.cli.process``, what its CLI
calls) on the same files, and its JSON report read back. Per pair, ek's CER
and WER must equal dinglehopper's to 1e-9. The pairs hold historical text:
long s, ligatures, a combining small e, MUFI private-use characters, em
dashes, ’, NFD input, several lines and regions.

The first group needs no special extraction: ek's readers read these files
to dinglehopper's text by their own rules too (one PAGE region at region
level, plain text without blank lines or edge spaces, ALTO without
hyphenation). The second group (reading orders, several regions, line
level, blank lines, HYP) needs the readers' ``profile="dinglehopper"``.
The last tests run every PAGE and ALTO version, and ALTO written by OCR-D's
own converter (``page-to-alto``).
"""

from __future__ import annotations

import json
import math
import statistics
import subprocess
import unicodedata
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

import pytest

import ek
from ek._files import Joined
from ek.ocr import evaluate_files
from ek.ocr.files import evaluate_joined
from tests.ocr._builders import PAGE_VERSIONS, AltoWord, alto_document, full_region, page_document

cli = pytest.importorskip("dinglehopper.cli")

PAGE_2019 = "http://schema.primaresearch.org/PAGE/gts/pagecontent/2019-07-15"
PAGE_2013 = "http://schema.primaresearch.org/PAGE/gts/pagecontent/2013-07-15"
ALTO = {
    2: "http://www.loc.gov/standards/alto/ns-v2#",
    3: "http://www.loc.gov/standards/alto/ns-v3#",
    4: "http://www.loc.gov/standards/alto/ns-v4#",
}
pytestmark = pytest.mark.filterwarnings("ignore:the texts hold private-use characters")  # U+E5B8 is meant


def page(regions, *, ns=PAGE_2019, order=None, line_text=True, region_text=True):
    """A PAGE document: one TextRegion per list of lines, with TextEquiv at line and/or region level."""
    body = []
    for r, lines in enumerate(regions):
        tl = "".join(
            f'<TextLine id="r{r}l{k}"><Coords points="0,0 1,0 1,1"/>'
            + (f"<TextEquiv><Unicode>{escape(t)}</Unicode></TextEquiv>" if line_text else "")
            + "</TextLine>"
            for k, t in enumerate(lines)
        )
        own = f"<TextEquiv><Unicode>{escape(chr(10).join(lines))}</Unicode></TextEquiv>" if region_text else ""
        body.append(f'<TextRegion id="r{r}"><Coords points="0,0 1,0 1,1"/>{tl}{own}</TextRegion>')
    ro = ""
    if order is not None:
        refs = "".join(f'<RegionRefIndexed index="{i}" regionRef="r{r}"/>' for i, r in enumerate(order))
        ro = f'<ReadingOrder><OrderedGroup id="g">{refs}</OrderedGroup></ReadingOrder>'
    return (
        f'<?xml version="1.0" encoding="UTF-8"?><PcGts xmlns="{ns}"><Page imageFilename="p.png" '
        f'imageWidth="1" imageHeight="1">{ro}{"".join(body)}</Page></PcGts>'
    )


def alto(lines, *, version=2, hyphen_after=()):
    """An ALTO document of one block: one TextLine per line, words as String with SP between."""
    out = []
    for k, line in enumerate(lines):
        strings = "<SP/>".join(f"<String CONTENT={quoteattr(w)}/>" for w in line.split())
        if k in hyphen_after:
            strings += '<HYP CONTENT="-"/>'
        out.append(f'<TextLine ID="l{k}">{strings}</TextLine>')
    return (
        f'<?xml version="1.0" encoding="UTF-8"?><alto xmlns="{ALTO[version]}"><Layout><Page ID="p">'
        f'<PrintSpace><TextBlock ID="b">{"".join(out)}</TextBlock></PrintSpace></Page></Layout></alto>'
    )


GOLD_LINES = ["Auſ der Geſchichte des Hauſes", "ſchoͤn — Gott’s Haus ﬁnden", "\uf502riſt \ueba7 Stoﬀ wa\ueec4er"]
OCR_LINES = ["Auf der Gefchichte des Hauſes", "ſchön – Gott's Hans finden", "chriſt ſſi Stoff wacker"]

# name -> (gold file name, gold text, ocr file name, ocr text): extraction already as dinglehopper's
PAIRS = {
    "page_alto": ("page_alto.xml", page([GOLD_LINES]), "page_alto.alto.xml", alto(OCR_LINES)),
    "page2013_text": (
        "page2013_text.xml",
        page([GOLD_LINES], ns=PAGE_2013, line_text=False),
        "page2013_text.txt",
        "\n".join(OCR_LINES),
    ),
    "text_nfd": (
        "text_nfd.txt",
        unicodedata.normalize("NFD", "Grüße aus Köln, Schlyñ\nÄrger über Öl"),
        "text_nfd.ocr.txt",
        "Grüße aus Koln, Schlym\u0303\nArger über Ol",
    ),
    "alto3_alto4": (
        "alto3_alto4.xml",
        alto(["m\u0303it q\u0301 Gl\ue72bck fu\u0364r", "==ſein \ue5b8 Zei\ue5b8t"], version=3),
        "alto3_alto4.ocr.xml",
        alto(["mit q Glück für", "–ſein Zeit"], version=4),
    ),
    "combining": ("combining.txt", "e\u0301\u0301x ſtehen Ꙋ\u0483ста", "combining.ocr.txt", "ex ftehen уста"),
}

# pairs whose extraction needs the readers' dinglehopper profile
PROFILE_PAIRS = {
    "reading_order": (
        "reading_order.xml",
        page([["zweite Spalte"], ["erſte Spalte", "noch mehr"], []], order=[1, 0, 2]),
        "reading_order.txt",
        "erste Spalte\nnoch mehr\nzweite Spalte",
    ),
    "blank_lines": (
        "blank_lines.txt",
        "  Erſter Abſatz \n\nZweiter Abſatz\n\n",
        "blank_lines.ocr.txt",
        "Erster Abfatz\nZweiter Abſatz\n",
    ),
    "alto_hyphen": (
        "alto_hyphen.xml",
        alto(["Ge- ſchichte", "", "Haus"]),
        "alto_hyphen.ocr.xml",
        alto(["Ge", "ſchichte", "Haus"], hyphen_after=(0,)),
    ),
}
LINE_LEVEL = (
    "line_level.xml",
    page([["eins zwei", "drei"], ["vier"]], region_text=False),
    "line_level.txt",
    "eins zwel\ndrei\nvier",
)


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def dinglehopper_report(gt: Path, ocr: Path, folder: Path, level: str = "region") -> dict:
    folder.mkdir(parents=True, exist_ok=True)
    cli.process(str(gt), str(ocr), "report", str(folder), textequiv_level=level, plain_encoding="utf-8")
    return json.loads((folder / "report.json").read_text(encoding="utf-8"))


def _agree(tmp_path, name, gt_name, gt_text, ocr_name, ocr_text, level=None):
    gt, ocr = _write(tmp_path / "gt", gt_name, gt_text), _write(tmp_path / "ocr", ocr_name, ocr_text)
    theirs = dinglehopper_report(gt, ocr, tmp_path / "reports" / name, level or "region")
    ours = evaluate_files(gt, ocr, profile="dinglehopper", text_level=level)
    score = ours.scores[0]
    assert score.detail["ref_len"] == theirs["n_characters"], name
    assert ours.aggregate == pytest.approx(theirs["cer"], abs=1e-9), name
    assert ours.detail["measures"]["wer"] == pytest.approx(theirs["wer"], abs=1e-9), name
    return ours, theirs


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_cer_and_wer_equal_dinglehopper_per_pair(tmp_path, name):
    _ours, theirs = _agree(tmp_path, name, *PAIRS[name])
    assert theirs["cer"] > 0  # every pair has errors to count


@pytest.mark.parametrize("name", sorted(PROFILE_PAIRS))
def test_cer_and_wer_equal_dinglehopper_where_extraction_follows_its_rules(tmp_path, name):
    _agree(tmp_path, name, *PROFILE_PAIRS[name])


def test_line_level_equals_dinglehopper_at_line_level(tmp_path):
    _agree(tmp_path, "line_level", *LINE_LEVEL, level="line")


def test_a_corpus_gives_eks_micro_average_and_dinglehopper_s_document_mean(tmp_path):
    reports = {}
    for name, (gt_name, gt_text, ocr_name, ocr_text) in PAIRS.items():
        stem = name  # pair by name: gt/NAME.* with ocr/NAME.*
        gt = _write(tmp_path / "gt", stem + Path(gt_name).suffix, gt_text)
        ocr = _write(tmp_path / "ocr", stem + Path(ocr_name).suffix, ocr_text)
        reports[name] = dinglehopper_report(gt, ocr, tmp_path / "reports" / name)
    ours = evaluate_files(tmp_path / "gt", tmp_path / "ocr", profile="dinglehopper")
    assert ours.n == len(PAIRS) and ours.detail["missing"] == ()
    edits = sum(r["cer"] * r["n_characters"] for r in reports.values())
    assert ours.aggregate == pytest.approx(edits / sum(r["n_characters"] for r in reports.values()), abs=1e-9)
    assert ours.detail["document_mean"]["cer"] == pytest.approx(
        statistics.mean(r["cer"] for r in reports.values()), abs=1e-9
    )
    assert ours.detail["document_mean"]["wer"] == pytest.approx(
        statistics.mean(r["wer"] for r in reports.values()), abs=1e-9
    )
    assert ours.aggregate != pytest.approx(ours.detail["document_mean"]["cer"])  # two different figures


def test_an_empty_reference_is_infinite_for_dinglehopper_and_counted_by_ek(tmp_path):
    gt, ocr = _write(tmp_path, "empty.txt", ""), _write(tmp_path, "ocr.txt", "abc de")
    theirs = dinglehopper_report(gt, ocr, tmp_path / "reports")
    assert math.isinf(theirs["cer"]) and math.isinf(theirs["wer"]) and theirs["n_characters"] == 0
    ours = evaluate_joined(Joined(ids=("empty",), golds=("",), preds=("abc de",)), profile="dinglehopper")
    assert ours.aggregate == 6.0  # ek's rule: each inserted unit is one error (as jiwer 4)
    assert ours.detail["measures"]["wer"] == 2.0


# -- every PAGE and ALTO version, and ALTO from OCR-D's converter -------------------------------

ALTO_VERSIONS = ("v1", "v2", "v3", "v4")

GOLD_PAGE = [
    ["Der Fuchs ſprang über den Zaun", "und lief in den Wald hin-", "ein, wo er ſich \uf502ng verſteckte."],
    ["Am Abend kam er wieder", "heraus und ſah ſich um — ſchoͤn."],
]
OCR_PAGE = [
    ["Der Fuchs fprang über den Zaun", "und lief in den Wald hin"],
    ["ein, wo er ſich verſteckte."],
    ["Am Abend kam er wleder", "heraus und ſah ſich um – schön."],
]


@pytest.mark.parametrize("k, version", list(enumerate(PAGE_VERSIONS)))
def test_every_page_version_against_every_alto_version_equals_dinglehopper(tmp_path, k, version):
    alto_version = ALTO_VERSIONS[k % len(ALTO_VERSIONS)]
    gold = page_document(
        version,
        [full_region(f"r{i}", lines, glyphs=False) for i, lines in enumerate(GOLD_PAGE)],
        reading_order=("r0", "r1"),
    )
    ocr = alto_document(alto_version, [[[AltoWord(w) for w in line.split()] for line in block] for block in OCR_PAGE])
    ours, theirs = _agree(tmp_path, version, "gt.xml", gold.decode(), "ocr.xml", ocr.decode())
    assert 0 < theirs["cer"] < 0.2 and ours.detail["text_level"] == {"gold": "region", "pred": "word"}


@pytest.mark.needs("page-to-alto")
@pytest.mark.parametrize("alto_version", ["2.0", "3.1", "4.2"])
def test_alto_written_by_page_to_alto_reads_as_its_page_and_agrees_with_dinglehopper(tmp_path, alto_version, program):
    # OCR-D's converter writes the hyphen of "hin-" as an ALTO HYP: ek reads it as printed (no edit); dinglehopper
    # ignores HYP, so under its profile the pair has exactly that one edit, as dinglehopper counts it
    gold = page_document(
        "2019-07-15",
        [full_region(f"r{i}", lines, glyphs=False) for i, lines in enumerate(GOLD_PAGE)],
        reading_order=("r0", "r1"),
    )
    page_file = _write(tmp_path, "page.xml", gold.decode())
    converted = subprocess.run(
        [program("page-to-alto"), "--alto-version", alto_version, "--trailing-dash-to-hyp", str(page_file)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    alto_file = _write(tmp_path, "alto.xml", converted)
    assert "<HYP" in converted and f"ns-v{alto_version[0]}#" in converted
    assert evaluate_files(page_file, alto_file).aggregate == 0.0
    ours, theirs = _agree(tmp_path, alto_version, "gt.xml", gold.decode(), "ocr.xml", converted)
    assert ours.scores[0].detail["edits"] == 1 and theirs["cer"] == pytest.approx(1 / theirs["n_characters"])


# -- real engine output: the bundled Tesseract text and ALTO against PAGE ground truth ------------------

OCR_GT = Path(ek.__file__).parent / "data" / "ocr_gt"


@pytest.mark.parametrize("page, level", [("froschkoenig", "region"), ("brief", "region"), ("sterntaler", "line")])
@pytest.mark.parametrize("suffix", [".xml", ".txt"])
def test_tesseract_output_against_page_ground_truth_equals_dinglehopper(tmp_path, page, level, suffix):
    # the README quotes froschkoenig's figures; Tesseract's own ALTO v3 and text, read as dinglehopper reads them
    gt, ocr = OCR_GT / f"{page}.gt.xml", OCR_GT / f"{page}{suffix}"
    theirs = dinglehopper_report(gt, ocr, tmp_path, level)
    ours = evaluate_files(gt, ocr, profile="dinglehopper", text_level=level)
    assert 0.02 < theirs["cer"] < 0.3 and ours.scores[0].detail["ref_len"] == theirs["n_characters"]
    assert ours.aggregate == pytest.approx(theirs["cer"], abs=1e-9)
    assert ours.detail["measures"]["wer"] == pytest.approx(theirs["wer"], abs=1e-9)
