"""The bootstrap of a corpus estimate: the id-hash Poisson weights of `ek._bootstrap`, over corpus and audit.

Replicate ``b`` gives every item the weight ``w(id, b)`` of `ek._bootstrap`
and recomputes the estimate from weighted sums at the estimate's own
``λ``. The corpus part comes from the proxy report's replicate sums
(`ek._bootstrap.resampled`, made once and kept on the report, the same sums
behind ``proxy.interval()``); the audit part is weighed here, ``n`` items
only. The unaudited sums are the corpus's less the audit's. So:

* uniform audit: ``T_b = N (λ Σ_U w ŝ / Σ_U w + Σ_L w (s - λ ŝ) / Σ_L w)``;
* planned audit: ``T_b = λ Σ_all w ŝ + Σ_L w (s - λ ŝ) / π``;

and the interval is the percentile interval of ``value(T_b)``
(`ek._bootstrap.interval_of`). The weights depend on the item ids alone, so
an estimate is the same on every machine and two engines audited on the
same ids are resampled alike (`ek.compare_estimates` pairs them).
"""

from __future__ import annotations

import math
from typing import Any

from ek._bootstrap import interval_of, replicate_sums, resampled
from ek._corpus_estimates._columns import Columns
from ek._stats._prediction_powered import Weights

__all__ = ["Replicates", "percentile", "replicate_values"]

Replicates = dict[int | None, tuple[list[float], list[float]]]
"""Group (None: the whole corpus; else a slice code) -> (the estimate's replicate values, the classical ones)."""


def replicate_values(
    proxy: Any, p: Columns, a: Columns, rows: Any, inclusion: Any, lams: dict[int | None, Weights | None]
) -> Replicates:
    """``{group: (the estimate's replicate values, the classical ones)}`` for the whole corpus (None) and each slice."""
    import numpy as np

    k = len(p.names)
    corpus = resampled(proxy)
    codes = p.codes[rows]
    slots = {g: i for i, g in enumerate(sorted(set(codes.tolist())))}
    parts = [a.table, p.table[rows]]
    if inclusion is not None:
        parts += [a.table / inclusion[:, None], p.table[rows] / inclusion[:, None]]
    table = np.concatenate(parts, axis=1)
    audit = replicate_sums(
        a.ids, table, np.fromiter((slots[c] for c in codes.tolist()), dtype=np.int64, count=len(codes)), len(slots)
    )
    out: Replicates = {}
    for group, lam in lams.items():
        if lam is None:
            continue
        if group is None:
            mine, whole, size = audit.sum(axis=0), corpus.overall, p.n
        elif group in slots:
            mine, whole, size = audit[slots[group]], corpus.per_slice[p.labels[group]], int((p.codes == group).sum())
        else:
            continue
        sums, weighed = np.asarray(whole, dtype=np.float64), np.asarray(mine, dtype=np.float64)
        planned = inclusion is not None
        out[group] = (
            _values(sums, weighed, k, lam, size, p, planned),
            _values(sums, weighed, k, 0.0, size, p, planned),
        )
    return out


def percentile(values: Any, level: float) -> tuple[float, float]:
    """The percentile interval of replicate ``values`` (NaN ones left out)."""
    low, high = interval_of(values, level)
    return (float(low), float(high))


# ---------------------------------------------------------------------------


def _values(whole: Any, audit: Any, k: int, lam: Any, size: int, p: Columns, planned: bool) -> list[float]:
    """``value(T_b)`` for every replicate (NaN where a replicate drew no audited or no unaudited item)."""
    import numpy as np

    lam = np.broadcast_to(np.asarray(lam, dtype=np.float64), (k,))
    gold, proxy, weight = audit[:, :k], audit[:, k : 2 * k], audit[:, -1]
    if planned:
        totals = lam * whole[:, :k] + audit[:, 2 * k : 3 * k] - lam * audit[:, 3 * k : 4 * k]
        empty = weight == 0
    else:
        rest_w = whole[:, k] - weight
        rest = np.zeros((len(weight), k))
        np.divide(whole[:, :k] - proxy, rest_w[:, None], out=rest, where=rest_w[:, None] > 0)
        audited = np.zeros((len(weight), k))
        np.divide(gold - lam * proxy, weight[:, None], out=audited, where=weight[:, None] > 0)
        totals = size * (lam * rest + audited)
        empty = (weight == 0) | ((rest_w == 0) & bool((lam > 0).any()))
    return [math.nan if skip else _safe(p, row) for skip, row in zip(empty.tolist(), totals.tolist())]


def _safe(p: Columns, totals: list[float]) -> float:
    try:
        return p.value(totals)
    except ZeroDivisionError:
        return math.nan
