"""Build the bundled OCR ground-truth folder: src/ek/data/ocr_gt/ (PAGE-XML gold, page images, Tesseract output).

Three short pages of public-domain German text in the spelling of their
time (Grimm's Kinder- und Hausmärchen, 1857: long s, a combining small e
over a vowel) and one modern letter (a ligature, an em dash, a typographic
apostrophe). Each page NAME gets

* ``NAME.gt.xml``: its transcription as PAGE-XML, the way ground truth is
  kept: froschkoenig in PAGE 2019 with region and line text, sterntaler in
  PAGE 2013 with line text only, brief in PAGE 2019 with region text only
  (so ek's default reads each at the finest level it has throughout);
* ``NAME.png``: the page drawn in DejaVu Serif (sterntaler degraded like a
  poor scan), by the renderer of ``make_ocr_demo_images.py``;
* ``NAME.txt``, ``NAME.hocr``, ``NAME.xml`` (ALTO): what Tesseract's ``eng``
  model reads on it, written by ``tesseract NAME.png NAME txt hocr alto``.
  The model knows no long s, so it makes the errors a real engine makes.

The files are generated once and committed: ek's tests and the README read
them as they are. Needs Tesseract (``apt-get install tesseract-ocr``) and
Pillow. Run from the repository root:

    python3 scripts/make_ocr_gt_demo.py
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from xml.sax.saxutils import escape

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_ocr_demo_images import FONT_DIR, degrade, render  # the same renderer as ek demo's images

OUT = Path(__file__).resolve().parent.parent / "src" / "ek" / "data" / "ocr_gt"
PAGE = "http://schema.primaresearch.org/PAGE/gts/pagecontent/{}"

# name -> (PAGE version, which levels carry text, regions as lists of lines, degraded?)
PAGES = {
    "froschkoenig": (
        "2019-07-15",
        ("region", "line"),
        [
            [
                "In den alten Zeiten, wo das Wünſchen noch",
                "geholfen hat, lebte ein König, deſſen Töchter",
                "waren alle ſchön, aber die jüngſte war ſo ſchön,",
                "daß die Sonne ſelber ſich verwunderte.",
            ]
        ],
        False,
    ),
    "sterntaler": (
        "2013-07-15",
        ("line",),
        [
            [
                "Es war einmal ein kleines Mädchen, dem war",
                "Vater und Mutter geſtorben, und es war ſo arm,",
            ],
            [
                "daß es kein Kämmerchen mehr hatte, darin zu",
                "wohnen, und kein Bettchen mehr zu ſchlafen.",
            ],
        ],
        True,
    ),
    "brief": (
        "2019-07-15",
        ("region",),
        [
            [
                "Sehr geehrter Herr Müller,",
                "wir beſtätigen den Empfang Ihres Schreibens —",
                "die Lieferung der Stoﬀe folgt nächſte Woche.",
                "Mit freundlichem Gruß, Ihr’s ergebenſt",
            ]
        ],
        False,
    ),
}


def page_xml(version: str, levels: tuple, regions: list) -> str:
    """A PAGE document with one TextRegion per region, text at the given levels, in a reading order."""
    body, refs = [], []
    for r, lines in enumerate(regions):
        rid = f"r{r + 1}"
        refs.append(f'<RegionRefIndexed index="{r}" regionRef="{rid}"/>')
        text_lines = "".join(
            f'<TextLine id="{rid}l{k + 1}"><Coords points="0,0 1,0 1,1 0,1"/>'
            + (f"<TextEquiv><Unicode>{escape(line)}</Unicode></TextEquiv>" if "line" in levels else "")
            + "</TextLine>"
            for k, line in enumerate(lines)
        )
        own = f"<TextEquiv><Unicode>{escape(chr(10).join(lines))}</Unicode></TextEquiv>" if "region" in levels else ""
        body.append(
            f'<TextRegion id="{rid}" type="paragraph"><Coords points="0,0 1,0 1,1 0,1"/>{text_lines}{own}</TextRegion>'
        )
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<PcGts xmlns="{PAGE.format(version)}">\n'
        f"<Metadata><Creator>ek scripts/make_ocr_gt_demo.py</Creator><Created>2026-12-01T00:00:00</Created>"
        f"<LastChange>2026-12-01T00:00:00</LastChange></Metadata>\n"
        f'<Page imageFilename="{{name}}.png" imageWidth="1" imageHeight="1">\n'
        f'<ReadingOrder><OrderedGroup id="ro">{"".join(refs)}</OrderedGroup></ReadingOrder>\n'
        f"{chr(10).join(body)}\n</Page>\n</PcGts>\n"
    )


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for seed, (name, (version, levels, regions, degraded)) in enumerate(sorted(PAGES.items())):
        (OUT / f"{name}.gt.xml").write_text(
            page_xml(version, levels, regions).replace("{name}", name), encoding="utf-8"
        )
        text = "\n\n".join("\n".join(lines) for lines in regions)
        image = render(text, FONT_DIR / "DejaVuSerif.ttf", 28)
        if degraded:
            image = degrade(image, seed=seed)
        image.save(OUT / f"{name}.png", optimize=True)
        subprocess.run(
            ["tesseract", str(OUT / f"{name}.png"), str(OUT / name), "-l", "eng", "txt", "hocr", "alto"],
            check=True,
            capture_output=True,
        )
    print(f"wrote {len(PAGES)} pages to {OUT}")


if __name__ == "__main__":
    main()
