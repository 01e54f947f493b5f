"""Text measures that forgive a different reading order: flexible character accuracy and bag of words.

CER aligns two texts in one order, so a two-column page read across the
columns scores as garbage although every line was recognised. Two measures
tolerate that:

* `FlexibleCharacterMetric` (``"fca"``, higher is better): flexible
  character accuracy after Clausner, Pletschacher and Antonacopoulos
  (2020). Lines are matched to each other in any order, pieces of a line
  may match pieces of other lines, and only the edits inside the matched
  pieces plus whatever stays unmatched count as errors:
  ``1 - errors / gold characters``.
* `BagOfWordsMetric` (``"bow"``, lower is better): bag-of-words error, the
  order-free word count difference ``max(n_gold, n_pred) - matched``
  over ``n_gold``, where ``matched`` counts each word as often as it
  occurs on both sides. A substitution is one error, as in WER, and the
  count never exceeds WER's edits.

Both keep their sufficient statistics (``edits``, ``ref_len``) in
``Score.detail``; ``aggregate`` sums them and divides once. An empty gold
text counts every predicted unit as an error (accuracy ``1 - edits``), as
the string metrics do.

>>> gold = "left one\\nleft two\\nright one\\nright two"
>>> pred = "left one right one\\nleft two right two"   # read across the columns
>>> round(FlexibleCharacterMetric()(pred, gold).value, 3), BagOfWordsMetric()(pred, gold).value
(1.0, 0.0)

**The matching** (a greedy version of the paper's; the paper searches
several penalty weightings, this keeps one rule and states it). Both texts
are cut into lines, without their edge whitespace. Repeatedly, the longest
unmatched gold piece is matched with the window of a pred piece that fits
it best: an identical piece, else the piece containing it, else the best
window of `rapidfuzz.fuzz.partial_ratio_alignment` over all pred pieces
(its ends moved by a few units where that saves edits). A match is kept when at most
``max_line_error`` of its units are edits; the unmatched rests of both
pieces (trimmed of edge whitespace, as line breaks are not counted) go
back into play. A gold piece with no acceptable match is set aside. At the
end, the set-aside gold pieces and the unmatched pred pieces are compared
in reading order with the plain edit distance, so text that matches
nowhere costs what CER would charge for it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar, Mapping, Optional

from ek._util import SummedStatistics, type_name
from ek.base import GraphGrammar, Normalizer, Score
from ek.registry import register

__all__ = ["BagOfWordsMetric", "FlexibleCharacterMetric"]


def _error_rate(edits: float, ref_len: float) -> float:
    """Errors per gold unit; an empty gold counts each predicted unit as one error."""
    return edits / ref_len if ref_len else float(edits)


@dataclass(frozen=True)
class FlexibleCharacterMetric(SummedStatistics):
    """Flexible character accuracy of ``pred`` against ``gold`` (higher is better; see the module doc).

    Args:
        canonicalizer: optional ``str -> str`` applied to both sides first.
        max_line_error: the largest share of edits in a matched piece (0-1).

    >>> s = FlexibleCharacterMetric()("world\\nhello", "hello\\nworld")
    >>> s.value, s.detail["edits"], s.detail["ref_len"]
    (1.0, 0, 10)
    """

    canonicalizer: Optional[Normalizer] = field(default=None, kw_only=True)
    max_line_error: float = field(default=0.5, kw_only=True)

    higher_is_better: ClassVar[bool] = True
    statistics: ClassVar[tuple[str, ...]] = ("edits", "ref_len")
    options: ClassVar[Mapping[str, str]] = MappingProxyType({"normalize": "canonicalizer"})
    name: ClassVar[str] = "fca"

    def __post_init__(self) -> None:
        if not (isinstance(self.max_line_error, (int, float)) and 0 <= self.max_line_error <= 1):
            raise ValueError(
                f"max_line_error must be a share between 0 and 1, got {self.max_line_error!r}; "
                "0.5 keeps matches where at most half the units are edits."
            )

    def __call__(self, pred: str, gold: str, *, grammar: Optional[GraphGrammar] = None) -> Score:
        """Flexible character accuracy of one pair."""
        pred, gold = _prepare(pred, gold, self.canonicalizer, "flexible character accuracy")
        edits, ref_len = _flexible_edits(_lines(pred), _lines(gold), self.max_line_error)
        return self._score(edits, ref_len)

    def compute(self, totals: Mapping[str, float]) -> float:
        """Accuracy from summed statistics: ``1 - edits / ref_len`` (the corpus figure sums first)."""
        return 1.0 - _error_rate(totals["edits"], totals["ref_len"])

    def _score(self, edits: int, ref_len: int) -> Score:
        detail = {"edits": edits, "ref_len": ref_len}
        return Score(self.compute(detail), metric=self.name, detail=detail)


@dataclass(frozen=True)
class BagOfWordsMetric(SummedStatistics):
    """Bag-of-words error of ``pred`` against ``gold`` (lower is better; see the module doc).

    Args:
        canonicalizer: optional ``str -> str`` applied to both sides first.

    >>> s = BagOfWordsMetric()("b a c", "a b d")
    >>> s.value, s.detail["edits"], s.detail["matched"]
    (0.3333333333333333, 1, 2)
    """

    canonicalizer: Optional[Normalizer] = field(default=None, kw_only=True)

    higher_is_better: ClassVar[bool] = False
    statistics: ClassVar[tuple[str, ...]] = ("edits", "ref_len")
    options: ClassVar[Mapping[str, str]] = MappingProxyType({"normalize": "canonicalizer"})
    name: ClassVar[str] = "bow"

    def __call__(self, pred: str, gold: str, *, grammar: Optional[GraphGrammar] = None) -> Score:
        """Bag-of-words error of one pair."""
        pred, gold = _prepare(pred, gold, self.canonicalizer, "bag-of-words error")
        p, g = Counter(pred.split()), Counter(gold.split())
        n_pred, n_gold = sum(p.values()), sum(g.values())
        matched = sum((p & g).values())
        detail = {"edits": max(n_gold, n_pred) - matched, "ref_len": n_gold, "matched": matched, "pred_len": n_pred}
        return Score(self.compute(detail), metric=self.name, detail=detail)

    def compute(self, totals: Mapping[str, float]) -> float:
        """Error from summed statistics: ``edits / ref_len`` (the corpus figure sums first)."""
        return _error_rate(totals["edits"], totals["ref_len"])


# ---------------------------------------------------------------------------


def _prepare(pred: Any, gold: Any, canon: Optional[Normalizer], what: str) -> tuple[str, str]:
    for side, value in (("pred", pred), ("gold", gold)):
        if not isinstance(value, str):
            raise TypeError(
                f"{what} compares strings, but {side} is {type_name(value)}: {value!r:.60}. "
                "Pass the page text (lines separated by newlines)."
            )
    if canon is not None:
        pred, gold = canon(pred), canon(gold)
    return pred, gold


def _lines(text: str) -> list[str]:
    return [line for line in (raw.strip() for raw in text.splitlines()) if line]


def _flexible_edits(pred: list[str], gold: list[str], max_error: float) -> tuple[int, int]:
    """(errors, gold characters) of the greedy flexible matching described in the module doc."""
    from rapidfuzz.distance import Levenshtein

    # Gold pieces carry their place in reading order (a tuple, extended for the rests of a cut).
    queue: list[tuple[tuple[int, ...], str]] = sorted(
        (((k,), g) for k, g in enumerate(gold)), key=lambda item: -len(item[1])
    )
    pieces = list(pred)
    edits = 0
    set_aside: list[tuple[tuple[int, ...], str]] = []
    while queue and pieces and len(queue) + len(pieces) > 2:  # one piece each: plain edit distance
        place, g = queue.pop(0)
        found = _best_window(g, pieces)
        if found is None or found[0] > max_error * max(found[3] - found[2], found[5] - found[4]):
            set_aside.append((place, g))
            continue
        dist, k, g1, g2, p1, p2 = found
        edits += dist
        p = pieces.pop(k)
        pieces[k:k] = [r for r in (p[:p1].strip(), p[p2:].strip()) if r]
        rests = [(place + (side,), r) for side, r in enumerate((g[:g1].strip(), g[g2:].strip())) if r]
        if rests:
            queue = sorted(queue + rests, key=lambda item: -len(item[1]))
    left_gold = "".join(g for _, g in sorted(set_aside + queue))
    edits += Levenshtein.distance(left_gold, "".join(pieces))
    return edits, sum(map(len, gold))


def _best_window(g: str, pieces: list[str]) -> Optional[tuple[int, int, int, int, int, int]]:
    """(edits, piece index, gold start, gold end, pred start, pred end) of the best match for ``g``."""
    for k, p in enumerate(pieces):
        if p == g:
            return 0, k, 0, len(g), 0, len(p)
    for k, p in enumerate(pieces):
        at = p.find(g)
        if at >= 0:
            return 0, k, 0, len(g), at, at + len(g)
    from rapidfuzz.fuzz import partial_ratio_alignment

    best, best_key = None, (-1.0, 0)
    for k, p in enumerate(pieces):
        a = partial_ratio_alignment(g, p)
        if a is None or a.src_end <= a.src_start or a.dest_end <= a.dest_start:
            continue
        key = (a.score, max(a.src_end - a.src_start, a.dest_end - a.dest_start))
        if key > best_key:
            best, best_key = (k, a), key
    if best is None:
        return None
    k, a = best
    p = pieces[k]
    if a.src_end - a.src_start == len(g):  # all of g against a window of p
        dist, p1, p2 = _refine(g, p, a.dest_start, a.dest_end)
        return dist, k, 0, len(g), p1, p2
    dist, g1, g2 = _refine(p[a.dest_start:a.dest_end], g, a.src_start, a.src_end)
    return dist, k, g1, g2, a.dest_start, a.dest_end


def _refine(s: str, t: str, start: int, end: int) -> tuple[int, int, int]:
    """(edits, start, end) of the window of ``t`` near ``t[start:end]`` closest to ``s``.

    `partial_ratio_alignment` only tries windows as long as the shorter text;
    moving each end by up to `_SLACK` units lets a window absorb a dropped or
    an inserted character.
    """
    from rapidfuzz.distance import Levenshtein

    best = (Levenshtein.distance(s, t[start:end]), start - end, start, end)
    for a in range(max(0, start - _SLACK), min(start + _SLACK, end - 1) + 1):
        for b in range(max(a + 1, end - _SLACK), min(len(t), end + _SLACK) + 1):
            best = min(best, (Levenshtein.distance(s, t[a:b]), a - b, a, b))
    return best[0], best[2], best[3]


_SLACK = 3


register("metrics", "fca", FlexibleCharacterMetric())
register("metrics", "bow", BagOfWordsMetric())
