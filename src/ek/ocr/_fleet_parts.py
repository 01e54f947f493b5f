"""Per-engine figures of a fleet beyond its score: time per page, failures, confidence, calibration; and ROVER.

Everything here reads the engines' stored page entries (`ek.ocr._fleet`
records each reading's text, time, error and blocks), so a resumed fleet
run gives the same figures as one that never stopped.

**Calibration.** An engine's confidences are checked at the finest unit it
reports them for: words (Tesseract) or lines (RapidOCR). Each unit's tokens
are aligned with the reference's words (`ek._align`, word level, after the
run's normalisation); a unit was read right when every one of its words
was. `ek.qe.expected_calibration_error` and `ek.qe.reliability_curve` then
say how well the confidence predicted that. Confidences outside [0, 1] are
not probabilities and are left out.

**Consensus.** `consensus_texts` fuses, page by page, the readings of every
engine that read the page with `ek.qe.rover`, character by character: each
character votes with its word's confidence (with two engines no majority
can form, so the more confident reading wins a disagreement, and what only
one engine read stays when its confidence beats ROVER's credit for a
deletion, 0.7). Characters, not words, because engines cut words
differently: RapidOCR's recogniser often drops the space between words
(``"thebestof"``), and a word-level vote would then keep both engines'
versions side by side; at the character level the other engine's spaces
simply win their slots. A space votes with the mean confidence of the
words on either side. Line breaks vote as tokens too, so the consensus keeps
the pages' lines; but engines cut lines differently and none gives a
confidence for a break, so a break stands where most engines put one
(`BREAK_CONFIDENCE`). ROVER refuses readings more than ten times shorter
than the longest: such a reading is left out of that page's vote (a blank
one is kept: it votes "nothing here"). A page no engine read has no
consensus. The consensus text has single spaces and no empty lines.
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
_BREAK = "\ufdd0"  # a noncharacter: the token that stands for a line break in the ROVER vote

BREAK_CONFIDENCE = 0.5
"""The confidence of a line break in the ROVER vote: below ROVER's credit for a deletion (0.7), so a
break stands where most engines put one (with two engines: both), whatever their confidences."""


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


def consensus_texts(keys: Sequence[str], readings: Sequence[Mapping[str, dict[str, Any]]]) -> dict[str, Any]:
    """The ROVER consensus of every page: ``key -> text`` (None where no engine read the page)."""
    from ek.qe import rover

    out: dict[str, Any] = {}
    for key in keys:
        hypotheses = [vote_units(e) for e in (r[key] for r in readings) if e.get("error") is None]
        if not hypotheses:
            out[key] = None
            continue
        longest = max(len(h) for h in hypotheses)
        kept = [h for h in hypotheses if not h or 10 * len(h) >= longest]
        voters = [h for h in kept if h]
        if len(voters) == len(kept) <= 1:
            tokens = [t for t, _ in voters[0]] if voters else []
        else:
            tokens = list(rover(kept, max_tokens=None).tokens)
        out[key] = _lines(tokens)
    return out


def vote_units(entry: dict[str, Any]) -> list[Any]:
    """A page reading as ROVER's ``(token, confidence)`` list: its characters, a space between words, a break
    token between lines.

    Each character takes the confidence of its word's block (when the blocks
    spell out the text, as ocracy's do), else the page's mean confidence,
    else 1; a space the mean of its two words'; a line break `BREAK_CONFIDENCE`.
    """
    lines = [line.split() for line in (entry.get("prediction") or "").splitlines()]
    lines = [line for line in lines if line]
    words = [t for line in lines for t in line]
    mean = entry.get("confidence")
    mean = mean if is_number(mean) and 0.0 <= mean <= 1.0 else 1.0
    units = [(t, c) for b in finest(entry.get("blocks") or [])[1] for t in b[0].split() for c in (b[1],)]
    confidences = (
        [mean if c is None else c for _, c in units] if [t for t, _ in units] == words else [mean] * len(words)
    )
    out: list[Any] = []
    pos = 0
    for line in lines:
        if out:
            out.append((_BREAK, BREAK_CONFIDENCE))
        for k, word in enumerate(line):
            conf = confidences[pos + k]
            if k:
                out.append((" ", (confidences[pos + k - 1] + conf) / 2))
            out.extend((ch, conf) for ch in word)
        pos += len(line)
    return out


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


def _lines(tokens: Sequence[str]) -> str:
    """Consensus characters as text: a break token ends a line; spaces collapsed, empty lines dropped."""
    lines = "".join(tokens).split(_BREAK)
    return "\n".join(" ".join(line.split()) for line in lines if line.split())
