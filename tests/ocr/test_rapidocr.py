"""ek.ocr._rapidocr: RapidOCR with its bundled models, reading order of its pieces, line mode."""

from __future__ import annotations

import sys
import types

import pytest

from ek.ocr._engines import check_engine
from ek.ocr._rapidocr import _reading_order_text

_READY = check_engine("rapidocr")
requires_rapidocr = pytest.mark.skipif(not _READY["ok"], reason=_READY["hint"])


def _quad(x0, y0, x1, y1, rise=0.0):
    """A detected box from (x0, y0) to (x1, y1), its right side ``rise`` pixels lower (a skewed line)."""
    return [[x0, y0], [x1, y0 + rise], [x1, y1 + rise], [x0, y1]]


def test_pieces_of_one_line_are_joined_left_to_right():
    rows = [
        [_quad(300, 10, 400, 40), "c", 0.9],
        [_quad(0, 12, 100, 40), "a", 0.9],
        [_quad(120, 11, 280, 41), "b", 1],
        [_quad(0, 60, 200, 90), "second", 0.9],
    ]
    assert _reading_order_text(rows) == "a b c\nsecond"


def test_pieces_of_a_skewed_page_stay_on_their_lines():
    # lines 30 px apart, falling 80 px across 600 px: the right piece of line 1 sits lower than
    # the left piece of line 2, so a shared band of rows (or top-down order) would mix them
    rows = []
    for n in range(3):
        top = 10 + 30 * n
        rows.append([_quad(0, top, 290, top + 20, rise=290 * 80 / 600), f"L{n}a", 0.9])
        rows.append(
            [_quad(310, top + 310 * 80 / 600, 600, top + 20 + 310 * 80 / 600, rise=290 * 80 / 600), f"L{n}b", 0.9]
        )
    assert rows[1][0][0][1] > rows[2][0][0][1]  # line 0's right piece starts below line 1's left piece
    assert _reading_order_text(rows) == "L0a L0b\nL1a L1b\nL2a L2b"


def test_a_short_piece_with_a_rough_slope_joins_its_line():
    # "has" is 40 px wide and its box tilts by 6 px: carried 300 px, its slope would miss the line
    rows = [
        [_quad(0, 4, 560, 39), "You will rejoice to hear that no disaster", 0.9],
        [_quad(570, 5, 610, 30, rise=6), "has", 0.9],
    ]  # centre 20.5: above the long piece's 21.5
    assert _reading_order_text(rows) == "You will rejoice to hear that no disaster has"


def test_nothing_found_is_empty_text():
    assert _reading_order_text([]) == ""


@requires_rapidocr
def test_the_bundled_models_run_even_when_rapidocr_3_is_importable(monkeypatch, render, fonts, tmp_path):
    from ocracy.backends.rapidocr import adapter as ocracy_adapter

    fake = types.ModuleType("rapidocr")
    fake.OCRVersion = object  # what ocracy's adapter takes for rapidocr 3.x

    def refuse(*args, **kwargs):
        raise AssertionError("rapidocr 3.x was called: it downloads its models")

    fake.RapidOCR = refuse
    monkeypatch.setitem(sys.modules, "rapidocr", fake)
    assert ocracy_adapter.is_v3_package()  # ocracy itself would now run 3.x
    from ek.ocr.bridge import ocracy_backend

    path = tmp_path / "line.png"
    render("It was the best of times", fonts[0], 30).save(path)
    result = ocracy_backend("rapidocr", det=False)(path)
    assert result.text == "It was the best of times"
    assert result.meta["engine"] == "rapidocr_onnxruntime" and result.backend == "rapidocr"


@requires_rapidocr
def test_line_mode_reads_one_line_with_its_confidence(render, fonts):
    from ek.ocr.bridge import ocracy_backend

    image = render("Call me Ishmael.", fonts[0], 30)
    result = ocracy_backend("rapidocr")(image, det=False)
    assert result.text == "Call me Ishmael."
    (block,) = result.blocks
    assert block.level == "line" and 0.9 < block.confidence <= 1.0
    assert (block.bbox.x1, block.bbox.y1) == image.size  # the whole image is the line
    assert result.meta["det"] is False


@requires_rapidocr
def test_detection_finds_each_line_of_a_page(render, fonts):
    from ek.ocr.bridge import ocracy_backend

    result = ocracy_backend("rapidocr")(render("first line here\nsecond line there", fonts[0], 30))
    assert len(result.text.splitlines()) == 2 and len(result.blocks) >= 2
    assert result.text.splitlines()[0].replace(" ", "") == "firstlinehere"  # PP-OCRv4 may drop spaces
    assert all(b.bbox is not None for b in result.blocks) and result.meta["det"] is True


@requires_rapidocr
def test_options_the_bundled_models_lack_are_dropped_with_a_note(render, fonts):
    from ek.ocr.bridge import ocracy_backend

    with pytest.warns(UserWarning, match=r"languages=\['de'\] is not supported by rapidocr; dropped"):
        result = ocracy_backend("rapidocr", languages=["de"])(render("Hallo", fonts[0], 30), det=False)
    assert result.meta["notes"] == ["languages=['de'] is not supported by rapidocr; dropped"]


@requires_rapidocr
def test_a_palette_image_is_read_as_pixels(render, fonts):
    from ek.ocr.bridge import ocracy_backend

    image = render("Palette", fonts[0], 30).convert("P")
    assert ocracy_backend("rapidocr")(image, det=False).text == "Palette"


@requires_rapidocr
def test_an_image_without_text_reads_as_empty(render):
    from PIL import Image

    from ek.ocr.bridge import ocracy_backend

    result = ocracy_backend("rapidocr")(Image.new("L", (300, 200), 255))
    assert result.text == "" and result.blocks == [] and result.mean_confidence is None
