"""What each OCR engine claims to emit: confidence grain, real geometry, calibration, tables.

These are priors, not facts. ek exists partly to test such claims, so a
benchmark should confirm them (for example, that an engine said to yield
tables really gives `ek.ocr.table_from_ocr` something to recover).

Fields of a profile:

* ``confidence_grain``: the finest unit that carries a confidence,
  ``"symbol"``, ``"word"``, ``"line"`` or ``"none"`` (``"unknown"`` for an
  engine not in the table).
* ``has_real_provenance``: boxes are measured geometry, not pixels a language
  model made up or character offsets.
* ``calibrated``: the confidence can be read as a probability of being right.
* ``tables``: the engine emits table cells that can be scored.

>>> profile("tesseract")["confidence_grain"]
'symbol'
>>> profile("aws_textract")["tables"]
True
>>> profile("no-such-engine") == DEFAULT_PROFILE
True
"""

from __future__ import annotations

from typing import TypedDict

from ek.ocr._ids import canonical_id

__all__ = ["DEFAULT_PROFILE", "ENGINE_PROFILES", "profile"]


class EngineProfile(TypedDict):
    """One engine's capability profile (the fields are set out in the module docstring)."""

    calibrated: bool
    confidence_grain: str
    has_real_provenance: bool
    tables: bool


def _claims(grain: str, *, real_boxes: bool, tables: bool = False, calibrated: bool = False) -> EngineProfile:
    return {"calibrated": calibrated, "confidence_grain": grain, "has_real_provenance": real_boxes, "tables": tables}


#: Engine id (ocracy's hyphenated spelling) -> capability profile.
ENGINE_PROFILES: dict[str, EngineProfile] = {
    "aws-textract": _claims("word", real_boxes=True, tables=True),
    "azure-document-intelligence": _claims("word", real_boxes=True, tables=True),
    "claude-vision": _claims("none", real_boxes=False),
    "doctr": _claims("word", real_boxes=True),
    "easyocr": _claims("line", real_boxes=True),
    "google-vision": _claims("symbol", real_boxes=True),
    "gpt-4o-vision": _claims("none", real_boxes=False),
    "mathpix": _claims("word", real_boxes=True, calibrated=True),
    "mistral-ocr": _claims("none", real_boxes=False),
    "ocr-space": _claims("none", real_boxes=False),
    "ocrmac": _claims("line", real_boxes=True),
    "paddleocr": _claims("line", real_boxes=True, tables=True),
    "pix2tex-latex-ocr": _claims("none", real_boxes=False),
    "rapidocr": _claims("line", real_boxes=True),
    "tesseract": _claims("symbol", real_boxes=True),
    "trocr": _claims("none", real_boxes=False),
    "trocr-handwritten": _claims("none", real_boxes=False),
}

#: The profile of an engine missing from `ENGINE_PROFILES`: it claims nothing.
DEFAULT_PROFILE: EngineProfile = _claims("unknown", real_boxes=False)


def profile(engine: str) -> EngineProfile:
    """The capability profile of ``engine``, or a copy of `DEFAULT_PROFILE` if unknown.

    ``engine`` may use ocracy's hyphens or underscores, in any case. The dict
    returned is a fresh copy, so changing it leaves the table intact.

    Raises:
        TypeError: ``engine`` is not a str.
    """
    if not isinstance(engine, str):
        raise TypeError(
            f"profile() takes an engine id such as 'tesseract', got {type(engine).__name__}: "
            f"{engine!r:.60}. For a callable engine, look up the ocracy backend it wraps."
        )
    return ENGINE_PROFILES.get(canonical_id(engine), DEFAULT_PROFILE).copy()
