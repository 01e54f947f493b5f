"""Span (entity/slot) precision, recall and F1 under a named match scheme; higher is better.

An entity F1 means nothing until you say how spans are matched, and the two
standard tools count differently:

* ``seqeval`` scores BIO/IOBES *tag sequences* the way CoNLL's conlleval
  does (`MatchScheme.SEQEVAL_CONLL`), or decodes entities strictly under a
  named tagging scheme (`MatchScheme.SEQEVAL_STRICT`). It counts TP/FP/FN.
* ``nervaluate`` implements SemEval-2013 task 9.1 over typed *spans*: strict
  (boundaries and type), exact (boundaries only), partial (overlap, half
  credit) and type (type with some overlap). It counts correct, incorrect,
  partial, missed and spurious spans.

Predicting "Electric" for "General Electric" is a miss under exact matching
and half a hit under partial matching, so `SpanF1Metric` has no default
scheme: leaving it out raises TypeError.

Every `Score` names its ``scheme`` and ``backend`` and carries the raw counts
in ``detail``, overall and per entity type; `SpanF1Metric.aggregate` sums them
over the corpus and divides once (micro-F1), and `SpanF1Metric.report` turns
the summed per-type counts into seqeval's classification report: per-type
precision, recall, F1 and support with micro, macro and weighted averages,
and F-beta on request. Counts of different schemes are not comparable, so a corpus
mixing them is rejected. Two sides with no entities at all agree perfectly
and score 1.0.

Inputs: the ``SEQEVAL_*`` schemes take tag sequences (``["B-PER", "I-PER",
"O"]``, or a list of such sentences). The nervaluate schemes take span lists
of ``{"label", "start", "end"}`` dicts (``end`` inclusive, as nervaluate
counts), and also accept tag sequences, which nervaluate's own reader turns
into spans. Both backends come with the ``metrics`` extra and load on the
first call.

>>> m = SpanF1Metric(scheme=MatchScheme.SEQEVAL_CONLL)
>>> m(["B-PER", "I-PER", "O"], ["B-PER", "I-PER", "O"]).f1
1.0
>>> s = SpanF1Metric(scheme="partial")([{"label": "ORG", "start": 1, "end": 1}],
...                                    [{"label": "ORG", "start": 0, "end": 1}])
>>> s.detail["partial"], s.f1
(1, 0.5)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from operator import itemgetter
from typing import Any

from ek._util import import_optional, prf, type_name
from ek.base import GraphGrammar, Score
from ek.metrics._contract import SummedStatistics
from ek.registry import register

__all__ = ["MatchScheme", "SpanF1Metric"]

TAGGING_SCHEMES = ("IOB1", "IOB2", "IOE1", "IOE2", "IOBES", "BILOU")
_SEQEVAL_KEYS = ("tp", "fp", "fn")
_NERVALUATE_KEYS = ("correct", "incorrect", "partial", "missed", "spurious")


class MatchScheme(str, Enum):
    """Which backend and matching rule a span F1 is computed under."""

    SEQEVAL_CONLL = "seqeval_conll"
    """seqeval in its default mode: conlleval-compatible entity F1 over tags."""
    SEQEVAL_STRICT = "seqeval_strict"
    """seqeval strict mode: boundaries and type must match, decoded under a tagging scheme."""
    STRICT = "strict"
    """nervaluate strict: same boundaries and same type."""
    EXACT = "exact"
    """nervaluate exact: same boundaries, any type."""
    PARTIAL = "partial"
    """nervaluate partial: overlapping boundaries earn half credit, any type."""
    TYPE = "type"
    """nervaluate type: same type and at least some overlap."""

    @property
    def backend(self) -> str:
        """``"seqeval"`` or ``"nervaluate"``."""
        return "seqeval" if self.value.startswith("seqeval") else "nervaluate"


# nervaluate's name for each of its schemes.
_NERVALUATE_NAMES = {
    MatchScheme.STRICT: "strict",
    MatchScheme.EXACT: "exact",
    MatchScheme.PARTIAL: "partial",
    MatchScheme.TYPE: "ent_type",
}


def _prf_from_counts(scheme: MatchScheme, counts: Mapping[str, Any]) -> tuple[float, float, float]:
    if scheme.backend == "seqeval":
        tp, fp, fn = (counts[k] for k in _SEQEVAL_KEYS)
        return prf(tp, tp + fp, tp + fn)
    cor, inc, par, mis, spu = (counts[k] for k in _NERVALUATE_KEYS)
    credit = cor + 0.5 * par
    return prf(credit, cor + inc + par + spu, cor + inc + par + mis)


@dataclass(frozen=True)
class SpanF1Metric(SummedStatistics):
    """Entity/slot precision, recall and F1 under an explicit `MatchScheme`.

    ``value`` is F1; higher is better.

    Args:
        scheme: required, a `MatchScheme` or its string value. There is no
            default because the schemes disagree (see the module docstring).
        tagging_scheme: for `MatchScheme.SEQEVAL_STRICT` only, the tagging
            scheme entities are decoded under: one of IOB1, IOB2 (default),
            IOE1, IOE2, IOBES, BILOU.

    ``detail`` holds ``scheme``, ``backend``, the raw counts (``tp``/``fp``/
    ``fn`` for seqeval; ``correct``/``incorrect``/``partial``/``missed``/
    ``spurious`` for nervaluate), and ``per_type`` (the same counts per
    entity label).

    Raises:
        TypeError: ``scheme`` is missing.
        ValueError: an unknown scheme or tagging scheme.
    """

    scheme: MatchScheme | str | None = None
    tagging_scheme: str = field(default="IOB2", kw_only=True)

    higher_is_better = True
    percent = True  # a share or a rate: the pages show it as a percentage

    def __post_init__(self) -> None:
        if self.scheme is None:
            members = ", ".join(m.name for m in MatchScheme)
            raise TypeError(
                "SpanF1Metric requires an explicit scheme=MatchScheme.<...>: seqeval and nervaluate "
                f"count matches differently, so an F1 without its scheme is ambiguous. Pick one of {members}."
            )
        try:
            object.__setattr__(self, "scheme", MatchScheme(self.scheme))
        except ValueError:
            values = ", ".join(repr(m.value) for m in MatchScheme)
            raise ValueError(
                f"Unknown span match scheme {self.scheme!r}; use a MatchScheme or one of {values}."
            ) from None
        if self.tagging_scheme not in TAGGING_SCHEMES:
            raise ValueError(
                f"Unknown tagging_scheme {self.tagging_scheme!r}; seqeval's strict mode knows "
                f"{', '.join(TAGGING_SCHEMES)}."
            )

    @property
    def _match(self) -> MatchScheme:
        """``scheme`` as the `MatchScheme` that ``__post_init__`` made of it."""
        scheme = self.scheme
        assert isinstance(scheme, MatchScheme)
        return scheme

    @property
    def name(self) -> str:
        """Registered name: ``span_f1_`` plus the scheme value."""
        return f"span_f1_{self._match.value}"

    @property
    def statistics(self) -> tuple[str, ...]:
        """The counts the corpus F1 sums: seqeval's TP/FP/FN or nervaluate's five."""
        return _count_keys(self._match)

    def __call__(self, pred: object, gold: object, *, grammar: GraphGrammar | None = None) -> Score:
        """Span F1 of ``pred`` against ``gold`` under this metric's scheme."""
        scheme = self._match
        if scheme.backend == "seqeval":
            pred_s, gold_s = _tag_sentences(pred, gold)
            counts, per_type = _seqeval_counts(pred_s, gold_s, scheme, self.tagging_scheme)
        else:
            pred_spans, gold_spans = _spans(pred, gold)
            counts, per_type = _nervaluate_counts(pred_spans, gold_spans, scheme)
        precision, recall, f1 = _prf_from_counts(scheme, counts)
        detail = {
            "scheme": scheme.value,
            "backend": scheme.backend,
            **counts,
            "per_type": per_type,
        }
        return Score(f1, precision=precision, recall=recall, f1=f1, metric=self.name, detail=detail)

    def aggregate(self, scores: Iterable[Score]) -> float:
        """Micro-averaged corpus F1: sum the raw counts, then divide once.

        Raises:
            ValueError: no scores (an empty corpus has no aggregate), the
                scores mix schemes or backends (their counts are not
                commensurable), or one is not a span-F1 score.
        """
        scores = list(scores)
        scheme = _corpus_scheme(scores)
        if scheme is not self.scheme:
            raise ValueError(
                f"SpanF1Metric({self._match.value!r}).aggregate got scores of scheme {scheme.value!r}; "
                "seqeval and nervaluate counts (and the schemes of one backend) are not commensurable. "
                "Aggregate each scheme with its own metric."
            )
        return super().aggregate(scores)

    def compute(self, totals: Mapping[str, float]) -> float:
        """Micro-averaged F1 from the counts summed over the corpus (1.0 when there are no entities)."""
        return _prf_from_counts(self._match, totals)[2]

    def report(self, scores: Iterable[Score], *, beta: float = 1.0) -> dict[str, dict[str, float]]:
        """The corpus per-type table, as seqeval's ``classification_report(output_dict=True)`` lays it out.

        One entry per entity type, then ``"micro avg"``, ``"macro avg"`` and
        ``"weighted avg"``; each holds ``precision``, ``recall``,
        ``f1-score`` and ``support`` (gold entities), plus ``fbeta-score``
        when ``beta`` is not 1. A type's entry also holds its summed raw
        counts (``tp``/``fp``/``fn``, or nervaluate's five), and the micro
        entry the corpus counts: everything is computed from counts summed
        over the scores, so reports merge like the aggregate.

        The micro average is `aggregate`'s. The macro average is the mean of
        the per-type figures, the weighted one weights them by support (all
        0 when no gold entity has a type). The 0/0 cases follow
        `ek._util.prf`: a type has entities on at least one side, and a
        corpus with no entity at all scores 1.0 everywhere (seqeval would
        warn and report 0). For nervaluate schemes the per-type counts are
        nervaluate's own, which count a span of the wrong type as missed for
        the gold type and spurious for the predicted one; the micro entry
        uses nervaluate's overall counts, where that span is one incorrect.

        >>> m = SpanF1Metric(scheme="seqeval_conll")
        >>> r = m.report([m(["B-PER", "O", "B-LOC"], ["B-PER", "O", "B-ORG"])])
        >>> r["PER"]["f1-score"], r["LOC"]["support"], r["micro avg"]["f1-score"], r["macro avg"]["f1-score"]
        (1.0, 0, 0.5, 0.3333333333333333)

        Raises:
            ValueError: as `aggregate`, or a ``beta`` that is not a number >= 0.
        """
        if isinstance(beta, bool) or not isinstance(beta, (int, float)) or not beta >= 0:
            raise ValueError(f"report() beta must be a number >= 0 (1 for F1), got {beta!r}.")
        scores = list(scores)
        scheme = _corpus_scheme(scores)
        per_type: dict[str, dict[str, int]] = {}
        for s in scores:
            for label, counts in s.detail["per_type"].items():
                _add_counts(per_type.setdefault(label, {}), counts)
        out = {label: _report_row(scheme, per_type[label], beta) for label in sorted(per_type)}
        micro = _report_row(scheme, _sum_counts(scheme, (s.detail for s in scores)), beta)
        rows = list(out.values())
        out["micro avg"] = micro
        out["macro avg"] = _averaged(rows, [1] * len(rows), micro)
        out["weighted avg"] = _averaged(rows, [r["support"] for r in rows], micro)
        return out


