"""ek's document readers on inputs that used to be super-linear (issue 20 item 6), and on a long real-sized page.

Cases (each read by `ek.ocr.formats.read_document` in a fresh interpreter,
so the peak memory is that one read's):

* ``hocr-unclosed``: 1.5 MB of ``<span class='ocr_line'>x `` never closed
  (each text node used to walk the whole tag stack: 236 s reported).
* ``page-flat``, ``page-nested``, ``page-table``: 1.2-1.3 MB PAGE files whose
  ReadingOrder names 8,000 regions: 8,000 regions side by side, each inside
  the one before, or 8,000 references to one table of 8,000 cells (each
  reference used to walk every region it holds: 1 GB reported).
* ``page-glyphs``: a long page at every level, 65 regions of 20 lines of
  8 words of 6 glyphs (62,400 glyphs, ~12 MB), read at the default level.
* ``hocr-stray-ends``: 1 MB of open spans then 1 MB of end tags that match
  nothing open.

Prints wall and CPU seconds and peak RSS per case, the RSS of the interpreter with ek
imported (what the read adds is the difference) and the load average.

    python benchmarks/bench_readers.py
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time

NS = "http://schema.primaresearch.org/PAGE/gts/pagecontent/2019-07-15"
N_REGIONS = 8000


def hocr_unclosed(size: int = 1_500_000) -> bytes:
    span = "<span class='ocr_line'>x "
    return ("<div class='ocr_page'>" + span * (size // len(span))).encode()


def hocr_stray_ends(size: int = 1_000_000) -> bytes:
    opened = "<span class='ocr_line'>x "
    n = size // len(opened)
    return ("<div class='ocr_page'>" + opened * n + "</b>" * (size // 4)).encode()


def page_with_order(layout: str, n: int = N_REGIONS) -> bytes:
    def region(k: int) -> str:
        return (
            f'<TextRegion id="r{k}"><TextLine id="l{k}"><TextEquiv><Unicode>text {k}</Unicode></TextEquiv></TextLine>'
        )

    target = "t" if layout == "table" else None
    refs = "".join(f'<RegionRefIndexed index="{k}" regionRef="{target or f"r{k}"}"/>' for k in range(n))
    if layout == "flat":
        body = "".join(region(k) + "</TextRegion>" for k in range(n))
    elif layout == "nested":
        body = "".join(region(k) for k in range(n)) + "</TextRegion>" * n
    else:
        body = '<TableRegion id="t">' + "".join(region(k) + "</TextRegion>" for k in range(n)) + "</TableRegion>"
    return (
        f'<?xml version="1.0" encoding="UTF-8"?><PcGts xmlns="{NS}"><Page imageFilename="x.png" imageWidth="1" '
        f'imageHeight="1"><ReadingOrder><OrderedGroup id="g">{refs}</OrderedGroup></ReadingOrder>{body}'
        "</Page></PcGts>"
    ).encode()


def page_glyphs(regions: int = 65, lines: int = 20, words: int = 8, glyphs: int = 6) -> bytes:
    def equiv(text: str) -> str:
        return f'<TextEquiv conf="0.9"><Unicode>{text}</Unicode></TextEquiv>'

    coords = '<Coords points="0,0 10,0 10,10 0,10"/>'
    out = [
        (
            f'<?xml version="1.0" encoding="UTF-8"?><PcGts xmlns="{NS}"><Page imageFilename="x.png" '
            'imageWidth="1" imageHeight="1">'
        )
    ]
    for r in range(regions):
        region_lines = []
        out.append(f'<TextRegion id="r{r}">{coords}')
        for k in range(lines):
            texts = ["".join("abcdefſ"[(r + k + w + g) % 7] for g in range(glyphs)) for w in range(words)]
            out.append(f'<TextLine id="r{r}l{k}">{coords}')
            for w, text in enumerate(texts):
                out.append(f'<Word id="r{r}l{k}w{w}">{coords}')
                out.extend(f'<Glyph id="r{r}l{k}w{w}g{g}">{coords}{equiv(c)}</Glyph>' for g, c in enumerate(text))
                out.append(f"{equiv(text)}</Word>")
            out.append(f"{equiv(' '.join(texts))}</TextLine>")
            region_lines.append(" ".join(texts))
        out.append(f"{equiv('&#10;'.join(region_lines))}</TextRegion>")
    out.append("</Page></PcGts>")
    return "".join(out).encode()


CASES = {
    "hocr-unclosed": hocr_unclosed,
    "hocr-stray-ends": hocr_stray_ends,
    "page-flat": lambda: page_with_order("flat"),
    "page-nested": lambda: page_with_order("nested"),
    "page-table": lambda: page_with_order("table"),
    "page-glyphs": page_glyphs,
}


def measure(path: str) -> dict:
    """Read one file in this process: wall and CPU seconds, peak RSS (MB), lines read."""
    from ek.ocr.formats import read_document

    start, cpu = time.perf_counter(), time.process_time()
    doc = read_document(path)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    return {
        "seconds": seconds,
        "cpu": cpu,
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "lines": len(doc.lines),
        "level": getattr(doc, "text_level", "?"),
    }


def main() -> None:
    base = json.loads(
        subprocess.run(
            [
                sys.executable,
                "-c",
                (
                    "import json, resource, ek.ocr.formats; print(json.dumps("
                    "resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))"
                ),
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}; interpreter with ek: {base:.0f} MB RSS")
    print(f"{'case':16} {'MB in':>6} {'seconds':>8} {'CPU s':>7} {'peak MB':>8} {'lines':>7}  level")
    with tempfile.TemporaryDirectory() as tmp:
        for name, make in CASES.items():
            path = os.path.join(tmp, name)
            with open(path, "wb") as f:
                size = f.write(make())
            out = subprocess.run([sys.executable, __file__, "--one", path], capture_output=True, text=True)
            if out.returncode:
                print(f"{name:16} {size / 1e6:6.2f}  failed: {out.stderr.strip().splitlines()[-1]}")
                continue
            r = json.loads(out.stdout)
            print(
                f"{name:16} {size / 1e6:6.2f} {r['seconds']:8.2f} {r['cpu']:7.2f} {r['peak_mb']:8.0f} {r['lines']:7}  "
                f"{r['level']}"
            )
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--one"]:
        print(json.dumps(measure(sys.argv[2])))
    else:
        main()
