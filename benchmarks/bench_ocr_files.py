"""OCR file evaluation speed: ek against dinglehopper's own CLI, side by side in one run.

Two cases, each timed for ek and for dinglehopper on the same files:

1. **Many small pairs** (issue 14): a folder of 2,000 PAGE-XML line-pair
   files. dinglehopper's CLI takes the two folders in one invocation
   (``dinglehopper GT_DIR OCR_DIR PREFIX REPORTS --textequiv-level line``)
   and writes an HTML and a JSON report per pair; ek runs
   `ek.ocr.evaluate_files` with grapheme CER after NFC (dinglehopper's unit
   and first step). Goal: ek at least 10x faster, same per-pair CER.
2. **One long page** (issue 19): a PAGE 2019 ground truth of 65 regions of
   about 20 lines of historical German-like text (long s, combining small e
   and tilde, ligatures, em dashes, apostrophes, MUFI characters), about
   67,000 characters, against an ALTO v2 OCR of it with about 4.5% character
   errors and some lines split or merged (as dinglehopper's ``bigger-texts``
   pair, which is not available offline). ek runs
   ``evaluate_files(..., profile="dinglehopper")`` with every default
   measure (CER, WER, FCA, bag of words) and the confusion tables;
   dinglehopper's CLI runs on the same pair (region level, its default).
   Goal: ek at least 3x faster, the same CER and WER to 1e-9.

    python benchmarks/bench_ocr_files.py [N_PAIRS]
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

from ek.ocr import evaluate_files

N_PAIRS = int(sys.argv[1]) if len(sys.argv) > 1 else 2_000
NS = "http://schema.primaresearch.org/PAGE/gts/pagecontent/2019-07-15"
ALTO_NS = "http://www.loc.gov/standards/alto/ns-v2#"
WORDS = ("der", "Schlyñ", "Haus", "wohl", "Straße", "über", "Käse", "und", "nach", "lang", "Zeit", "m\u0303it")
# Historical German-like words: long s, u/o/a with a combining small e above, m with a tilde,
# ligatures (ﬁ, ﬀ, MUFI ch and ck), an em dash, ’ and MUFI u with a small e above.
HISTORIC = (
    "ſein",
    "u\u0364ber",
    "ko\u0364nnen",
    "Ma\u0364nner",
    "m\u0303it",
    "daß",
    "Geſchichte",
    "ﬁnden",
    "Schi\ue8bf",
    "Stoﬀ",
    "ſtehen",
    "Tu\u0364r",
    "\uf502riſt",
    "Glu\ue72bck",
    "wa\ueec4er",
    "—",
    "Gott’s",
    "und",
    "der",
    "die",
    "das",
    "in",
    "zu",
    "den",
    "nicht",
    "von",
    "ſie",
    "iſt",
    "des",
    "ſich",
    "mit",
    "dem",
    "er",
    "es",
    "ein",
    "ich",
    "auf",
    "ſo",
    "eine",
    "auch",
    "als",
    "an",
    "nach",
    "wie",
    "im",
    "fu\u0364r",
    "man",
    "aber",
    "aus",
    "durch",
    "wenn",
    "nur",
    "war",
    "noch",
    "werden",
    "bey",
    "Herr",
    "Jahr",
    "Stadt",
    "Kirche",
    "Koͤnig",
    "wohl",
    "alſo",
    "ſehr",
    "Zeit",
    "Leute",
    "Vater",
    "Buch.",
    "Tage,",
    "gleich;",
    "Hauſe:",
)


def page(line: str) -> str:
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<PcGts xmlns="{NS}"><Page imageFilename="l.png">'
        f'<TextRegion id="r"><TextLine id="l"><TextEquiv><Unicode>{escape(line)}</Unicode></TextEquiv>'
        f"</TextLine></TextRegion></Page></PcGts>\n"
    )


def noisy(line: str, rng: random.Random, rate: float = 0.04) -> str:
    out = []
    for ch in line:
        r = rng.random()
        if r < rate * 0.75:
            out.append(rng.choice("eaoilncſfsu"))  # substitution
        elif r < rate:
            continue  # deletion
        else:
            out.append(ch)
            if r > 1 - rate / 4:
                out.append(rng.choice(".,'i"))  # insertion
    return "".join(out)


def write_pairs(root: Path, n: int) -> None:
    rng = random.Random(0)
    for side in ("gt", "ocr"):
        (root / side).mkdir()
    for i in range(n):
        line = " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 10)))
        (root / "gt" / f"{i:04d}.xml").write_text(page(line), encoding="utf-8")
        (root / "ocr" / f"{i:04d}.xml").write_text(page(noisy(line, rng, 0.04)), encoding="utf-8")


def long_page(rng: random.Random, n_regions: int = 65, n_lines: int = 20) -> list[list[str]]:
    """Regions of lines of historical German-like text, about 67,000 characters in all."""
    return [
        [" ".join(rng.choice(HISTORIC) for _ in range(rng.randint(8, 13))) for _ in range(n_lines)]
        for _ in range(n_regions)
    ]


def page_2019(regions: list[list[str]]) -> str:
    """A PAGE 2019 document with text at line and region level, in a ReadingOrder."""
    refs = "".join(f'<RegionRefIndexed index="{r}" regionRef="r{r}"/>' for r in range(len(regions)))
    body = []
    for r, lines in enumerate(regions):
        tl = "".join(
            f'<TextLine id="r{r}l{k}"><Coords points="0,0 1,0 1,1 0,1"/>'
            f"<TextEquiv><Unicode>{escape(t)}</Unicode></TextEquiv></TextLine>"
            for k, t in enumerate(lines)
        )
        body.append(
            f'<TextRegion id="r{r}"><Coords points="0,0 1,0 1,1 0,1"/>{tl}'
            f"<TextEquiv><Unicode>{escape(chr(10).join(lines))}</Unicode></TextEquiv></TextRegion>"
        )
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<PcGts xmlns="{NS}"><Metadata><Creator>bench</Creator>'
        f"<Created>2026-01-01T00:00:00</Created><LastChange>2026-01-01T00:00:00</LastChange></Metadata>"
        f'<Page imageFilename="p.png" imageWidth="1" imageHeight="1"><ReadingOrder>'
        f'<OrderedGroup id="ro">{refs}</OrderedGroup></ReadingOrder>{"".join(body)}</Page></PcGts>\n'
    )


def alto_v2(regions: list[list[str]], rng: random.Random) -> str:
    """An ALTO v2 OCR of ``regions``: character errors, and about 2% of lines split or merged with the next."""
    blocks = []
    for r, lines in enumerate(regions):
        out: list[str] = []
        k = 0
        while k < len(lines):
            line = noisy(lines[k], rng)
            u = rng.random()
            if u < 0.01 and k + 1 < len(lines):  # two lines read as one
                line = f"{line} {noisy(lines[k + 1], rng)}"
                k += 1
            if u > 0.99 and " " in line:  # one line read as two
                words = line.split(" ")
                cut = rng.randint(1, len(words) - 1)
                out.extend((" ".join(words[:cut]), " ".join(words[cut:])))
            else:
                out.append(line)
            k += 1
        text_lines = []
        for k, line in enumerate(out):
            strings = "<SP/>".join(f'<String CONTENT={quoteattr(w)} WC="0.9"/>' for w in line.split(" ") if w)
            text_lines.append(f'<TextLine ID="b{r}l{k}">{strings}</TextLine>')
        blocks.append(f'<TextBlock ID="b{r}">{"".join(text_lines)}</TextBlock>')
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<alto xmlns="{ALTO_NS}"><Layout><Page ID="p" '
        f'WIDTH="1" HEIGHT="1" PHYSICAL_IMG_NR="1"><PrintSpace>{"".join(blocks)}</PrintSpace></Page>'
        f"</Layout></alto>\n"
    )


def many_pairs(root: Path, exe: str | None) -> None:
    write_pairs(root, N_PAIRS)
    t = time.perf_counter()
    report = evaluate_files(root / "gt", root / "ocr", segment="grapheme", normalize="nfc")
    ours = time.perf_counter() - t
    print(f"{N_PAIRS:,} PAGE-XML line pairs")
    print(
        f"  ek.ocr.evaluate_files (CER, WER, FCA, BoW, confusions): {ours:7.2f} s   "
        f"corpus grapheme CER {report.aggregate:.4f}"
    )
    if exe is None:
        return
    t = time.perf_counter()
    subprocess.run(
        [exe, str(root / "gt"), str(root / "ocr"), "r", str(root / "reports"), "--textequiv-level", "line"],
        check=True,
        capture_output=True,
    )
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


def one_long_page(root: Path, exe: str | None) -> None:
    rng = random.Random(1)
    regions = long_page(rng)
    gt, ocr = root / "page.gt.xml", root / "page.alto.xml"
    gt.write_text(page_2019(regions), encoding="utf-8")
    ocr.write_text(alto_v2(regions, rng), encoding="utf-8")
    t = time.perf_counter()
    report = evaluate_files(gt, ocr, profile="dinglehopper")
    ours = time.perf_counter() - t
    m = report.detail["measures"]
    n_chars = sum(len(line) for lines in regions for line in lines) + sum(len(lines) for lines in regions) - 1
    print(
        f"One page: {n_chars:,} characters in {sum(map(len, regions)):,} lines, 65 regions (PAGE 2019) against ALTO v2"
    )
    print(
        f"  ek.ocr.evaluate_files(profile='dinglehopper') (CER, WER, FCA, BoW, confusions): {ours:7.2f} s   "
        f"CER {m['cer']:.4f}  WER {m['wer']:.4f}  FCA {m['fca']:.4f}  BoW {m['bow']:.4f}"
    )
    if exe is None:
        return
    t = time.perf_counter()
    subprocess.run(
        [exe, str(gt), str(ocr), "page", str(root / "page-reports"), "--plain-encoding", "utf-8"],
        check=True,
        capture_output=True,
    )
    theirs = time.perf_counter() - t
    theirs_json = json.loads((root / "page-reports" / "page.json").read_text())
    print(
        f"  dinglehopper CLI on the same pair (CER, WER, report): {theirs:7.2f} s   "
        f"CER {theirs_json['cer']:.4f}  WER {theirs_json['wer']:.4f}"
    )
    print(f"  ratio dinglehopper / ek: {theirs / ours:.1f}x (goal >= 3x)")
    print(
        f"  same figures: CER differs by {abs(theirs_json['cer'] - m['cer']):.2e}, "
        f"WER by {abs(theirs_json['wer'] - m['wer']):.2e}"
    )
    # Whole processes, as a user runs both: interpreter start and imports included, and both write HTML + JSON.
    t = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "ek",
            "evaluate",
            str(gt),
            str(ocr),
            "--profile",
            "dinglehopper",
            "--html",
            str(root / "page.html"),
            "--json",
            str(root / "page.json"),
        ],
        check=True,
        capture_output=True,
    )
    whole = time.perf_counter() - t
    print(
        f"  ek evaluate --profile dinglehopper --html --json, whole process: {whole:7.2f} s   "
        f"ratio dinglehopper CLI / ek CLI: {theirs / whole:.1f}x (goal >= 3x)"
    )


def main() -> None:
    exe = shutil.which("dinglehopper")
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "many").mkdir()
        many_pairs(Path(tmp) / "many", exe)
        one_long_page(Path(tmp), exe)
    if exe is None:
        print("dinglehopper is not installed (pip install dinglehopper): no baseline")
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")


if __name__ == "__main__":
    main()
