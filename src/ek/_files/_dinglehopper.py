"""``profile="dinglehopper"``: the text dinglehopper 0.11 extracts from PAGE, ALTO and plain text.

The rules of its ``ocr_files`` and ``extracted_text`` modules, re-stated
here (no normalisation: the scorer applies dinglehopper's, step
``"dinglehopper"``):

* PAGE, at region level (default) or line level (its ``--textequiv-level``).
  With a ``ReadingOrder``, only the regions it names: an ordered group's
  members without ``@index`` are dropped and the rest sorted by it; a name is
  looked up among the ``TextRegion``\\ s (the first with that id), so a
  reference to a table or an image region gives nothing, and a region named
  twice is read twice. Without one, every ``TextRegion`` in document order,
  nested ones included. A region's text is its own first ``TextEquiv`` (by
  lowest ``@index``; without indexes by highest ``@conf``; else the first)
  or "" when it has none; at line level, its own lines' texts (chosen the
  same way) joined by line breaks. Regions whose text is "" are dropped; the
  rest are joined by line breaks.
* ALTO: each ``TextLine`` in document order is its strings' ``@CONTENT``
  joined by one space (``HYP`` and ``SP`` ignored); lines joined by line
  breaks, blank ones kept.
* Plain text: UTF-8 (a byte-order mark is kept, as Python's ``utf-8`` codec
  keeps it), lines split at ``\\n``, ``\\r\\n`` or ``\\r``, each stripped of
  whitespace, blank lines kept, joined by ``\\n`` (``"a\\n\\nb\\n"`` is
  ``"a\\n\\nb"``).

ek still checks what it checks everywhere (known namespaces, whole-number
``@index``, confidences in [0, 1]); hOCR and ABBYY FineReader, which
dinglehopper cannot read, are read by ek's rules (their rows in
`ek._files._formats` name no dinglehopper reader).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from ek._files import _alto, _page
from ek._files._errors import decode_utf8
from ek._files._levels import Line, Reading, Source

PAGE_LEVELS = ("region", "line")


def page(source: Source, text_level: str | None, pick: str) -> Reading:
    """dinglehopper's text of a PAGE document at ``text_level`` ("region", the default, or "line")."""
    root, ns, label = source.tree, source.ns, source.label
    text_level = text_level or "region"
    text_region = ns + "TextRegion"
    reading_order = next(root.iter(ns + "ReadingOrder"), None)
    if reading_order is None:
        regions = list(root.iter(text_region))
    else:
        first: dict[str | None, ET.Element] = {}
        for el in root.iter(text_region):
            first.setdefault(el.get("id"), el)
        refs = _page.ordered_refs(reading_order, label, keep_unindexed=False, own_refs=False)
        regions = [first[ref] for ref in refs if ref in first]
    if text_level == "region":
        texts = [_text(region, ns, label) for region in regions]
    else:
        texts = ["\n".join(_text(line, ns, label) for line in region.findall(ns + "TextLine")) for region in regions]
    return _verbatim("\n".join(t for t in texts if t != ""), text_level)


def alto(source: Source, text_level: str | None, pick: str) -> Reading:
    """dinglehopper's text of an ALTO document: its lines of strings (whatever ``text_level``)."""
    lines: list[Line] = []
    for line in source.tree.iter(source.ns + "TextLine"):
        strings = _alto.strings(line, source.ns, source.label)
        lines.append((" ".join(content for content, _ in strings), None, strings))
    return Reading(lines, "word", verbatim=True)


def text(source: Source, text_level: str | None, pick: str) -> Reading:
    """dinglehopper's text of a plain-text file."""
    decoded = decode_utf8(source.data, source.label, keep_bom=True).replace("\r\n", "\n").replace("\r", "\n")
    lines = decoded.split("\n")
    if lines[-1] == "":
        lines.pop()  # the end of the last line, not a line
    return _verbatim("\n".join(line.strip() for line in lines), "")


# ---------------------------------------------------------------------------


def _verbatim(joined: str, text_level: str) -> Reading:
    return Reading([(line, None, None) for line in joined.split("\n")] if joined else [], text_level, verbatim=True)


def _text(el: ET.Element, ns: str, label: str) -> str:
    """The text of the element's own TextEquiv that dinglehopper picks, or ""."""
    found = _page.equivs(el, ns, label)
    if not found:
        return ""
    indexed = [k for k, (index, _, _) in enumerate(found) if index != _page.UNINDEXED]
    rated = [(k, conf) for k, (_, conf, _) in enumerate(found) if conf is not None]
    k = 0
    if len(found) > 1 and indexed:
        k = min(indexed, key=lambda k: found[k][0])  # the first of equal indexes, as numpy's nanargmin
    elif len(found) > 1 and rated:
        k = max(rated, key=lambda rating: rating[1])[0]
    return found[k][2] or ""
