"""``ek evaluate`` and ``ek compare`` (ek._commands), run as a user runs them.

Most runs go through ``ek.__main__.main`` in-process; the ones about what a
user sees on a real terminal or pipe (no traceback, progress bar) run a
subprocess.
"""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
from importlib import resources
from pathlib import Path

import jiwer
import pytest

import ek
from ek.__main__ import main

DATA = Path(str(resources.files("ek") / "data"))
GOLD = DATA / "demo_ocr.jsonl"
PRED_B = DATA / "demo_ocr_b.jsonl"


def rows(path):
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]


def write(path, text, encoding="utf-8"):
    path.write_bytes(text.encode(encoding) if isinstance(text, str) else text)
    return str(path)


def jsonl(path, records):
    return write(path, "".join(json.dumps(r) + "\n" for r in records))


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def run_json(capsys, *argv):
    code, out, err = run(capsys, *argv, "--json", "-")
    assert code == 0, err
    return json.loads(out)


# --- ek evaluate --------------------------------------------------------------------------


def test_evaluate_prints_the_figure_with_its_interval_overall_and_per_slice(capsys):
    code, out, err = run(capsys, "evaluate", GOLD, GOLD)
    assert code == 0 and err == ""
    demo = rows(GOLD)
    cer = jiwer.cer(reference=[r["gold"] for r in demo], hypothesis=[r["prediction"] for r in demo])
    report = ek.evaluate([(r["prediction"], r["gold"], r["slice"]) for r in demo], metric="cer",
                         ids=[r["id"] for r in demo])
    low, high = report.interval()
    assert re.search(rf"^all\s+80\s+{cer:.4f}\s+\[{low:.4f}, {high:.4f}\]$", out, re.M)
    low, high = report.interval(slice="clean_print")
    assert re.search(rf"^clean_print\s+40\s+{report.per_slice['clean_print']:.4f}\s+\[{low:.4f}, {high:.4f}\]$",
                     out, re.M)
    assert "missing: 0" in out and "extra: 0" in out and "95% interval" in out


def test_evaluate_json_report_has_the_documented_keys_and_figures(capsys, tmp_path):
    path = tmp_path / "out" / "report.json"
    code, _, _ = run(capsys, "evaluate", GOLD, GOLD, "--json", path, "--level", "0.9")
    assert code == 0
    data = json.loads(path.read_text())
    assert {"metric", "aggregate", "interval", "level", "n", "missing", "extra", "per_slice", "items"} <= set(data)
    demo = rows(GOLD)
    report = ek.evaluate([(r["prediction"], r["gold"], r["slice"]) for r in demo], metric="cer",
                         ids=[r["id"] for r in demo])
    assert data["metric"] == "cer" and data["aggregate"] == report.aggregate and data["level"] == 0.9
    assert data["interval"] == list(report.interval(0.9)) and data["n"] == 80
    assert data["per_slice"]["degraded_scan"] == {"aggregate": report.per_slice["degraded_scan"],
                                                  "interval": list(report.interval(0.9, slice="degraded_scan")),
                                                  "n": 40}
    first = demo[2]
    edits = jiwer.process_characters(first["gold"], first["prediction"])
    item = data["items"][first["id"]]
    assert item["edits"] == edits.substitutions + edits.deletions + edits.insertions
    assert item["ref_len"] == len(first["gold"]) and item["value"] == pytest.approx(item["edits"] / item["ref_len"])


def test_missing_and_extra_are_counted_listed_and_scored(capsys, tmp_path):
    gold = jsonl(tmp_path / "gold.jsonl", [{"id": "a", "text": "cat"}, {"id": "b", "text": "dog"},
                                          {"id": "c", "text": "emu"}])
    pred = jsonl(tmp_path / "pred.jsonl", [{"id": "a", "text": "cut"}, {"id": "c", "text": "emu"},
                                          {"id": "zz", "text": "yak"}])
    data = run_json(capsys, "evaluate", gold, pred)
    assert data["missing"] == ["b"] and data["extra"] == ["zz"]
    assert data["aggregate"] == pytest.approx((1 + 3 + 0) / 9)  # the missing item: all of "dog" is an error
    assert set(data["items"]) == {"a", "b", "c"}
    _, out, _ = run(capsys, "evaluate", gold, pred)
    assert "missing: 1 gold ids without a prediction (scored as empty): 'b'" in out
    assert "extra: 1 predictions without a gold id (ignored): 'zz'" in out


