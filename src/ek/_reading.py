"""How GOLD and PRED files are read, as one value: `ReadOptions`, declared once for every reader.

A stdlib-only module below `ek._files`, so the command line's options can
name the type without loading the readers.

`ek._files.read_side` / `read_pair`, `ek.ocr.evaluate_files`,
`ek.ocr.evaluate_workspace` and the command line (``Options.reading``) take
it; the Python functions also take its fields as keywords, which build it
(`read_options_of`; both at once is refused). The internal readers take the
value itself, never a bag of keywords.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

__all__ = ["MAX_FILE_MB", "READ_KEYWORDS", "ReadOptions", "read_options_of"]

MAX_FILE_MB = 256
"""The default bound on the size of one input file, in megabytes (``--max-file-mb``)."""


@dataclasses.dataclass(frozen=True)
class ReadOptions:
    """How files are read: ``read=ReadOptions(text_level="line", pred_format="hocr")``.

    ``id_field`` joins the records (None numbers them), ``slice_field`` is
    gold's slice field (None: ``"slice"`` when present); ``text_level``,
    ``pick`` and ``profile`` say how a PAGE, ALTO or hOCR document is read
    (`ek.ocr.formats.read_document`); ``gold_suffix``, ``pred_suffix`` and
    ``pred_format`` which files of a folder are GOLD and PRED; links out of
    a folder are read with ``follow_symlinks``; no file over ``max_file_mb``
    megabytes is read.

    >>> ReadOptions(text_level="line").pick
    'index'
    """

    id_field: str | None = "id"
    slice_field: str | None = None
    text_level: str | None = None
    pick: str = "index"
    profile: str | None = None
    gold_suffix: str | None = None
    pred_suffix: str | None = None
    pred_format: str | None = None
    follow_symlinks: bool = False
    max_file_mb: float = MAX_FILE_MB


READ_KEYWORDS: dict[str, Any] = {f.name: f.default for f in dataclasses.fields(ReadOptions)}
"""The fields of `ReadOptions` with their defaults: the reading keywords a public reader may take."""


def read_options_of(who: str, given: Mapping[str, Any]) -> ReadOptions:
    """The reading options of a ``who()`` call, from its arguments ``given`` (its ``locals()``).

    They are ``given["read"]`` when that is a `ReadOptions`, else the reading
    keywords among ``given``; a call that passes both ways is refused, naming
    the keywords, so no option is silently overridden.
    """
    keywords = {name: given[name] for name in READ_KEYWORDS if name in given}
    chosen = given.get("read")
    if chosen is None:
        return ReadOptions(**keywords)
    if not isinstance(chosen, ReadOptions):
        raise TypeError(
            f"{who}() read must be an ek.ocr.ReadOptions, got {type(chosen).__name__}; "
            'e.g. read=ReadOptions(text_level="line").'
        )
    also = [name for name, value in keywords.items() if value != READ_KEYWORDS[name]]
    if also:
        raise ValueError(
            f"{who}() got read= and {', '.join(f'{n}=' for n in also)} too; pass the reading options "
            "one way: as keywords, or as fields of the ReadOptions."
        )
    return chosen