def _corpus_scheme(scores: Sequence[Score]) -> MatchScheme:
    """The one scheme every score was computed under (see `SpanF1Metric.aggregate`)."""
    if not scores:
        raise ValueError("SpanF1Metric.aggregate() got no scores; an empty corpus has no aggregate.")
    schemes = set()
    for i, s in enumerate(scores):
        detail = getattr(s, "detail", None) or {}
        if "scheme" not in detail:
            raise ValueError(
                f"score {i} ({getattr(s, 'metric', '?')!r}) has no 'scheme' in its detail; "
                "SpanF1Metric.aggregate needs scores produced by SpanF1Metric."
            )
        schemes.add(detail["scheme"])
    if len(schemes) > 1:
        raise ValueError(
            f"SpanF1Metric.aggregate got scores from schemes {sorted(schemes)}; seqeval and nervaluate "
            "counts (and the schemes of one backend) are not commensurable. Aggregate each scheme separately."
        )
    return MatchScheme(schemes.pop())


def _count_keys(scheme: MatchScheme) -> tuple[str, ...]:
    return _SEQEVAL_KEYS if scheme.backend == "seqeval" else _NERVALUATE_KEYS


def _add_counts(into: dict[str, int], counts: Mapping[str, int]) -> None:
    for k, v in counts.items():
        into[k] = into.get(k, 0) + v


