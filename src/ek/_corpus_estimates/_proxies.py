"""Proxies ek builds: a stand-in for gold per item (agreement), or expected statistics (confidence).

A proxy is a `Report` of the metric on every item of the corpus, scored
against something other than real gold. Its quality decides only how much
the audit can be leaned on (``λ``), never whether the estimate is honest.

* Agreement (`consensus`): another engine's output stands in for gold, or the
  ROVER consensus (`ek.qe.rover`) of several engines' outputs: the AutoEval
  setup. `ek.agreement_proxy` scores against it with `ek.evaluate`.
* Confidence (`expected_statistics`): calibrated probabilities that each unit
  is correct give each item's expected statistics, by family of metric:

  - edits / reference length (CER, WER: one probability per character or
    word of the prediction): ``edits = Σ (1 - p)``, ``ref_len`` = the number
    of units (the prediction's length stands in for the reference's);
  - TP / FP / FN (field F1: one probability per predicted field): a right
    field is a TP, a wrong one an FP and an FN, as `ek.FieldMetric` counts a
    wrong value, so ``tp = Σ p`` and ``fp = fn = Σ (1 - p)``;
  - a value and a count (means such as ANLS or task success: one probability
    per item): ``value = p``, ``n = 1``.

  Each item also carries ``detail["uncertainty"] = sqrt(Σ p (1 - p))``, the
  standard deviation of its error count if units err independently, which
  `ek.plan_audit(strategy="active")` reads. Raw scores go through
  ``calibrator`` (a fitted `ek.qe` calibrator) first; without one the numbers
  must already be probabilities.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ek._util import type_name

__all__ = ["consensus", "expected_statistics"]

_EDITS, _COUNTS = ("edits", "ref_len"), ("tp", "fp", "fn")


def consensus(references: Sequence[Any], *, who: str) -> list[Any]:
    """Each item's stand-in for gold: its one reference, or the ROVER consensus of several (strings)."""
    from ek.qe import rover

    out: list[Any] = []
    for i, ref in enumerate(references):
        if isinstance(ref, (str, Mapping)) or not isinstance(ref, Sequence):
            out.append(ref)
        elif len(ref) == 1:
            out.append(ref[0])
        elif not ref:
            raise ValueError(f"{who} item {i} has no reference; give each item one other output, or several.")
        elif all(isinstance(r, str) for r in ref):
            out.append(rover(list(ref)).text)
        else:
            raise TypeError(
                f"{who} item {i} has {len(ref)} references that are not all strings; ROVER fuses "
                "transcriptions only, so give one reference per item for other kinds of output."
            )
    return out


def expected_statistics(
    confidences: Sequence[Any], statistics: Sequence[str], *, calibrator: Callable[..., Any] | None, who: str
) -> list[dict[str, float]]:
    """Each item's expected statistics (and ``uncertainty``) from its units' probabilities of being correct."""
    family = tuple(statistics)
    if family not in (_EDITS, _COUNTS) and not (len(family) == 2 and family[1] == "n"):
        raise ValueError(
            f"{who} knows metrics that sum (edits, ref_len), (tp, fp, fn) or (value, n); this one sums {family}. "
            "Build the proxy Report yourself (any Report of the metric serves)."
        )
    units = [_units(c, i, per_item=len(family) == 2 and family[1] == "n", who=who) for i, c in enumerate(confidences)]
    probs = _calibrated([x for u in units for x in u], calibrator, who=who)
    out: list[dict[str, float]] = []
    start = 0
    for u in units:
        p = probs[start : start + len(u)]
        start += len(u)
        wrong = math.fsum(1 - x for x in p)
        spread = math.sqrt(math.fsum(x * (1 - x) for x in p))
        if family == _EDITS:
            out.append({"edits": wrong, "ref_len": len(p), "uncertainty": spread})
        elif family == _COUNTS:
            out.append({"tp": math.fsum(p), "fp": wrong, "fn": wrong, "uncertainty": spread})
        else:
            out.append({family[0]: p[0], "n": 1, "uncertainty": spread})
    return out


# ---------------------------------------------------------------------------


def _units(item: object, i: int, *, per_item: bool, who: str) -> list[float]:
    """The raw scores of one item: one number (``per_item``), or one per unit (a sequence, or a field mapping)."""
    if per_item:
        if isinstance(item, bool) or not isinstance(item, numbers.Real):
            raise TypeError(f"{who} item {i} is {type_name(item)}; a mean metric takes one confidence per item.")
        return [float(item)]
    values = list(item.values()) if isinstance(item, Mapping) else item
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise TypeError(
            f"{who} item {i} is {type_name(item)}; give a list of per-unit confidences (one per "
            "character or word, or a mapping of field name to confidence)."
        )
    for v in values:
        if isinstance(v, bool) or not isinstance(v, numbers.Real) or not math.isfinite(v):
            raise ValueError(f"{who} item {i} holds the confidence {v!r}; every confidence must be a finite number.")
    return [float(v) for v in values]


def _calibrated(raw: list[float], calibrator: Callable[..., Any] | None, *, who: str) -> list[float]:
    if calibrator is not None and raw:
        raw = [float(x) for x in calibrator(raw)]
    for x in raw:
        if not 0 <= x <= 1:
            what = "the calibrator returned" if calibrator is not None else "without calibrator= the confidences are"
            raise ValueError(
                f"{who}: {what} {x!r}, not a probability in [0, 1]; pass calibrator= (a fitted "
                "ek.qe calibrator) to map raw scores to probabilities."
            )
    return raw
