"""The input layer of ``ek evaluate``: read GOLD and PRED from files and join them by id.

API (everything a command needs; errors are `InputError`, a ValueError
whose one-line message names the file, the place and the fix):

* ``read_pair(gold, pred, **options) -> Joined``: both sides read and joined.
* ``read_side(source, role="gold"|"pred", **options) -> Side`` and
  ``join(gold_side, pred_side) -> Joined``, for reading GOLD once and
  joining it with several predictions (``ek compare``).
* ``read_document(source, ...) -> Document``: one PAGE-XML, ALTO, hOCR,
  ABBYY FineReader or plain-text document (public as `ek.ocr.formats`);
  the formats are the rows of one table (`ek._files._formats`).
* ``read_workspace(path) -> Workspace`` and ``group_side(workspace, group,
  role=...) -> Side``: an OCR-D workspace's file groups as sides whose ids
  are its page ids (`ek._files._mets`), joined as any two sides are.

**Sources.** A side is a ``.jsonl`` file (one object per line), a ``.json``
file (an array of records, or an object mapping id -> record or -> value),
a ``.csv`` or ``.tsv`` file with a header row, a single document (``.txt``,
``.xml``, ``.html``, ``.hocr``: PAGE, ALTO, hOCR, ABBYY FineReader or plain
text, told by content), a folder of documents, or ``-`` for standard input (format told by
content: ``<`` a document, ``[`` JSON, ``{`` JSONL when the first line is a
whole JSON value and JSON otherwise, then TSV or CSV by the header's
delimiter). A file with another extension is read by content when it starts
like JSON or XML, and refused otherwise. Text must be UTF-8.

**Ids.** ``id_field`` (default ``"id"``) names the joining field; ids are
compared as strings (an integer id 7 is "7"). Every record must have one:
a record without it is an error, never a silent position. Pass
``id_field=None`` to number records instead ("1", "2", ... in file order).
A JSON object mapping gives ids by key. Two single documents pair with
each other whatever their names.

**Values.** ``gold_field`` / ``pred_field`` name the value; by default the
first of ``reference``, ``gold``, ``text`` (gold) or ``prediction``,
``pred``, ``text`` (pred) present in the side's first record, which every
record must then have. With none of them the whole record, minus the id
and slice fields, is the value (field metrics score it). A document's value
is its text. ``slice_field`` (default ``"slice"`` when a gold record has
it) gives slices; they are read from gold only.

**Folders.** A folder side is read recursively (`ek._files._pairing` has
the rules in full):

* Its documents are the ``.txt``, ``.xml``, ``.html``, ``.htm`` and
  ``.hocr`` files, and the files whose names end with ``gold_suffix`` /
  ``pred_suffix``. Hidden files and folders are passed over.
* GOLD is, with ``gold_suffix``, the files ending with it; else every
  document, whatever its kind (``x.gt.txt`` beside ``kant_0017.xml``: both
  are gold), but for those named as predictions of a ``NAME.gt.EXT`` (or
  ``gt.EXT``) file: ``NAME.ENGINE.EXT``, and ``NAME.EXT``, which is a
  second GOLD file for ``NAME`` (an error naming both) unless PRED is the
  same folder. PRED is, with ``pred_suffix``, the files ending with it;
  else every document not named as gold. So one folder can hold both sides
  (pass it as GOLD and PRED): ``NAME.gt.txt`` beside ``NAME.txt`` or
  ``NAME.ENGINE.txt`` (the tesstrain and OCR-D line layout), ``NAME_PAGE.xml``
  beside ``NAME_ALTO.xml`` with ``gold_suffix="_PAGE.xml",
  pred_suffix="_ALTO.xml"``.
* A file's id is its path below the folder without the suffix or extension
  (``sub/NAME``); a document named as its folder (``p1/p1.gt.txt``), or
  ``gt.EXT`` in a folder, has the folder's id (``p1``). A PRED file whose
  id is no GOLD id pairs with ``NAME`` when named ``NAME.ENGINE.EXT``, else
  with the one document of its own folder (one subfolder per document).
* A folder holding ``gt/`` (or ``GT/``) and ``ocr/`` (or ``pred/``) and no
  document of its own stands for its ``gt/`` as GOLD and ``ocr/`` as PRED.
* When one folder is both GOLD and PRED and names its gold files
  ``NAME.gt.EXT``, a document named for no gold file is a prediction
  without gold (listed in ``extra``), never a gold document paired with
  itself.
* Refused, with a message that says how to pair: two GOLD files with one
  id (``a.gt.txt`` and ``a.xml``); several PRED files for one document (Tesseract's ``.txt``, ``.hocr``
  and ``.xml`` of a page: ``pred_format="text"|"hocr"|"alto"|"page"|"abbyy"``
  reads only that format and lists the others as skipped; two engines'
  outputs: name one with ``pred_suffix``); and sides that share no id.
* Only regular files are read, each up to ``max_file_mb`` megabytes
  (default 256; a larger file fails to read). FIFOs, devices, sockets,
  broken links and links that leave the folder are not read but listed in
  ``skipped`` with the reason (``follow_symlinks=True`` follows links out
  of the folder). See `ek._files._folders`.
* A document that fails to read (not UTF-8, malformed, too large, or a
  GOLD one without text) is recorded in ``gold_errors`` / ``pred_errors``
  and in ``failures`` with its path, and the others are read: a failed
  gold document is left out, a failed prediction scores as empty here
  (``ek evaluate`` refuses both unless ``--keep-going``, which leaves them
  out; `leave_out` drops cases). A prediction read with no text (a
  0-byte file) is scored as all deletions and listed in ``empty``; an empty
  GOLD document fails to read ("has no text").

**Joining.** Cases come in gold order. A gold id without a prediction is
listed in ``missing`` and compared with an empty prediction; a prediction
without a gold id is listed in ``extra`` and ignored; a PRED side none of
whose ids is a GOLD id is an error (nothing paired).

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
from typing import TYPE_CHECKING, Any, BinaryIO

from ek._files._documents import PROFILES, Document, read_document, resolve_text_level
from ek._files._errors import InputError
from ek._files._folders import Skipped
from ek._files._join import Failure, Joined, join, leave_out, refuse_failures, unread
from ek._files._levels import TEXT_LEVELS
from ek._files._pairing import PRED_FORMATS
from ek._files._sides import Side, read_side, read_source, resolved
from ek._reading import MAX_FILE_MB, READ_KEYWORDS, ReadOptions, read_options_of

if TYPE_CHECKING:  # at run time __getattr__ loads them: the METS reader brings XML and URL parsing
    from ek._files._mets import (
        Workspace,
        group_names,
        group_side,
        mets_path,
        no_group,
        processor_of,
        read_workspace,
    )

_METS = ("Workspace", "group_names", "group_side", "mets_path", "no_group", "processor_of", "read_workspace")

__all__ = [
    "MAX_FILE_MB",
    "PRED_FORMATS",
    "PROFILES",
    "READ_KEYWORDS",
    "TEXT_LEVELS",
    "Document",
    "Failure",
    "InputError",
    "Joined",
    "ReadOptions",
    "Side",
    "Skipped",
    "Workspace",
    "group_names",
    "group_side",
    "join",
    "leave_out",
    "mets_path",
    "no_group",
    "processor_of",
    "read_document",
    "read_options_of",
    "read_pair",
    "read_side",
    "read_source",
    "read_workspace",
    "refuse_failures",
    "resolve_text_level",
    "resolved",
    "unread",
]


def read_pair(
    gold: str | os.PathLike[str],
    pred: str | os.PathLike[str],
    *,
    id_field: str | None = "id",
    gold_field: str | None = None,
    pred_field: str | None = None,
    slice_field: str | None = None,
    text_level: str | None = None,
    pick: str = "index",
    profile: str | None = None,
    gold_suffix: str | None = None,
    pred_suffix: str | None = None,
    pred_format: str | None = None,
    follow_symlinks: bool = False,
    max_file_mb: float = MAX_FILE_MB,
    stdin: BinaryIO | None = None,
    level: str | None = None,
    read: ReadOptions | None = None,
) -> Joined:
    """Read GOLD and PRED (see the module doc for sources and rules) and join them by id.

    Args:
        gold, pred: a path (file or folder) or ``"-"`` for standard input.
        id_field: the joining field; None numbers records in file order.
        gold_field, pred_field: the value fields (None: the default candidates).
        slice_field: the gold slice field (None: ``"slice"`` when present).
        text_level, pick, profile: how PAGE, ALTO and hOCR documents are read
            (see `read_document`; None keeps its default); ``level`` is the
            deprecated name of ``text_level``.
        gold_suffix, pred_suffix, pred_format: which files of a folder are
            GOLD and PRED, and how they pair (see "Folders" above).
        follow_symlinks: read links that leave a folder.
        max_file_mb: the largest file read, in megabytes.
        stdin: the binary stream ``"-"`` reads (default ``sys.stdin.buffer``).
        read: the reading options (``id_field`` to ``max_file_mb``) as one
            `ReadOptions` value instead of keywords (passing both is refused).

    Raises:
        InputError: a side cannot be read, or nothing pairs; the message says which and why.
    """
    options = resolved(read_options_of("read_pair", locals()), level, "read_pair")
    gold_side = read_source(gold, "gold", options, value_field=gold_field, stdin=stdin)
    pred_side = read_source(pred, "pred", options, value_field=pred_field, stdin=stdin)
    return join(gold_side, pred_side)


def __getattr__(name: str) -> Any:
    """The OCR-D workspace names (`ek._files._mets`), imported at their first use."""
    if name in _METS:
        from ek._files import _mets

        return getattr(_mets, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
