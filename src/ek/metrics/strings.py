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

>>> s = StringMetric("cer")("kitten", "sitting")
>>> s.detail["edits"], s.detail["ref_len"], round(s.value, 3)
(3, 7, 0.429)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Optional, Sequence

from ek._util import sum_detail, type_name
from ek.base import Score
from ek.metrics import _edit
from ek.metrics._columns import ScoreColumns
from ek.registry import register

__all__ = ["StringMetric"]

_MODES = ("cer", "wer")
_ALIGNMENT_KEYS = ("hits", "substitutions", "deletions", "insertions")


def _rate(edits: int, ref_len: int) -> float:
    """Error rate; an empty reference counts each inserted unit as one error."""
    return edits / ref_len if ref_len else float(edits)


# CER ignores the ends' whitespace and WER splits on any whitespace, as jiwer
# does for ordinary space-separated text.
_UNITS = {"cer": str.strip, "wer": str.split}


@dataclass(frozen=True)
class StringMetric:
    """CER (``mode="cer"``) or WER (``mode="wer"``) as a `Metric`; lower is better.

    Args:
        mode: ``"cer"`` for characters, ``"wer"`` for words.
        canonicalizer: optional ``str -> str`` applied to both sides first.
        alignment: also report ``hits``, ``substitutions``, ``deletions`` and
            ``insertions`` per item (slower; the rates are the same).
    """

    mode: str = "cer"
    canonicalizer: Optional[Callable[[str], str]] = field(default=None, kw_only=True)
    alignment: bool = field(default=False, kw_only=True)

    def __post_init__(self) -> None:
        if self.mode not in _MODES:
            raise ValueError(f"StringMetric mode must be 'cer' or 'wer', got {self.mode!r}.")

    @property
    def name(self) -> str:
        return self.mode

    def __call__(self, pred: str, gold: str, *, grammar: Any = None) -> Score:
        """Error rate of ``pred`` against ``gold``."""
        _check_pair(pred, gold, None, self.mode)
        return self.score_many([pred], [gold])[0]

    def score_many(self, preds: Sequence[str], golds: Sequence[str], *, grammar: Any = None) -> ScoreColumns:
        """Score aligned lists of predictions and references in one pass."""
        canon, mode = self.canonicalizer, self.mode
        distance, align = _edit.active()
        to_units = _UNITS[mode]  # a C method: no Python call per item
        edits, ref_lens = [], []
        extra: list[list[int]] = [[], [], [], []]
        for i, (p, g) in enumerate(zip(preds, golds)):
            if type(p) is not str or type(g) is not str:
                _check_pair(p, g, i, mode)
            if canon is not None:
                p, g = canon(p), canon(g)
            gu = to_units(g)
            if self.alignment:
                c = align(to_units(p), gu)
                for col, v in zip(extra, c):
                    col.append(v)
                edits.append(c.substitutions + c.deletions + c.insertions)
            else:
                edits.append(distance(to_units(p), gu))
            ref_lens.append(len(gu))
        columns: dict[str, Sequence] = {"edits": edits, "ref_len": ref_lens}
        if self.alignment:
            columns.update(zip(_ALIGNMENT_KEYS, extra))
        return ScoreColumns(columns, _MAKERS[mode])

    def aggregate(self, scores: Iterable[Score]) -> float:
        """Corpus error rate: summed edits over summed reference length."""
        totals = sum_detail(scores, ("edits", "ref_len"), metric="StringMetric")
        return _rate(totals["edits"], totals["ref_len"])


def _check_pair(pred: Any, gold: Any, index: Optional[int], mode: str) -> None:
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
        detail = {"edits": edits, "ref_len": ref_len, **alignment, "higher_is_better": False}
        return Score(_rate(edits, ref_len), metric=self.mode, detail=detail)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Maker) and other.mode == self.mode

    def __hash__(self) -> int:
        return hash(self.mode)


_MAKERS = {mode: _Maker(mode) for mode in _MODES}

register("metrics", "cer", StringMetric("cer"))
register("metrics", "wer", StringMetric("wer"))
