"""Read one OCR document (PAGE-XML, ALTO, hOCR, ABBYY FineReader or plain text), told apart by its content.

`read_document` returns a `Document`: the lines in reading order, the
words, the line and word confidences the file carries, the text level read
and the regions read at another. The format comes from the bytes, not the
file name, by the table of formats (`ek._files._formats.identify`): a
leading ``<`` with an ``<html`` or hOCR class is hOCR (`ek._files._hocr`);
other XML is PAGE (root ``PcGts``, `ek._files._page`), ALTO (root ``alto``,
`ek._files._alto`) or ABBYY FineReader (root ``document``,
`ek._files._abbyy`) by its root element, parsed by `ek._files._xml`, which
declares and expands no entity; anything else is plain UTF-8 text. How the
text level is chosen: `ek._files._levels`.

**Joining (every format).** A document's text is its lines, each stripped
of whitespace at both ends, blank lines dropped, joined by one ``"\\n"``.
So ``"a\\nb\\n"``, ``"a\\n\\nb\\n"``, ``"  a\\r\\nb"`` and a PAGE file with the lines
``a`` and ``b`` all read as ``"a\\nb"``: a trailing newline, blank lines
between paragraphs and indentation are layout, not text, and count as
errors on neither side. Plain text splits into lines where `str.splitlines`
does (``\\n``, ``\\r\\n``, ``\\r``, form feed, ...).

``profile="dinglehopper"`` reads as dinglehopper 0.11 does instead
(`ek._files._dinglehopper`): PAGE at region level unless ``text_level`` is
``"line"``, and its own joining (blank lines of plain text kept); hOCR and
ABBYY FineReader, which dinglehopper does not read, by ek's rules.
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass

from ek._files._errors import InputError
from ek._files._formats import DocumentFormat, Reader, identify
from ek._files._levels import TEXT_LEVELS, Reading, Source

PICKS = ("index", "conf")
PROFILES = ("dinglehopper",)


@dataclass(frozen=True)
class Document:
    """The text of one OCR document in reading order, with its units and their confidences.

    ``lines`` and ``words`` are in reading order; ``line_confidences`` and
    ``word_confidences`` run parallel to them, in [0, 1], with None where the
    file gives none (hOCR ``x_wconf`` is divided by 100). ``format`` is the
    name of its row in `ek._files._formats` (``"text"``, ``"hocr"``,
    ``"alto"``, ``"page"`` or ``"abbyy"``); ``schema`` names the version its
    XML namespace gives (``"2019-07-15"``, ``"v4"``, ``"10v1"``), else "".
    ``text_level`` is the level the text was read at (one of `TEXT_LEVELS`;
    "" for plain text and for a document with no text), ``fallbacks``
    lists ``(region id, level)`` for each region read at another level, and
    ``level_disagreements`` ``(region id, level read, other level, CER)`` for
    each PAGE region whose text at another level differs (see
    `ek._files._levels`).
    """

    lines: tuple[str, ...]
    words: tuple[str, ...]
    line_confidences: tuple[float | None, ...]
    word_confidences: tuple[float | None, ...]
    format: str = "text"
    schema: str = ""
    text_level: str = ""
    fallbacks: tuple[tuple[str, str], ...] = ()
    level_disagreements: tuple[tuple[str, str, str, float], ...] = ()

    def __post_init__(self) -> None:
        for units, confs in (("lines", "line_confidences"), ("words", "word_confidences")):
            object.__setattr__(self, units, tuple(getattr(self, units)))
            object.__setattr__(self, confs, tuple(getattr(self, confs)))
            if len(getattr(self, confs)) != len(getattr(self, units)):
                raise ValueError(
                    f"Document has {len(getattr(self, units))} {units} but {len(getattr(self, confs))} "
                    f"{confs}; give one confidence (or None) per unit."
                )
        object.__setattr__(self, "fallbacks", tuple(map(tuple, self.fallbacks)))
        object.__setattr__(self, "level_disagreements", tuple(map(tuple, self.level_disagreements)))
        if self.text_level not in TEXT_LEVELS + ("",):
            raise ValueError(
                f"Document.text_level must be one of {', '.join(map(repr, TEXT_LEVELS))} or '' "
                f"(plain text), got {self.text_level!r}."
            )

    @property
    def text(self) -> str:
        """The lines joined by newlines."""
        return "\n".join(self.lines)


def read_document(
    source: str | os.PathLike[str] | bytes,
    *,
    text_level: str | None = None,
    pick: str = "index",
    allow_empty: bool = False,
    name: str | None = None,
    profile: str | None = None,
    level: str | None = None,
) -> Document:
    """Read a PAGE-XML, ALTO, hOCR, ABBYY FineReader or plain-text document (format told by content).

    Args:
        source: a path, or the file's bytes.
        text_level: which level's text a PAGE, ALTO, hOCR or ABBYY file gives:
            ``"region"``, ``"line"``, ``"word"`` (words joined by spaces) or
            ``"glyph"`` (glyphs joined into words). None: each PAGE region's
            own text, else the coarsest level below it that it has; ALTO,
            hOCR and ABBYY at line level (see `ek._files._levels`). A region without
            the level read falls back to its nearest and is listed in
            ``Document.fallbacks``; a PAGE region whose levels differ is
            listed in ``Document.level_disagreements``.
        pick: for PAGE, which ``TextEquiv`` of several: ``"index"`` (the lowest
            ``@index``, else the first) or ``"conf"`` (the highest ``@conf``).
        allow_empty: accept a document with no text (an engine's blank page);
            otherwise it is an error.
        name: how messages name the source (default: the path, or "<bytes>").
        profile: None for ek's rules, ``"dinglehopper"`` for the text
            dinglehopper 0.11 extracts (see the module doc).
        level: the former name of ``text_level``; deprecated.

    Raises:
        InputError (a ValueError): unreadable, malformed, of an unknown schema,
            not UTF-8, or without text; the message names the file and the fix.
    """
    text_level = resolve_text_level(text_level, level, profile, "read_document")
    if pick not in PICKS:
        raise ValueError(f"pick must be 'index' (lowest @index) or 'conf' (highest @conf), got {pick!r}.")
    if profile is not None and pick != "index":
        raise ValueError(
            f"profile={profile!r} picks TextEquivs as dinglehopper does (lowest @index, else highest "
            f"@conf), so pick={pick!r} contradicts it; leave pick at 'index' or drop the profile."
        )
    data, label = _load(source, name)
    fmt, found, schema = identify(data, label)
    reading = _reader(fmt, profile)(found, text_level, pick)
    doc = _build(fmt.name, schema, reading)
    if not allow_empty and not any(line.strip() for line in doc.lines):
        raise InputError(f"{label} has no text ({doc.format}){_elsewhere(found, fmt, text_level, profile)}.")
    return doc


def resolve_text_level(
    text_level: str | None, level: str | None, profile: str | None, caller: str, stacklevel: int = 3
) -> str | None:
    """``text_level`` checked, with the deprecated ``level=`` folded in (warning ``caller``'s caller)."""
    if level is not None:
        warnings.warn(
            f"{caller}(level=...) is deprecated and will be removed in the next release: use text_level=... "
            "(level means the confidence level elsewhere in ek).",
            DeprecationWarning,
            stacklevel=stacklevel,
        )
        if text_level is not None and text_level != level:
            raise ValueError(
                f"{caller}() got text_level={text_level!r} and the deprecated level={level!r}; pass text_level only."
            )
        text_level = level
    if text_level is not None and text_level not in TEXT_LEVELS:
        raise ValueError(
            f"text_level must be one of {', '.join(map(repr, TEXT_LEVELS))} (or None for each "
            f"region's own text, else the coarsest level below it), got {text_level!r}."
        )
    if profile is not None and profile not in PROFILES:
        raise ValueError(
            f"profile must be None (ek's rules) or one of {', '.join(map(repr, PROFILES))}, got {profile!r}."
        )
    if profile == "dinglehopper" and text_level not in (None,) + _dinglehopper_levels():
        raise ValueError(
            f"profile='dinglehopper' reads PAGE at region or line level (its --textequiv-level), "
            f"got text_level={text_level!r}; pass text_level='region' or 'line', or no profile."
        )
    return text_level


# ---------------------------------------------------------------------------


def _dinglehopper_levels() -> tuple[str, ...]:
    from ek._files import _dinglehopper  # with the document readers, at the first document

    return _dinglehopper.PAGE_LEVELS


def _load(source: str | os.PathLike[str] | bytes, name: str | None) -> tuple[bytes, str]:
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


def _reader(fmt: DocumentFormat, profile: str | None) -> Reader:
    """The format's reader under ``profile``: its dinglehopper reader when it has one, else ek's."""
    if profile == "dinglehopper" and fmt.dinglehopper is not None:
        return fmt.dinglehopper
    return fmt.read


def _elsewhere(source: Source, fmt: DocumentFormat, text_level: str | None, profile: str | None) -> str:
    """What to do about a document without text: under the dinglehopper profile, the PAGE level that has some."""
    if profile == "dinglehopper" and fmt.name == "page":
        asked = text_level or "region"
        other = "line" if asked == "region" else "region"
        from ek._files import _dinglehopper

        found = _dinglehopper.page(source, other, "index")
        if any(text.strip() for text, _, _ in found.lines):
            return (
                f" at {asked} level, where the dinglehopper profile reads it (as dinglehopper does); it has "
                f"text at {other} level: read that with --text-level {other} (text_level={other!r})"
            )
    return "; transcribe it or leave the file out"


def _build(fmt: str, schema: str, reading: Reading) -> Document:
    """A Document from a reading; ek's joining unless the reading is verbatim; words split when not given."""
    lines: list[str] = []
    words: list[str] = []
    line_confs: list[float | None] = []
    word_confs: list[float | None] = []
    for text, conf, line_words in reading.lines:
        parts = [text] if reading.verbatim else [p.strip() for p in text.splitlines() if p.strip()]
        for part in parts:
            lines.append(part)
            line_confs.append(conf)
            if line_words is None or len(parts) > 1:
                split = part.split()
                words.extend(split)
                word_confs.extend([None] * len(split))
                continue
            for word, word_conf in line_words:
                if word.strip():
                    words.append(word.strip())
                    word_confs.append(word_conf)
    return Document(
        lines=tuple(lines),
        words=tuple(words),
        line_confidences=tuple(line_confs),
        word_confidences=tuple(word_confs),
        format=fmt,
        schema=schema,
        text_level=reading.text_level,
        fallbacks=reading.fallbacks,
        level_disagreements=reading.disagreements,
    )
