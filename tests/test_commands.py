"""``ek evaluate`` and ``ek compare`` (ek.cli._commands), run as a user runs them.

Most runs go through ``ek.__main__.main`` in-process; the ones about what a
user sees on a real terminal or pipe (no traceback, progress bar) run a
subprocess.
"""

from __future__ import annotations

import inspect
import json
import os
import pty
import re
import subprocess
import sys
import unicodedata
from importlib import resources
from pathlib import Path

import jiwer
import pytest

import ek
import ek.tools
from ek.__main__ import main
from ek.cli import Options
from ek.ocr.files import evaluate_joined

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
    report = ek.evaluate(
        [(r["prediction"], r["gold"], r["slice"]) for r in demo], metric="cer", ids=[r["id"] for r in demo]
    )
    low, high = report.interval()
    assert re.search(rf"^all\s+80\s+{cer:.4f}\s+\[{low:.4f}, {high:.4f}\]$", out, re.MULTILINE)
    low, high = report.interval(slice="clean_print")
    assert re.search(
        rf"^clean_print\s+40\s+{report.per_slice['clean_print']:.4f}\s+\[{low:.4f}, {high:.4f}\]$", out, re.MULTILINE
    )
    assert "missing: 0" in out and "extra: 0" in out and "95% interval" in out


def test_evaluate_json_report_has_the_documented_keys_and_figures(capsys, tmp_path):
    path = tmp_path / "out" / "report.json"
    code, _, _ = run(capsys, "evaluate", GOLD, GOLD, "--json", path, "--level", "0.9")
    assert code == 0
    data = json.loads(path.read_text())
    assert {"metric", "aggregate", "interval", "level", "n", "missing", "extra", "per_slice", "items"} <= set(data)
    demo = rows(GOLD)
    report = ek.evaluate(
        [(r["prediction"], r["gold"], r["slice"]) for r in demo], metric="cer", ids=[r["id"] for r in demo]
    )
    assert data["metric"] == "cer" and data["aggregate"] == report.aggregate and data["level"] == 0.9
    assert data["interval"] == list(report.interval(0.9)) and data["n"] == 80
    judged = report.bounds(0.9, slice="degraded_scan")
    assert data["per_slice"]["degraded_scan"] == {
        "aggregate": report.per_slice["degraded_scan"],
        "interval": list(report.interval(0.9, slice="degraded_scan")),
        "reliable": judged.reliable,
        "why": judged.why,
        "effective_n": round(judged.effective_n, 1),
        "n": 40,
    }
    first = demo[2]
    edits = jiwer.process_characters(first["gold"], first["prediction"])
    item = data["items"][first["id"]]
    assert item["edits"] == edits.substitutions + edits.deletions + edits.insertions
    assert item["ref_len"] == len(first["gold"]) and item["value"] == pytest.approx(item["edits"] / item["ref_len"])


def test_missing_and_extra_are_counted_listed_and_scored(capsys, tmp_path):
    gold = jsonl(
        tmp_path / "gold.jsonl", [{"id": "a", "text": "cat"}, {"id": "b", "text": "dog"}, {"id": "c", "text": "emu"}]
    )
    pred = jsonl(
        tmp_path / "pred.jsonl", [{"id": "a", "text": "cut"}, {"id": "c", "text": "emu"}, {"id": "zz", "text": "yak"}]
    )
    data = run_json(capsys, "evaluate", gold, pred)
    assert data["missing"] == ["b"] and data["extra"] == ["zz"]
    assert data["aggregate"] == pytest.approx((1 + 3 + 0) / 9)  # the missing item: all of "dog" is an error
    assert set(data["items"]) == {"a", "b", "c"}
    _, out, _ = run(capsys, "evaluate", gold, pred)
    assert "missing: 1 gold ids without a prediction (scored as empty): 'b'" in out
    assert "extra: 1 predictions without a gold id (ignored): 'zz'" in out


