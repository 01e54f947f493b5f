"""Cut real line images out of scanned pages by their PAGE-XML ground truth: a gold JSONL for bench_fleet.py.

The test fixtures (tests/fixtures/real/ocrd-assets.tar.xz) keep OCR-D/assets' ground truth without its
images. With the two scans of ``kant_aufklaerung_1784`` (``data/kant_aufklaerung_1784/data/OCR-D-IMG/
INPUT_0017.tif`` and ``INPUT_0020.tif`` of github.com/OCR-D/assets, the commit the README names), this
cuts each ``TextLine`` of the PAGE ground truth out of its scan (the box of its coordinates, 4 pixels of
margin) and writes ``NAME.png`` and ``gold.jsonl`` (id, image, reference_text, kind "line", slice: the
page) into OUT: 55 lines of Kant's 1784 Fraktur.

    python3 scripts/real_line_images.py --page DIR_OF_PAGE_XML --images DIR_OF_TIFS --out OUT
    python3 benchmarks/bench_fleet.py --gold OUT/gold.jsonl
"""

from __future__ import annotations

import argparse
import json
import xml.etree.ElementTree as ET
from pathlib import Path

_MARGIN = 4


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--page", required=True, help="folder of PAGE-XML ground truth")
    parser.add_argument("--images", required=True, help="folder of the scans the PAGE files name")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    from PIL import Image

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    records = []
    for path in sorted(Path(args.page).glob("*.xml")):
        root = ET.parse(path).getroot()
        page = next(e for e in root.iter() if _local(e.tag) == "Page")
        scan = Image.open(Path(args.images) / Path(page.get("imageFilename", "")).name).convert("L")
        for line in (e for e in root.iter() if _local(e.tag) == "TextLine"):
            text = _text(line)
            if not text:
                continue
            name = f"{path.stem.split('_')[1]}-{line.get('id')}"
            scan.crop(_box(line, scan.size)).save(out / f"{name}.png")
            records.append({"id": name, "image": f"{name}.png", "reference_text": text, "kind": "line"})
            records[-1]["slice"] = path.stem
    (out / "gold.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), "utf-8")
    print(f"{len(records)} line images in {out}")


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _text(line: ET.Element) -> str:
    """The line's own TextEquiv, else its words' joined by spaces."""
    for child in line:
        if _local(child.tag) == "TextEquiv":
            return "".join(u.text or "" for u in child if _local(u.tag) == "Unicode").strip()
    words = [_text(w) for w in line if _local(w.tag) == "Word"]
    return " ".join(w for w in words if w)


def _box(line: ET.Element, size: tuple[int, int]) -> tuple[int, int, int, int]:
    coords = next(c for c in line if _local(c.tag) == "Coords")
    points = [tuple(int(v) for v in p.split(",")) for p in (coords.get("points") or "").split()]
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return (
        max(0, min(xs) - _MARGIN),
        max(0, min(ys) - _MARGIN),
        min(size[0], max(xs) + _MARGIN),
        min(size[1], max(ys) + _MARGIN),
    )


if __name__ == "__main__":
    main()
