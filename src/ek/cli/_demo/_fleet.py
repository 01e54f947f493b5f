"""The engine part of ``ek demo``: run the fleet (Tesseract and RapidOCR) over the bundled real corpus.

The corpus (``ek/data/ocr_fleet``: line and page images rendered from
public-domain prose with blur, noise, skew and low contrast, with their
gold text; ``scripts/make_fleet_corpus.py`` builds it) is read by ``ek
benchmark``, so the demo prints exactly what that command prints, and the
command itself to run it again. Engines that are not installed are left out
and named with their install line; with none installed the section says how
to install them.
"""

from __future__ import annotations

from importlib import resources

from ek.registry import check_requirements

ENGINES = ("tesseract", "rapidocr")
"""The engines the demo runs when they are installed."""

_FOLDER = ("data", "ocr_fleet")


def fleet_demo() -> str:
    """The ranking of the installed engines on the bundled corpus, or how to install them."""
    status = {engine: check_requirements(engine=engine) for engine in ENGINES}
    ready = [engine for engine, s in status.items() if s["ok"]]
    title = (
        "2. Choose an engine: "
        + " and ".join(e.capitalize().replace("ocr", "OCR") for e in ENGINES)
        + " on the bundled pages and lines"
    )
    if not ready:
        hints = "\n".join(f"   {engine}: {s['hint']}" for engine, s in status.items())
        return f"{title}: skipped, no engine is installed here.\n{hints}"
    from ek.cli._commands import benchmark

    found = resources.files("ek")
    for part in (*_FOLDER, "gold.jsonl"):  # one part at a time: Traversable.joinpath takes one before 3.11
        found = found / part
    with resources.as_file(found) as gold:
        argv = " ".join(f"--engine {engine}" for engine in ready) + (" --max-workers 2" if len(ready) > 1 else "")
        outcome = benchmark(str(gold), engine=list(ready), max_workers=2 if len(ready) > 1 else None)
        lines = [title, "", f"   ek benchmark {gold} {argv}", "", outcome.stdout]
    for engine, s in status.items():
        if not s["ok"]:
            lines += ["", f"   {engine} was left out: {s['hint']}"]
    return "\n".join(lines)
