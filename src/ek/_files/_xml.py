"""Parse an XML document safely: no DTD internal subset, no entity, no recursion.

**Safety.** Before the tree is built, expat reads the prolog with handlers
for the document type and entity declarations: a DTD internal subset
(``<!DOCTYPE x [...]>``) or any ``<!ENTITY>`` is refused there, by the
parser rather than by a pattern, so ``<!DOCTYPE PcGts SYSTEM "a>b"
[<!ENTITY e "X">]>`` is refused too. No entity is ever declared, so none is
expanded ("billion laughs"); expat fetches no external DTD or entity, so a
reference to one stays an "undefined entity" error. PAGE, ALTO, ABBYY
FineReader, METS and hOCR never need either. The tree is then built by the
standard library's C parser, and every walk over it (reading order groups,
nested regions) is iterative, so nesting depth costs no recursion.

Which format a parsed file is, and which schema version its namespace names,
is the table's business (`ek._files._formats`).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import NoReturn
from xml.parsers import expat

from ek._files._errors import InputError


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
