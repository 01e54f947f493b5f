"""PAGE-XML as ek reads it: text regions in reading order, each with its lines, words and glyphs.

**Regions.** Every ``TextRegion`` of the page, those nested in other
regions (table cells, regions in regions) included. A region that holds
other text regions contributes its own lines but not its own
``TextEquiv`` (that repeats its parts).

**Order.** The ``ReadingOrder`` first: its groups are followed to any
depth, an ``OrderedGroup`` (or ``*Indexed``) by ``@index``, an unordered
one in the order its members are listed, and a group that names a region
(``@regionRef``) gives that region's own lines, then its members, then
whatever else the region holds. A reference to a region that holds text
regions (a ``TableRegion``, a region with regions inside) gives them in
document order, so a table read by a group naming its cells comes in the
group's order, the cells it leaves out after them in document order.
Regions the reading order does not name follow, in document order; a
region named twice is read once, where it is first named. The walk is
iterative and linear in the file: each reference is a span of the
document-order list of text regions, and a "next unread" pointer skips what
was read.

**Text.** At each level (region, line, word, glyph) the ``TextEquiv``
chosen by ``pick``: ``"index"`` takes the lowest ``@index`` (one without an
index comes after those with one, then document order), ``"conf"`` the
highest ``@conf``. Only a ``TextEquiv`` with a ``Unicode`` child counts. A
bad ``@index`` or ``@conf`` (not a whole number; not a number in [0, 1]) is
an error naming the element, whether or not it is chosen.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Callable

from ek._files._errors import InputError, confidence, shorten
from ek._files._levels import Reading, Source, Unit, resolve

GROUPS = frozenset({"OrderedGroup", "OrderedGroupIndexed", "UnorderedGroup", "UnorderedGroupIndexed"})
REFS = frozenset({"RegionRef", "RegionRefIndexed"})
UNINDEXED = 1 << 62  # sorts after every index a file gives
_INTEGER = re.compile(r"\s*[+-]?[0-9]{1,18}\s*")

Equiv = tuple[int, float | None, str | None]
"""A ``TextEquiv``: its ``@index`` (UNINDEXED when absent), ``@conf`` and ``Unicode`` text (None without one)."""


def read(source: Source, text_level: str | None, pick: str) -> Reading:
    """ek's reading of a PAGE document: each region at its own level unless ``text_level`` says, levels checked."""
    return resolve(regions(source.tree, source.ns, source.label, pick), text_level, source.label, check=True)


def regions(root: ET.Element, ns: str, label: str, pick: str) -> list[Unit]:
    """The text regions of the page as `Unit` trees, in ek's reading order."""
    page = root.find(ns + "Page")
    if page is None:
        return []
    return [_region(el, ns, label, pick) for el in _in_reading_order(page, ns, label)]


def local(tag: str) -> str:
    """An element's name without its namespace."""
    return tag.rpartition("}")[2]


def describe(el: ET.Element) -> str:
    """``<TextLine id='l1'>``: how messages name an element."""
    return f"<{local(el.tag)} id={el.get('id')!r}>"


def integer(el: ET.Element, attr: str, label: str, owner: Callable[[], str] | None = None) -> int:
    """``el``'s integer attribute ``attr`` (UNINDEXED when absent), or `InputError` naming the element.

    ``owner`` names the element for the message (default: its tag and id).
    """
    raw = el.get(attr)
    if raw is None:
        return UNINDEXED
    if not _INTEGER.fullmatch(raw):
        raise InputError(
            f"{label}: {owner() if owner else describe(el)} has {attr}={shorten(raw)!r}, "
            "which is not a whole number (of at most "
            "18 digits); @index ranks alternatives (the lowest comes first), so write it as 0, 1, 2, ... or remove it."
        )
    return int(raw)


def equivs(el: ET.Element, ns: str, label: str) -> list[Equiv]:
    """``(index, conf, text or None)`` of each TextEquiv of ``el``, checked; text None when it has no Unicode."""
    found: list[Equiv] = []
    owner = lambda: f"<TextEquiv> of {describe(el)}"  # noqa: E731 - named only for a message
    for te in el.findall(ns + "TextEquiv"):
        conf = confidence(te.get("conf"), label, owner, "conf")
        unicode = te.find(ns + "Unicode")
        found.append((integer(te, "index", label, owner), conf, None if unicode is None else unicode.text or ""))
    return found


def ordered_refs(
    reading_order: ET.Element, label: str, *, keep_unindexed: bool = True, own_refs: bool = True
) -> list[str]:
    """The region ids a ReadingOrder names, in reading order, walking nested groups without recursion.

    ``keep_unindexed=False`` drops members of ordered groups that have no
    ``@index`` (dinglehopper's rule); ``own_refs=False`` ignores a group's own
    ``@regionRef``.
    """
    return [ref for ref, whole in _walk(reading_order, label, keep_unindexed, own_refs) if whole]


# ---------------------------------------------------------------------------


