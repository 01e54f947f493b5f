"""PAGE-XML and ALTO text extraction on the standard library's parser, made safe.

Safety: expat (through `xml.etree.ElementTree`) fetches no external
entity, and a document with a DTD internal subset (``<!DOCTYPE x [...]>``,
where entities would be declared) is refused before parsing, so no entity
is ever expanded (no "billion laughs"). PAGE, ALTO and hOCR never need one.

`read` returns ``(format, schema, lines)`` with one ``(text, confidence,
words)`` per line, ``words`` being ``[(word, confidence), ...]`` or None
when the words are to be split from the text.

* PAGE (2013-07-15 and 2019-07-15 namespaces): text regions in the order
  of ``ReadingOrder`` (nested groups followed; an ordered group by
  ``@index``), then any region it does not name, in document order. Text
  comes from ``TextEquiv/Unicode`` on the chosen level. Words (with their
  ``@conf``) come from ``Word`` elements when every word of the line has a
  ``TextEquiv``; at region level they are split from the text.
* ALTO v2, v3 and v4: ``TextLine`` elements in document order; a line is
  its ``String/@CONTENT`` values joined by one space (``SP`` is that space)
  and a ``HYP`` appends its ``@CONTENT`` (the printed hyphen) to the word
  before it, as the line ends in print. ``@WC`` is the word confidence.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Optional

from ek._files._errors import InputError

_PAGE = "http://schema.primaresearch.org/PAGE/gts/pagecontent/"
PAGE_NAMESPACES = {_PAGE + v: v for v in ("2013-07-15", "2019-07-15")}
ALTO_NAMESPACES = {f"http://www.loc.gov/standards/alto/ns-v{v}#": f"v{v}" for v in (2, 3, 4)}
_INTERNAL_SUBSET = re.compile(rb"<!DOCTYPE[^>\[]*\[")
_GROUPS = {"OrderedGroup", "OrderedGroupIndexed", "UnorderedGroup", "UnorderedGroupIndexed"}


def read(data: bytes, label: str, *, level: str, pick: str) -> tuple[str, str, list]:
    """(format, schema version, lines) of a PAGE or ALTO document."""
    root = _parse(data, label)
    ns, _, local = root.tag[1:].partition("}") if root.tag.startswith("{") else ("", "", root.tag)
    if local == "PcGts":
        if ns not in PAGE_NAMESPACES:
            raise _unknown_namespace(label, "PAGE", ns, PAGE_NAMESPACES)
        return "page", PAGE_NAMESPACES[ns], _page_lines(root, "{%s}" % ns, label, level, pick)
    if local == "alto":
        if ns not in ALTO_NAMESPACES:
            raise _unknown_namespace(label, "ALTO", ns, ALTO_NAMESPACES)
        return "alto", ALTO_NAMESPACES[ns], _alto_lines(root, "{%s}" % ns, label)
    raise InputError(
        f"{label} is XML with root element <{local}>, which is not an OCR format; "
        "expected PAGE (<PcGts>), ALTO (<alto>) or hOCR (<html>)."
    )


def _parse(data: bytes, label: str) -> ET.Element:
    if _INTERNAL_SUBSET.search(data):
        raise InputError(
            f"{label} declares a DTD internal subset (<!DOCTYPE ... [ ... ]>); ek expands no XML "
            "entities, so remove the DTD declarations from the file."
        )
    parser = ET.XMLParser()
    try:
        parser.feed(data)
        return parser.close()
    except ET.ParseError as exc:
        line, column = exc.position
        reason = str(exc).split(": line")[0]
        raise InputError(
            f"{label} is malformed XML at line {line}, column {column + 1}: {reason}; fix or re-export the file."
        ) from None


def _unknown_namespace(label: str, fmt: str, ns: str, known: dict) -> InputError:
    return InputError(
        f"{label} is {fmt} with namespace {ns or '(none)'!r}, which ek does not know; "
        f"expected one of: {', '.join(known)}."
    )


def _local(tag: str) -> str:
    return tag.rpartition("}")[2]


def _conf(el: ET.Element, attr: str, label: str) -> Optional[float]:
    raw = el.get(attr)
    if raw is None:
        return None
    try:
        return float(raw)
    except ValueError:
        raise InputError(
            f"{label}: <{_local(el.tag)} id={el.get('id') or el.get('ID')!r}> has {attr}={raw!r}, "
            "which is not a number; confidences are numbers between 0 and 1."
        ) from None


# -- PAGE -------------------------------------------------------------------


def _page_lines(root: ET.Element, ns: str, label: str, level: str, pick: str) -> list:
    lines = []
    for region in _ordered_regions(root, ns):
        if level == "region":
            if region.find(ns + "TextRegion") is not None:
                continue  # a container: its own regions are read
            text, conf = _required_equiv(region, ns, label, pick, "region")
            lines.extend((part, conf, None) for part in text.split("\n"))
            continue
        for line in region.findall(ns + "TextLine"):
            words = [(w, _textequiv(w, ns, pick, label)) for w in line.findall(ns + "Word")]
            if level == "word":
                if not words or any(te is None for _, te in words):
                    raise _no_equiv(label, line if not words else next(w for w, te in words if te is None), "word")
                own = _textequiv(line, ns, pick, label)
                lines.append((" ".join(te[0] for _, te in words), own[1] if own else None, [te for _, te in words]))
                continue
            text, conf = _required_equiv(line, ns, label, pick, "line")
            full = words and all(te is not None for _, te in words)
            lines.append((text, conf, [te for _, te in words] if full else None))
    return lines


def _ordered_regions(root: ET.Element, ns: str) -> list:
    regions = list(root.iter(ns + "TextRegion"))
    order = []
    reading_order = next(root.iter(ns + "ReadingOrder"), None)
    if reading_order is not None:
        by_id = {el.get("id"): el for el in root.iter() if el.get("id")}
        for ref in _flatten(reading_order, ns):
            el = by_id.get(ref)
            if el is not None:
                order.extend(el.iter(ns + "TextRegion"))  # the region itself, or those of a table
    seen: set = set()
    ordered = []
    for region in order + regions:
        if id(region) not in seen:
            seen.add(id(region))
            ordered.append(region)
    return ordered


def _flatten(group: ET.Element, ns: str) -> list:
    """Region ids named by a ReadingOrder (or a group in it), in reading order."""
    children = list(group)
    if _local(group.tag).startswith("Ordered"):
        children.sort(key=lambda c: int(c.get("index", 1 << 30)))
    refs = []
    for child in children:
        if child.get("regionRef"):
            refs.append(child.get("regionRef"))
        if _local(child.tag) in _GROUPS or _local(child.tag) == "ReadingOrder":
            refs.extend(_flatten(child, ns))
    return refs


def _textequiv(el: ET.Element, ns: str, pick: str, label: str) -> Optional[tuple[str, Optional[float]]]:
    """(text, confidence) of the chosen TextEquiv of ``el``, or None when it has none with Unicode."""
    found = []
    for k, te in enumerate(el.findall(ns + "TextEquiv")):
        unicode = te.find(ns + "Unicode")
        if unicode is not None:
            found.append((k, te, unicode.text or ""))
    if not found:
        return None
    if pick == "conf":
        k, te, text = max(found, key=lambda f: (_conf(f[1], "conf", label) or -1.0, -f[0]))
    else:
        k, te, text = min(found, key=lambda f: (int(f[1].get("index", 1 << 30)), f[0]))
    return text, _conf(te, "conf", label)


def _required_equiv(el: ET.Element, ns: str, label: str, pick: str, level: str) -> tuple[str, Optional[float]]:
    found = _textequiv(el, ns, pick, label)
    if found is None:
        raise _no_equiv(label, el, level)
    return found


def _no_equiv(label: str, el: ET.Element, level: str) -> InputError:
    others = [lv for lv in ("region", "line", "word") if lv != level]
    return InputError(
        f"{label}: <{_local(el.tag)} id={el.get('id')!r}> has no TextEquiv/Unicode at {level} level; "
        f"transcribe it, or read another level (level={others[0]!r} or {others[1]!r})."
    )


# -- ALTO -------------------------------------------------------------------


def _alto_lines(root: ET.Element, ns: str, label: str) -> list:
    lines = []
    for line in root.iter(ns + "TextLine"):
        words: list = []
        for child in line:
            tag = _local(child.tag)
            if tag == "String" and child.get("CONTENT"):
                words.append((child.get("CONTENT"), _conf(child, "WC", label)))
            elif tag == "HYP":
                hyphen = child.get("CONTENT", "-")
                if words:
                    words[-1] = (words[-1][0] + hyphen, words[-1][1])
                else:
                    words.append((hyphen, None))
        lines.append((" ".join(w for w, _ in words), None, words))
    return lines
