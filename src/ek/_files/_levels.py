"""Which level of an OCR document (region, line, word, glyph) its text is read at, and the lines that gives.

Every reader (PAGE, ALTO, hOCR, ABBYY FineReader) turns its file into the same tree of
`Unit`s: regions hold lines, lines hold words, words hold glyphs, and each
unit has its own text when the file gives one at that level (PAGE's
``TextEquiv``; ALTO's and hOCR's lines and regions have the text of their
words, so every level down to the word is there). `resolve` then picks the
level of each region and writes the lines.

**Complete.** A region is complete at a level when every unit of that
level in it has text: at line level every line has a ``TextEquiv``, at word
level every line has words and every word has text, and so on. A unit
transcribed as blank (a line whose text is empty, with no words) needs
nothing finer. A region with no text and no lines is empty and left out.

**The level read.** By default (``text_level=None``) a PAGE region is read
at its own text where it has one, as transcribers type it and as
dinglehopper and OCR-D's evaluation read it; a region without its own text
at the coarsest level below it that is complete (line, then word, then
glyph). ALTO and hOCR keep no text of their own above the word, so they are
read at line level (``default="line"``). A level given (``text_level=``, or
the reader's default) is read in every region complete at it; a region that
is not falls back to the nearest level it is complete at, the coarser of
two equally near. The document's level is the one asked for, else the one
most regions were read at (the coarser of a tie); each region read at
another is listed in the fallbacks as ``(region id, level)``. A region with
text at no complete level (a line without text, and no region text to fall
back to; or no text at all) is an error that names the level asked for and
the unit missing its text.

**Agreement.** With ``check=True`` (PAGE, whose levels are typed
separately; ALTO's and hOCR's coarser texts are their words') each region
complete at two levels is read at a second one too: the next finer complete
level below the one read, else the next coarser. The two texts are compared
after NFC and whitespace collapsing (the run's normalisation is not known
when a file is read); where they differ the region is listed in the
disagreements as ``(region id, level read, other level, CER)``, the CER
being the Levenshtein distance over the length of the text read (at least
1). One extra reading and one rapidfuzz distance per region keep it linear
in the file but for the distance of a disagreeing region.

**Joining.** Glyphs join into words with nothing between them, in the
order of their word's own text where it has one (a word whose glyphs are a
reordering of its text reads as its text; otherwise document order), and
words into lines in the order of the line's own text in the same way
(actevedef's ground truth stores both out of reading order). Words join
with one space, except that a word starting with closing
punctuation (``. , ; : ! ? …`` and the closing brackets and quotes, Unicode
classes Pe and Pf) joins the word before it without one. Where the line's
own text (else the region's) is there to consult, it decides instead:
between two words at least one of which has punctuation at that end, a
space where it shows one and none where it does not. A region's text splits
into lines at its line breaks. Each line keeps its confidence; at word and
glyph level the line's words carry theirs, at line level the words of a line
come from its word units when all of them have text, and at region level
from the finer level when its lines are the region's lines exactly (so a
tool's PAGE keeps its word confidences), else they are split from the text
later (no confidence).
"""

from __future__ import annotations

import unicodedata
from collections import Counter, deque
from itertools import pairwise
from typing import TYPE_CHECKING, NamedTuple

from ek._files._errors import InputError

if TYPE_CHECKING:
    import xml.etree.ElementTree as ET

TEXT_LEVELS = ("region", "line", "word", "glyph")  # coarsest to finest
_ALL = (1 << len(TEXT_LEVELS)) - 1
_CLOSING = frozenset(".,;:!?…‥")  # closing punctuation besides Unicode's Pe (brackets) and Pf (final quotes)
_HYPHENS = frozenset("-‐‑⸗¬=")  # a line-end hyphen, as transcribers and tools write it

Word = tuple[str, float | None]
"""A word of a line: its text and confidence (None when the file gives none)."""

Line = tuple[str, float | None, list[Word] | None]
"""A line read: its text, its confidence, and its words (None: split them from the text)."""

Disagreement = tuple[str, str, str, float]
"""A region whose levels differ: its id, the level read, the other level, the CER between them."""


