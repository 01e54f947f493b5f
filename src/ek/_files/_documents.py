"""Read one OCR document (PAGE-XML, ALTO, hOCR or plain text), told apart by its content.

`read_document` returns a `Document`: the lines in reading order, the
words, and the line and word confidences the file carries. The format
comes from the bytes, not the file name: a leading ``<`` with an
``<html`` or hOCR class is hOCR; other XML is PAGE (root ``PcGts``) or
ALTO (root ``alto``) by its root element; anything else is plain UTF-8
text. XML goes through `ek._files._xml`, which reads no DTD and expands
no entity.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Optional, Union

from ek._files import _xml
from ek._files._errors import InputError, decode_utf8

FORMATS = ("page", "alto", "hocr", "text")
LEVELS = ("region", "line", "word")
PICKS = ("index", "conf")

_HTML = re.compile(r"<html[\s>]|<!DOCTYPE\s+html|<\w+[^<>]*\sclass=['\"][^'\"]*\bocr", re.IGNORECASE)
_XML_ENCODING = re.compile(rb"^\s*<\?xml[^>]*?encoding\s*=\s*[\"']([A-Za-z0-9._-]+)")


@dataclass(frozen=True)
class Document:
    """The text of one OCR document in reading order, with its units and their confidences.

    ``lines`` and ``words`` are in reading order; ``line_confidences`` and
    ``word_confidences`` run parallel to them, in [0, 1], with None where the
    file gives none (hOCR ``x_wconf`` is divided by 100). ``format`` is
    ``"page"``, ``"alto"``, ``"hocr"`` or ``"text"``; ``schema`` names the
    PAGE or ALTO version read (``"2019-07-15"``, ``"v4"``), else "".
    """

    lines: tuple
    words: tuple
    line_confidences: tuple
    word_confidences: tuple
    format: str = "text"
    schema: str = ""

    def __post_init__(self) -> None:
        for units, confs in (("lines", "line_confidences"), ("words", "word_confidences")):
            object.__setattr__(self, units, tuple(getattr(self, units)))
            object.__setattr__(self, confs, tuple(getattr(self, confs)))
            if len(getattr(self, confs)) != len(getattr(self, units)):
                raise ValueError(
                    f"Document has {len(getattr(self, units))} {units} but {len(getattr(self, confs))} "
                    f"{confs}; give one confidence (or None) per unit."
                )

    @property
    def text(self) -> str:
        """The lines joined by newlines."""
        return "\n".join(self.lines)


def read_document(
    source: Union[str, os.PathLike, bytes],
    *,
    level: str = "line",
    pick: str = "index",
    allow_empty: bool = False,
    name: Optional[str] = None,
) -> Document:
    """Read a PAGE-XML, ALTO, hOCR or plain-text document (format told by content).

    Args:
        source: a path, or the file's bytes.
        level: for PAGE, where the text is read: ``"region"``, ``"line"`` or
            ``"word"`` (words joined by spaces). ALTO and hOCR are read by words.
        pick: for PAGE, which ``TextEquiv`` of several: ``"index"`` (the lowest
            ``@index``, else the first) or ``"conf"`` (the highest ``@conf``).
        allow_empty: accept a document with no text (an engine's blank page);
            otherwise it is an error.
        name: how messages name the source (default: the path, or "<bytes>").

    Raises:
        InputError (a ValueError): unreadable, malformed, of an unknown schema,
            not UTF-8, or without text; the message names the file and the fix.
    """
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(map(repr, LEVELS))}, got {level!r}.")
    if pick not in PICKS:
        raise ValueError(f"pick must be 'index' (lowest @index) or 'conf' (highest @conf), got {pick!r}.")
    data, label = _load(source, name)
    head = data[:4096].decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    if not head.startswith("<"):
        lines = decode_utf8(data, label).splitlines()
        while lines and not lines[-1].strip():
            lines.pop()  # trailing blank lines and a final form feed are not text
        doc = _build("text", "", [(line, None, None) for line in lines])
    elif _HTML.search(head):
        doc = _read_hocr(decode_utf8(data, label), label)
    else:
        _check_xml_encoding(data, label)
        fmt, schema, lines = _xml.read(data, label, level=level, pick=pick)
        doc = _build(fmt, schema, lines)
    if not allow_empty and not any(line.strip() for line in doc.lines):
        raise InputError(f"{label} has no text ({doc.format}); transcribe it or leave the file out.")
    return doc


# ---------------------------------------------------------------------------


def _load(source: Union[str, os.PathLike, bytes], name: Optional[str]) -> tuple[bytes, str]:
    if isinstance(source, (bytes, bytearray)):
        return bytes(source), name or "<bytes>"
    if not isinstance(source, (str, os.PathLike)):
        raise TypeError(f"read_document() takes a path or bytes, got {type(source).__name__}.")
    label = name or os.fspath(source)
    try:
        with open(source, "rb") as f:
            return f.read(), label
    except OSError as exc:
        raise InputError(f"cannot read {label}: {exc.strerror or exc}; check the path.") from None


def _check_xml_encoding(data: bytes, label: str) -> None:
    declared = _XML_ENCODING.match(data[:300])
    if declared is None or declared.group(1).lower().replace(b"_", b"-") in (b"utf-8", b"utf8"):
        decode_utf8(data, label)  # reports the offset of a bad byte, which expat would not


def _build(fmt: str, schema: str, lines: list) -> Document:
    """A Document from ``(text, confidence, words or None)`` per line; words split the text when None."""
    words, word_confs = [], []
    for text, _, line_words in lines:
        if line_words is None:
            split = text.split()
            words.extend(split)
            word_confs.extend([None] * len(split))
        else:
            for word, conf in line_words:
                words.append(word)
                word_confs.append(conf)
    return Document(
        lines=[text for text, _, _ in lines],
        words=words,
        line_confidences=[conf for _, conf, _ in lines],
        word_confidences=word_confs,
        format=fmt,
        schema=schema,
    )


_LINE_CLASSES = frozenset({"ocr_line", "ocrx_line", "ocr_textfloat", "ocr_caption", "ocr_header"})
_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"})
_WCONF = re.compile(r"x_wconf\s+(-?\d+(?:\.\d+)?)")


def _read_hocr(text: str, label: str) -> Document:
    parser = _HocrParser()
    parser.feed(text)
    parser.close()
    if not parser.hocr:
        raise InputError(
            f"{label} is HTML without hOCR classes (ocr_page, ocr_line, ocrx_word); "
            "give an hOCR file, e.g. from `tesseract IMAGE OUT hocr`."
        )
    lines = []
    for words, loose in parser.lines:
        kept = [(w.strip(), conf) for w, conf in words if w.strip()]
        if kept:
            lines.append((" ".join(w for w, _ in kept), None, kept))
        elif "".join(loose).strip():
            lines.append((" ".join("".join(loose).split()), None, None))
    return _build("hocr", "", lines)


class _HocrParser(HTMLParser):
    """Collects hOCR lines: each is ([[word text, confidence], ...], [loose text]) in document order."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, Optional[str]]] = []
        self.lines: list[tuple[list, list]] = []
        self.hocr = False
        self.implicit = False  # the last line collects words found outside any line element

    def handle_starttag(self, tag, attrs):
        if tag in _VOID:
            return
        values = dict(attrs)
        classes = set((values.get("class") or "").split())
        role = None
        if any(c.startswith("ocr") for c in classes):
            self.hocr = True
        if classes & _LINE_CLASSES:
            role, self.implicit = "line", False
            self.lines.append(([], []))
        elif "ocrx_word" in classes:
            role = "word"
            if not any(r == "line" for _, r in self.stack) and not self.implicit:
                self.lines.append(([], []))
                self.implicit = True
            found = _WCONF.search(values.get("title") or "")
            self.lines[-1][0].append(["", float(found.group(1)) / 100 if found else None])
        self.stack.append((tag, role))

    def handle_endtag(self, tag):
        for k in range(len(self.stack) - 1, -1, -1):
            if self.stack[k][0] == tag:
                del self.stack[k:]
                return

    def handle_data(self, data):
        roles = {r for _, r in self.stack}
        if "word" in roles:
            self.lines[-1][0][-1][0] += data
        elif "line" in roles:
            self.lines[-1][1].append(data)
