"""Versioned, composable canonicalization applied before scoring.

A `Canonicalizer` is an ordered list of small named ``str -> str`` steps with
a stable ``version`` string you can store next to a gold set. Steps are
registered in the ``"normalizers"`` namespace, so a `FieldSpec.normalizer`
can name one and third parties can add their own.

Historical print has its own steps (``long_s``, ``ligatures``,
``superscript_e``, ``historic_hyphen``). Each carries a ``step_version``
that the pipeline's version records (``"nfc+long_s@1"``), so a stored
version changes when a step's table does. ``nfc`` already turns a base
letter plus combining mark into its precomposed letter where one exists.

Folding built for Latin text can wreck other scripts (stripping combining
marks changes Indic words). `mark_class_count` measures the risk and
``Canonicalizer(..., audit_marks=True)`` warns when a step removes marks.

>>> canon = Canonicalizer(["nfc", "lower", "collapse_whitespace"])
>>> canon("  Héllo   WORLD ")
'héllo world'
>>> canon.version
'nfc+lower+collapse_whitespace'
"""

from __future__ import annotations

import unicodedata
import warnings
from collections.abc import Callable, Sequence
from typing import overload

from ek.registry import get, register
from ek.registry import names as registered_names

__all__ = [
    "Canonicalizer",
    "collapse_whitespace",
    "default_canonicalizer",
    "lower",
    "mark_class_count",
    "nfc",
    "nfkc",
    "resolve_canonicalizer",
    "strip",
    "strip_punctuation",
]

Step = str | Callable[[str], str]
"""One normalize step: a registered normalizer name or a ``str -> str`` callable."""
Steps = Step | Sequence[Step]
"""What a ``normalize=`` option takes: one step, a list of steps, or a `Canonicalizer` (itself a step)."""


def nfc(s: str) -> str:
    """Unicode NFC (canonical composition): the safe default. Idempotent."""
    return unicodedata.normalize("NFC", s)


def nfkc(s: str) -> str:
    """Unicode NFKC (compatibility composition); lossy ("ﬁ" -> "fi"). Idempotent."""
    return unicodedata.normalize("NFKC", s)


def lower(s: str) -> str:
    """Full Unicode casefold ("Straße" -> "strasse")."""
    return s.casefold()


def strip(s: str) -> str:
    """Remove leading and trailing whitespace. Idempotent."""
    return s.strip()


def collapse_whitespace(s: str) -> str:
    """Turn every run of whitespace into one space and trim the ends. Idempotent."""
    return " ".join(s.split())


def strip_punctuation(s: str) -> str:
    """Drop every character whose Unicode category starts with ``P``. Idempotent."""
    return "".join(ch for ch in s if not unicodedata.category(ch).startswith("P"))


for _step in (nfc, nfkc, lower, strip, collapse_whitespace, strip_punctuation):
    register("normalizers", _step.__name__, _step)
del _step


# Historical print. A step's table is versioned: change a table, bump its step_version.

_LONG_S = str.maketrans({"\u017f": "s", "\u1e9b": "\u1e61"})  # ſ -> s, ẛ -> ṡ
_LIGATURES = str.maketrans(
    {
        "\ufb00": "ff",
        "\ufb01": "fi",
        "\ufb02": "fl",
        "\ufb03": "ffi",
        "\ufb04": "ffl",
        "\ufb05": "\u017ft",
        "\ufb06": "st",
        "\u0132": "IJ",
        "\u0133": "ij",
        "\ua728": "TZ",
        "\ua729": "tz",
    }
)
_SUPERSCRIPT_E = {f"{v}\u0364": u for v, u in zip("aouAOU", "äöüÄÖÜ")}
_HYPHENS = str.maketrans({"\u2e17": "-", "\u2010": "-"})


def _long_s(s: str) -> str:
    """Long s as round s ("ſein" -> "sein"). Idempotent."""
    return s.translate(_LONG_S)


def _ligatures(s: str) -> str:
    """Typographic ligatures as their letters ("ﬁ" -> "fi", "ﬅ" -> "ſt"); letters such as æ stay."""
    return s.translate(_LIGATURES)