def test_fields_slices_and_whole_records(capsys, tmp_path):
    gold = jsonl(tmp_path / "g.jsonl", [{"doc": 1, "part": "x", "total": "5", "city": "Oslo"},
                                        {"doc": 2, "part": "y", "total": "7", "city": "Rome"}])
    pred = write(tmp_path / "p.csv", "doc,total,city\n1,5,Oslo\n2,8,Rome\n")
    data = run_json(capsys, "evaluate", gold, pred, "--id", "doc", "--slice", "part")
    assert data["metric"] == "fields" and data["per_slice"]["x"]["aggregate"] == 1.0
    assert data["aggregate"] == pytest.approx(0.75)  # TP 3, FP 1, FN 1 (the slice field is not a value)
    assert data["items"]["2"] == {"value": 0.5, "tp": 1, "fp": 1, "fn": 1}
    page = tmp_path / "fields.html"
    assert run(capsys, "evaluate", gold, pred, "--id", "doc", "--html", page)[0] == 0
    assert 'id="field-table"' in page.read_text()


def test_value_fields_normalize_metric_and_stdin(capsys, tmp_path, monkeypatch):
    gold = jsonl(tmp_path / "g.jsonl", [{"id": "1", "ref": "Hello World", "text": "ignored"}])
    pred = jsonl(tmp_path / "p.jsonl", [{"id": "1", "hyp": "hello  world"}])
    data = run_json(capsys, "evaluate", gold, pred, "--gold-field", "ref", "--pred-field", "hyp", "--metric", "wer",
                    "--normalize", "lower,collapse_whitespace")
    assert data["metric"] == "wer" and data["aggregate"] == 0.0
    import io

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b'{"id": "1", "hyp": "Hello Wrld"}\n')))
    data = run_json(capsys, "evaluate", gold, "-", "--gold-field", "ref", "--pred-field", "hyp")
    assert data["aggregate"] == pytest.approx(1 / 11)


def test_records_without_ids_pair_by_position_with_an_empty_id(capsys, tmp_path):
    gold = jsonl(tmp_path / "g.jsonl", [{"text": "cat"}, {"text": "dog"}])
    pred = jsonl(tmp_path / "p.jsonl", [{"text": "cut"}, {"text": "dog"}])
    code, _, err = run(capsys, "evaluate", gold, pred)
    assert code == 2 and "has no 'id' field" in err
    data = run_json(capsys, "evaluate", gold, pred, "--id", "")
    assert set(data["items"]) == {"1", "2"} and data["aggregate"] == pytest.approx(1 / 6)


def test_max_and_min_make_a_gate(capsys):
    code, _, err = run(capsys, "evaluate", GOLD, GOLD, "--max", "0.03")
    assert code == 1 and err.strip() == "FAIL: cer 0.0410 is above --max 0.03."
    assert run(capsys, "evaluate", GOLD, GOLD, "--max", "0.05")[0] == 0
    assert run(capsys, "evaluate", GOLD, GOLD, "--min", "0.05")[0] == 1


def test_html_page_holds_the_json_headline(capsys, tmp_path):
    page = tmp_path / "report.html"
    data = run_json(capsys, "evaluate", GOLD, GOLD, "--html", page)
    html = page.read_text(encoding="utf-8")
    shown = re.search(r'id="headline-value" data-value="([^"]+)"', html).group(1)
    assert float(shown) == data["aggregate"]
    assert 'id="confusion-table"' in html and 'id="slice-table"' in html and "<del" in html
    assert "http://" not in html.replace("http://www.w3.org/2000/svg", "")


def test_ocr_folders_report_what_evaluate_files_reports(capsys, tmp_path):
    for side, texts in (("gold", {"p1.gt.txt": "The cat sat\non the mat", "p2.gt.txt": "hello"}),
                        ("pred", {"p1.txt": "The cut sat\non the mat", "p3.txt": "stray"})):
        (tmp_path / side).mkdir()
        for name, text in texts.items():
            write(tmp_path / side / name, text)
    data = run_json(capsys, "evaluate", tmp_path / "gold", tmp_path / "pred")
    files = ek.ocr.evaluate_files(tmp_path / "gold", tmp_path / "pred")
    assert data["aggregate"] == files.aggregate and data["missing"] == ["p2"] and data["extra"] == ["p3"]
    assert data["confusions"] == files.detail["confusions"] and data["measures"] == files.detail["measures"]


