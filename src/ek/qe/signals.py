"""Intrinsic confidence signals: token log-probabilities and per-unit posteriors (cost tier 2).

Many extractors already emit a usable number while they run: generative
models give token log-probabilities, OCR services give per-word confidences.
Turning those into one score per field costs nothing extra. Two facts shape
this module:

1. A summed log-probability is biased by length: a longer field adds more
   negative terms and looks worse. So the pooling is normalised and, since
   the best choice depends on the data, pluggable. `min_prob` catches the
   single weakest token (one transposed digit in an amount); `geo_mean`
   measures overall plausibility.
2. The result is not calibrated, and language models tuned with human
   feedback are overconfident. Calibrate every signal before a gate reads it.

Aggregators are registered in the ``"aggregators"`` namespace, so pooling can
be chosen (or added) by name. Higher scores mean more confidence throughout.

>>> import math
>>> logps = [math.log(0.9), math.log(0.8), math.log(0.95)]
>>> round(geo_mean(logps), 4), round(min_prob(logps), 4)
(0.8811, 0.8)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from ek._util import type_name
from ek.qe._ocr_shape import (
    NEUTRAL_CONFIDENCE,
    block_confidences,
    is_ocr_result,
    mean_confidence,
)
from ek.registry import get, names, register

__all__ = [
    "DEFAULT_LENGTH_ALPHA",
    "DEFAULT_PROB_FLOOR",
    "IntrinsicConfidenceSignal",
    "LogprobSignal",
    "geo_mean",
    "length_normalized",
    "mean_prob",
    "min_prob",
]

DEFAULT_LENGTH_ALPHA = 0.6
"""Length-penalty exponent of `length_normalized`; Wu et al. (2016) found 0.6-0.7 best."""

DEFAULT_PROB_FLOOR = 1e-12
"""Smallest probability treated as non-zero: a ``log p = -inf`` token counts as ``log(1e-12)``.

So a zero-probability token still drags `min_prob` and `geo_mean` towards 0
instead of being dropped or turning the result into NaN.
"""

_POOLS = ("min", "mean", "geo_mean")


def geo_mean(logps: Sequence[float]) -> float:
    """Geometric mean of the token probabilities, ``exp(mean log p)`` (the inverse of perplexity)."""
    v = _logps(logps, "geo_mean()")
    return math.exp(math.fsum(v) / len(v))


def length_normalized(logps: Sequence[float], *, alpha: float = DEFAULT_LENGTH_ALPHA) -> float:
    """Length-normalised probability ``exp(sum log p / T**alpha)`` for ``T`` tokens.

    ``alpha = 1`` is `geo_mean`, ``alpha = 0`` the raw sequence probability.
    """
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not math.isfinite(alpha) or alpha < 0:
        raise ValueError(f"length_normalized() alpha must be a finite number >= 0, got {alpha!r}.")
    v = _logps(logps, "length_normalized()")
    return math.exp(math.fsum(v) / len(v) ** alpha)


def min_prob(logps: Sequence[float]) -> float:
    """Probability of the weakest token, ``exp(min log p)``: one bad character shows."""
    return math.exp(min(_logps(logps, "min_prob()")))


def mean_prob(logps: Sequence[float]) -> float:
    """Arithmetic mean of the token probabilities, ``mean(exp(log p))``.

    A signal-side aggregator: it takes the raw token *log*-probabilities of
    one field. Not to be confused with `ek.qe.calibrate.mean_probability`,
    which fuses already *calibrated* probabilities of several signal families.
    """
    v = _logps(logps, "mean_prob()")
    return math.fsum(math.exp(x) for x in v) / len(v)


@dataclass(frozen=True)
class LogprobSignal:
    """Pool a field's token log-probabilities into one raw score (a `Signal`, cost tier 2).

    Args:
        aggregator: a name registered under ``"aggregators"`` (``"geo_mean"``,
            ``"length_normalized"``, ``"min_prob"``, ``"mean_prob"``) or a
            callable ``logps -> float``; `geo_mean` by default.
        alpha: length penalty, passed to `length_normalized` only.
        cost_tier: 2, free: the log-probabilities come with the extraction.

    The target is a sequence of log-probabilities, or an object with a
    ``logprobs`` attribute holding one.

    >>> import math
    >>> round(LogprobSignal("min_prob")([math.log(0.9), math.log(0.5)]), 3)
    0.5
    """

    name: ClassVar[str] = "logprob"

    aggregator: str | Callable[[Sequence[float]], float] = geo_mean
    alpha: float = DEFAULT_LENGTH_ALPHA
    cost_tier: int = 2

    def __post_init__(self) -> None:
        if isinstance(self.aggregator, str):
            get("aggregators", self.aggregator)  # fail now on an unknown name
        elif not callable(self.aggregator):
            raise TypeError(
                f"LogprobSignal aggregator must be a registered name or a callable, got "
                f"{type_name(self.aggregator)}; registered: {', '.join(names('aggregators'))}."
            )

    def __call__(self, target: object) -> float:
        """The pooled score of ``target``'s log-probabilities."""
        logps = getattr(target, "logprobs", target)
        agg: Callable[..., float] = (
            get("aggregators", self.aggregator) if isinstance(self.aggregator, str) else self.aggregator
        )
        if agg is length_normalized:
            return float(agg(logps, alpha=self.alpha))
        return float(agg(logps))


