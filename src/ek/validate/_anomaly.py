"""Column-level anomaly checks behind `ek.validate`: Benford's law and robust z-scores.

Both take a whole column of numbers, need no dependency, and only flag: a
surprising distribution or magnitude is a reason for a person to look, not
proof of an error. Both skip a column with fewer than ``min_n`` usable
values, because the statistics are noise on a handful of points.

Usable values are real numbers (``bool`` excluded), `decimal.Decimal` s and
strings ``float()`` can read; None, NaN, infinities and anything else are
left out (and, for Benford, zeros, which have no leading digit).
"""

from __future__ import annotations

import math
import numbers
import statistics
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from ek.base import Finding, Severity

__all__ = [
    "BENFORD_EXPECTED",
    "DEFAULT_BENFORD_MIN_N",
    "DEFAULT_BENFORD_TOL",
    "DEFAULT_ZSCORE_THRESHOLD",
    "benford_findings",
    "zscore_anomaly_findings",
]

BENFORD_EXPECTED = {d: math.log10(1 + 1 / d) for d in range(1, 10)}
"""Share of values whose first significant digit is ``d`` under Benford's law: log10(1 + 1/d)."""

DEFAULT_BENFORD_TOL = 0.15
"""Largest allowed gap between the observed and the Benford share of any one digit."""

DEFAULT_BENFORD_MIN_N = 30
"""Fewest usable values for the Benford check to run (the law only holds in bulk)."""

DEFAULT_ZSCORE_THRESHOLD = 3.5
"""Modified z-score beyond which a value is an outlier (the cut-off Iglewicz and Hoaglin advise)."""

_MAD_FACTOR = 0.6745  # Phi^-1(0.75): makes the MAD comparable to a standard deviation
_MEAN_AD_FACTOR = 1.253314  # sqrt(pi / 2): the same for the mean absolute deviation


def benford_findings(
    numbers: Iterable[object],
    *,
    field: str = "",
    tol: float = DEFAULT_BENFORD_TOL,
    min_n: int = DEFAULT_BENFORD_MIN_N,
    layer: str = "anomaly",
) -> list[Finding]:
    """One FLAG when a column's first-digit shares stray from Benford's law, else ``[]``.

    Amounts, populations and counts that span several orders of magnitude
    start with 1 about 30% of the time and with 9 under 5%. When some digit's
    observed share differs from log10(1 + 1/d) by more than ``tol``, the
    column is flagged, as made-up or systematically misread numbers tend to
    be. Bounded or assigned numbers (ages, prices just under a round figure,
    IDs) break the law legitimately, so treat a flag as a reason to review.
    Returns ``[]`` below ``min_n`` usable (non-zero) values.

    Raises:
        ValueError: ``tol`` is not in (0, 1] or ``min_n`` is below 1.

    >>> benford_findings([5, 6, 7, 8, 9] * 10, field="amount")[0].field
    'amount'
    >>> benford_findings([1, 2, 3])
    []
    """
    if isinstance(tol, bool) or not isinstance(tol, (int, float)) or not 0 < tol <= 1:
        raise ValueError(
            f"benford_findings() tol must be a share in (0, 1], got {tol!r}; the default "
            f"{DEFAULT_BENFORD_TOL} tolerates a 15-point gap on any digit."
        )
    _check_min_n(min_n, "benford_findings")
    digits = [d for d in (_first_digit(v) for _, v in _usable(numbers)) if d is not None]
    n = len(digits)
    if n < min_n:
        return []
    counts = dict.fromkeys(range(1, 10), 0)
    for d in digits:
        counts[d] += 1
    gaps = {d: counts[d] / n - BENFORD_EXPECTED[d] for d in counts}
    worst = max(gaps, key=lambda d: abs(gaps[d]))
    if abs(gaps[worst]) <= tol:
        return []
    observed, expected = counts[worst] / n, BENFORD_EXPECTED[worst]
    where = f"{field!r}" if field else "the column"
    message = (
        f"first digits of {where} (n={n}) stray from Benford's law: {observed:.1%} of values "
        f"start with {worst}, expected {expected:.1%} (gap {abs(gaps[worst]):.3f} > tol {tol:g}); "
        "check for invented or systematically misread numbers"
    )
    return [Finding(field, layer, Severity.FLAG, message)]


