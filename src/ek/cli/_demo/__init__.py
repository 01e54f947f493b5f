"""``ek demo``: evaluate the bundled OCR-like corpus and print the results.

The corpus (``ek/data/demo_ocr.jsonl``) is built by
``scripts/make_demo_corpus.py`` from template text and a documented model of
OCR noise, in two slices: clean prints and degraded scans. Section 2 runs the
OCR engines installed here (Tesseract, RapidOCR) over a few lines of the
bundled real corpus with ``ek benchmark`` (`ek.cli._demo._fleet`; every page
and line with ``engines=True``), or says how to install them.
"""

from __future__ import annotations

import json
from importlib import resources

from ek._util import format_table
from ek.facade import evaluate

_CORPUS = "demo_ocr.jsonl"


def demo_cases() -> list[tuple[str, str, str]]:
    """The bundled corpus as ``(prediction, gold, slice)`` cases."""
    text = (resources.files("ek") / "data" / _CORPUS).read_text(encoding="utf-8")
    rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    return [(r["prediction"], r["gold"], r["slice"]) for r in rows]


def demo(*, engines: bool = False) -> str:
    """Score the bundled OCR demo corpus: corpus CER and WER, overall and per slice; then the other sections.

    ``engines`` runs the installed OCR engines over every bundled page and
    line (54 images), not over the six lines section 2 reads by default.
    """
    cases = demo_cases()
    cer = evaluate(cases, metric="cer")
    wer = evaluate(cases, metric="wer")
    rows = [
        [label, cer.detail["slice_n"][label], cer.per_slice[label], wer.per_slice[label]] for label in cer.per_slice
    ]
    rows.append(["all", cer.n, cer.aggregate, wer.aggregate])
    sections = [
        "ek demo: every rate below is a corpus figure (summed edits / summed reference length,",
        "summed dollars / summed successes), never a mean of per-item ratios.",
        "",
        "1. OCR output of the bundled corpus scored against gold",
        "",
        format_table(["slice", "items", "CER", "WER"], rows),
        "",
        _ocr_section(full=engines),
        "",
        _agent_section(),
        "",
        _files_section(),
    ]
    return "\n".join(sections)


def _files_section() -> str:
    folder = resources.files("ek").joinpath("data")
    gold, other = folder / _CORPUS, folder / "demo_ocr_b.jsonl"
    return "\n".join(
        [
            "4. Your own files: the same corpus, with intervals, a page, and a second system to compare",
            "",
            f"   ek evaluate {gold} {gold} --html report.html",
            f"   ek compare {gold} {gold} {other}",
            "",
            "   (the corpus file holds the gold and system A's predictions; GOLD and PRED may be .jsonl, .json,",
            "   .csv, .tsv files or folders of OCR documents, joined by id.)",
        ]
    )


def _agent_section() -> str:
    from ek.cli._demo._agents import demo_report, format_demo

    return format_demo(demo_report())


def _ocr_section(*, full: bool) -> str:
    from ek.cli._demo._fleet import fleet_demo

    return fleet_demo(full=full)
