"""``ek estimate`` and ``ek audit-plan`` on the bundled demo corpus: tables, JSON, page, plan files, exit codes."""

from __future__ import annotations

import importlib.util
import json
import pathlib
import re

import pytest

import ek
from ek.__main__ import main

pytest.importorskip("numpy")


def _html_harness():
    """tests/test_html.py loaded as a module: its Chromium fixture and page helpers (tests is no package)."""
    spec = importlib.util.spec_from_file_location("ek_html_harness", pathlib.Path(__file__).with_name("test_html.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


HARNESS = _html_harness()
browser = HARNESS.browser  # the fixture: headless Chromium, console and network logs on

DATA = pathlib.Path(ek.__file__).parent / "data"
ENGINE_A, ENGINE_B = str(DATA / "demo_ocr.jsonl"), str(DATA / "demo_ocr_b.jsonl")
# PRED is engine B; engine A's output (with the corpus's slices) stands in for gold; the demo file's gold is the audit.
STAND_IN = ["--proxy", ENGINE_A, "--proxy-field", "prediction"]


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_audit_plan_writes_the_items_to_label(tmp_path, capsys):
    out = tmp_path / "sample.jsonl"
    code, text, _ = run(
        capsys,
        "audit-plan",
        ENGINE_B,
        *STAND_IN,
        "--budget",
        "30",
        "--strategy",
        "stratified",
        "--seed",
        "1",
        "--out",
        str(out),
    )
    assert code == 0 and "stratified plan over N=80 items, budget 30" in text
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    b = {json.loads(line)["id"]: json.loads(line)["prediction"] for line in open(ENGINE_B, encoding="utf-8")}
    assert rows and all(set(r) == {"id", "probability", "slice", "text"} for r in rows)
    assert all(r["text"] == b[r["id"]] and 0 < r["probability"] <= 1 for r in rows)
    assert {r["slice"] for r in rows} == {"clean_print", "degraded_scan"}
    again = tmp_path / "again.jsonl"
    run(
        capsys,
        "audit-plan",
        ENGINE_B,
        *STAND_IN,
        "--budget",
        "30",
        "--strategy",
        "stratified",
        "--seed",
        "1",
        "--out",
        str(again),
    )
    assert again.read_text() == out.read_text()


def test_estimate_prints_json_and_draws_the_page(tmp_path, capsys):
    plan = tmp_path / "sample.jsonl"
    run(capsys, "audit-plan", ENGINE_B, *STAND_IN, "--budget", "40", "--seed", "2", "--out", str(plan))
    report, page = tmp_path / "estimate.json", tmp_path / "estimate.html"
    code, text, _ = run(
        capsys,
        "estimate",
        ENGINE_B,
        *STAND_IN,
        "--audit",
        ENGINE_A,
        "--plan",
        str(plan),
        "--json",
        str(report),
        "--html",
        str(page),
    )
    assert code == 0
    data = json.loads(report.read_text())
    drawn = [json.loads(line)["id"] for line in plan.read_text().splitlines()]
    assert data["N"] == 80 and data["n"] == len(drawn) and data["metric"] == "cer"
    assert set(data["per_slice"]) == {"clean_print", "degraded_scan"}
    assert data["settings"]["left_out_of_plan"] == 80 - len(drawn)
    for word in (
        "ek estimate: cer (lower is better) on N=80 items",
        "classical (audit only)",
        "plug-in",
        "effective n",
        "clean_print",
        "degraded_scan",
        "left out",
    ):
        assert word in text, word
    python = _python_estimate(drawn, json.loads(plan.read_text().splitlines()[0])["probability"])
    assert data["estimate"] == pytest.approx(python.estimate, abs=1e-12)
    assert data["interval"] == pytest.approx(list(python.interval), abs=1e-12)
    html = page.read_text()
    assert f'id="headline-value" data-value="{data["estimate"]!r}"' in html
    assert "audit alone" in html and "plug-in" in html and 'id="slice-chart"' in html


def _python_estimate(drawn, probability):
    rows = {json.loads(line)["id"]: json.loads(line) for line in open(ENGINE_A, encoding="utf-8")}
    b = {json.loads(line)["id"]: json.loads(line)["prediction"] for line in open(ENGINE_B, encoding="utf-8")}
    ids = list(rows)
    proxy = ek.agreement_proxy(
        [b[i] for i in ids],
        [rows[i]["prediction"] for i in ids],
        metric="cer",
        ids=ids,
        slices=[rows[i]["slice"] for i in ids],
    )
    audit = ek.evaluate([(b[i], rows[i]["gold"], rows[i]["slice"]) for i in drawn], metric="cer", ids=drawn)
    return ek.estimate_corpus(proxy, audit, plan=ek.AuditPlan(tuple(drawn), (probability,) * len(drawn)))


def test_estimate_without_a_plan_takes_the_audit_as_a_uniform_sample(tmp_path, capsys):
    lines = open(ENGINE_A, encoding="utf-8").read().splitlines()
    audit = tmp_path / "audit.jsonl"
    audit.write_text("\n".join(lines[::2]) + "\n")
    code, text, _ = run(
        capsys,
        "estimate",
        ENGINE_B,
        *STAND_IN,
        "--audit",
        str(audit),
        "--json",
        "-",
        "--interval",
        "bootstrap",
        "--lam",
        "0.5",
    )
    data = json.loads(text)
    assert code == 0 and data["n"] == 40 and data["lam"] == 0.5 and "uniform audit" in data["detail"]["design"]
    assert data["interval"][0] < data["estimate"] < data["interval"][1]


@pytest.mark.parametrize(
    "line, pattern",
    [
        ('{"id": "clean_print-000", "probability": 0}', "inclusion probability 0 .*must be in \\(0, 1\\]"),
        ('{"id": "clean_print-000", "probability": 1.5}', "must be in \\(0, 1\\]"),
        ('{"id": "clean_print-000"}', "not a JSON object with 'id' and 'probability'"),
        ('{"id": "clean_print-000", "probability": NaN}', "plan.jsonl: .*probability nan .*must be in \\(0, 1\\]"),
        ('{"id": "clean_print-000", "probability": -0.5}', "plan.jsonl: .*probability -0.5 .*must be in \\(0, 1\\]"),
        (
            '{"id": "clean_print-000", "probability": 0.5}\n{"id": "clean_print-000", "probability": 0.5}',
            "plan.jsonl: AuditPlan holds id 'clean_print-000' twice",
        ),
    ],
)
def test_bad_plan_files_exit_2(tmp_path, capsys, line, pattern):
    plan = tmp_path / "plan.jsonl"
    plan.write_text(line + "\n")
    code, _, err = run(capsys, "estimate", ENGINE_B, *STAND_IN, "--audit", ENGINE_A, "--plan", str(plan))
    assert code == 2
    assert re.search(pattern, err), err


def test_bad_input_exits_2_with_the_fix(tmp_path, capsys):
    stranger = tmp_path / "gold.jsonl"
    stranger.write_text('{"id": "nobody", "gold": "x"}\n{"id": "clean_print-001", "gold": "y"}\n')
    code, _, err = run(capsys, "estimate", ENGINE_B, *STAND_IN, "--audit", str(stranger))
    assert code == 2 and "not in the corpus" in err and "'nobody'" in err
    strangers = tmp_path / "strangers.jsonl"
    strangers.write_text("".join(f'{{"id": "n{k}", "gold": "x"}}\n' for k in range(5)) + stranger.read_text())
    code, _, err = run(capsys, "estimate", ENGINE_B, *STAND_IN, "--audit", str(strangers))
    assert (
        code == 2
        and "6 of the 7 audited ids are not in the corpus (the proxy's 80 ids) ('n0', 'n1', 'n2', ...)" in err
        and "audit items of the corpus only" in err
    )
    one = tmp_path / "one.jsonl"
    one.write_text(open(ENGINE_A, encoding="utf-8").readline())
    code, _, err = run(capsys, "estimate", ENGINE_B, *STAND_IN, "--audit", str(one))
    assert code == 2 and "needs at least 2 audited items for an interval, got 1; audit more items" in err
    code, _, err = run(capsys, "audit-plan", ENGINE_B, *STAND_IN, "--budget", "81")
    assert code == 2 and "larger than the corpus (80 items)" in err
    code, _, err = run(capsys, "estimate", ENGINE_B, *STAND_IN, "--audit", ENGINE_A, "--lam", "best")
    assert code == 2 and "--lam must be 'tune' or a number" in err
    short = tmp_path / "short.jsonl"
    short.write_text("\n".join(open(ENGINE_A, encoding="utf-8").read().splitlines()[:10]) + "\n")
    code, _, err = run(
        capsys, "estimate", ENGINE_B, "--proxy", str(short), "--proxy-field", "prediction", "--audit", ENGINE_A
    )
    assert code == 2 and "PRED has 70 items without a stand-in" in err


def test_a_slice_with_one_audited_item_is_printed_without_an_interval_and_why(tmp_path, capsys):
    lines = open(ENGINE_A, encoding="utf-8").read().splitlines()
    clean = [x for x in lines if '"clean_print"' in x][:1]
    audit = tmp_path / "audit.jsonl"
    audit.write_text("\n".join(clean + [x for x in lines if '"degraded_scan"' in x][:20]) + "\n")
    code, text, _ = run(capsys, "estimate", ENGINE_B, *STAND_IN, "--audit", str(audit))
    assert code == 0
    assert "note (clean_print): 1 audited item in this slice: an interval needs at least 2" in text
    why = "1 audited item, fewer than 10: too few for the interval to cover at its level; audit at least 10"
    assert f"not reliable (clean_print): {why}" in text
    assert "not reliable (all)" not in text
    row = next(x for x in text.splitlines() if x.startswith("clean_print"))
    assert row.split()[1:3] == ["40", "1"] and "[" not in row  # N, n, and no interval drawn
    out = tmp_path / "estimate.json"
    code, _, _ = run(capsys, "estimate", ENGINE_B, *STAND_IN, "--audit", str(audit), "--json", str(out))
    data = json.loads(out.read_text())
    assert code == 0 and data["per_slice"]["clean_print"]["reliable"] is False
    assert data["per_slice"]["clean_print"]["why"] == why
    assert data["detail"]["reliable"] is True and data["detail"]["why"] is None


def test_the_estimate_page_in_chromium_shows_the_json_figures(tmp_path, capsys, browser):
    from selenium.webdriver.common.by import By

    lines = open(ENGINE_A, encoding="utf-8").read().splitlines()
    audit, report, page = tmp_path / "audit.jsonl", tmp_path / "estimate.json", tmp_path / "estimate.html"
    audit.write_text("\n".join(lines[::2]) + "\n")
    code, _, _ = run(
        capsys, "estimate", ENGINE_B, *STAND_IN, "--audit", str(audit), "--json", str(report), "--html", str(page)
    )
    assert code == 0
    data = json.loads(report.read_text())
    url = HARNESS._open(browser, page)
    HARNESS._assert_clean_load(browser, url)  # no console error or warning, no request leaving the file

    def number(element_id, name):
        return float(browser.find_element(By.ID, element_id).get_attribute(name))

    def shown(element_id):  # the figures as printed, in the metric's units
        text = browser.find_element(By.ID, element_id).text
        return [float(x) / (100 if "%" in text else 1) for x in re.findall(r"-?\d+\.\d+", text)]

    assert number("headline-value", "data-value") == data["estimate"]
    assert number("headline-plug-in", "data-value") == data["plug_in"]
    for element_id, interval in (
        ("headline-interval", data["interval"]),
        ("headline-classical", data["classical"]["interval"]),
    ):
        assert [number(element_id, "data-low"), number(element_id, "data-high")] == interval
        assert shown(element_id) == pytest.approx(interval, abs=5e-5)  # printed to two decimals of a percent
    assert shown("headline-value") == pytest.approx([data["estimate"]], abs=5e-5)
    assert shown("headline-plug-in") == pytest.approx([data["plug_in"]], abs=5e-5)

    marks = browser.execute_script("""
        var chart = document.getElementById('estimate-chart');
        return [Array.from(chart.querySelectorAll('line.whisker')).map(function (m) {
                  var r = m.getBoundingClientRect(); return [r.left, r.width]; }),
                Array.from(chart.querySelectorAll('circle.dot')).map(function (m) {
                  var r = m.getBoundingClientRect(); return r.left + r.width / 2; })];""")
    (est_left, est_width), (cls_left, cls_width) = marks[0]
    low, high = data["interval"]
    scale = est_width / (high - low)  # pixels per unit of the metric, from the estimate's whisker
    c_low, c_high = data["classical"]["interval"]
    assert cls_width == pytest.approx(scale * (c_high - c_low), abs=1.5)
    assert cls_left - est_left == pytest.approx(scale * (c_low - low), abs=1.5)
    dots = dict(zip(("estimate", "classical", "plug_in"), marks[1]))
    assert dots["plug_in"] - dots["estimate"] == pytest.approx(scale * (data["plug_in"] - data["estimate"]), abs=1.5)
    assert dots["classical"] - dots["estimate"] == pytest.approx(
        scale * (data["classical"]["estimate"] - data["estimate"]), abs=1.5
    )

    rows = browser.execute_script("""
        return Array.from(document.querySelectorAll('#slice-table tbody tr')).map(function (r) {
          return Array.from(r.cells).map(function (c) { return c.textContent; }); });""")
    by_label = {r[0]: r for r in rows}
    assert set(by_label) == {"all", "clean_print", "degraded_scan"}
    for label, entry in [("all", data), *data["per_slice"].items()]:
        assert by_label[label][1:3] == [str(entry["N"]), str(entry["n"])], label


def _one_long_document(tmp_path):
    """60 documents, one of them 6,000 characters long and the rest 9; the first 30 audited (the long one too)."""
    words = ("total", "amount", "due", "invoice", "date")
    gold = [" ".join(words[(i + j) % 5] for j in range(1000 if i == 0 else 2)) for i in range(60)]
    paths = {name: tmp_path / f"{name}.jsonl" for name in ("pred", "proxy", "audit")}

    def garble(text, every):
        return "".join("x" if k % every == 0 else c for k, c in enumerate(text))

    paths["pred"].write_text(
        "".join(json.dumps({"id": f"d{i}", "prediction": garble(g, 11)}) + "\n" for i, g in enumerate(gold))
    )
    paths["proxy"].write_text(
        "".join(json.dumps({"id": f"d{i}", "gold": garble(g, 29)}) + "\n" for i, g in enumerate(gold))
    )
    paths["audit"].write_text("".join(json.dumps({"id": f"d{i}", "gold": g}) + "\n" for i, g in enumerate(gold[:30])))
    return paths, [len(g) for g in gold]


def test_an_audit_resting_on_one_long_document_is_flagged_with_the_concentration(tmp_path, capsys):
    """Terminal, JSON and page say "not reliable" with the numbers: who holds the length, what the audit is worth.

    The figures by hand: Kish's size of the reference lengths over the
    corpus, ``(Σw)² / Σw²``, scaled to 30 of 60 items, is below the audit's
    own; one document holds more than half the length.
    """
    paths, lengths = _one_long_document(tmp_path)
    total, squares = sum(lengths), sum(x * x for x in lengths)
    corpus_size = total**2 / squares
    worth = 30 * corpus_size / 60
    share = lengths[0] / total
    why = (
        f"1 of 60 items hold {share:.0%} of the ref_len: effective n ≈ {corpus_size:.1f} over the corpus; the 30 "
        f"audited items are worth about {worth:.1f}, fewer than 5: too few for the interval's level to be trusted"
    )
    report, page = tmp_path / "estimate.json", tmp_path / "estimate.html"
    argv = ("estimate", str(paths["pred"]), "--proxy", str(paths["proxy"]), "--audit", str(paths["audit"]))
    code, text, _ = run(capsys, *argv, "--json", str(report), "--html", str(page))
    assert code == 0
    code, text, _ = run(capsys, *argv)
    assert code == 0 and f"not reliable (all): {why}" in text
    data = json.loads(report.read_text())
    assert data["detail"]["reliable"] is False and data["detail"]["why"] == why
    assert data["detail"]["effective_size"] == pytest.approx(worth, rel=1e-9)
    assert "1 (plain PPI): the audit's effective size 0.6 is below 80" in data["detail"]["lam"]
    html = page.read_text()
    assert f'<p class="note" id="not-reliable">Not reliable: {why}</p>' in html.replace("&#x27;", "'")
