"""Character and word error rate (CER/WER); lower is better.

A corpus rate is total edits divided by total reference length, never the
mean of per-item rates, so every `Score` carries ``edits`` and ``ref_len``
in its ``detail`` and `StringMetric.aggregate` sums them. Rates are not
bounded by 1: a prediction much longer than its reference scores above 1,
which is itself a sign of hallucinated text.

Tokenisation matches jiwer's defaults on ordinary text: CER ignores leading
and trailing whitespace, WER splits on whitespace. An empty reference scores
the number of inserted units (0 when the prediction is empty too), as jiwer
4 does.

``segment="grapheme"`` (registered as ``"cer_grapheme"``) counts CER in
extended grapheme clusters (Unicode UAX #29) instead of code points, so a
letter with a combining mark is one unit, as OCR evaluation counts it.
``words="unicode"`` (registered as ``"wer_unicode"``) counts WER in the
words between Unicode word boundaries (UAX #29, see `ek._words`), without
the punctuation and spaces between them, as dinglehopper does: ``"dog."``
and ``"dog"`` are the same word. Both need the ``regex`` package
(the ``ocr`` and ``metrics`` extras bring it: ``pip install "ek[ocr]"``).

>>> s = StringMetric("cer")("kitten", "sitting")
>>> s.detail["edits"], s.detail["ref_len"], round(s.value, 3)
(3, 7, 0.429)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain
from types import MappingProxyType
from typing import Any

from ek._align import graphemes
from ek._ocr_result import result_text
from ek._util import DispatchRule, type_name
from ek._words import unicode_words
from ek.base import GraphGrammar, Normalizer, Score
from ek.metrics import _edit
from ek.metrics._columns import ScoreColumns
from ek.metrics._contract import SummedStatistics
from ek.registry import register

__all__ = ["StringMetric"]

_MODES = ("cer", "wer")
_SEGMENTS = ("codepoint", "grapheme")
_WORDS = ("whitespace", "unicode")
_ALIGNMENT_KEYS = ("hits", "substitutions", "deletions", "insertions")


def _rate(edits: float, ref_len: float) -> float:
    """Error rate; an empty reference counts each inserted unit as one error."""
    return edits / ref_len if ref_len else float(edits)


def _grapheme_units(text: str) -> list[str]:
    return graphemes(text.strip())


# The units each metric aligns. CER ignores the ends' whitespace and WER
# splits on any whitespace, as jiwer does for ordinary space-separated text
# (C methods for code points); `_UNSTRIPPED` keeps the ends (strip=False).
_UNITS: dict[str, Callable[[str], _edit.Units]] = {
    "cer": str.strip,
    "cer_grapheme": _grapheme_units,
    "wer": str.split,
    "wer_unicode": unicode_words,
}
_UNSTRIPPED: dict[str, Callable[[str], _edit.Units]] = {"cer": str, "cer_grapheme": graphemes}
_CODE_POINTS = (str.strip, str)  # the unit cutters that leave a str (compared code point by code point)
_C_CUTTERS = (str.strip, str.split)  # the unit cutters that refuse a non-str themselves


@dataclass(frozen=True)
class StringMetric(SummedStatistics):
    """CER (``mode="cer"``) or WER (``mode="wer"``) as a `Metric`; lower is better.

    Args:
        mode: ``"cer"`` for characters, ``"wer"`` for words.
        canonicalizer: optional ``str -> str`` applied to both sides first.
        alignment: also report ``hits``, ``substitutions``, ``deletions`` and
            ``insertions`` per item (slower; the rates are the same).
        segment: the CER unit, ``"codepoint"`` or ``"grapheme"`` (UAX #29
            clusters: "Schlyñ" against "Schlym̃" is 1 edit over 6).
        words: the WER unit, ``"whitespace"`` (runs of non-space, jiwer's
            rule) or ``"unicode"`` (UAX #29 words without punctuation,
            dinglehopper's rule: "dog." against "dog" is no edit).
        strip: CER leaves out the whitespace at both ends of each text
            (jiwer's rule); False counts it, as dinglehopper does.

    >>> StringMetric("wer", words="unicode")("a lazy dog", "a lazy dog.").value
    0.0
    """

    mode: str = "cer"
    canonicalizer: Normalizer | None = field(default=None, kw_only=True)
    alignment: bool = field(default=False, kw_only=True)
    segment: str = field(default="codepoint", kw_only=True)
    words: str = field(default="whitespace", kw_only=True)
    strip: bool = field(default=True, kw_only=True)

    higher_is_better = False
    statistics = ("edits", "ref_len")
    options = MappingProxyType({"normalize": "canonicalizer"})
    percent = True  # an error rate: shown as a percentage
    reads_documents = True  # scores OCR documents (measures and confusions come with it)

    def __post_init__(self) -> None:
        if self.mode not in _MODES:
            raise ValueError(f"StringMetric mode must be 'cer' or 'wer', got {self.mode!r}.")
        if self.segment not in _SEGMENTS or (self.segment == "grapheme" and self.mode != "cer"):
            raise ValueError(
                f"StringMetric segment must be 'codepoint' or 'grapheme' (grapheme for CER only), "
                f"got segment={self.segment!r} with mode={self.mode!r}."
            )
        if self.words not in _WORDS or (self.words != "whitespace" and self.mode != "wer"):
            raise ValueError(
                f"StringMetric words must be 'whitespace' or 'unicode' (for WER only: they say how words are "
                f"cut), got words={self.words!r} with mode={self.mode!r}; use mode='wer' or drop words=."
            )

    @property
    def name(self) -> str:
        if self.segment == "grapheme":
            return "cer_grapheme"
        return "wer_unicode" if self.words == "unicode" else self.mode

    @property
    def unit(self) -> str:
        """What one edit counts: ``"char"``, ``"grapheme"``, ``"word"`` or ``"unicode_word"`` (the pages align in it)."""
        if self.mode == "wer":
            return "unicode_word" if self.words == "unicode" else "word"
        return "grapheme" if self.segment == "grapheme" else "char"

    def __call__(self, pred: str, gold: str, *, grammar: GraphGrammar | None = None) -> Score:
        """Error rate of ``pred`` against ``gold``."""
        _check_pair(pred, gold, None, self.mode)
        return self.score_many([pred], [gold])[0]

    def score_many(
        self, preds: Sequence[str], golds: Sequence[str], *, grammar: GraphGrammar | None = None
    ) -> ScoreColumns:
        """Score aligned lists of predictions and references in one pass."""
        if len(preds) != len(golds):
            raise ValueError(
                f"score_many() got {len(preds)} predictions but {len(golds)} references; "
                "pass one gold per prediction (aligned lists of equal length)."
            )
        canon, mode, name = self.canonicalizer, self.mode, self.name
        to_units = _UNITS[name] if self.strip else _UNSTRIPPED.get(name, _UNITS[name])
        # str.strip and str.split raise TypeError on a non-str as they cut it:
        # the batch is then checked once, for the message, instead of up front.
        cuts_str = to_units in _C_CUTTERS and not self.alignment
        if canon is not None or not cuts_str:
            _refuse_non_str(preds, golds, mode)
        if canon is not None:
            preds, golds = list(map(canon, preds)), list(map(canon, golds))
            if not cuts_str:
                _refuse_non_canonical(preds, golds)
        if not self.alignment:
            try:
                return _fast_columns(preds, golds, to_units, name)
            except TypeError:
                if canon is None:
                    _refuse_non_str(preds, golds, mode)
                _refuse_non_canonical(preds, golds)
                raise
        align = _edit.active()[1]
        counts = [align(to_units(p), to_units(g)) for p, g in zip(preds, golds)]
        columns: dict[str, Sequence[int]] = {
            "edits": [c.substitutions + c.deletions + c.insertions for c in counts],
            "ref_len": [c.hits + c.substitutions + c.deletions for c in counts],
        }
        columns.update(zip(_ALIGNMENT_KEYS, map(list, zip(*counts)) if counts else ([], [], [], [])))
        return ScoreColumns(columns, _MAKERS[name])

    def compute(self, totals: Mapping[str, float]) -> float:
        """Corpus error rate: summed edits over summed reference length."""
        return _rate(totals["edits"], totals["ref_len"])


def _fast_columns(
    preds: Sequence[str], golds: Sequence[str], to_units: Callable[[str], _edit.Units], name: str
) -> ScoreColumns:
    """The edits and reference lengths of every pair, in C calls over the batch where the units are strings."""
    if to_units in _CODE_POINTS:  # strings in, strings out: one C call for the batch
        gold_texts = list(map(to_units, golds))
        edits = _edit.distances(list(map(to_units, preds)), gold_texts)
        return ScoreColumns({"edits": edits, "ref_len": list(map(len, gold_texts))}, _MAKERS[name])
    edits, lengths = _edit.unit_distances(preds, golds, to_units)
    return ScoreColumns({"edits": edits, "ref_len": lengths}, _MAKERS[name])


def _refuse_non_str(preds: Sequence[Any], golds: Sequence[Any], mode: str) -> None:
    """Raise naming the first item with a non-str side (a set of types first: one C pass when all are str)."""
    if not set(map(type, preds)) | set(map(type, golds)) <= {str}:
        for i, (p, g) in enumerate(zip(preds, golds)):
            _check_pair(p, g, i, mode)


def _refuse_non_canonical(preds: Sequence[Any], golds: Sequence[Any]) -> None:
    """Raise when the canonicalizer returned something other than a str."""
    if not set(map(type, preds)) | set(map(type, golds)) <= {str}:
        bad = next(v for v in chain(preds, golds) if not isinstance(v, str))
        raise TypeError(
            f"the canonicalizer returned {type_name(bad)} ({bad!r:.40}); every normalize step must map str to str."
        )


def _check_pair(pred: Any, gold: Any, index: int | None, mode: str) -> None:
    for side, value in (("pred", pred), ("gold", gold)):
        if not isinstance(value, str):
            where = "" if index is None else f"item {index} "
            raise TypeError(
                f"{mode.upper()} compares strings, but {where}{side} is {type_name(value)}: "
                f"{value!r:.60}. Pass text, or pick a metric for this type (e.g. metric='fields' for dicts)."
            )


class _Maker:
    """Builds the `Score` for one row; comparable so equal reports compare equal."""

    __slots__ = ("mode",)

    def __init__(self, mode: str):
        self.mode = mode

    def __call__(self, edits: int, ref_len: int, **alignment: int) -> Score:
        # The reference documents this key on string scores; its value is the class's, set once.
        detail = {"edits": edits, "ref_len": ref_len, **alignment, "higher_is_better": StringMetric.higher_is_better}
        return Score(_rate(edits, ref_len), metric=self.mode, detail=detail)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Maker) and other.mode == self.mode

    def __hash__(self) -> int:
        return hash(self.mode)


_MAKERS = {mode: _Maker(mode) for mode in (*_MODES, "cer_grapheme", "wer_unicode")}


def _has_text(obj: Any) -> bool:
    return result_text(obj) is not None


def _text_of(obj: Any) -> str:
    if isinstance(obj, str):
        return obj
    text = result_text(obj)
    if text is None:
        raise TypeError(f"{type_name(obj)} has no str .text to compare")
    return text


register("metrics", "cer", StringMetric("cer"))
register("metrics", "wer", StringMetric("wer"))
register("metrics", "cer_grapheme", StringMetric("cer", segment="grapheme"))
register("metrics", "wer_unicode", StringMetric("wer", words="unicode"))
# Default metrics by type (see ek.metrics): text gets CER, and so does any
# object carrying a str ``.text`` (an OCR result) when both sides have one.
register("dispatch", "str", DispatchRule(lambda obj: isinstance(obj, str), metric="cer", pairs="same", priority=100))
register("dispatch", "text", DispatchRule(_has_text, metric="cer", pairs="both", prepare=_text_of, priority=120))
