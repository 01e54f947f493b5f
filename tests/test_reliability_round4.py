"""Issue 31, items 3 to 8: joins by id, warnings on the command line, monitor inputs, standard input, messages."""

from __future__ import annotations

import dataclasses
import html
import json
import pathlib

import pytest

import ek

GOLD = ["the cat sat", "a dog ran", "birds sing", "fish swim"] * 25
PRED = [g.replace("a", "o") for g in GOLD]


def _audit(ids: object = None) -> ek.Report:
    return ek.evaluate(list(zip(PRED[::5], GOLD[::5])), metric="cer", ids=ids)  # type: ignore[arg-type]


# --- item 3: joins by id ----------------------------------------------------------------------------------


def test_an_audit_without_ids_is_refused_naming_ids() -> None:
    proxy = ek.agreement_proxy(PRED, [g.replace("i", "e") for g in GOLD], ids=range(100))
    with pytest.raises(ValueError) as caught:
        ek.estimate_corpus(proxy, _audit(), lam=1)
    assert str(caught.value) == (
        "estimate_corpus() got an audit of 20 items without ids, so its items would be joined to the corpus's "
        "by position; pass ids= to ek.evaluate for the audit (the corpus ids of the items audited)."
    )


def test_a_proxy_without_ids_is_refused_against_an_audit_of_named_ids() -> None:
    proxy = ek.agreement_proxy(PRED, GOLD)
    with pytest.raises(ValueError) as caught:
        ek.estimate_corpus(proxy, _audit([f"x{i}" for i in range(20)]))
    assert str(caught.value) == (
        "estimate_corpus() got a proxy of 100 items without ids (numbered 0 to 99) and an audit with ids such as "
        "'x0'; pass ids= to the proxy (ek.agreement_proxy, ek.confidence_proxy, ek.evaluate) so both name items "
        "alike."
    )


def test_positions_given_as_ids_join_as_ids_do() -> None:
    """The true CER of the audited items is what the audit alone reports; positions or ids, the same figure."""
    stand_in = [g.replace("i", "e") for g in GOLD]
    by_position = ek.estimate_corpus(ek.agreement_proxy(PRED, stand_in), _audit(range(0, 100, 5)), lam=1)
    by_id = ek.estimate_corpus(ek.agreement_proxy(PRED, stand_in, ids=range(100)), _audit(range(0, 100, 5)), lam=1)
    assert by_position.estimate == by_id.estimate
    whole = ek.estimate_corpus(ek.agreement_proxy(PRED, stand_in), ek.evaluate(list(zip(PRED, GOLD)), metric="cer"))
    assert whole.n == whole.N == 100


def _twice(report: ek.Report) -> ek.Report:
    return dataclasses.replace(report, detail={**report.detail, "ids": (5,) * report.n})


def test_repeated_ids_are_refused_by_estimate_compare_and_merge() -> None:
    proxy = ek.agreement_proxy(PRED, GOLD, ids=range(100))
    bad = _twice(_audit(range(0, 100, 5)))
    with pytest.raises(ValueError) as caught:
        ek.estimate_corpus(proxy, bad)
    assert str(caught.value) == (
        "estimate_corpus(): the audit holds the id 5 twice (items 0 and 1); every item needs its own id, or the "
        "audit cannot be joined to the corpus. Give each item one id."
    )
    with pytest.raises(ValueError, match=r"^compare\(\) report B ids hold 5 twice \(items 0 and 1\); every item"):
        ek.compare(_audit(range(20)), bad)
    with pytest.raises(ValueError, match=r"^merge_reports\(\) report 0 ids hold 5 twice \(items 0 and 1\)"):
        ek.merge_reports(bad)


def test_agreement_proxy_refuses_slices_of_another_count() -> None:
    with pytest.raises(ValueError) as caught:
        ek.agreement_proxy(["a", "b"], ["a", "b"], slices=["x", "y", "z"])
    assert str(caught.value) == (
        "agreement_proxy() got 2 predictions and 2 references, and 3 slices; give one of each per item, in the same "
        "order."
    )


# --- item 5: monitor inputs ---------------------------------------------------------------------------------


