"""The options of ``ek evaluate``, ``compare`` and ``estimate``: declared once, checked once, errors saying the fix.

`Options` declares the flags the three commands share (its fields are the
flags) and gives what reading and scoring need; `confidence_level` and
`finite_bound` check the two numbers a user most often gets wrong
(``--level region``, ``--max nan``). They run for the command line and for
Python callers of `ek.tools.evaluate` alike.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Annotated, Any, TypedDict

WORDS = ("whitespace", "unicode")
"""How WER cuts words (``--words``): at whitespace (jiwer's way) or as Unicode words (UAX #29)."""

_TEXT_LEVELS = ("region", "line", "word", "glyph")  # as ek._files reads them; named in the --level hint


class Reading(TypedDict, total=False):
    """The keyword arguments of `ek._files.read_side` the options give (the role and value field aside)."""

    id_field: str | None
    slice_field: str | None
    text_level: str | None
    profile: str | None
    gold_suffix: str | None
    pred_suffix: str | None
    pred_format: str | None
    follow_symlinks: bool
    max_file_mb: float  # only when given: read_side's default otherwise


@dataclass(frozen=True)
class Options:
    """The options of ``ek evaluate``, ``ek compare`` and ``ek estimate``: each field is the flag of its name.

    The command functions take one as a keyword-only parameter, and the
    dispatcher (`ek.cli._main`) makes one flag of each field, in this order
    (``gold_field`` is ``--gold-field``), the field's annotation deciding
    the flag's type (``Annotated[T, check]``: converted by ``check``).
    A field holds what the user typed (``normalize="nfc,lower"``,
    ``id=""``); `steps` and `reading` give the forms the readers and
    metrics take. ``normalize`` None means: NFC for documents (set by
    `for_documents` when GOLD is a document or folder and no profile is
    given), nothing for records (the defaults of `ek.evaluate`).
    """

    id: str = "id"  # "" numbers the records by position
    gold_field: str | None = None
    pred_field: str | None = None
    slice: str | None = None
    metric: str | None = None
    normalize: str | None = None  # comma-separated steps, as typed: "nfc,lower"
    level: Annotated[float, confidence_level] = 0.95
    json: str | None = None
    html: str | None = None
    max: float | None = None
    min: float | None = None
    text_level: str | None = None
    profile: str | None = None
    words: str | None = None
    keep_going: bool = False
    gold_suffix: str | None = None
    pred_suffix: str | None = None
    pred_format: str | None = None
    follow_symlinks: bool = False
    max_file_mb: float | None = None  # None: ek._files.MAX_FILE_MB (256)

    def __post_init__(self) -> None:
        confidence_level(self.level)
        if self.words not in (None, *WORDS):
            raise ValueError(f"--words must be one of {', '.join(WORDS)} (how WER cuts words), got {self.words!r}.")
        finite_bound("--max", self.max)
        finite_bound("--min", self.min)

    @property
    def steps(self) -> list[str] | None:
        """The ``--normalize`` steps as a list (``"nfc,lower"`` -> ``["nfc", "lower"]``), None without the flag."""
        return normalize_steps(self.normalize)

    def reading(self) -> Reading:
        """The keyword arguments of `ek._files.read_side` these options give (the value field aside)."""
        options: Reading = {
            "id_field": self.id or None,
            "slice_field": self.slice,
            "text_level": self.text_level,
            "profile": self.profile,
            "gold_suffix": self.gold_suffix,
            "pred_suffix": self.pred_suffix,
            "pred_format": self.pred_format,
            "follow_symlinks": self.follow_symlinks,
        }
        return options if self.max_file_mb is None else {**options, "max_file_mb": self.max_file_mb}

    def for_documents(self) -> Options:
        """These options for document inputs: NFC unless ``--normalize`` or ``--profile`` says otherwise."""
        if self.normalize is None and self.profile is None:
            return dataclasses.replace(self, normalize="nfc")
        return self


def normalize_steps(normalize: str | None) -> list[str] | None:
    """``"nfc,lower"`` on the command line -> ``["nfc", "lower"]``."""
    if normalize is None:
        return None
    return [s.strip() for s in normalize.split(",") if s.strip()]


def confidence_level(value: Any) -> float:
    """``--level`` as a number between 0 and 1; the ValueError says what ``--level`` is and points to ``--text-level``."""
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            hint = value if value in _TEXT_LEVELS else "|".join(_TEXT_LEVELS)
            got = "" if value in _TEXT_LEVELS else f", got {value!r}"
            raise ValueError(
                f"--level is the confidence level (e.g. 0.95){got}; for which text of a PAGE/ALTO/hOCR "
                f"file to read use --text-level {hint}"
            ) from None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
        raise ValueError(f"--level must be between 0 and 1 (e.g. 0.95 for a 95% interval), got {value}.")
    return float(value)


def finite_bound(option: str, value: float | None) -> float | None:
    """``value`` of ``--max`` / ``--min`` (None: no bound); ValueError for NaN and infinities, which no figure can fail."""
    if value is not None and not (isinstance(value, (int, float)) and math.isfinite(value)):
        raise ValueError(f"{option} must be a finite number (the bound of the gate), got {value}; e.g. {option} 0.05.")
    return value
