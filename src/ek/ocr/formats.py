"""Read OCR documents: PAGE-XML, ALTO, hOCR, ABBYY FineReader XML and plain text, told apart by content.

`read_document` returns a `Document`: the text in reading order, its lines
and words, the line and word confidences the file carries (PAGE ``@conf``,
ALTO ``@WC``, hOCR ``x_wconf`` / 100), the text level it was read at and the
regions that fell back to another. What is read (``Document.format`` names it):

* PAGE 2009-03-16, 2010-01-12, 2010-03-19, 2013-07-15, 2016-07-15,
  2017-07-15, 2018-07-15 and 2019-07-15 (any namespace prefix):
  ``TextEquiv/Unicode`` of ``TextRegion``, ``TextLine``, ``Word`` or ``Glyph``,
  choosing among several TextEquivs by ``pick="index"`` (lowest ``@index``)
  or ``"conf"`` (highest ``@conf``); regions in ``ReadingOrder`` order
  (nested ordered and unordered groups; a table gives its cells), then any
  it leaves out, in document order.
* ALTO v1 (``http://schema.ccs-gmbh.com/ALTO``), v2, v3, v4 and without a
  namespace: ``TextBlock`` regions of ``TextLine``\\ s of ``String/@CONTENT``
  joined by one space (``SP``), ``Glyph/@CONTENT`` at glyph level, a ``HYP``
  appending its printed hyphen to the word before it (not twice);
  ``SUBS_CONTENT`` is not used, the text stays as printed.
* hOCR of Tesseract, kraken and OCRopus: ``ocr_par`` (else ``ocr_carea``)
  regions of ``ocr_line``\\ s of ``ocrx_word``\\ s of ``ocrx_cinfo`` glyphs, or a
  line's own text when it has no word elements.
* ABBYY FineReader XML of FineReader 6 to 12 (schemas FineReader6-v1, 8-v2,
  9-v1 and 10-v1, ``schema`` ``"6v1"`` ... ``"10v1"``): ``block`` regions of
  ``line``\\ s, whose text is their ``charParams`` characters (or their
  ``formatting`` text without them), split into words at whitespace, the
  characters the glyphs; no confidence is read (FineReader rates characters
  only).
* Anything that does not start with ``<``: plain UTF-8 text.

**Text level** (``text_level=``, one of `TEXT_LEVELS`): ``"region"``,
``"line"``, ``"word"`` (words joined by one space, none before closing
punctuation) or ``"glyph"`` (glyphs joined into words). By default a PAGE
region is read at its own ``TextEquiv`` where it has one, else at the
coarsest level below it that it has throughout (line, then word, then
glyph); ALTO, hOCR and ABBYY at line level. A region without the level read falls
back to the nearest one it has (the coarser of two) and is listed in
``Document.fallbacks``; a PAGE region whose text at two levels differs
(after NFC and whitespace collapsing) is listed in
``Document.level_disagreements`` with the CER between them. A line with no
text that no other level covers is an error naming the level asked for.
(``level=`` is the old name, deprecated.)

**Joining**, the same for every format: the lines, each stripped of
whitespace at both ends, blank lines dropped, joined by one ``"\\n"``. So
``"a\\nb\\n"``, ``"a\\n\\nb\\n"`` and a PAGE file with the lines ``a`` and ``b``
read to the same text, and a trailing newline or the blank line between
paragraphs of a plain-text ground truth counts as no error against a
PAGE or ALTO reading. ``profile="dinglehopper"`` reads as dinglehopper 0.11
extracts instead: PAGE at region level (or ``text_level="line"``) and only
the regions its reading order names, ALTO lines of strings without
hyphens, plain text with its blank lines; no normalisation.

**Safety.** A DTD internal subset or entity declaration is refused by the
parser itself (so no entity is ever expanded, and external ones stay
unresolved); the readers walk the tree without recursion and in time linear
in the file. A bad file raises a ValueError whose message names the file,
the line (for malformed XML), the namespaces expected, or the element (and
its id) that lacks its ``TextEquiv``, or has an ``@index`` that is not a whole
number or a confidence outside [0, 1].

>>> page = b'''<PcGts xmlns="http://schema.primaresearch.org/PAGE/gts/pagecontent/2019-07-15">
... <Page><TextRegion id="r1"><TextLine id="l1"><TextEquiv conf="0.9"><Unicode>Schlym\\xcc\\x83</Unicode>
... </TextEquiv></TextLine></TextRegion></Page></PcGts>'''
>>> doc = read_document(page)
>>> doc.format, doc.schema, doc.text, doc.line_confidences, doc.text_level
('page', '2019-07-15', 'Schlym̃', (0.9,), 'line')
>>> words = page.replace(b"<TextEquiv conf", b"<Word id='w1'><Glyph id='g1'><TextEquiv><Unicode>S</Unicode>"
...     b"</TextEquiv></Glyph></Word><TextEquiv conf")
>>> doc = read_document(words, text_level="word")
>>> doc.text, doc.fallbacks
('Schlym̃', (('r1', 'line'),))
>>> abbyy = b'''<document xmlns="http://www.abbyy.com/FineReader_xml/FineReader10-schema-v1.xml"><page>
... <block blockType="Text"><text><par><line><formatting>Der Bogen</formatting></line></par></text></block>
... </page></document>'''
>>> doc = read_document(abbyy)
>>> doc.format, doc.schema, doc.words
('abbyy', '10v1', ('Der', 'Bogen'))
"""

from ek._files import TEXT_LEVELS, Document, read_document
from ek._util import rehome

__all__ = ["TEXT_LEVELS", "Document", "read_document"]

rehome(globals())  # defined in the input-file layer, documented here