def test_fields_slices_and_whole_records(capsys, tmp_path):
    gold = jsonl(
        tmp_path / "g.jsonl",
        [{"doc": 1, "part": "x", "total": "5", "city": "Oslo"}, {"doc": 2, "part": "y", "total": "7", "city": "Rome"}],
    )
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
    data = run_json(
        capsys,
        "evaluate",
        gold,
        pred,
        "--gold-field",
        "ref",
        "--pred-field",
        "hyp",
        "--metric",
        "wer",
        "--normalize",
        "lower,collapse_whitespace",
    )
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
    for side, texts in (
        ("gold", {"p1.gt.txt": "The cat sat\non the mat", "p2.gt.txt": "hello"}),
        ("pred", {"p1.txt": "The cut sat\non the mat", "p3.txt": "stray"}),
    ):
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
    assert (data["a"], data["b"], data["delta"], data["interval"], data["p_value"], data["verdict"]) == (
        c.a,
        c.b,
        c.delta,
        list(c.interval),
        c.p_value,
        "better",
    )
    assert data["per_slice"]["clean_print"]["verdict"] == "no detectable difference"
    assert data["runs"]["b"]["interval"] == list(b.interval())
    code, out, _ = run(capsys, "compare", GOLD, GOLD, PRED_B)
    assert code == 0 and re.search(
        r"^all\s+80\s+0\.0410\s+0\.0236\s+-0\.0174\s+\[-0\.\d{4}, -0\.\d{4}\]", out, re.MULTILINE
    )


def test_fail_on_regression_exits_one_when_b_is_worse(capsys):
    code, _, err = run(capsys, "compare", GOLD, PRED_B, GOLD, "--fail-on-regression")
    assert code == 1 and "FAIL: B (demo_ocr.jsonl) is significantly worse than A (demo_ocr_b.jsonl)" in err
    assert run(capsys, "compare", GOLD, GOLD, PRED_B, "--fail-on-regression")[0] == 0


def test_a_saved_run_compares_by_name_and_only_on_its_gold(capsys, tmp_path):
    assert run(capsys, "evaluate", GOLD, GOLD, "--save", "base-1")[0] == 0
    by_name = run_json(capsys, "compare", GOLD, "base-1", PRED_B)
    by_file = run_json(capsys, "compare", GOLD, GOLD, PRED_B)
    assert {k: by_name[k] for k in ("a", "b", "delta", "interval", "p_value")} == {
        k: by_file[k] for k in ("a", "b", "delta", "interval", "p_value")
    }
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
        "duplicate ids": (
            [jsonl(tmp_path / "d.jsonl", [{"id": "a", "text": "x"}, {"id": "a", "text": "y"}]), good],
            "has the id 'a' twice",
        ),
        "broken JSONL": (
            [write(tmp_path / "b.jsonl", '{"id": "a", "text": "x"}\n{"id": "b", "text\n'), good],
            "line 2",
        ),
        "no id field in CSV": ([good, write(tmp_path / "p.csv", "name,text\na,cat\n")], "has no 'id' column"),
        "empty gold": ([write(tmp_path / "e.jsonl", ""), good], "has no records"),
        "not UTF-8": (
            [good, write(tmp_path / "l.jsonl", '{"id": "a", "text": "caf\xe9"}\n', "latin-1")],
            "is not UTF-8: byte 0xe9 at offset",
        ),
        "absent file": ([tmp_path / "nope.jsonl", good], "does not exist"),
        "unknown metric": ([good, good, "--metric", "bleu"], "bleu"),
        "bad level": ([good, good, "--level", "2"], "--level must be between 0 and 1"),
        "bad save name": ([good, good, "--save", "../x"], "cannot name a run"),
    }


@pytest.mark.parametrize(
    "case",
    [
        "unknown extension",
        "missing id column",
        "duplicate ids",
        "broken JSONL",
        "no id field in CSV",
        "empty gold",
        "not UTF-8",
        "absent file",
        "unknown metric",
        "bad level",
        "bad save name",
    ],
)
def test_bad_input_is_one_line_and_exit_code_2(capsys, tmp_path, case):
    argv, expected = bad_inputs(tmp_path)[case]
    code, out, err = run(capsys, "evaluate", *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("ek evaluate: error: ") and expected in err, err


def test_bad_input_in_a_real_process_has_no_traceback(tmp_path):
    gold = jsonl(tmp_path / "g.jsonl", [{"id": "a", "text": "cat"}])
    broken = write(tmp_path / "p.jsonl", "{not json\n")
    out = subprocess.run(
        [sys.executable, "-m", "ek", "compare", gold, gold, broken], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 2 and "Traceback" not in out.stderr and out.stdout == ""
    assert re.fullmatch(r"ek compare: error: PRED \S+p\.jsonl line 1 .*\n", out.stderr)


# --- progress: on a terminal only ----------------------------------------------------------


def test_progress_bar_on_a_terminal_and_not_in_a_pipe(tmp_path):
    piped = subprocess.run(
        [sys.executable, "-m", "ek", "evaluate", GOLD, GOLD], capture_output=True, text=True, timeout=120
    )
    assert piped.returncode == 0 and piped.stderr == ""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "ek", "evaluate", str(GOLD), str(GOLD)],
        stdout=subprocess.PIPE,
        stderr=follower,
        env={**os.environ},
    )
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
    from ek.cli._demo import demo

    text = demo()
    assert "ek evaluate" in text and "ek compare" in text


