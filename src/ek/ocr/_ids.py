"""Engine ids as ocracy spells them, shared by the OCR modules."""

from __future__ import annotations


def canonical_id(engine: str) -> str:
    """ocracy's spelling of an engine id: trimmed, lower case, ``_`` -> ``-``.

    >>> canonical_id(" Google_Vision ")
    'google-vision'
    """
    return engine.strip().lower().replace("_", "-")