def zscore_anomaly_findings(
    numbers: Iterable[object],
    *,
    field: str = "",
    threshold: float = DEFAULT_ZSCORE_THRESHOLD,
    min_n: int = DEFAULT_BENFORD_MIN_N,
    layer: str = "anomaly",
) -> list[Finding]:
    """One FLAG per value whose robust (median/MAD) z-score exceeds ``threshold``.

    The modified z-score of ``x`` is ``0.6745 * (x - median) / MAD`` with MAD
    the median absolute deviation, so the outliers being hunted barely move
    the scale. When more than half the values are equal the MAD is 0; the
    scale then falls back to ``1.253314 * mean absolute deviation`` (as
    Iglewicz and Hoaglin suggest), so a lone outlier in a near-constant
    column is still caught, while a constant column yields nothing. Each
    finding's ``field`` is ``"<field>[<index>]"``, the value's position in
    ``numbers``. Returns ``[]`` below ``min_n`` usable values.

    Raises:
        ValueError: ``threshold`` is not a positive number or ``min_n`` is below 1.

    >>> [f.field for f in zscore_anomaly_findings([10, 11, 9, 10, 500, 10, 12], field="qty", min_n=5)]
    ['qty[4]']
    """
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not threshold > 0:
        raise ValueError(
            f"zscore_anomaly_findings() threshold must be a positive number, got {threshold!r}; "
            f"the usual cut-off is {DEFAULT_ZSCORE_THRESHOLD}."
        )
    _check_min_n(min_n, "zscore_anomaly_findings")
    pairs = [(i, float(v)) for i, v in _usable(numbers)]
    if len(pairs) < min_n:
        return []
    values = [x for _, x in pairs]
    median = statistics.median(values)
    deviations = [abs(x - median) for x in values]
    mad = statistics.median(deviations)
    if mad > 0:
        scale = mad / _MAD_FACTOR
        basis = f"MAD {mad:.4g}"
    else:
        mean_ad = math.fsum(deviations) / len(deviations)
        if mean_ad == 0:
            return []
        scale = _MEAN_AD_FACTOR * mean_ad
        basis = f"MAD 0, so mean absolute deviation {mean_ad:.4g}"
    out = []
    for i, x in pairs:
        z = (x - median) / scale
        if abs(z) > threshold:
            message = (
                f"value {x:g} at index {i} is a magnitude outlier: modified z-score {z:.2f} is beyond "
                f"±{threshold:g} (median {median:g}, {basis}, n={len(values)})"
            )
            out.append(Finding(f"{field}[{i}]", layer, Severity.FLAG, message))
    return out


# ---------------------------------------------------------------------------


def _check_min_n(min_n: Any, who: str) -> None:
    if isinstance(min_n, bool) or not isinstance(min_n, int) or min_n < 1:
        raise ValueError(
            f"{who}() min_n must be an int >= 1, got {min_n!r}; it is the fewest usable values "
            "the check needs before it says anything."
        )


def _usable(values: Iterable[Any]) -> list[tuple[int, Any]]:
    """``(index, value)`` for each finite number; the value keeps its exact form for digits."""
    if isinstance(values, (str, bytes)):
        raise TypeError(f"expected a column of numbers, got the single string {values!r:.40}; pass a list.")
    out = []
    for i, v in enumerate(values):
        exact = _as_number(v)
        if exact is not None:
            out.append((i, exact))
    return out


def _as_number(v: Any) -> Any | None:
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, Decimal):
        return v if v.is_finite() else None
    if isinstance(v, numbers.Integral):
        return int(v)
    if isinstance(v, numbers.Real):
        x = float(v)
    elif isinstance(v, str):
        try:
            x = float(v.strip())
        except ValueError:
            return None
    else:
        return None
    return x if math.isfinite(x) else None


def _first_digit(v: Any) -> int | None:
    """First significant digit, read off the exact text of the number (None for zero)."""
    text = repr(v) if isinstance(v, float) else str(v)
    for ch in text:
        if ch in "123456789":
            return int(ch)
        if ch in "eE":
            break
    return None