def _walk(reading_order: ET.Element, label: str, keep_unindexed: bool, own_refs: bool) -> list[tuple[str, bool]]:
    """``(region id, whole)`` in reading order: ``whole`` False names the region alone, True with what it holds.

    A group's own ``@regionRef`` comes twice: alone before its members, and
    whole after them, so a table's cells come in the group's order and the
    cells it does not name after them.
    """
    refs: list[tuple[str, bool]] = []
    stack: list[ET.Element | str] = [el for el in reversed(reading_order) if local(el.tag) in GROUPS]
    while stack:
        el = stack.pop()
        if isinstance(el, str):  # a group's members are done: the rest of the region it names
            refs.append((el, True))
            continue
        name = local(el.tag)
        ref = el.get("regionRef") if name in REFS or own_refs else None
        if name not in GROUPS:
            if ref:
                refs.append((ref, True))
            continue
        members = [c for c in el if local(c.tag) in GROUPS or local(c.tag) in REFS]
        if name.startswith("Ordered"):
            if not keep_unindexed:
                members = [c for c in members if c.get("index") is not None]
            members.sort(key=lambda c: _member_index(c, label))
        if ref:
            refs.append((ref, False))
            stack.append(ref)
        stack.extend(reversed(members))
    return refs


def _member_index(el: ET.Element, label: str) -> int:
    """The ``@index`` of a ReadingOrder group member (UNINDEXED when absent), checked."""
    return integer(el, "index", label, lambda: _ro_member(el))


def _ro_member(el: ET.Element) -> str:
    ref = el.get("regionRef")
    return f"<{local(el.tag)} regionRef={ref!r}> in the ReadingOrder" if ref else f"{describe(el)} in the ReadingOrder"


def _in_reading_order(page: ET.Element, ns: str, label: str) -> list[ET.Element]:
    found, spans = _text_regions(page, ns)
    reading_order = page.find(ns + "ReadingOrder")
    if reading_order is None:
        return found
    unread = list(range(len(found) + 1))  # unread[i]: the first position >= i not read yet (path-halved)
    order: list[int] = []
    for ref, whole in _walk(reading_order, label, True, True):
        start, end = spans.get(ref, (0, 0))
        if not whole:  # the region alone, when it is a text region (a container's own lines)
            end = start + 1 if start < end and found[start].get("id") == ref else start
        k = _next_unread(unread, start)
        while k < end:
            order.append(k)
            unread[k] = k + 1
            k = _next_unread(unread, k + 1)
    named = set(order)
    return [found[k] for k in order] + [el for k, el in enumerate(found) if k not in named]


def _next_unread(unread: list[int], k: int) -> int:
    while unread[k] != k:
        unread[k] = unread[unread[k]]
        k = unread[k]
    return k


def _text_regions(page: ET.Element, ns: str) -> tuple[list[ET.Element], dict[str | None, tuple[int, int]]]:
    """TextRegions in document order, and for each region id the span [start, end) of the ones it holds."""
    text_region = ns + "TextRegion"
    found: list[ET.Element] = []
    spans: dict[str | None, tuple[int, int]] = {}
    stack: list[ET.Element | tuple[ET.Element, int]] = [c for c in reversed(page) if c.tag.endswith("Region")]
    while stack:
        item = stack.pop()
        if isinstance(item, tuple):  # leaving a region: its span ends here
            el, start = item
            spans.setdefault(el.get("id"), (start, len(found)))
            continue
        stack.append((item, len(found)))
        if item.tag == text_region:
            found.append(item)
        stack.extend(c for c in reversed(item) if c.tag.endswith("Region"))
    return found, spans


def _region(el: ET.Element, ns: str, label: str, pick: str) -> Unit:
    text, conf = _chosen(el, ns, label, pick)
    if el.find(ns + "TextRegion") is not None:
        text = conf = None  # a container: its parts are read, its own text would repeat them
    lines = tuple(_unit(line, ns, label, pick, ("TextLine", "Word", "Glyph")) for line in el.findall(ns + "TextLine"))
    return Unit("TextRegion", el.get("id"), text, conf, lines)


def _unit(el: ET.Element, ns: str, label: str, pick: str, names: tuple[str, ...]) -> Unit:
    """The unit of ``el``, named ``names[0]``, with its finer units (``names[1:]``)."""
    text, conf = _chosen(el, ns, label, pick)
    finer = names[1:]
    children = tuple(_unit(c, ns, label, pick, finer) for c in el.findall(ns + finer[0])) if finer else ()
    return Unit(names[0], el.get("id"), text, conf, children)


def _chosen(el: ET.Element, ns: str, label: str, pick: str) -> tuple[str | None, float | None]:
    """(text, confidence) of the TextEquiv ``pick`` chooses, or (None, None) when none has Unicode."""
    best: tuple[tuple[float, int], str, float | None] | None = None
    for k, (index, conf, text) in enumerate(equivs(el, ns, label)):
        if text is None:
            continue
        key = (index, k) if pick == "index" else (-(conf if conf is not None else -1.0), k)
        if best is None or key < best[0]:
            best = (key, text, conf)
    return (None, None) if best is None else best[1:]