def _sum_counts(scheme: MatchScheme, details: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    totals = dict.fromkeys(_count_keys(scheme), 0)
    for detail in details:
        _add_counts(totals, {k: detail[k] for k in totals})
    return totals


def _report_row(scheme: MatchScheme, counts: Mapping[str, int], beta: float) -> dict[str, float]:
    """Precision, recall, F1 (and F-beta), support and the raw counts of one row of the report."""
    precision, recall, f1 = _prf_from_counts(scheme, counts)
    if scheme.backend == "seqeval":
        support = counts["tp"] + counts["fn"]
    else:
        support = counts["correct"] + counts["incorrect"] + counts["partial"] + counts["missed"]
    row: dict[str, float] = {"precision": precision, "recall": recall, "f1-score": f1, "support": support}
    if beta != 1:
        row["fbeta-score"] = _f_beta(precision, recall, beta)
    return {**row, **{k: counts[k] for k in _count_keys(scheme)}}


def _f_beta(precision: float, recall: float, beta: float) -> float:
    """``(1 + b^2) P R / (b^2 P + R)``; 0 when both are 0, recall when ``beta`` is infinite."""
    if math.isinf(beta):
        return recall
    weight = beta * beta
    denominator = weight * precision + recall
    return (1 + weight) * precision * recall / denominator if denominator else 0.0


def _averaged(rows: list[dict[str, float]], weights: list[float], micro: dict[str, float]) -> dict[str, float]:
    """The ``weights``-weighted mean of the rows' figures; the micro row when there are no rows."""
    figures = [k for k in ("precision", "recall", "f1-score", "fbeta-score") if k in micro]
    support = sum(r["support"] for r in rows)
    if not rows:
        return {**{k: micro[k] for k in figures}, "support": micro["support"]}
    total = sum(weights)
    if not total:  # weighted by support, and no gold entity anywhere
        return {**dict.fromkeys(figures, 0.0), "support": support}
    return {**{k: sum(w * r[k] for w, r in zip(weights, rows)) / total for k in figures}, "support": support}


# --------------------------------------------------------------------------
# input checks


def _is_tag_sequence(obj: Any) -> bool:
    return isinstance(obj, Sequence) and not isinstance(obj, (str, bytes)) and all(isinstance(t, str) for t in obj)


def _as_sentences(obj: Any, side: str) -> list[list[str]]:
    """A flat tag sequence becomes one sentence; a list of sequences stays as is."""
    if _is_tag_sequence(obj):
        return [list(obj)]
    if isinstance(obj, Sequence) and not isinstance(obj, (str, bytes)) and all(_is_tag_sequence(s) for s in obj):
        return [list(s) for s in obj]
    raise TypeError(
        f"{side} is {type_name(obj)}: {obj!r:.60}; the seqeval schemes take a sequence of BIO/IOBES tag "
        "strings (or a list of such sentences), e.g. ['B-PER', 'I-PER', 'O']."
    )


def _tag_sentences(pred: Any, gold: Any) -> tuple[list[list[str]], list[list[str]]]:
    pred_s, gold_s = _as_sentences(pred, "pred"), _as_sentences(gold, "gold")
    if len(pred_s) != len(gold_s):
        raise ValueError(
            f"pred has {len(pred_s)} sentences but gold has {len(gold_s)}; tag the same sentences on both sides."
        )
    for i, (p, g) in enumerate(zip(pred_s, gold_s)):
        if len(p) != len(g):
            where = "" if len(pred_s) == 1 else f" in sentence {i}"
            raise ValueError(
                f"pred has {len(p)} tags but gold has {len(g)}{where}; span F1 over tags needs one tag "
                "per token on both sides. Tag the same tokenisation of the text."
            )
    return pred_s, gold_s


def _spans(pred: Any, gold: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Span lists for nervaluate; tag sequences are converted by nervaluate itself."""
    if _is_tag_sequence(pred) and _is_tag_sequence(gold) and (pred or gold):
        pred_s, gold_s = _tag_sentences(pred, gold)
        utils = import_optional("nervaluate.utils", extra="metrics", feature="SpanF1Metric")
        return utils.collect_named_entities(pred_s[0]), utils.collect_named_entities(gold_s[0])
    return _check_spans(pred, "pred"), _check_spans(gold, "gold")


def _check_spans(obj: Any, side: str) -> list[dict[str, Any]]:
    if not isinstance(obj, Sequence) or isinstance(obj, (str, bytes)):
        raise TypeError(
            f"{side} is {type_name(obj)}; the nervaluate schemes take a list of "
            "{'label', 'start', 'end'} span dicts (or a BIO tag sequence)."
        )
    spans = []
    for i, span in enumerate(obj):
        if not isinstance(span, Mapping) or not {"label", "start", "end"} <= set(span):
            raise TypeError(f"{side}[{i}] is {span!r:.60}; each span must be a dict with 'label', 'start' and 'end'.")
        label, start, end = span["label"], span["start"], span["end"]
        ints = all(isinstance(v, int) and not isinstance(v, bool) for v in (start, end))
        if not isinstance(label, str) or not ints or start < 0 or end < start:
            raise ValueError(
                f"{side}[{i}] = {dict(span)!r:.80} is not a valid span; 'label' must be a str and "
                "'start' <= 'end' non-negative ints (end is inclusive)."
            )
        spans.append({"label": label, "start": start, "end": end})
    return spans


# --------------------------------------------------------------------------
# backends


def _seqeval_counts(
    pred: list[list[str]], gold: list[list[str]], scheme: MatchScheme, tagging: str
) -> tuple[dict[str, int], dict[str, dict[str, int]]]:
    """TP/FP/FN from seqeval's own entity decoding: a TP is an entity found on both sides."""
    if scheme is MatchScheme.SEQEVAL_CONLL:
        labeling = import_optional("seqeval.metrics.sequence_labeling", extra="metrics", feature="SpanF1Metric")
        pred_e = set(labeling.get_entities(pred))
        gold_e = set(labeling.get_entities(gold))
        label_of = itemgetter(0)  # (type, start, end)
    else:
        schemes = import_optional("seqeval.scheme", extra="metrics", feature="SpanF1Metric")
        token_cls = getattr(schemes, tagging)
        try:
            pred_e = {e.to_tuple() for sent in schemes.Entities(pred, token_cls).entities for e in sent}
            gold_e = {e.to_tuple() for sent in schemes.Entities(gold, token_cls).entities for e in sent}
        except (ValueError, KeyError) as exc:
            raise ValueError(
                f"seqeval could not read the tags as {tagging} ({exc}); pass tagging_scheme= matching "
                "your tags (e.g. 'IOBES' for S-/E- tags)."
            ) from None
        label_of = itemgetter(1)  # (sentence, type, start, end)
    per_type: dict[str, dict[str, int]] = {}
    for label in sorted({label_of(e) for e in pred_e | gold_e}):
        p = {e for e in pred_e if label_of(e) == label}
        g = {e for e in gold_e if label_of(e) == label}
        per_type[label] = {"tp": len(p & g), "fp": len(p - g), "fn": len(g - p)}
    tp = len(pred_e & gold_e)
    return {"tp": tp, "fp": len(pred_e) - tp, "fn": len(gold_e) - tp}, per_type


def _nervaluate_counts(
    pred: list[dict[str, Any]], gold: list[dict[str, Any]], scheme: MatchScheme
) -> tuple[dict[str, int], dict[str, dict[str, int]]]:
    """nervaluate's counts for one document under ``scheme``, overall and per label."""
    zero = dict.fromkeys(_NERVALUATE_KEYS, 0)
    labels = sorted({s["label"] for s in pred} | {s["label"] for s in gold})
    if not labels:
        return zero, {}
    evaluator_mod = import_optional("nervaluate.evaluator", extra="metrics", feature="SpanF1Metric")
    evaluator = evaluator_mod.Evaluator(true=[gold], pred=[pred], tags=labels, loader="dict")
    results = evaluator.evaluate()
    key = _NERVALUATE_NAMES[scheme]

    def counts(result: Any) -> dict[str, int]:
        return {k: int(getattr(result, k)) for k in _NERVALUATE_KEYS}

    per_type = {label: counts(r[key]) for label, r in sorted(results["entities"].items())}
    return counts(results["overall"][key]), per_type


for _scheme in MatchScheme:
    register("metrics", f"span_f1_{_scheme.value}", SpanF1Metric(_scheme))
del _scheme
