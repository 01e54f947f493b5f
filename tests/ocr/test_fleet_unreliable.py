"""A fleet's flagged intervals are shown flagged, with the why, in its rows, its terminal table and its page.

Two engines read 60 short pages (3, 3 and 4 characters) and one of 900
characters, which holds 900 / 1,100 = 82% of the reference length: Kish's
effective size is 1,100² / (40·9 + 20·16 + 900²) ≈ 1.5.
"""

from __future__ import annotations

import ek
from ek.cli._commands._benchmark import _unreliable_lines, fleet_rows, ranking_cells
from ek.cli._html._fleet import ranking
from ek.ocr._fleet.report import build_fleet_report

WHY = "1 of 61 documents hold 82% of the reference length: effective n ≈ 1.5"
SHORT = [("ct", "cat"), ("dog", "dog"), ("bird", "bird")] * 20
IDS = [f"p{i}" for i in range(61)]


def _fleet(huge: bool = True):
    tail = [("x" * 900, "y" * 900)] if huge else [("ct", "cat")]
    good = [*SHORT, ("y" * 800 + "x" * 100, "y" * 900)] if huge else [*SHORT[::-1], ("cat", "cat")]
    runs = {
        "worse": ("fake", ek.evaluate([*SHORT, *tail], metric="cer", ids=IDS), {}),
        "better": ("fake", ek.evaluate(good, metric="cer", ids=IDS), {}),
    }
    return build_fleet_report(
        runs, None, metric="cer", level=0.95, n_items=61, unreadable={}, skipped={}, consensus_texts={}, run_id=None
    )


def test_rows_carry_the_why_of_each_interval_and_of_the_difference():
    fleet = _fleet()
    assert fleet.engines["worse"].why == WHY and fleet.engines["better"].why == WHY
    rows = {r["name"]: r for r in fleet_rows(fleet)}
    assert rows["worse"]["why"] == WHY and rows["worse"]["delta_why"] == WHY
    assert rows["better"]["delta_why"] is None  # the best engine has no difference to itself


def test_the_terminal_table_marks_them_and_says_why_once():
    rows = fleet_rows(_fleet())
    cells = ranking_cells(rows[1], rows[1]["name"])
    assert cells[3].endswith("] (unreliable)") and cells[5].endswith("] (unreliable)")
    assert _unreliable_lines(rows) == [f"unreliable intervals (better, worse, worse vs best): {WHY}"]


def test_an_even_fleet_is_not_marked():
    rows = fleet_rows(_fleet(huge=False))
    assert all(r["why"] is None and r["delta_why"] is None for r in rows) and _unreliable_lines(rows) == []
    assert "(unreliable)" not in " ".join(ranking_cells(rows[1], "x"))


def test_the_page_says_why():
    page = ranking({"ranking": fleet_rows(_fleet()), "level": 0.95, "metric": "cer"}, pct=True)
    assert page.count(f"unreliable: {WHY}") == 4  # the best's headline, both rows' intervals, one difference
