"""The HTML report's tables and notes: the "all" row, p-values, small samples, provenance, reading order."""

from __future__ import annotations

import re
from html import unescape

import pytest

from ek.__main__ import main
from ek.base import Comparison
from ek.cli._commands import _format as cli_format
from ek.cli._commands._inputs import Options, bound, read_gold, read_joined, score
from ek.cli._commands._pages import compare_page, evaluate_page
from ek.cli._html import render_compare, render_evaluate
from ek.cli._html._format import fmt_p
from ek.cli._html._measures import ORDER_GAP, ORDER_RATIO, orders_differ

HOSTILE = "</script><script>alert(1)</script>"
META = {
    "inputs": {"gold": "/data/gt", "pred": "/data/ocr"},
    "settings": {
        "metric": "cer",
        "normalize": None,
        "text_level": None,
        "profile": "dinglehopper",
        "words": "unicode",
        "segment": "grapheme",
        "level": 0.9,
    },
    "text_level": {"line": 3, "region": 1},
    "ek_version": "0.1.0",
    "date": "2026-12-01T10:15:00Z",
    "errors": [{"side": "pred", "path": "/data/ocr/p2.xml", "id": "p2", "message": "malformed XML at line 1"}],
    "skipped": [{"path": "/data/ocr/notes.md", "reason": "not a document"}],
}


def _evaluate(**extra):
    data = {
        "metric": "cer",
        "higher_is_better": False,
        "aggregate": 0.25,
        "interval": [0.2, 0.3],
        "level": 0.95,
        "n": 40,
        "per_slice": {
            "print": {"aggregate": 0.1, "interval": [0.05, 0.15], "n": 30},
            "hand": {"aggregate": 0.7, "interval": [0.6, 0.8], "n": 10},
        },
    }
    data.update(extra)
    return data


def _compare(**extra):
    data = {
        "metric": "cer",
        "higher_is_better": False,
        "level": 0.95,
        "n": 40,
        "a": {"name": "old", "aggregate": 0.3, "interval": [0.25, 0.35]},
        "b": {"name": "new", "aggregate": 0.2, "interval": [0.15, 0.25]},
        "delta": -0.1,
        "interval": [-0.14, -0.06],
        "p_value": 0.0004,
        "verdict": "better",
        "per_slice": {
            "hand": {
                "a": 0.5,
                "b": 0.45,
                "delta": -0.05,
                "interval": [-0.1, 0.01],
                "p_value": 0.0421,
                "verdict": "no detectable difference",
                "n": 10,
            }
        },
    }
    data.update(extra)
    return data


def _bodies(html, table_id):
    """The ``<tbody>`` elements of one table: ``[(class, [row html, ...]), ...]``."""
    inner = re.search(rf'<table class="sortable" id="{table_id}">(.*?)</table>', html, re.DOTALL).group(1)
    return [
        (cls, re.findall(r"<tr>(.*?)</tr>", body, re.DOTALL))
        for cls, body in re.findall(r'<tbody(?: class="(\w+)")?>(.*?)</tbody>', inner, re.DOTALL)
    ]


def _cells(row):
    return [re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.DOTALL)]


# --- p-values ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "p, shown",
    [
        (0.0004, "<=0.001"),
        (0.001, "<=0.001"),
        (0.0016, "0.002"),
        (0.0421, "0.042"),
        (0.5, "0.500"),
        (1.0, "1.000"),
        (float("nan"), "-"),
        (None, "-"),
    ],
)
def test_p_values_print_as_the_command_line_prints_them(p, shown):
    assert cli_format.p_value(p) == shown and unescape(fmt_p(p)) == shown


def test_the_compare_page_uses_the_command_line_p_values():
    page = render_compare(_compare())
    assert '<span class="value" id="headline-p">&lt;=0.001</span>' in page
    assert ">0.042<" in page and "&lt; 0.001" not in page


# --- the "all" row -------------------------------------------------------------------------


def test_the_evaluate_slice_table_starts_with_the_whole_corpus():
    (first, [whole]), (rest, slices) = _bodies(render_evaluate(_evaluate()), "slice-table")
    assert first == "all" and rest == ""
    assert _cells(whole) == ["all", "40", "25.00%", "[20.00%, 30.00%]"]
    assert [_cells(r)[0] for r in slices] == ["hand", "print"]  # worst first below it
    assert _cells(slices[0]) == ["hand", "10", "70.00%", "[60.00%, 80.00%]"]


def test_the_compare_slice_table_starts_with_the_whole_comparison():
    (first, [whole]), (_, [hand]) = _bodies(render_compare(_compare()), "slice-table")
    assert first == "all"
    assert _cells(whole) == ["all", "40", "30.00%", "20.00%", "-10.00%", "[-14.00%, -6.00%]", "&lt;=0.001", "▲ better"]
    assert _cells(hand)[-2:] == ["0.042", "= no detectable difference"]


