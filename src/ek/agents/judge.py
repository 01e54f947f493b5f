"""LLM-as-judge: a reference-free `Signal`, a reference-based `Metric`, and the validation both need first.

When a task has no checkable outcome, an LLM judge is the fallback, and a
liability until validated and calibrated: its known biases have
double-digit effect sizes (*position*: the answer seen first wins;
*verbosity*: longer looks better; *self-preference*: a model favours its own
text). Three seams, kept apart because they are not interchangeable:

* `JudgeSignal` is reference-free: it scores an output against criteria
  alone, so it is a `Signal` and plugs into `ek.estimate_quality`'s
  signal -> calibrate -> validate -> decide cascade. Its ``cost_tier`` is
  the highest, so an escalation policy asks the judge last.
* `JudgeMetric` reads the gold answer, so it is a `Metric` and belongs on
  the `ek.score` side.
* `pairwise_judge` compares two outputs, which `Signal.__call__(output)`
  cannot express; it asks twice with the order swapped and averages, the
  standard correction for position bias.

A raw judge score is not a probability: calibrate it before a
`DecisionPolicy` reads it (`ek.estimate_quality` refuses an uncalibrated
signal, judges included). Calibrate per signal family, e.g.
``calibrator={"judge": judge_cal, "logprob": logprob_cal}``, rather than one
calibrator over an average of judge and logprob scores on different scales.
And certify the judge against human labels first with `judge_validation`.

ek imports no LLM SDK: ``judge`` is always a callable you inject.

>>> stub = lambda output, *, criteria="": 0.9 if "meow" in output else 0.1
>>> JudgeSignal(stub, criteria="Is the answer helpful?")("the cat says meow")
0.9
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ek._util import ratio, type_name
from ek.agents.base import is_episode
from ek.base import Finding, GraphGrammar, Score, Severity
from ek.harness import cohen_kappa, krippendorff_alpha, percent_agreement
from ek.metrics import SummedStatistics

__all__ = ["ALPHA_GOOD", "JUDGE_COST_TIER", "JudgeMetric", "JudgeSignal", "judge_validation", "pairwise_judge"]

JUDGE_COST_TIER = 5
"""Cost tier of a judge: the most expensive signal family, asked last."""

ALPHA_GOOD = 0.8
"""Krippendorff's convention: alpha >= 0.8 is good agreement; 0.667 to 0.8 only tentative."""

_ALPHA_TENTATIVE = 0.667
_LEVELS = ("nominal", "ordinal", "interval", "ratio")


@dataclass(frozen=True)
class JudgeSignal:
    """A reference-free, criteria-only LLM judge as a `Signal` (higher means better output).

    Args:
        judge: injected ``(output, *, criteria) -> float`` in [0, 1].
        criteria: the rubric, bound here so the object stays a one-argument
            `Signal`.
        cost_tier: `JUDGE_COST_TIER` by default.
        name: the signal's name in ``raw_signals``.

    An `Episode` target is judged by its ``output``; an object with a
    ``value`` and ``raw_signals`` (a `FieldEstimate`) by its ``value``.
    """

    judge: Callable[..., float]
    criteria: str = ""
    cost_tier: int = JUDGE_COST_TIER
    name: str = "judge"

    def __call__(self, target: object) -> float:
        """The judge's score of ``target`` in [0, 1]."""
        return _checked(self.judge(_output_of(target), criteria=self.criteria), "JudgeSignal")

    def finding(self, target: object, rationale: str) -> Finding:
        """The judge's rationale as a `Finding`, so its reasoning stays auditable."""
        where = getattr(target, "task_id", "") if is_episode(target) else ""
        return Finding(field=where or self.name, layer=self.name, severity=Severity.FLAG, message=str(rationale))


@dataclass(frozen=True)
class JudgeMetric(SummedStatistics):
    """A reference-based LLM judge as a `Metric` (higher is better).

    Args:
        judge: injected ``(output, *, criteria, reference) -> float`` in [0, 1].
        criteria: the rubric.
    """

    judge: Callable[..., float]
    criteria: str = ""

    name = "judge"
    higher_is_better = True
    statistics = ("score", "n")

    def __call__(self, pred: object, gold: object, *, grammar: GraphGrammar | None = None) -> Score:
        """The judge's score of ``pred`` with ``gold`` as the reference."""
        s = _checked(self.judge(_output_of(pred), criteria=self.criteria, reference=gold), "JudgeMetric")
        return Score(s, metric=self.name, detail={"score": s, "n": 1})

    def compute(self, totals: Mapping[str, float]) -> float:
        """Mean judge score: a judge score is per item, with no count to pool (NaN for ``n == 0``)."""
        return ratio(totals["score"], totals["n"])


