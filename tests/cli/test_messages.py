"""What ``ek`` says when a command line is wrong: one line, exit 2, in the command line's words.

Flags are never abbreviated and an unknown flag or command names the
closest known one; a message names flags and file roles (``--proxy file``,
``PRED``), never a Python function (``plan_audit()``), a parameter
(``text_level``) or ``None``. The cases are the ones issue 28 found.
"""

from __future__ import annotations

import re

import pytest

import ek.tools
from ek.cli import Options, run
from ek.cli._commands import OneOf, did_you_mean
from ek.cli._commands._options import in_flags

PYTHON_WORDS = re.compile(r"\w\(\)|\bNone\b|\b[a-z]+_[a-z_]+\b(?!\.)|\b[a-z_]+=")  # f(), None, snake_case, name=


def call(capsys, *argv):
    code = run(ek.cli.COMMANDS, list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def one_error(capsys, *argv) -> str:
    """The one line ``ek ARGV`` prints on stderr when it exits 2 with nothing on stdout."""
    code, out, err = call(capsys, *argv)
    assert code == 2 and out == "" and err.count("\n") == 1, (code, out, err)
    return err


@pytest.fixture()
def files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "g.jsonl").write_text('{"id": "a", "text": "the cat"}\n{"id": "b", "text": "a dog"}\n')
    (tmp_path / "p.jsonl").write_text('{"id": "a", "text": "the bat"}\n{"id": "b", "text": "a dog"}\n')
    (tmp_path / "dup.jsonl").write_text('{"id": "a", "text": "x"}\n{"id": "a", "text": "y"}\n')
    return tmp_path


# -- flags and commands ---------------------------------------------------------------------------


def test_a_prefix_of_a_flag_is_not_the_flag(files, capsys):
    for spelling in (["--htm", "r.html"], ["--htm=r.html"]):
        err = one_error(capsys, "evaluate", "g.jsonl", "p.jsonl", *spelling)
        assert err == "ek evaluate: error: unknown option --htm; did you mean --html? (see ek evaluate --help)\n"
    assert not (files / "r.html").exists()


def test_an_unknown_flag_names_the_closest(files, capsys):
    err = one_error(capsys, "evaluate", "g.jsonl", "p.jsonl", "--normalise", "lower")
    assert err == "ek evaluate: error: unknown option --normalise; did you mean --normalize? (see ek evaluate --help)\n"
    err = one_error(capsys, "evaluate", "g.jsonl", "p.jsonl", "--frobnicate")
    assert err == "ek evaluate: error: unknown option --frobnicate (see ek evaluate --help)\n"
    err = one_error(capsys, "--verison")
    assert err == "ek: error: unknown option --verison; did you mean --version? (see ek --help)\n"


def test_an_unknown_command_names_the_closest(capsys):
    assert (
        one_error(capsys, "evalute") == "ek: error: unknown command 'evalute'; did you mean evaluate? (see ek --help)\n"
    )
    assert one_error(capsys, "bench") == "ek: error: unknown command 'bench'; did you mean benchmark? (see ek --help)\n"


def test_an_extra_argument_is_named(files, capsys):
    err = one_error(capsys, "evaluate", "g.jsonl", "p.jsonl", "q.jsonl")
    assert err == "ek evaluate: error: unexpected argument 'q.jsonl' (see ek evaluate --help)\n"


def test_a_message_that_quotes_code_in_rest_is_printed_plain(tmp_path, capsys):
    page = tmp_path / "page.html"
    page.write_text("<html><body><p>no hOCR here</p></body></html>", encoding="utf-8")
    err = one_error(capsys, "evaluate", str(page), str(page))
    assert "give an hOCR file, e.g. from tesseract IMAGE OUT hocr" in err and "`" not in err


def test_version_flag_prints_what_the_version_command_prints(capsys):
    assert call(capsys, "version")[:2] == call(capsys, "--version")[:2] == (0, ek.tools.version() + "\n")


# -- values with a fixed list of choices ----------------------------------------------------------


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["--text-level", "lines"],
            "--text-level must be one of region, line, word, glyph, got 'lines'; did you mean line?",
        ),
        (["--profile", "dingle"], "--profile must be one of dinglehopper, got 'dingle'; did you mean dinglehopper?"),
        (["--words", "space"], "--words must be one of whitespace, unicode, got 'space'; did you mean whitespace?"),
        (["--pred-format", "pdf"], "--pred-format must be one of text, hocr, alto, page, abbyy, got 'pdf'"),
        (["--max-file-mb", "0"], "--max-file-mb must be a number of megabytes above 0, got 0"),
    ],
)
def test_a_value_off_the_list_names_the_list_and_the_closest(files, capsys, argv, message):
    err = one_error(capsys, "evaluate", "g.jsonl", "p.jsonl", *argv)
    assert err == f"ek evaluate: error: {message} (see ek evaluate --help)\n"
    assert "None" not in err


