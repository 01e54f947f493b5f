"""What read a fleet's pages (`ek.ocr._fleet.versions`): engine versions and model files, asked once per run.

Each figure is checked against another source than the one the code reads:
Tesseract's language folder and files against the file system, the version
string inside a ``.traineddata`` against ``combine_tessdata -d`` (Tesseract's
own tool) and against a file built here byte by byte, RapidOCR's models
against its ``config.yaml`` read by PyYAML.
"""

from __future__ import annotations

import importlib.metadata
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from ek.ocr import benchmark_fleet
from ek.ocr._fleet import versions
from ek.ocr._fleet.engines import engine_specs
from tests.ocr import _fleet_fakes as fakes

requires_tesseract = pytest.mark.needs("tesseract")
requires_rapidocr = pytest.mark.needs("rapidocr_onnxruntime")


def record(engine, **options):
    spec = engine_specs({"e": (engine, options)} if options else {"e": engine})
    return versions.engine_versions(spec)["e"]


def traineddata(path: Path, version: bytes | None, n: int = 24) -> Path:
    """A ``.traineddata`` of ``n`` entries holding only an LSTM stub and, when given, a version string."""
    header = 4 + 8 * n
    lstm = b"\x01" * 16
    offsets = [-1] * n
    offsets[min(17, n - 1)] = header
    body = lstm
    if version is not None:
        offsets[23] = header + len(lstm)
        body += version
    path.write_bytes(struct.pack(f"<i{n}q", n, *offsets) + body)
    return path


def test_the_version_string_of_a_traineddata_built_byte_by_byte(tmp_path):
    assert versions._traineddata_version(traineddata(tmp_path / "x.traineddata", b"4.1.0:x:test")) == "4.1.0:x:test"
    assert versions._traineddata_version(traineddata(tmp_path / "y.traineddata", None)) is None
    assert versions._traineddata_version(traineddata(tmp_path / "z.traineddata", None, n=11)) is None  # osd's shape
    (tmp_path / "bad.traineddata").write_bytes(b"\x00\x01")
    assert versions._traineddata_version(tmp_path / "bad.traineddata") is None


@requires_tesseract
def test_tesseract_version_and_language_files_as_the_system_gives_them():
    program = shutil.which("tesseract")
    got = record("tesseract", lang="deu+eng")
    done = subprocess.run([program, "--version"], capture_output=True, text=True, check=True)
    assert got["version"] == done.stdout.splitlines()[0].strip() and got["version"].startswith("tesseract ")
    assert got["packages"]["pytesseract"] == importlib.metadata.version("pytesseract")
    listing = subprocess.run([program, "--list-langs"], capture_output=True, text=True, check=True).stdout
    folder = Path(listing.split('"')[1])
    assert [m["name"] for m in got["models"]] == ["deu", "eng"] and got["missing"] == []
    for model in got["models"]:
        path = folder / f"{model['name']}.traineddata"
        assert (model["file"], Path(model["path"]), model["bytes"]) == (path.name, path, path.stat().st_size)
        combine = shutil.which("combine_tessdata")
        if combine is not None:  # Tesseract's own tool prints "Version:<string>"
            done = subprocess.run([combine, "-d", str(path)], capture_output=True, text=True)
            out = done.stdout + done.stderr
            stated = next(line.split(":", 1)[1] for line in out.splitlines() if line.startswith("Version:"))
            assert model["version"] == stated.strip()
    assert [m["name"] for m in record("tesseract")["models"]] == ["eng"]  # Tesseract's own default


@requires_tesseract
def test_a_language_file_from_a_tessdata_folder_of_ones_own(tmp_path, monkeypatch):
    traineddata(tmp_path / "fake.traineddata", b"9.9:fake:made-here")
    monkeypatch.setenv("TESSDATA_PREFIX", f"{tmp_path}/")  # where Tesseract then looks, as --list-langs says
    got = record("tesseract", lang="fake")
    assert [(m["name"], m["version"], Path(m["path"]).parent) for m in got["models"]] == [
        ("fake", "9.9:fake:made-here", tmp_path)
    ]
    missing = record("tesseract", lang="fake+nope")
    assert [m["name"] for m in missing["models"]] == ["fake"]
    assert missing["missing"] == [f"no nope.traineddata in {tmp_path}"]


def test_tesseract_not_on_path_is_said_not_hidden(monkeypatch):
    from ek.ocr import _engines

    monkeypatch.setattr(_engines, "program_path", lambda engine_id: None)
    got = record("tesseract")
    assert got["version"] is None and got["models"] == []
    assert got["missing"] == ["the tesseract program is not on PATH, so its version is unknown"]


@requires_rapidocr
def test_rapidocr_package_and_the_three_models_its_config_names():
    import rapidocr_onnxruntime
    import yaml

    folder = Path(rapidocr_onnxruntime.__file__).parent
    config = yaml.safe_load((folder / "config.yaml").read_text(encoding="utf-8"))
    got = record("rapidocr")
    assert got["version"] == f"rapidocr_onnxruntime {importlib.metadata.version('rapidocr_onnxruntime')}"
    assert got["packages"]["onnxruntime"] == importlib.metadata.version("onnxruntime")
    expected = [(section.lower(), folder / config[section]["model_path"]) for section in ("Det", "Rec", "Cls")]
    assert [(m["role"], Path(m["path"])) for m in got["models"]] == expected
    assert all(m["bytes"] == Path(m["path"]).stat().st_size for m in got["models"]) and got["missing"] == []


def test_an_engine_ek_cannot_ask_and_a_callable_say_so():
    other = versions._ocracy_version("easyocr", {})
    assert other["version"] is None and other["missing"] == [
        "ek does not know how to ask easyocr for its version or models (only ocracy's version is recorded)"
    ]
    assert record(fakes.careful)["missing"] == [
        "a callable engine gives no version; give it a 'version' attribute (a str) to have one recorded"
    ]

    def mine(image):
        return fakes.careful(image)

    mine.version = "mine 2.1"
    assert record(mine) == {"version": "mine 2.1", "packages": {}, "models": [], "missing": []}


def test_a_fleet_asks_each_engine_once_not_once_per_page(monkeypatch):
    asked = []
    monkeypatch.setattr(versions, "_callable_version", lambda engine: asked.append(engine) or {"version": "v"})
    report = benchmark_fleet({"careful": fakes.careful, "sloppy": fakes.sloppy}, fakes.gold(6))
    assert asked == [fakes.careful, fakes.sloppy]
    assert report["careful"].version == {"version": "v"} and report.consensus.version is None


@requires_tesseract
def test_engines_of_one_program_and_languages_share_one_question(monkeypatch):
    calls = []
    real = versions._ask
    monkeypatch.setattr(versions, "_ask", lambda argv: calls.append(argv[1:]) or real(argv))
    got = versions.engine_versions(engine_specs(["tesseract", "tesseract:psm=6", "tesseract:lang=deu"]))
    assert calls == [["--version"], ["--list-langs"]] * 2  # eng (twice over) and deu
    assert got["tesseract"] is got["tesseract:psm=6"]
