"""OCR folder evaluation speed: ek against dinglehopper's own CLI over 2,000 PAGE-XML line pairs.

Goal (issue 14): scoring a folder of 2,000 PAGE-XML line-pair files is at
least 10x faster with ek than with dinglehopper's CLI, with the same CER.

Both sides get the same two folders (``gt/NNNN.xml`` and ``ocr/NNNN.xml``,
paired by name). dinglehopper's CLI takes two folders in one invocation
(``dinglehopper GT_DIR OCR_DIR PREFIX REPORTS --textequiv-level line``),
so it is timed over all pairs in one run, no extrapolation; it writes an
HTML and a JSON report per pair. ek runs `ek.ocr.evaluate_files` with
grapheme CER (dinglehopper's unit) after NFC (dinglehopper's first step),
which also computes WER, flexible character accuracy, bag-of-words error
and the character and word confusion tables of every file. Each
dinglehopper JSON report's CER is checked against ek's value for that pair.

    python benchmarks/bench_ocr_files.py [N_PAIRS]
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from xml.sax.saxutils import escape

from ek.ocr import evaluate_files

N_PAIRS = int(sys.argv[1]) if len(sys.argv) > 1 else 2_000
NS = "http://schema.primaresearch.org/PAGE/gts/pagecontent/2019-07-15"
WORDS = ("der", "Schlyñ", "Haus", "wohl", "Straße", "über", "Käse", "und", "nach", "lang", "Zeit", "m\u0303it")


def page(line: str) -> str:
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<PcGts xmlns="{NS}"><Page imageFilename="l.png">'
            f'<TextRegion id="r"><TextLine id="l"><TextEquiv><Unicode>{escape(line)}</Unicode></TextEquiv>'
            f"</TextLine></TextRegion></Page></PcGts>\n")


def noisy(line: str, rng: random.Random) -> str:
    out = []
    for ch in line:
        r = rng.random()
        if r < 0.03:
            out.append(rng.choice("eaoilnc"))  # substitution
        elif r < 0.04:
            continue  # deletion
        else:
            out.append(ch)
            if r > 0.99:
                out.append(rng.choice(".,'"))  # insertion
    return "".join(out)


def write_pairs(root: Path, n: int) -> None:
    rng = random.Random(0)
    for side in ("gt", "ocr"):
        (root / side).mkdir()
    for i in range(n):
        line = " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 10)))
        (root / "gt" / f"{i:04d}.xml").write_text(page(line), encoding="utf-8")
        (root / "ocr" / f"{i:04d}.xml").write_text(page(noisy(line, rng)), encoding="utf-8")


def main() -> None:
    exe = shutil.which("dinglehopper")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_pairs(root, N_PAIRS)
        t = time.perf_counter()
        report = evaluate_files(root / "gt", root / "ocr", segment="grapheme", normalize="nfc")
        ours = time.perf_counter() - t
        print(f"{N_PAIRS:,} PAGE-XML line pairs")
        print(f"  ek.ocr.evaluate_files (CER, WER, FCA, BoW, confusions): {ours:7.2f} s   "
              f"corpus grapheme CER {report.aggregate:.4f}")
        if exe is None:
            print("  dinglehopper is not installed (pip install dinglehopper): no baseline")
            return
        t = time.perf_counter()
        subprocess.run([exe, str(root / "gt"), str(root / "ocr"), "r", str(root / "reports"),
                        "--textequiv-level", "line"], check=True, capture_output=True)
        theirs = time.perf_counter() - t
        per_pair = {i: s.value for i, s in zip(report.detail["ids"], report.scores)}
        worst = 0.0
        for path in (root / "reports").glob("*-r.json"):
            cer = json.loads(path.read_text())["cer"]
            worst = max(worst, abs(cer - per_pair[path.name.split(".")[0]]))
        n_reports = len(list((root / "reports").glob("*-r.json")))
        print(f"  dinglehopper CLI, one run over both folders (CER, WER, reports): {theirs:7.2f} s")
        print(f"  ratio dinglehopper / ek: {theirs / ours:.1f}x (goal >= 10x)")
        print(f"  same CER: {n_reports} dinglehopper reports, largest per-pair difference {worst:.2e}")


if __name__ == "__main__":
    main()
