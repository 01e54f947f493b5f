"""The OCR document formats ek reads, one row each: the table that readers, pairing, messages and --help consult.

A row (`DocumentFormat`) holds everything ek knows of one format:

* ``name``: what ``--pred-format`` takes and `Document.format` says;
  ``title``: how messages call it;
* ``extensions``: the endings its files are named with. A folder's
  documents are the files with one of them; an ending that one format alone
  uses tells a file's format by its name (``.hocr``), one that several
  share (``.xml``) leaves it to the head;
* ``head``: a pattern the first 4 kB of its files match (`file_format`,
  `identify`);
* ``xml``, ``root`` and ``namespaces``: an XML format is told by its root
  element once parsed (`ek._files._xml`, no entity expanded), and its
  namespace names the schema version (`Document.schema`); any other
  namespace is an error that lists these. ``root`` is also how messages
  show the format (hOCR's is ``html``);
* ``read``: its reader, ``(Source, text_level, pick) -> Reading``;
  ``dinglehopper``: its reader under ``profile="dinglehopper"``, or None
  for a format dinglehopper does not read (ek's reader then reads it).

How content decides (`identify`): a file whose head, past a byte-order mark
and blanks, does not start with ``<`` is plain text; one that looks like
HTML with hOCR classes is hOCR; anything else is XML, and its root element
names the format. Rows keep one order everywhere (choices, messages,
extensions). Adding a format is one reader module and one row.
"""

from __future__ import annotations

import importlib
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ek._files._errors import InputError, decode_utf8
from ek._files._levels import Reading, Source

Reader = Callable[[Source, "str | None", str], Reading]
"""A format's reader: the source, the text level asked for (None: the format's default) and ``pick``."""

HEAD_BYTES = 4096
_XML_ENCODING = re.compile(rb"^\s*<\?xml[^>]*?encoding\s*=\s*[\"']([A-Za-z0-9._-]+)")


@dataclass(frozen=True)
class DocumentFormat:
    """One OCR document format: its names, file endings, how its head looks, its schemas and its readers."""

    name: str
    title: str
    extensions: tuple[str, ...]
    head: re.Pattern[str]
    read: Reader
    dinglehopper: Reader | None = None
    xml: bool = False
    root: str = ""
    namespaces: Mapping[str, str] = field(default_factory=dict)


def _reader(module: str, name: str = "read") -> Reader:
    """The reader ``name`` of ``ek._files.<module>``, imported at its first call.

    The readers bring the XML and HTML parsers with them, which reading
    JSONL records (``ek evaluate gold.jsonl pred.jsonl``) never needs.
    """

    def read(source: Source, text_level: str | None, pick: str) -> Reading:
        found: Reading = getattr(importlib.import_module(f"ek._files.{module}"), name)(source, text_level, pick)
        return found

    read.__qualname__ = f"{module}.{name}"
    return read


def _plain_text(source: Source, text_level: str | None, pick: str) -> Reading:
    return Reading([(line, None, None) for line in decode_utf8(source.data, source.label).splitlines()], "")


def _xml_format(
    name: str,
    title: str,
    root: str,
    namespaces: Mapping[str, str],
    read: Reader,
    dinglehopper: Reader | None = None,
    head: str | None = None,
) -> DocumentFormat:
    """An XML format's row: named ``.xml``, its head the start tag of ``root`` (any prefix) unless ``head`` says."""
    pattern = re.compile(head or rf"<(?:[A-Za-z_][\w.-]*:)?{root}[\s>/]")
    return DocumentFormat(name, title, (".xml",), pattern, read, dinglehopper, True, root, namespaces)


PAGE_VERSIONS: tuple[str, ...] = ("2009-03-16", "2010-01-12", "2010-03-19", "2013-07-15")
PAGE_VERSIONS += ("2016-07-15", "2017-07-15", "2018-07-15", "2019-07-15")
PAGE_NAMESPACES = {f"http://schema.primaresearch.org/PAGE/gts/pagecontent/{v}": v for v in PAGE_VERSIONS}
ALTO_NAMESPACES = {
    "http://schema.ccs-gmbh.com/ALTO": "v1",
    **{f"http://www.loc.gov/standards/alto/ns-v{v}#": f"v{v}" for v in (2, 3, 4)},
    "": "",
}
ABBYY_NAMESPACES = {
    f"http://www.abbyy.com/FineReader_xml/FineReader{v}-schema-v{r}.xml": f"{v}v{r}"
    for v, r in ((6, 1), (8, 2), (9, 1), (10, 1))  # FineReader 11 and 12 write the 10v1 schema
}
_HOCR_HEAD = r"<html[\s>]|<!DOCTYPE\s+html|<\w+[^<>]*\sclass=['\"][^'\"]*\bocr"
_ABBYY_HEAD = r"<(?:[A-Za-z_][\w.-]*:)?document\s[^<>]*www\.abbyy\.com/FineReader_xml/"  # <document> alone says little