def judge_validation(
    judge_labels: Sequence[object], human_labels: Sequence[object], *, level: str = "nominal"
) -> dict[str, float | int | str | None]:
    """Agreement of a judge with human labels, to certify it before trusting it.

    A judge is one more annotator, so inter-annotator agreement is the right
    instrument (the MT-Bench judge-versus-human protocol). Krippendorff's
    alpha is the headline: it handles any measurement ``level``
    (``"nominal"``, ``"ordinal"``, ``"interval"``, ``"ratio"``) and missing
    labels (None or NaN). Cohen's kappa is given for nominal labels on the
    items both labelled.

    Returns:
        ``alpha``, ``kappa``, ``percent_agreement``, ``n`` (items both
        labelled) and ``verdict``: ``"good"`` (alpha >= 0.8),
        ``"tentative"`` (>= 0.667), ``"unreliable"``, or ``"undefined"``
        when every label is the same value (alpha is then None, with a
        warning: agreement can't be told from chance).

    Raises:
        ValueError: lists of different lengths, an unknown level, or no item
            labelled by both.

    >>> r = judge_validation([1, 1, 0, 0], [1, 1, 0, 0])
    >>> r["alpha"], r["verdict"]
    (1.0, 'good')
    """
    judge, human = list(judge_labels), list(human_labels)
    if len(judge) != len(human):
        raise ValueError(
            f"judge_validation() got {len(judge)} judge labels and {len(human)} human labels; "
            "label the same items in the same order."
        )
    if level not in _LEVELS:
        raise ValueError(f"judge_validation() level must be one of {', '.join(_LEVELS)}; got {level!r}.")
    both = [(j, h) for j, h in zip(judge, human) if not _is_missing(j) and not _is_missing(h)]
    if not both:
        raise ValueError(
            "judge_validation() found no item labelled by both the judge and the humans; agreement needs shared items."
        )
    a, b = [j for j, _ in both], [h for _, h in both]
    # One label everywhere leaves no expected disagreement: alpha is 0/0.
    alpha = None if len(set(a) | set(b)) == 1 else krippendorff_alpha([judge, human], level=level)
    if alpha is None:
        warnings.warn(
            "every label is the same value, so agreement can't be told from chance and alpha is "
            "undefined; validate the judge on items where the answer varies.",
            stacklevel=2,
        )
        verdict = "undefined"
    elif alpha >= ALPHA_GOOD:
        verdict = "good"
    elif alpha >= _ALPHA_TENTATIVE:
        verdict = "tentative"
    else:
        verdict = "unreliable"
    return {
        "alpha": alpha,
        "kappa": _kappa_or_none(a, b) if level == "nominal" else None,
        "percent_agreement": percent_agreement(a, b),
        "n": len(both),
        "verdict": verdict,
    }


def pairwise_judge(
    judge: Callable[..., float], a: object, b: object, *, criteria: str = "", swap: bool = True
) -> float:
    """Preference for ``a`` over ``b`` in [0, 1] (0.5 a tie), corrected for position bias.

    Judges favour whichever answer they read first. With ``swap`` (the
    default) the judge is asked again with the order reversed and the two
    answers are averaged: ``(judge(a, b) + 1 - judge(b, a)) / 2``. Turn it
    off only for a judge known to be order-invariant.

    Args:
        judge: injected ``(first, second, *, criteria) -> float`` in [0, 1],
            the preference for ``first``.

    >>> first_wins = lambda x, y, *, criteria="": 1.0     # maximally position-biased
    >>> pairwise_judge(first_wins, "A", "B")
    0.5
    """
    forward = _checked(judge(a, b, criteria=criteria), "pairwise_judge")
    if not swap:
        return forward
    backward = _checked(judge(b, a, criteria=criteria), "pairwise_judge")
    return (forward + (1.0 - backward)) / 2.0


# --------------------------------------------------------------------------


def _output_of(target: Any) -> Any:
    if is_episode(target):
        return target.output
    if hasattr(target, "value") and hasattr(target, "raw_signals"):
        return target.value
    return target


def _checked(score: Any, who: str) -> float:
    if (
        isinstance(score, bool)
        or not isinstance(score, (int, float))
        or not math.isfinite(score)
        or not 0.0 <= score <= 1.0
    ):
        raise ValueError(
            f"{who}: the judge returned {score!r} ({type_name(score)}); a judge must return a "
            "number in [0, 1]. Rescale its output (e.g. a 1-10 grade g to (g - 1) / 9)."
        )
    return float(score)


def _is_missing(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def _kappa_or_none(a: Sequence[Any], b: Sequence[Any]) -> float | None:
    """Cohen's kappa, or None where it is 0/0 (both raters used one label)."""
    try:
        return cohen_kappa(a, b)
    except ValueError:
        return None