# --- saved runs and ek compare -------------------------------------------------------------


def test_compare_reports_delta_interval_p_and_verdict(capsys):
    data = run_json(capsys, "compare", GOLD, GOLD, PRED_B)
    demo, b_rows = rows(GOLD), {r["id"]: r["prediction"] for r in rows(PRED_B)}
    ids = [r["id"] for r in demo]
    a = ek.evaluate([(r["prediction"], r["gold"], r["slice"]) for r in demo], metric="cer", ids=ids)
    b = ek.evaluate([(b_rows[r["id"]], r["gold"], r["slice"]) for r in demo], metric="cer", ids=ids)
    c = ek.compare(a, b)
    assert {"metric", "a", "b", "delta", "interval", "p_value", "per_slice"} <= set(data)
    assert (data["a"], data["b"], data["delta"], data["interval"], data["p_value"], data["verdict"]) == \
        (c.a, c.b, c.delta, list(c.interval), c.p_value, "better")
    assert data["per_slice"]["clean_print"]["verdict"] == "no detectable difference"
    assert data["runs"]["b"]["interval"] == list(b.interval())
    code, out, _ = run(capsys, "compare", GOLD, GOLD, PRED_B)
    assert code == 0 and re.search(r"^all\s+80\s+0\.0410\s+0\.0236\s+-0\.0174\s+\[-0\.\d{4}, -0\.\d{4}\]", out, re.M)


def test_fail_on_regression_exits_one_when_b_is_worse(capsys):
    code, _, err = run(capsys, "compare", GOLD, PRED_B, GOLD, "--fail-on-regression")
    assert code == 1 and "FAIL: B (demo_ocr.jsonl) is significantly worse than A (demo_ocr_b.jsonl)" in err
    assert run(capsys, "compare", GOLD, GOLD, PRED_B, "--fail-on-regression")[0] == 0


def test_a_saved_run_compares_by_name_and_only_on_its_gold(capsys, tmp_path):
    assert run(capsys, "evaluate", GOLD, GOLD, "--save", "base-1")[0] == 0
    by_name = run_json(capsys, "compare", GOLD, "base-1", PRED_B)
    by_file = run_json(capsys, "compare", GOLD, GOLD, PRED_B)
    assert {k: by_name[k] for k in ("a", "b", "delta", "interval", "p_value")} == \
        {k: by_file[k] for k in ("a", "b", "delta", "interval", "p_value")}
    page = tmp_path / "compare.html"
    assert run(capsys, "compare", GOLD, "base-1", PRED_B, "--html", page)[0] == 0
    assert f'data-value="{by_file["delta"]!r}"' in page.read_text()
    other = jsonl(tmp_path / "other.jsonl", [{**r, "gold": r["gold"] + "!"} for r in rows(GOLD)])
    code, _, err = run(capsys, "compare", other, "base-1", PRED_B)
    assert code == 2 and "'base-1' was saved against another gold set than GOLD" in err
    code, _, err = run(capsys, "compare", GOLD, "no-such-run", PRED_B)
    assert code == 2 and "PRED_A 'no-such-run' is neither a file nor a run saved" in err and "base-1" in err


def test_a_saved_run_is_an_engine_run_of_its_own_kind_and_a_new_save_replaces_it(capsys, tmp_path):
    gold = jsonl(tmp_path / "g.jsonl", [{"id": f"d{i}", "text": "cat", "slice": "s"} for i in range(3000)])
    pred = jsonl(tmp_path / "p.jsonl", [{"id": f"d{i}", "text": "cut" if i % 2 else "cat"} for i in range(3000)])
    assert run(capsys, "evaluate", gold, gold, "--save", "twice")[0] == 0
    assert run(capsys, "evaluate", gold, pred, "--save", "twice")[0] == 0
    home = Path(os.environ["EK_DATA_HOME"])
    header = json.loads((home / "runs" / "evaluate.twice.json").read_text())
    assert (header["format"], header["kind"], header["status"]) == (2, "evaluate", "complete")
    assert header["settings"]["metric"] == "cer" and header["summary"]["aggregate"] == pytest.approx(1 / 6)
    chunks = sorted((home / "results").glob("evaluate.twice.*.json"))
    assert len(chunks) == 3 and all(json.loads(c.read_text())["kind"] == "evaluate" for c in chunks)
    data = run_json(capsys, "compare", gold, "twice", gold)
    assert data["a"] == pytest.approx(1 / 6) and data["b"] == 0.0 and data["verdict"] == "better"