def _monitor(name: str | None = None) -> object:
    np = pytest.importorskip("numpy")
    from ek.qe import CostSensitiveGate, PlattCalibrator
    from ek.qe.monitor import Monitor

    rng = np.random.default_rng(3)
    calibration = {"conf": rng.beta(5, 2, 200)}
    gate = CostSensitiveGate(rho=9.0)
    return Monitor(PlattCalibrator(a=8.0, b=-4.0), gate, calibration_signals=calibration, name=name)


def test_ids_1_and_text_1_are_one_id_on_the_fast_path_too() -> None:
    monitor = _monitor()
    items = [{"id": 1, "signals": {"conf": 0.5}}, {"id": "1", "signals": {"conf": 0.7}}]
    with pytest.raises(ValueError) as caught:
        monitor.update(items)  # type: ignore[attr-defined]
    assert str(caught.value) == "window item '1' appears twice in the window; give every item one id of its own."


def test_a_window_of_numbers_and_dates_as_times_is_refused() -> None:
    monitor = _monitor()
    items = [
        {"id": "a", "signals": {"conf": 0.5}, "time": 7},
        {"id": "b", "signals": {"conf": 0.6}, "time": "2026-12-01"},
    ]
    with pytest.raises(ValueError) as caught:
        monitor.update(items)  # type: ignore[attr-defined]
    assert str(caught.value) == (
        "window item 'b' has the time '2026-12-01', a date, but the window's first time 7 is a number; keep one "
        "kind of time (numbers or ISO 8601 dates)."
    )


def test_merging_a_number_timed_and_a_date_timed_monitor_is_refused() -> None:
    from ek.qe.monitor import Monitor

    numbered, dated = _monitor(), _monitor()
    numbered.update([{"id": "a", "signals": {"conf": 0.5}}], time=5)  # type: ignore[attr-defined]
    dated.update([{"id": "b", "signals": {"conf": 0.5}}], time="2026-12-01")  # type: ignore[attr-defined]
    with pytest.raises(ValueError) as caught:
        Monitor.merge(dated, numbered)  # type: ignore[arg-type]
    assert str(caught.value) == (
        "Monitor.merge() got monitor 0 timed in dates ('2026-12-01') and monitor 1 in numbers (5); merge only "
        "monitors that use one kind of time."
    )


# --- item 4: warnings on the command line --------------------------------------------------------------------

DATA = pathlib.Path(ek.__file__).parent / "data"
ENGINE_A, ENGINE_B = str(DATA / "demo_ocr.jsonl"), str(DATA / "demo_ocr_b.jsonl")


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    from ek.__main__ import main

    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def _half_labelled_plan(tmp_path: pathlib.Path) -> tuple[str, str, list[str]]:
    """A plan of 10 demo items drawn with probability 0.5, and an audit file labelling the first 5 only."""
    records = [json.loads(line) for line in open(ENGINE_A, encoding="utf-8")]
    drawn = records[::8][:10]
    plan, audit = tmp_path / "plan.jsonl", tmp_path / "audit.jsonl"
    plan.write_text("".join(json.dumps({"id": r["id"], "probability": 0.5}) + "\n" for r in drawn))
    audit.write_text("".join(json.dumps(r) + "\n" for r in drawn[:5]))
    return str(plan), str(audit), [r["id"] for r in drawn[5:]]


def test_an_estimate_with_unlabelled_plan_items_warns_in_one_line_and_counts_them(tmp_path, capsys) -> None:
    plan, audit, unlabelled = _half_labelled_plan(tmp_path)
    report, page = tmp_path / "e.json", tmp_path / "e.html"
    argv = ["estimate", ENGINE_B, "--proxy", ENGINE_A, "--proxy-field", "prediction", "--audit", audit]
    code, out, err = _run(capsys, *argv, "--plan", plan, "--json", str(report), "--html", str(page))
    warning = (
        f"5 of the plan's 10 drawn items are not in the --audit file ({unlabelled[0]!r}, {unlabelled[1]!r}, "
        f"{unlabelled[2]!r}, ...); the estimate treats them as missing at random. Audit them for an honest estimate."
    )
    assert code == 0 and err == f"ek estimate: warning: {warning}\n"
    assert (
        "unlabelled: 5 of the plan's 10 drawn items have no label in the --audit file (treated as missing at "
        "random; label them for an honest estimate)"
    ) in out.splitlines()
    saved = json.loads(report.read_text())
    assert saved["warnings"] == [warning] and saved["settings"]["unlabelled_in_plan"] == 5
    assert f'<p class="warn warning-note">warning: {html.escape(warning)}</p>' in page.read_text()


