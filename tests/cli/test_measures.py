"""``ek evaluate --measures``: which OCR measures are computed, FCA's size rule by default, the reading-order warning.

The figures are worked by hand: FCA charges a page read across its two
columns only the space that joins each row, CER much more.
"""

from __future__ import annotations

import json

import pytest

import ek.tools
from ek.cli import run
from ek.ocr.files import FCA_MAX_CHARS, evaluate_files

ROWS = [("left one", "right one"), ("left two", "right two"), ("left three", "right three")]
GOLD = "\n".join([a for a, _ in ROWS] + [b for _, b in ROWS])  # column by column: 55 characters
ACROSS = "\n".join(f"{a} {b}" for a, b in ROWS)  # row by row: three merges, one space each
LINE = "abcdefghi " * 9 + "abcdefghi"  # 99 characters


def chars(text):
    """The characters FCA counts: line breaks are free."""
    return len(text.replace("\n", ""))


def call(capsys, *argv):
    code = run(ek.cli.COMMANDS, [str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def folders(tmp_path, pages):
    """gold/ and pred/ holding ``{name: (gold text, pred text)}``."""
    for k, side in enumerate(("gold", "pred")):
        (tmp_path / side).mkdir()
        for name, texts in pages.items():
            (tmp_path / side / f"{name}.txt").write_text(texts[k], encoding="utf-8")
    return tmp_path / "gold", tmp_path / "pred"


def measures_of(capsys, *argv):
    code, out, err = call(capsys, "evaluate", *argv, "--json", "-")
    assert code == 0, err
    report = json.loads(out)
    return report["measures"], report["measures_left_out"]


def test_measures_chooses_what_is_computed(tmp_path, capsys):
    gold, pred = folders(tmp_path, {"p1": (GOLD, ACROSS)})
    assert list(measures_of(capsys, gold, pred)[0]) == ["cer", "wer", "fca", "bow"]  # a small page: all four
    assert list(measures_of(capsys, gold, pred, "--measures", "cer,wer")[0]) == ["cer", "wer"]
    found, left_out = measures_of(capsys, gold, pred, "--measures", " fca, cer ,fca")
    assert found == {"fca": pytest.approx(1 - 3 / 55), "cer": found["cer"]} and left_out == {}


def test_a_measure_that_does_not_exist_is_refused_with_the_closest_one(tmp_path, capsys):
    gold, pred = folders(tmp_path, {"p1": (GOLD, ACROSS)})
    code, out, err = call(capsys, "evaluate", gold, pred, "--measures", "cer,fac")
    assert (code, out) == (2, "")
    assert "--measures must be one of cer, wer, fca, bow, got 'fac'; did you mean fca?" in err
    code, _, err = call(capsys, "evaluate", gold, pred, "--measures", " , ")
    assert code == 2 and "--measures needs at least one of cer, wer, fca, bow, separated by commas" in err


def test_by_default_fca_leaves_out_the_pages_over_the_limit_and_says_so(tmp_path, capsys):
    at_limit = "\n".join([LINE] * (FCA_MAX_CHARS // 100)) + "x"  # 200 lines of 99 characters and their breaks
    assert len(at_limit) == FCA_MAX_CHARS
    over = at_limit + "y"
    pages = {"big1": (over, over), "big2": (over, over[:-1]), "edge": (at_limit, at_limit), "small": (GOLD, ACROSS)}
    gold, pred = folders(tmp_path, pages)
    found, left_out = measures_of(capsys, gold, pred)
    for name in ("big1", "big2"):  # the pages FCA covers, alone: their CER is the one FCA is set against
        (gold / f"{name}.txt").rename(tmp_path / f"{name}.gt")
        (pred / f"{name}.txt").rename(tmp_path / f"{name}.pred")
    covered = evaluate_files(gold, pred).aggregate
    for name in ("big1", "big2"):
        (tmp_path / f"{name}.gt").rename(gold / f"{name}.txt")
        (tmp_path / f"{name}.pred").rename(pred / f"{name}.txt")
    assert left_out == {"fca": {"ids": ["big1", "big2"], "max_chars": FCA_MAX_CHARS, "cer": covered}}
    assert found["fca"] == pytest.approx(1 - 3 / (55 + chars(at_limit)))  # summed over the pages it covers
    _, out, _ = call(capsys, "evaluate", gold, pred)
    assert "note: FCA not computed for 2 pages over 20,000 characters; --measures cer,wer,fca computes it." in out
    found, left_out = measures_of(capsys, gold, pred, "--measures", "cer,wer,fca")  # asked for: on every page
    assert left_out == {} and found["fca"] == pytest.approx(1 - (3 + 1) / (55 + chars(at_limit) + 2 * chars(over)))
    direct = evaluate_files(gold, pred, fca_max_chars=None).detail
    assert direct["measures"]["fca"] == found["fca"] and direct["measures_left_out"] == {}


def test_the_reading_order_warning_is_printed_in_the_terminal(tmp_path, capsys):
    gold, pred = folders(tmp_path, {"p1": (GOLD, ACROSS)})
    code, out, _ = call(capsys, "evaluate", gold, pred)
    warnings = [line for line in out.splitlines() if line.startswith("warning: ")]
    assert code == 0 and len(warnings) == 1
    assert warnings[0].startswith("warning: The reading orders of gold and prediction probably differ: CER is ")
    assert "flexible character accuracy, which matches lines in any order, is 94.55%" in warnings[0]
    code, out, _ = call(capsys, "evaluate", gold, gold)  # the same order: no warning
    assert "warning:" not in out
    code, out, _ = call(capsys, "evaluate", gold, pred, "--measures", "cer,wer")  # no FCA, nothing to warn with
    assert "warning:" not in out


def test_a_workspace_ranking_takes_measures_too(real_data, capsys):
    workspace = real_data / "ocrd-assets" / "kant_aufklaerung_1784-complex"
    argv = ["evaluate", workspace, "--gold-group", "OCR-D-GT-PAGE", "--pred-group", "OCR-D-OCR-TESS-*", "--json", "-"]
    code, out, err = call(capsys, *argv, "--measures", "cer,fca")
    assert code == 0, err
    groups = json.loads(out)["groups"]
    assert len(groups) == 5 and all(list(g["measures"]) == ["cer", "fca"] for g in groups.values())


def test_the_page_names_the_pages_fca_left_out(tmp_path, capsys):
    big = "\n".join([LINE] * (FCA_MAX_CHARS // 100 + 1))
    gold, pred = folders(tmp_path, {"big": (big, big), "small": (GOLD, ACROSS)})
    code, _, err = call(capsys, "evaluate", gold, pred, "--html", tmp_path / "page.html")
    page = (tmp_path / "page.html").read_text(encoding="utf-8")
    assert code == 0, err
    assert 'id="measures-left-out">FCA not computed for 1 page over 20,000 characters; --measures cer,wer,fca' in page
    # FCA, on the small page only, is set against that page's CER (41.67%), not the corpus's (0.11%)
    assert 'id="reading-order-note">The reading orders of gold and prediction probably differ: CER is 41.67%' in page
