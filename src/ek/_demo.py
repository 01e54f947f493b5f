"""``ek demo``: evaluate the bundled OCR-like corpus and print the results.

The corpus (``ek/data/demo_ocr.jsonl``) is built by
``scripts/make_demo_corpus.py`` from template text and a documented model of
OCR noise, in two slices: clean prints and degraded scans.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from ek.facade import evaluate

_CORPUS = "demo_ocr.jsonl"


def demo_cases() -> list[tuple[str, str, str]]:
    """The bundled corpus as ``(prediction, gold, slice)`` cases."""
    text = resources.files("ek").joinpath("data", _CORPUS).read_text(encoding="utf-8")
    rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    return [(r["prediction"], r["gold"], r["slice"]) for r in rows]


def format_table(header: list[str], rows: list[list[Any]]) -> str:
    """A plain-text table with right-aligned numbers."""
    cells = [header] + [[_cell(v) for v in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = []
    for k, row in enumerate(cells):
        lines.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))))
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _cell(v: Any) -> str:
    return f"{v:.2%}" if isinstance(v, float) else str(v)


def demo() -> str:
    """Score the bundled OCR demo corpus: corpus CER and WER, overall and per slice."""
    cases = demo_cases()
    cer = evaluate(cases, metric="cer")
    wer = evaluate(cases, metric="wer")
    rows = [[label, cer.detail["slice_n"][label], cer.per_slice[label], wer.per_slice[label]]
            for label in cer.per_slice]
    rows.append(["all", cer.n, cer.aggregate, wer.aggregate])
    sections = [
        "ek demo: OCR output scored against gold (corpus rates: summed edits / summed reference length)",
        "",
        format_table(["slice", "items", "CER", "WER"], rows),
    ]
    return "\n".join(sections)