FORMATS = (
    DocumentFormat(
        "text", "plain text", (".txt",), re.compile(r"\A(?!<)"), _plain_text, _reader("_dinglehopper", "text")
    ),
    DocumentFormat(
        "hocr", "hOCR", (".hocr", ".html", ".htm"), re.compile(_HOCR_HEAD, re.IGNORECASE), _reader("_hocr"), root="html"
    ),
    _xml_format("alto", "ALTO", "alto", ALTO_NAMESPACES, _reader("_alto"), _reader("_dinglehopper", "alto")),
    _xml_format("page", "PAGE", "PcGts", PAGE_NAMESPACES, _reader("_page"), _reader("_dinglehopper", "page")),
    _xml_format("abbyy", "ABBYY FineReader", "document", ABBYY_NAMESPACES, _reader("_abbyy"), head=_ABBYY_HEAD),
)
NAMES = tuple(f.name for f in FORMATS)
DOCUMENT_SUFFIXES = tuple(dict.fromkeys(ext for f in FORMATS for ext in f.extensions))
_BY_NAME = {f.name: f for f in FORMATS}
_BY_ROOT = {f.root: f for f in FORMATS if f.xml}


def by_name(name: str) -> DocumentFormat:
    """The row of the format called ``name`` (one of `NAMES`)."""
    return _BY_NAME[name]


def head_text(data: bytes) -> str:
    """The first `HEAD_BYTES` of a file as text, past a byte-order mark and leading blanks."""
    return data[:HEAD_BYTES].decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")


def file_format(rel: str, head: Callable[[], bytes]) -> str:
    """The format of the file named ``rel`` by its extension, else by its head (read when needed); else ``xml``.

    An extension of one format decides; among the formats sharing one, the
    one whose pattern appears first in the head.
    """
    ext = os.path.splitext(rel)[1].lower()
    sharing = [f for f in FORMATS if ext in f.extensions]
    if len(sharing) == 1:
        return sharing[0].name
    text = head_text(head())
    found = [(m.start(), k) for k, f in enumerate(sharing) if (m := f.head.search(text))]
    return sharing[min(found)[1]].name if found else "xml"


def identify(data: bytes, label: str) -> tuple[DocumentFormat, Source, str]:
    """The format of a document by its content (see the module doc), the source its reader takes, and its schema.

    Raises:
        InputError: XML of no known root or namespace, malformed, declaring
            entities, or not UTF-8 (where it says it is).
    """
    text = head_text(data)
    for fmt in FORMATS:
        if not fmt.xml and fmt.head.search(text):
            return fmt, Source(data, label), ""
    from ek._files import _xml  # the XML parser loads with the first XML document

    _check_xml_encoding(data, label)
    root = _xml.parse(data, label)
    ns, _, local = root.tag[1:].partition("}") if root.tag.startswith("{") else ("", "", root.tag)
    xml_format = _BY_ROOT.get(local)
    if xml_format is None:
        shown = [f"{f.title} (<{f.root}>)" for f in FORMATS if f.root]
        raise InputError(
            f"{label} is XML with root element <{local}>, which is not an OCR format; "
            f"expected {', '.join(shown[:-1])} or {shown[-1]}."
        )
    known = xml_format.namespaces
    if ns not in known:
        raise InputError(
            f"{label} is {xml_format.title} with namespace {ns or '(none)'!r}, which ek does not know; "
            f"expected one of: {', '.join(k or '(none)' for k in known)}."
        )
    return xml_format, Source(data, label, root, f"{{{ns}}}" if ns else ""), known[ns]


def _check_xml_encoding(data: bytes, label: str) -> None:
    declared = _XML_ENCODING.match(data[:300])
    if declared is None or declared.group(1).lower().replace(b"_", b"-") in (b"utf-8", b"utf8"):
        decode_utf8(data, label)  # reports the offset of a bad byte, which expat would not
