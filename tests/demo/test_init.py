"""ek.cli._demo: ``ek demo`` and ``ek demo --engines``, the whole text (the engines faked)."""

from __future__ import annotations

from pathlib import Path

from ek.__main__ import main
from ek.cli._demo import _fleet, demo
from tests.demo._fakes import records
from tests.ocr._fleet_fakes import without_seconds

HEADS = ("1. ", "2. ", "3. ", "4. ")


def sections(text: str) -> dict[str, str]:
    """The demo's text cut at its numbered headings: heading number -> that section (the preamble is "0")."""
    out, current = {"0": []}, "0"
    for line in text.splitlines():
        if line.startswith(HEADS):
            current = line[0]
            out[current] = []
        out[current].append(line)
    return {k: "\n".join(v) for k, v in out.items()}


def test_ek_demo_runs_the_subset_and_ek_demo_engines_every_image(fake_engines, capsys):
    assert main(["demo"]) == 0
    default = capsys.readouterr().out
    subset = sorted(Path(r["image"]).name for r in records(_fleet.SUBSET))
    assert sorted(fake_engines["tesseract"]) == subset
    fake_engines["tesseract"].clear()
    assert main(["demo", "--engines"]) == 0
    every = capsys.readouterr().out
    assert sorted(fake_engines["tesseract"]) == sorted(Path(r["image"]).name for r in records(_fleet.FULL))
    short, full = sections(default), sections(every)
    assert set(short) == set(full) == {"0", "1", "2", "3", "4"}
    assert "on 6 pages, 2 engines" in short["2"] and str(_fleet.bundled(_fleet.SUBSET)) in short["2"]
    assert "on 54 pages, 2 engines" in full["2"] and str(_fleet.bundled(_fleet.FULL)) in full["2"]
    for part in ("0", "1", "3", "4"):  # only the engine section depends on --engines
        assert short[part] == full[part], part


def test_demo_prints_the_fleet_section_in_its_place(fake_engines):
    for engines in (False, True):
        text = demo(engines=engines)
        assert without_seconds(_fleet.fleet_demo(full=engines)) == without_seconds(sections(text)["2"]).rstrip()
