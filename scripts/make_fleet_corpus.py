"""Render the small real OCR corpus ek benchmarks engines on: src/ek/data/ocr_fleet/.

Forty-eight line images and six page images of public-domain prose, English and
German, with ``gold.jsonl``: one record per image with ``id``, ``image``
(relative to the folder), ``reference_text``, ``slice``, ``kind``
(``line`` or ``page``; a page's reference is its lines joined by newlines,
two texts one after the other), ``lang`` (``en``/``de``), ``font`` and ``source``.

Slices, each a third of the lines and of the pages:

* ``clean``: black text on white, as rendered.
* ``degraded``: a poor scan: resolution lost (down to about half and back),
  blurred, low contrast (grey ink on grey paper) and seeded Gaussian noise,
  quantised to 16 grey levels. (Tesseract reads nothing at all once the noise
  is as strong as the contrast allows; these levels keep it reading, with
  errors.)
* ``skewed``: the page or line turned by 1.5 to 3.5 degrees, lightly blurred
  and speckled.

The texts were typed for this script from the public-domain works named in
``SOURCES`` (all published before 1930, their authors dead for over seventy
years; the English ones are also Project Gutenberg e-books, numbered there).
The German ones keep their historical spellings (``daß``, ``wußte``).

Deterministic: every random draw comes from ``random.Random(seed)`` with one
seed per image, and the fonts are Debian's (``apt-get install
fonts-dejavu-core fonts-liberation``). The renderer is the one of
``scripts/make_ocr_demo_images.py``. Run from the repository root:

    python scripts/make_fleet_corpus.py

tests/ocr/test_fleet_corpus.py renders some images again with `make_image`
and checks that the pixels equal the bundled ones.
"""

from __future__ import annotations

import importlib.util
import json
import random
import textwrap
from pathlib import Path

from PIL import Image, ImageFilter, ImageOps

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "src" / "ek" / "data" / "ocr_fleet"
FONT_FILES = {
    "DejaVuSerif": "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf",
    "DejaVuSans": "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "LiberationSerif": "/usr/share/fonts/truetype/liberation/LiberationSerif-Regular.ttf",
    "LiberationSans": "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
}
SLICES = ("clean", "degraded", "skewed")
N_LINES = 48
LINE_WIDTH = 48  # characters per line image (textwrap)
PAGE_WIDTH = 62  # characters per line of a page
LINE_SIZE = 30  # font size of line images, in pixels
PAGE_SIZE = 22

# key -> (language, where the text comes from)
SOURCES = {
    "dickens": ("en", "Charles Dickens, A Tale of Two Cities (1859), book 1, chapter 1; Project Gutenberg #98"),
    "austen": ("en", "Jane Austen, Pride and Prejudice (1813), chapter 1; Project Gutenberg #1342"),
    "melville": ("en", "Herman Melville, Moby-Dick (1851), chapter 1; Project Gutenberg #2701"),
    "shelley": ("en", "Mary Shelley, Frankenstein (1818), letter 1; Project Gutenberg #84"),
    "kafka": ("de", "Franz Kafka, Die Verwandlung (1915), chapter 1"),
    "goethe": ("de", "Johann Wolfgang von Goethe, Die Leiden des jungen Werthers (1774), letter of 4 May 1771"),
    "grimm": ("de", "Jacob und Wilhelm Grimm, Rotkäppchen, Kinder- und Hausmärchen (1857 edition)"),
    "heine": ("de", "Heinrich Heine, Die Harzreise (1826), opening"),
}

