"""hOCR (Tesseract, kraken, OCRopus) as ek reads it: paragraphs of lines of words of glyphs.

* Lines: elements of class ``ocr_line`` (and ``ocrx_line``, ``ocr_textfloat``,
  ``ocr_caption``, ``ocr_header``). Words outside any line form a line of
  their own, until the next line starts.
* Words: ``ocrx_word`` (Tesseract, kraken), their text with the markup
  inside dropped; ``x_wconf`` (0 to 100) / 100 is the word's confidence.
  kraken's per-character ``x_confs`` are not read (no scale is agreed on).
  A line without words (OCRopus) has its own text, whitespace collapsed.
* Glyphs: ``ocrx_cinfo`` inside a word (Tesseract with
  ``hocr_char_boxes=1``); the glyph level is there when every word has them.
* Regions: ``ocr_par``, or ``ocr_carea`` for lines in no paragraph, or the
  page (``ocr_page``, else the document) for lines in neither. A region's
  text is its lines', so every level down to the line is there.

The parser is the standard library's `html.parser`, which expands HTML
character references only (``&amp;``, ``&nbsp;``): a ``<!DOCTYPE ... [``
internal subset or an ``<!ENTITY>`` is refused. Reading is linear in the
file: the open elements are a stack, with a count per tag name (so an end
tag that matches nothing open costs nothing) and a stack per hOCR role (so
text goes to the innermost word or line at once), however unclosed the
spans. The parser is given the file up to its last ``>`` only, and what
follows is text: no tag can end there, and ``html.parser`` (before Python
3.13.5) rescans the rest of the file from every ``<`` it cannot close,
which made 200 kB of ``<a<a<a...`` take 26 s.
"""

from __future__ import annotations

from html import unescape
from html.parser import HTMLParser

from ek._files._errors import InputError, confidence, decode_utf8
from ek._files._levels import Reading, Source, Unit, resolve

LINE_CLASSES = frozenset({"ocr_line", "ocrx_line", "ocr_textfloat", "ocr_caption", "ocr_header"})
REGION_CLASSES = ("ocr_par", "ocr_carea", "ocr_page")  # the first a line is in, innermost first
_VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
)
_RAW = frozenset({"script", "style"})


def read(source: Source, text_level: str | None, pick: str) -> Reading:
    """ek's reading of an hOCR document (line level unless ``text_level`` says otherwise)."""
    return resolve(
        regions(decode_utf8(source.data, source.label), source.label), text_level, source.label, default="line"
    )


def regions(text: str, label: str) -> list[Unit]:
    """The regions of an hOCR document as `Unit` trees, in document order."""
    parser = _Parser(label)
    end = text.rfind(">") + 1
    parser.feed(text[:end])
    parser.close()
    if text[end:].strip():
        parser.handle_data(unescape(text[end:]))  # no tag can end after the last ">": text (see the module doc)
    if not parser.hocr:
        raise InputError(
            f"{label} is HTML without hOCR classes (ocr_page, ocr_line, ocrx_word); "
            "give an hOCR file, e.g. from `tesseract IMAGE OUT hocr`."
        )
    return [_region(run) for run in parser.runs]


# ---------------------------------------------------------------------------


class _Node:
    """An hOCR element being read: its class, id, confidence, text parts and finer nodes."""

    __slots__ = ("children", "conf", "id", "kind", "parts")

    def __init__(self, kind: str, id: str | None, conf: float | None = None) -> None:
        self.kind, self.id, self.conf = kind, id, conf
        self.parts: list[str | None] = []  # a word's None: a blank between its glyphs (see `_word_text`)
        self.children: list[_Node] = []


# Stands on the "raw" stack for an open script or style element: only its presence counts.
_RAW_NODE = _Node("raw", None)