def test_sorting_moves_only_the_rows_below_the_all_row():
    html = render_evaluate(_evaluate())
    assert html.count("table.tBodies[table.tBodies.length - 1]") == 2  # sorting and filtering


# --- small samples -------------------------------------------------------------------------


def test_one_document_says_an_interval_needs_more_documents():
    data = _evaluate(
        n=1,
        noun="documents",
        interval=[0.25, 0.25],
        per_slice={"print": {"aggregate": 0.25, "interval": [0.25, 0.25], "n": 1}},
    )
    html = render_evaluate(data)
    headline = re.search(r'id="headline-interval">(.*?)</span></div>', html).group(1)
    assert re.sub(r"<[^>]+>", "", headline) == "an interval needs more documents (n=1)"
    (_, [whole]), (_, [row]) = _bodies(html, "slice-table")
    assert _cells(whole)[-1] == _cells(row)[-1] == "an interval needs more documents (n=1)"
    assert "[25.00%, 25.00%]" not in html and 'class="mark whisker"' not in html


def test_a_nan_interval_says_more_items_are_needed_whatever_n():
    nan = float("nan")
    html = render_evaluate(
        _evaluate(n=6, interval=[nan, nan], per_slice={"a": {"aggregate": 0.2, "interval": (nan, nan), "n": 3}})
    )
    assert "an interval needs more items (n=6)" in html and "an interval needs more items (n=3)" in html
    assert "nan" not in re.search("<main>(.*)</main>", html, re.DOTALL).group(1).lower()


def test_a_compare_verdict_string_is_shown_as_given():
    nan = float("nan")
    html = render_compare(
        _compare(n=3, interval=[nan, nan], p_value=0.25, verdict="too few items (n=3) to tell", per_slice={})
    )
    assert '<span class="verdict verdict-none">too few items (n=3) to tell</span>' in html
    assert "an interval needs more items (n=3)" in html


# --- provenance ----------------------------------------------------------------------------


def _provenance(html):
    pairs = re.findall(
        r"<dt>(.*?)</dt><dd>(.*?)</dd>",
        re.search(r'<dl class="meta" id="provenance">(.*?)</dl>', html, re.DOTALL).group(1),
    )
    return dict(pairs)


def test_the_page_shows_inputs_settings_version_and_date():
    three = {**META, "inputs": {"gold": "g", "pred_a": "/a", "pred_b": "/b"}}
    for html in (render_evaluate(_evaluate(**META)), render_compare(_compare(**three))):
        shown = _provenance(html)
        assert shown["metric"] == "cer" and shown["normalisation"] == "none" and shown["profile"] == "dinglehopper"
        assert shown["text level"] == "line (3 documents), region (1 document)"  # the top-level key fills in
        assert (shown["words"], shown["segment"], shown["interval level"]) == ("unicode", "grapheme", "0.9")
        assert (shown["ek version"], shown["date"]) == ("0.1.0", "2026-12-01T10:15:00Z")
        assert "Generated by ek 0.1.0 on 2026-12-01T10:15:00Z." in html
    assert [k for k in shown if k.startswith("input")] == ["input: GOLD", "input: PRED A", "input: PRED B"]
    assert (shown["input: PRED A"], shown["input: PRED B"]) == ("/a", "/b")


def test_a_page_without_provenance_has_no_such_section():
    html = render_evaluate(_evaluate())
    assert 'id="provenance"' not in html and "Generated by ek." in html


def test_failed_and_skipped_files_are_listed_in_their_own_section():
    html = render_evaluate(_evaluate(**META))
    assert re.sub(r"<[^>]+>", "", re.search(r'id="failures-note">(.*?)</p>', html).group(1)) == (
        "1 file could not be read and 1 file was skipped: these are not in the figures (see Files not scored)."
    )
    assert [_cells(r) for r in _bodies(html, "error-table")[0][1]] == [
        ["pred", "/data/ocr/p2.xml", "p2", "malformed XML at line 1"]
    ]
    assert [_cells(r) for r in _bodies(html, "skipped-table")[0][1]] == [["/data/ocr/notes.md", "not a document"]]
    many = render_compare(
        _compare(errors=[{"side": "gold", "path": f"/g/{i}", "id": str(i), "message": "bad"} for i in range(1200)])
    )
    assert len(_bodies(many, "error-table")[0][1]) == 1000 and "showing 1,000 of 1,200 failed files" in many
    assert "1,200 files could not be read:" in many


