"""Words by Unicode word boundaries (UAX #29), the way dinglehopper cuts them for its WER.

`unicode_words` returns the segments between default word boundaries
(Unicode Standard Annex #29, rules WB1-WB999) that hold at least one
character outside the categories M, P, Z, S, Cc and Cf: the words that
dinglehopper 0.11 counts (its ``words``), so ``"can’t stop."`` has the two
words ``can’t`` and ``stop``, ``"3,14 m"`` the words ``3,14`` and ``m``.
`segments` returns every segment, spaces and punctuation included.

**Why not uniseg or regex's ``\\b``.** dinglehopper runs uniseg, a pure
Python implementation of the rules (0.64 s for 59,000 characters). The
``regex`` package's ``WORD`` boundaries are fast but not the standard's: a
lone regional indicator glues to the letter after it, and an extending mark
at the start of a text glues to the character after it. So this module
implements the rules itself, in C-speed passes over the text: every
character is mapped to a one-letter code of its ``Word_Break`` property
(from the ``regex`` package's Unicode data, looked up once per distinct
character), two substitutions apply rules WB3c and WB4 to the codes, and
one regular expression (the standard library's) matches whole segments,
one alternative per rule. Linear in the text: 0.03 s for 59,000
characters.

**Private-use characters** (U+E000-U+F8FF) have ``Word_Break=Other`` here,
so each is a segment of its own (``"a\\uf502b"`` is three words). That is
what dinglehopper 0.11 computes with uniseg 0.10.1: its ``patch_word_break``
means to treat them as letters, but uniseg 0.10 binds the property function
as a default argument of ``words``, so the patch never reaches the
segmentation (dinglehopper's own ``test_words_private_use_area`` fails with
uniseg 0.10.1). Its normalisation maps the MUFI characters of its tables to
letters before words are cut, so this matters only for unmapped ones.

**Unicode versions.** The boundary properties come from the ``regex``
package (Unicode 17.0 in regex 2026.5), the categories from Python's
`unicodedata` (as dinglehopper's filter does); uniseg 0.10, which
dinglehopper runs, carries Unicode 16.0. Checked over every character
assigned in Python 3.11's Unicode 14.0, the two differ in one property
value, U+00B8 CEDILLA (ALetter since Unicode 17.0, Other before), which
this module keeps at Unicode 16.0's value (OCR output has stray cedillas;
dinglehopper cuts at them), and in about 690 pictographs (U+2605 ★,
playing cards, ...) that Unicode 17.0 no longer marks Extended_Pictographic,
which matters only right after a ZWJ (rule WB3c: uniseg keeps the pair
together, this module cuts it). Characters new in Unicode 15.0-17.0 are
unassigned to uniseg or Python and may cut differently.

Needs the ``regex`` package, which the ``ocr`` and ``metrics`` extras bring (``pip install "ek[ocr]"``).

>>> unicode_words("The quick (“brown”) fox can’t jump 32.3 feet, right?")
['The', 'quick', 'brown', 'fox', 'can’t', 'jump', '32.3', 'feet', 'right']
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from itertools import accumulate
from typing import Any

from ek._util import import_optional

__all__ = ["segments", "unicode_words", "unicode_words_by_line"]

# Word_Break values and their one-letter codes. An Extended_Pictographic
# character gets its own code ("P", or "a" for the few that are ALetter), and
# one right after a ZWJ is re-coded "p" / "b" (rule WB3c joins it).
_PROPERTIES = (
    ("CR", "C"),
    ("LF", "L"),
    ("Newline", "N"),
    ("Extend", "E"),
    ("ZWJ", "Z"),
    ("Format", "F"),
    ("Regional_Indicator", "R"),
    ("Katakana", "K"),
    ("Hebrew_Letter", "H"),
    ("ALetter", "A"),
    ("Single_Quote", "Q"),
    ("Double_Quote", "q"),
    ("MidNumLet", "D"),
    ("MidLetter", "M"),
    ("MidNum", "m"),
    ("Numeric", "U"),
    ("ExtendNumLet", "X"),
    ("WSegSpace", "W"),
)
_OTHER = "O"
_UNICODE_16 = {0xB8: _OTHER}  # values Unicode 17.0 changed, kept as dinglehopper's uniseg has them
_UNWANTED = ("M", "P", "Z", "S")  # dinglehopper also lists "O", which no category starts with
_UNWANTED_SUB = ("Cc", "Cf")

# One segment of the code string. First a ZWJ's Extended_Pictographic is re-coded
# (WB3c), then the Extend/Format/ZWJ characters a letter, digit, katakana or
# connector carries (WB4) take its code ("A" for the two pictographic letter
# codes), so the rules below only ever look one or two characters back; the
# other units keep theirs, which "[EFZ]*" takes in. A segment is a first
# unit, then the units some rule keeps attached: each step matches its first
# character, then looks back past it at the unit before.
_STEPS = "[pb][EFZ]*|[MDQ](?<=[AaHb].)[EFZ]*[AaHb]|q(?<=Hq)[EFZ]*H|[AaHb](?<=[AaHbUX].)|U(?<=[AaHbUX]U)|[mDQ](?<=U.)[EFZ]*U|K(?<=[KX]K)|X(?<=[AaHbUKX]X)|Q(?<=HQ)[EFZ]*"
_SEGMENT = re.compile(
    "CL|[CLN]"  # WB3, WB3a, WB3b: line breaks stand alone
    # letters and digits among themselves (WB5, 8, 9, 10, 13a/b), without looking back: the common case;
    # WB15/16 pairs, WB3d spaces, WB4 at the start of a text or line
    "|(?:[AaHbUX]+|R[EFZ]*(?:R[EFZ]*)?|W+[EFZ]*|[EFZ]+|.[EFZ]*)"
    f"(?:{_STEPS})*",
    re.DOTALL,
)
_JOINED = (re.compile("(?<=Z)P"), re.compile("(?<=Z)a"))
_CARRIED = re.compile("([AaHbUXK])[EFZ]+")
_CARRIER = {"A": "A", "a": "A", "b": "A", "H": "H", "U": "U", "X": "X", "K": "K"}

_CODES: dict[int, str] = {}
_KEEP: dict[int, str] = {}
_COMPILED: list[Any] = []


def segments(text: str) -> list[str]:
    """``text`` cut at every UAX #29 word boundary (words, spaces and punctuation alike)."""
    if not text:
        return []
    _learn(text)
    return [text[a:b] for a, b in _spans(text)]