TEXTS = {
    "dickens": (
        "It was the best of times, it was the worst of times, it was the age of wisdom, it was the "
        "age of foolishness, it was the epoch of belief, it was the epoch of incredulity, it was the "
        "season of Light, it was the season of Darkness, it was the spring of hope, it was the winter "
        "of despair, we had everything before us, we had nothing before us, we were all going direct "
        "to Heaven, we were all going direct the other way."
    ),
    "austen": (
        "It is a truth universally acknowledged, that a single man in possession of a good fortune, "
        "must be in want of a wife. However little known the feelings or views of such a man may be "
        "on his first entering a neighbourhood, this truth is so well fixed in the minds of the "
        "surrounding families, that he is considered the rightful property of some one or other of "
        "their daughters."
    ),
    "melville": (
        "Call me Ishmael. Some years ago—never mind how long precisely—having little or no money "
        "in my purse, and nothing particular to interest me on shore, I thought I would sail about a "
        "little and see the watery part of the world. It is a way I have of driving off the spleen "
        "and regulating the circulation."
    ),
    "shelley": (
        "You will rejoice to hear that no disaster has accompanied the commencement of an enterprise "
        "which you have regarded with such evil forebodings. I arrived here yesterday, and my first "
        "task is to assure my dear sister of my welfare and increasing confidence in the success of "
        "my undertaking."
    ),
    "kafka": (
        "Als Gregor Samsa eines Morgens aus unruhigen Träumen erwachte, fand er sich in seinem Bett "
        "zu einem ungeheueren Ungeziefer verwandelt. Er lag auf seinem panzerartig harten Rücken und "
        "sah, wenn er den Kopf ein wenig hob, seinen gewölbten, braunen, von bogenförmigen "
        "Versteifungen geteilten Bauch, auf dessen Höhe sich die Bettdecke, zum gänzlichen "
        "Niedergleiten bereit, kaum noch erhalten konnte."
    ),
    "goethe": (
        "Wie froh bin ich, daß ich weg bin! Bester Freund, was ist das Herz des Menschen! Dich zu "
        "verlassen, den ich so liebe, von dem ich unzertrennlich war, und froh zu sein! Ich weiß, du "
        "verzeihst mir's. Waren nicht meine übrigen Verbindungen recht ausgesucht vom Schicksal, um "
        "ein Herz wie das meine zu ängstigen?"
    ),
    "grimm": (
        "Es war einmal eine kleine süße Dirne, die hatte jedermann lieb, der sie nur ansah, am "
        "allerliebsten aber ihre Großmutter, die wußte gar nicht, was sie alles dem Kinde geben "
        "sollte. Einmal schenkte sie ihm ein Käppchen von rotem Sammet, und weil ihm das so wohl "
        "stand und es nichts anders mehr tragen wollte, hieß es nur das Rotkäppchen."
    ),
    "heine": (
        "Die Stadt Göttingen, berühmt durch ihre Würste und Universität, gehört dem Könige von "
        "Hannover, und enthält 999 Feuerstellen, diverse Kirchen, eine Entbindungsanstalt, eine "
        "Sternwarte, einen Karzer, eine Bibliothek und einen Ratskeller, wo das Bier sehr gut ist."
    ),
}

# The six pages: (texts on the page, font, slice); each slice holds one English and one German page.
PAGES = (
    (("dickens", "austen"), "DejaVuSerif", "clean"),
    (("kafka", "heine"), "LiberationSans", "clean"),
    (("melville", "shelley"), "LiberationSerif", "degraded"),
    (("goethe", "grimm"), "DejaVuSans", "degraded"),
    (("austen", "melville"), "LiberationSans", "skewed"),
    (("heine", "goethe"), "LiberationSerif", "skewed"),
)


