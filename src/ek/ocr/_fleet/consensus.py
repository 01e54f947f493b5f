"""The ROVER consensus of a fleet: every page's readings fused, character by character.

`consensus_texts` fuses, page by page, the readings of every
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

from collections.abc import Mapping, Sequence
from typing import Any

from ek.ocr._fleet.figures import finest
from ek.ocr._ocr_run import is_number

_BREAK = "\ufdd0"  # a noncharacter: the token that stands for a line break in the ROVER vote

BREAK_CONFIDENCE = 0.5
"""The confidence of a line break in the ROVER vote: below ROVER's credit for a deletion (0.7), so a
break stands where most engines put one (with two engines: both), whatever their confidences."""


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


def _lines(tokens: Sequence[str]) -> str:
    """Consensus characters as text: a break token ends a line; spaces collapsed, empty lines dropped."""
    lines = "".join(tokens).split(_BREAK)
    return "\n".join(" ".join(line.split()) for line in lines if line.split())
