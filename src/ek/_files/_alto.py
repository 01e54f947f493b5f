"""ALTO (v1 to v4, or without a namespace) as ek reads it: text blocks of lines of strings.

A ``TextBlock`` is a region and its ``TextLine``\\ s are its lines, in
document order. A line's words are its ``String/@CONTENT`` values (``@WC``
their confidence), joined by one space: ``SP`` is that space, so it adds
nothing. ALTO keeps text only on strings and glyphs, so a line's text (and
a block's) is that of its words, and every level down to the word is there;
the glyph level is ``Glyph/@CONTENT``, present when every string has glyphs.

``HYP`` is the hyphen printed at the end of a line: its ``@CONTENT`` (``-``
when absent) is appended to the word before it, unless that word already
ends with it (some tools put the hyphen in the string too); a ``HYP`` with
no word before it is a word of its own. ``SUBS_TYPE`` / ``SUBS_CONTENT``
(the whole word of a hyphenated pair) are not used: the text stays as
printed, as it is on the page and in a line transcription, so
``Schlyñ-`` / ``gen`` and not ``Schlyñgen`` twice.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Optional

from ek._files._errors import confidence
from ek._files._levels import Unit


def regions(root: ET.Element, ns: str, label: str) -> list:
    """The text blocks of the document as `Unit` trees, in document order."""
    blocks = []
    for block in root.iter(ns + "TextBlock"):
        lines = tuple(_line(line, ns, label) for line in block.findall(ns + "TextLine"))
        blocks.append(Unit("TextBlock", block.get("ID"), "\n".join(line.text for line in lines), None, lines))
    return blocks


def strings(line: ET.Element, ns: str, label: str) -> list:
    """``(CONTENT, WC)`` of each ``String`` of a ``TextLine``, the confidence checked."""
    tag = ns + "String"
    return [(s.get("CONTENT", ""), _wc(s, label)) for s in line if s.tag == tag]


# ---------------------------------------------------------------------------


def _line(line: ET.Element, ns: str, label: str) -> Unit:
    string, hyp, glyph = ns + "String", ns + "HYP", ns + "Glyph"
    words: list = []  # [content, confidence, glyph units, id]
    for child in line:
        if child.tag == string:
            glyphs = [Unit("Glyph", g.get("ID"), g.get("CONTENT"), None) for g in child if g.tag == glyph]
            words.append([child.get("CONTENT", ""), _wc(child, label), glyphs, child.get("ID")])
        elif child.tag == hyp:
            hyphen = child.get("CONTENT", "-")
            if not words:
                words.append(["", None, [], child.get("ID")])
            word = words[-1]
            if not word[0].endswith(hyphen):
                if word[2] or not word[0]:  # its glyphs, when it has them, end with the hyphen too
                    word[2].append(Unit("HYP", child.get("ID"), hyphen, None))
                word[0] += hyphen
    units = tuple(Unit("String", wid, text, conf, tuple(glyphs)) for text, conf, glyphs, wid in words)
    text = " ".join(w.text.strip() for w in units if w.text.strip())
    return Unit("TextLine", line.get("ID"), text, None, units)


def _wc(el: ET.Element, label: str) -> Optional[float]:
    return confidence(el.get("WC"), label, f"<String ID={el.get('ID')!r}>", "WC")