@dataclass(frozen=True)
class IntrinsicConfidenceSignal:
    """Pool an extractor's per-unit confidences (already in [0, 1]) into one field score.

    Args:
        pool: ``"min"`` (the weakest unit), ``"mean"`` or ``"geo_mean"``.
        cost_tier: 2, free: the confidences come with the extraction.

    The target is a sequence of confidences, an object with a
    ``confidences`` attribute holding one, or an OCR result: then the
    confidences of its ``.blocks`` (the finest level when words and lines
    are mixed) are pooled, else its ``.mean_confidence`` is used. A result
    with no confidence at all (a text-only engine) carries no evidence and
    scores 1.0, the same as a token with no confidence in `ek.qe.rover`.

    >>> IntrinsicConfidenceSignal(pool="min")([0.99, 0.4, 0.95])
    0.4
    """

    name: ClassVar[str] = "intrinsic"

    pool: str = "min"
    cost_tier: int = 2

    def __post_init__(self) -> None:
        if self.pool not in _POOLS:
            raise ValueError(f"IntrinsicConfidenceSignal pool must be one of {', '.join(_POOLS)}, got {self.pool!r}.")

    def __call__(self, target: object) -> float:
        """The pooled confidence of ``target``'s units."""
        units = getattr(target, "confidences", None)
        if units is None and is_ocr_result(target):
            units = block_confidences(target)
            if not units:
                mean = mean_confidence(target)
                units = [NEUTRAL_CONFIDENCE if mean is None else mean]
        confs = _confidences(target if units is None else units)
        if self.pool == "min":
            return float(min(confs))
        if self.pool == "mean":
            return math.fsum(confs) / len(confs)
        floor = math.log(DEFAULT_PROB_FLOOR)
        return math.exp(math.fsum(math.log(c) if c > 0 else floor for c in confs) / len(confs))


# --------------------------------------------------------------------------


def _logps(logps: Any, owner: str) -> list[float]:
    if isinstance(logps, (str, bytes)) or not hasattr(logps, "__iter__"):
        raise TypeError(f"{owner} takes a sequence of token log-probabilities, got {type_name(logps)}.")
    floor = math.log(DEFAULT_PROB_FLOOR)
    out = []
    for i, v in enumerate(logps):
        if isinstance(v, bool) or not isinstance(v, (int, float)) and not hasattr(v, "__float__"):
            raise TypeError(f"{owner} logps[{i}] is {type_name(v)}, not a number.")
        x = float(v)
        if math.isnan(x) or x > 0:
            raise ValueError(
                f"{owner} logps[{i}] is {x!r}; a log-probability must be <= 0 and not NaN. "
                "Pass natural-log token probabilities (math.log(p))."
            )
        out.append(max(x, floor))
    if not out:
        raise ValueError(f"{owner} got no log-probabilities; a field needs at least one token.")
    return out


def _confidences(confs: Any) -> list[float]:
    owner = "IntrinsicConfidenceSignal"
    if isinstance(confs, (str, bytes)) or not hasattr(confs, "__iter__"):
        raise TypeError(f"{owner} takes a sequence of per-unit confidences, got {type_name(confs)}.")
    out = []
    for i, v in enumerate(confs):
        if isinstance(v, bool) or not isinstance(v, (int, float)) and not hasattr(v, "__float__"):
            raise TypeError(f"{owner} confidence[{i}] is {type_name(v)}, not a number.")
        x = float(v)
        if not 0.0 <= x <= 1.0:  # also rejects NaN
            raise ValueError(f"{owner} confidence[{i}] is {x!r}, outside [0, 1]; divide 0-100 engine scores by 100.")
        out.append(x)
    if not out:
        raise ValueError(f"{owner} got no confidences; a field needs at least one unit.")
    return out


register("aggregators", "geo_mean", geo_mean)
register("aggregators", "length_normalized", length_normalized)
register("aggregators", "min_prob", min_prob)
register("aggregators", "mean_prob", mean_prob)
register("signals", "logprob", LogprobSignal)
register("signals", "intrinsic", IntrinsicConfidenceSignal)
