"""Fixtures for the OCR tests: text images rendered with Pillow at test time, fake engines."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

# Debian's font packages: fonts-dejavu-core (and fonts-liberation when present).
_FONT_FILES = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSerif-Regular.ttf",
)


def font_files() -> list[str]:
    """The TrueType fonts found on this machine (None stands for Pillow's built-in font)."""
    found = [f for f in _FONT_FILES if Path(f).is_file()]
    return found or [None]


def render_text(text: str, font_file, size: int):
    """Black text on a white grayscale page, with a margin of one line height."""
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.truetype(font_file, size) if font_file else ImageFont.load_default(size)
    spacing = size // 3
    left, top, right, bottom = ImageDraw.Draw(Image.new("L", (1, 1))).multiline_textbbox(
        (0, 0), text, font=font, spacing=spacing
    )
    image = Image.new("L", (right - left + 2 * size, bottom - top + 2 * size), 255)
    ImageDraw.Draw(image).multiline_text((size - left, size - top), text, font=font, fill=0, spacing=spacing)
    return image


def degrade(image, *, seed: int, sigma: float = 25.0, blur: float = 0.7):
    """A poor scan: half resolution and back, Gaussian blur, seeded Gaussian noise."""
    from PIL import Image, ImageFilter

    rng = random.Random(seed)
    w, h = image.size
    image = image.resize((w // 2, h // 2), Image.Resampling.BILINEAR).resize((w, h), Image.Resampling.BILINEAR)
    image = image.filter(ImageFilter.GaussianBlur(blur))
    noisy = bytes(min(255, max(0, int(p + rng.gauss(0, sigma)))) for p in image.tobytes())
    return Image.frombytes("L", image.size, noisy)


@pytest.fixture(scope="session")
def fonts() -> list:
    return font_files()


@pytest.fixture(scope="session")
def render():
    return render_text


@pytest.fixture(scope="session")
def degraded():
    return degrade
