"""Confidence against correctness for OCR output: which words a word alignment says were read right.

`ek.ocr.evaluate_files` (word confidences of PAGE/ALTO/hOCR files) and
`ek.ocr.benchmark_fleet` (an engine's word or line confidences) both align
the predicted words with the reference's (`ek._align`, word level), call a
word right when the alignment keeps it unchanged, and summarise the
``(confidence, right)`` pairs with `ek.qe.expected_calibration_error` and
`ek.qe.reliability_curve`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def word_outcomes(ops: list[Any]) -> list[Any]:
    """Whether each predicted word was read right, in order, from a word alignment."""
    out: list[Any] = []
    for op in ops:
        if op.tag == "equal":
            out.extend([True] * len(op.pred.split(" ")))
        elif op.tag != "delete":
            out.append(False)
    return out


def calibration_figures(probs: Sequence[float], correct: Sequence[bool], n_bins: int | None) -> dict[str, Any]:
    """``{"n", "ece", "curve"}`` of the pairs (``n_bins`` None: the default bins of `ek.qe.calibrate`)."""
    from ek.qe.calibrate import (
        DEFAULT_N_BINS,
        expected_calibration_error,
        reliability_curve,
    )

    bins = DEFAULT_N_BINS if n_bins is None else n_bins
    return {
        "n": len(probs),
        "ece": expected_calibration_error(probs, correct, n_bins=bins),
        "curve": reliability_curve(probs, correct, n_bins=bins),
    }
