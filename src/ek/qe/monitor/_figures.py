"""The monitor's figures from summed statistics: the gate's shares, the accepted error rate, calibration.

Public through `ek.qe.monitor`. A window is kept as sums that add (counts
per decision, the sums of ``q = 1 - p`` and ``q²`` over its accepted items,
the PSI bin counts of each signal), and the audit as its rows; every figure
of one window, or of any set of windows, is computed here from those, so a
cumulative figure and a merged monitor's figure are the same function of
added sums.

* Error rate among accepted items: with two or more audited accepted
  items, the prediction-powered estimate (`ek._stats._prediction_powered`: proxy ``1 - p``,
  gold ``1 - correct``, ``λ = 1``, see `LAM`) with its normal interval at
  ``level``, whose standard error is at least
  ``sqrt(mean(p (1 - p)) / n)`` over the ``n`` audited accepted items: the
  rectifier's spread if the probabilities are calibrated. Without the
  floor, a window whose 20 audited accepted items show no error gets a
  zero-width interval (its sample spread is 0): simulated at 50 audits a
  window and a 5.6% error rate, the plain interval covered the window's
  error rate in 69% of windows, the floored one in all of 1,000. Without
  audits, the mean of ``1 - p`` (what the calibrated probabilities alone
  claim), with no interval. These intervals are fixed-time: for decisions
  over time read the alarms (change detectors).
* Calibration on the audited items: ECE (the bins of
  `ek.qe.expected_calibration_error`) and calibration-in-the-large, the
  mean of ``p - correct``, with a normal interval at ``level``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, cast

from ek._stats import normal_quantile
from ek.qe._binning import binned
from ek.qe.monitor._values import Calibration, Risk, Shares

__all__ = ["ECE_BINS", "LAM", "Rows", "calibration", "merge_sums", "risk", "shares", "window_sums"]

ECE_BINS = 10
LAM = 1.0
"""Weight of the calibrated probabilities in the prediction-powered estimate (plain PPI).

PPI++'s tuned weight is 0 whenever a window's audit shows no error (no
covariance to learn from), which throws the proxy away exactly when errors
are rare; the calibrated probability is the proxy the gate itself trusts.
"""
"""Equal-width bins of the ECE (those of `ek.qe.expected_calibration_error`)."""

DECISIONS = ("accept", "flag", "block")


@dataclass(frozen=True)
class Rows:
    """Audited items as columns: window index, calibrated probability, decision code (index in DECISIONS), correct."""

    window: Any
    p: Any
    decision: Any
    correct: Any

    def where(self, keep: Any) -> Rows:
        return Rows(self.window[keep], self.p[keep], self.decision[keep], self.correct[keep])


def window_sums(p: Any, codes: Any) -> dict[str, Any]:
    """The additive sums of one window's calibrated probabilities ``p`` and decision codes."""
    import numpy as np

    counts = np.bincount(codes, minlength=3)
    q = 1.0 - p[codes == 0]
    return {
        "n": len(p),
        "accept": int(counts[0]),
        "flag": int(counts[1]),
        "block": int(counts[2]),
        "sum_q": float(q.sum()),
        "sum_q2": float((q * q).sum()),
        "sum_p": float(p.sum()),
    }


def merge_sums(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """Sums of several windows (or workers) added key by key."""
    out: dict[str, Any] = {"n": 0, "accept": 0, "flag": 0, "block": 0, "sum_q": 0.0, "sum_q2": 0.0, "sum_p": 0.0}
    for part in parts:
        for key in out:
            out[key] += part[key]
    return out


def shares(sums: dict[str, Any]) -> Shares:
    """Accepted, flagged and blocked shares of the items."""
    n = sums["n"]
    return cast(Shares, {name: (sums[name] / n if n else None) for name in DECISIONS})


def risk(sums: dict[str, Any], rows: Rows, level: float) -> Risk:
    """The error rate among accepted items: ``{estimate, interval, basis, n_audited, N}``."""
    import numpy as np

    from ek._stats._prediction_powered import Moments, estimate, normal_interval, without

    big_n, accepted = sums["accept"], rows.where(rows.decision == 0)
    n_audited = len(accepted.p)
    if not big_n:
        return {"N": big_n, "n_audited": n_audited, "estimate": None, "interval": None, "basis": "no accepted items"}
    if len(accepted.p) < 2:
        claim = sums["sum_q"] / big_n
        basis = "calibrated probabilities (no audits)"
        return {"N": big_n, "n_audited": n_audited, "estimate": claim, "interval": None, "basis": basis}
    mean_q = sums["sum_q"] / big_n
    whole = Moments(
        big_n, np.array([mean_q, 1.0]), np.array([[max(0.0, sums["sum_q2"] - big_n * mean_q**2), 0.0], [0.0, 0.0]])
    )
    proxy = np.column_stack([1.0 - accepted.p, np.ones(len(accepted.p))])
    gold = np.column_stack([1.0 - accepted.correct, np.ones(len(accepted.p))])
    fig = estimate(without(whole, _moments(proxy)), proxy, gold, _ratio, lam=LAM)
    floor = math.sqrt(float((accepted.p * (1.0 - accepted.p)).mean()) / len(accepted.p))
    low, high = normal_interval(fig.estimate, max(fig.std_error, floor), level)
    return {
        "N": big_n,
        "n_audited": n_audited,
        "estimate": fig.estimate,
        "interval": [max(0.0, low), min(1.0, high)] if math.isfinite(low) else None,
        "std_error": fig.std_error,
        "basis": "prediction-powered (audited items correct the calibrated probabilities)",
        "audit_only": fig.classical,
    }


def calibration(rows: Rows, level: float) -> Calibration:
    """ECE and calibration-in-the-large (mean of ``p - correct``) on the audited rows."""
    import numpy as np

    n = len(rows.p)
    if not n:
        return {"n_audited": 0, "ece": None, "gap": None, "gap_interval": None}
    p, y = rows.p, rows.correct.astype(np.float64)
    count, conf, hits = binned(p, y, ECE_BINS)
    gap_per_bin = np.abs(conf - hits)
    diff = p - y
    gap = float(diff.mean())
    interval = None
    if n >= 2:
        z = normal_quantile((1 + level) / 2)
        half = z * float(diff.std(ddof=1)) / math.sqrt(n)
        interval = [gap - half, gap + half]
    return {"n_audited": n, "ece": float(gap_per_bin.sum() / count.sum()), "gap": gap, "gap_interval": interval}


def _moments(table: Any) -> Any:
    from ek._stats._prediction_powered import moments

    return moments(table)


def _ratio(totals: Any) -> float:
    return float(totals[0] / totals[1])
