"""Reading what an OCR engine returned, typed by `ek.base.OcrResult` and `ek.base.OcrBlock`.

Engines are duck-typed (ocracy's and users' own), so any attribute may be
missing: these reads give None then, and hand a present value back as the
Protocol declares it. Each caller keeps its own check, fallback and message
(a run reports a bad ``.text`` differently from a metric).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from ek._util import type_name
from ek.base import OcrBlock

__all__ = [
    "block_confidence",
    "block_level",
    "block_text",
    "mean_confidence_of",
    "result_backend",
    "result_blocks",
    "result_text",
    "text_kind",
]


def result_text(result: object) -> str | None:
    """``result.text`` when it is a str, else None (missing, None or another type)."""
    text = getattr(result, "text", None)
    return text if isinstance(text, str) else None


def text_kind(result: object) -> str | None:
    """The type name of ``result.text`` (``"None"`` for None), or None when there is no ``.text``."""
    return type_name(getattr(result, "text", None)) if hasattr(result, "text") else None


def result_blocks(result: object) -> Sequence[OcrBlock] | None:
    """``result.blocks`` as the engine gave it, or None when missing."""
    return cast("Sequence[OcrBlock] | None", getattr(result, "blocks", None))


def mean_confidence_of(result: object) -> float | None:
    """``result.mean_confidence`` as the engine gave it, or None when missing."""
    return cast("float | None", getattr(result, "mean_confidence", None))


def result_backend(result: object) -> str | None:
    """``result.backend`` when it is a non-empty str, else None."""
    backend = getattr(result, "backend", None)
    return backend if isinstance(backend, str) and backend else None


def block_text(block: object) -> str | None:
    """``block.text`` when it is a str, else None."""
    text = getattr(block, "text", None)
    return text if isinstance(text, str) else None


def block_confidence(block: object) -> float | None:
    """``block.confidence`` as the engine gave it, or None when missing."""
    return cast("float | None", getattr(block, "confidence", None))


def block_level(block: object) -> str | None:
    """``block.level`` (``"word"``, ``"line"``, ...) when it is a str, else None."""
    level = getattr(block, "level", None)
    return level if isinstance(level, str) else None
