"""Tesseract through ek.ocr.evaluate_ocr (one by one and concurrent) against ocracy.benchmark.

Both read the same corpus, rendered by ocracy's own ``synthetic_corpus``
(texts and a table in DejaVu fonts, at two sizes, clean and degraded), with
the same engine. Printed: wall time of each run, speed-up of ek's concurrent
run over ocracy's one-by-one loop, and the two CER summaries: ek's corpus rate
(summed edits / summed reference length) next to ocracy's mean of per-image
rates, which weighs a short image as much as a long one.

Needs the tesseract binary and the ``ocr`` extra. Run from the repository root:

    python3 benchmarks/bench_ocr_tesseract.py [--workers 4] [--repeat 1]
"""

from __future__ import annotations

import argparse
import os
import re
import tempfile
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=min(4, os.cpu_count() or 1))
    parser.add_argument("--repeat", type=int, default=1, help="copies of the corpus to read")
    args = parser.parse_args()

    import jiwer
    import ocracy
    from ocracy.benchmark import synthetic_corpus

    from ek.ocr import evaluate_ocr

    folder = tempfile.mkdtemp(prefix="ek-bench-ocr-")
    corpus = synthetic_corpus(folder, fonts=["DejaVuSans.ttf", "DejaVuSerif.ttf"], sizes=(20, 28))
    items = list(corpus.items()) * args.repeat
    gold = {
        f"{i:04d}": {"image": path, "reference_text": text, "slice": "degraded" if "-degraded" in path else "clean"}
        for i, (path, text) in enumerate(items)
    }
    references = dict(items)
    print(f"corpus: {len(gold)} images ({len(corpus)} distinct) in {folder}; {os.cpu_count()} CPUs")

    timings = {}
    t = time.perf_counter()
    rows = (
        ocracy.benchmark(references, ["tesseract"])
        if args.repeat == 1
        else [row for _ in range(args.repeat) for row in ocracy.benchmark(references, ["tesseract"])]
    )
    timings["ocracy.benchmark (one by one)"] = time.perf_counter() - t

    t = time.perf_counter()
    sequential = evaluate_ocr("tesseract", gold, progress=False)
    timings["ek evaluate_ocr (one by one)"] = time.perf_counter() - t

    t = time.perf_counter()
    concurrent = evaluate_ocr("tesseract", gold, max_workers=args.workers, progress=False)
    timings[f"ek evaluate_ocr (max_workers={args.workers})"] = time.perf_counter() - t

    base = timings["ocracy.benchmark (one by one)"]
    for label, seconds in timings.items():
        print(f"{label:<36} {seconds:7.2f} s   {base / seconds:5.2f}x vs ocracy")

    same = [s.value for s in sequential.scores] == [s.value for s in concurrent.scores]
    print(f"concurrent run gives the same per-item scores as the sequential one: {same}")

    # Aggregation: ek's corpus CER vs ocracy's mean of per-image CERs (ocracy collapses
    # whitespace first, so compare on collapsed text for both).
    def collapse(s):
        return re.sub(r"\s+", " ", s).strip()

    preds = [collapse(v["prediction"]) for v in concurrent.detail["per_item"].values()]
    refs = [collapse(v["reference"]) for v in concurrent.detail["per_item"].values()]
    corpus_cer = jiwer.cer(reference=refs, hypothesis=preds)
    ok = [r["cer"] for r in rows if r["error"] is None]
    print(
        f"ek corpus CER (raw text): {concurrent.aggregate:.4f}; per slice: "
        + ", ".join(f"{k} {v:.4f}" for k, v in concurrent.per_slice.items())
    )
    print(
        f"corpus CER on collapsed whitespace (jiwer): {corpus_cer:.4f}; "
        f"ocracy mean of per-image CER: {sum(ok) / len(ok):.4f}"
    )


if __name__ == "__main__":
    main()
