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
``"grapheme"``, joined by one space for ``"word"`` and ``"unicode_word"``. Every op other than
``equal`` is exactly one edit of one unit, so their number is the
Levenshtein distance, and the gold (pred) segments in order spell out the
units of gold (pred): ``split_units(gold, unit)``. Units are code points
(``"char"``), extended grapheme clusters per Unicode UAX #29
(``"grapheme"``, needs the ``regex`` package from the ``metrics`` extra),
whitespace-separated words (``"word"``) or the words between Unicode word
boundaries, without punctuation and spaces (``"unicode_word"``, see
`ek._words`; the ops then spell out those words only); text is not
otherwise changed.

>>> align("cat sat", "cut sat")
[Op(tag='equal', gold='c', pred='c'), Op(tag='replace', gold='u', pred='a'), Op(tag='equal', gold='t sat', pred='t sat')]
>>> align("a b d", "a b c", unit="word")
[Op(tag='equal', gold='a b', pred='a b'), Op(tag='replace', gold='c', pred='d')]

**Lines.** `align_lines` first pairs the lines of the two sides (an
order-keeping alignment whose cost is the edit distance of each pair), then
aligns the units inside each pair; it is what a page with lines on both
sides is shown and counted with. Pages of up to 100 lines a side are paired
by the whole table of line pairs; longer ones within a band around one word
alignment of the two texts, in time and memory linear in the lines (a
1,300-line page in 0.1 s; a 1 MB page in about a second).

**Long texts.** The common prefix and suffix are cut off before any
alignment, and a pair within 256 edits of each other is aligned exactly in
one narrow band (a 5 MB line with 3 edits in a fraction of a second). A
longer pair is anchored first: runs of 16 letters (4 words) met once in
both sides near where the last anchor puts them, one every four run lengths,
with only the stretches between them aligned; the result is a valid alignment whose edits are an
upper bound of the distance (`upper_bound`), found in time linear in the
text. Up to `_CONFIRM` (10^9) units x those edits it is then aligned
exactly in one band that wide (rapidfuzz: time about units x edits / 64);
beyond, block by block between checked cuts (`ek._stretch`: a 10 MB page
with 2% noise in a few seconds), minimal when two staggered partitions
agree. Where they do not, the pair is aligned whole in a band as wide as
the blocks' total when that work is at most `_WORK` (10^10) or
``exact=True``, else the blocks are kept (at least the distance).
`distance` is the same computation for the figure alone. An exact
computation past `work_limit` (`MAX_WORK`, 5 x 10^11, 15-30 s; ``ek
evaluate --max-align-work``) is refused up front in one line.
`align_lines` pairs lines (each line pair aligned so) and guides a long
page by the anchored word alignment.

**Confusions.** `confusions` counts the edits of some ops as a
`collections.Counter` keyed by ``(gold, pred)``: ``("u", "a")`` a
substitution, ``("x", "")`` a dropped unit, ``("", "x")`` an inserted one.
Counters of many pairs merge by addition (``sum(..., Counter())``), and
`confusion_table` lists the most frequent ones as plain dicts.