def test_a_profile_and_a_text_level_it_cannot_read(files, capsys):
    err = one_error(capsys, "evaluate", "g.jsonl", "p.jsonl", "--profile", "dinglehopper", "--text-level", "word")
    assert err == (
        "ek evaluate: error: --profile dinglehopper reads PAGE at region or line level only, not --text-level "
        "word; pass --text-level region or line, or leave out --profile.\n"
    )


def test_python_callers_get_the_same_checks():
    with pytest.raises(ValueError, match=r"^--text-level must be one of region, line, word, glyph, got 'lines'"):
        Options(text_level="lines")
    with pytest.raises(ValueError, match=r"^--profile dinglehopper reads PAGE at region or line level only"):
        Options(profile="dinglehopper", text_level="glyph")
    assert Options(profile="dinglehopper", text_level="line").text_level == "line"


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["audit-plan", "p.jsonl", "--proxy", "g.jsonl", "--budget", "1", "--strategy", "activ"],
            (
                "--strategy must be "
                "one of uniform, stratified, active, got 'activ'; did you mean active? (see ek audit-plan --help)"
            ),
        ),
        (
            ["estimate", "p.jsonl", "--proxy", "g.jsonl", "--audit", "g.jsonl", "--interval", "boot"],
            ("--interval must be one of clt, bootstrap, got 'boot'; did you mean bootstrap? (see ek estimate --help)"),
        ),
        (["pass-k", "ten", "9"], "N must be a whole number, got 'ten' (see ek pass-k --help)"),
    ],
)
def test_choices_and_numbers_on_other_commands(files, capsys, argv, message):
    assert one_error(capsys, *argv) == f"ek {argv[0]}: error: {message}\n"


def test_one_of_and_did_you_mean():
    check = OneOf("--mode", ("fast", "exact"))
    assert check("fast") == "fast" and check.choices == ("fast", "exact")
    with pytest.raises(ValueError, match=r"^--mode must be one of fast, exact, got 'fats'; did you mean fast\?$"):
        check("fats")
    with pytest.raises(ValueError, match=r"^--mode must be one of fast, exact, got 'zzz'$"):
        check("zzz")
    assert did_you_mean("--htm", ["--html", "--json"]) == "; did you mean --html?" and did_you_mean("q", ["xyz"]) == ""


# -- files named by their role --------------------------------------------------------------------


def test_the_proxy_and_audit_files_are_named_by_their_flags(files, capsys):
    no_file = "does not exist; give a .jsonl, .json, .csv or .tsv file, a document or a folder.\n"
    err = one_error(capsys, "estimate", "p.jsonl", "--proxy", "nope.jsonl", "--audit", "g.jsonl")
    assert err == f"ek estimate: error: --proxy file nope.jsonl {no_file}"
    err = one_error(capsys, "estimate", "p.jsonl", "--proxy", "g.jsonl", "--audit", "nope.jsonl")
    assert err == f"ek estimate: error: --audit file nope.jsonl {no_file}"
    err = one_error(capsys, "audit-plan", "p.jsonl", "--proxy", "nope.jsonl", "--budget", "1")
    assert err == f"ek audit-plan: error: --proxy file nope.jsonl {no_file}"
    err = one_error(capsys, "estimate", "p.jsonl", "--proxy", "dup.jsonl", "--audit", "g.jsonl")
    assert err.startswith("ek estimate: error: --proxy file dup.jsonl has the id 'a' twice") and "GOLD" not in err
    err = one_error(capsys, "evaluate", "nope.jsonl", "p.jsonl")  # ek evaluate's own GOLD stays GOLD
    assert err == f"ek evaluate: error: GOLD nope.jsonl {no_file}"


