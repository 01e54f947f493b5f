"""Choosing what to audit: inclusion probabilities, a Poisson draw, and the audit size a target needs.

`plan` sets every corpus item's inclusion probability ``π`` so that the
probabilities add up to the budget, then draws each item on its own with
its probability (Poisson sampling, seeded), so `ek.estimate_corpus` can
weigh each audited item by ``1 / π`` and stay unbiased:

* ``"uniform"``: ``π = budget / N`` for every item;
* ``"stratified"``: Neyman allocation over the proxy's slices (items
  without a slice are one stratum): stratum ``h`` gets
  ``n_h ∝ N_h · σ_h`` labels, ``σ_h`` the root mean square of its items'
  predicted uncertainty, capped at ``N_h`` with the excess passed on;
* ``"active"``: ``π ∝`` the item's predicted uncertainty (the optimum of
  Zrnic & Candès' active inference), floored at ``min_prob`` and capped at
  1, the factor found by bisection so the sum is the budget.

An item's predicted uncertainty is ``detail["uncertainty"]`` when every
proxy score carries one (`ek.confidence_proxy` does: the standard deviation
of its statistics under the calibrated probabilities). Otherwise it is the
Poisson rule, a count's variance being about its mean:
``sqrt(Σ_j |g_j| ŝ_j)``, with ``g`` the gradient of the metric's figure at
the proxy's totals, so an item with more (proxy) errors and more text is
less certain. ``min_prob`` defaults to a quarter of the uniform rate, so
no item weighs more than four uniform ones. Any floor keeps the estimate
valid; the floor bounds how much a wrong uncertainty can cost.

`ek.CorpusEstimate.half_width_for` and ``labels_for`` answer the other
planning question, how many labels a target half-width needs, from a pilot.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

from ek._corpus_estimates._columns import columns, detail_column
from ek._corpus_estimates._values import STRATEGIES, AuditPlan, PlanDetail
from ek._stats._prediction_powered import gradient
from ek._util import is_real, type_name
from ek.base import Report

__all__ = ["plan", "poisson_uncertainty", "probabilities"]

_FLOOR_SHARE = 0.25  # default min_prob, as a share of budget / N
_WHO = "plan_audit()"


def plan(proxy: Report, budget: float, *, strategy: str, seed: int, min_prob: float | None) -> AuditPlan:
    """The `ek.AuditPlan` for ``proxy`` (see the module docstring)."""
    import numpy as np

    if strategy not in STRATEGIES:
        raise ValueError(f"{_WHO} strategy must be one of {', '.join(map(repr, STRATEGIES))}, got {strategy!r}.")
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"{_WHO} seed must be an integer (it makes the draw reproducible), got {type_name(seed)}.")
    p = columns(proxy, role="proxy", who=_WHO)
    n_items = p.n
    budget = _checked_budget(budget, n_items)
    floor = _checked_floor(min_prob, budget, n_items)
    detail: PlanDetail = {}  # "uncertainty": where it came from; "allocation": slice -> expected labels
    spread = None
    if strategy != "uniform":
        spread, detail["uncertainty"] = _uncertainty(proxy, p)
    probs, allocation = probabilities(strategy, spread, p.codes, budget, floor)
    if allocation is not None:
        detail["allocation"] = {(None if h < 0 else p.labels[h]): share for h, share in allocation.items()}
    drawn = np.random.default_rng(int(seed)).random(n_items) < probs
    rows = np.flatnonzero(drawn)
    ids = tuple(p.ids[i] for i in rows.tolist())
    return AuditPlan(
        ids=ids,
        probabilities=tuple(probs[rows].tolist()),
        strategy=strategy,
        budget=float(budget),
        N=n_items,
        seed=int(seed),
        min_prob=float(min(floor, probs.min())),
        detail=detail,
    )


def probabilities(
    strategy: str, spread: Any, codes: Any, budget: float, floor: float
) -> tuple[Any, dict[int, float] | None]:
    """Every item's inclusion probability, and for ``"stratified"`` the expected labels per stratum code.

    ``spread`` is each item's predicted uncertainty (unused by ``"uniform"``),
    ``codes`` its stratum (-1: none), ``floor`` the least probability.
    """
    import numpy as np

    if strategy == "uniform":
        return np.full(len(codes), budget / len(codes)), None
    if strategy == "active":
        return _proportional(np.asarray(spread, dtype=np.float64), budget, floor), None
    return _neyman(np.asarray(spread, dtype=np.float64), np.asarray(codes), budget, floor)


def poisson_uncertainty(table: Any, value: Any) -> Any:
    """The Poisson rule: ``sqrt(Σ_j |g_j| s_j)`` per row, ``g`` the gradient of ``value`` at the column totals."""
    import numpy as np

    g = np.abs(np.asarray(gradient(value, table.sum(axis=0))))
    if not np.isfinite(g).all():
        g = np.ones(table.shape[1])
    return np.sqrt(table @ g)


# ---------------------------------------------------------------------------


def _checked_budget(budget: Any, n_items: int) -> float:
    if not is_real(budget) or not budget > 0 or math.isinf(budget):
        raise ValueError(f"{_WHO} budget must be a positive number of items to audit, got {budget!r}.")
    if budget > n_items:
        raise ValueError(
            f"{_WHO} budget {budget:g} is larger than the corpus ({n_items} items); audit at most every "
            "item, and then the audit alone is the answer (ek.evaluate)."
        )
    return float(budget)


def _checked_floor(min_prob: float | None, budget: float, n_items: int) -> float:
    if min_prob is None:
        return _FLOOR_SHARE * budget / n_items
    if not is_real(min_prob) or not 0 < min_prob <= 1:
        raise ValueError(
            f"{_WHO} min_prob must be in (0, 1] (every item keeps a chance to be drawn), got {min_prob!r}."
        )
    if min_prob * n_items > budget:
        raise ValueError(
            f"{_WHO} min_prob {min_prob:g} over {n_items} items draws {min_prob * n_items:g} items "
            f"on average, more than the budget {budget:g}; lower min_prob or raise the budget."
        )
    return float(min_prob)


def _uncertainty(proxy: Any, p: Any) -> tuple[Any, str]:
    """Each item's predicted uncertainty and where it came from."""
    import numpy as np

    given = detail_column(proxy, "uncertainty")
    if given is not None and np.isfinite(given).all() and (given >= 0).all():
        return given, "detail['uncertainty']"
    return poisson_uncertainty(p.table, p.value), "Poisson rule: sqrt(sum_j |g_j| s_j)"


