"""ek.ocr._engines: engine ids and the readiness report behind `ek engines` / `ek check`."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys

import ocracy
import pytest

from ek.ocr._engines import check_engine, installed_engines, resolve_engine_id
from ek.ocr._ids import canonical_id
from ek.registry import MissingExtraError

requires_tesseract = pytest.mark.needs("tesseract")  # the program (tests/conftest.py: PROGRAMS)


@pytest.mark.parametrize(
    "spelling, expected",
    [
        ("google_vision", "google-vision"),
        ("AWS_Textract", "aws-textract"),
        (" tesseract ", "tesseract"),
    ],
)
def test_canonical_id(spelling, expected):
    assert canonical_id(spelling) == expected
    assert resolve_engine_id(spelling) == expected


def test_resolve_unknown_engine_lists_known():
    with pytest.raises(KeyError, match=r"no OCR engine 'paddle'.*Known engines: aws-textract, "):
        resolve_engine_id("paddle")


def test_installed_engines_agree_with_ocracy():
    found = installed_engines()
    assert found == sorted(found)
    assert set(found) <= set(ocracy.available_backends())


@requires_tesseract
def test_tesseract_is_installed_and_ready():
    assert "tesseract" in installed_engines()
    report = check_engine("tesseract")
    assert report["ok"] is True and report["known"] is True and report["package"] is True
    assert report["binary"] == shutil.which("tesseract")
    assert report["profile"]["confidence_grain"] == "symbol"
    assert report["hint"] == "'tesseract' is ready to run."


def test_missing_binary_is_reported_with_the_install_line(monkeypatch):
    pytest.importorskip("pytesseract")
    monkeypatch.setattr("ek.ocr._engines.shutil.which", lambda name: None)
    report = check_engine("tesseract")
    assert report["ok"] is False and report["binary"] is None and report["package"] is True
    assert re.search(r"(apt-get|brew|choco) install .*tesseract", report["hint"])
    assert "tesseract" not in installed_engines()


def test_unknown_engine_is_reported_not_raised():
    report = check_engine("tesserakt")
    assert report["ok"] is False and report["known"] is False
    assert "Did you mean 'tesseract'?" in report["hint"] and "Known engines:" in report["hint"]
    assert report["profile"]["confidence_grain"] == "unknown"


def test_remote_engine_without_credentials_names_the_variable(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    report = check_engine("gpt_4o_vision")
    assert report["engine"] == "gpt-4o-vision" and report["ok"] is False
    assert any("OPENAI_API_KEY" in c for c in report["credentials"])
    assert "OPENAI_API_KEY" in report["hint"]


def test_without_ocracy(monkeypatch):
    monkeypatch.setitem(sys.modules, "ocracy", None)
    monkeypatch.setattr("ek.ocr._engines.is_installed", lambda name: False)
    monkeypatch.setattr("ek.ocr._engines.shutil.which", lambda name: None)
    report = check_engine("tesseract")
    assert report["ok"] is False and report["known"] is None and report["binary"] is None
    assert report["hint"] == (
        'OCR engines run through ocracy, which is not installed. Run: pip install "ek[ocr]" ; '
        + {"linux": "apt-get install -y tesseract-ocr", "darwin": "brew install tesseract"}.get(
            sys.platform, "choco install tesseract (or the UB-Mannheim installer)"
        )
    )
    with pytest.raises(MissingExtraError, match=r'Listing OCR engines needs .*pip install "ek\[ocr\]"'):
        installed_engines()


def test_without_ocracy_a_tesseract_program_already_there_needs_only_the_pip_line(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ocracy", None)
    monkeypatch.setattr("ek.ocr._engines.is_installed", lambda name: False)
    monkeypatch.setattr(
        "ek.ocr._engines.shutil.which", lambda name: "/opt/bin/tesseract" if name == "tesseract" else None
    )
    report = check_engine("tesseract")
    assert report["binary"] == "/opt/bin/tesseract" and report["state"] == "not installed"
    assert report["hint"] == (
        "OCR engines run through ocracy, which is not installed; the tesseract program is installed "
        '(/opt/bin/tesseract), so only the Python side is missing. Run: pip install "ek[ocr]"'
    )
    code, out, err = _main(capsys, "check", "tesseract")
    assert code == 2 and json.loads(out)["binary"] == "/opt/bin/tesseract"
    assert err == "ek check: " + report["hint"] + "\n" and "apt-get" not in err


def test_tesseract_program_there_but_pytesseract_missing_names_only_the_pip_line(monkeypatch, capsys):
    import dataclasses

    real = ocracy.requirements("tesseract")
    monkeypatch.setattr(ocracy, "requirements", lambda b: dataclasses.replace(real, available=False))
    monkeypatch.setattr(ocracy, "is_set_up", lambda b: False)
    monkeypatch.setattr("ek.ocr._engines.is_installed", lambda name: name != "pytesseract" and _really_installed(name))
    monkeypatch.setattr(
        "ek.ocr._engines.shutil.which", lambda name: "/opt/bin/tesseract" if name == "tesseract" else None
    )
    report = check_engine("tesseract")
    assert report["package"] is False and report["binary"] == "/opt/bin/tesseract"
    assert report["hint"] == (
        "'tesseract' is not ready: its Python package is not installed (the tesseract program it runs is, "
        f"at /opt/bin/tesseract). Run: {real.pip_command}"
    )
    code, _, err = _main(capsys, "check", "tesseract")
    assert code == 2 and "apt-get" not in err and real.pip_command in err


def test_check_takes_an_engine_with_options_as_benchmark_does(capsys):
    report = check_engine("tesseract:lang=deu,psm=6")
    assert report["engine"] == "tesseract" and report["known"] is True
    assert report["options"] == {"lang": "deu", "psm": 6}  # parsed as a fleet parses them
    assert check_engine("tesseract")["options"] == {}
    with pytest.raises(ValueError, match=r"option psm='99' of 'tesseract': it must be a whole number from 0 to 13"):
        check_engine("tesseract:psm=99")
    with pytest.raises(ValueError, match=r"'tesseract' takes no option 'langs'\. Did you mean 'lang'\?"):
        check_engine("tesseract:langs=deu")
    code, out, err = _main(capsys, "check", "tesseract:lang=deu")
    assert json.loads(out)["engine"] == "tesseract" and "no OCR engine" not in err
    code, out, err = _main(capsys, "check", "tesseract:lang")
    assert code == 2 and out == ""
    assert err == (
        "ek check: error: engine 'tesseract:lang': 'lang' is not name=value; write the options as "
        "'tesseract:name=value,name=value', e.g. 'tesseract:lang=deu,psm=6'.\n"
    )


def test_check_engine_needs_an_id():
    with pytest.raises(ValueError, match="empty engine id"):
        check_engine("  ")
    with pytest.raises(TypeError, match="takes an engine id such as 'tesseract', got int"):
        check_engine(3)


# --------------------------------------------------------------------------
# issue 19: `ek engines` lists an engine as usable only when `ek check` says it is ready;
# `ek check` exits 2 when it is not, with the reason and the fix
# --------------------------------------------------------------------------


def _cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "ek", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={k: v for k, v in os.environ.items() if k != "GOOGLE_APPLICATION_CREDENTIALS"},
    )


def _main(capsys, *args):
    from ek.__main__ import main

    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


@requires_tesseract
def test_cli_check_tesseract_is_ready_and_exits_0():
    out = _cli("check", "tesseract")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["ok"] is True and report["state"] == "ready" and report["binary"] == shutil.which("tesseract")
    assert out.stderr == ""


@requires_tesseract
def test_cli_engines_lists_tesseract_as_ready():
    out = _cli("engines")
    assert out.returncode == 0, out.stderr
    listed = {e["engine"]: e for e in json.loads(out.stdout)}
    assert listed["tesseract"] == {"engine": "tesseract", "state": "ready", "hint": "'tesseract' is ready to run."}
    # every engine listed is one ek check judges, and only "ready" ones say they are ready
    for entry in listed.values():
        assert entry["state"] in ("ready", "installed, not configured", "not ready")
        assert (entry["state"] == "ready") == (entry["hint"] == f"{entry['engine']!r} is ready to run.")


def test_cli_check_google_vision_is_not_ready_and_exits_2():
    if check_engine("google-vision")["ok"]:
        pytest.skip("google-vision is set up on this machine")
    out = _cli("check", "google-vision")
    assert out.returncode == 2
    report = json.loads(out.stdout)
    assert report["ok"] is False and report["engine"] == "google-vision"
    assert out.stderr.startswith("ek check: 'google-vision' is not ready: ")
    assert "GOOGLE_APPLICATION_CREDENTIALS" in out.stderr
    if not report["package"]:  # here: the package is missing, so the install line is the first fix
        assert report["state"] == "not installed"
        assert re.search(
            r"its Python package is not installed.*Run: pip install \"ocracy\[google-vision\]\"", out.stderr
        )


def _fake_cloud(monkeypatch, engine="mathpix", variable="FAKE_OCR_KEY"):
    """Make ``engine`` a cloud engine whose package is installed and whose one credential is unset."""
    from ocracy.kit.install import Requirements

    real = ocracy.requirements
    fake = Requirements(
        backend_id=engine,
        implemented=True,
        available=True,
        is_local=False,
        is_remote=True,
        pip_command=f'pip install "ocracy[{engine}]"',
        credentials=[f"export {variable}  (get a key: https://example.invalid/key)"],
    )
    monkeypatch.setattr(ocracy, "requirements", lambda b: fake if b == engine else real(b))
    monkeypatch.setattr(ocracy, "is_set_up", lambda b, _real=ocracy.is_set_up: False if b == engine else _real(b))
    monkeypatch.setattr(ocracy, "available_backends", lambda: [engine, "tesseract"])
    monkeypatch.delenv(variable, raising=False)


def test_cloud_engine_without_credentials_is_installed_not_configured(monkeypatch, capsys):
    _fake_cloud(monkeypatch)
    report = check_engine("mathpix")
    assert report["ok"] is False and report["state"] == "installed, not configured" and report["package"] is True
    assert report["hint"] == (
        "'mathpix' is not ready: its credential FAKE_OCR_KEY is not set. "
        "Run: export FAKE_OCR_KEY  (get a key: https://example.invalid/key)"
    )
    code, out, err = _main(capsys, "check", "mathpix")
    assert code == 2 and json.loads(out)["state"] == "installed, not configured"
    assert err.strip() == "ek check: " + report["hint"]
    code, out, err = _main(capsys, "engines")
    assert code == 0
    listed = {e["engine"]: e["state"] for e in json.loads(out)}
    assert listed["mathpix"] == "installed, not configured"  # shown, but not as usable


def test_cloud_engine_with_its_credential_set_is_ready(monkeypatch, capsys):
    _fake_cloud(monkeypatch)
    monkeypatch.setattr(ocracy, "is_set_up", lambda b: True)
    monkeypatch.setenv("FAKE_OCR_KEY", "k")
    code, out, err = _main(capsys, "check", "mathpix")
    assert code == 0 and json.loads(out)["state"] == "ready" and err == ""


def test_missing_program_makes_check_exit_2_with_the_install_line(monkeypatch, capsys):
    pytest.importorskip("pytesseract")
    monkeypatch.setattr("ek.ocr._engines.shutil.which", lambda name: None)
    code, out, err = _main(capsys, "check", "tesseract")
    assert code == 2 and json.loads(out)["state"] == "not installed"
    assert re.search(
        r"'tesseract' is not ready: the 'tesseract' program it runs is not on PATH\. "
        r"Run: .*(apt-get|brew|choco) install",
        err,
    )
    code, out, _ = _main(capsys, "engines")
    assert "tesseract" not in {e["engine"] for e in json.loads(out)}  # not installed: not listed


@requires_tesseract
def test_engine_ocracy_cannot_run_for_another_reason_is_not_ready(monkeypatch):
    pytest.importorskip("pytesseract")
    monkeypatch.setattr(ocracy, "is_set_up", lambda b: False)  # package and program present, yet not set up
    report = check_engine("tesseract")
    assert report["state"] == "not ready" and report["ok"] is False
    assert report["hint"] == (
        "'tesseract' is not ready: ocracy says it cannot run here. See ocracy.requirements('tesseract').instructions()."
    )


def test_bad_engine_id_exits_2(capsys):
    code, _, err = _main(capsys, "check", " ")
    assert code == 2
    assert (
        err
        == "ek check: error: an empty engine id names no engine; name one, e.g. tesseract (ek engines lists them).\n"
    )


# --------------------------------------------------------------------------
# issue 21: RapidOCR runs with the models bundled in rapidocr_onnxruntime (the `rapidocr` extra)
# --------------------------------------------------------------------------

_RAPIDOCR = check_engine("rapidocr")
requires_rapidocr = pytest.mark.skipif(not _RAPIDOCR["ok"], reason=_RAPIDOCR["hint"])
_NO_BUNDLED_MODELS = (
    "'rapidocr' is not ready: ek runs it with the PP-OCR models bundled in rapidocr_onnxruntime "
    "(rapidocr 3.x downloads its models when first run), and rapidocr_onnxruntime is not installed. "
    'Run: pip install "ek[rapidocr]" (or: pip install rapidocr_onnxruntime onnxruntime)'
)


@requires_rapidocr
def test_rapidocr_is_installed_and_ready(capsys):
    assert "rapidocr" in installed_engines()
    assert _RAPIDOCR["state"] == "ready" and _RAPIDOCR["package"] is True and _RAPIDOCR["binary"] is None
    assert _RAPIDOCR["profile"]["confidence_grain"] == "line"
    code, out, err = _main(capsys, "check", "rapidocr")
    assert code == 0 and json.loads(out)["state"] == "ready" and err == ""
    code, out, _ = _main(capsys, "engines")
    listed = {e["engine"]: e for e in json.loads(out)}
    assert listed["rapidocr"] == {"engine": "rapidocr", "state": "ready", "hint": "'rapidocr' is ready to run."}


def test_rapidocr_3_alone_is_not_enough(monkeypatch, capsys):
    # ocracy would take rapidocr 3.x (its own probe says yes), but ek runs the bundled models only
    monkeypatch.setattr(
        "ek.ocr._engines.is_installed", lambda name: name != "rapidocr_onnxruntime" and _really_installed(name)
    )
    monkeypatch.setattr(ocracy, "is_set_up", lambda b, _real=ocracy.is_set_up: True if b == "rapidocr" else _real(b))
    report = check_engine("rapidocr")
    assert report["state"] == "not installed" and report["ok"] is False and report["package"] is False
    assert report["hint"] == _NO_BUNDLED_MODELS
    assert "rapidocr" not in installed_engines()
    code, out, err = _main(capsys, "check", "rapidocr")
    assert code == 2 and json.loads(out)["state"] == "not installed"
    assert err.strip() == "ek check: " + _NO_BUNDLED_MODELS


def test_rapidocr_without_onnxruntime_names_both_fixes(monkeypatch):
    monkeypatch.setattr(
        "ek.ocr._engines.is_installed", lambda name: name not in ("rapidocr_onnxruntime", "onnxruntime")
    )
    report = check_engine("rapidocr")
    assert report["state"] == "not installed"
    assert (
        'and rapidocr_onnxruntime and onnxruntime are not installed. Run: pip install "ek[rapidocr]"' in report["hint"]
    )


def test_the_rapidocr_extra_is_known_to_check_requirements(monkeypatch):
    from ek.registry import check_requirements

    monkeypatch.setattr("ek.registry.is_installed", lambda name: name != "onnxruntime")
    assert check_requirements(extra="rapidocr") == {
        "ok": False,
        "extra": "rapidocr",
        "missing": ["onnxruntime"],
        "hint": 'Install with: pip install "ek[rapidocr]"',
    }


def test_the_rapidocr_extra_pulls_the_bundled_models_not_rapidocr_3():
    from pathlib import Path

    tomllib = pytest.importorskip("tomllib")  # Python 3.11+

    pyproject = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text(encoding="utf-8"))
    extras = pyproject["project"]["optional-dependencies"]
    names = [re.split(r"[<>=;\[ ]", r)[0].lower() for r in extras["rapidocr"]]
    assert names == ["ocracy", "rapidocr_onnxruntime", "onnxruntime"]
    assert not any("rapidocr]" in r for group in extras.values() for r in group)  # never ocracy[rapidocr]
    assert any(r.startswith("ek[") and "rapidocr" in r for r in extras["test"])  # CI runs the real engine


def _really_installed(name):
    """ek's own probe, before a test replaces it."""
    from ek._util import is_installed

    return is_installed(name)


def test_without_ocracy_each_engine_names_the_extra_that_brings_it(monkeypatch):
    from ek.ocr._engines import check_engine

    monkeypatch.setattr("ek.ocr._engines.is_installed", lambda name: name != "ocracy")
    assert 'pip install "ek[rapidocr]"' in check_engine("rapidocr")["hint"]
    assert 'pip install "ek[ocr]"' in check_engine("tesseract")["hint"]
