"""Read OCR documents: PAGE-XML, ALTO, hOCR and plain text, told apart by content.

`read_document` returns a `Document`: the text in reading order, its lines
and words, and the line and word confidences the file carries (PAGE
``@conf``, ALTO ``@WC``, hOCR ``x_wconf`` / 100). What is read:

* PAGE 2013-07-15 and 2019-07-15: ``TextEquiv/Unicode`` at ``level=``
  ``"region"``, ``"line"`` (default) or ``"word"``, choosing among several
  TextEquivs by ``pick="index"`` (lowest ``@index``) or ``"conf"``; regions in
  ``ReadingOrder`` order, then any it leaves out.
* ALTO v2, v3 and v4: ``String/@CONTENT`` joined by spaces (``SP``), a
  ``HYP`` appending its printed hyphen to the line's last word.
* hOCR: ``ocrx_word`` inside ``ocr_line`` (and the other line classes), or a
  line's own text when it has no word elements.
* Anything that does not start with ``<``: plain UTF-8 text.

The XML parser is the standard library's, with no DTD and no entity
expansion. A bad file raises a ValueError whose message names the file,
the line (for malformed XML), the namespaces expected, or the element that
lacks its ``TextEquiv``.

>>> page = b'''<PcGts xmlns="http://schema.primaresearch.org/PAGE/gts/pagecontent/2019-07-15">
... <Page><TextRegion id="r1"><TextLine id="l1"><TextEquiv conf="0.9"><Unicode>Schlym\\xcc\\x83</Unicode>
... </TextEquiv></TextLine></TextRegion></Page></PcGts>'''
>>> doc = read_document(page)
>>> doc.format, doc.schema, doc.text, doc.line_confidences
('page', '2019-07-15', 'Schlym̃', (0.9,))
"""

from ek._util import rehome
from ek._files import TEXT_LEVELS, Document, read_document

__all__ = ["TEXT_LEVELS", "Document", "read_document"]

rehome(globals())  # defined in the input-file layer, documented here
