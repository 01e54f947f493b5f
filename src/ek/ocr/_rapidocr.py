"""RapidOCR as ek runs it: the PP-OCR models that ship inside the ``rapidocr_onnxruntime`` wheel.

ocracy's own ``rapidocr`` adapter prefers the ``rapidocr`` 3.x package when it
is importable, and 3.x fetches its PP-OCRv6 models from the network the first
time it runs, which fails on a machine without one. ``rapidocr_onnxruntime``
(1.x) carries its PP-OCRv4 detector, recogniser and direction classifier in
the wheel, so ek always runs that one, whichever of the two is installed (the
``rapidocr`` extra installs it with ``onnxruntime``). `BundledRapidOcr` is an
ocracy adapter (``ocracy.make_backend.BaseOcrAdapter``), so its options go
through ocracy's translation and its results are ocracy ``OcrResult``\\ s.

Options: ``det`` (default True) runs the text detector; False recognises the
whole image as one text line, which is what a line image needs (the detector
scales a 40-pixel line up to a page's size and takes ten times as long). A
line read so is straightened first (`ek.ocr._line_images.straighten_line`):
the recogniser squeezes the image to 48 pixels high, and a line skewed by
three degrees loses most of its words. ``cls`` (default True) runs the 0/180 degree direction
classifier on each line. The ONNX sessions use ``OMP_THREAD_LIMIT`` threads
when it is set (as Tesseract does), else as many as ONNX Runtime chooses. ``languages`` and ``model_size`` are ocracy's
options for 3.x; the bundled models have neither, so they are dropped with a
note on the result, as ocracy drops any option a backend cannot honour.

Text: the detector finds line pieces, often several on one printed line,
each a four-cornered box. Pieces are put on lines by their centre lines (see
`_reading_order_text`), a line's pieces joined left to right by a space,
lines top to bottom by a newline. The PP-OCRv4 recogniser often drops the
space between words (``"thebestof"``): a real error of this engine, kept.

Imports ocracy at import time: import this module only once an engine is
asked for (the bridge does so inside its functions).
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from typing import Any

from ocracy.base import OcrResult
from ocracy.make_backend import BaseOcrAdapter, make_block
from ocracy.util import to_numpy, to_pil

from ek.ocr._line_images import straighten_line

__all__ = ["BundledRapidOcr", "bundled_rapidocr"]

_CONFIG = {
    "id": "rapidocr",
    "name": "rapidocr",
    "display_name": "RapidOCR (PP-OCRv4 models bundled in rapidocr_onnxruntime)",
    "is_local": True,
    "is_remote": False,
    "param_map": {
        "det": {"native_name": "use_det"},
        "cls": {"native_name": "use_cls"},
        "languages": None,  # the bundled recogniser reads one script set (Chinese and Latin)
        "model_size": None,
    },
}
_LOCK = threading.Lock()
_SHARED: list[Any] = []


def bundled_rapidocr() -> BundledRapidOcr:
    """The one `BundledRapidOcr` of this process (its ONNX sessions are loaded on its first read)."""
    with _LOCK:
        if not _SHARED:
            _SHARED.append(BundledRapidOcr())
        shared: BundledRapidOcr = _SHARED[0]
        return shared


class BundledRapidOcr(BaseOcrAdapter):  # type: ignore[misc]  # ocracy has no type information
    """ocracy adapter over ``rapidocr_onnxruntime.RapidOCR`` (thread-safe: its sessions are)."""

    def __init__(self) -> None:
        super().__init__(_CONFIG)
        self._engine: Any = None
        self._lock = threading.Lock()

    def _read(self, image: Any, *, use_det: bool = True, use_cls: bool = True, **extra: Any) -> OcrResult:
        if use_det:
            raw, _seconds = self._rapidocr()(_pixels(image), use_det=True, use_cls=use_cls)
            blocks = [
                make_block(text.strip(), bbox=box, confidence=float(score), level="line")
                for box, text, score in raw or []
            ]
            text = _reading_order_text(raw or [])
        else:
            line = _plain(to_pil(image))
            width, height = line.size
            raw, _seconds = self._rapidocr()(to_numpy(straighten_line(line)), use_det=False, use_cls=use_cls)
            blocks = [
                make_block(text.strip(), bbox=(0, 0, width, height), confidence=float(score), level="line")
                for text, score in raw or []
            ]
            text = " ".join(b.text for b in blocks)
        return OcrResult.from_blocks(
            blocks, backend="rapidocr", raw=raw, text=text, engine="rapidocr_onnxruntime", det=use_det
        )

    def _rapidocr(self) -> Any:
        with self._lock:
            if self._engine is None:
                from rapidocr_onnxruntime import RapidOCR

                self._engine = RapidOCR(**_thread_options())
            return self._engine


# ---------------------------------------------------------------------------


def _thread_options() -> dict[str, int]:
    """ONNX Runtime's thread counts under ``OMP_THREAD_LIMIT`` (as Tesseract's OpenMP reads it), else its own.

    A fleet's worker processes set the limit to 1 (`ek.ocr._fleet.schedule`):
    several sessions each spinning a thread per core would fight over the
    cores. The readings do not depend on the thread count.
    """
    try:
        limit = int(os.environ.get("OMP_THREAD_LIMIT", ""))
    except ValueError:
        return {}
    return {"intra_op_num_threads": limit, "inter_op_num_threads": limit} if limit >= 1 else {}


def _pixels(image: Any) -> Any:
    """``image`` as an array of shades or colours (arrays pass as they are)."""
    return image if hasattr(image, "shape") else to_numpy(_plain(to_pil(image)))


def _plain(image: Any) -> Any:
    """A PIL image in a mode whose array is pixels: a palette or 16-bit image's array is not."""
    return image if image.mode in ("L", "RGB", "RGBA") else image.convert("RGB")


