"""Render the images ``ek demo`` reads with Tesseract: src/ek/data/ocr_demo/*.png + gold.json.

Three short texts, each drawn twice: once clean (black on white) and once
degraded the way a poor scan is (downsampled, blurred, speckled with noise).
The clean and degraded slices thus hold the same words, so the gap between
their error rates is the cost of the degradation.

Deterministic: the noise comes from seeded generators and the fonts are
Debian's DejaVu set (``apt-get install fonts-dejavu-core``). Run from the
repository root:

    python3 scripts/make_ocr_demo_images.py
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from PIL import Image, ImageDraw, ImageFilter, ImageFont

OUT = Path(__file__).resolve().parent.parent / "src" / "ek" / "data" / "ocr_demo"
FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")

# key stem -> (text, font file, font size in px)
TEXTS = {
    "invoice": ("INVOICE No. 2024-0117\nTotal due: 1,284.50 EUR", "DejaVuSans.ttf", 26),
    "letter": ("The quick brown fox jumps\nover the lazy dog.", "DejaVuSerif.ttf", 26),
    "address": ("Ship to: 42 Harbour Street\nLeith, Edinburgh EH6 6LX", "DejaVuSansMono.ttf", 22),
}


def render(text: str, font_path: Path, size: int) -> Image.Image:
    """Black text on a white grayscale page with a margin of about one line height."""
    font = ImageFont.truetype(str(font_path), size)
    probe = ImageDraw.Draw(Image.new("L", (1, 1)))
    left, top, right, bottom = probe.multiline_textbbox((0, 0), text, font=font, spacing=size // 3)
    margin = size
    image = Image.new("L", (right - left + 2 * margin, bottom - top + 2 * margin), 255)
    ImageDraw.Draw(image).multiline_text((margin - left, margin - top), text, font=font, fill=0, spacing=size // 3)
    return image


def degrade(image: Image.Image, *, seed: int) -> Image.Image:
    """A poor scan: halve the resolution and back, blur, add seeded Gaussian noise, 8 grey levels."""
    rng = random.Random(seed)
    w, h = image.size
    small = image.resize((w // 2, h // 2), Image.Resampling.BILINEAR)
    image = small.resize((w, h), Image.Resampling.BILINEAR).filter(ImageFilter.GaussianBlur(0.8))
    noisy = bytes(min(255, max(0, int(p + rng.gauss(0, 30)))) // 32 * 32 for p in image.tobytes())
    return Image.frombytes("L", image.size, noisy)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    gold = {}
    for seed, (stem, (text, font, size)) in enumerate(sorted(TEXTS.items())):
        clean = render(text, FONT_DIR / font, size)
        for label, image in (("clean", clean), ("degraded", degrade(clean, seed=seed))):
            key = f"{stem}-{label}"
            image.save(OUT / f"{key}.png", optimize=True)
            gold[key] = {"image": f"{key}.png", "reference_text": text, "slice": label}
    (OUT / "gold.json").write_text(json.dumps(gold, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {len(gold)} images and gold.json to {OUT}")


if __name__ == "__main__":
    main()
