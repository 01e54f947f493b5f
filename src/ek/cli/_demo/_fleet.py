"""The engine part of ``ek demo``: run the fleet (Tesseract and RapidOCR) over the bundled real corpus.

The corpus (``ek/data/ocr_fleet``: line and page images rendered from
public-domain prose with blur, noise, skew and low contrast, with their
gold text; ``scripts/make_fleet_corpus.py`` builds it) is read by ``ek
benchmark``, so the demo prints exactly what that command prints, and the
command itself to run it again. Engines that are not installed are left out
and named with their install line; with none installed the section says how
to install them.

By default the fleet reads `SUBSET`, so that ``ek demo`` takes seconds: both
engines over all 54 images of `FULL` cost about 90 CPU-seconds, more than
half of it RapidOCR finding the text on the six pages. The subset is six
lines, two per slice, one English and one German: in each slice and
language the first line the two engines (Tesseract 5.3, RapidOCR 1.4) read
differently, since where both read a line right every figure is 0. Six
items are too few for an interval (`ek._bootstrap` gives none below 40), so
the ranking says "needs more items" where the full run has one;
``full=True`` (``ek demo --engines``) reads `FULL`.
"""

from __future__ import annotations

import shlex
from importlib import resources
from importlib.abc import Traversable
from typing import TypedDict

from ek.registry import check_requirements

ENGINES = ("tesseract", "rapidocr")
"""The engines the demo runs when they are installed."""

FULL = "ocr_fleet/gold.jsonl"
"""Every bundled page and line (``ek demo --engines``), under ``ek/data``."""

SUBSET = "demo_fleet.jsonl"
"""The six lines ``ek demo`` reads by default, under ``ek/data``: records of `FULL`, their images its own."""


class BenchmarkArgs(TypedDict):
    """The options of ``ek benchmark`` the demo sets: the engines, and how many pages are read at once."""

    engine: list[str]
    max_workers: int | None


def fleet_demo(*, full: bool = False) -> str:
    """The ranking of the installed engines on six bundled lines (on every image if ``full``), or how to install them."""
    status = {engine: check_requirements(engine=engine) for engine in ENGINES}
    ready = [engine for engine, s in status.items() if s["ok"]]
    names = " and ".join(e.capitalize().replace("ocr", "OCR") for e in ENGINES)
    title = f"2. Choose an engine: {names} on the bundled pages and lines"
    if not ready:
        hints = "\n".join(f"   {engine}: {s['hint']}" for engine, s in status.items())
        return f"{title}: skipped, no engine is installed here.\n{hints}"
    from ek.cli._commands import benchmark

    options = benchmark_options(ready)
    note = []
    if not full:
        n = _count(bundled(SUBSET))
        title = f"2. Choose an engine: {names} on {n} of the bundled lines"
        note = [f"   ({n} of the {_count(bundled(FULL))} bundled pages and lines; ek demo --engines reads them all)"]
    with resources.as_file(bundled(FULL if full else SUBSET)) as gold:
        outcome = benchmark(str(gold), **options)
        command = benchmark_command(str(gold), options)
    lines = [title, "", f"   {command}", *note, "", outcome.stdout]
    for engine, s in status.items():
        if not s["ok"]:
            lines += ["", f"   {engine} was left out: {s['hint']}"]
    return "\n".join(lines)


def bundled(name: str) -> Traversable:
    """The bundled file ``name`` (`FULL`, `SUBSET`: a path under ``ek/data``)."""
    found = resources.files("ek") / "data"
    for part in name.split("/"):  # one part at a time: Traversable.joinpath takes one before 3.11
        found = found / part
    return found


def benchmark_options(engines: list[str]) -> BenchmarkArgs:
    """The options the demo gives ``ek benchmark`` for ``engines``: with two, both read at once."""
    return {"engine": list(engines), "max_workers": 2 if len(engines) > 1 else None}


def benchmark_command(gold: str, options: BenchmarkArgs) -> str:
    """The ``ek benchmark`` command line that runs with ``options`` (`benchmark_options`) over ``gold``."""
    argv = ["ek", "benchmark", gold]
    for engine in options["engine"]:
        argv += ["--engine", engine]
    if options["max_workers"] is not None:
        argv += ["--max-workers", str(options["max_workers"])]
    return shlex.join(argv)


def _count(gold: Traversable) -> int:
    return sum(1 for line in gold.read_text(encoding="utf-8").splitlines() if line.strip())
