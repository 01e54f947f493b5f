"""``ek evaluate``'s per-page table: each page's CER, WER and gold length, worst first, after the corpus summary.

It is printed by default for 2 to 50 pages, for any number with
``--per-page``, never with ``--no-per-page``; the JSON carries every page
under ``per_page`` whatever the terminal shows. The figures are worked out
by hand on tiny pages, and on real files they equal dinglehopper 0.11's
own per-pair report under ``--profile dinglehopper``.
"""

from __future__ import annotations

import json

import pytest

import ek.tools
from ek.cli import run

PAGES = {  # id: (gold, pred, cer, wer, gold characters), by hand
    "a": ("abcd", "abcx", 1 / 4, 1 / 1, 4),  # one substitution in one word
    "b": ("hello world", "hello world", 0.0, 0.0, 11),
    "c": ("xy", "", 1.0, 1.0, 2),  # an empty prediction: every character deleted
    "d": ("one two three", "one tw0 three", 1 / 13, 1 / 3, 13),
}


def call(capsys, *argv):
    code = run(ek.cli.COMMANDS, [str(a) for a in argv])
    out = capsys.readouterr()
    assert code == 0 and out.err == "", (code, out.err)
    return out.out


def folders(tmp_path, pages):
    for name, (gold, pred, *_) in pages.items():
        (tmp_path / "gt").mkdir(parents=True, exist_ok=True)
        (tmp_path / "ocr").mkdir(parents=True, exist_ok=True)
        (tmp_path / "gt" / f"{name}.gt.txt").write_text(gold, encoding="utf-8")
        (tmp_path / "ocr" / f"{name}.txt").write_text(pred, encoding="utf-8")
    return tmp_path / "gt", tmp_path / "ocr"


def table_of(out: str) -> list[list[str]]:
    """The rows of the per-page table in ``out`` (header and rule dropped), or [] when there is none."""
    lines = out.splitlines()
    heads = [k for k, line in enumerate(lines) if line.startswith("per page, worst first")]
    if not heads:
        return []
    assert (
        len(heads) == 1 and lines[heads[0] - 1] == "" and lines[heads[0] + 1].split() == ["page", "cer", "wer", "chars"]
    )
    return [line.split() for line in lines[heads[0] + 3 :]]  # the table is the last thing printed


def test_the_table_lists_every_page_worst_first_after_the_summary(tmp_path, capsys):
    gold, pred = folders(tmp_path, PAGES)
    out = call(capsys, "evaluate", gold, pred)
    assert "per page, worst first (4 pages):" in out
    assert out.index("measures:") < out.index("per page")
    assert table_of(out) == [
        ["c", "1.0000", "1.0000", "2"],
        ["a", "0.2500", "1.0000", "4"],
        ["d", "0.0769", "0.3333", "13"],
        ["b", "0.0000", "0.0000", "11"],
    ]
    data = json.loads(call(capsys, "evaluate", gold, pred, "--json", "-"))
    assert [row["id"] for row in data["per_page"]] == ["c", "a", "d", "b"]
    for row in data["per_page"]:
        *_, cer, wer, chars = PAGES[row["id"]]
        assert row == {"id": row["id"], "cer": pytest.approx(cer), "wer": pytest.approx(wer), "chars": chars}
    # the corpus figure sums the pages' edits over their characters
    edits = sum(round(r["cer"] * r["chars"]) for r in data["per_page"])
    assert data["aggregate"] == pytest.approx(edits / sum(r["chars"] for r in data["per_page"]))


def test_ties_keep_the_gold_order_and_wer_breaks_a_cer_tie(tmp_path, capsys):
    pages = {
        "p1": ("ab cd", "ab cd", 0.0, 0.0, 5),
        "p2": ("abcd", "abcx", 0.25, 1.0, 4),
        "p3": ("ab cd", "ab cx", 0.2, 0.5, 5),
        "p4": ("a b c d e", "a b c d x", 1 / 9, 0.2, 9),
        "p5": ("abcde", "abcdx", 0.2, 1.0, 5),
        "p6": ("xy", "xy", 0.0, 0.0, 2),
    }
    out = call(capsys, "evaluate", *folders(tmp_path, pages))
    assert [row[0] for row in table_of(out)] == ["p2", "p5", "p3", "p4", "p1", "p6"]


def test_one_page_has_no_table_unless_asked(tmp_path, capsys):
    gold, pred = folders(tmp_path, {"a": PAGES["a"]})
    assert table_of(call(capsys, "evaluate", gold, pred)) == []
    assert table_of(call(capsys, "evaluate", gold, pred, "--per-page")) == [["a", "0.2500", "1.0000", "4"]]