def test_provenance_and_failures_are_escaped():
    meta = {
        "inputs": {"gold": HOSTILE},
        "settings": {"metric": HOSTILE, "profile": "p\u202e"},
        "ek_version": HOSTILE,
        "date": HOSTILE,
        "errors": [{"side": HOSTILE, "path": HOSTILE, "id": HOSTILE, "message": HOSTILE}],
        "skipped": [{"path": HOSTILE, "reason": "r\u2067"}],
    }
    html = render_evaluate(_evaluate(**meta))
    assert html.count("<script>") == 1 and "alert(1)</script>" not in html
    assert "\u202e" not in html and "\u2067" not in html and ">U+202E</span>" in html


# --- reading order -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "cer, fca, differ",
    [
        (0.10, 0.95, True),  # gap 0.05 and ratio 2: both rules met exactly
        (0.0999, 0.95, False),  # gap just under 0.05
        (0.5, 0.7, False),  # gap 0.2 but ratio 1.67: badly recognised in the right order
        (0.7, 0.7, True),
        (0.03, 1.0, False),
        (0.9, 1.0, True),
        (None, 0.9, False),
        (0.5, float("nan"), False),
    ],
)
def test_the_reading_order_rule(cer, fca, differ):
    assert (ORDER_GAP, ORDER_RATIO) == (0.05, 2.0)
    assert orders_differ(cer, fca) is differ


def test_the_reading_order_note_names_the_fca_and_bag_of_words_figures():
    html = render_evaluate(_evaluate(measures={"cer": 0.6, "wer": 0.9, "fca": 0.97, "bow": 0.04}))
    note = re.search(r'id="reading-order-note">(.*?)</p>', html).group(1)
    assert "reading orders of gold and prediction probably differ" in note
    assert "CER is 60.00%" in note and "97.00%" in note and "3.00%" in note
    assert "bag-of-words error is 4.00% against a WER of 90.00%" in note
    body = re.search(r'id="measures-table">.*?<tbody>(.*?)</tbody>', html, re.DOTALL).group(1)
    rows = [_cells(r) for r in re.findall(r"<tr>(.*?)</tr>", body, re.DOTALL)]
    assert [r[:2] for r in rows] == [["cer", "60.00%"], ["wer", "90.00%"], ["fca", "97.00%"], ["bow", "4.00%"]]


def test_the_measures_show_without_a_note_when_the_figures_agree():
    html = render_evaluate(_evaluate(measures={"cer": 0.05, "wer": 0.12, "fca": 0.96, "bow": 0.1}))
    assert 'id="measures-table"' in html and 'id="reading-order-note"' not in html
    assert 'id="measures-table"' not in render_evaluate(_evaluate())


# --- from scored runs ----------------------------------------------------------------------


def _folder(tmp_path):
    """Two pages: one read across its two columns, one whose prediction is malformed XML."""
    for side, files in (
        ("gold", {"p1.txt": "left one\nleft two\nright one\nright two\n", "p2.txt": "hello world\n"}),
        (
            "pred",
            {"p1.txt": "left one right one\nleft two right two\n", "p2.xml": '<?xml version="1.0"?><PcGts><broken'},
        ),
    ):
        (tmp_path / side).mkdir()
        for name, text in files.items():
            (tmp_path / side / name).write_text(text, encoding="utf-8")
    return str(tmp_path / "gold"), str(tmp_path / "pred")


def _scored(gold, pred):
    options = Options(metric="cer", keep_going=True)  # the failed prediction is left out and listed
    scored = score(read_joined(read_gold(gold, options), pred, options), options, name="pred")
    overall, per_slice = bound(scored.report, 0.95, label="test")
    return scored, overall, per_slice, options


def test_a_document_run_carries_its_measures_and_failures_into_the_page(tmp_path):
    scored, overall, per_slice, options = _scored(*_folder(tmp_path))
    data = evaluate_page(scored, overall, per_slice, options)
    assert data["measures"] == scored.documents["measures"] and data["noun"] == "documents"
    # p1 all right in any order but the space joining each row (2 of 34 characters); p2 left out
    assert data["measures"]["fca"] == 1 - 2 / 34 and scored.report.n == 1
    assert [(e["side"], e["id"]) for e in data["errors"]] == [("pred", "p2")]
    assert "malformed XML" in data["errors"][0]["message"]
    html = render_evaluate(data)
    assert 'id="measures-table"' in html and 'id="error-table"' in html