def test_the_mufi_warning_names_the_flags(tmp_path, capsys) -> None:
    (tmp_path / "g").mkdir()
    (tmp_path / "p").mkdir()
    (tmp_path / "g" / "a.txt").write_text("de x\n", encoding="utf-8")
    (tmp_path / "p" / "a.txt").write_text("d\ue8bf x\n", encoding="utf-8")
    code, _, err = _run(capsys, "evaluate", str(tmp_path / "g"), str(tmp_path / "p"), "--json", str(tmp_path / "r"))
    warning = (
        "the texts hold private-use characters that no normalisation step maps (U+E8BF '\\ue8bf'); they compare "
        "as themselves, so a reading of the letters they stand for counts as errors. Pass --normalize …,mufi or "
        "--profile dinglehopper to map the MUFI characters among them to the letters they stand for."
    )
    assert code == 0 and err == f"ek evaluate: warning: {warning}\n"
    assert json.loads((tmp_path / "r").read_text())["warnings"] == [warning]


@pytest.mark.parametrize(
    ("line", "shown"), [('{"id": null, "probability": 0.2}', "null"), ('{"id": [1], "probability": 0.2}', "[1]")]
)
def test_a_plan_line_with_a_null_or_listed_id_is_refused_naming_the_line(tmp_path, capsys, line, shown) -> None:
    plan = tmp_path / "plan.jsonl"
    plan.write_text('{"id": "clean_print-000", "probability": 0.2}\n' + line + "\n")
    argv = ["estimate", ENGINE_B, "--proxy", ENGINE_A, "--proxy-field", "prediction", "--audit", ENGINE_A]
    code, _, err = _run(capsys, *argv, "--plan", str(plan))
    assert code == 2 and err == (
        f"ek estimate: error: --plan {plan} line 2 has the id {shown}; an id is a string or a whole number, as the "
        "--audit file gives it. Fix that line or give the file ek audit-plan wrote.\n"
    )


# --- item 6: standard input and - -------------------------------------------------------------------------------


def test_two_inputs_from_standard_input_are_refused_naming_both(capsys) -> None:
    code, _, err = _run(capsys, "evaluate", "-", "-")
    assert code == 2 and err == (
        "ek evaluate: error: GOLD and PRED both name standard input (-); only one input can be read from it, so "
        "give PRED as a file.\n"
    )
    code, _, err = _run(capsys, "estimate", ENGINE_B, "--proxy", "-", "--audit", "-")
    assert code == 2 and err == (
        "ek estimate: error: --proxy and --audit both name standard input (-); only one input can be read from "
        "it, so give --audit as a file.\n"
    )


