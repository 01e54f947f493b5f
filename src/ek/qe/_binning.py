"""Per-bin sums behind `expected_calibration_error` and `reliability_curve`.

Predictions are binned by confidence into ``n_bins`` equal-width bins with
edges ``i * (1 / n_bins)``. A probability on an interior edge falls in the
lower bin (bins are ``[0, e1], (e1, e2], ...``), the convention of
scikit-learn's ``calibration_curve``. Each bin carries three sums (count,
summed confidence, number correct), so bins from disjoint batches add.

As documented for `expected_calibration_error`, a non-finite probability is
skipped and one outside [0, 1] is clamped into it. Either means the numbers
are not the probabilities they claim to be (a ``conf`` of 5 read from a
file), so each call that skips or clamps warns once, with the count and the
first offending position and value.
"""

from __future__ import annotations

import math
import warnings
from bisect import bisect_left
from typing import Any

from ek.qe._checks import labels, numpy_or_none, scores


def bin_sums(probs: Any, correct: Any, *, n_bins: int, owner: str) -> tuple[list[int], list[float], list[float]]:
    """``(count, sum_confidence, n_correct)`` per bin after cleaning the inputs.

    Non-finite probabilities are skipped, out-of-range ones are clamped into
    ``[0, 1]``.

    Raises:
        ValueError: ``n_bins`` < 1, mismatched lengths, or no finite probability.
    """
    if isinstance(n_bins, bool) or not isinstance(n_bins, int) or n_bins < 1:
        raise ValueError(f"{owner} n_bins must be a positive int, got {n_bins!r}.")
    np = numpy_or_none()
    p = scores(probs, what=f"{owner} probs", np=np, allow_nonfinite=True)
    y = labels(correct, len(p), what=f"{owner} correct", np=np)
    _warn_if_not_probabilities(p, owner, np)
    if np is not None:
        keep = np.isfinite(p)
        p, y = np.clip(p[keep], 0.0, 1.0), y[keep]
        if len(p) == 0:
            _no_rows(owner)
        count, conf, hits = binned(p, y.astype(float), n_bins)
        return count.tolist(), conf.tolist(), hits.tolist()
    step = 1.0 / n_bins
    edges_py = [i * step for i in range(1, n_bins)]
    count_py = [0] * n_bins
    conf_py = [0.0] * n_bins
    hits_py = [0.0] * n_bins
    seen = False
    for v, c in zip(p, y):
        if not math.isfinite(v):
            continue
        seen = True
        v = min(max(v, 0.0), 1.0)
        b = bisect_left(edges_py, v)
        count_py[b] += 1
        conf_py[b] += v
        hits_py[b] += 1.0 if c else 0.0
    if not seen:
        _no_rows(owner)
    return count_py, conf_py, hits_py


def binned(p: Any, y: Any, n_bins: int) -> tuple[Any, Any, Any]:
    """numpy's ``(count, sum_confidence, n_correct)`` per bin of clean probabilities ``p`` (in [0, 1]) and float ``y``.

    The numpy path of `bin_sums`, without its cleaning: the monitor's ECE
    bins its audited rows (already checked) here too, so both bin alike.
    """
    import numpy as np

    edges = np.linspace(0.0, 1.0, n_bins + 1)[1:-1]
    ids = np.searchsorted(edges, p, side="left")
    count = np.bincount(ids, minlength=n_bins)
    return count, np.bincount(ids, weights=p, minlength=n_bins), np.bincount(ids, weights=y, minlength=n_bins)


def ece_from_sums(count: list[int], conf: list[float], hits: list[float]) -> float:
    """Population-weighted mean of ``|mean confidence - accuracy|`` over bins."""
    total = sum(count)
    gap = 0.0
    for n, c, h in zip(count, conf, hits):
        if n:
            gap += abs(c - h)  # == n * |c/n - h/n|
    return gap / total


def curve_from_sums(count: list[int], conf: list[float], hits: list[float]) -> list[dict[str, float]]:
    """One ``{confidence, accuracy, count}`` dict per non-empty bin, low to high."""
    return [{"confidence": c / n, "accuracy": h / n, "count": int(n)} for n, c, h in zip(count, conf, hits) if n]


def _no_rows(owner: str) -> None:
    raise ValueError(f"{owner} got no finite probabilities; pass at least one (prob, correct) pair with a finite prob.")


def _warn_if_not_probabilities(p: Any, owner: str, np: Any) -> None:
    if np is not None:
        bad = np.flatnonzero(~(np.isfinite(p) & (p >= 0.0) & (p <= 1.0)))
        positions = bad.tolist()
    else:
        positions = [i for i, v in enumerate(p) if not (math.isfinite(v) and 0.0 <= v <= 1.0)]
    if positions:
        i = positions[0]
        warnings.warn(
            f"{owner} got {len(positions)} confidence(s) that are not probabilities (the first: probs[{i}] = "
            f"{float(p[i])!r}); non-finite ones are skipped and the others clamped into [0, 1]. Check where "
            "the confidences come from, or clean them before calling.",
            UserWarning,
            stacklevel=4,
        )
