"""Fake Tesseract and RapidOCR for the demo tests: the readers of tests/ocr/_fleet_fakes over the bundled images.

`fake_engines` is a fixture (tests/demo/conftest.py offers it to every test here).

``ek benchmark --engine tesseract --engine rapidocr`` runs as it does for
the real engines (the gold file read, the images checked, every engine's run,
the scores, ROVER, the tables), but each engine is a `reader` whose table
says what it reads on each bundled image, so no engine needs to be installed
and each figure can be worked out from the gold text.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ek.cli._demo import _fleet
from tests.ocr._fleet_fakes import Result, reader


def records(name: str) -> list[dict]:
    """The records of the bundled gold file ``name`` (`_fleet.FULL` or `_fleet.SUBSET`)."""
    text = _fleet.bundled(name).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def fake_tesseract_text(record: dict) -> str:
    """What the fake Tesseract reads: the gold text, without its last word on odd-numbered images."""
    text = record["reference_text"]
    return text.rsplit(" ", 1)[0] if _number(record) % 2 else text


def fake_rapidocr_text(record: dict) -> str:
    """What the fake RapidOCR reads: the gold text, with its first 'e' read as 'c' on every third image."""
    text = record["reference_text"]
    return text.replace("e", "c", 1) if _number(record) % 3 == 0 else text


def _number(record: dict) -> int:
    return int(record["id"].rsplit("-", 1)[1])


def _tables() -> dict[str, dict[str, Result]]:
    """engine -> image file name -> its reading, for every bundled image."""
    tables: dict[str, dict[str, Result]] = {"tesseract": {}, "rapidocr": {}}
    for record in records(_fleet.FULL):
        name = Path(record["image"]).name
        words = fake_tesseract_text(record)
        confidence = 0.6 if _number(record) % 2 else 0.95
        tables["tesseract"][name] = Result(words, [confidence] * len(words.split()))
        line = fake_rapidocr_text(record)
        tables["rapidocr"][name] = Result(line, [0.9] * len(line.splitlines()), level="line")
    return tables


@pytest.fixture()
def fake_engines(monkeypatch):
    """Both engines ready and faked; returns ``engine -> the image file names it was given``, in call order."""
    for module in ("ocracy", "PIL"):  # engine ids resolve through ocracy; the fleet opens each image first
        pytest.importorskip(module, reason=f'{module} is not installed: pip install "ek[ocr]"')
    from ek.ocr import _engines
    from ek.ocr._fleet import engines as _fleet_engines
    from ek.ocr._fleet.engines import EngineSpec

    bind = _fleet_engines.fleet_engine
    tables = _tables()
    seen: dict[str, list[str]] = {name: [] for name in tables}

    def fake(spec):
        read = reader(tables[spec.name])

        def engine(image):
            seen[spec.name].append(Path(image).name)
            return read(Path(image).name)

        return bind(EngineSpec(spec.name, engine))  # the fleet's own binding of a callable engine

    def ready(engine):
        return {"ok": True, "state": "ready", "hint": f"{engine!r} is ready to run."}

    monkeypatch.setattr(_fleet, "check_requirements", lambda engine: ready(engine))
    monkeypatch.setattr(_engines, "check_engine", ready)
    monkeypatch.setattr(_fleet_engines, "fleet_engine", fake)
    return seen
