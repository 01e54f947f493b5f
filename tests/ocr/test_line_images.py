"""ek.ocr._line_images: the line rule, padding a line for a detector, straightening it for a recogniser."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ek.ocr._line_images import is_line_image, line_skew, pad_line, straighten_line


@pytest.mark.parametrize(
    "width, height, line",
    [
        (600, 40, True),
        (480, 160, True),
        (479, 160, False),
        (900, 161, False),
        (120, 40, True),
        (119, 40, False),
        (700, 1000, False),
        (30, 10, True),
    ],
)
def test_the_line_rule(width, height, line):
    assert is_line_image(width, height) is line


def test_pad_line_centres_the_line_on_its_own_paper():
    from PIL import Image, ImageDraw

    line = Image.new("L", (600, 40), 200)  # grey paper
    for x in range(20, 580, 60):  # words of ink, on paper that is most of the line
        ImageDraw.Draw(line).rectangle((x, 12, x + 35, 28), fill=30)
    padded = pad_line(line)
    margin = (600 // 3 - 40) // 2  # 80: the padded line is a third of its width high
    assert padded.size == (600 + 2 * margin, 40 + 2 * margin) and padded.mode == "L"
    assert padded.getpixel((0, 0)) == 200 and padded.getpixel((padded.size[0] - 1, padded.size[1] - 1)) == 200
    assert padded.crop((margin, margin, margin + 600, margin + 40)).tobytes() == line.tobytes()


def test_a_short_line_gets_at_least_its_height_of_paper():
    from PIL import Image

    padded = pad_line(Image.new("RGB", (90, 30), (255, 255, 255)))
    assert padded.size == (90 + 30, 30 + 30) and padded.mode == "L"  # margin max(30, 90 // 3 - 30) // 2 = 15


def _rendered(render, fonts, text="It was the best of times, it was the worst"):
    return render(text, fonts[0], 30)


@pytest.mark.parametrize("skew", [-3.5, -2.0, 1.5, 3.0, 5.0])
def test_a_skewed_line_is_turned_back(render, fonts, skew):
    from PIL import Image

    line = _rendered(render, fonts)
    skewed = line.rotate(skew, resample=Image.Resampling.BICUBIC, expand=True, fillcolor=255)
    assert abs(line_skew(skewed) + skew) <= 0.25
    straight = straighten_line(skewed)
    # cut to the band of ink: about as high as the text, far less than the skewed strip
    assert straight.size[1] < 0.8 * skewed.size[1]
    assert _profile_peak(straight) > 1.5 * _profile_peak(skewed)


def test_a_straight_line_is_returned_as_it_is(render, fonts):
    from PIL import Image

    line = _rendered(render, fonts)
    cut = straighten_line(line)  # rendered with a margin as high as the text: cut to the ink
    assert cut.size[0] == line.size[0] and cut.size[1] < line.size[1]
    assert straighten_line(cut) is cut  # nothing left to cut or turn
    nearly = cut.rotate(0.2, resample=Image.Resampling.BICUBIC, fillcolor=255)
    assert straighten_line(nearly) is nearly  # under half a degree: not turned


def test_low_contrast_lines_are_straightened_too(render, fonts):
    from PIL import Image

    line = _rendered(render, fonts).point(lambda p: 90 + p * 110 // 255)  # grey ink on grey paper
    skewed = line.rotate(2.5, resample=Image.Resampling.BICUBIC, expand=True, fillcolor=200)
    straight = straighten_line(skewed)
    assert straight.size[1] < 0.8 * skewed.size[1]
    assert _profile_peak(straight, paper=200) > 1.5 * _profile_peak(skewed, paper=200)


def test_a_blank_image_is_returned_as_it_is():
    from PIL import Image

    blank = Image.new("L", (400, 40), 255)
    assert line_skew(blank) == 0.0 and straighten_line(blank) is blank


@settings(max_examples=20, deadline=None)
@given(st.floats(min_value=-5.5, max_value=5.5))
def test_the_found_skew_undoes_the_applied_one(render, fonts, skew):
    from PIL import Image

    skewed = _rendered(render, fonts, "Wie froh bin ich, daß ich weg bin!").rotate(
        skew, resample=Image.Resampling.BICUBIC, expand=True, fillcolor=255
    )
    assert abs(line_skew(skewed) + skew) <= 0.5


def _profile_peak(image, paper=255):
    """The ink of the fullest row: a straight line packs its ink into fewer rows."""
    grey = image.convert("L")
    width = grey.size[0]
    return max(sum(max(0, paper - grey.getpixel((x, y))) for x in range(0, width, 2)) for y in range(grey.size[1]))
