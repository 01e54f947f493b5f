"""ALTO (v1 to v4, or without a namespace) as ek reads it: text blocks of lines of strings.

A ``TextBlock`` is a region and its ``TextLine``\\ s are its lines, in
document order. A line's words are its ``String/@CONTENT`` values (``@WC``
their confidence), joined by one space where an ``SP`` stands between
them, and elsewhere by ek's rule for words (`ek._files._levels.join_words`:
one space, none before closing punctuation such as ``.`` or ``)``, after an
opening bracket, or before a hyphen ending the line). Many writers leave out
every ``SP``, so its absence says little; OCR-D's PAGE-to-ALTO keeps
"Monatsſchrift" and "." as two strings with nothing between them. ALTO keeps text only on strings and glyphs, so a line's text (and
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

from ek._files._errors import confidence
from ek._files._levels import Reading, Source, Unit, Word, join_words, resolve


def read(source: Source, text_level: str | None, pick: str) -> Reading:
    """ek's reading of an ALTO document (line level unless ``text_level`` says otherwise)."""
    return resolve(regions(source.tree, source.ns, source.label), text_level, source.label, default="line")


def regions(root: ET.Element, ns: str, label: str) -> list[Unit]:
    """The text blocks of the document as `Unit` trees, in document order."""
    blocks = []
    for block in root.iter(ns + "TextBlock"):
        lines = [_line(line, ns, label) for line in block.findall(ns + "TextLine")]
        text = "\n".join(line_text for line_text, _ in lines)
        blocks.append(Unit("TextBlock", block.get("ID"), text, None, tuple(unit for _, unit in lines)))
    return blocks


def strings(line: ET.Element, ns: str, label: str) -> list[Word]:
    """``(CONTENT, WC)`` of each ``String`` of a ``TextLine``, the confidence checked."""
    tag = ns + "String"
    return [(s.get("CONTENT", ""), _wc(s, label)) for s in line if s.tag == tag]


# ---------------------------------------------------------------------------


def _line(line: ET.Element, ns: str, label: str) -> tuple[str, Unit]:
    """The text of a ``TextLine`` (its words joined by one space, see the module doc) and its unit."""
    string, hyp, glyph, sp = ns + "String", ns + "HYP", ns + "Glyph", ns + "SP"
    texts: list[str] = []  # the words: content, confidence, glyph units, id and SP before, in parallel
    confs: list[float | None] = []
    glyph_units: list[list[Unit]] = []
    ids: list[str | None] = []
    spaced: list[bool] = []
    space = False
    for child in line:
        if child.tag == string:
            texts.append(child.get("CONTENT", ""))
            confs.append(_wc(child, label))
            glyph_units.append([Unit("Glyph", g.get("ID"), g.get("CONTENT"), None) for g in child if g.tag == glyph])
            ids.append(child.get("ID"))
            spaced.append(space)
            space = False
        elif child.tag == sp:
            space = True
        elif child.tag == hyp:
            hyphen = child.get("CONTENT", "-")
            if not texts:
                texts.append("")
                confs.append(None)
                glyph_units.append([])
                ids.append(child.get("ID"))
                spaced.append(space)
            if not texts[-1].endswith(hyphen):
                if glyph_units[-1] or not texts[-1]:  # its glyphs, when it has them, end with the hyphen too
                    glyph_units[-1].append(Unit("HYP", child.get("ID"), hyphen, None))
                texts[-1] += hyphen
    units = tuple(
        Unit("String", wid, text, conf, tuple(glyphs))
        for text, conf, glyphs, wid in zip(texts, confs, glyph_units, ids)
    )
    kept = [(word.strip(), sp_before) for word, sp_before in zip(texts, spaced) if word.strip()]
    text = join_words([w for w, _ in kept], [True if sp_before else None for _, sp_before in kept])
    return text, Unit("TextLine", line.get("ID"), text, None, units)


def _wc(el: ET.Element, label: str) -> float | None:
    return confidence(el.get("WC"), label, f"<String ID={el.get('ID')!r}>", "WC")
