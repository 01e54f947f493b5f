"""The input layer of ``ek evaluate``: read GOLD and PRED from files and join them by id.

API (everything a command needs; errors are `InputError`, a ValueError
whose one-line message names the file, the place and the fix):

* ``read_pair(gold, pred, **options) -> Joined``: both sides read and joined.
* ``read_side(source, role="gold"|"pred", **options) -> Side`` and
  ``join(gold_side, pred_side) -> Joined``, for reading GOLD once and
  joining it with several predictions (``ek compare``).
* ``read_document(source, ...) -> Document``: one PAGE-XML, ALTO, hOCR or
  plain-text document (public as `ek.ocr.formats`).

**Sources.** A side is a ``.jsonl`` file (one object per line), a ``.json``
file (an array of records, or an object mapping id -> record or -> value),
a ``.csv`` or ``.tsv`` file with a header row, a single document (``.txt``,
``.xml``, ``.html``, ``.hocr``: PAGE, ALTO, hOCR or plain text, told by
content), a folder of documents, or ``-`` for standard input (format told by
content: ``<`` a document, ``[`` JSON, ``{`` JSONL when the first line is a
whole JSON value and JSON otherwise, then TSV or CSV by the header's
delimiter). A file with another extension is read by content when it starts
like JSON or XML, and refused otherwise. Text must be UTF-8.

**Ids.** ``id_field`` (default ``"id"``) names the joining field; ids are
compared as strings (an integer id 7 is "7"). Every record must have one:
a record without it is an error, never a silent position. Pass
``id_field=None`` to number records instead ("1", "2", ... in file order).
A JSON object mapping gives ids by key. In a folder, a file ``NAME.gt.txt``,
``NAME.txt`` or ``NAME.xml`` (any of the document extensions, in
subfolders as ``sub/NAME``) has id ``NAME``; when a GOLD folder holds
``*.gt.*`` files only those are gold, and a PRED folder skips them, so one
folder can hold both (the tesstrain layout). Two single documents pair
with each other whatever their names.

**Values.** ``gold_field`` / ``pred_field`` name the value; by default the
first of ``reference``, ``gold``, ``text`` (gold) or ``prediction``,
``pred``, ``text`` (pred) present in the side's first record, which every
record must then have. With none of them the whole record, minus the id
and slice fields, is the value (field metrics score it). A document's value
is its text. ``slice_field`` (default ``"slice"`` when a gold record has
it) gives slices; they are read from gold only.

**Joining.** Cases come in gold order. A gold id without a prediction is
listed in ``missing`` and compared with an empty prediction; a prediction
without a gold id is listed in ``extra`` and ignored. In folder mode a file
that fails to read is recorded in ``gold_errors`` / ``pred_errors`` and the
others are read: a failed gold document is left out, a failed prediction
scores as empty.

>>> import json, tempfile, os
>>> d = tempfile.mkdtemp()
>>> with open(os.path.join(d, "gold.jsonl"), "w") as f:
...     _ = f.write('{"id": "a", "text": "cat"}\\n{"id": "b", "text": "dog"}\\n')
>>> with open(os.path.join(d, "pred.csv"), "w") as f:
...     _ = f.write("id,text\\na,cut\\nz,cow\\n")
>>> j = read_pair(os.path.join(d, "gold.jsonl"), os.path.join(d, "pred.csv"))
>>> j.ids, j.preds, j.missing, j.extra
(('a', 'b'), ('cut', ''), ('b',), ('z',))
"""

from __future__ import annotations

import os
from typing import BinaryIO, Optional, Union

from ek._files._documents import Document, read_document, resolve_text_level
from ek._files._levels import TEXT_LEVELS
from ek._files._errors import InputError
from ek._files._join import Joined, join
from ek._files._sides import Side, read_side

__all__ = ["TEXT_LEVELS", "Document", "InputError", "Joined", "Side", "join", "read_document", "read_pair", "read_side"]


def read_pair(
    gold: Union[str, os.PathLike],
    pred: Union[str, os.PathLike],
    *,
    id_field: Optional[str] = "id",
    gold_field: Optional[str] = None,
    pred_field: Optional[str] = None,
    slice_field: Optional[str] = None,
    text_level: Optional[str] = None,
    pick: str = "index",
    stdin: Optional[BinaryIO] = None,
    profile: Optional[str] = None,
    level: Optional[str] = None,
) -> Joined:
    """Read GOLD and PRED (see the module doc for sources and rules) and join them by id.

    Args:
        gold, pred: a path (file or folder) or ``"-"`` for standard input.
        id_field: the joining field; None numbers records in file order.
        gold_field, pred_field: the value fields (None: the default candidates).
        slice_field: the gold slice field (None: ``"slice"`` when present).
        text_level, pick, profile: how PAGE, ALTO and hOCR documents are read (see
            `read_document`); ``level`` is the deprecated name of ``text_level``.
        stdin: the binary stream ``"-"`` reads (default ``sys.stdin.buffer``).

    Raises:
        InputError: a side cannot be read; the message says which and why.
    """
    text_level = resolve_text_level(text_level, level, profile, "read_pair")
    options = dict(id_field=id_field, text_level=text_level, pick=pick, profile=profile, stdin=stdin)
    gold_side = read_side(gold, role="gold", value_field=gold_field, slice_field=slice_field, **options)
    pred_side = read_side(pred, role="pred", value_field=pred_field, slice_field=slice_field, **options)
    return join(gold_side, pred_side)
