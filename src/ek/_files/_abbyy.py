"""ABBYY FineReader XML (FineReader 6 to 12) as ek reads it: blocks of lines of characters.

A ``block`` is a region; its lines are every ``line`` inside it, in
document order, whichever ``text/par`` (or, in a table block,
``row/cell/text/par``) holds them. Blocks without lines (pictures,
separators) give nothing. FineReader writes the blocks in the reading order
it found, so document order is reading order.

**A line's text** is what its ``formatting`` elements hold, in order. With
character attributes (``charParams``), the characters joined with nothing
between them (a space is a ``charParams`` of its own, and the blanks a
pretty-printer puts between the elements are not text); without them, the
formatting's own text. The words are that text split at whitespace, so the
words and the line always agree; ``wordStart`` is not read, since the
characters already say where a word begins. A word's glyphs are its
characters when the line has ``charParams``, so the glyph level is there
for such files.

**As printed.** A hyphen ending a line (``-``, or FineReader's ``¬``) stays
in the text, as it does for ALTO and in a line transcription.

**Confidences.** FineReader rates characters only (``charConfidence``, 0 to
100, with values outside that range in some exports); ek reads no line or
word confidence from these files rather than invent a rule for combining
the characters'.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from ek._files._levels import Reading, Source, Unit, resolve


def read(source: Source, text_level: str | None, pick: str) -> Reading:
    """ek's reading of an ABBYY FineReader document (line level unless ``text_level`` says otherwise)."""
    return resolve(regions(source.tree, source.ns, source.label), text_level, source.label, default="line")


def regions(root: ET.Element, ns: str, label: str) -> list[Unit]:
    """The blocks of the document that hold lines, as `Unit` trees in document order."""
    blocks = []
    for block in root.iter(ns + "block"):
        lines = [_line(line, ns) for line in block.iter(ns + "line")]
        if lines:
            text = "\n".join(unit.text or "" for unit in lines)
            blocks.append(Unit("block", block.get("id"), text, None, tuple(lines)))
    return blocks


# ---------------------------------------------------------------------------


def _line(line: ET.Element, ns: str) -> Unit:
    """A ``line`` as a unit: its text, its words and, when it has ``charParams``, their glyphs."""
    chars = [c.text or "" for c in line.iter(ns + "charParams")]
    if not chars:
        text = "".join("".join(f.itertext()) for f in line.iter(ns + "formatting"))
        words = tuple(Unit("word", None, word, None) for word in text.split())
        return Unit("line", line.get("id"), text, None, words)
    units: list[Unit] = []
    glyphs: list[Unit] = []
    for char in chars:
        if char.strip():
            glyphs.append(Unit("charParams", None, char, None))
        elif glyphs:
            units.append(_word(glyphs))
            glyphs = []
    if glyphs:
        units.append(_word(glyphs))
    return Unit("line", line.get("id"), "".join(chars), None, tuple(units))


def _word(glyphs: list[Unit]) -> Unit:
    return Unit("word", None, "".join(g.text or "" for g in glyphs), None, tuple(glyphs))