class Unit(NamedTuple):
    """A region, line, word or glyph: its own text (None when the file gives none there) and finer units.

    A named tuple rather than a frozen dataclass: readers build one per word
    and glyph, hundreds of thousands for a long page.
    """

    tag: str
    id: str | None
    text: str | None
    conf: float | None
    children: tuple[Unit, ...] = ()


class Reading(NamedTuple):
    """What a reader found: ``(text, confidence, words or None)`` per line, the level read, the fallbacks.

    ``verbatim`` lines are final (a profile's own joining): they are not
    stripped and blank lines stay. ``disagreements`` lists the regions whose
    levels differ (see the module doc).
    """

    lines: list[Line]
    text_level: str
    fallbacks: tuple[tuple[str, str], ...] = ()
    verbatim: bool = False
    disagreements: tuple[Disagreement, ...] = ()


class Source(NamedTuple):
    """What a format's reader is given: the file's bytes, its name for messages and, for XML, its parsed root.

    ``ns`` is the ``{namespace}`` prefix of the root's tag ("" without one),
    so a reader finds ``ns + "TextLine"`` whatever prefix the file uses.
    """

    data: bytes
    label: str
    root: ET.Element | None = None
    ns: str = ""

    @property
    def tree(self) -> ET.Element:
        """The parsed root, which an XML format's reader is always given."""
        if self.root is None:
            raise AssertionError(f"{self.label} reached an XML reader unparsed: ek._files._documents decides that")
        return self.root


def resolve(
    regions: list[Unit], text_level: str | None, label: str, *, default: str | None = None, check: bool = False
) -> Reading:
    """The lines of ``regions`` read at ``text_level`` (None: ``default``, else each region's own; see the module doc)."""
    asked = text_level or default
    kept = []
    for k, region in enumerate(regions):
        complete, some = _masks(region, 0)
        if complete:
            kept.append((region.id or f"region {k + 1}", region, complete))
        elif some or region.children:
            raise _incomplete(label, region, some, text_level)
    if not kept:
        return Reading([], text_level or "")
    target = None if asked is None else TEXT_LEVELS.index(asked)
    used = [_chosen(complete, target) for _, _, complete in kept]
    if target is None:
        counts = Counter(used)
        target = min(counts, key=lambda lv: (-counts[lv], lv))
    lines: list[Line] = []
    fallbacks = []
    disagreements = []
    for (rid, region, complete), level in zip(kept, used):
        if level != target:
            fallbacks.append((rid, TEXT_LEVELS[level]))
        read = _region_lines(region, level, complete)
        lines.extend(read)
        other = _other(complete, level) if check else None
        if other is not None:
            cer = _difference(read, _region_lines(region, other, complete))
            if cer is not None:
                disagreements.append((rid, TEXT_LEVELS[level], TEXT_LEVELS[other], cer))
    return Reading(lines, TEXT_LEVELS[target], tuple(fallbacks), disagreements=tuple(disagreements))


def join_words(words: list[str], shown: list[bool | None]) -> str:
    """``words`` joined into a line: a space where ``shown`` says True, none where False, else by the rule.

    The rule (the file shows nothing): one space, none before a word starting
    with closing punctuation, after a word ending with an opening bracket or
    quote (Unicode class Ps: ``( [ „``), or before a hyphen standing alone at
    the end of the line (``Men -`` is ``Men-``).
    """
    out = []
    for k, word in enumerate(words):
        if k and shown[k] is None:
            last_hyphen = k == len(words) - 1 and word in _HYPHENS
            out.append("" if _closes(word[0]) or _opens(words[k - 1][-1]) or last_hyphen else " ")
        elif k:
            out.append(" " if shown[k] else "")
        out.append(word)
    return "".join(out)


# ---------------------------------------------------------------------------


