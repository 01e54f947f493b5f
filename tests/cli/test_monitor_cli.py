"""``ek monitor``: append windows and late audits, the table, JSON and page, exit codes, every bad input."""

from __future__ import annotations

import importlib.util
import json
import pathlib

import pytest

np = pytest.importorskip("numpy")

from ek.__main__ import main  # noqa: E402
from ek.qe import CostSensitiveGate, PlattCalibrator  # noqa: E402
from ek.qe.monitor import Monitor  # noqa: E402


def _html_harness():
    """tests/test_html.py loaded as a module: its Chromium fixture and page helpers (tests is no package)."""
    path = pathlib.Path(__file__).resolve().parents[1] / "test_html.py"
    spec = importlib.util.spec_from_file_location("ek_html_harness_monitor", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


HARNESS = _html_harness()
browser = HARNESS.browser

CAL = PlattCalibrator(a=8.0, b=-4.0)


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def _create(**kw):
    rng = np.random.default_rng(0)
    return Monitor(
        CAL, CostSensitiveGate(rho=9.0), calibration_signals={"conf": rng.beta(5, 2, 400)}, name="gate", **kw
    )


def _files(tmp_path, w, *, n=300, audits=60, wrong_more=0.0, seed=0):
    rng = np.random.default_rng(seed + w)
    s = rng.beta(5, 2, n)
    y = rng.random(n) < CAL(s) - wrong_more
    window, audit = tmp_path / f"w{w}.jsonl", tmp_path / f"a{w}.jsonl"
    window.write_text(
        "".join(json.dumps({"id": f"w{w}-{k}", "signals": {"conf": float(v)}}) + "\n" for k, v in enumerate(s))
    )
    audit.write_text("".join(json.dumps({"id": f"w{w}-{k}", "correct": bool(y[k])}) + "\n" for k in range(audits)))
    return str(window), str(audit)


def test_appending_windows_prints_the_table_and_writes_json_equal_to_the_stored_report(tmp_path, capsys):
    _create()
    for w in range(3):
        window, audit = _files(tmp_path, w)
        code, out, err = run(
            capsys, "monitor", "gate", "--window", window, "--audit", audit, "--time", f"2026-12-0{w + 1}"
        )
        assert (code, err) == (0, "")
    report = tmp_path / "report.json"
    code, out, _ = run(capsys, "monitor", "gate", "--report", "--json", str(report))
    assert code == 0
    data = json.loads(report.read_text())
    expected = Monitor.load("gate").report().to_dict()
    assert data == json.loads(json.dumps({**expected, "name": "gate"}))
    lines = out.splitlines()
    assert lines[0] == "ek monitor gate: 3 windows, 900 items"
    last = data["windows"][-1]
    accepted = next(x for x in lines if x.startswith("accepted"))
    assert accepted.split()[1:] == [
        f"{100 * last['shares']['accept']:.2f}%",
        f"{100 * data['cumulative']['shares']['accept']:.2f}%",
    ]
    assert any(x.startswith("promise: error rate among accepted items <= 10.00%: kept") for x in lines)
    assert any("KS p-values are per window and not valid under repeated looks" in x for x in lines)


def test_late_labels_alone_go_in_with_a_time(tmp_path, capsys):
    _create()
    window, _ = _files(tmp_path, 0, audits=0)
    assert run(capsys, "monitor", "gate", "--window", window, "--time", "1")[0] == 0
    late = tmp_path / "late.jsonl"
    late.write_text('{"id": "w0-3", "correct": false}\n{"id": "w0-4", "correct": true}\n')
    code, _, err = run(capsys, "monitor", "gate", "--audit", str(late), "--time", "2")
    assert (code, err) == (0, "")
    assert Monitor.load("gate").report().windows[0].calibration["n_audited"] == 2


def test_a_standing_alarm_exits_1_and_prints_what_to_do(tmp_path, capsys):
    _create(promise=0.02)
    codes = []
    for w in range(25):
        window, audit = _files(tmp_path, w, audits=150, wrong_more=0.2 if w >= 3 else 0.0)
        code, out, _ = run(capsys, "monitor", "gate", "--window", window, "--audit", audit, "--time", str(w))
        codes.append(code)
    assert codes[0] == 0 and codes[-1] == 1
    alarm = next(x for x in out.splitlines() if x.startswith("ALARM (risk"))
    assert "monitor.audited(last=" in alarm and "save_calibrator(cal, 'gate-v2')" in alarm  # the next version's name
    assert "window 24 " in out and "window 24.0" not in out  # --time 24 is a whole number


@pytest.mark.parametrize(
    "line, message",
    [
        (
            '{"id": "x", "signals": {"score": 0.5}}',
            "window item 'x' has signals ['score'], but the calibrator was fitted on ['conf']",
        ),
        ('{"id": "x", "signals": {"conf": NaN}}', "window item 'x' signal 'conf' is nan; a raw signal must be finite"),
        ("not json", "line 1 is not JSON"),
    ],
    ids=["signal-names", "nan", "not-json"],
)
def test_a_bad_window_exits_2_naming_the_item_and_stores_nothing(tmp_path, capsys, line, message):
    _create()
    window = tmp_path / "bad.jsonl"
    window.write_text(line + "\n")
    code, out, err = run(capsys, "monitor", "gate", "--window", str(window), "--time", "1")
    assert code == 2 and out == ""
    assert message in err
    assert Monitor.load("gate").report().cumulative["windows"] == 0


def test_other_bad_input_exits_2_with_the_fix(tmp_path, capsys):
    _create()
    window, _ = _files(tmp_path, 0)
    assert run(capsys, "monitor", "gate", "--window", window, "--time", "5")[0] == 0
    cases = [
        (["nope", "--report"], "no monitor is stored as 'nope'"),
        (["gate", "--window", window, "--time", "4"], "time 4 is not after the last update's time 5"),
        (["gate", "--report", "--window", window], "--report reads the state only"),
        (["gate"], "needs --window FILE.jsonl"),
        (["gate", "--audit", str(tmp_path / "missing.jsonl"), "--time", "6"], "cannot be read"),
    ]
    unknown = tmp_path / "unknown.jsonl"
    unknown.write_text('{"id": "ghost", "correct": true}\n')
    cases.append((["gate", "--audit", str(unknown), "--time", "6"], "audit ids ['ghost'] (1 in all) match no item"))
    for argv, message in cases:
        code, _, err = run(capsys, "monitor", *argv)
        assert code == 2, argv
        assert message in err, (argv, err)
    assert Monitor.load("gate").report().cumulative["windows"] == 1


def test_the_history_page_in_chromium_shows_the_json_figures(tmp_path, capsys, browser):
    from selenium.webdriver.common.by import By

    _create(promise=0.03)
    for w in range(12):
        window, audit = _files(tmp_path, w, audits=120, wrong_more=0.15 if w >= 4 else 0.0)
        run(capsys, "monitor", "gate", "--window", window, "--audit", audit, "--time", f"2026-12-{w + 1:02d}")
    page, report = tmp_path / "history.html", tmp_path / "history.json"
    code, _, _ = run(capsys, "monitor", "gate", "--report", "--html", str(page), "--json", str(report))
    assert code == 1  # the alarm stands
    data = json.loads(report.read_text())
    assert data["alarms"]
    url = HARNESS._open(browser, page)
    HARNESS._assert_clean_load(browser, url)  # no console error or warning, no request leaving the file

    def value(element_id):
        return float(browser.find_element(By.ID, element_id).get_attribute("data-value"))

    cum, seq = data["cumulative"], data["sequence"]
    assert value("cum-accept") == cum["shares"]["accept"]
    assert value("cum-risk") == cum["risk"]["estimate"]
    assert value("promise") == 0.03
    band = browser.find_element(By.ID, "seq-risk")
    assert [float(band.get_attribute("data-low")), float(band.get_attribute("data-high"))] == seq["risk"]
    rows = browser.execute_script("""
        return Array.from(document.querySelectorAll('#window-table tbody tr')).map(function (r) {
          var out = {index: r.getAttribute('data-window')};
          r.querySelectorAll('td[data-name]').forEach(function (c) { out[c.getAttribute('data-name')] = c.getAttribute('data-value'); });
          return out; });""")
    assert len(rows) == 12
    for row, w in zip(sorted(rows, key=lambda r: int(r["index"])), data["windows"]):
        assert float(row["accept"]) == w["shares"]["accept"]
        assert float(row["risk"]) == w["risk"]["estimate"]
        assert float(row["gap"]) == w["calibration"]["gap"]
        assert float(row["psi-conf"]) == w["drift"]["conf"]["psi"]
        assert float(row["ks-p-conf"]) == w["drift"]["conf"]["p_value"]
    marks = browser.execute_script("""
        return Array.from(document.querySelectorAll('#risk-chart line.alarm-mark, #calibration-chart line.alarm-mark'))
          .map(function (m) { return m.getAttribute('data-window'); });""")
    expected = sorted(str(w["index"]) for w in data["windows"] for _ in w["alarms"])
    assert sorted(marks) == expected
    listed = browser.find_elements(By.CSS_SELECTOR, "#alarm-list li.alarm")
    assert [x.get_attribute("data-kind") for x in listed] == [a["kind"] for a in data["alarms"]]