def test_html_dash_writes_the_page_to_standard_output(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    for argv in (
        ["evaluate", ENGINE_A, ENGINE_A],
        ["estimate", ENGINE_B, "--proxy", ENGINE_A, "--proxy-field", "prediction", "--audit", ENGINE_A],
    ):
        code, out, _ = _run(capsys, *argv, "--html", "-")
        assert code == 0 and out.startswith("<!DOCTYPE html>") and out.rstrip().endswith("</html>")
    assert not (tmp_path / "-").exists()
    code, _, err = _run(capsys, "evaluate", ENGINE_A, ENGINE_A, "--html", "-", "--json", "-")
    assert code == 2 and err == (
        "ek evaluate: error: --json - and --html - both write to standard output; give one of them a file.\n"
    )


def test_monitor_report_html_dash_writes_the_page_to_standard_output(tmp_path, capsys, monkeypatch) -> None:
    _monitor(name="g")
    monkeypatch.chdir(tmp_path)
    code, out, err = _run(capsys, "monitor", "g", "--report", "--html", "-")
    assert (code, err) == (0, "") and out.startswith("<!DOCTYPE html>") and out.rstrip().endswith("</html>")
    assert not (tmp_path / "-").exists()


# --- item 7: messages -----------------------------------------------------------------------------------------


def test_pred_items_without_a_stand_in_are_listed_after_the_flag(tmp_path, capsys) -> None:
    proxy = tmp_path / "proxy.jsonl"
    proxy.write_text("".join(list(open(ENGINE_A, encoding="utf-8"))[:78]))
    code, _, err = _run(
        capsys, "estimate", ENGINE_B, "--proxy", str(proxy), "--proxy-field", "prediction", "--audit", ENGINE_A
    )
    assert code == 2 and err == (
        "ek estimate: error: PRED has 2 items without a stand-in in the --proxy file ('degraded_scan-038', "
        "'degraded_scan-039'); every item of the corpus needs one (give the --proxy file a value for each).\n"
    )


def test_audit_plan_out_over_an_input_names_out(capsys) -> None:
    code, _, err = _run(capsys, "audit-plan", ENGINE_B, "--proxy", ENGINE_A, "--budget", "3", "--out", ENGINE_A)
    assert code == 2 and err == (
        f"ek audit-plan: error: --out {ENGINE_A} is the input --proxy {ENGINE_A}; writing it would overwrite what "
        "the run reads, so write the report somewhere else.\n"
    )


def test_an_engine_named_twice_is_refused_in_flag_words(capsys) -> None:
    code, _, err = _run(capsys, "benchmark", ENGINE_A, "--engine", "tesseract", "--engine", "tesseract")
    assert code == 2 and err == (
        "ek benchmark: error: --engine tesseract is given twice; each engine is ranked once, so name it once (two "
        "settings of one engine are two engines, each with its options after a colon: --engine tesseract:lang=deu "
        "--engine tesseract:lang=eng).\n"
    )


# --- item 8: leftovers ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "fault"),
    [
        ({"pass_hat_k_ci": [1]}, "has pass_hat_k_ci=[1], not an interval [low, high] (or null)"),
        ({"cost_per_success": None, "drop": "cost_per_success"}, "lacks cost_per_success"),
    ],
)
def test_a_hand_edited_agent_baseline_names_the_file_and_the_field(tmp_path, change, fault) -> None:
    from ek.agents import agent_regression_gate, reliability, save_agent_baseline

    outcomes = {f"t{i}": [(i + j) % 3 != 0 for j in range(3)] for i in range(20)}
    report = reliability(outcomes, k=3, warn_deterministic=False)
    save_agent_baseline(report, "v1", rootdir=tmp_path)
    path = tmp_path / "baselines" / "agents.v1.json"
    record = json.loads(path.read_text())
    record.update({k: v for k, v in change.items() if k != "drop"})
    record.pop(change.get("drop", ""), None)
    path.write_text(json.dumps(record))
    with pytest.raises(ValueError) as caught:
        agent_regression_gate(report, "v1", rootdir=tmp_path)
    assert str(caught.value) == (
        f"{path} is a damaged agents baseline: {fault}. Save it again with save_agent_baseline()."
    )


def test_a_folder_run_with_an_unreadable_pred_says_it_left_the_item_out(tmp_path, capsys) -> None:
    for folder, texts in (("g", {"a": "hello world", "b": "good bye"}), ("p", {"a": "hello world"})):
        (tmp_path / folder).mkdir()
        for name, text in texts.items():
            (tmp_path / folder / f"{name}.txt").write_text(text + "\n", encoding="utf-8")
    (tmp_path / "p" / "b.txt").write_bytes(b"\xff\xfebroken")
    page = tmp_path / "r.html"
    code, out, _ = _run(
        capsys, "evaluate", str(tmp_path / "g"), str(tmp_path / "p"), "--keep-going", "--html", str(page)
    )
    assert code == 0
    assert (
        "missing: 0 gold ids without a prediction (scored as empty); 1 more left out: its document could not be "
        "read (see failed)"
    ) in out.splitlines()
    shown = page.read_text()
    assert 'id="headline-left-out">1<' in shown and 'id="failures-note">1 file could not be read' in shown


def test_a_workspace_ranking_page_goes_to_standard_output_with_html_dash(real_data, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    workspace = str(real_data / "ocrd-assets/kant_aufklaerung_1784-complex")
    argv = ["evaluate", workspace, "--gold-group", "OCR-D-GT-PAGE", "--pred-group", "OCR-D-OCR-TESS-*"]
    code, out, err = _run(capsys, *argv, "--html", "-")
    assert code == 0, err
    assert out.startswith("<!DOCTYPE html>") and "<title>ek evaluate: " in out and not (tmp_path / "-").exists()
