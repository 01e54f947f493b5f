"""Per-engine figures of a fleet beyond its score: time per page, failures, confidence, calibration.

Everything here reads the engines' stored page entries (`ek.ocr._fleet.pages`
records each reading's text, time, error and blocks), so a resumed fleet
run gives the same figures as one that never stopped.

**Calibration.** An engine's confidences are checked at the finest unit it
reports them for: words (Tesseract) or lines (RapidOCR). Each unit's tokens
are aligned with the reference's words (`ek._align`, word level, after the
run's normalisation); a unit was read right when every one of its words
was. `ek.qe.expected_calibration_error` and `ek.qe.reliability_curve` then
say how well the confidence predicted that. Confidences outside [0, 1] are
not probabilities and are left out.

The ROVER consensus of the engines is `ek.ocr._fleet.consensus`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from ek._ocr_result import block_confidence, block_level, block_text, result_blocks
from ek._stats import nearest_rank
from ek.ocr._calibration import calibration_figures, word_outcomes
from ek.ocr._ocr_run import is_number

_FINE_TO_COARSE = ("glyph", "word", "line", "paragraph", "block", "region", "page")


def blocks_of(result: Any) -> list[Any] | None:
    """``[[text, confidence or None, level or None], ...]`` of a reading's blocks (None for a plain string)."""
    blocks = result_blocks(result)
    if isinstance(result, str) or blocks is None:
        return None
    out = []
    for b in blocks:
        text = block_text(b)
        if text is None:
            continue
        conf = block_confidence(b)
        kept = float(conf) if is_number(conf) and math.isfinite(conf) and 0.0 <= conf <= 1.0 else None
        out.append([text, kept, block_level(b)])
    return out


def engine_parts(per_item: Mapping[str, dict[str, Any]], canon: Any, n_bins: int | None = None) -> dict[str, Any]:
    """The `EngineResult` fields an engine's page entries give (all but its report and intervals)."""
    read = [e for e in per_item.values() if e.get("error") is None]
    seconds = sorted(e["seconds"] for e in read if is_number(e.get("seconds")))
    calibration = calibration_of(read, canon, n_bins)
    if calibration is not None:
        mean = calibration.pop("mean_confidence")
    else:
        confidences = [e["confidence"] for e in read if is_number(e.get("confidence"))]
        mean = math.fsum(confidences) / len(confidences) if confidences else None
    return {
        "seconds_median": nearest_rank(seconds, 0.5),
        "seconds_p95": nearest_rank(seconds, 0.95),
        "errors": {k: e["error"] for k, e in per_item.items() if e.get("error") is not None},
        "timeouts": tuple(k for k, e in per_item.items() if e.get("timed_out")),
        "mean_confidence": mean,
        "calibration": calibration,
    }


def calibration_of(entries: Sequence[dict[str, Any]], canon: Any, n_bins: int | None = None) -> dict[str, Any] | None:
    """``{"unit", "n", "ece", "curve", "mean_confidence"}`` of the entries' unit confidences, None without any."""
    probs: list[Any] = []
    correct: list[Any] = []
    units: set[Any] = set()
    for entry in entries:
        level, blocks = finest(entry.get("blocks") or [])
        if not blocks or all(b[1] is None for b in blocks):
            continue
        units.add(level or "block")
        for conf, ok in _unit_outcomes(blocks, entry.get("reference") or "", canon):
            if conf is not None:
                probs.append(conf)
                correct.append(ok)
    if not probs:
        return None
    return {
        "unit": units.pop() if len(units) == 1 else "mixed",
        **calibration_figures(probs, correct, n_bins),
        "mean_confidence": math.fsum(probs) / len(probs),
    }


def finest(blocks: Sequence[Sequence[Any]]) -> tuple[str | None, list[Any]]:
    """``(level, blocks)``: the blocks at the finest level present (an engine may give words and their lines)."""
    levels = {b[2] for b in blocks}
    for level in _FINE_TO_COARSE:
        if level in levels:
            return level, [b for b in blocks if b[2] == level]
    return None, list(blocks)


# ---------------------------------------------------------------------------


def _unit_outcomes(blocks: list[Any], reference: str, canon: Any) -> list[Any]:
    """``(confidence, read right)`` of each unit with words, aligned word by word with the reference."""
    from ek import _align

    prepare = canon if canon is not None else (lambda text: text)
    tokens = [prepare(b[0]).split() for b in blocks]
    words = [t for unit in tokens for t in unit]
    if not words:
        return []
    outcomes = word_outcomes(_align.align(" ".join(words), " ".join(prepare(reference).split()), unit="word"))
    out, pos = [], 0
    for b, unit in zip(blocks, tokens):
        if unit:
            out.append((b[1], all(outcomes[pos : pos + len(unit)])))
            pos += len(unit)
    return out
