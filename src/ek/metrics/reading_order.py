"""Text measures that forgive a different reading order: flexible character accuracy and bag of words.

CER aligns two texts in one order, so a two-column page read across the
columns scores as garbage although every line was recognised. Two measures
tolerate that:

* `FlexibleCharacterMetric` (``"fca"``, higher is better): flexible
  character accuracy after Clausner, Pletschacher and Antonacopoulos
  (2020). Lines are matched to each other in any order, pieces of a line
  may match pieces of other lines, and only the edits inside the matched
  pieces plus whatever stays unmatched count as errors:
  ``1 - errors / gold characters``. As in the paper, a line break is free
  but the whitespace where a line is cut is not: two lines read as one
  cost the space that joined them (the paper's Fig. 4, scenario C: 0.964),
  one line read as two the space that parted them (scenario D: 0.966).
* `BagOfWordsMetric` (``"bow"``, lower is better): bag-of-words error, the
  order-free word count difference ``max(n_gold, n_pred) - matched``
  over ``n_gold``, where ``matched`` counts each word as often as it
  occurs on both sides. A substitution is one error, as in WER, and the
  count never exceeds WER's edits. Words are cut at whitespace, or with
  ``words="unicode"`` at Unicode word boundaries without punctuation (as
  `ek.metrics.strings.StringMetric` cuts them for WER).

Both keep their sufficient statistics (``edits``, ``ref_len``) in
``Score.detail``; ``aggregate`` sums them and divides once. An empty gold
text counts every predicted unit as an error (accuracy ``1 - edits``), as
the string metrics do.

>>> gold = "left one\\nleft two\\nright one\\nright two"
>>> pred = "left one right one\\nleft two right two"   # read across the columns
>>> FlexibleCharacterMetric()(pred, gold).detail["edits"], BagOfWordsMetric()(pred, gold).value
(2, 0.0)

**The matching** (a greedy version of the paper's; the paper searches
several penalty weightings, this keeps one rule and states it). Both texts
are cut into lines, without their edge whitespace. Repeatedly, the longest
unmatched gold piece (the earliest of equal ones) is matched with the
window of a pred piece that fits it best: the first identical piece, else
the first piece containing it, else the best window of
`rapidfuzz.fuzz.partial_ratio_alignment` over the 32 pred pieces most
likely to hold it (highest score, then longest window, then earliest
piece; its ends moved by a few units where that saves edits).
`ek.metrics._flexible` says which 32 and finds the match without scoring
every piece (a 67,000-character page in about half a second). A match is
kept when at most ``max_line_error`` of its units are edits; the unmatched
rests of both pieces go back into play as they are, the whitespace at the
cut included. A gold piece with no acceptable match is set aside. At the
end, the set-aside gold pieces and the unmatched pred pieces are compared
in reading order with the plain edit distance, so text that matches
nowhere costs what CER would charge for it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar

from ek._util import type_name
from ek._words import unicode_words
from ek.base import GraphGrammar, Normalizer, Score
from ek.metrics._contract import SummedStatistics
from ek.metrics._flexible import flexible_edits
from ek.registry import register

__all__ = ["BagOfWordsMetric", "FlexibleCharacterMetric"]

_WORDS = ("whitespace", "unicode")


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

    canonicalizer: Normalizer | None = field(default=None, kw_only=True)
    max_line_error: float = field(default=0.5, kw_only=True)

    higher_is_better: ClassVar[bool] = True
    percent: ClassVar[bool] = True  # a rate of characters or words: shown as a percentage
    reads_documents: ClassVar[bool] = True  # scores OCR documents (measures and confusions come with it)
    statistics: ClassVar[tuple[str, ...]] = ("edits", "ref_len")
    options: ClassVar[Mapping[str, str]] = MappingProxyType({"normalize": "canonicalizer"})
    name: ClassVar[str] = "fca"

    def __post_init__(self) -> None:
        if not (isinstance(self.max_line_error, (int, float)) and 0 <= self.max_line_error <= 1):
            raise ValueError(
                f"max_line_error must be a share between 0 and 1, got {self.max_line_error!r}; "
                "0.5 keeps matches where at most half the units are edits."
            )

    def __call__(self, pred: str, gold: str, *, grammar: GraphGrammar | None = None) -> Score:
        """Flexible character accuracy of one pair."""
        pred, gold = _prepare(pred, gold, self.canonicalizer, "flexible character accuracy")
        edits, ref_len = flexible_edits(_lines(pred), _lines(gold), self.max_line_error)
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
        words: ``"whitespace"`` or ``"unicode"`` (see the module doc).

    >>> s = BagOfWordsMetric()("b a c", "a b d")
    >>> s.value, s.detail["edits"], s.detail["matched"]
    (0.3333333333333333, 1, 2)
    >>> BagOfWordsMetric(words="unicode")("dog, cat", "cat dog").value
    0.0
    """

    canonicalizer: Normalizer | None = field(default=None, kw_only=True)
    words: str = field(default="whitespace", kw_only=True)

    higher_is_better: ClassVar[bool] = False
    percent: ClassVar[bool] = True  # a rate of characters or words: shown as a percentage
    reads_documents: ClassVar[bool] = True  # scores OCR documents (measures and confusions come with it)
    statistics: ClassVar[tuple[str, ...]] = ("edits", "ref_len")
    options: ClassVar[Mapping[str, str]] = MappingProxyType({"normalize": "canonicalizer"})
    name: ClassVar[str] = "bow"

    def __post_init__(self) -> None:
        if self.words not in _WORDS:
            raise ValueError(
                f"BagOfWordsMetric words must be 'whitespace' or 'unicode', got {self.words!r}; "
                "'unicode' cuts at Unicode word boundaries and drops punctuation."
            )

    def __call__(self, pred: str, gold: str, *, grammar: GraphGrammar | None = None) -> Score:
        """Bag-of-words error of one pair."""
        pred, gold = _prepare(pred, gold, self.canonicalizer, "bag-of-words error")
        cut = unicode_words if self.words == "unicode" else str.split
        p, g = Counter(cut(pred)), Counter(cut(gold))
        n_pred, n_gold = sum(p.values()), sum(g.values())
        matched = sum((p & g).values())
        detail = {"edits": max(n_gold, n_pred) - matched, "ref_len": n_gold, "matched": matched, "pred_len": n_pred}
        return Score(self.compute(detail), metric=self.name, detail=detail)

    def compute(self, totals: Mapping[str, float]) -> float:
        """Error from summed statistics: ``edits / ref_len`` (the corpus figure sums first)."""
        return _error_rate(totals["edits"], totals["ref_len"])


# ---------------------------------------------------------------------------


def _prepare(pred: Any, gold: Any, canon: Normalizer | None, what: str) -> tuple[str, str]:
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


register("metrics", "fca", FlexibleCharacterMetric())
register("metrics", "bow", BagOfWordsMetric())
