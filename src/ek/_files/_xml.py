"""Parse PAGE-XML and ALTO safely, tell which one (and which version) a file is, and hand it to its reader.

**Safety.** Before the tree is built, expat reads the prolog with handlers
for the document type and entity declarations: a DTD internal subset
(``<!DOCTYPE x [...]>``) or any ``<!ENTITY>`` is refused there, by the
parser rather than by a pattern, so ``<!DOCTYPE PcGts SYSTEM "a>b"
[<!ENTITY e "X">]>`` is refused too. No entity is ever declared, so none is
expanded ("billion laughs"); expat fetches no external DTD or entity, so a
reference to one stays an "undefined entity" error. PAGE, ALTO and hOCR
never need either. The tree is then built by the standard library's C
parser, and every walk over it (reading order groups, nested regions) is
iterative, so nesting depth costs no recursion.

**Namespaces.** PAGE 2009-03-16, 2010-01-12, 2010-03-19, 2013-07-15,
2016-07-15, 2017-07-15, 2018-07-15 and 2019-07-15; ALTO v1
(``http://schema.ccs-gmbh.com/ALTO``), v2, v3, v4 and ALTO without a
namespace (schema ""). Any other namespace is an error listing these.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping
from typing import NoReturn
from xml.parsers import expat

from ek._files import _alto, _dinglehopper, _page
from ek._files._errors import InputError
from ek._files._levels import Reading, resolve

PAGE_VERSIONS = (
    "2009-03-16",
    "2010-01-12",
    "2010-03-19",
    "2013-07-15",
    "2016-07-15",
    "2017-07-15",
    "2018-07-15",
    "2019-07-15",
)
_PAGE = "http://schema.primaresearch.org/PAGE/gts/pagecontent/"
PAGE_NAMESPACES = {_PAGE + v: v for v in PAGE_VERSIONS}
ALTO_NAMESPACES = {
    "http://schema.ccs-gmbh.com/ALTO": "v1",
    **{f"http://www.loc.gov/standards/alto/ns-v{v}#": f"v{v}" for v in (2, 3, 4)},
    "": "",
}


def read(
    data: bytes, label: str, *, text_level: str | None, pick: str, profile: str | None
) -> tuple[str, str, Reading]:
    """(format, schema version, reading) of a PAGE or ALTO document."""
    root = parse(data, label)
    ns, _, local = root.tag[1:].partition("}") if root.tag.startswith("{") else ("", "", root.tag)
    prefix = f"{{{ns}}}" if ns else ""
    if local == "PcGts":
        if ns not in PAGE_NAMESPACES:
            raise _unknown_namespace(label, "PAGE", ns, PAGE_NAMESPACES)
        if profile == "dinglehopper":
            reading = _dinglehopper.page(root, prefix, label, text_level or "region")
        else:
            reading = resolve(_page.regions(root, prefix, label, pick), text_level, label, check=True)
        return "page", PAGE_NAMESPACES[ns], reading
    if local == "alto":
        if ns not in ALTO_NAMESPACES:
            raise _unknown_namespace(label, "ALTO", ns, ALTO_NAMESPACES)
        if profile == "dinglehopper":
            reading = _dinglehopper.alto(root, prefix, label)
        else:
            reading = resolve(_alto.regions(root, prefix, label), text_level, label, default="line")
        return "alto", ALTO_NAMESPACES[ns], reading
    raise InputError(
        f"{label} is XML with root element <{local}>, which is not an OCR format; "
        "expected PAGE (<PcGts>), ALTO (<alto>) or hOCR (<html>)."
    )


def parse(data: bytes, label: str) -> ET.Element:
    """The element tree of ``data``, refused when it declares a DTD internal subset or an entity."""
    _check_prolog(data, label)
    parser = ET.XMLParser()
    try:
        parser.feed(data)
        return parser.close()
    except ET.ParseError as exc:
        line, column = exc.position
        raise _malformed(label, line, column, str(exc).split(": line")[0]) from None


# ---------------------------------------------------------------------------


class _BodyReached(Exception):
    """The root element starts: the prolog, where any DTD must be, is over."""


def _check_prolog(data: bytes, label: str) -> None:
    def doctype(name: str, system_id: str | None, public_id: str | None, has_internal_subset: bool) -> None:
        if has_internal_subset:
            raise _declares(label, "a DTD internal subset (<!DOCTYPE ... [ ... ]>)")

    def entity(name: str, *_: object) -> NoReturn:
        raise _declares(label, f"the entity {name!r}")

    def body(*_: object) -> NoReturn:
        raise _BodyReached

    parser = expat.ParserCreate()
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.StartDoctypeDeclHandler = doctype
    parser.EntityDeclHandler = entity
    parser.UnparsedEntityDeclHandler = entity
    parser.StartElementHandler = body
    try:
        parser.Parse(data, True)
    except _BodyReached:
        pass
    except expat.ExpatError:
        pass  # the tree builder reports it, with the same position


def _declares(label: str, what: str) -> InputError:
    return InputError(
        f"{label} declares {what}; ek expands no XML entities, so remove the DTD declarations from the file."
    )


def _malformed(label: str, line: int, column: int, reason: str) -> InputError:
    return InputError(
        f"{label} is malformed XML at line {line}, column {column + 1}: {reason}; fix or re-export the file."
    )


def _unknown_namespace(label: str, fmt: str, ns: str, known: Mapping[str, str]) -> InputError:
    return InputError(
        f"{label} is {fmt} with namespace {ns or '(none)'!r}, which ek does not know; "
        f"expected one of: {', '.join(k or '(none)' for k in known)}."
    )