def test_compare_of_two_metrics_names_no_function(files, capsys):
    assert call(capsys, "evaluate", "g.jsonl", "p.jsonl", "--save", "run-a")[0] == 0
    assert call(capsys, "evaluate", "g.jsonl", "p.jsonl", "--save", "run-b", "--metric", "wer")[0] == 0
    err = one_error(capsys, "compare", "g.jsonl", "run-a", "run-b")
    assert err == (
        "ek compare: error: got a 'cer' report and a 'wer' report; compare two runs scored with the same metric.\n"
    )


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--budget", "0"], "--budget must be a positive number of items to audit, got 0.0."),
        (
            ["--budget", "5"],
            (
                "--budget 5 is larger than the corpus (2 items); audit at most every item, and then "
                "the audit alone is the answer (ek evaluate)."
            ),
        ),
        (
            ["--budget", "1", "--strategy", "active", "--min-prob", "2"],
            ("--min-prob must be in (0, 1] (every item keeps a chance to be drawn), got 2.0."),
        ),
    ],
)
def test_audit_plan_speaks_in_flags(files, capsys, argv, message):
    err = one_error(capsys, "audit-plan", "p.jsonl", "--proxy", "g.jsonl", *argv)
    assert err == f"ek audit-plan: error: {message}\n"


def test_estimate_lam_out_of_range(files, capsys):
    err = one_error(capsys, "estimate", "p.jsonl", "--proxy", "g.jsonl", "--audit", "g.jsonl", "--lam", "2")
    assert (
        err
        == "ek estimate: error: --lam must be 'tune' or a number from 0 to 1 (0: the audit alone, 1: plain PPI), got '2'.\n"
    )


def test_in_flags_rewrites_a_python_message():
    exc = ValueError("estimate_corpus() got metric='cer' and plan=; use the same metric= and normalize=.")
    flags = {"metric=": "--metric", "normalize=": "--normalize", "plan=": "--plan"}
    assert str(in_flags(exc, "estimate_corpus", flags)) == (
        "got --metric 'cer' and --plan; use the same --metric and --normalize."
    )
    assert str(in_flags(ValueError("f: min_prob is 2, not min_probability"), "f", {"min_prob": "--min-prob"})) == (
        "--min-prob is 2, not min_probability"
    )


# -- the small commands ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv, message",
    [
        (["pass-k", "3", "5"], "5 successes out of 3 trials cannot be; the successes are 0 to 3 of the trials."),
        (
            ["pass-k", "3", "2", "--k", "4"],
            ("k must be 1 to 3 (the number of trials), got 4; pass@k needs k trials or more."),
        ),
        (
            ["cost-per-success", "10", "5", "--attempts", "2"],
            ("2 attempts are fewer than the 5 successes; the attempts count every trial, failed ones included."),
        ),
        (["check", " "], "an empty engine id names no engine; name one, e.g. tesseract (ek engines lists them)."),
    ],
)
def test_small_commands_speak_in_their_arguments(capsys, argv, message):
    err = one_error(capsys, *argv)
    assert err == f"ek {argv[0]}: error: {message}\n"
    assert not re.search(r"\w\(\)|\bNone\b|\b[a-z]+=\d", err)


def test_no_message_above_speaks_python(files, capsys):
    """Every mistake of this module, once more, against the words a Python message would use."""
    cases = [
        ["evaluate", "g.jsonl", "p.jsonl", "--text-level", "lines"],
        ["evaluate", "g.jsonl", "p.jsonl", "--profile", "dinglehopper", "--text-level", "word"],
        ["estimate", "p.jsonl", "--proxy", "nope.jsonl", "--audit", "g.jsonl"],
        ["audit-plan", "p.jsonl", "--proxy", "g.jsonl", "--budget", "5"],
        ["audit-plan", "p.jsonl", "--proxy", "g.jsonl", "--budget", "1", "--strategy", "active", "--min-prob", "2"],
        ["estimate", "p.jsonl", "--proxy", "g.jsonl", "--audit", "g.jsonl", "--lam", "2"],
        ["pass-k", "3", "5"],
        ["cost-per-success", "10", "5", "--attempts", "2"],
    ]
    for argv in cases:
        err = one_error(capsys, *argv).split(": error: ", 1)[1]
        assert not PYTHON_WORDS.search(err.replace("pass@k", "")), (argv, err)


def test_a_value_printed_to_a_closed_pipe_is_not_an_error(tmp_path):
    # ek cost-per-success ... | head -c 1: a plain value's JSON goes out as an Outcome's text does
    import subprocess
    import sys

    script = f"{sys.executable} -m ek pass-k 10 9 --k 8 | head -c 1"
    done = subprocess.run(["sh", "-c", script], capture_output=True, text=True, timeout=120)
    assert done.stdout == "{" and "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr
