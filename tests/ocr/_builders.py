"""Fixture builders for the reader tests: PAGE (every version), ALTO (v1-v4, none) and hOCR as their tools wrote them.

The same content is written in each version's dialect:

* PAGE 2009-03-16 to 2010-03-19 (Aletheia 1.x, IMPACT): ``Coords`` with
  ``<Point x= y=/>`` children, ``TextEquiv`` with ``PlainText`` and
  ``Unicode``, no ``@conf`` or ``@index``.
* PAGE 2013-07-15 to 2018-07-15 (Aletheia 2/3, Transkribus, early OCR-D):
  ``Coords/@points``, ``TextEquiv/@conf``, ``TextStyle``.
* PAGE 2019-07-15 (OCR-D): also ``@index``, ``UserDefined``, ``Labels``, and
  optionally a namespace prefix (``pc:``) as ``ocrd_models`` writes it.
* ALTO v1 (CCS docWorks), v2 (Abbyy, many libraries), v3 (Tesseract), v4
  and without a namespace: ``String/@CONTENT``, ``@WC``, ``SP``, ``HYP``,
  ``SUBS_TYPE``/``SUBS_CONTENT`` on hyphenated pairs, ``Glyph``.
* hOCR as Tesseract (``ocr_carea``/``ocr_par``/``ocr_line``/``ocrx_word``,
  ``x_wconf``, ``ocrx_cinfo``), kraken (``ocr_line`` of ``ocrx_word`` with
  ``x_confs``) and OCRopus (``ocr_line`` with the text itself) write it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

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
ALTO_NAMESPACES = {
    "v1": "http://schema.ccs-gmbh.com/ALTO",
    "v2": "http://www.loc.gov/standards/alto/ns-v2#",
    "v3": "http://www.loc.gov/standards/alto/ns-v3#",
    "v4": "http://www.loc.gov/standards/alto/ns-v4#",
    "": "",
}


def page_xsd() -> Path:
    """The PAGE 2019 schema that OCR-D's validators ship (ocrd_validators comes with dinglehopper, in the test extra).

    A missing ocrd_validators raises ModuleNotFoundError, which the suite turns into a skip naming the
    test extra (a failure under EK_TEST_ALL_EXTRAS); an installed one without its schema is a failure.
    """
    found = resources.files("ocrd_validators") / "page.xsd"
    if not found.is_file():
        raise AssertionError(f"ocrd_validators is installed but ships no page.xsd at {found}")
    return Path(str(found))


def page_ns(version: str) -> str:
    return f"http://schema.primaresearch.org/PAGE/gts/pagecontent/{version}"


@dataclass
class Glyph:
    text: str | None
    conf: float | None = None


@dataclass
class Word:
    text: str | None
    glyphs: tuple = ()
    conf: float | None = None


@dataclass
class Line:
    text: str | None
    words: tuple = ()
    conf: float | None = None


@dataclass
class Region:
    """A text region (or, with ``kind``, a TableRegion or ImageRegion) and what it holds."""

    id: str
    text: str | None = None
    lines: tuple = ()
    conf: float | None = None
    regions: tuple = ()
    kind: str = "TextRegion"
    alternatives: tuple = ()  # (text, index, conf) TextEquivs written after the primary one


def words_of(text: str, conf: float | None = None, glyphs: bool = False) -> tuple:
    """Word (and glyph) units for ``text`` split on spaces."""
    return tuple(Word(w, tuple(Glyph(c) for c in w) if glyphs else (), conf) for w in text.split())


def full_line(text: str, conf: float | None = None, glyphs: bool = True) -> Line:
    """A line with its text at line, word and (optionally) glyph level."""
    return Line(text, words_of(text, conf, glyphs), conf)


def full_region(rid: str, lines: list, glyphs: bool = True) -> Region:
    """A region with the same text at every level."""
    return Region(rid, "\n".join(lines), tuple(full_line(t, glyphs=glyphs) for t in lines))


# -- PAGE -------------------------------------------------------------------


@dataclass
class _Page:
    version: str
    prefix: str = ""
    counter: list = field(default_factory=lambda: [0])

    @property
    def old(self) -> bool:
        return self.version < "2013"

    @property
    def y2019(self) -> bool:
        return self.version >= "2019"

    def tag(self, name: str) -> str:
        return f"{self.prefix}:{name}" if self.prefix else name

    def coords(self) -> str:
        if self.old:
            points = "".join(f'<{self.tag("Point")} x="{x}" y="{y}"/>' for x, y in ((0, 0), (10, 0), (10, 5)))
            return f"<{self.tag('Coords')}>{points}</{self.tag('Coords')}>"
        return f'<{self.tag("Coords")} points="0,0 10,0 10,5"/>'

    def equiv(self, text: str | None, conf=None, index=None) -> str:
        if text is None:
            return ""
        attrs = ""
        if index is not None and self.y2019:
            attrs += f' index="{index}"'
        if conf is not None and not self.old:
            attrs += f' conf="{conf}"'
        plain = f"<{self.tag('PlainText')}>{escape(text)}</{self.tag('PlainText')}>" if self.version < "2019" else ""
        return (
            f"<{self.tag('TextEquiv')}{attrs}>{plain}<{self.tag('Unicode')}>{escape(text)}"
            f"</{self.tag('Unicode')}></{self.tag('TextEquiv')}>"
        )

    def extras(self) -> str:
        """What newer tools write after the TextEquivs of a text element."""
        if self.old:
            return ""
        style = f'<{self.tag("TextStyle")} fontFamily="Fraktur"/>'
        if not self.y2019:
            return style
        return (
            style + f'<{self.tag("UserDefined")}><{self.tag("UserAttribute")} name="engine" value="gt"/>'
            f"</{self.tag('UserDefined')}>"
            f'<{self.tag("Labels")}><{self.tag("Label")} value="checked"/></{self.tag("Labels")}>'
        )

    def new_id(self, kind: str) -> str:
        self.counter[0] += 1
        return f"{kind}{self.counter[0]}"

    def glyph(self, g: Glyph) -> str:
        return (
            f'<{self.tag("Glyph")} id="{self.new_id("g")}">{self.coords()}{self.equiv(g.text, g.conf, 1)}'
            f"{self.extras()}</{self.tag('Glyph')}>"
        )

    def word(self, w: Word) -> str:
        glyphs = "".join(map(self.glyph, w.glyphs))
        return (
            f'<{self.tag("Word")} id="{self.new_id("w")}">{self.coords()}{glyphs}{self.equiv(w.text, w.conf, 1)}'
            f"{self.extras()}</{self.tag('Word')}>"
        )

    def line(self, line: Line) -> str:
        baseline = "" if self.old else f'<{self.tag("Baseline")} points="0,4 10,4"/>'
        words = "".join(map(self.word, line.words))
        return (
            f'<{self.tag("TextLine")} id="{self.new_id("l")}">{self.coords()}{baseline}{words}'
            f"{self.equiv(line.text, line.conf, 1)}{self.extras()}</{self.tag('TextLine')}>"
        )

    def region(self, r: Region) -> str:
        inner = "".join(map(self.region, r.regions))
        if r.kind != "TextRegion":
            return f'<{self.tag(r.kind)} id="{r.id}">{self.coords()}{inner}</{self.tag(r.kind)}>'
        lines = "".join(map(self.line, r.lines))
        alternatives = "".join(self.equiv(t, c, i) for t, i, c in r.alternatives)
        labels = self.extras()[self.extras().find("<" + self.tag("UserDefined")) :] if self.y2019 else ""
        style = f'<{self.tag("TextStyle")} fontFamily="Fraktur"/>' if not self.old else ""
        return (
            f'<{self.tag("TextRegion")} id="{r.id}" type="paragraph">{self.coords()}{labels}{inner}{lines}'
            f"{self.equiv(r.text, r.conf, 1 if r.alternatives else None)}{alternatives}{style}"
            f"</{self.tag('TextRegion')}>"
        )


def page_document(version: str, regions: list, *, reading_order: str | tuple | None = None, prefix: str = "") -> bytes:
    """A PAGE document of ``version`` holding ``regions``.

    ``reading_order`` is a ReadingOrder's XML (without the prefix), or a tuple
    of region ids for one OrderedGroup (``RegionRefIndexed`` with indexes in
    that order), or None for no reading order.
    """
    w = _Page(version, prefix)
    xmlns = f'xmlns:{prefix}="{page_ns(version)}"' if prefix else f'xmlns="{page_ns(version)}"'
    schema = (
        f'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="{page_ns(version)} '
        f'{page_ns(version)}/pagecontent.xsd"'
    )
    if isinstance(reading_order, tuple):
        refs = "".join(
            f'<{w.tag("RegionRefIndexed")} index="{k}" regionRef="{r}"/>' for k, r in enumerate(reading_order)
        )
        reading_order = (
            f'<{w.tag("ReadingOrder")}><{w.tag("OrderedGroup")} id="ro1">{refs}'
            f"</{w.tag('OrderedGroup')}></{w.tag('ReadingOrder')}>"
        )
    body = "".join(map(w.region, regions))
    metadata = (
        f"<{w.tag('Metadata')}><{w.tag('Creator')}>ek tests</{w.tag('Creator')}><{w.tag('Created')}>"
        f"2020-01-01T00:00:00</{w.tag('Created')}><{w.tag('LastChange')}>2020-01-01T00:00:00"
        f"</{w.tag('LastChange')}></{w.tag('Metadata')}>"
    )
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<{w.tag("PcGts")} {xmlns} {schema}>{metadata}'
        f'<{w.tag("Page")} imageFilename="page.png" imageWidth="100" imageHeight="100">'
        f"{reading_order or ''}{body}</{w.tag('Page')}></{w.tag('PcGts')}>\n"
    ).encode()


# -- ALTO -------------------------------------------------------------------


@dataclass
class AltoWord:
    content: str
    wc: float | None = None
    glyphs: tuple = ()
    subs: tuple | None = None  # (SUBS_TYPE, SUBS_CONTENT)


def alto_document(version: str, blocks: list, *, hyphens: dict | None = None) -> bytes:
    """An ALTO document: ``blocks`` is a list of blocks, each a list of lines, each a list of AltoWords.

    ``hyphens`` maps (block, line) positions to the HYP CONTENT that ends that line.
    """
    ns = ALTO_NAMESPACES[version]
    xmlns = f' xmlns="{ns}"' if ns else ""
    hyphens = hyphens or {}
    parts = []
    for b, lines in enumerate(blocks):
        parts.append(f'<TextBlock ID="block_{b}" HPOS="0" VPOS="0" WIDTH="10" HEIGHT="10">')
        for k, words in enumerate(lines):
            parts.append(f'<TextLine ID="line_{b}_{k}" HPOS="0" VPOS="0" WIDTH="10" HEIGHT="2">')
            for j, word in enumerate(words):
                if j:
                    parts.append('<SP WIDTH="1" VPOS="0" HPOS="0"/>')
                attrs = f' WC="{word.wc}"' if word.wc is not None else ""
                if word.subs:
                    attrs += f' SUBS_TYPE="{word.subs[0]}" SUBS_CONTENT={quoteattr(word.subs[1])}'
                glyphs = "".join(
                    f'<Glyph ID="g_{b}_{k}_{j}_{i}" CONTENT={quoteattr(g)}/>' for i, g in enumerate(word.glyphs)
                )
                tail = f">{glyphs}</String>" if glyphs else "/>"
                parts.append(
                    f'<String ID="string_{b}_{k}_{j}" HPOS="0" VPOS="0" WIDTH="1" HEIGHT="1" '
                    f"CONTENT={quoteattr(word.content)}{attrs}{tail}"
                )
            if (b, k) in hyphens:
                parts.append(f'<HYP CONTENT={quoteattr(hyphens[b, k])} HPOS="9" VPOS="0" WIDTH="1"/>')
            parts.append("</TextLine>")
        parts.append("</TextBlock>")
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<alto{xmlns}><Description><MeasurementUnit>pixel'
        f'</MeasurementUnit></Description><Layout><Page ID="p1" HEIGHT="100" WIDTH="100" PHYSICAL_IMG_NR="1">'
        f"<PrintSpace>{''.join(parts)}</PrintSpace></Page></Layout></alto>\n"
    ).encode()


# -- hOCR -------------------------------------------------------------------


def hocr_tesseract(paragraphs: list, *, confs: list | None = None, glyphs: bool = False) -> bytes:
    """Tesseract's hOCR: one ``ocr_carea`` per paragraph (a list of line texts), ``x_wconf`` per word."""
    out = [
        (
            '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN"\n'
            '    "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">\n'
            '<html xmlns="http://www.w3.org/1999/xhtml" xml:lang="en" lang="en">\n <head>\n  <title></title>\n'
            '  <meta http-equiv="Content-Type" content="text/html;charset=utf-8"/>\n'
            "  <meta name='ocr-system' content='tesseract 5.3.0' />\n"
            "  <meta name='ocr-capabilities' content='ocr_page ocr_carea ocr_par ocr_line ocrx_word ocrp_wconf'/>\n"
            " </head>\n <body>\n  <div class='ocr_page' id='page_1' title='image \"x.png\"; bbox 0 0 100 100; ppageno 0'>\n"
        )
    ]
    n = 0
    for p, lines in enumerate(paragraphs):
        out.append(
            f"   <div class='ocr_carea' id='block_1_{p + 1}' title=\"bbox 0 0 10 10\">\n"
            f"    <p class='ocr_par' id='par_1_{p + 1}' lang='deu' title=\"bbox 0 0 10 10\">\n"
        )
        for k, text in enumerate(lines):
            out.append(
                f"     <span class='ocr_line' id='line_1_{p}_{k}' title=\"bbox 0 0 10 2; baseline 0 0; "
                f'x_size 20; x_descenders 4; x_ascenders 5">\n'
            )
            for word in text.split():
                conf = confs[n] if confs else 90
                n += 1
                inner = escape(word)
                if glyphs:
                    inner = "".join(
                        f"<span class='ocrx_cinfo' title='x_bboxes 0 0 1 1; x_conf 99'>{escape(c)}</span>" for c in word
                    )
                out.append(
                    f"      <span class='ocrx_word' id='word_1_{n}' title='bbox 0 0 1 1; x_wconf {conf}'>"
                    f"{inner}</span>\n"
                )
            out.append("     </span>\n")
        out.append("    </p>\n   </div>\n")
    out.append("  </div>\n </body>\n</html>\n")
    return "".join(out).encode()


_KRAKEN_HEAD = """<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" \
"http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">
<html xmlns="http://www.w3.org/1999/xhtml" xml:lang="en" lang="en">
<head>
<title></title>
<meta http-equiv="Content-Type" content="text/html;charset=utf-8" />
<meta name="ocr-system" content="kraken 4.3" />
<meta name="ocr-capabilities" content="ocr_page ocr_line ocrx_word" />
</head>
<body>
<div class="ocr_page" title="bbox 0 0 100 100; image x.png">
"""
_OCROPUS_HEAD = """<!DOCTYPE html PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN" "http://www.w3.org/TR/html4/loose.dtd">
<html>
<head>
<meta http-equiv="Content-Type" content="text/html; charset=utf-8" />
<meta name="ocr-capabilities" content="ocr_line ocr_page" />
<meta name="ocr-langs" content="en" />
<meta name="ocr-scripts" content="Latn" />
<title>OCR Output</title>
</head>
<body>
<div class='ocr_page' title='file x.png'>
"""


def hocr_kraken(lines: list) -> bytes:
    """kraken's hOCR: ``ocr_line`` spans of ``ocrx_word`` segments with per-character ``x_confs``."""
    out = [_KRAKEN_HEAD]
    for k, text in enumerate(lines):
        out.append(f'\t<span class="ocr_line" id="line_{k}" title="bbox 0 {k} 10 {k + 1}">\n')
        for j, word in enumerate(text.split()):
            confs = " ".join("97" for _ in word)
            out.append(
                f'\t\t<span class="ocrx_word" id="segment_{k}_{j}" title="bbox 0 0 1 1; x_confs {confs}">'
                f"{escape(word)}</span>\n"
            )
        out.append("\t</span>\n\t<br/>\n")
    return ("".join(out) + "</div>\n</body>\n</html>\n").encode()


def hocr_ocropus(lines: list) -> bytes:
    """OCRopus's hOCR (``ocropus-hocr``): ``ocr_line`` spans that hold their text directly."""
    spans = "".join(
        f"<span class='ocr_line' title='bbox 0 {k} 10 {k + 1}'>{escape(text)}</span><br />\n"
        for k, text in enumerate(lines)
    )
    return (_OCROPUS_HEAD + spans + "</div>\n</body>\n</html>\n").encode()