def _masks(unit: Unit, depth: int) -> tuple[int, int]:
    """(complete, some): bit L is set when the unit's text at level L is complete / partly given.

    Recursion depth is the four levels, whatever the file.
    """
    own = (1 << depth) if unit.text is not None else 0
    finer = _ALL & ~((2 << depth) - 1)
    if unit.children:
        complete, some = finer, 0
        for child in unit.children:
            c, s = _masks(child, depth + 1)
            complete &= c
            some |= s
        return own | complete, own | some
    if unit.text is not None and not unit.text.strip():
        return own | finer, own  # transcribed as blank: nothing finer is missing
    return own, own


def _levels_of(complete: int) -> list[int]:
    return [lv for lv in range(len(TEXT_LEVELS)) if complete >> lv & 1]


def _chosen(complete: int, level: int | None) -> int:
    """The level a region complete at ``complete`` is read at: ``level`` or its nearest; None: its coarsest."""
    have = _levels_of(complete)
    if level is None:
        return have[0]
    return min(have, key=lambda lv: (abs(lv - level), lv))


def _other(complete: int, level: int) -> int | None:
    """The level a region read at ``level`` is checked against: the next finer complete one, else the next coarser."""
    have = _levels_of(complete)
    finer = [lv for lv in have if lv > level]
    coarser = [lv for lv in have if lv < level]
    return finer[0] if finer else coarser[-1] if coarser else None


def _difference(read: list[Line], other: list[Line]) -> float | None:
    """The CER of ``other`` against ``read`` after NFC and whitespace collapsing; None when they are equal."""
    a, b = (
        " ".join(unicodedata.normalize("NFC", "\n".join(t for t, _, _ in lines)).split()) for lines in (read, other)
    )
    if a == b:
        return None
    from rapidfuzz.distance import Levenshtein  # a core dependency, loaded when a file is read

    return Levenshtein.distance(a, b) / max(len(a), 1)


def _region_lines(region: Unit, level: int, complete: int) -> list[Line]:
    """The lines of a region complete at ``level``, so every text read there is given (see `_given`).

    At region level the finer lines are taken when their text is the region's
    (they carry the line and word confidences).
    """
    if level == 0:
        own: list[Line] = [(part, region.conf, None) for part in _given(region.text).splitlines()]
        finer = [lv for lv in _levels_of(complete) if lv > 0]
        if finer:
            lines = _region_lines(region, finer[0], complete)
            if _stripped(lines) == _stripped(own):
                return lines
        return own
    out: list[Line] = []
    guide = _Guide(region.text)  # the region's text guides the spacing of lines that have none of their own
    for line in region.children:
        if level == 1:
            units = line.children
            full = bool(units) and all(w.text is not None for w in units)
            out.append((_given(line.text), line.conf, [(_given(w.text), w.conf) for w in units] if full else None))
            continue
        words = [(_given(w.text) if level == 2 else _glyphs(w), w.conf) for w in line.children]
        kept = [(w.strip(), c) for w, c in words if w.strip()]
        order = None if line.text is None else _reordering([w for w, _ in kept], line.text)
        kept = kept if order is None else [kept[k] for k in order]  # words in the order of the line's text
        if line.text is not None and line.text.strip():
            guide.start(line.text.strip())  # the region's guide passes over a line that guides itself
        out.append(
            (_join([w for w, _ in kept], _Guide(line.text) if line.text is not None else guide), line.conf, kept)
        )
    return out


def _stripped(lines: list[Line]) -> list[str]:
    """The text of ``lines`` as a document keeps it: split at line breaks, stripped, blank lines dropped."""
    return [p.strip() for t, _, _ in lines for p in t.splitlines() if p.strip()]


def _glyphs(word: Unit) -> str:
    """The word's glyphs joined, in the order of the word's own text when they are a reordering of it."""
    if not word.children:
        return _given(word.text)
    texts = [_given(g.text) for g in word.children]
    joined = "".join(texts)
    if word.text is None or joined == word.text:
        return joined
    order = _reordering(texts, word.text)
    return joined if order is None else "".join(texts[k] for k in order)


