"""Reading OCR-result-shaped objects: their text, tokens and confidences.

An OCR result here is anything with a ``.text`` (a str, or None when the
engine read nothing), optional ``.blocks`` whose items carry ``.text``,
``.confidence`` (in [0, 1], or None) and a ``.level`` (``"word"``, ``"line"``,
...), and an optional ``.mean_confidence``: the shape of ``ocracy``'s
``OcrResult``, duck-typed so ek never imports an OCR package. Text-only
engines (vision-language models) give no blocks and no confidence, so every
reader here tolerates both being missing.

Used by `ek.qe.rover` (per-token confidences for the weighted vote) and
`ek.qe.IntrinsicConfidenceSignal` (pooling per-block confidences).
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable
from typing import Any, cast

from ek._ocr_result import block_confidence, block_level, block_text, mean_confidence_of, result_blocks

__all__ = [
    "NEUTRAL_CONFIDENCE",
    "block_confidences",
    "finest_blocks",
    "is_ocr_result",
    "mean_confidence",
    "token_confidences",
]

NEUTRAL_CONFIDENCE = 1.0
"""Confidence of a token whose engine reports none: the same as a plain string's token."""

_FINE_TO_COARSE = ("word", "line", "paragraph", "block", "page")


def is_ocr_result(obj: Any) -> bool:
    """True for an object read through ``.text`` (not a str, a token list or a mapping)."""
    return hasattr(obj, "text") and not isinstance(obj, (str, bytes, list, tuple, dict))


def finest_blocks(result: Any) -> list[Any]:
    """The result's blocks at one granularity: the finest level present when levels are mixed.

    An engine may report words and the lines they make up side by side;
    counting both would weigh every word twice.
    """
    blocks = list(result_blocks(result) or ())
    levels = {block_level(b) for b in blocks}
    if len(levels) > 1:
        for level in _FINE_TO_COARSE:
            if level in levels:
                return [b for b in blocks if block_level(b) == level]
    return blocks


def block_confidences(result: Any) -> list[float]:
    """The confidences of the finest blocks that report one (None and non-numbers skipped)."""
    out = []
    for b in finest_blocks(result):
        c = block_confidence(b)
        if c is not None:
            out.append(c)
    return out


def mean_confidence(result: Any) -> Any | None:
    """``result.mean_confidence`` when set, else the mean of the block confidences, else None."""
    value = mean_confidence_of(result)
    if value is not None:
        return value
    confs = [c for c in block_confidences(result) if isinstance(c, numbers.Real) and not isinstance(c, bool)]
    return sum(confs) / len(confs) if confs else None


def token_confidences(result: Any, tokens: list[str]) -> list[float]:
    """One confidence per token of ``result.text``: its word's, else the mean, else neutral.

    The finest blocks are split into tokens and lined up with ``tokens`` (an
    edit-distance alignment when they differ, e.g. blocks that skip a
    line); a token no block covers, or whose block has no confidence, gets
    the result's mean confidence, then `NEUTRAL_CONFIDENCE`.
    """
    fallback = mean_confidence(result)
    fallback = NEUTRAL_CONFIDENCE if fallback is None else fallback
    units = [(tok, block_confidence(b)) for b in finest_blocks(result) for tok in (block_text(b) or "").split()]
    out = [fallback] * len(tokens)
    if not units:
        return out
    block_tokens = [tok for tok, _ in units]
    pairs: Iterable[tuple[int, int]]
    if block_tokens == tokens:
        pairs = zip(range(len(tokens)), range(len(tokens)))
    else:
        from rapidfuzz.distance import Levenshtein

        runs = cast("list[tuple[str, int, int, int, int]]", Levenshtein.opcodes(block_tokens, tokens).as_list())
        pairs = ((j, i) for tag, i1, i2, j1, j2 in runs if tag == "equal" for i, j in zip(range(i1, i2), range(j1, j2)))
    for j, i in pairs:
        conf = units[i][1]
        if conf is not None:
            out[j] = conf
    return out
