"""Line mode on the bundled fleet corpus: each engine on the 48 line images, three ways, and per slice.

For Tesseract and RapidOCR (``ek.ocr.fleet_engine``), over the line images of
``src/ek/data/ocr_fleet``:

* **line mode**: what the fleet does with a line (Tesseract ``psm=7``,
  RapidOCR ``det=False``, recognition only);
* **bare**: the line read as a page (Tesseract's default segmentation,
  RapidOCR's detector on the 40-pixel strip);
* **padded**: the line put on paper first (`pad_line`), then read as a page.

Each run prints the wall time over the 48 lines, seconds per line and the
corpus CER (`ek.ocr.evaluate_ocr`). Then each engine's CER per slice and kind
on the whole corpus, lines in line mode (the fleet's default). The models are
loaded by one read before any timing.

    python benchmarks/bench_line_mode.py
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from PIL import Image

import ek
from ek.ocr import engine_specs, engine_state, evaluate_ocr, fleet_engine
from ek.ocr._line_images import pad_line

CORPUS = Path(ek.__file__).parent / "data" / "ocr_fleet"


def gold(kind: str = "") -> dict:
    records = [json.loads(line) for line in (CORPUS / "gold.jsonl").read_text(encoding="utf-8").splitlines()]
    return {r["id"]: {**r, "image": str(CORPUS / r["image"])} for r in records if not kind or r["kind"] == kind}


def run(read, items: dict) -> tuple[float, object]:
    start = time.perf_counter()
    report = evaluate_ocr(read, items, progress=False)
    return time.perf_counter() - start, report


def main() -> None:
    print(f"load average: {os.getloadavg()}")
    lines, everything = gold("line"), gold()
    for spec in engine_specs(["tesseract", "rapidocr"]):
        if engine_state(spec.engine) != "ready":
            print(f"{spec.name}: {engine_state(spec.engine)}; skipped")
            continue
        read = fleet_engine(spec)
        read(next(iter(lines.values()))["image"], kind="line")  # load the models
        ways = {
            "line mode": lambda image, read=read: read(image, kind="line"),
            "bare": lambda image, read=read: read(image, kind="page"),
            "padded": lambda image, read=read: read(pad_line(Image.open(image)), kind="page"),
        }
        for way, engine in ways.items():
            seconds, report = run(engine, lines)
            print(
                f"{spec.name:10s} {way:10s} {seconds:6.2f} s  {seconds / len(lines):.3f} s/line  "
                f"CER {report.aggregate:.2%}"
            )
        _, report = run(read, {k: v for k, v in everything.items()})
        by_kind = {}
        for key, item in report.detail["per_item"].items():
            cut = (everything[key]["kind"], item["slice"])
            by_kind.setdefault(cut, []).append(item["detail"])
        cuts = ", ".join(f"{kind}/{slice_} {_rate(d):.2%}" for (kind, slice_), d in sorted(by_kind.items()))
        per_slice = ", ".join(f"{name} {value:.2%}" for name, value in sorted(report.per_slice.items()))
        print(f"{spec.name:10s} all {report.n} images: CER {report.aggregate:.2%}; per slice {per_slice}; {cuts}")
    print(f"load average: {os.getloadavg()}")


def _rate(details: list) -> float:
    edits = sum(d["edits"] for d in details)
    return edits / sum(d["ref_len"] for d in details)


if __name__ == "__main__":
    main()
