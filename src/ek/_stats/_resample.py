"""Seeded percentile bootstraps over a list of units: of any statistic, of a mean, of a ratio of sums.

These draw units with replacement from `random.Random(seed)`, so an
interval is fixed by its seed; their ends are `_quantiles.quantile` of the
sorted resampled figures at ``alpha / 2`` and ``1 - alpha / 2``. (The
reports' bootstrap is the other kind: hash-derived Poisson weights per
item id, in `_weights`, so parts of a corpus merge and runs pair.) Inputs
are checked by the callers.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Sequence
from typing import TypeVar

from ek._stats._binomial import multinomial
from ek._stats._quantiles import quantile

__all__ = ["EXACT_DRAWS", "bootstrap", "mean_interval", "ratio_interval"]

EXACT_DRAWS = 500_000
"""Unit draws a ratio bootstrap makes exactly; beyond it, it draws groups (see `ratio_interval`)."""

_MAX_GROUPS = 64
_U = TypeVar("_U")


def bootstrap(
    values: Sequence[_U], statistic: Callable[[list[_U]], float], *, resamples: int, alpha: float, seed: int
) -> tuple[float, float]:
    """Percentile interval of ``statistic`` over ``resamples`` resamples of ``values`` (non-empty).

    Raises:
        ValueError: the statistic returned NaN on a resample.
    """
    rng = random.Random(seed)
    n = len(values)
    stats = []
    for _ in range(resamples):
        s = float(statistic(rng.choices(values, k=n)))
        if math.isnan(s):
            raise ValueError(
                "bootstrap_ci(): the statistic returned NaN on a resample; make it return a "
                "number (or inf) for every non-empty sample."
            )
        stats.append(s)
    return _ends(stats, alpha)


def mean_interval(
    values: Sequence[float], *, resamples: int = 2000, alpha: float = 0.05, seed: int = 0
) -> tuple[float, float]:
    """Percentile bootstrap interval of a mean, drawn through the histogram of values.

    A resample of ``n`` values from a sample with few distinct values is a
    multinomial draw of counts over those values, so each resample costs one
    binomial draw per distinct value instead of ``n`` draws. Per-task pass^k
    values take at most ``trials + 1`` distinct values, which makes this
    exact bootstrap fast on a 10,000-task suite.
    """
    n = len(values)
    hist = sorted(Counter(values).items())
    if len(hist) == 1:
        v = float(hist[0][0])
        return v, v
    rng = random.Random(seed)
    points = [float(v) for v, _ in hist]
    sizes = [m for _, m in hist]
    means = []
    for _ in range(resamples):
        counts = multinomial(rng, n, sizes)
        means.append(sum([v * m for v, m in zip(points, counts)]) / n)
    return _ends(means, alpha)


def ratio_interval(
    numerators: Sequence[float],
    denominators: Sequence[float],
    *,
    resamples: int = 2000,
    alpha: float = 0.05,
    seed: int = 0,
) -> tuple[float, float]:
    """Percentile bootstrap of ``sum(num) / sum(den)`` over paired units (inf when den sums to 0).

    Units are resampled exactly while ``n * resamples`` stays within
    `EXACT_DRAWS`. Beyond that, if the denominators take few distinct values
    (successes per task: 0..k), a resample draws how many units of each
    denominator value it holds exactly (a multinomial), and the numerator
    sum of each such group from its normal limit (the group's mean and
    variance, clipped to the group's range): O(groups) work per resample
    instead of O(n), and indistinguishable at that size. Otherwise the
    number of resamples is cut to the budget (at least 200).
    """
    n = len(numerators)
    rng = random.Random(seed)
    groups: dict[float, list[float]] = {}
    if n * resamples > EXACT_DRAWS:
        for x, d in zip(numerators, denominators):
            groups.setdefault(d, []).append(x)
        if len(groups) > _MAX_GROUPS:
            resamples, groups = max(200, EXACT_DRAWS // n), {}
    if groups:
        ratios = _grouped_ratios(rng, n, groups, resamples)
    else:
        ratios = []
        idx_range = range(n)
        for _ in range(resamples):
            idx = rng.choices(idx_range, k=n)
            num = sum(map(numerators.__getitem__, idx))
            den = sum(map(denominators.__getitem__, idx))
            ratios.append(num / den if den else math.inf)
    return _ends(ratios, alpha)


# ---------------------------------------------------------------------------


def _grouped_ratios(rng: random.Random, n: int, groups: dict[float, list[float]], resamples: int) -> list[float]:
    """The ratio of ``resamples`` resamples drawn group by group (see `ratio_interval`)."""
    keys = sorted(groups)
    sizes = [len(groups[d]) for d in keys]
    stats = []
    for d in keys:
        xs = groups[d]
        mean = math.fsum(xs) / len(xs)
        sd = math.sqrt(math.fsum((x - mean) ** 2 for x in xs) / len(xs))
        stats.append((d, mean, sd, min(xs), max(xs)))
    ratios = []
    for _ in range(resamples):
        num = den = 0.0
        for (d, mean, sd, lo, hi), m in zip(stats, multinomial(rng, n, sizes)):
            if m:
                part = m * mean + (math.sqrt(m) * sd * rng.gauss(0.0, 1.0) if sd else 0.0)
                num += min(max(part, m * lo), m * hi)
                den += m * d
        ratios.append(num / den if den else math.inf)
    return ratios


def _ends(figures: list[float], alpha: float) -> tuple[float, float]:
    figures.sort()
    return quantile(figures, alpha / 2), quantile(figures, 1 - alpha / 2)