class _Parser(HTMLParser):
    """Collects runs of lines per region; see the module doc for the rules."""

    def __init__(self, label: str) -> None:
        super().__init__(convert_charrefs=True)
        self.label = label
        self.hocr = False
        self.open: list[tuple[str, str | None]] = []  # (tag, role) of each open element
        self.count: dict[str, int] = {}  # open elements per tag name
        self.roles: dict[str, list[_Node]] = {role: [] for role in ("line", "word", "glyph", "raw", *REGION_CLASSES)}
        self.runs: list[tuple[_Node | None, list[_Node]]] = []  # (region node, [line nodes]) in document order
        self.implicit: _Node | None = None  # the line that collects words found outside any line

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _VOID:
            return
        values = dict(attrs)
        classes = (values.get("class") or "").split()
        role: str | None = None
        node = _RAW_NODE
        if any(c.startswith("ocr") for c in classes):
            self.hocr = True
        if LINE_CLASSES.intersection(classes):
            role, node = "line", _Node(next(c for c in classes if c in LINE_CLASSES), values.get("id"))
            self._add_line(node)
        elif "ocrx_word" in classes:
            role, node = "word", _Node("ocrx_word", values.get("id"), self._wconf(values))
            self._word_line().children.append(node)
        elif "ocrx_cinfo" in classes and self.roles["word"]:
            role, node = "glyph", _Node("ocrx_cinfo", values.get("id"))
            self.roles["word"][-1].children.append(node)
        elif any(c in REGION_CLASSES for c in classes):
            role = next(c for c in classes if c in REGION_CLASSES)
            node = _Node(role, values.get("id"))
        elif tag in _RAW:
            role = "raw"  # node stays _RAW_NODE
        self.open.append((tag, role))
        self.count[tag] = self.count.get(tag, 0) + 1
        if role is not None:
            self.roles[role].append(node)

    def handle_endtag(self, tag: str) -> None:
        if not self.count.get(tag):
            return  # nothing open by that name: a stray end tag
        while self.open:
            name, role = self.open.pop()
            self.count[name] -= 1
            if role is not None:
                self.roles[role].pop()
            if name == tag:
                return

    def handle_data(self, data: str) -> None:
        roles = self.roles
        if roles["raw"]:
            return
        if roles["word"]:
            in_glyph = bool(roles["glyph"])
            roles["word"][-1].parts.append(data if in_glyph or data.strip() else None)  # None: a blank between glyphs?
            if in_glyph:
                roles["glyph"][-1].parts.append(data)
        elif roles["line"]:
            roles["line"][-1].parts.append(data)

    def handle_decl(self, decl: str) -> None:
        if "[" in decl or decl.upper().startswith("ENTITY"):
            raise InputError(
                f"{self.label} declares a DTD internal subset or an entity (<!{decl[:40]}...>); ek expands no "
                "entities, so remove the declarations from the file."
            )

    def _add_line(self, line: _Node) -> None:
        self.implicit = None
        region = next((self.roles[kind][-1] for kind in REGION_CLASSES if self.roles[kind]), None)
        if not self.runs or self.runs[-1][0] is not region:
            self.runs.append((region, []))
        self.runs[-1][1].append(line)

    def _word_line(self) -> _Node:
        if self.roles["line"]:
            return self.roles["line"][-1]
        if self.implicit is None:
            line = _Node("ocr_line", None)
            self._add_line(line)
            self.implicit = line
        return self.implicit

    def _wconf(self, values: dict[str, str | None]) -> float | None:
        for prop in (values.get("title") or "").split(";"):
            key, _, value = prop.strip().partition(" ")
            if key == "x_wconf":
                return confidence(
                    value.strip(), self.label, f"<span class='ocrx_word' id={values.get('id')!r}>", "x_wconf", scale=100
                )
        return None


def _region(run: tuple[_Node | None, list[_Node]]) -> Unit:
    region, lines = run
    read = [_line(line) for line in lines]
    kind, rid = (region.kind, region.id) if region is not None else ("ocr_page", None)
    return Unit(kind, rid, "\n".join(text for text, _ in read), None, tuple(unit for _, unit in read))


def _line(line: _Node) -> tuple[str, Unit]:
    """The text of a line (its words', or its own when it has none) and its unit."""
    texts = [_word_text(w) for w in line.children]
    words = tuple(
        Unit(
            "ocrx_word",
            w.id,
            text,
            w.conf,
            tuple(Unit("ocrx_cinfo", g.id, "".join(filter(None, g.parts)), None) for g in w.children),
        )
        for w, text in zip(line.children, texts)
    )
    if any(text.strip() for text in texts):
        joined = " ".join(text.strip() for text in texts if text.strip())
        return joined, Unit(line.kind, line.id, joined, None, words)
    own = " ".join("".join(filter(None, line.parts)).split())
    return own, Unit(line.kind, line.id, own, None)


def _word_text(word: _Node) -> str:
    """The word's text, whitespace collapsed; blanks between its glyphs are the markup's layout, not spaces."""
    blank = "" if word.children else " "
    return " ".join("".join(blank if part is None else part for part in word.parts).split())
