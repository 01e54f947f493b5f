"""One alignment of a prediction with its reference, and the confusion counts built on it.

The OCR error analysis (`ek.ocr.evaluate_files`) and the aligned diffs of
the HTML report both read the ops that `align` returns, so their format is
the contract of this module.

**Ops.** ``align(pred, gold, unit=...)`` returns a list of `Op` named tuples
``(tag, gold, pred)`` in reading order:

=========== ====================================================== =========
tag         meaning                                                units
=========== ====================================================== =========
``equal``   ``gold == pred``: a run of matching units (runs merged) 1 or more
``replace`` one gold unit was read as one different pred unit       1 : 1
``delete``  one gold unit is missing from pred (``pred == ""``)     1 : 0
``insert``  one pred unit is not in gold (``gold == ""``)           0 : 1
=========== ====================================================== =========

Segments are strings: the units of the run concatenated for ``"char"`` and
``"grapheme"``, joined by one space for ``"word"``. Every op other than
``equal`` is exactly one edit of one unit, so their number is the
Levenshtein distance, and the gold (pred) segments in order spell out the
units of gold (pred): ``split_units(gold, unit)``. Units are code points
(``"char"``), extended grapheme clusters per Unicode UAX #29
(``"grapheme"``, needs the ``regex`` package from the ``metrics`` extra) or
whitespace-separated words (``"word"``); text is not otherwise changed.

>>> align("cat sat", "cut sat")
[Op(tag='equal', gold='c', pred='c'), Op(tag='replace', gold='u', pred='a'), Op(tag='equal', gold='t sat', pred='t sat')]
>>> align("a b d", "a b c", unit="word")
[Op(tag='equal', gold='a b', pred='a b'), Op(tag='replace', gold='c', pred='d')]

**Lines.** `align_lines` first pairs the lines of the two sides (an
order-keeping alignment whose cost is the edit distance of each pair), then
aligns the units inside each pair; it is what a page with lines on both
sides is shown and counted with.

**Confusions.** `confusions` counts the edits of some ops as a
`collections.Counter` keyed by ``(gold, pred)``: ``("u", "a")`` a
substitution, ``("x", "")`` a dropped unit, ``("", "x")`` an inserted one.
Counters of many pairs merge by addition (``sum(..., Counter())``), and
`confusion_table` lists the most frequent ones as plain dicts.

>>> confusion_table(confusions(align("cat", "cut")))
[{'kind': 'substitution', 'gold': 'u', 'pred': 'a', 'count': 1}]
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable, NamedTuple, Optional, Sequence

from ek._util import import_optional

__all__ = ["Op", "UNITS", "align", "align_lines", "confusion_table", "confusions", "graphemes", "split_units"]

UNITS = ("char", "word", "grapheme")
_KINDS = {"replace": "substitution", "delete": "deletion", "insert": "insertion"}


class Op(NamedTuple):
    """One step of an alignment: ``tag`` and the gold and pred segments it covers."""

    tag: str
    gold: str
    pred: str


def graphemes(text: str) -> list[str]:
    """The extended grapheme clusters of ``text`` (Unicode UAX #29), in order.

    Needs the ``regex`` package (``pip install "ek[metrics]"``).

    >>> graphemes("Schlym\\u0303")
    ['S', 'c', 'h', 'l', 'y', 'm̃']
    """
    if not text or (max(text) < "\u0300" and "\r\n" not in text):
        return list(text)  # below U+0300 every code point but CR LF is a cluster of its own
    return _grapheme_pattern().findall(text)


def split_units(text: str, unit: str = "char") -> Sequence[str]:
    """``text`` cut into the units `align` compares (a str is its own code points)."""
    if unit == "char":
        return text
    if unit == "word":
        return text.split()
    if unit == "grapheme":
        return graphemes(text)
    raise ValueError(f"unit must be one of {', '.join(map(repr, UNITS))}, got {unit!r}.")


def align(pred: str, gold: str, *, unit: str = "char") -> list[Op]:
    """The minimal-edit alignment of ``pred`` against ``gold`` as a list of `Op` (see the module doc).

    Args:
        pred: the predicted text.
        gold: the reference text.
        unit: ``"char"`` (code points), ``"grapheme"`` or ``"word"``.
    """
    for side, value in (("pred", pred), ("gold", gold)):
        if not isinstance(value, str):
            raise TypeError(f"align() compares two strings, but {side} is {type(value).__name__}: {value!r:.60}.")
    return _align_units(split_units(pred, unit), split_units(gold, unit), " " if unit == "word" else "")


def align_lines(
    pred_lines: Sequence[str], gold_lines: Sequence[str], *, unit: str = "char"
) -> list[tuple[Optional[int], Optional[int], list[Op]]]:
    """Pair gold and pred lines in order, then align inside each pair.

    Returns one ``(gold_index, pred_index, ops)`` per step: a paired line has
    both indices, a gold line with no counterpart ``pred_index=None`` (its
    ops are all ``delete``) and an extra pred line ``gold_index=None`` (all
    ``insert``). The pairing minimises the summed edit distance, where a
    line left unpaired costs its length. Line breaks themselves are not units.

    >>> [(g, p) for g, p, _ in align_lines(["abc", "xyz"], ["abc", "def", "xyz"])]
    [(0, 0), (1, None), (2, 1)]
    """
    joiner = " " if unit == "word" else ""
    p_units = [split_units(line, unit) for line in pred_lines]
    g_units = [split_units(line, unit) for line in gold_lines]
    steps = []
    for gi, pi in _pair_lines(p_units, g_units):
        p = p_units[pi] if pi is not None else ()
        g = g_units[gi] if gi is not None else ()
        steps.append((gi, pi, _align_units(p, g, joiner)))
    return steps


def confusions(ops: Iterable[Op]) -> Counter:
    """Count the edits among ``ops``, keyed by ``(gold, pred)`` ("" for the missing side)."""
    return Counter((op.gold, op.pred) for op in ops if op.tag != "equal")


def confusion_table(counts: Counter, *, n: Optional[int] = None) -> list[dict]:
    """The ``n`` most frequent confusions (all when None) as dicts, most frequent first.

    Each dict has ``kind`` (``"substitution"``, ``"deletion"`` or
    ``"insertion"``), ``gold``, ``pred`` and ``count``; ties are ordered by
    gold then pred, so the table is deterministic.
    """
    rows = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    if n is not None:
        rows = rows[:n]
    return [
        {"kind": _kind(gold, pred), "gold": gold, "pred": pred, "count": count}
        for (gold, pred), count in rows
    ]


# ---------------------------------------------------------------------------


def _kind(gold: str, pred: str) -> str:
    return "insertion" if not gold else ("deletion" if not pred else "substitution")


_PATTERN: list = []


def _grapheme_pattern():
    if not _PATTERN:
        regex = import_optional("regex", extra="metrics", feature="grapheme segmentation (segment='grapheme')")
        _PATTERN.append(regex.compile(r"\X"))
    return _PATTERN[0]


def _align_units(pred: Sequence[str], gold: Sequence[str], joiner: str) -> list[Op]:
    from rapidfuzz.distance import Levenshtein

    ops: list[Op] = []
    append, new = ops.append, tuple.__new__  # Op(...) without its keyword handling: this loop is hot
    text = isinstance(gold, str)  # code points: a slice is already the run's text
    # source = gold, destination = pred: "delete" drops a gold unit.
    for tag, g1, g2, p1, p2 in Levenshtein.opcodes(gold, pred).as_list():
        if tag == "equal":
            run = gold[g1:g2] if text else joiner.join(gold[g1:g2])
            append(new(Op, ("equal", run, run)))
            continue
        shared = min(g2 - g1, p2 - p1)
        for k in range(shared):
            append(new(Op, ("replace", gold[g1 + k], pred[p1 + k])))
        for g in gold[g1 + shared:g2]:
            append(new(Op, ("delete", g, "")))
        for p in pred[p1 + shared:p2]:
            append(new(Op, ("insert", "", p)))
    return ops


def _pair_lines(pred: list[Sequence[str]], gold: list[Sequence[str]]) -> list[tuple[Optional[int], Optional[int]]]:
    """Order-keeping pairing of lines by dynamic programming over line edit distances."""
    from rapidfuzz.distance import Levenshtein

    n, m = len(gold), len(pred)
    if n == m == 1:  # pairing never costs more than a deletion plus an insertion
        return [(0, 0)]
    cost = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        cost[i][0] = cost[i - 1][0] + len(gold[i - 1])
    for j in range(1, m + 1):
        cost[0][j] = cost[0][j - 1] + len(pred[j - 1])
    for i in range(1, n + 1):
        g = gold[i - 1]
        row, above = cost[i], cost[i - 1]
        for j in range(1, m + 1):
            p = pred[j - 1]
            row[j] = min(above[j - 1] + Levenshtein.distance(g, p), above[j] + len(g), row[j - 1] + len(p))
    steps = []
    i, j = n, m
    while i or j:
        if i and j and cost[i][j] == cost[i - 1][j - 1] + Levenshtein.distance(gold[i - 1], pred[j - 1]):
            steps.append((i - 1, j - 1))
            i, j = i - 1, j - 1
        elif i and cost[i][j] == cost[i - 1][j] + len(gold[i - 1]):
            steps.append((i - 1, None))
            i -= 1
        else:
            steps.append((None, j - 1))
            j -= 1
    return steps[::-1]
