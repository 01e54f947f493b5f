"""The options of ``ek evaluate``, ``compare`` and ``estimate``: declared once, checked once, errors saying the fix.

`Options` declares the flags the three commands share (its fields are the
flags, its docstring's field lists their --help) and gives what reading and
scoring need; `confidence_level`, `finite_bound`, `positive` and `OneOf`
check the values a user most often gets wrong (``--level region``, ``--max
nan``, ``--text-level lines``). They run for the command line and for
Python callers of `ek.tools.evaluate` alike, and speak in flags.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any

from ek._reading import MAX_FILE_MB, ReadOptions

WORDS = ("whitespace", "unicode")
"""How WER cuts words (``--words``): at whitespace (jiwer's way) or as Unicode words (UAX #29)."""


@dataclass(frozen=True)
class OneOf:
    """A check that a value is one of ``choices``; its ValueError names ``flag`` and the closest choice.

    The dispatcher lists the choices in --help, so the list checked and the
    list shown are one tuple (the one the readers check against).
    ``choices`` may be a function giving the tuple, called when first
    needed: ``ek cer`` then never imports the readers that hold the list.

    >>> OneOf("--words", WORDS)("unicod")
    Traceback (most recent call last):
    ValueError: --words must be one of whitespace, unicode, got 'unicod'; did you mean unicode?
    """

    flag: str
    source: tuple[str, ...] | Callable[[], tuple[str, ...]]

    @property
    def choices(self) -> tuple[str, ...]:
        """The values this check takes."""
        return self.source() if callable(self.source) else self.source

    def __call__(self, value: Any) -> str:
        if value in self.choices:
            return str(value)
        raise ValueError(
            f"{self.flag} must be one of {', '.join(self.choices)}, got {value!r}{did_you_mean(str(value), self.choices)}"
        )


def did_you_mean(word: str, known: Sequence[str]) -> str:
    """``"; did you mean X?"`` for the closest of ``known`` to ``word`` (difflib), or "" when none is close."""
    close = difflib.get_close_matches(word, list(known), n=1)
    return f"; did you mean {close[0]}?" if close else ""


def in_flags(exc: Exception, who: str, flags: Mapping[str, str]) -> ValueError:
    """A Python API's ValueError in the command line's words: without ``who()``, each parameter named by its flag.

    >>> in_flags(ValueError("plan_audit() budget must be positive, got 0."), "plan_audit", {"budget": "--budget"})
    ValueError('--budget must be positive, got 0.')
    """
    text = re.sub(rf"^{re.escape(who)}(\(\))?:?\s*", "", str(exc))
    # "min_prob" -> "--min-prob"; a key ending in "=" takes the value after it: "metric='cer'" -> "--metric 'cer'"
    for name, flag in flags.items():
        text = re.sub(rf"(?<![\w-]){re.escape(name)}(?![\w(])", _as_flag(flag), text)
    return ValueError(text)


def _as_flag(flag: str) -> Callable[[re.Match[str]], str]:
    """The replacement of a parameter by ``flag``, with a space when a value followed ``name=``."""

    def put(match: re.Match[str]) -> str:
        following = match.string[match.end() : match.end() + 1]
        spaced = match[0].endswith("=") and following not in ("", " ", ".", ",", ";", ")")
        return flag + (" " if spaced else "")

    return put


def positive(flag: str, unit: str) -> Any:
    """A check that a value is a number above 0 (``unit``: what it counts), named ``flag`` in its error."""

    def check(value: Any) -> float:
        number = _number(value)
        if number is None or not number > 0 or not math.isfinite(number):
            raise ValueError(f"{flag} must be a number of {unit} above 0, got {value}.")
        return number

    check.__name__ = f"positive_{unit}"
    return check


def at_least_one(flag: str) -> Any:
    """A check that a value is a whole number of 1 or more, named ``flag`` in its error."""

    def check(value: Any) -> int:
        number = _number(value)
        if number is None or number != int(number) or number < 1:
            raise ValueError(f"{flag} must be a whole number of 1 or more, got {value}.")
        return int(number)

    check.__name__ = "at_least_one"
    return check


def confidence_level(value: Any) -> float:
    """``--level`` as a number between 0 and 1; the ValueError says what ``--level`` is and points to ``--text-level``."""
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            levels = _text_levels()
            hint = value if value in levels else "|".join(levels)
            got = "" if value in levels else f", got {value!r}"
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


def _text_levels() -> tuple[str, ...]:
    from ek._files import TEXT_LEVELS  # the readers: imported by the commands that read files, when they run

    return TEXT_LEVELS


def _measures() -> tuple[str, ...]:
    from ek.ocr.files import DEFAULT_MEASURES

    return DEFAULT_MEASURES


def measure_list(value: Any) -> str:
    """``--measures`` as typed (``"cer,wer,fca"``), once every name in it is one of the OCR measures."""
    names = measure_names(str(value))
    if not names:
        raise ValueError(f"--measures needs at least one of {', '.join(_measures())}, separated by commas.")
    for name in names:
        OneOf("--measures", _measures)(name)
    return str(value)


def measure_names(measures: str | None) -> tuple[str, ...] | None:
    """``"cer, wer,fca"`` -> ``("cer", "wer", "fca")``; None without the flag."""
    if measures is None:
        return None
    return tuple(dict.fromkeys(s.strip() for s in measures.split(",") if s.strip()))


def _profiles() -> tuple[str, ...]:
    from ek._files import PROFILES

    return PROFILES


def _pred_formats() -> tuple[str, ...]:
    from ek._files import PRED_FORMATS

    return PRED_FORMATS


_TEXT_LEVEL = OneOf("--text-level", _text_levels)
_PROFILE = OneOf("--profile", _profiles)
_WORDS = OneOf("--words", WORDS)
_PRED_FORMAT = OneOf("--pred-format", _pred_formats)
_MAX_FILE_MB = positive("--max-file-mb", "megabytes")
_MAX_ALIGN_WORK = positive("--max-align-work", "units x edits")


@dataclass(frozen=True)
class Records:
    """How records are joined and which of their fields are scored (a group of flags).

    Records:
        id (FIELD): joins gold and predictions; "" numbers them by position
        gold_field (FIELD): gold's value field (default: reference, gold or text; else the record)
        pred_field (FIELD): the predictions' value field (default: prediction, pred or text)
        slice (FIELD): each item's slice field (default: slice, when gold has it)
    """

    id: str = "id"
    gold_field: str | None = None
    pred_field: str | None = None
    slice: str | None = None


@dataclass(frozen=True)
class Scoring:
    """How items are scored and bounded (a group of flags).

    Scoring:
        metric (NAME): the metric, e.g. wer (default: cer for text, fields for records)
        normalize (STEPS): normalisation steps, e.g. nfc,lower (default: nfc for documents)
        level: the confidence level of the intervals
        words (MODE): how WER cuts words (default: whitespace)
        measures (LIST): OCR measures of cer,wer,fca,bow (default: all; FCA to 20k chars a page)
        max_align_work (N): refuse a text that needs over N units x edits to align (default: 5e11)
    """

    metric: str | None = None
    normalize: str | None = None  # comma-separated steps, as typed: "nfc,lower"
    level: Annotated[float, confidence_level] = 0.95
    words: Annotated[str | None, _WORDS] = None
    measures: Annotated[str | None, measure_list] = None  # comma-separated, as typed: "cer,wer,fca"
    max_align_work: Annotated[float | None, _MAX_ALIGN_WORK] = None  # None: ek._align.MAX_WORK


@dataclass(frozen=True)
class Outputs:
    """Where the report is written (a group of flags).

    Outputs:
        json (PATH): write the report as JSON to PATH (- for standard output)
        html (PATH): write the report as a web page to PATH (- for standard output)
    """

    json: str | None = None
    html: str | None = None


@dataclass(frozen=True)
class Gates:
    """The bounds that fail a run (a group of flags).

    Gates:
        max (BOUND): exit 1 when the figure is above BOUND
        min (BOUND): exit 1 when the figure is below BOUND
    """

    max: float | None = None
    min: float | None = None


@dataclass(frozen=True)
class Documents:
    """How documents and folders are read (a group of flags; with ``Records``, the `ReadOptions`).

    Documents:
        text_level (LEVEL): text level (default: region, else line)
        profile (NAME): read and score as another tool does
        keep_going: score the other documents when one cannot be read, listing it
        gold_suffix (SUFFIX): the name ending of gold files in a folder, e.g. .gt.txt
        pred_suffix (SUFFIX): the name ending of prediction files, e.g. .some-ocr.txt
        pred_format (FORMAT): which of a page's outputs to read
        follow_symlinks: read links that point out of a folder (else skipped and listed)
        max_file_mb (MB): skip (and list) files over MB megabytes (default: 256)
    """

    text_level: Annotated[str | None, _TEXT_LEVEL] = None
    profile: Annotated[str | None, _PROFILE] = None
    keep_going: bool = False
    gold_suffix: str | None = None
    pred_suffix: str | None = None
    pred_format: Annotated[str | None, _PRED_FORMAT] = None
    follow_symlinks: bool = False
    max_file_mb: Annotated[float | None, _MAX_FILE_MB] = None  # None: ek._files.MAX_FILE_MB


@dataclass(frozen=True)
class Options(Documents, Gates, Outputs, Scoring, Records):
    """The options of ``ek evaluate``, ``ek compare`` and ``ek estimate``: each field is the flag of its name.

    The fields are those of the groups `Records`, `Scoring`, `Outputs`,
    `Gates` and `Documents`, in that order (a command may take a group
    alone: ``ek audit-plan`` takes `Records` and `Scoring`); their
    docstrings give each flag's --help, one group per heading. The command
    functions take one as a keyword-only parameter, and the dispatcher
    (`ek.cli._main`) makes one flag of each field (``gold_field`` is
    ``--gold-field``), the field's annotation deciding the flag's type
    (``Annotated[T, check]``: converted by ``check``). A field holds what
    the user typed (``normalize="nfc,lower"``, ``id=""``); `steps` and
    `reading` give the forms the readers and metrics take. ``normalize``
    None means: NFC for documents (set by `for_documents` when GOLD is a
    document or folder and no profile is given), nothing for records (the
    defaults of `ek.evaluate`).
    """

    def __post_init__(self) -> None:
        confidence_level(self.level)
        for check, value in (
            (_TEXT_LEVEL, self.text_level),
            (_PROFILE, self.profile),
            (_WORDS, self.words),
            (_PRED_FORMAT, self.pred_format),
        ):
            if value is not None:
                check(value)
        if self.max_file_mb is not None:
            _MAX_FILE_MB(self.max_file_mb)
        if self.max_align_work is not None:
            _MAX_ALIGN_WORK(self.max_align_work)
        if self.measures is not None:
            measure_list(self.measures)
        finite_bound("--max", self.max)
        finite_bound("--min", self.min)
        if self.profile is not None:
            from ek._files import resolve_text_level

            try:  # the readers' own check of the pair, in the words of the flags
                resolve_text_level(self.text_level, None, self.profile, "ek")
            except ValueError:
                raise ValueError(
                    f"--profile {self.profile} reads PAGE at region or line level only, not --text-level "
                    f"{self.text_level}; pass --text-level region or line, or leave out --profile."
                ) from None

    @property
    def steps(self) -> list[str] | None:
        """The ``--normalize`` steps as a list (``"nfc,lower"`` -> ``["nfc", "lower"]``), None without the flag."""
        return normalize_steps(self.normalize)

    def reading(self) -> ReadOptions:
        """How these options read GOLD and PRED (`ek._reading.ReadOptions`, its text level resolved; the value fields aside)."""
        from ek._files import resolved  # the readers: loaded by the commands that read files, when they run

        given = ReadOptions(
            id_field=self.id or None,
            slice_field=self.slice,
            text_level=self.text_level,
            profile=self.profile,
            gold_suffix=self.gold_suffix,
            pred_suffix=self.pred_suffix,
            pred_format=self.pred_format,
            follow_symlinks=self.follow_symlinks,
            max_file_mb=MAX_FILE_MB if self.max_file_mb is None else self.max_file_mb,
        )
        return resolved(given, None, "ek")

    def for_documents(self) -> Options:
        """These options for document inputs: NFC unless ``--normalize`` or ``--profile`` says otherwise."""
        if self.normalize is None and self.profile is None:
            return dataclasses.replace(self, normalize="nfc")
        return self


def grouped(records: Records, scoring: Scoring) -> Options:
    """The `Options` of a command that takes the record and scoring flags alone: the others at their defaults.

    Each group gives only its own fields (a whole `Options` may stand for one group).
    """
    given = [(Records, records), (Scoring, scoring)]
    return Options(**{f.name: getattr(value, f.name) for group, value in given for f in dataclasses.fields(group)})


def normalize_steps(normalize: str | None) -> list[str] | None:
    """``"nfc,lower"`` on the command line -> ``["nfc", "lower"]``."""
    if normalize is None:
        return None
    return [s.strip() for s in normalize.split(",") if s.strip()]


def _number(value: Any) -> float | None:
    """``value`` as a number (text is parsed), or None when it is none."""
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)
