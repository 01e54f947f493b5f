"""The HTML report (ek.cli._html): rendering checks, then the pages opened in real headless Chromium.

The browser tests need Debian's ``chromium`` and ``chromium-driver`` and the ``selenium``
package; without them they skip, and fail with ``EK_TEST_ALL_EXTRAS=1`` (.ci/run's full run, which
installs them). No browser is ever downloaded: chromedriver's path is given explicitly.
"""

from __future__ import annotations

import doctest
import importlib.util
import json
import math
import os
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import ek.cli._html
from ek._align import align
from ek.cli._html import render_compare, render_evaluate, write_page
from ek.cli._html._charts import bin_counts, nice_step
from ek.cli._html._diff import render_diff

ROOT = Path(__file__).resolve().parents[1]
HOSTILE = "</script><script>alert(1)</script>"


def _load_script():
    spec = importlib.util.spec_from_file_location(
        "make_report_screenshot", ROOT / "scripts" / "make_report_screenshot.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SCRIPT = _load_script()


def _item(i, value, gold="cat", pred="cut", slice_="s"):
    return {
        "id": f"doc-{i}",
        "slice": slice_,
        "value": value,
        "gold": gold,
        "pred": pred,
        "ops": align(pred, gold, unit="char"),
        "unit": "char",
        "statistics": {"edits": 1, "ref_len": 3},
    }


def _evaluate_data(**extra):
    data = {
        "metric": "cer",
        "higher_is_better": False,
        "aggregate": 0.0312,
        "interval": [0.029, 0.034],
        "level": 0.95,
        "n": 3,
        "missing": ["m1"],
        "extra": [],
        "per_slice": {
            "a": {"aggregate": 0.05, "interval": [0.04, 0.06], "n": 2},
            "b": {"aggregate": 0.01, "interval": None, "n": 1},
        },
        "items": [_item(1, 1 / 3), _item(2, 0.0, "dog", "dog"), _item(3, 0.5, "ab", "b", "b")],
    }
    data.update(extra)
    return data


def _compare_data(**extra):
    items = [
        {"id": "up", "slice": "x", "a": 0.1, "b": 0.3, "gold": "cat", "pred_a": "cat", "pred_b": "cut", "unit": "char"},
        {
            "id": "down",
            "slice": "y",
            "a": 0.4,
            "b": 0.0,
            "delta": -0.4,
            "gold": "dog",
            "pred_a": "dig",
            "pred_b": "dog",
            "unit": "char",
        },
        {
            "id": "same",
            "slice": "y",
            "a": 0.2,
            "b": 0.2,
            "delta": 0.0,
            "gold": "x",
            "pred_a": "x",
            "pred_b": "x",
            "unit": "char",
        },
    ]
    data = {
        "metric": "cer",
        "higher_is_better": False,
        "level": 0.95,
        "n": 3,
        "a": {"name": "base", "aggregate": 0.2, "interval": [0.1, 0.3]},
        "b": {"name": "new", "aggregate": 0.1666, "interval": [0.05, 0.25]},
        "delta": -0.0334,
        "interval": [-0.09, 0.02],
        "p_value": 0.21,
        "verdict": "no detectable difference",
        "per_slice": {
            "x": {
                "a": 0.1,
                "b": 0.3,
                "delta": 0.2,
                "interval": [0.1, 0.3],
                "p_value": 0.01,
                "verdict": "worse",
                "n": 1,
            },
            "y": {
                "a": 0.3,
                "b": 0.1,
                "delta": -0.2,
                "interval": [-0.3, -0.1],
                "p_value": 0.02,
                "verdict": "better",
                "n": 2,
            },
        },
        "items": items,
    }
    data.update(extra)
    return data


def _rows(html, table_id):
    body = re.search(rf'<table class="sortable" id="{table_id}">.*?<tbody>(.*?)</tbody>', html, re.DOTALL).group(1)
    return re.findall(r"<tr>(.*?)</tr>", body, re.DOTALL)


# --- rendering, no browser ---------------------------------------------------------------


def test_headline_holds_the_exact_aggregate():
    html = render_evaluate(_evaluate_data(aggregate=0.1 + 0.2))
    assert 'id="headline-value" data-value="0.30000000000000004"' in html
    assert ">30.00%<" in html and "[2.90%, 3.40%]" in html


def test_compare_headline_holds_the_delta_and_both_sides():
    html = render_compare(_compare_data())
    assert 'id="headline-value" data-value="-0.0334"' in html
    assert 'id="headline-a" data-value="0.2"' in html and 'id="headline-b" data-value="0.1666"' in html
    assert "−3.34%" in html or "-3.34%" in html
    assert "p-value" in html and "0.210" in html


def test_substitution_deletion_and_insertion_are_marked_with_more_than_colour():
    assert align("cut", "cat", unit="char") == [("equal", "c", "c"), ("replace", "a", "u"), ("equal", "t", "t")]
    html = render_diff(align("xbcd", "abc", unit="char"), unit="char")
    assert (
        '<span class="op-sub" title="substituted: &#x27;a&#x27; → &#x27;x&#x27;"><del>a</del><ins>x</ins></span>'
        in html
    )
    assert '<ins class="op-ins" title="inserted: &#x27;d&#x27;">d</ins>' in html
    html = render_diff([["equal", "a", "a"], ["delete", " b", ""]], unit="char")
    assert '<del class="op-del" title="deleted: &#x27; b&#x27;">␣b</del>' in html
    assert "struck through" in render_evaluate(_evaluate_data())  # the legend names the marks


def test_word_diff_aligns_words():
    ops = align("the bat sat down", "the cat sat", unit="word")
    assert ops == [("equal", "the", "the"), ("replace", "cat", "bat"), ("equal", "sat", "sat"), ("insert", "", "down")]
    html = render_diff(ops, unit="word")
    assert "the <span" in html and "</span> sat <ins" in html


def test_diff_without_ops_aligns_the_texts_and_long_runs_fold():
    assert "<del>a</del><ins>u</ins>" in render_diff(None, unit="char", gold="cat", pred="cut")
    assert render_diff(None, unit=None, gold=None, pred="only") == '<span class="plain">only</span>'
    gold = "x" + "a" * 500 + "y"
    html = render_diff(align("X" + "a" * 500 + "Y", gold, unit="char"), unit="char")
    assert 'title="440 unchanged characters"' in html  # 500 minus 30 of context on each side
    assert len(html) < 600


def test_every_user_string_is_escaped():
    item = _item(1, 0.9, gold="ok", pred=HOSTILE, slice_=HOSTILE)
    item["id"] = HOSTILE
    data = _evaluate_data(
        items=[item],
        title=HOSTILE,
        metric=HOSTILE,
        missing=[HOSTILE],
        per_slice={HOSTILE: {"aggregate": 0.1, "interval": [0.0, 0.2], "n": 1}},
        fields={HOSTILE: {"precision": 1.0, "recall": 0.5, "f1": 2 / 3, "tp": 1, "fp": 0, "fn": 1}},
    )
    for html in (
        render_evaluate(data),
        render_compare(
            _compare_data(
                title=HOSTILE,
                metric=HOSTILE,
                a={"name": HOSTILE, "aggregate": 0.1},
                items=[
                    {"id": HOSTILE, "slice": HOSTILE, "a": 0.0, "b": 1.0, "gold": "x", "pred_a": "x", "pred_b": HOSTILE}
                ],
            )
        ),
    ):
        assert "alert(1)</script>" not in html and "<script>alert" not in html
        assert "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in html
        assert html.count("<script>") == 1


@given(st.text(max_size=40), st.text(max_size=40), st.text(max_size=40))
def test_no_text_can_break_out_of_its_cell(ident, label, pred):
    items = [
        {"id": ident, "slice": label, "value": 0.5, "gold": "gold text", "pred": pred},
        {"id": "b", "slice": label, "value": 0.25, "gold": pred, "pred": ident, "unit": "word"},
    ]
    html = render_evaluate(
        {
            "metric": label or "cer",
            "aggregate": 0.5,
            "items": items,
            "missing": [ident],
            "per_slice": {label: {"aggregate": 0.5, "interval": [0.4, 0.6], "n": 2}},
        }
    )
    assert html.count("<script") == 1 and html.count("</script>") == 1
    assert len(_rows(html, "items-table")) == 2 and len(_rows(html, "slice-table")) == 1


def test_docstring_example_runs():
    result = doctest.testmod(ek.cli._html)
    assert result.attempted >= 2 and result.failed == 0


def test_worst_items_follow_the_metric_direction_and_long_lists_say_so():
    items = [_item(i, i / 1000) for i in range(250)]
    html = render_evaluate(_evaluate_data(items=items), max_items=200)
    ids = re.findall(r'<td class="id">(doc-\d+)</td>', html)
    assert ids[:3] == ["doc-249", "doc-248", "doc-247"] and len(ids) == 200 and "doc-49" not in ids
    assert "showing 200 of 250 items" in html
    html = render_evaluate(_evaluate_data(items=items, higher_is_better=True, metric="anls"), max_items=10)
    assert re.findall(r'<td class="id">(doc-\d+)</td>', html)[:2] == ["doc-0", "doc-1"]
    assert "showing 10 of 250 items" in html


def test_missing_ids_are_listed_and_folded_when_long():
    html = render_evaluate(_evaluate_data(missing=[f"gone-{i}" for i in range(1500)], extra=["stray"]))
    assert 'id="headline-missing">1,500<' in html and 'id="headline-extra">1<' in html
    assert "<li>gone-999</li>" in html and "<li>gone-1000</li>" not in html
    assert "showing 1,000 of 1,500 ids" in html
    assert '<details class="idlist"><summary>1,500 missing ids' in html  # long: closed
    assert '<details class="idlist" open><summary>1 extra ids' in html  # short: open


def test_slice_table_starts_worst_first():
    html = render_evaluate(_evaluate_data())
    rows = _rows(html, "slice-table")
    assert [re.search(r"<td>(.*?)</td>", r).group(1) for r in rows] == ["a", "b"]
    assert 'data-sort="0.05" title="0.05">5.00%' in rows[0]
    assert '<th scope="col" aria-sort="descending">value</th>' in html


def test_confusions_are_counted_from_ops_when_not_given():
    items = [_item(1, 0.3, "cat", "cut"), _item(2, 0.3, "hat", "hut"), _item(3, 0.3, "ab", "b")]
    rows = _rows(render_evaluate(_evaluate_data(items=items)), "confusion-table")
    assert "substitution" in rows[0] and "<code>a</code>" in rows[0] and "<code>u</code>" in rows[0]
    assert 'data-sort="2"' in rows[0]
    assert "deletion" in rows[1] and 'data-sort="1"' in rows[1]
    given_ = [{"kind": "insertion", "gold": "", "pred": " ", "count": 7}]
    rows = _rows(render_evaluate(_evaluate_data(confusions=given_)), "confusion-table")
    assert rows == [
        (
            '<td>insertion</td><td class="note">–</td><td title="&#x27; &#x27;"><code>␣</code></td>'
            '<td class="num" data-sort="7">7</td>'
        )
    ]


def test_word_confusions_accept_list_segments():
    from ek.cli._html._diff import confusions_from_items

    ops = [
        ["equal", ["the"], ["the"]],
        ["replace", ["cat"], ["bat"]],
        ["delete", ["big", "red"], []],
        ["insert", "", "now"],
    ]
    found = confusions_from_items([{"ops": ops, "unit": "word"}, {"ops": ops[:2], "unit": "word"}])
    assert found == [
        {"kind": "substitution", "gold": "cat", "pred": "bat", "count": 2},
        {"kind": "deletion", "gold": "big", "pred": "", "count": 1},
        {"kind": "deletion", "gold": "red", "pred": "", "count": 1},
        {"kind": "insertion", "gold": "", "pred": "now", "count": 1},
    ]


def test_field_table_lists_the_worst_fields_first():
    fields = {
        "total": {"precision": 0.5, "recall": 0.25, "f1": 1 / 3, "tp": 1, "fp": 1, "fn": 3},
        "city": {"precision": 1.0, "recall": 1.0, "f1": 1.0, "tp": 4, "fp": 0, "fn": 0},
    }
    html = render_evaluate(_evaluate_data(metric="fields", fields=fields))
    rows = _rows(html, "field-table")
    assert rows[0].startswith("<td>total</td>") and "33.33%" in rows[0] and rows[1].startswith("<td>city</td>")
    assert 'id="field-chart"' in html


def test_compare_sorts_items_into_worse_and_better_by_direction():
    html = render_compare(_compare_data())
    worse, better = _rows(html, "worse-table"), _rows(html, "better-table")
    assert len(worse) == 1 and "up" in worse[0] and "+20.00%" in worse[0]
    assert len(better) == 1 and "down" in better[0] and "<del>o</del><ins>i</ins>" in better[0]
    flipped = render_compare(_compare_data(higher_is_better=True, metric="anls"))
    assert "up" in _rows(flipped, "better-table")[0]
    assert "1 items changed" not in html and "2 items changed; 1 have the same value" in html


def test_pages_render_with_only_the_required_keys():
    html = render_evaluate(
        {
            "metric": "cer",
            "aggregate": 0.5,
            "interval": None,
            "per_slice": None,
            "items": None,
            "missing": None,
            "confusions": None,
            "fields": None,
        }
    )
    assert 'data-value="0.5"' in html and "<svg" not in html
    html = render_compare({"metric": "wer", "a": {}, "b": {}, "delta": 0.0})
    assert 'data-value="0.0"' in html


def test_bad_data_is_refused_with_a_clear_message():
    with pytest.raises(TypeError, match=r"render_evaluate\(\) takes a dict of report data, got list"):
        render_evaluate([])
    with pytest.raises(ValueError, match=r"render_evaluate\(\) data has no 'aggregate'"):
        render_evaluate({"metric": "cer"})
    with pytest.raises(ValueError, match=r"render_compare\(\) data has no 'delta'"):
        render_compare({"metric": "cer", "a": {}, "b": {}})
    with pytest.raises(TypeError, match=r"data\['items'\]\[1\] is a str, not a dict"):
        render_evaluate({"metric": "cer", "aggregate": 0.1, "items": [{"id": "a"}, "b"]})


def test_page_loads_nothing_from_outside():
    html = render_evaluate(SCRIPT.demo_evaluate_data())
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//|data:)""", html, re.IGNORECASE)
    assert "@import" not in html and "url(" not in html
    assert "default-src &#x27;none&#x27;" in html  # the Content-Security-Policy forbids fetches


def test_ten_thousand_items_stay_far_under_five_megabytes():
    items = [
        _item(
            i,
            (i % 97) / 97,
            gold="the quick brown fox jumps over the lazy dog " * 2,
            pred="the quick brwn fox jumped over teh lazy dog " * 2,
        )
        for i in range(10_000)
    ]
    assert len(render_evaluate(_evaluate_data(items=items)).encode("utf-8")) < 5_000_000


def test_write_page_creates_folders(tmp_path):
    path = write_page(tmp_path / "a" / "b" / "report.html", "<p>é</p>")
    assert path.read_bytes() == "<p>é</p>".encode()


def test_nice_steps():
    assert [nice_step(s, 5) for s in (1.0, 0.07, 300, 0.0)] == [0.2, 0.02, 100, 1.0]


@given(st.lists(st.one_of(st.floats(-5, 5), st.just(float("nan"))), max_size=200))
def test_histogram_bins_hold_every_finite_value_once(values):
    start, width, counts = bin_counts(values)
    finite = [v for v in values if math.isfinite(v)]
    assert sum(counts) == len(finite)
    for v in finite:
        assert start - 1e-9 <= v <= start + width * len(counts) + 1e-9


# --- in the browser -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    reason = None
    try:
        import selenium  # noqa: F401
    except ImportError:
        reason = "selenium is not installed (pip install -e '.[test]')"
    if reason is None and SCRIPT.chromium_paths() is None:
        reason = "chromium / chromedriver are not installed (apt-get install -y chromium chromium-driver)"
    if reason:
        if os.environ.get("EK_TEST_ALL_EXTRAS"):  # .ci/run's full run: nothing may skip (tests/conftest.py)
            pytest.fail(f"EK_TEST_ALL_EXTRAS is set, yet {reason}")
        pytest.skip(reason)
    driver = SCRIPT.open_chromium(str(tmp_path_factory.mktemp("chromium-profile")), logs=True)
    yield driver
    driver.quit()


def _open(driver, path):
    driver.get_log("performance"), driver.get_log("browser")  # drain what came before this page
    driver.get(path.as_uri())
    driver.execute_script("return document.readyState")
    return path.as_uri()


def _assert_clean_load(driver, url):
    errors = [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
    assert errors == []
    requests = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            requests.append((message["params"].get("documentURL", ""), message["params"]["request"]["url"]))
    assert (url, url) in requests
    assert [r for r in requests if r[0] == url and not r[1].startswith("file://")] == []
    assert [r for r in requests if re.match(r"(https?|wss?|ftp)://", r[1])] == []


def _assert_charts_have_marks(driver, expected):
    charts = driver.execute_script("""
        return Array.from(document.querySelectorAll('svg.chart')).map(function (svg) {
          return [svg.id, Array.from(svg.querySelectorAll('.mark')).filter(function (m) {
            var r = m.getBoundingClientRect(); return r.width > 0 || r.height > 0; }).length];
        });""")
    assert sorted(c[0] for c in charts) == sorted(expected)
    assert all(count > 0 for _, count in charts), charts


def _column(driver, table_id, col):
    return driver.execute_script(
        "var col = arguments[1], t = document.getElementById(arguments[0]);"
        "return Array.from(t.tBodies[t.tBodies.length - 1].rows)"  # the sorted body, under a pinned "all" row
        ".map(function (r) { return r.cells[col].textContent; });",
        table_id,
        col,
    )


def _click_header(driver, table_id, col):
    driver.execute_script(
        "document.getElementById(arguments[0]).tHead.rows[0].cells[arguments[1]].click();", table_id, col
    )


def _screenshot(driver, tmp_path, name):
    shot = tmp_path / name
    assert driver.save_screenshot(str(shot)) and shot.stat().st_size > 10_000
    if os.environ.get("EK_TEST_ARTIFACTS"):
        target = Path(os.environ["EK_TEST_ARTIFACTS"])
        target.mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, target / name)


def _browser_evaluate_data():
    data = SCRIPT.demo_evaluate_data()
    data["items"].append(_item("known-sub", 0.99, gold="cat", pred="cut", slice_="clean_print"))
    hostile = _item("hostile", 0.98, gold="ok", pred=HOSTILE, slice_="clean_print")
    hostile["id"] = "hostile-" + HOSTILE
    data["items"].append(hostile)
    data["missing"] = ["lost-1", "lost-2"]
    data["fields"] = {"total": {"precision": 0.5, "recall": 0.5, "f1": 0.5, "tp": 1, "fp": 1, "fn": 1}}
    return data


def test_evaluate_page_in_chromium(browser, tmp_path):
    from selenium.common.exceptions import NoAlertPresentException
    from selenium.webdriver.common.by import By

    data = _browser_evaluate_data()
    url = _open(browser, write_page(tmp_path / "evaluate.html", render_evaluate(data)))
    _assert_clean_load(browser, url)
    shown = browser.find_element(By.ID, "headline-value")
    assert float(shown.get_attribute("data-value")) == data["aggregate"]
    assert shown.text == f"{data['aggregate'] * 100:.2f}%"
    _assert_charts_have_marks(browser, ["slice-chart", "value-histogram", "field-chart"])

    assert _column(browser, "slice-table", 0) == ["degraded_scan", "clean_print"]  # worst first
    _click_header(browser, "slice-table", 0)
    assert _column(browser, "slice-table", 0) == ["clean_print", "degraded_scan"]
    _click_header(browser, "slice-table", 0)
    assert _column(browser, "slice-table", 0) == ["degraded_scan", "clean_print"]
    _click_header(browser, "items-table", 2)
    values = [float(v.rstrip("%")) for v in _column(browser, "items-table", 2)]
    assert values == sorted(values) and values[0] < values[-1]

    row = browser.find_element(By.XPATH, "//tr[td[text()='doc-known-sub']]")
    sub = row.find_element(By.CSS_SELECTOR, ".op-sub")
    assert (sub.find_element(By.TAG_NAME, "del").text, sub.find_element(By.TAG_NAME, "ins").text) == ("a", "u")
    assert "line-through" in browser.execute_script(
        "return getComputedStyle(arguments[0]).textDecorationLine;", sub.find_element(By.TAG_NAME, "del")
    )
    hostile = browser.find_element(By.XPATH, "//tr[td[starts-with(text(), 'hostile-')]]")
    assert HOSTILE in hostile.text.replace("\n", "")
    with pytest.raises(NoAlertPresentException):
        browser.switch_to.alert.text
    _screenshot(browser, tmp_path, "evaluate-report.png")


def test_compare_page_in_chromium(browser, tmp_path):
    from selenium.webdriver.common.by import By

    data = _compare_data()
    url = _open(browser, write_page(tmp_path / "compare.html", render_compare(data)))
    _assert_clean_load(browser, url)
    assert float(browser.find_element(By.ID, "headline-value").get_attribute("data-value")) == data["delta"]
    assert "no detectable difference" in browser.find_element(By.ID, "headline-verdict").text
    _assert_charts_have_marks(browser, ["slice-chart", "delta-histogram"])
    _click_header(browser, "slice-table", 4)
    assert _column(browser, "slice-table", 0) == ["y", "x"]
    _click_header(browser, "slice-table", 4)
    assert _column(browser, "slice-table", 0) == ["x", "y"]
    filter_box = browser.find_element(By.CSS_SELECTOR, "input.filter[data-table='worse-table']")
    filter_box.send_keys("nothing-like-this")
    assert browser.execute_script(
        "return Array.from(document.getElementById('worse-table').tBodies[0].rows).every(r => r.hidden);"
    )
    _screenshot(browser, tmp_path, "compare-report.png")


ARTIFACTS = ROOT / "tests" / "artifacts"  # ignored by git (its own .gitignore); CI keeps it


def _historical_data():
    """A page of early modern and medieval text: long s, ligatures, combining e, MUFI letters, bidi in an id."""
    gold = (
        "Der Fluſz iſt ſchoͤn — m̃ uͤber die  Bruͤcke; ﬁnis . "
        + "Unveraͤndert bleibt dieſer lange Satz der Vorlage. " * 3
        + "Ende"
    )
    pred = (
        "Der Fluss ist schön — m über die q Brucke; finis . "
        + "Unveraͤndert bleibt dieſer lange Satz der Vorlage. " * 3
        + "Ende\u00ad"
    )
    items = [
        {
            "id": "seite\u202e-7",
            "slice": "fraktur\u2066",
            "value": 0.31,
            "gold": gold,
            "pred": pred,
            "ops": align(pred, gold, unit="char"),
            "unit": "char",
            "statistics": {"edits": 25, "ref_len": 190},
        },
        {
            "id": "seite-8",
            "slice": "fraktur\u2066",
            "value": 0.2,
            "gold": "\u0364lt uͤ",
            "pred": "alt u",
            "unit": "char",
        },
    ]
    return {
        "metric": "cer",
        "aggregate": 0.3,
        "interval": [0.2, 0.4],
        "level": 0.95,
        "n": 2,
        "noun": "documents",
        "per_slice": {"fraktur\u2066": {"aggregate": 0.3, "interval": [0.2, 0.4], "n": 2}},
        "measures": {"cer": 0.3, "wer": 0.5, "fca": 0.95, "bow": 0.1},
        "confusions": [
            {"kind": "substitution", "gold": "ſ", "pred": "s", "count": 3},
            {"kind": "deletion", "gold": "\u0364", "pred": "", "count": 2},
            {"kind": "substitution", "gold": "\ue8bf", "pred": "q", "count": 1},
        ],
        "inputs": {"gold": "/corpus/gt\u202e", "pred": "/corpus/ocr"},
        "settings": {
            "metric": "cer",
            "normalize": "nfc",
            "text_level": "line",
            "profile": None,
            "words": "whitespace",
            "segment": "codepoint",
            "level": 0.95,
        },
        "ek_version": "0.1.0",
        "date": "2026-12-01T10:15:00Z",
        "skipped": [{"path": "/corpus/ocr/README\u2067.md", "reason": "not a document"}],
        "items": items,
    }


def test_historical_text_in_chromium(browser, tmp_path):
    """Code-point boxes are drawn, a letter with its combining mark is one unit, no raw bidi control is in the DOM."""
    url = _open(browser, write_page(tmp_path / "historical.html", render_evaluate(_historical_data())))
    _assert_clean_load(browser, url)
    boxes = browser.execute_script("""
        return Array.from(document.querySelectorAll('.cp')).map(function (b) {
          var r = b.getBoundingClientRect(); return [b.textContent, r.width, r.height, b.title]; });""")
    shown = {text for text, width, height, _ in boxes if width > 10 and height > 5}
    assert {"U+F50E", "U+E8BF", "U+202E", "U+2066", "U+2067", "U+0364", "U+00AD"} <= shown
    assert ["U+0364", "COMBINING LATIN SMALL LETTER E, with no letter to sit on"] in [
        [t, title.split(" ", 1)[1]] for t, _, _, title in boxes
    ]
    pairs = browser.execute_script("""
        return Array.from(document.querySelectorAll('#items-table .op-sub')).map(function (s) {
          return [s.querySelector('del').textContent, s.querySelector('ins').textContent]; });""")
    assert ["m\u0303", "m"] in pairs and ["u\u0364", "u"] in pairs and ["ſz", "ss"] in pairs
    assert ["o\u0364", "ö"] in pairs  # the letter and its combining e changed together
    text = browser.execute_script("return document.documentElement.outerHTML;")
    assert not set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f") & set(text)
    assert "ſ" in text and "ﬁ" in text and "—" in text and 'id="reading-order-note"' in text
    _screenshot(browser, tmp_path, "historical-text.png")
    ARTIFACTS.mkdir(exist_ok=True)
    shutil.copy(tmp_path / "historical-text.png", ARTIFACTS / "historical-text.png")
    print(f"screenshot of the historical-text page: {ARTIFACTS / 'historical-text.png'}")


def test_readme_screenshot_script_draws_a_png(browser, tmp_path):
    out = SCRIPT.main(tmp_path / "shot.png")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_pages_written_by_the_commands_in_chromium(browser, tmp_path):
    """``ek evaluate --html`` and ``ek compare --html``: the headline equals the ``--json`` report's."""
    from selenium.webdriver.common.by import By

    from ek.__main__ import main

    data = ROOT / "src" / "ek" / "data"
    gold, other = str(data / "demo_ocr.jsonl"), str(data / "demo_ocr_b.jsonl")
    for command, preds, charts in (
        ("evaluate", [gold], ["slice-chart", "value-histogram"]),
        ("compare", [gold, other], ["slice-chart", "delta-histogram"]),
    ):
        page, report = tmp_path / f"{command}.html", tmp_path / f"{command}.json"
        assert main([command, gold, *preds, "--html", str(page), "--json", str(report)]) == 0
        figures = json.loads(report.read_text())
        url = _open(browser, page)
        _assert_clean_load(browser, url)
        shown = float(browser.find_element(By.ID, "headline-value").get_attribute("data-value"))
        assert shown == figures["aggregate" if command == "evaluate" else "delta"]
        _assert_charts_have_marks(browser, charts)
        _screenshot(browser, tmp_path, f"{command}-command.png")


# --- percent is a declared fact of the metric, not a list of names --------------------------------------------


@pytest.mark.parametrize(
    ("metric", "expected"),
    [
        ("cer", True),
        ("cer_grapheme", True),
        ("wer_unicode", True),
        ("fca", True),
        ("fields", True),
        ("span_f1_exact", True),
        ("typed_graph", False),
        ("my_function", False),
        ("", False),
    ],
)
def test_the_page_shows_percentages_as_the_registered_metric_declares(metric, expected):
    from ek.cli._html._format import uses_percent

    assert uses_percent({"metric": metric}) is expected
    assert uses_percent({"metric": metric, "percent": not expected}) is (not expected)  # the data decides first


def test_a_user_metric_that_declares_percent_is_shown_as_one(monkeypatch):
    from dataclasses import dataclass

    from ek import registry
    from ek.metrics import SummedStatistics

    @dataclass(frozen=True)
    class ShareMetric(SummedStatistics):
        name = "share"
        higher_is_better = True
        statistics = ("hits", "n")
        percent = True

        def __call__(self, pred, gold, *, grammar=None):
            return ek_score(float(pred == gold), {"hits": int(pred == gold), "n": 1})

        def compute(self, totals):
            return totals["hits"] / totals["n"]

    monkeypatch.setitem(registry._registry.setdefault("metrics", {}), "share", ShareMetric())
    html = render_evaluate({"metric": "share", "aggregate": 0.25, "items": []})
    assert "25.00%" in html
    monkeypatch.setitem(
        registry._registry["metrics"],
        "share",
        dataclass(frozen=True)(type("PlainShare", (ShareMetric,), {"percent": False}))(),
    )
    assert "25.00%" not in render_evaluate({"metric": "share", "aggregate": 0.25, "items": []})


def ek_score(value, detail):
    from ek.base import Score

    return Score(value, metric="share", detail=detail)