def _proportional(spread: Any, budget: float, floor: float) -> Any:
    """``clip(c · spread, floor, 1)`` summing to ``budget`` (uniform when nothing is uncertain).

    The sum is increasing in ``c`` and, over the sorted spreads and their
    prefix sums, costs two binary searches to evaluate, so ``c`` is found by
    bisection to the last bit without touching every item each step.
    """
    import numpy as np

    n_items = len(spread)
    if not spread.max() > 0:
        return np.full(n_items, budget / n_items)
    ordered = np.sort(spread)
    prefix = np.concatenate([[0.0], np.cumsum(ordered)])

    def total(c: float) -> float:
        low = int(np.searchsorted(ordered, floor / c, side="right"))  # these stay at the floor
        high = max(low, int(np.searchsorted(ordered, 1 / c, side="left")))  # from here on, probability 1
        return floor * low + c * float(prefix[high] - prefix[low]) + (n_items - high)

    low, high = 0.0, 1.0 / float(ordered[-1])
    while total(high) < budget:
        high *= 2
    for _ in range(80):
        mid = (low + high) / 2
        if mid <= low or mid >= high:
            break
        low, high = (mid, high) if (mid == 0 or total(mid) < budget) else (low, mid)
    return np.clip(high * spread, floor, 1)


def _neyman(spread: Any, codes: Any, budget: float, floor: float) -> tuple[Any, dict[int, float]]:
    """Stratum probabilities by Neyman allocation, and the expected labels per stratum code."""
    import numpy as np

    shifted = codes + 1  # stratum -1 (no slice) counts as 0
    size_all = np.bincount(shifted).astype(np.float64)
    present = np.flatnonzero(size_all)
    size = size_all[present]
    sigma = np.sqrt(np.bincount(shifted, weights=spread**2)[present] / size)
    weight = size * sigma if (size * sigma).sum() > 0 else size.copy()
    rate = np.zeros(len(size_all))
    rate[present] = np.maximum(_capped(weight, size, budget) / size, floor)
    probs = rate[shifted]
    probs = np.minimum(probs * (budget / probs.sum()), 1.0)
    labels = np.bincount(shifted, weights=probs)
    return probs, {int(h) - 1: float(labels[h]) for h in present}


def _capped(weight: Any, size: Any, budget: float) -> Any:
    """``budget`` shared in proportion to ``weight``, no stratum above its size (excess passed on)."""
    import numpy as np

    share = np.zeros(len(weight))
    free = np.ones(len(weight), dtype=bool)
    left = budget
    while left > 1e-12 and free.any() and weight[free].sum() > 0:
        part = left * weight * free / weight[free].sum()
        over = free & (share + part >= size)
        if not over.any():
            share += part
            break
        left -= float((size[over] - share[over]).sum())
        share[over] = size[over]
        free &= ~over
    return share