def _superscript_e(s: str) -> str:
    """A, o, u with a combining small e above as umlauts ("u\u0364" -> "ü")."""
    for old, new in _SUPERSCRIPT_E.items():
        s = s.replace(old, new)
    return s


def _historic_hyphen(s: str) -> str:
    """The double oblique hyphen (⸗) and U+2010 as an ASCII hyphen-minus."""
    return s.translate(_HYPHENS)


# dinglehopper 0.11's substitutions (dinglehopper/extracted_text.py): first its
# `unjoin_ligatures` table, then its `substitute_equivalences` table, each
# applied entry by entry in this order, after NFC. MUFI and eMOP private-use
# code points are named in the comments.
_UNJOIN = (
    ("\ueba6", "\u017f\u017f"),  # MUFI long s long s ligature
    ("\ueba7", "\u017f\u017fi"),  # MUFI long s long s i ligature
    ("\uf502", "ch"),
    ("\ueec4", "ck"),
    ("\uf4f9", "ll"),  # MUFI ligatures
    ("\ueba2", "\u017fi"),
    ("\ueada", "\u017ft"),  # MUFI long s i, long s t
    ("\ufb01", "fi"),
    ("\ufb00", "ff"),
    ("\ufb02", "fl"),
    ("\ufb03", "ffi"),
    ("\ueec5", "ct"),
    ("\ueedc", "tz"),  # MUFI ct, tz
    ("\uf532", "as"),
    ("\uf533", "is"),
    ("\uf534", "us"),
    ("\uf535", "Qu"),  # eMOP ligatures
    ("\u0133", "ij"),
    ("\ue8bf", "q&"),  # MUFI q ligated with final et
    ("\ueba5", "\u017fp"),  # MUFI long s p
    ("\ufb06", "st"),
)
_EQUIVALENT = (
    ("\ue72b", "\u00fc"),
    ("\ue42c", "\u00e4"),  # MUFI u, a with a small e above
    ("==", "\u2013"),
    ("\u2014", "\u2013"),  # double hyphen and em dash as en dash
    ("\ue644", "\u00f6"),  # MUFI o with a small e above
    ("\u2019", "'"),
    ("\u2e17", "-"),
    ("a\u0364", "\u00e4"),
    ("o\u0364", "\u00f6"),
    ("u\u0364", "\u00fc"),  # combining small e above
    ("\uf50e", "q\u0301"),  # MUFI q with acute
)
_MUFI = str.maketrans({old: new for old, new in _UNJOIN + _EQUIVALENT if "\ue000" <= old <= "\uf8ff"})


def _dinglehopper(s: str) -> str:
    """dinglehopper 0.11's normalisation (its ``normalize_sbb``): NFC, then its two tables in order.

    It keeps ``ſ``, unjoins ligatures (``ﬁ`` -> ``fi``, MUFI ``\\ueba7`` ->
    ``ſſi``), maps ``’`` to ``'``, ``—`` and ``==`` to ``–`` and a, o, u with a
    combining small e above to umlauts.
    """
    s = unicodedata.normalize("NFC", s)
    for old, new in _UNJOIN + _EQUIVALENT:
        if old in s:
            s = s.replace(old, new)
    return s


def _mufi(s: str) -> str:
    """The MUFI and eMOP private-use characters of dinglehopper's tables as the letters they stand for."""
    return s.translate(_MUFI)


for _name, _step in (
    ("long_s", _long_s),
    ("ligatures", _ligatures),
    ("superscript_e", _superscript_e),
    ("historic_hyphen", _historic_hyphen),
    ("dinglehopper", _dinglehopper),
    ("mufi", _mufi),
):
    _step.step_version = 1  # type: ignore[attr-defined]
    register("normalizers", _name, _step)
del _name, _step


def mark_class_count(s: str) -> int:
    """How many Unicode Mark-class (combining) characters ``s`` holds.

    A non-zero count on non-Latin text means case or diacritic folding may
    change meaning; audit before trusting cross-script scores.

    >>> mark_class_count("e\\u0301")
    1
    """
    return sum(1 for ch in s if unicodedata.category(ch).startswith("M"))