def test_meta_is_copied_into_both_pages_and_wins(tmp_path):
    scored, overall, per_slice, options = _scored(*_folder(tmp_path))
    data = evaluate_page(scored, overall, per_slice, options, meta=META)
    assert {k: data[k] for k in META} == META
    result = Comparison(
        metric="cer", a=0.5, b=0.5, delta=0.0, interval=(0.0, 0.0), p_value=1.0, verdict="no detectable difference", n=2
    )
    data = compare_page(result, scored, scored, [overall, overall], options, meta=META)
    assert {k: data[k] for k in META} == META and data["delta"] == 0.0 and data["noun"] == "documents"
    assert evaluate_page(scored, overall, per_slice, options, meta=None)["errors"][0]["id"] == "p2"


def test_the_page_data_counts_code_points_as_cer_does_and_draws_whole_clusters(tmp_path):
    for side, text in (("gold", "Fluſz m\u0303 u\u0364ber\n"), ("pred", "Fluss m uber\n")):
        (tmp_path / side).mkdir()
        (tmp_path / side / "p1.txt").write_text(text, encoding="utf-8")
    scored, overall, per_slice, options = _scored(str(tmp_path / "gold"), str(tmp_path / "pred"))
    item = evaluate_page(scored, overall, per_slice, options)["items"][0]
    assert [tuple(op) for op in item["ops"] if op[0] != "equal"] == [
        ("replace", "ſ", "s"),
        ("replace", "z", "s"),
        ("delete", "\u0303", ""),
        ("delete", "\u0364", ""),
    ]
    assert scored.report.scores[0].detail["edits"] == 4  # counted in code points: two marks dropped, two letters
    html = render_evaluate({"metric": "cer", "aggregate": 0.3, "items": [item]})
    assert '<span class="diff" data-edits="4">' in html
    assert 'title="substituted: &#x27;m̃&#x27; → &#x27;m&#x27;"' in html  # the mark drawn on its letter
    assert 'title="substituted: &#x27;uͤ&#x27; → &#x27;u&#x27;"' in html


def test_ek_evaluate_html_shows_the_reading_order_note(tmp_path):
    gold, pred = _folder(tmp_path)
    (tmp_path / "pred" / "p2.xml").unlink()
    (tmp_path / "gold" / "p2.txt").unlink()
    page = tmp_path / "page.html"
    assert main(["evaluate", gold, pred, "--html", str(page)]) == 0
    html = page.read_text(encoding="utf-8")
    assert 'id="reading-order-note"' in html and "an interval needs more documents (n=1)" in html


def test_unicode_word_wer_counts_its_confusions_in_its_own_words(tmp_path):
    # "Hund," is the Unicode word "Hund" (the comma is no word), so the one confusion is Hund -> Hnnd
    for side, text in (("gold", "der Hund, lief."), ("pred", "der Hnnd lief")):
        (tmp_path / f"{side}.jsonl").write_text(f'{{"id": "a", "text": "{text}"}}\n', encoding="utf-8")
    options = Options(metric="wer", words="unicode")
    scored = score(
        read_joined(read_gold(str(tmp_path / "gold.jsonl"), options), str(tmp_path / "pred.jsonl"), options),
        options,
        name="pred",
    )
    overall, per_slice = bound(scored.report, 0.95, label="test")
    data = evaluate_page(scored, overall, per_slice, options)
    assert scored.report.metric == "wer_unicode" and scored.report.aggregate == pytest.approx(1 / 3)
    assert [(c["gold"], c["pred"]) for c in data["confusions"]] == [("Hund", "Hnnd")]
    assert data["items"][0]["unit"] == "word"


def test_the_diff_shows_edge_whitespace_where_the_figure_counts_it(tmp_path):
    # ek reads PAGE text without its edge whitespace; the dinglehopper profile keeps it and counts it (CER
    # with strip=False), so the page's diff must show those edits instead of trimming them away
    page = "http://schema.primaresearch.org/PAGE/gts/pagecontent/2019-07-15"
    (tmp_path / "gt.xml").write_text(
        f'<PcGts xmlns="{page}"><Page><TextRegion id="r1"><TextEquiv><Unicode>  Hello world </Unicode>'
        "</TextEquiv></TextRegion></Page></PcGts>",
        encoding="utf-8",
    )
    (tmp_path / "ocr.txt").write_text("Hello world", encoding="utf-8")
    for profile, edits in ((None, 0), ("dinglehopper", 3)):
        options = Options(profile=profile)
        gold = read_gold(str(tmp_path / "gt.xml"), options)
        scored = score(read_joined(gold, str(tmp_path / "ocr.txt"), options), options, name="pred")
        overall, per_slice = bound(scored.report, 0.95, label="test")
        ops = evaluate_page(scored, overall, per_slice, options)["items"][0]["ops"]
        assert scored.report.scores[0].detail["edits"] == edits
        shown = [tuple(op) for op in ops if op[0] != "equal"]
        assert sum(len(gold_text) for _, gold_text, _ in shown) == edits, shown
