"""The Tesseract part of ``ek demo``: benchmark Tesseract on the bundled images.

The images (``ek/data/ocr_demo``) are three short texts rendered twice, once
clean and once degraded like a poor scan, by
``scripts/make_ocr_demo_images.py``; ``gold.json`` holds their transcriptions.
"""

from __future__ import annotations

import json
import os
from importlib import resources
from typing import Any, Optional

from ek._util import format_table
from ek.facade import evaluate
from ek.registry import check_requirements

_FOLDER = ("data", "ocr_demo")


def tesseract_demo() -> str:
    """A printable report of Tesseract on the bundled images, or how to install it.

    The report gives corpus CER and WER (summed edits over summed reference
    length) per slice and overall, Tesseract's mean word confidence, and one
    line per image so confidence can be set against error.
    """
    status = check_requirements(engine="tesseract")
    if not status["ok"]:
        return "2. Tesseract benchmark skipped: " + status["hint"]
    from ek.ocr.benchmark import evaluate_ocr  # noqa: PLC0415 - keeps `ek demo` light when skipped

    with resources.as_file(resources.files("ek").joinpath(*_FOLDER)) as folder:
        gold = json.loads((folder / "gold.json").read_text(encoding="utf-8"))
        for record in gold.values():
            record["image"] = str(folder / record["image"])
        report = evaluate_ocr("tesseract", gold, metric="cer", progress=False,
                              max_workers=min(4, os.cpu_count() or 1))
    items = report.detail["per_item"]
    cases = [(v["prediction"], v["reference"], v["slice"]) for v in items.values() if v["error"] is None]
    wer = evaluate(cases, metric="wer")

    rows = []
    for label in report.per_slice:
        members = [v for v in items.values() if v["slice"] == label and v["error"] is None]
        rows.append([label, len(members), report.per_slice[label], wer.per_slice[label],
                     _mean(v["confidence"] for v in members)])
    rows.append(["all", report.n, report.aggregate, wer.aggregate,
                 _mean(v["confidence"] for v in items.values() if v["error"] is None)])
    per_image = [[key, v["slice"], v["score"], v["confidence"]] for key, v in items.items()
                 if v["error"] is None]
    lines = [
        "2. Tesseract on the bundled scans",
        "",
        format_table(["slice", "images", "CER", "WER", "mean conf"], rows),
        "",
        format_table(["image", "slice", "CER", "confidence"], per_image),
    ]
    if report.detail["errors"]:
        lines += ["", "Failed: " + "; ".join(f"{k}: {e}" for k, e in report.detail["errors"].items())]
    return "\n".join(lines)


def _mean(values: Any) -> Optional[float]:
    present = [v for v in values if v is not None]
    return sum(present) / len(present) if present else None