def records() -> list[dict]:
    """The gold records, in order: 48 lines then 6 pages (images not rendered)."""
    fonts = list(FONT_FILES)
    out = []
    for i, (key, text) in enumerate(_line_texts()):
        lang, source = SOURCES[key]
        out.append(
            {
                "id": f"line-{i + 1:02d}",
                "image": f"line-{i + 1:02d}.png",
                "reference_text": text,
                "slice": SLICES[i % 3],
                "kind": "line",
                "lang": lang,
                "font": fonts[(i // 3) % len(fonts)],
                "source": source,
            }
        )
    for i, (keys, font, slice_) in enumerate(PAGES):
        text = "\n".join(textwrap.fill(TEXTS[k], PAGE_WIDTH) for k in keys)
        out.append(
            {
                "id": f"page-{i + 1}",
                "image": f"page-{i + 1}.png",
                "reference_text": text,
                "slice": slice_,
                "kind": "page",
                "lang": SOURCES[keys[0]][0],
                "font": font,
                "source": "; ".join(SOURCES[k][1] for k in keys),
            }
        )
    return out


def make_image(record: dict, seed: int) -> Image.Image:
    """The image of one gold record, degraded as its slice says, with draws from ``seed``."""
    render = _demo_renderer()
    size = LINE_SIZE if record["kind"] == "line" else PAGE_SIZE
    image = render(record["reference_text"], Path(FONT_FILES[record["font"]]), size)
    if record["kind"] == "line":
        image = _crop_to_ink(image, margin=size // 4)
    rng = random.Random(seed)
    if record["slice"] == "degraded":
        return _degraded(image, rng)
    if record["slice"] == "skewed":
        return _skewed(image, rng)
    return image


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    gold = records()
    for seed, record in enumerate(gold):
        make_image(record, seed).save(OUT / record["image"], optimize=True)
    lines = [json.dumps(r, ensure_ascii=False, sort_keys=True) for r in gold]
    (OUT / "gold.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    total = sum(p.stat().st_size for p in OUT.iterdir())
    print(f"wrote {len(gold)} images and gold.jsonl to {OUT} ({total / 1e6:.2f} MB)")


# ---------------------------------------------------------------------------


def _line_texts() -> list[tuple[str, str]]:
    """Forty-eight (text key, line) pairs: the texts' wrapped lines, taken from each text in turn."""
    wrapped = {k: textwrap.wrap(t, LINE_WIDTH) for k, t in TEXTS.items()}
    out: list[tuple[str, str]] = []
    depth = 0
    while len(out) < N_LINES:
        for key, lines in wrapped.items():
            if depth < len(lines) and len(out) < N_LINES:
                out.append((key, lines[depth]))
        depth += 1
    return out


def _demo_renderer():
    """``render(text, font_path, size)`` of scripts/make_ocr_demo_images.py."""
    spec = importlib.util.spec_from_file_location(
        "make_ocr_demo_images", Path(__file__).with_name("make_ocr_demo_images.py")
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.render


def _crop_to_ink(image: Image.Image, *, margin: int) -> Image.Image:
    """``image`` cut to its text with ``margin`` pixels of paper around it, as line ground truth is."""
    left, top, right, bottom = ImageOps.invert(image).getbbox()
    return image.crop((left - margin, top - margin, right + margin, bottom + margin))


def _degraded(image: Image.Image, rng: random.Random) -> Image.Image:
    w, h = image.size
    scale = rng.uniform(0.45, 0.6)
    small = image.resize((max(1, round(w * scale)), max(1, round(h * scale))), Image.Resampling.BILINEAR)
    image = small.resize((w, h), Image.Resampling.BILINEAR).filter(ImageFilter.GaussianBlur(rng.uniform(0.6, 1.0)))
    ink, paper = rng.randint(50, 80), rng.randint(195, 215)
    image = image.point(lambda p: ink + (paper - ink) * p // 255)
    return _noisy(image, rng, sigma=rng.uniform(10.0, 14.0))


def _skewed(image: Image.Image, rng: random.Random) -> Image.Image:
    angle = rng.uniform(1.5, 3.5) * rng.choice((-1, 1))
    image = image.rotate(angle, resample=Image.Resampling.BICUBIC, expand=True, fillcolor=255)
    return _noisy(image.filter(ImageFilter.GaussianBlur(0.5)), rng, sigma=8.0)


def _noisy(image: Image.Image, rng: random.Random, *, sigma: float) -> Image.Image:
    """Seeded Gaussian noise on every pixel, quantised to 16 grey levels (as a scanner's output is)."""
    gauss = rng.gauss
    pixels = bytes(min(255, max(0, int(p + gauss(0, sigma)))) // 16 * 17 for p in image.tobytes())
    return Image.frombytes("L", image.size, pixels)


if __name__ == "__main__":
    main()