def _reading_order_text(rows: list[Any]) -> str:
    """Detected pieces ``[quad, text, score]`` as lines of text, top to bottom and left to right.

    A piece joins a line when the centre line of the line's widest piece,
    carried on to the new piece's centre, passes within half that piece's
    height of it, or the new piece's own centre line passes so near the
    widest piece's centre (a short piece's slope is too rough to carry far):
    pieces of one skewed line are joined, pieces of the line below are not
    (on a page turned by three degrees a line falls by more than a line's
    height across the page, so neither a shared band of rows nor the
    detector's top-down order tells lines apart).
    """
    lines: list[list[_Piece]] = []
    for piece in sorted((_piece(quad, text.strip()) for quad, text, _score in rows), key=lambda p: (p.cy, p.cx)):
        gaps = [(gap, i) for i, line in enumerate(lines) if (gap := _gap(_widest(line), piece)) is not None]
        if gaps:
            lines[min(gaps)[1]].append(piece)
        else:
            lines.append([piece])
    lines.sort(key=lambda line: _widest(line).y_at(0.0))
    return "\n".join(" ".join(p.text for p in sorted(line, key=lambda p: p.cx)) for line in lines)


@dataclass(frozen=True)
class _Piece:
    """One detected piece of a line: its text, centre, slope, width and height."""

    text: str
    cx: float
    cy: float
    slope: float
    width: float
    height: float

    def y_at(self, x: float) -> float:
        """Where this piece's centre line is at ``x``."""
        return self.cy + self.slope * (x - self.cx)


def _piece(quad: Any, text: str) -> _Piece:
    """The piece whose corners are ``quad`` (top-left, top-right, bottom-right, bottom-left)."""
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = ((float(x), float(y)) for x, y in quad)
    left, right = ((x0 + x3) / 2, (y0 + y3) / 2), ((x1 + x2) / 2, (y1 + y2) / 2)
    run = right[0] - left[0]
    return _Piece(
        text,
        (left[0] + right[0]) / 2,
        (left[1] + right[1]) / 2,
        (right[1] - left[1]) / run if run else 0.0,
        abs(run),
        max(1.0, ((y3 - y0) + (y2 - y1)) / 2),
    )


def _widest(line: list[_Piece]) -> _Piece:
    return max(line, key=lambda p: p.width)


def _gap(ref: _Piece, piece: _Piece) -> float | None:
    """How far ``piece`` is off the line of ``ref``, or None when it is on another line."""
    gap = abs(piece.cy - ref.y_at(piece.cx))
    if gap <= ref.height / 2 or abs(ref.cy - piece.y_at(ref.cx)) <= piece.height / 2:
        return gap
    return None
