"""Drift of one raw signal against the calibration set: two-sample KS and PSI.

Public through `ek.qe.monitor`. Both are diagnostics, per window: the KS
p-value of a window is a fixed-sample p-value, *not* valid under repeated
looks (checked daily at 5%, a stable signal falls below 0.05 about once in
twenty windows); the monitor's alarms are the risk and calibration ones.

* KS: `ks_test` is `scipy.stats.ks_2samp(calibration, window)` (its
  default two-sided test, ``method="auto"``), called lazily. Without scipy
  the statistic is computed here (the largest gap between the two empirical
  distribution functions, over the pooled values) and the p-value is None.
* PSI: the bins are the deciles of the calibration set (``numpy.quantile``
  at 0.1, ..., 0.9, linear interpolation; repeated edges merged, so a
  signal with few distinct values has fewer bins), closed on the right:
  ``(-inf, q1], (q1, q2], ..., (q9, inf)``. With shares ``e`` (calibration)
  and ``w`` (window) per bin, ``PSI = Σ (w - e) ln(w / e)``, each share
  floored at `PSI_EPSILON` so an empty bin counts as a large but finite
  divergence. Counts per bin add across windows and workers, so a
  cumulative PSI comes from summed counts. Rule of thumb: below 0.1 stable,
  0.1 to 0.25 moderate, above 0.25 a large shift.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["EXACT_MAX", "PSI_EPSILON", "bin_counts", "decile_edges", "ks_statistic", "ks_test", "psi"]

PSI_EPSILON = 1e-4
"""Floor of a bin's share in PSI (an empty bin would make the logarithm infinite)."""

EXACT_MAX = 10_000
"""Largest sample scipy's ``ks_2samp`` tests exactly by default (its ``method="auto"``)."""


def decile_edges(calibration: Any) -> list[float]:
    """The distinct interior decile edges of the calibration values."""
    import numpy as np

    edges = np.quantile(np.asarray(calibration, dtype=np.float64), np.arange(1, 10) / 10.0)
    return [float(e) for e in np.unique(edges)]


def bin_counts(values: Any, edges: list[float]) -> list[int]:
    """How many ``values`` fall in each PSI bin (``len(edges) + 1`` bins, closed on the right)."""
    import numpy as np

    ids = np.searchsorted(np.asarray(edges, dtype=np.float64), np.asarray(values, dtype=np.float64), side="left")
    return [int(c) for c in np.bincount(ids, minlength=len(edges) + 1)]


def psi(expected: list[int], actual: list[int]) -> float | None:
    """The population stability index of ``actual`` bin counts against ``expected`` ones (None when either is empty)."""
    n_e, n_a = sum(expected), sum(actual)
    if not n_e or not n_a:
        return None
    total = 0.0
    for e, w in zip(expected, actual):
        pe, pw = max(e / n_e, PSI_EPSILON), max(w / n_a, PSI_EPSILON)
        total += (pw - pe) * math.log(pw / pe)
    return total


def ks_statistic(calibration: Any, window: Any) -> float:
    """``sup |F_cal - F_window|`` over the pooled values, rounded as scipy rounds it (its statistic, without scipy).

    Up to `EXACT_MAX` items a side scipy's default is the exact test, which
    reports the statistic as ``h / lcm(n1, n2)``; this computes ``h`` in
    integers. Above, scipy's float difference of the two ECDFs is kept.
    """
    import numpy as np

    a = np.sort(np.asarray(calibration, dtype=np.float64))
    b = np.sort(np.asarray(window, dtype=np.float64))
    n1, n2 = len(a), len(b)
    pooled = np.concatenate([a, b])
    ca = np.searchsorted(a, pooled, side="right")
    cb = np.searchsorted(b, pooled, side="right")
    if max(n1, n2) <= EXACT_MAX:
        g = math.gcd(n1, n2)
        h = int(np.max(np.abs(ca.astype(np.int64) * n2 - cb.astype(np.int64) * n1))) // g
        return h * 1.0 / ((n1 // g) * n2)
    return float(np.max(np.abs(ca / n1 - cb / n2)))


def ks_test(calibration: Any, window: Any) -> tuple[float, float | None]:
    """``(statistic, p-value)`` of the two-sided two-sample KS test; the p-value is None without scipy."""
    import importlib

    try:
        stats = importlib.import_module("scipy.stats")
    except ImportError:
        return ks_statistic(calibration, window), None
    result = stats.ks_2samp(calibration, window)
    return float(result.statistic), float(result.pvalue)