def test_compare_refuses_another_metric(capsys):
    assert run(capsys, "evaluate", GOLD, GOLD, "--save", "words", "--metric", "wer")[0] == 0
    code, _, err = run(capsys, "compare", GOLD, "words", PRED_B)
    assert code == 2 and "a 'wer' report and a 'cer' report" in err


# --- bad input: one line on stderr, exit 2, never a traceback ------------------------------


def bad_inputs(tmp_path):
    good = jsonl(tmp_path / "good.jsonl", [{"id": "a", "text": "cat"}, {"id": "b", "text": "dog"}])
    return {
        "unknown extension": ([write(tmp_path / "g.xyz", "id text\n"), good], "unknown extension"),
        "missing id column": ([write(tmp_path / "g.csv", "key,text\na,cat\n"), good], "has no 'id' column"),
        "duplicate ids": ([jsonl(tmp_path / "d.jsonl", [{"id": "a", "text": "x"}, {"id": "a", "text": "y"}]), good],
                          "has the id 'a' twice"),
        "broken JSONL": ([write(tmp_path / "b.jsonl", '{"id": "a", "text": "x"}\n{"id": "b", "text\n'), good],
                         "line 2"),
        "no id field in CSV": ([good, write(tmp_path / "p.csv", "name,text\na,cat\n")], "has no 'id' column"),
        "empty gold": ([write(tmp_path / "e.jsonl", ""), good], "has no records"),
        "not UTF-8": ([good, write(tmp_path / "l.jsonl", '{"id": "a", "text": "caf\xe9"}\n', "latin-1")],
                      "is not UTF-8: byte 0xe9 at offset"),
        "absent file": ([tmp_path / "nope.jsonl", good], "does not exist"),
        "unknown metric": ([good, good, "--metric", "bleu"], "bleu"),
        "bad level": ([good, good, "--level", "2"], "--level must be between 0 and 1"),
        "bad save name": ([good, good, "--save", "../x"], "cannot name a run"),
    }


@pytest.mark.parametrize("case", ["unknown extension", "missing id column", "duplicate ids", "broken JSONL",
                                  "no id field in CSV", "empty gold", "not UTF-8", "absent file", "unknown metric",
                                  "bad level", "bad save name"])
def test_bad_input_is_one_line_and_exit_code_2(capsys, tmp_path, case):
    argv, expected = bad_inputs(tmp_path)[case]
    code, out, err = run(capsys, "evaluate", *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("ek evaluate: error: ") and expected in err, err


def test_bad_input_in_a_real_process_has_no_traceback(tmp_path):
    gold = jsonl(tmp_path / "g.jsonl", [{"id": "a", "text": "cat"}])
    broken = write(tmp_path / "p.jsonl", "{not json\n")
    out = subprocess.run([sys.executable, "-m", "ek", "compare", gold, gold, broken], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 2 and "Traceback" not in out.stderr and out.stdout == ""
    assert re.fullmatch(r"ek compare: error: PRED \S+p\.jsonl line 1 .*\n", out.stderr)


# --- progress: on a terminal only ----------------------------------------------------------


def test_progress_bar_on_a_terminal_and_not_in_a_pipe(tmp_path):
    piped = subprocess.run([sys.executable, "-m", "ek", "evaluate", GOLD, GOLD], capture_output=True, text=True,
                           timeout=120)
    assert piped.returncode == 0 and piped.stderr == ""
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "ek", "evaluate", str(GOLD), str(GOLD)], stdout=subprocess.PIPE,
                            stderr=follower, env={**os.environ})
    os.close(follower)
    stdout, _ = proc.communicate(timeout=120)
    seen = b""
    try:
        while chunk := os.read(leader, 4096):
            seen += chunk
    except OSError:  # the terminal closed with the process
        pass
    os.close(leader)
    assert proc.returncode == 0 and b"all" in stdout
    assert b"scoring demo_ocr.jsonl |" in seen and b"80/80 items" in seen and b"intervals" in seen


def test_demo_mentions_both_commands():
    from ek._demo import demo

    text = demo()
    assert "ek evaluate" in text and "ek compare" in text