>>> confusion_table(confusions(align("cat", "cut")))
[{'kind': 'substitution', 'gold': 'u', 'pred': 'a', 'count': 1}]
"""

from __future__ import annotations

import contextlib
import contextvars
import math
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, NamedTuple, cast

from ek._util import import_optional
from ek._words import unicode_words, unicode_words_by_line

__all__ = [
    "UNITS",
    "Op",
    "align",
    "align_lines",
    "code_units",
    "confusion_table",
    "confusions",
    "distance",
    "graphemes",
    "split_units",
    "upper_bound",
    "work_limit",
]

UNITS = ("char", "word", "grapheme", "unicode_word")
_KINDS = {"replace": "substitution", "delete": "deletion", "insert": "insertion"}
_JOINERS = {"word": " ", "unicode_word": " "}
_DIRECT = 4096  # units a side up to which rapidfuzz aligns a pair at once
_WORK = 10_000_000_000  # units x edits of the largest exact alignment (rapidfuzz's band: about a second)
_FEW = 256  # edits a near-identical pair is first checked for, before any anchor is sought
_K = 16  # units of an anchor (letters): one every 4 _K units, sought within 16 _K, widening to 512 _K
_WORD_K = 4  # units of a word anchor: four words are about as rare as sixteen letters
_CONFIRM = 1_000_000_000  # units x edits up to which a long pair is computed whole, in one band (a tenth of a second)
MAX_WORK = 5e11  # units x edits of the largest exact computation (15-30 s) unless `work_limit` raises it
_LIMIT: contextvars.ContextVar[float] = contextvars.ContextVar("ek_align_work_limit", default=MAX_WORK)


@contextlib.contextmanager
def work_limit(units: float | None) -> Iterator[None]:
    """Within this block, refuse an exact alignment or distance of more than ``units`` units x edits (None: `MAX_WORK`).

    A pair whose checked blocks (`ek._stretch`) disagree is computed whole,
    in time about units x edits / 64: past the limit it is refused up front
    with a ValueError naming the limit, never left running for an hour.
    ``ek evaluate --max-align-work`` sets it.
    """
    if units is not None and not (isinstance(units, (int, float)) and not isinstance(units, bool) and units > 0):
        raise ValueError(f"--max-align-work must be a positive number of units x edits, got {units!r}.")
    token = _LIMIT.set(MAX_WORK if units is None else float(units))
    try:
        yield
    finally:
        _LIMIT.reset(token)


def _within_limit(size: int, edits: int) -> None:
    """Refuse, in one line naming the limit and the flag, an exact computation of ``size`` x ``edits`` past it."""
    limit = _LIMIT.get()
    if size * edits > limit:
        raise ValueError(
            f"aligning {size:,} units with up to {edits:,} edits exactly is {size * edits:.1e} units x edits "
            f"of work, over the limit of {limit:.1e}; raise it with --max-align-work "
            f"(ek._align.work_limit in Python) to score it."
        )


class Op(NamedTuple):
    """One step of an alignment: ``tag`` and the gold and pred segments it covers."""

    tag: str
    gold: str
    pred: str


def graphemes(text: str) -> list[str]:
    """The extended grapheme clusters of ``text`` (Unicode UAX #29), in order.

    Needs the ``regex`` package, which the ``ocr`` and ``metrics`` extras bring (``pip install "ek[ocr]"``).

    >>> graphemes("Schlym\\u0303")
    ['S', 'c', 'h', 'l', 'y', 'm̃']
    """
    if not text or (max(text) < "\u0300" and "\r\n" not in text):
        return list(text)  # below U+0300 every code point but CR LF is a cluster of its own
    found: list[str] = _grapheme_pattern().findall(text)
    return found


def split_units(text: str, unit: str = "char") -> Sequence[str]:
    """``text`` cut into the units `align` compares (a str is its own code points)."""
    if unit == "char":
        return text
    if unit == "word":
        return text.split()
    if unit == "grapheme":
        return graphemes(text)
    if unit == "unicode_word":
        return unicode_words(text)
    raise ValueError(f"unit must be one of {', '.join(map(repr, UNITS))}, got {unit!r}.")


def align(pred: str, gold: str, *, unit: str = "char", exact: bool = False) -> list[Op]:
    """The minimal-edit alignment of ``pred`` against ``gold`` as a list of `Op` (see the module doc).

    Args:
        pred: the predicted text.
        gold: the reference text.
        unit: ``"char"`` (code points), ``"grapheme"``, ``"word"`` or ``"unicode_word"``.
        exact: minimal up to `work_limit` (refused past it); by default a
            long pair whose exact alignment would cost more than `_WORK`
            (units x edits) keeps its block alignment (see **Long texts**).
    """
    for side, value in (("pred", pred), ("gold", gold)):
        if not isinstance(value, str):
            raise TypeError(f"align() compares two strings, but {side} is {type(value).__name__}: {value!r:.60}.")
    work = math.inf if exact else _WORK
    return _align_units(split_units(pred, unit), split_units(gold, unit), _JOINERS.get(unit, ""), work)


def align_lines(
    pred_lines: Sequence[str], gold_lines: Sequence[str], *, unit: str = "char"
) -> list[tuple[int | None, int | None, list[Op]]]:
    """Pair gold and pred lines in order, then align inside each pair.

    Returns one ``(gold_index, pred_index, ops)`` per step: a paired line has
    both indices, a gold line with no counterpart ``pred_index=None`` (its
    ops are all ``delete``) and an extra pred line ``gold_index=None`` (all
    ``insert``). The pairing minimises the summed edit distance, where a
    line left unpaired costs its length (on long pages, among the pairings
    that keep each line within 5 lines of where one word alignment puts
    it). Line breaks themselves are not units.

    >>> [(g, p) for g, p, _ in align_lines(["abc", "xyz"], ["abc", "def", "xyz"])]
    [(0, 0), (1, None), (2, 1)]
    """
    joiner = _JOINERS.get(unit, "")
    p_units: list[Sequence[str]]
    g_units: list[Sequence[str]]
    if unit == "unicode_word":  # one pass over all lines
        p_units, g_units = list(unicode_words_by_line(pred_lines)), list(unicode_words_by_line(gold_lines))
    else:
        p_units = [split_units(line, unit) for line in pred_lines]
        g_units = [split_units(line, unit) for line in gold_lines]
    guide = _guide_of(pred_lines, gold_lines) if (len(gold_lines) + 1) * (len(pred_lines) + 1) > _FULL else None
    steps = []
    for gi, pi in _pair_lines(p_units, g_units, guide):
        p = p_units[pi] if pi is not None else ()
        g = g_units[gi] if gi is not None else ()
        steps.append((gi, pi, _align_units(p, g, joiner)))
    return steps


def confusions(ops: Iterable[Op]) -> Counter[tuple[str, str]]:
    """Count the edits among ``ops``, keyed by ``(gold, pred)`` ("" for the missing side)."""
    return Counter((op.gold, op.pred) for op in ops if op.tag != "equal")


def confusion_table(counts: Counter[tuple[str, str]], *, n: int | None = None) -> list[dict[str, Any]]:
    """The ``n`` most frequent confusions (all when None) as dicts, most frequent first.

    Each dict has ``kind`` (``"substitution"``, ``"deletion"`` or
    ``"insertion"``), ``gold``, ``pred`` and ``count``; ties are ordered by
    gold then pred, so the table is deterministic.
    """
    rows = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    if n is not None:
        rows = rows[:n]
    return [{"kind": _kind(gold, pred), "gold": gold, "pred": pred, "count": count} for (gold, pred), count in rows]


# ---------------------------------------------------------------------------


def _kind(gold: str, pred: str) -> str:
    return "insertion" if not gold else ("deletion" if not pred else "substitution")


_PATTERN: list[Any] = []  # the compiled regex pattern, once


def _grapheme_pattern() -> Any:
    if not _PATTERN:
        regex = import_optional("regex", extra="ocr", feature="grapheme segmentation (segment='grapheme')")
        _PATTERN.append(regex.compile(r"\X"))
    return _PATTERN[0]


def _align_units(pred: Sequence[str], gold: Sequence[str], joiner: str, work: float = _WORK) -> list[Op]:
    ops: list[Op] = []
    append, new = ops.append, tuple.__new__  # Op(...) without its keyword handling: this loop is hot
    text = isinstance(gold, str)  # code points: a slice is already the run's text
    # source = gold, destination = pred: "delete" drops a gold unit.
    for tag, g1, g2, p1, p2 in _rows(gold, pred, work=work)[0]:
        if tag == "equal":
            run = gold[g1:g2] if text else joiner.join(gold[g1:g2])
            append(new(Op, ("equal", run, run)))
            continue
        shared = min(g2 - g1, p2 - p1)
        for k in range(shared):
            append(new(Op, ("replace", gold[g1 + k], pred[p1 + k])))
        for g in gold[g1 + shared : g2]:
            append(new(Op, ("delete", g, "")))
        for p in pred[p1 + shared : p2]:
            append(new(Op, ("insert", "", p)))
    return ops


_Row = tuple[str, int, int, int, int]
"""One opcode: ``(tag, gold start, gold end, pred start, pred end)``."""


def _rows(gold: Sequence[str], pred: Sequence[str], *, work: float = _WORK) -> tuple[list[_Row], bool]:
    """The opcodes turning ``gold`` into ``pred``, and whether they are a minimal alignment.

    The common prefix and suffix are cut off first; what is left is aligned
    as **Long texts** in the module doc says, ``work`` bounding the one-band
    alignment of a pair whose blocks are not checked (0: the anchored
    alignment alone, whose edits may exceed the distance where an anchor is
    off every minimal alignment).
    """
    from rapidfuzz.distance import Levenshtein

    if len(gold) <= _DIRECT and len(pred) <= _DIRECT:  # a line: rapidfuzz cuts the common ends itself
        return _opcodes(Levenshtein.opcodes(gold, pred)), True
    pre, suf = _common_ends(gold, pred)
    g, p = gold[pre : len(gold) - suf], pred[pre : len(pred) - suf]
    exact = True
    if not g or not p:
        middle: list[_Row] = [("delete", 0, len(g), 0, 0)] if g else [("insert", 0, 0, 0, len(p))] if p else []
    elif max(len(g), len(p)) <= _DIRECT:
        middle = _opcodes(Levenshtein.opcodes(g, p))
    else:
        coded = code_units(g, p)
        few = _few_edits(coded)  # a near-identical pair: its exact band is narrow whatever ``work``
        if few is not None:
            middle = _opcodes(Levenshtein.opcodes(*coded, score_hint=max(few, 1)))
        else:
            k = _anchor_units(g)
            middle, exact = _long_rows(coded, _anchored(coded, k), k, work)
    rows: list[_Row] = [("equal", 0, pre, 0, pre)] if pre else []
    rows.extend((tag, g1 + pre, g2 + pre, p1 + pre, p2 + pre) for tag, g1, g2, p1, p2 in middle)
    if suf:
        rows.append(("equal", len(gold) - suf, len(gold), len(pred) - suf, len(pred)))
    return _merge_equal(rows), exact


def _long_rows(coded: tuple[str, str], anchored: list[_Row], k: int, work: float) -> tuple[list[_Row], bool]:
    """A long pair's opcodes from its anchored ones: minimal when the flag says so (see `_rows`)."""
    from rapidfuzz.distance import Levenshtein

    from ek._stretch import block_rows, blocks

    if work <= 0:  # a guide: the anchors alone
        return anchored, False
    size, bound, kept = max(map(len, coded)), _edits(anchored), anchored
    if size * bound > _CONFIRM:
        found = blocks(*coded, anchored, k)
        kept = block_rows(*coded, found)
        if found.checked:
            return kept, True
        bound = found.total
    if not math.isinf(work) and size * bound > min(work, _LIMIT.get()):  # not asked to be exact: keep these
        return kept, False
    _within_limit(size, bound)
    return _opcodes(Levenshtein.opcodes(*coded, score_hint=max(bound, 1))), True


def distance(pred: Sequence[str], gold: Sequence[str]) -> int:
    """The exact Levenshtein distance of two sequences (``str`` or lists of units), near-linear when long.

    The common ends are cut, a pair within `_FEW` edits is checked in one
    narrow band, and a longer pair anchored (`upper_bound`). Up to
    `_CONFIRM` units x anchored edits the distance is computed in one band
    that wide; beyond, as the total of checked blocks (`ek._stretch`), or,
    where the two partitions disagree, whole within the `work_limit`.

    >>> distance("kitten", "sitting")
    3
    """
    from rapidfuzz.distance import Levenshtein

    from ek._stretch import blocks

    pre, suf = _common_ends(gold, pred)
    g, p = gold[pre : len(gold) - suf], pred[pre : len(pred) - suf]
    if not g or not p:
        return len(g) + len(p)
    coded = code_units(g, p)  # one width (see there); words as code points: rapidfuzz hashes a list per call
    if max(len(g), len(p)) <= _DIRECT:
        return int(Levenshtein.distance(*coded))
    few = _few_edits(coded)
    if few is not None:
        return few
    anchored = _anchored(coded, _anchor_units(g))
    size, bound = max(len(g), len(p)), _edits(anchored)
    if size * bound > _CONFIRM:
        found = blocks(*coded, anchored, _anchor_units(g))
        if found.checked:
            return found.total
        bound = found.total
    _within_limit(size, bound)
    return int(Levenshtein.distance(*coded, score_hint=max(bound, 1), score_cutoff=bound))


def upper_bound(pred: Sequence[str], gold: Sequence[str]) -> int:
    """Edits of an alignment of ``pred`` with ``gold`` found in time near-linear in their length (>= the distance).

    The anchored alignment of `_rows` after the common ends are cut; a
    distance computed in a band this wide is exact in one pass.
    """
    pre, suf = _common_ends(gold, pred)
    g, p = gold[pre : len(gold) - suf], pred[pre : len(pred) - suf]
    if not g or not p:
        return len(g) + len(p)
    coded = code_units(g, p)
    few = _few_edits(coded)
    return _edits(_anchored(coded, _anchor_units(g))) if few is None else few


def _anchor_units(units: Sequence[str]) -> int:
    return _K if isinstance(units, str) else _WORD_K


def _few_edits(sides: tuple[str, str]) -> int | None:
    """The distance when it is at most `_FEW` (one pass over a narrow band, linear), else None."""
    from rapidfuzz.distance import Levenshtein

    found = int(Levenshtein.distance(*sides, score_cutoff=_FEW))
    return found if found <= _FEW else None


def _edits(rows: Iterable[_Row]) -> int:
    return sum(max(g2 - g1, p2 - p1) for tag, g1, g2, p1, p2 in rows if tag != "equal")


def _common_ends(a: Sequence[str], b: Sequence[str]) -> tuple[int, int]:
    """Lengths of the common prefix and of the common suffix of what follows it (by halving: C compares)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    pre, n, m = lo, len(a), len(b)
    lo, hi = 0, min(n, m) - pre
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[n - mid : n - lo] == b[m - mid : m - lo]:
            lo = mid
        else:
            hi = mid - 1
    return pre, lo


def code_units(g: Sequence[str], p: Sequence[str]) -> tuple[str, str]:
    """Both sides as strings of one width, one code point per distinct unit (a str is its own code).

    rapidfuzz 3.14's banded distance and alignment go wrong when one string
    holds a character past U+FFFF and the other does not (a wrong distance,
    or a crash, when the low 16 bits of a wide character match a narrow
    one), so two texts of different widths are coded too, and codes past
    U+FFFF (more than 55,000 distinct words) are all past it.
    """
    if isinstance(g, str) and isinstance(p, str) and _wide(g) == _wide(p):
        return g, p
    distinct = dict.fromkeys(g)
    distinct.update(dict.fromkeys(p))
    if len(distinct) < 0xD800:
        codes = {u: chr(k) for k, u in enumerate(distinct)}
    else:  # every code past U+FFFF, so both sides have one width
        codes = {u: chr(0x10000 + k) for k, u in enumerate(distinct)}
    return "".join(map(codes.__getitem__, g)), "".join(map(codes.__getitem__, p))


def _wide(text: str) -> bool:
    return bool(text) and max(text) > "\uffff"


def _anchored(sides: tuple[str, str], k: int = _K) -> list[_Row]:
    """Opcodes aligned between anchors: runs of ``k`` units met once in both sides near where expected.

    Every ``4 k`` units of gold, its next ``k`` units (`_K` letters,
    `_WORD_K` words) are looked up in pred around where the last anchor
    puts them (``16 k`` units either side, doubling up to ``512 k`` while
    none is found); only the stretches between anchors are aligned, each
    exactly, so the time grows with the text, not with its square. A
    stretch with no anchor whose table would pass `_WORK` cells (texts that
    share nothing) is matched unit by unit instead.
    """
    from rapidfuzz.distance import Levenshtein

    g, p = sides
    rows: list[_Row] = []
    gi = pi = 0
    for ga, pa in [*_anchors(g, p, k), (len(g), len(p))]:
        if (ga - gi) * (pa - pi) > _WORK:  # no anchor in a long stretch (unrelated texts): unit by unit
            shared = min(ga - gi, pa - pi)
            rows.append(("replace", gi, gi + shared, pi, pi + shared))
            rows.append(
                ("delete", gi + shared, ga, pi + shared, pa)
                if ga - gi > shared
                else ("insert", ga, ga, pi + shared, pa)
            )
        elif ga > gi or pa > pi:
            found = _opcodes(Levenshtein.opcodes(g[gi:ga], p[pi:pa], score_hint=k))
            rows.extend((tag, g1 + gi, g2 + gi, p1 + pi, p2 + pi) for tag, g1, g2, p1, p2 in found)
        if ga < len(g):
            rows.append(("equal", ga, ga + k, pa, pa + k))
        gi, pi = ga + k, pa + k
    return rows


def _anchors(g: str, p: str, k: int) -> list[tuple[int, int]]:
    """``(gold start, pred start)`` of each anchor of ``k`` units (see `_anchored`), increasing on both sides."""
    found: list[tuple[int, int]] = []
    stride, narrow = 4 * k, 16 * k
    shift, window, after = 0, narrow, 0  # pred - gold offset of the last anchor; pred units used so far
    for i in range(stride, len(g) - 2 * k, stride):
        piece = g[i : i + k]
        lo, hi = max(after, i + shift - window), min(len(p), i + shift + window + k)
        j = p.find(piece, lo, hi)
        if j < 0 or p.find(piece, j + 1, hi) >= 0 or g.count(piece, max(0, i - window), i + window + k) > 1:
            window = min(2 * window, 32 * narrow)
            continue
        found.append((i, j))
        shift, window, after = j - i, narrow, j + k
    return found


def _merge_equal(rows: list[_Row]) -> list[_Row]:
    """``rows`` with adjacent equal runs joined, and empty ones dropped."""
    out: list[_Row] = []
    for row in rows:
        if row[1] == row[2] and row[3] == row[4]:
            continue
        if out and row[0] == "equal" == out[-1][0]:
            out[-1] = ("equal", out[-1][1], row[2], out[-1][3], row[4])
        else:
            out.append(row)
    return out


def _opcodes(found: Any) -> list[tuple[str, int, int, int, int]]:
    """rapidfuzz's opcodes as ``(tag, gold start, gold end, pred start, pred end)`` rows."""
    return cast("list[tuple[str, int, int, int, int]]", found.as_list())


def _pair_lines(
    pred: list[Sequence[str]], gold: list[Sequence[str]], guide: list[int] | None = None
) -> list[tuple[int | None, int | None]]:
    """The order-keeping pairing of least summed cost (see `align_lines`), by dynamic programming.

    The table has a row per gold line and a column per pred line. Up to
    `_FULL` cells it is filled whole, and the pairing is the least-cost one.
    A longer page is filled only in a band of `_BAND` lines either side of
    ``guide`` (for each gold line, the pred line where it starts, from one
    alignment of the two texts' words), so time and memory grow with the
    lines, not with their square; the pairing is then the least-cost one
    among those that stay in the band, which is the least-cost one overall
    unless lines are displaced by more than `_BAND` lines from where the
    word alignment puts them. Ties go to pairing, then to leaving a gold line
    out, then a pred line.
    """
    n, m = len(gold), len(pred)
    if n == m == 1:  # pairing never costs more than a deletion plus an insertion
        return [(0, 0)]
    if guide is None or (n + 1) * (m + 1) <= _FULL:
        ranges = [(0, m + 1)] * (n + 1)
    else:
        ranges = _band(guide, m, _BAND)
    return _backtrace(_costs(gold, pred, ranges), n, m)


_FULL = 10_000  # cells: a page of 100 lines against 100 is paired by the whole table
_BAND = 5  # lines either side of the word alignment
_INF = float("inf")


_LAST_GUIDE: list[tuple[tuple[str, ...], tuple[str, ...], list[int]]] = []  # the last page's guide


def _guide_of(pred_lines: Sequence[str], gold_lines: Sequence[str]) -> list[int]:
    """`_guide`, kept for the last page: its characters and then its words are paired by the same guide."""
    key = (tuple(pred_lines), tuple(gold_lines))
    last = _LAST_GUIDE[-1] if _LAST_GUIDE else None  # read once: another thread may replace it
    if last is not None and last[:2] == key:
        return last[2]
    guide = _guide(pred_lines, gold_lines)
    _LAST_GUIDE[:] = [(*key, guide)]
    return guide


def _guide(pred_lines: Sequence[str], gold_lines: Sequence[str]) -> list[int]:
    """For each gold line (and the end), the pred line where its first word lands in one word alignment."""
    g_words, g_line, g_first = _words_with_lines(gold_lines)
    p_words, p_line, _ = _words_with_lines(pred_lines)
    starts: list[int | None] = [None] * len(gold_lines) + [len(pred_lines)]
    for tag, g1, g2, p1, _ in _rows(g_words, p_words, work=0)[0]:  # a guide need not be minimal
        if tag in ("equal", "replace"):  # gold word g1 + k is read as pred word p1 + k
            for line in range(g_line[g1], g_line[g2 - 1] + 1):
                if starts[line] is None:
                    starts[line] = p_line[p1 + max(g1, g_first[line]) - g1]
    guide, at = [], 0
    for start in starts:
        at = max(at, at if start is None else start)  # monotone; a line without a word keeps the last place
        guide.append(min(at, len(pred_lines)))
    return guide


def _words_with_lines(lines: Sequence[str]) -> tuple[list[str], list[int], list[int]]:
    """All words, the line of each, and the index of each line's first word."""
    words: list[str] = []
    where: list[int] = []
    first: list[int] = []
    for i, line in enumerate(lines):
        split = line.split()
        first.append(len(words))
        words.extend(split)
        where.extend([i] * len(split))
    return words, where, first


def _band(guide: list[int], m: int, width: int) -> list[tuple[int, int]]:
    """Column range ``[first, last)`` of each table row: ``width`` lines around the guide near that row.

    The first row starts at column 0 and the last ends at column ``m``, so a
    pairing can begin and end there; consecutive rows share the guide's
    columns between them, so the band holds a path from corner to corner.
    """
    ranges = []
    for i in range(len(guide)):
        near = guide[max(0, i - 1) : i + 2]
        first = 0 if i == 0 else max(0, min(near) - width)
        last = m + 1 if i == len(guide) - 1 else min(m, max(near) + width) + 1
        ranges.append((first, last))
    return ranges


def _costs(
    gold: list[Sequence[str]], pred: list[Sequence[str]], ranges: list[tuple[int, int]]
) -> list[tuple[int, bytearray]]:
    """The moves of the table rows within ``ranges``: ``(first column, moves)``, 0 diagonal, 1 up, 2 left."""
    from rapidfuzz.distance import Levenshtein

    distance, inf = Levenshtein.distance, _INF
    pred_len = [0, *map(len, pred)]  # pred_len[j]: length of the pred line column j adds
    rows: list[tuple[int, bytearray]] = []
    prev_first, prev_costs = 0, [0.0]  # a virtual row above the first, reaching (0, 0) at no cost
    for i, (first, last) in enumerate(ranges):
        costs, moves = [inf] * (last - first), bytearray(last - first)
        g, g_len = (gold[i - 1], len(gold[i - 1])) if i else ("", 0)
        prev_last = prev_first + len(prev_costs)
        left = inf
        for j in range(first, last):
            up = prev_costs[j - prev_first] + g_len if prev_first <= j < prev_last else inf
            left += pred_len[j]
            best, move = (up, 1) if up <= left else (left, 2)
            before = prev_costs[j - 1 - prev_first] if i and prev_first < j <= prev_last else inf
            if before <= best and before != inf:
                d = distance(g, pred[j - 1], score_cutoff=None if best == inf else int(best - before))
                if before + d <= best:
                    best, move = before + d, 0
            costs[j - first] = left = best
            moves[j - first] = move
        rows.append((first, moves))
        prev_first, prev_costs = first, costs
    return rows


def _backtrace(rows: list[tuple[int, bytearray]], n: int, m: int) -> list[tuple[int | None, int | None]]:
    steps: list[tuple[int | None, int | None]] = []
    i, j = n, m
    while i or j:
        first, moves = rows[i]
        move = moves[j - first]
        if move == 0:
            steps.append((i - 1, j - 1))
            i, j = i - 1, j - 1
        elif move == 1:
            steps.append((i - 1, None))
            i -= 1
        else:
            steps.append((None, j - 1))
            j -= 1
    return steps[::-1]