def test_more_than_50_pages_have_no_table_unless_asked_and_no_per_page_hides_it(tmp_path, capsys):
    pages = {f"p{k:02d}": ("abcd", "abcd" if k % 2 else "abce", 0, 0, 4) for k in range(51)}
    gold, pred = folders(tmp_path, pages)
    assert table_of(call(capsys, "evaluate", gold, pred)) == []
    rows = table_of(call(capsys, "evaluate", gold, pred, "--per-page"))
    assert len(rows) == 51 and rows[0] == ["p00", "0.2500", "1.0000", "4"] and rows[-1][0] == "p49"
    data = json.loads(call(capsys, "evaluate", gold, pred, "--json", "-"))
    assert len(data["per_page"]) == 51  # the JSON lists every page whatever the terminal shows
    few_gold, few_pred = folders(tmp_path / "few", {k: PAGES[k] for k in "ab"})
    assert len(table_of(call(capsys, "evaluate", few_gold, few_pred))) == 2
    assert table_of(call(capsys, "evaluate", few_gold, few_pred, "--no-per-page")) == []


def test_records_have_no_per_page_table(tmp_path, capsys):
    (tmp_path / "g.jsonl").write_text('{"id": "a", "text": "cat"}\n{"id": "b", "text": "dog"}\n')
    (tmp_path / "p.jsonl").write_text('{"id": "a", "text": "cut"}\n{"id": "b", "text": "dog"}\n')
    out = call(capsys, "evaluate", tmp_path / "g.jsonl", tmp_path / "p.jsonl", "--per-page")
    assert table_of(out) == []
    assert "per_page" not in json.loads(
        call(capsys, "evaluate", tmp_path / "g.jsonl", tmp_path / "p.jsonl", "--json", "-")
    )


def test_real_pages_equal_dinglehopper_per_pair_under_its_profile(real_data, tmp_path, capsys):
    cli = pytest.importorskip("dinglehopper.cli")
    complex_ = real_data / "ocrd-assets" / "kant_aufklaerung_1784-complex"
    tess = "OCR-D-OCR-TESS-frk-SEG-LINE-tesseract-ocropy-DEWARP"
    lines = real_data / "dinglehopper" / "line_dirs" / "basic"
    pairs = {  # a gold folder of OCR-D PAGE GT and a .gt.txt line beside it
        "kant_0017": (
            "kant_0017.xml",
            complex_ / "OCR-D-GT-PAGE" / "PAGE_0017_PAGE.xml",
            complex_ / tess / f"{tess}_0001.xml",
        ),
        "kant_0020": (
            "kant_0020.xml",
            complex_ / "OCR-D-GT-PAGE" / "PAGE_0020_PAGE.xml",
            complex_ / tess / f"{tess}_0002.xml",
        ),
        "x": ("x.gt.txt", lines / "gt" / "a.gt.txt", lines / "ocr" / "a.some-ocr.txt"),
    }
    (tmp_path / "gt").mkdir()
    (tmp_path / "ocr").mkdir()
    theirs = {}
    for page_id, (name, gt, ocr) in pairs.items():
        (tmp_path / "gt" / name).write_bytes(gt.read_bytes())
        (tmp_path / "ocr" / (page_id + (".txt" if name.endswith(".txt") else ".xml"))).write_bytes(ocr.read_bytes())
        report = tmp_path / "reports" / page_id
        report.mkdir(parents=True)
        cli.process(str(gt), str(ocr), "report", str(report), textequiv_level="region", plain_encoding="utf-8")
        theirs[page_id] = json.loads((report / "report.json").read_text(encoding="utf-8"))
    out = call(capsys, "evaluate", tmp_path / "gt", tmp_path / "ocr", "--profile", "dinglehopper", "--json", "-")
    rows = json.loads(out)["per_page"]
    assert [r["id"] for r in rows] == ["x", "kant_0017", "kant_0020"]  # CER 0.0667, 0.0610, 0.0368
    for row in rows:
        ref = theirs[row["id"]]
        assert row["cer"] == pytest.approx(ref["cer"], abs=1e-9) and row["wer"] == pytest.approx(ref["wer"], abs=1e-9)
        assert row["chars"] == ref["n_characters"]
    printed = table_of(call(capsys, "evaluate", tmp_path / "gt", tmp_path / "ocr", "--profile", "dinglehopper"))
    assert printed == [[r["id"], f"{r['cer']:.4f}", f"{r['wer']:.4f}", str(r["chars"])] for r in rows]