def unicode_words(text: str) -> list[str]:
    """The UAX #29 segments of ``text`` that hold a letter, digit or other non-separator character."""
    if not text:
        return []
    _learn(text)
    keep = text.translate(_KEEP)
    return [text[a:b] for a, b in _spans(text) if keep.find("1", a, b) >= 0]


def unicode_words_by_line(lines: Sequence[str]) -> list[list[str]]:
    """`unicode_words` of each line, found in one pass over the lines joined by line breaks.

    A line break is a word boundary on both sides (WB3a, WB3b) and starts
    anew the rule that extending characters attach to what precedes (WB4),
    so the words of the joined text are those of the lines, in order.
    """
    out: list[list[str]] = [[] for _ in lines]
    text = "\n".join(lines)
    if not text:
        return out
    _learn(text)
    keep = text.translate(_KEEP)
    ends = list(accumulate(len(line) + 1 for line in lines))  # where each line's break ends
    line = 0
    for a, b in _spans(text):
        if keep.find("1", a, b) >= 0:
            while a >= ends[line]:
                line += 1
            out[line].append(text[a:b])
    return out


# ---------------------------------------------------------------------------


def _spans(text: str) -> list[tuple[int, int]]:
    codes = text.translate(_CODES)
    if "Z" in codes:
        codes = _JOINED[1].sub("b", _JOINED[0].sub("p", codes))
    if "E" in codes or "F" in codes or "Z" in codes:
        codes = _CARRIED.sub(_carry, codes)
    return [m.span() for m in _SEGMENT.finditer(codes)]


def _carry(m: re.Match[str]) -> str:
    first: str = m.group(1)
    return first + _CARRIER[first] * (m.end() - m.start() - 1)


def _learn(text: str) -> None:
    """Code and keep-flag every character of ``text`` not seen before."""
    new = set(map(ord, text)).difference(_CODES)
    if not new:
        return
    classify = _classifier()
    for cp in new:
        ch = chr(cp)
        _CODES[cp] = _UNICODE_16.get(cp) or classify(ch)
        category = unicodedata.category(ch)
        _KEEP[cp] = "0" if category[0] in _UNWANTED or category in _UNWANTED_SUB else "1"


def _classifier() -> Any:
    """``char -> code`` from the ``regex`` package's Unicode properties (loaded on first use)."""
    if not _COMPILED:
        regex = import_optional("regex", extra="ocr", feature="Unicode word segmentation (words='unicode')")
        by_property = regex.compile("|".join(f"(?P<{code}>\\p{{Word_Break={name}}})" for name, code in _PROPERTIES))
        pictographic = regex.compile(r"\p{Extended_Pictographic}")

        def classify(ch: str) -> str:
            m = by_property.match(ch)
            code = m.lastgroup if m else _OTHER
            if pictographic.match(ch) and code in (_OTHER, "A"):
                return "P" if code == _OTHER else "a"
            return code

        _COMPILED.append(classify)
    return _COMPILED[0]
