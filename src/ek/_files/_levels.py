"""Which level of an OCR document (region, line, word, glyph) its text is read at, and the lines that gives.

Every reader (PAGE, ALTO, hOCR) turns its file into the same tree of
`Unit`s: regions hold lines, lines hold words, words hold glyphs, and each
unit has its own text when the file gives one at that level (PAGE's
``TextEquiv``; ALTO's and hOCR's lines and regions have the text of their
words, so every level down to the word is there). `resolve` then picks the
level and writes the lines.

**Complete.** A region is complete at a level when every unit of that
level in it has text: at line level every line has a ``TextEquiv``, at word
level every line has words and every word has text, and so on. A unit
transcribed as blank (a line whose text is empty, with no words) needs
nothing finer. A region with no text and no lines is empty and left out.

**The level read.** ``text_level=None`` takes the level that the fewest
regions lack, the finest of those: the finest level at which every region
is complete when there is one. A region that lacks the level read (given or
chosen) falls back to the nearest level it is complete at, the coarser of
two equally near, and is listed in the fallbacks as ``(region id, level)``.
A region with some text but no complete level (a line without text, and no
region text to fall back to) is an error that names the line.

**Joining.** Glyphs join into words with nothing between them, words into
lines with one space, and a region's text splits into lines at its line
breaks. Each line keeps its confidence; at word and glyph level the line's
words carry theirs, at line level the words of a line come from its word
units when all of them have text, and at region level they are split from
the text later (no confidence).
"""

from __future__ import annotations

from typing import NamedTuple

from ek._files._errors import InputError

TEXT_LEVELS = ("region", "line", "word", "glyph")  # coarsest to finest
_ALL = (1 << len(TEXT_LEVELS)) - 1

Word = tuple[str, float | None]
"""A word of a line: its text and confidence (None when the file gives none)."""

Line = tuple[str, float | None, list[Word] | None]
"""A line read: its text, its confidence, and its words (None: split them from the text)."""


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
    stripped and blank lines stay.
    """

    lines: list[Line]
    text_level: str
    fallbacks: tuple[tuple[str, str], ...] = ()
    verbatim: bool = False


def resolve(regions: list[Unit], text_level: str | None, label: str) -> Reading:
    """The lines of ``regions`` read at ``text_level`` (None: the default rule of the module doc)."""
    kept = []
    for k, region in enumerate(regions):
        complete, some = _masks(region, 0)
        if complete:
            kept.append((k, region, complete))
        elif some or region.children:
            raise _incomplete(label, region, some)
    if not kept:
        return Reading([], text_level or "")
    if text_level is None:
        level = min(range(len(TEXT_LEVELS)), key=lambda lv: (sum(not c >> lv & 1 for _, _, c in kept), -lv))
    else:
        level = TEXT_LEVELS.index(text_level)
    lines: list[Line] = []
    fallbacks = []
    for k, region, complete in kept:
        used = level if complete >> level & 1 else _nearest(complete, level)
        if used != level:
            fallbacks.append((region.id or f"region {k + 1}", TEXT_LEVELS[used]))
        lines.extend(_region_lines(region, used))
    return Reading(lines, TEXT_LEVELS[level], tuple(fallbacks))


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


def _nearest(complete: int, level: int) -> int:
    have = [lv for lv in range(len(TEXT_LEVELS)) if complete >> lv & 1]
    return min(have, key=lambda lv: (abs(lv - level), lv))


def _region_lines(region: Unit, level: int) -> list[Line]:
    """The lines of a region complete at ``level``, so every text read there is given (see `_given`)."""
    if level == 0:
        return [(part, region.conf, None) for part in _given(region.text).splitlines()]
    out: list[Line] = []
    for line in region.children:
        if level == 1:
            units = line.children
            full = bool(units) and all(w.text is not None for w in units)
            out.append((_given(line.text), line.conf, [(_given(w.text), w.conf) for w in units] if full else None))
            continue
        if level == 2:
            words = [(_given(w.text), w.conf) for w in line.children]
        else:
            words = [
                ("".join(_given(g.text) for g in w.children) if w.children else _given(w.text), w.conf)
                for w in line.children
            ]
        kept = [(w.strip(), c) for w, c in words if w.strip()]
        out.append((" ".join(w for w, _ in kept), line.conf, kept))
    return out


def _given(text: str | None) -> str:
    """The text of a unit at a level its region is complete at, which `_masks` guarantees is not None."""
    if text is None:
        raise AssertionError("a unit of a complete level has no text: _masks and _region_lines disagree")
    return text


def _incomplete(label: str, region: Unit, some: int) -> InputError:
    """A region with some text but no complete level: name the first unit without text."""
    level = max((lv for lv in range(len(TEXT_LEVELS)) if some >> lv & 1), default=1)
    missing, depth = _first_without_text(region, level)
    where = "" if missing is region else f" in <{region.tag} id={region.id!r}>"
    return InputError(
        f"{label}: <{missing.tag} id={missing.id!r}> has no TextEquiv/Unicode at {TEXT_LEVELS[depth]} level{where}, "
        "and no other level covers its region; transcribe it (or give the region its text)."
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
