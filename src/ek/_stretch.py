"""The exact edit distance of two long, lightly edited texts, block by block, in time linear in the text.

`ek._align` first aligns a long pair between anchors (linear time, an upper
bound of the distance). Its exact distance in one band as wide as that
bound costs about units x edits / 64 (a 10 MB page with 2% noise: a minute
for its characters). Here the pair is cut instead into blocks of about
`BLOCK` gold units at *checked* cuts, and each block's exact distance is
computed on its own (rapidfuzz, in a band as wide as the anchored edits
inside it), so the work is about units x `BLOCK` x the edit rate / 64.

A cut sits in the middle of a run of at least two anchor lengths (32
letters, 8 words) the anchored alignment matches, whose middle anchor
length is met once within `NEAR` units on each side. The sum of the block
distances is an upper bound of the distance, equal to it whenever some
minimal alignment passes through every cut. That is checked three ways, and
the pair is computed whole (by the caller) unless all hold:

* a second partition, whose cuts fall halfway between the first's, gives
  the same total: a cheaper alignment through the neighbourhood of a cut of
  one (an edit reaching across it, a piece read twice nearby) lies inside
  one block of the other, which would total less;
* the anchored alignment has no run of insertions or deletions longer than
  `_GAP` anchor lengths: a moved, dropped or repeated passage is where a
  cheaper alignment can leave every cut by more than half a block;
* on a pair of fewer than `_LETTERS` distinct units (DNA, a binary code), no
  block has more than one edit in `_DENSE` units: texts of a few letters
  that far apart have many alignments of nearly the same cost, some of them
  far from the anchors.

This is an argument, not a proof: a fuzz over small alphabets, repeats and
moved passages found sums accepted on the partitions alone wrong in 2% of
pairs, and none with all three checks in 1,000 more (tests/test_stretch.py
keeps such a test); on pages of words with 20-80% noise the dense blocks
were right in all of 200 pairs (87% accepted), so text is not held to the
third check. Cuts on runs of one anchor length instead of two gave a wrong
sum on letters (1 in 200 pairs): so a page with 30% noise, whose runs of
32 letters are rare (3 in 1 MB), is computed whole (1 MB: 20 s).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any, cast

__all__ = ["BLOCK", "Blocks", "Row", "block_rows", "blocks"]

Row = tuple[str, int, int, int, int]
"""One opcode: ``(tag, gold start, gold end, pred start, pred end)``."""

BLOCK = 1 << 16  # gold units a block spans (at 2% noise its exact distance is a few milliseconds)
NEAR = 8192  # units either side of a cut within which its middle anchor length must be met once
_GAP = 16  # anchor lengths of the longest run of insertions or deletions (a moved or dropped passage) checked
_DENSE = 4  # units per edit of the densest block checked, on a pair of fewer than _LETTERS distinct units
_LETTERS = 16  # distinct units from which a dense block is checked like any other (see the module doc)


@dataclass(frozen=True)
class Blocks:
    """A partition of a pair into blocks and each block's exact distance.

    ``cuts`` run from ``(0, 0)`` to ``(len(gold), len(pred))``; block ``k``
    is ``gold[cuts[k][0]:cuts[k + 1][0]]`` against the pred units between
    the same cuts, and ``edits[k]`` its exact distance. ``checked``: the
    staggered partition gave the same total (see the module doc).
    """

    cuts: tuple[tuple[int, int], ...]
    edits: tuple[int, ...]
    checked: bool

    @property
    def total(self) -> int:
        """The sum of the block distances: an upper bound of the distance, equal to it when ``checked``."""
        return sum(self.edits)


def blocks(gold: str, pred: str, rows: Sequence[Row], k: int, *, block: int = 0) -> Blocks:
    """The blocks of ``gold`` against ``pred`` cut on the matched runs of ``rows`` (an alignment of the two).

    ``k`` is the anchor length (16 letters, 4 words): a cut needs a matched
    run of ``2 k`` units around it, its middle ``k`` met once near it in each
    text. ``block`` is the gold units a block spans (default: `BLOCK` letters, a
    quarter as many words). Two
    partitions are made, the second's cuts halfway between the first's; the
    one of the smaller total is returned, ``checked`` when the totals agree,
    no cut is shared and the blocks are plain (no long gap, no dense block;
    see the module doc); a pair with no cut is one block, exact.
    """
    size = block or BLOCK * k // 16  # words are rarer, and more often wrong, than letters
    runs = _Runs(gold, pred, rows, k)
    first = _partition(runs, size, size)
    one = _measured(gold, pred, first)
    if len(first) == 2:  # one block: the whole pair, its distance exact
        return Blocks(tuple((g, p) for g, p, _ in first), tuple(one), True)
    second = _partition(runs, size, size // 2)
    other = _measured(gold, pred, second)
    best = one if sum(one) <= sum(other) else other
    shared = set(first[1:-1]) & set(second[1:-1])
    cuts = first if best is one else second
    sparse = (_sparse(first, one) and _sparse(second, other)) or len(set(gold).union(pred)) >= _LETTERS
    plain = runs.longest_gap <= _GAP * k and sparse
    checked = sum(one) == sum(other) and not shared and plain
    return Blocks(tuple((g, p) for g, p, _ in cuts), tuple(best), checked)


def block_rows(gold: str, pred: str, found: Blocks) -> list[Row]:
    """Opcodes of a minimal alignment inside each block of ``found``, in order (``found.total`` edits)."""
    from rapidfuzz.distance import Levenshtein

    rows: list[Row] = []
    for (g1, p1), (g2, p2), edits in zip(found.cuts, found.cuts[1:], found.edits):
        ops = cast("list[Row]", Levenshtein.opcodes(gold[g1:g2], pred[p1:p2], score_hint=max(edits, 1)).as_list())
        rows.extend((tag, a + g1, b + g1, c + p1, d + p1) for tag, a, b, c, d in ops)
    return rows


# ---------------------------------------------------------------------------

_Cut = tuple[int, int, int]
"""A cut: ``(gold, pred, edits of the anchored alignment before it)``."""


class _Runs:
    """The matched runs of an alignment long enough to cut in, each checked once when first asked."""

    def __init__(self, gold: str, pred: str, rows: Sequence[Row], k: int):
        self.gold, self.pred, self.k = gold, pred, k
        self.middles: list[int] = []  # gold position of each run's middle, increasing
        self.cuts: list[_Cut] = []
        self.total = self.longest_gap = 0
        for tag, g1, g2, p1, p2 in rows:
            if tag != "equal":
                self.total += max(g2 - g1, p2 - p1)
                if tag != "replace":
                    self.longest_gap = max(self.longest_gap, g2 - g1 + p2 - p1)
            elif g2 - g1 >= 2 * k:
                half = (g2 - g1) // 2
                self.middles.append(g1 + half)
                self.cuts.append((g1 + half, p1 + half, self.total))
        self._checked: dict[int, bool] = {}

    def first_from(self, at: int) -> _Cut | None:
        """The first checked cut at or past gold position ``at``."""
        for k in range(bisect_left(self.middles, at), len(self.middles)):
            if self._check(k):
                return self.cuts[k]
        return None

    def _check(self, k: int) -> bool:
        if k not in self._checked:
            g, p, _ = self.cuts[k]
            piece = self.gold[g - self.k // 2 : g + self.k - self.k // 2]
            self._checked[k] = (
                self.gold.count(piece, max(0, g - NEAR), g + NEAR) == 1
                and self.pred.count(piece, max(0, p - NEAR), p + NEAR) == 1
            )
        return self._checked[k]


def _partition(runs: _Runs, size: int, first: int) -> list[_Cut]:
    """Cuts about ``size`` gold units apart, the first at or past ``first``; a last block of at least size / 4."""
    end = len(runs.gold)
    cuts: list[_Cut] = [(0, 0, 0)]
    at = first
    while at <= end - size // 4:
        cut = runs.first_from(at)
        if cut is None or cut[0] > end - size // 4:
            break
        cuts.append(cut)
        at = cut[0] + size
    cuts.append((end, len(runs.pred), runs.total))
    return cuts


def _sparse(cuts: list[_Cut], edits: list[int]) -> bool:
    """Whether every block has at most one edit in `_DENSE` units."""
    return all(e * _DENSE <= max(g2 - g1, p2 - p1) for (g1, p1, _), (g2, p2, _), e in zip(cuts, cuts[1:], edits))


def _measured(gold: str, pred: str, cuts: list[_Cut]) -> list[int]:
    """The exact distance of each block between ``cuts``, in a band as wide as its anchored edits."""
    from rapidfuzz.distance import Levenshtein

    distance: Any = Levenshtein.distance
    out = []
    for (g1, p1, e1), (g2, p2, e2) in pairwise(cuts):
        bound = e2 - e1  # the anchored alignment passes through both cuts: at most this many edits
        out.append(int(distance(gold[g1:g2], pred[p1:p2], score_hint=max(bound, 1), score_cutoff=bound)))
    return out