class Canonicalizer:
    """An ordered, named, versioned pipeline of ``str -> str`` steps.

    Args:
        steps: registered normalizer names or plain callables, applied left
            to right.
        version: overrides the derived version (the ``+``-joined step names).
        audit_marks: warn when a step removes combining marks (counted after
            decomposition, so NFC composing ``e`` + accent is not a loss).
    """

    __slots__ = ("_audit", "_funcs", "_names", "_version")

    def __init__(self, steps: Sequence[Step] = (), *, version: str = "", audit_marks: bool = False):
        if isinstance(steps, str) or callable(steps):
            steps = [steps]
        names, funcs = [], []
        for i, step in enumerate(steps):
            if isinstance(step, str):
                funcs.append(get("normalizers", step))
                names.append(step)
            elif callable(step):
                funcs.append(step)
                names.append(getattr(step, "__name__", f"step{i}"))
            else:
                raise TypeError(
                    f"Canonicalizer step {i} is a {type(step).__name__}; each step must be a "
                    "registered normalizer name or a str -> str callable."
                )
        self._names = tuple(names)
        self._funcs = tuple(funcs)
        self._version = version or "+".join(map(_versioned_name, names, funcs))
        self._audit = bool(audit_marks)

    @property
    def steps(self) -> list[str]:
        """The step names, in the order they run."""
        return list(self._names)

    @property
    def version(self) -> str:
        """Stable identifier of the pipeline; persist it beside a gold set."""
        return self._version

    def __call__(self, s: str) -> str:
        if not isinstance(s, str):
            raise TypeError(
                f"Canonicalizer {self._version!r} takes a str, got {type(s).__name__}; "
                "convert the value with str() first or skip canonicalization for it."
            )
        for name, func in zip(self._names, self._funcs):
            if self._audit:
                before = _decomposed_marks(s)
                out = func(s)
                if before and _decomposed_marks(out) < before:
                    warnings.warn(
                        f"Canonicalizer step {name!r} removed combining marks from {s!r}; "
                        "this can change the meaning of non-Latin text. Drop the step or "
                        "use a script-aware normalizer.",
                        stacklevel=2,
                    )
                s = out
            else:
                s = func(s)
        return s

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Canonicalizer) and (self._version, self._funcs) == (
            other._version,
            other._funcs,
        )

    def __hash__(self) -> int:
        return hash((self._version, self._funcs))

    def __repr__(self) -> str:
        return f"Canonicalizer({list(self._names)!r}, version={self._version!r})"


def default_canonicalizer() -> Canonicalizer:
    """NFC, then casefold, then collapse whitespace: conservative and script-safe."""
    return Canonicalizer(["nfc", "lower", "collapse_whitespace"])


@overload
def resolve_canonicalizer(normalize: None) -> None: ...


@overload
def resolve_canonicalizer(normalize: Steps) -> Callable[[str], str]: ...


def resolve_canonicalizer(normalize: Steps | None) -> Callable[[str], str] | None:
    """Turn a ``normalize=`` argument into a callable, or None.

    Accepts None, a registered step name, a callable, a sequence of steps or
    a `Canonicalizer`.
    """
    if normalize is None or isinstance(normalize, Canonicalizer):
        return normalize
    if isinstance(normalize, str):
        return Canonicalizer([normalize])
    if callable(normalize):
        return normalize
    if isinstance(normalize, (list, tuple)):
        return Canonicalizer(normalize)
    raise TypeError(
        f"normalize must be None, a normalizer name, a callable, a list of steps or a "
        f"Canonicalizer; got {type(normalize).__name__}. Known steps: {', '.join(registered_names('normalizers'))}."
    )


def _versioned_name(name: str, func: Callable[[str], str]) -> str:
    version = getattr(func, "step_version", None)
    return name if version is None else f"{name}@{version}"


def _decomposed_marks(s: str) -> int:
    return mark_class_count(unicodedata.normalize("NFD", s))