def _reordering(texts: list[str], target: str) -> list[int] | None:
    """The order in which ``texts`` spell ``target`` (whitespace between them skipped), or None when they do not.

    Matched greedily from the left, the longest text first, each text used
    once in document order: linear in ``target`` times the distinct lengths.
    """
    free: dict[str, deque[int]] = {}
    for k, t in enumerate(texts):
        if t:
            free.setdefault(t, deque()).append(k)
    sizes = sorted({len(t) for t in free}, reverse=True)
    order: list[int] = []
    pos = 0
    while True:
        while pos < len(target) and target[pos].isspace():
            pos += 1
        if pos == len(target):
            break
        size = next((n for n in sizes if pos + n <= len(target) and free.get(target[pos : pos + n])), 0)
        if not size:
            return None
        order.append(free[target[pos : pos + size]].popleft())
        pos += size
    if any(free.values()):
        return None
    return order + [k for k, t in enumerate(texts) if not t]  # blank units add nothing, wherever they go


class _Guide:
    """A coarser text the words of a line are found in, in order, to see where it puts spaces.

    Each word is searched from where the last one ended; the first word not
    found ends the guidance (so a text that differs costs one scan, not one
    per word).
    """

    __slots__ = ("end", "text")

    def __init__(self, text: str | None) -> None:
        self.text, self.end = text, 0

    def tight(self, word: str) -> bool | None:
        """Whether ``word`` follows the previous word with no space in the text (None: not known)."""
        if self.text is None:
            return None
        at = self.text.find(word, self.end)
        if at < 0:
            self.text = None
            return None
        tight, self.end = at == self.end, at + len(word)
        return tight

    def start(self, word: str) -> None:
        """Find the first word of a line (or a whole line), whose spacing before it does not count."""
        self.tight(word)


def _join(words: list[str], guide: _Guide) -> str:
    """The words of a line joined as the module doc says, the guide's text deciding where it can."""
    if not words:
        return ""
    guide.start(words[0])
    shown: list[bool | None] = [None]
    for prev, word in pairwise(words):
        tight = guide.tight(word)
        punctuated = _punctuation(word[0]) or _punctuation(prev[-1])
        shown.append(None if tight is None else True if not punctuated else not tight)
    return join_words(words, shown)


def _closes(char: str) -> bool:
    return char in _CLOSING or unicodedata.category(char) in ("Pe", "Pf")


def _opens(char: str) -> bool:
    return unicodedata.category(char) == "Ps"


def _punctuation(char: str) -> bool:
    return unicodedata.category(char).startswith("P")


def _given(text: str | None) -> str:
    """The text of a unit at a level its region is complete at, which `_masks` guarantees is not None."""
    if text is None:
        raise AssertionError("a unit of a complete level has no text: _masks and _region_lines disagree")
    return text


def _incomplete(label: str, region: Unit, some: int, asked: str | None) -> InputError:
    """A region with no complete level: name the first unit without text, at the level asked for if any."""
    if asked is not None:
        level = TEXT_LEVELS.index(asked)
    else:
        level = max((lv for lv in range(len(TEXT_LEVELS)) if some >> lv & 1), default=1)
    missing, depth = _first_without_text(region, level)
    where = "" if missing is region else f" in <{region.tag} id={region.id!r}>"
    said = f" (the level asked for: --text-level {asked}, text_level={asked!r})" if asked == TEXT_LEVELS[depth] else ""
    if some:
        why, fix = "and no other level covers its region", "transcribe it (or give the region its text)"
    else:
        why = "and the region has no text at any level (region, line, word or glyph)"
        fix = "transcribe the region, or remove it from the file if it holds no text"
    return InputError(
        f"{label}: <{missing.tag} id={missing.id!r}> has no TextEquiv/Unicode at {TEXT_LEVELS[depth]} "
        f"level{where}{said}, {why}; {fix}."
    )


def _first_without_text(region: Unit, level: int) -> tuple[Unit, int]:
    """The first unit, at ``level`` or a coarser one with nothing finer, that has no text; and its depth."""
    stack = [(region, 0)]
    while stack:
        unit, depth = stack.pop()
        if depth == level or not unit.children:
            if unit.text is None:
                return unit, depth
            continue
        stack.extend((child, depth + 1) for child in reversed(unit.children))
    return region, 0