# --- issue 19 and issue 20: folders that fail loudly, outputs that would destroy inputs, bad options -----------
#
# ("Folders that fail loudly", the text level and normalisation defaults of issue 19; issue 20 items 3, 9, 12,
# 15 and 18.)

PAGE_NS = "http://schema.primaresearch.org/PAGE/gts/pagecontent/2019-07-15"


def put(path, text):
    """Write ``text`` (str or bytes) at ``path``, making its folders; returns the path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write(path, text)
    return path


def ek_process(*argv):
    return subprocess.run([sys.executable, "-m", "ek", *map(str, argv)], capture_output=True, text=True, timeout=120)


@pytest.fixture
def failing(tmp_path):
    """gt/ and ocr/ where gold b is not UTF-8, gold c has no text and prediction d cannot be decoded."""
    gt, ocr = tmp_path / "gt", tmp_path / "ocr"
    for name, text in (("a", "cat"), ("b", "caf\xe9".encode("latin-1")), ("c", "  \n"), ("d", "dog"), ("e", "emu")):
        put(gt / f"{name}.gt.txt", text)
    for name, text in (("a", "cut"), ("b", "cafe"), ("c", "x"), ("d", b"d\xffg"), ("e", "emu"), ("z", "extra")):
        put(ocr / f"{name}.txt", text)
    return gt, ocr


# -- loud folder failures -------------------------------------------------------------------


def test_an_unreadable_gold_document_stops_the_run_naming_the_file_and_the_reason(capsys, failing):
    gt, ocr = failing
    code, out, err = run(capsys, "evaluate", gt, ocr)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("ek evaluate: error: 3 documents could not be read: ")  # all of them, in one message
    assert f"GOLD {gt}/b.gt.txt is not UTF-8: byte 0xe9 at offset 3" in err
    assert f"GOLD {gt}/c.gt.txt has no text" in err and f"PRED {ocr}/d.txt is not UTF-8" in err
    assert err.rstrip().endswith(
        "fix them, or pass --keep-going (keep_going=True in Python) to score the others and list the failures."
    )


def test_an_undecodable_prediction_stops_the_run_instead_of_scoring_empty(capsys, failing):
    gt, ocr = failing
    for name in ("b", "c"):
        os.remove(gt / f"{name}.gt.txt")
    code, _, err = run(capsys, "evaluate", gt, ocr)
    assert code == 2 and err.startswith("ek evaluate: error: 1 document could not be read: ")
    assert f"PRED {ocr}/d.txt is not UTF-8: byte 0xff at offset 1" in err and "fix it, or pass --keep-going" in err


def test_keep_going_scores_the_rest_and_the_terminal_json_and_page_agree(capsys, failing, tmp_path):
    gt, ocr = failing
    code, out, err = run(capsys, "evaluate", gt, ocr, "--keep-going")
    assert code == 0, err
    data = run_json(capsys, "evaluate", gt, ocr, "--keep-going")
    # scored: a and e (d's prediction failed and is left out, not scored as empty); b, c failed as gold
    assert set(data["items"]) == {"a", "e"} and data["n"] == 2 and data["aggregate"] == pytest.approx(1 / 6)
    assert data["missing"] == [] and data["extra"] == ["z"] and data["skipped"] == []
    assert [(e["side"], e["path"], e["id"]) for e in data["errors"]] == [
        ("gold", str(gt / "b.gt.txt"), "b"),
        ("gold", str(gt / "c.gt.txt"), "c"),
        ("pred", str(ocr / "d.txt"), "d"),
    ]
    assert "is not UTF-8" in data["errors"][2]["message"]
    lines = out.splitlines()
    assert "ek evaluate: cer (lower is better) on 2 items" in lines[0]
    k = lines.index("failed: 3 documents could not be read (left out):")
    assert lines[k + 1 : k + 4] == [f"  {e['message']}" for e in data["errors"]]
    assert "extra: 1 predictions without a gold id (ignored): 'z'" in out
    page = tmp_path / "page.html"
    assert run(capsys, "evaluate", gt, ocr, "--keep-going", "--html", page)[0] == 0
    html = page.read_text(encoding="utf-8")
    assert 'id="failures-note">3 files could not be read' in html and html.count('id="error-table"') == 1
    for e in data["errors"]:
        assert f'<td class="id">{e["path"]}</td>' in html
    assert f"Generated by ek {ek.__version__} on " in html and str(gt) in html  # the meta reached the page


def test_keep_going_in_compare_leaves_out_what_either_run_could_not_read(capsys, tmp_path):
    gt = tmp_path / "gt"
    for name, text in (("a", "cat"), ("b", "dog"), ("c", "emu")):
        put(gt / f"{name}.txt", text)
    put(tmp_path / "A" / "a.txt", "cut"), put(tmp_path / "A" / "b.txt", b"\xfe"), put(tmp_path / "A" / "c.txt", "emu")
    put(tmp_path / "B" / "a.txt", "cat"), put(tmp_path / "B" / "b.txt", "dog"), put(tmp_path / "B" / "c.txt", b"\xfe")
    code, _, err = run(capsys, "compare", gt, tmp_path / "A", tmp_path / "B")
    assert code == 2 and "1 document could not be read: PRED" in err
    data = run_json(capsys, "compare", gt, tmp_path / "A", tmp_path / "B", "--keep-going")
    assert data["n"] == 1 and data["a"] == pytest.approx(1 / 3) and data["b"] == 0.0  # only a was read on both sides
    assert [(e["path"], e["id"]) for e in data["errors"]] == [
        (str(tmp_path / "A" / "b.txt"), "b"),
        (str(tmp_path / "B" / "c.txt"), "c"),
    ]
    assert data["inputs"] == {"gold": str(gt), "pred_a": str(tmp_path / "A"), "pred_b": str(tmp_path / "B")}


def test_folders_sharing_no_id_exit_2_showing_names(capsys, tmp_path):
    put(tmp_path / "gt" / "page1.gt.txt", "x")
    put(tmp_path / "ocr" / "scan_0001.txt", "x")
    code, out, err = run(capsys, "evaluate", tmp_path / "gt", tmp_path / "ocr")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "nothing paired" in err and "GOLD has 'page1'; PRED has 'scan_0001'" in err and "--gold-suffix" in err


def test_suffixes_and_pred_format_on_the_command_line(capsys, tmp_path):
    put(tmp_path / "l1.gt.txt", "Hello")
    put(tmp_path / "l1.some-ocr.txt", "Hallo")
    put(tmp_path / "l1.other.txt", "Hxllo")
    code, _, err = run(capsys, "evaluate", tmp_path, tmp_path)
    assert code == 2 and "several predictions for the GOLD id 'l1'" in err
    data = run_json(
        capsys, "evaluate", tmp_path, tmp_path, "--gold-suffix", ".gt.txt", "--pred-suffix", ".some-ocr.txt"
    )
    assert data["aggregate"] == pytest.approx(1 / 5) and set(data["items"]) == {"l1"}
    put(tmp_path / "out" / "gt" / "p.txt", "Hello")
    put(tmp_path / "out" / "ocr" / "p.txt", "Hello")
    put(tmp_path / "out" / "ocr" / "p.hocr", "<html><body><span class='ocr_line'>Hallo</span></body></html>")
    code, _, err = run(capsys, "evaluate", tmp_path / "out", tmp_path / "out")
    assert code == 2 and "--pred-format text|hocr|alto|page" in err
    data = run_json(capsys, "evaluate", tmp_path / "out", tmp_path / "out", "--pred-format", "hocr")
    assert data["aggregate"] == pytest.approx(1 / 5)
    assert data["skipped"] == [
        {
            "path": str(tmp_path / "out" / "ocr" / "p.txt"),
            "reason": "its format is text; --pred-format hocr reads only hocr files",
        }
    ]


# -- documents: NFC by default, and the header says how they were read ------------------------


def test_nfd_and_nfc_encodings_of_one_page_score_zero_by_default(capsys, tmp_path):
    text = "Müller’s café\nSeñor Ærø"
    put(
        tmp_path / "gt.xml",
        f'<PcGts xmlns="{PAGE_NS}"><Page><TextRegion id="r"><TextLine id="l"><TextEquiv>'
        f"<Unicode>{unicodedata.normalize('NFC', text)}</Unicode></TextEquiv></TextLine></TextRegion></Page></PcGts>",
    )
    put(tmp_path / "ocr.txt", unicodedata.normalize("NFD", text))
    data = run_json(capsys, "evaluate", tmp_path / "gt.xml", tmp_path / "ocr.txt")
    assert data["aggregate"] == 0.0 and data["settings"]["normalize"] == "nfc"
    raw = run_json(capsys, "evaluate", tmp_path / "gt.xml", tmp_path / "ocr.txt", "--normalize", "strip")
    assert raw["aggregate"] > 0 and raw["settings"]["normalize"] == "strip"  # --normalize replaces the default
    code, out, _ = run(capsys, "evaluate", tmp_path / "gt.xml", tmp_path / "ocr.txt")
    assert code == 0 and out.splitlines()[1].startswith("settings: normalize nfc | text level ")
    assert out.splitlines()[1].endswith(" | profile none")
    data = run_json(capsys, "compare", tmp_path / "gt.xml", tmp_path / "ocr.txt", tmp_path / "gt.xml")
    assert data["a"] == data["b"] == 0.0 and data["settings"]["normalize"] == "nfc"
    code, out, _ = run(capsys, "compare", tmp_path / "gt.xml", tmp_path / "ocr.txt", tmp_path / "gt.xml")
    assert code == 0 and out.splitlines()[1].startswith("settings: normalize nfc | text level ")


def test_compare_of_two_saved_runs_still_refuses_unread_gold(capsys, tmp_path):
    gt = tmp_path / "gt"
    put(gt / "a.txt", "cat"), put(gt / "b.txt", "dog")
    assert run(capsys, "evaluate", gt, gt, "--save", "both")[0] == 0
    put(gt / "b.txt", b"\xfe")
    code, _, err = run(capsys, "compare", gt, "both", "both")
    assert code == 2 and f"1 document could not be read: GOLD {gt}/b.txt is not UTF-8" in err


def test_records_keep_the_python_defaults_and_print_no_settings_line(capsys, tmp_path):
    nfc, nfd = unicodedata.normalize("NFC", "café"), unicodedata.normalize("NFD", "café")
    gold = put(tmp_path / "g.jsonl", json.dumps({"id": "a", "text": nfc}) + "\n")
    pred = put(tmp_path / "p.jsonl", json.dumps({"id": "a", "text": nfd}) + "\n")
    data = run_json(capsys, "evaluate", gold, pred)
    assert data["aggregate"] == pytest.approx(2 / 4) and data["settings"]["normalize"] is None
    _, out, _ = run(capsys, "evaluate", gold, pred)
    assert "settings:" not in out


def test_the_json_records_inputs_settings_version_and_date(capsys, tmp_path):
    put(tmp_path / "gt" / "a.txt", "cat")
    put(tmp_path / "ocr" / "a.txt", "cut")
    data = run_json(capsys, "evaluate", tmp_path / "gt", tmp_path / "ocr", "--level", "0.9")
    assert data["inputs"] == {"gold": str(tmp_path / "gt"), "pred": str(tmp_path / "ocr")}
    settings = data["settings"]
    assert {k: settings[k] for k in ("metric", "normalize", "text_level", "profile", "words", "segment", "level")} == {
        "metric": "cer",
        "normalize": "nfc",
        "text_level": None,
        "profile": None,
        "words": "whitespace",
        "segment": "codepoint",
        "level": 0.9,
    }
    assert "text_level" in data and data["ek_version"] == ek.__version__
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", data["date"])
    assert data["errors"] == [] and data["skipped"] == []


def two_level_page(tmp_path):
    """A PAGE file whose region says "Region text" and whose one line says "Line text"."""
    return put(
        tmp_path / "gt.xml",
        f'<PcGts xmlns="{PAGE_NS}"><Page><TextRegion id="r"><TextEquiv><Unicode>Region '
        'text</Unicode></TextEquiv><TextLine id="l"><TextEquiv><Unicode>Line text</Unicode></TextEquiv>'
        "</TextLine></TextRegion></Page></PcGts>",
    )


def test_text_level_reaches_the_reader(capsys, tmp_path):
    gold, pred = two_level_page(tmp_path), put(tmp_path / "ocr.txt", "Region text")
    for cmd in (("evaluate", gold, pred), ("compare", gold, pred, pred)):
        data = run_json(capsys, *cmd, "--text-level", "region")
        assert data["settings"]["text_level"] == "region"
        assert (data["aggregate"] if cmd[0] == "evaluate" else data["a"]) == 0.0
        data = run_json(capsys, *cmd, "--text-level", "line")
        # "Line" -> "Region": L->R, +e, +g, i, +o, n, -e: 5 edits over the 9 characters of "Line text"
        assert (data["aggregate"] if cmd[0] == "evaluate" else data["a"]) == pytest.approx(5 / 9)
        data = run_json(capsys, *cmd)  # the default: the region's own text
        assert (data["aggregate"] if cmd[0] == "evaluate" else data["a"]) == 0.0
    code, _, err = run(capsys, "evaluate", gold, pred, "--text-level", "page")
    assert code == 2 and "--text-level must be one of region, line, word, glyph, got 'page'" in err


@pytest.mark.skipif(
    "profile" not in inspect.signature(evaluate_joined).parameters,
    reason="needs evaluate_joined(profile=, words=) from h-profile (contract B)",
)
def test_the_text_level_read_is_in_the_header_and_the_json(capsys, tmp_path):
    gold, pred = two_level_page(tmp_path), put(tmp_path / "ocr.txt", "Region text")
    data = run_json(capsys, "evaluate", gold, pred, "--text-level", "region")
    assert data["text_level"] == "region" and data["settings"]["text_level"] == "region"
    _, out, _ = run(capsys, "evaluate", gold, pred, "--text-level", "line")
    assert out.splitlines()[1] == "settings: normalize nfc | text level line | profile none"
    _, out, _ = run(capsys, "evaluate", gold, pred)
    assert out.splitlines()[1] == "settings: normalize nfc | text level region | profile none"


def test_regions_read_at_another_level_are_said_in_the_header_the_json_and_the_page(capsys, tmp_path):
    # issue 19: the header and the JSON say which level was used; region r2 has no line, so --text-level line
    # reads it at region level, and the run must not claim "line" for all of it
    gold = put(
        tmp_path / "gt.xml",
        f'<PcGts xmlns="{PAGE_NS}"><Page><TextRegion id="r1"><TextLine id="l1"><TextEquiv><Unicode>Hello'
        '</Unicode></TextEquiv></TextLine></TextRegion><TextRegion id="r2"><TextEquiv><Unicode>world</Unicode>'
        "</TextEquiv></TextRegion></Page></PcGts>",
    )
    pred = put(tmp_path / "ocr.txt", "Hello\nworld\n")
    page = tmp_path / "page.html"
    data = run_json(capsys, "evaluate", gold, pred, "--text-level", "line", "--html", page)
    assert data["aggregate"] == 0.0 and data["text_level"] == "line"
    assert data["fallbacks"] == [{"side": "gold", "id": "gt", "region": "r2", "level": "region"}]
    said = "line, but 1 region read at another level (gold gt region r2 at region level)"
    assert f"<dt>text level</dt><dd>{said}</dd>" in page.read_text(encoding="utf-8")
    _, out, _ = run(capsys, "evaluate", gold, pred, "--text-level", "line")
    assert out.splitlines()[1] == f"settings: normalize nfc | text level {said} | profile none"
    _, out, _ = run(capsys, "compare", gold, pred, pred, "--text-level", "line")
    assert out.splitlines()[1] == f"settings: normalize nfc | text level {said} | profile none"  # gold's, once
    default = run_json(capsys, "evaluate", gold, pred)  # the default rule: r2 at its own text, r1 at its line's
    assert default["text_level"] == "region"  # one region each: the coarser level names the document's
    assert default["fallbacks"] == [{"side": "gold", "id": "gt", "region": "r1", "level": "line"}]
    assert run_json(capsys, "evaluate", two_level_page(tmp_path), pred)["fallbacks"] == []


@pytest.mark.skipif(
    "profile" not in inspect.signature(evaluate_joined).parameters,
    reason="needs evaluate_joined(profile=, words=) from h-profile (contract B)",
)
def test_profile_and_words_reach_the_ocr_scoring(capsys, tmp_path):
    put(tmp_path / "gt.txt", "The cat's hat")
    put(tmp_path / "ocr.txt", "The cat’s hat")
    data = run_json(capsys, "evaluate", tmp_path / "gt.txt", tmp_path / "ocr.txt", "--profile", "dinglehopper")
    assert data["settings"]["profile"] == "dinglehopper" and data["aggregate"] == 0.0  # ’ is ' to dinglehopper
    words = run_json(capsys, "evaluate", tmp_path / "gt.txt", tmp_path / "ocr.txt", "--words", "unicode")
    assert words["settings"]["words"] == "unicode"


def test_words_on_records_needs_wer(capsys, tmp_path):
    gold = put(tmp_path / "g.jsonl", '{"id": "a", "text": "cat"}\n')
    code, _, err = run(capsys, "evaluate", gold, gold, "--words", "unicode")
    assert code == 2 and "--words unicode changes how WER cuts words, and --metric is chosen by type" in err
    code, _, err = run(capsys, "evaluate", gold, gold, "--words", "sentences")
    assert code == 2 and "--words must be one of whitespace, unicode" in err


# -- outputs never overwrite inputs, and are written whole ---------------------------------------


def test_outputs_that_resolve_to_an_input_are_refused(capsys, tmp_path):
    gold = put(tmp_path / "g.jsonl", '{"id": "a", "text": "cat"}\n')
    pred = put(tmp_path / "ocr" / "a.txt", "cut")
    put(tmp_path / "gt" / "a.txt", "cat")
    os.symlink(gold, tmp_path / "alias.json")
    cases = [
        (("evaluate", gold, gold, "--json", gold), f"--json {gold} is the input GOLD {gold}"),
        (("evaluate", gold, gold, "--html", tmp_path / "alias.json"), f"--html {gold} is the input GOLD {gold}"),
        (
            ("evaluate", tmp_path / "gt", tmp_path / "ocr", "--html", tmp_path / "ocr" / "report.html"),
            f"--html {tmp_path / 'ocr' / 'report.html'} lies inside the input PRED {tmp_path / 'ocr'}",
        ),
        (
            ("compare", gold, gold, gold, "--json", tmp_path / "x.json", "--html", tmp_path / "x.json"),
            f"--json and --html both name {tmp_path / 'x.json'}",
        ),
        (
            ("compare", tmp_path / "gt", tmp_path / "ocr", tmp_path / "ocr", "--json", tmp_path / "gt" / "r.json"),
            "lies inside the input GOLD",
        ),
    ]
    for argv, message in cases:
        code, out, err = run(capsys, *argv)
        assert code == 2 and out == "" and message in err, (argv, err)
    assert gold.read_text() == '{"id": "a", "text": "cat"}\n' and pred.read_text() == "cut"
    assert sorted(os.listdir(tmp_path / "ocr")) == ["a.txt"]


def test_reports_are_written_whole_or_not_at_all(capsys, tmp_path, monkeypatch):
    gold = put(tmp_path / "g.jsonl", '{"id": "a", "text": "cat"}\n')
    report = put(tmp_path / "out" / "report.json", "the previous report\n")
    os.chmod(report, 0o640)

    def killed(src, dst):
        raise KeyboardInterrupt  # the run is stopped between writing and renaming

    monkeypatch.setattr(os, "replace", killed)
    with pytest.raises(KeyboardInterrupt):
        main(["evaluate", str(gold), str(gold), "--json", str(report)])
    assert report.read_text() == "the previous report\n" and os.listdir(tmp_path / "out") == ["report.json"]
    monkeypatch.undo()
    assert run(capsys, "evaluate", gold, gold, "--json", report, "--html", tmp_path / "out" / "page.html")[0] == 0
    assert json.loads(report.read_text())["aggregate"] == 0.0 and oct(os.stat(report).st_mode & 0o777) == "0o640"
    assert sorted(os.listdir(tmp_path / "out")) == ["page.html", "report.json"]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("option", ["--html", "--json"])
def test_a_full_device_is_one_line_naming_the_path(tmp_path, option):
    gold = put(tmp_path / "g.jsonl", '{"id": "a", "text": "cat"}\n')
    out = ek_process("evaluate", gold, gold, option, "/dev/full")
    assert out.returncode == 2 and "Traceback" not in out.stderr and "Errno" not in out.stderr
    assert out.stderr == (
        f"ek evaluate: error: cannot write {option} /dev/full: No space left on device; free some "
        "space, check the permissions or choose another path.\n"
    )
    assert os.path.exists("/dev/full") and not os.path.isfile("/dev/full")  # the device is still a device


# -- options that cannot be right ------------------------------------------------------------------


def test_level_region_points_to_text_level(tmp_path):
    gold = put(tmp_path / "g.jsonl", '{"id": "a", "text": "cat"}\n')
    out = ek_process("evaluate", gold, gold, "--level", "region")
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr == (
        "ek evaluate: error: --level is the confidence level (e.g. 0.95); for which text of a "
        "PAGE/ALTO/hOCR file to read use --text-level region (see ek evaluate --help)\n"
    )
    with pytest.raises(ValueError, match=r"--level is the confidence level .* use --text-level line"):
        ek.tools.evaluate(str(gold), str(gold), options=Options(level="line"))


@pytest.mark.parametrize("bound", [("--max", "nan"), ("--min", "nan"), ("--max", "inf"), ("--min=-inf",)])
def test_non_finite_gate_bounds_are_refused(capsys, tmp_path, bound):
    gold = put(tmp_path / "g.jsonl", '{"id": "a", "text": "cat"}\n')
    code, out, err = run(capsys, "evaluate", gold, gold, *bound)
    option = bound[0].split("=")[0]
    assert code == 2 and out == "" and f"{option} must be a finite number (the bound of the gate)" in err
    code, _, err = run(capsys, "compare", gold, gold, gold, *bound)
    assert code == 2 and f"{option} must be a finite number" in err


def test_argparse_mistakes_are_one_line_with_a_pointer_to_help(tmp_path):
    for argv, start in (
        (("evaluate", "g.jsonl"), "ek evaluate: error: the following arguments are required: PRED"),
        (("compare", "g", "a", "b", "--bogus"), "ek compare: error: unknown option --bogus"),
        (("pass-k", "ten", "9"), "ek pass-k: error: N must be a whole number, got 'ten'"),
    ):
        out = ek_process(*argv)
        assert out.returncode == 2 and out.stdout == "" and "usage:" not in out.stderr
        assert out.stderr.startswith(start) and out.stderr.count("\n") == 1, out.stderr
        assert out.stderr.endswith(f"(see ek {argv[0]} --help)\n")


@pytest.mark.parametrize(
    "argv, message",
    [
        (("cer", "a", "b", "--normalize", "bogus"), "'bogus'"),
        (("rover", "only one"), "two or more transcriptions"),
        (("pass-k", "3", "5"), "5 successes out of 3 trials cannot be; the successes are 0 to 3 of the trials."),
        (("pass-k", "3", "2", "--k", "4"), "k must be 1 to 3 (the number of trials), got 4"),
        (("pass-k", "0", "0"), "the number of trials must be 1 or more, got 0."),
        (("cost-per-success", "10", "5", "--attempts", "2"), "2 attempts are fewer than the 5 successes"),
        (("cost-per-success", "10", "0", "--attempts", "0"), "the attempts must be 1 or more, got 0."),
        (("cost-per-success", "--", "-1", "0"), "the total dollars must be 0 or more, got -1.0."),
    ],
)
def test_small_commands_exit_2_on_bad_input(argv, message):
    out = ek_process(*argv)
    assert out.returncode == 2 and message in out.stderr and "Traceback" not in out.stderr


def test_the_terminal_lists_every_failure_but_only_the_first_skips():
    from ek.cli._commands._format import problem_lines

    meta = {
        "errors": [{"message": f"e{i}"} for i in range(7)],
        "skipped": [{"path": f"p{i}.hocr", "reason": "its format is hocr"} for i in range(7)],
    }
    lines = problem_lines(meta)
    assert lines[:8] == ["failed: 7 documents could not be read (left out):", *(f"  e{i}" for i in range(7))]
    assert lines[8:] == [
        "skipped: 7 files not read:",
        *(f"  p{i}.hocr: its format is hocr" for i in range(5)),
        "  ... and 2 more (every one is listed by --json and --html)",
    ]


# --- the facts the pages and the readers take from the metric, not from its name ---------------------------------


@pytest.mark.parametrize(
    ("metric", "unit"),
    [
        ("cer", "char"),
        ("cer_grapheme", "grapheme"),
        ("wer", "word"),
        ("wer_unicode", "unicode_word"),
        ("fields", None),
        ("fca", None),
        ("not_registered", None),
    ],
)
def test_the_page_aligns_in_the_unit_the_metric_declares(metric, unit):
    from ek.cli._commands._pages import unit_of

    assert unit_of(metric) == unit


@pytest.mark.parametrize(
    ("metric", "reads"),
    [
        (None, True),
        ("cer", True),
        ("wer_unicode", True),
        ("bow", True),
        ("fields", False),
        ("typed_graph", False),
        ("not_registered", False),
    ],
)
def test_documents_are_scored_as_documents_when_the_metric_reads_them(metric, reads):
    from ek.cli._commands._inputs import _reads_documents, statistic_names

    assert _reads_documents(metric) is reads
    assert statistic_names("cer") == ("edits", "ref_len") and statistic_names("not_registered") == ()


def test_wer_unicode_on_documents_gets_the_ocr_measures(tmp_path):
    # wer_unicode reads documents (it declares so), so a folder of texts gets its OCR measures
    gold, pred = tmp_path / "gold", tmp_path / "pred"
    gold.mkdir()
    pred.mkdir()
    (gold / "p1.txt").write_text("a lazy dog.\n", encoding="utf-8")
    (pred / "p1.txt").write_text("a lazy dog\n", encoding="utf-8")
    out = tmp_path / "r.json"
    assert main(["evaluate", str(gold), str(pred), "--metric", "wer_unicode", "--json", str(out)]) == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["aggregate"] == 0.0 and "measures" in report
