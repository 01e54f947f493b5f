"""The settings of an OCR file evaluation: profile, normalisation, CER unit, word cut, and the metrics they give.

`resolve` checks the options of `ek.ocr.evaluate_files` once and returns a
`Settings`; under ``profile="dinglehopper"`` it fixes them to dinglehopper's
(an option set to something else is an error naming both). The defaults are
`Default` strings, so an option left alone can be told from one passed.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ek.canonicalize import Canonicalizer
from ek.metrics.reading_order import BagOfWordsMetric, FlexibleCharacterMetric
from ek.metrics.strings import StringMetric
from ek.registry import get

PROFILES = ("dinglehopper",)
SEGMENTS = ("codepoint", "grapheme")
WORDS = ("whitespace", "unicode")
PRIVATE_USE = re.compile("[\ue000-\uf8ff\U000f0000-\U000ffffd\U00100000-\U0010fffd]")
"""Private-use code points: the BMP area and planes 15 and 16."""


class Default(str):
    """A default option value: equal to its string, but known not to have been passed."""

    __slots__ = ()


NFC = Default("nfc")
CODEPOINT = Default("codepoint")
WHITESPACE = Default("whitespace")

# dinglehopper 0.11: its normalisation, grapheme clusters with the text's edge whitespace, Unicode words.
_PROFILE_NORMALIZE = ("dinglehopper",)
_PROFILE_VALUES = {"normalize": "'dinglehopper'", "segment": "'grapheme'", "words": "'unicode'"}


@dataclass(frozen=True)
class Settings:
    """Resolved options: ``normalize`` as given to `ek.canonicalize.resolve_canonicalizer`."""

    profile: str | None
    normalize: Any
    segment: str
    words: str

    def metric(self, name: str, *, headline: bool = False) -> str | Any:
        """The metric for ``name`` under these settings (a metric object, or a registered name)."""
        if name in ("cer", "cer_grapheme"):
            segment = "grapheme" if name == "cer_grapheme" else self.segment
            return StringMetric("cer", segment=segment, strip=self.profile is None)
        if headline and self.segment == "grapheme" and self.profile is None:
            raise ValueError(
                f"segment must be 'codepoint' or 'grapheme' (for metric 'cer'), got segment={self.segment!r} "
                f"with metric={name!r}; grapheme clusters change only character error rates."
            )
        if name in ("wer", "wer_unicode"):
            return StringMetric("wer", words="unicode" if name == "wer_unicode" else self.words)
        if name == "bow":
            return BagOfWordsMetric(words=self.words)
        if name == "fca":  # built here like the others, so a measure costs no second registry lookup
            return FlexibleCharacterMetric()
        return name

    def detail(self, canon: Callable[[str], str] | None) -> dict[str, Any]:
        """The report keys that record these settings."""
        if canon is None:
            version = None
        elif isinstance(canon, Canonicalizer):
            version = canon.version
        else:
            version = getattr(canon, "__name__", type(canon).__name__)
        return {"profile": self.profile, "normalize": version, "segment": self.segment, "words": self.words}


def resolve(profile: str | None, normalize: Any, segment: str | None, words: str | None) -> Settings:
    """The settings of one evaluation (see the module doc); ValueError for a bad or contradicting option."""
    segment = CODEPOINT if segment is None else segment
    words = WHITESPACE if words is None else words
    for option, value, allowed in (("segment", segment, SEGMENTS), ("words", words, WORDS)):
        if value not in allowed:
            raise ValueError(f"{option} must be one of {', '.join(map(repr, allowed))}, got {value!r}.")
    if profile is None:
        return Settings(None, str(normalize) if isinstance(normalize, Default) else normalize, str(segment), str(words))
    if profile not in PROFILES:
        raise ValueError(
            f"profile must be None (ek's rules) or one of {', '.join(map(repr, PROFILES))}, got {profile!r}."
        )
    given = {"normalize": normalize, "segment": segment, "words": words}
    fits = {
        "normalize": isinstance(normalize, Default)
        or normalize in ("nfc", "dinglehopper", list(_PROFILE_NORMALIZE), _PROFILE_NORMALIZE),
        "segment": isinstance(segment, Default) or segment == "grapheme",
        "words": isinstance(words, Default) or words == "unicode",
    }
    for option, ok in fits.items():
        if not ok:
            raise ValueError(
                f"profile={profile!r} sets {option}={_PROFILE_VALUES[option]}, but {option}={given[option]!r} was "
                f"passed; drop {option}= to get the profile's figures, or drop profile= to use your own settings."
            )
    return Settings(profile, list(_PROFILE_NORMALIZE), "grapheme", "unicode")


def text_level(text_level: str | None, level: str | None) -> str | None:
    """``text_level``, or the deprecated ``level=`` (with a DeprecationWarning)."""
    if level is None:
        return text_level
    warnings.warn(
        "evaluate_files(level=...) is deprecated and will be removed in the next release; use text_level= "
        "(level means the confidence level elsewhere in ek).",
        DeprecationWarning,
        stacklevel=3,
    )
    if text_level is not None and text_level != level:
        raise ValueError(
            f"text_level={text_level!r} and its deprecated alias level={level!r} disagree; pass text_level= only."
        )
    return level


def maps_mufi(ch: str) -> bool:
    """Whether the ``"mufi"`` normalizer maps the character ``ch``."""
    return bool(get("normalizers", "mufi")(ch) != ch)
