"""`ek.compare_estimates`: engine B against engine A on one corpus and one audit, paired item by item.

Both estimates keep what they were made from. The difference is estimated
as one figure over the two engines' statistics side by side,
``value_B(T_B) - value_A(T_A)``, so its delta-method variance counts what
the two engines share on every item (the same documents, the same audit):
a paired interval. When both estimates were tuned (``lam="tune"``), one
``λ`` is tuned on that paired difference, as ppi_py tunes a mean of
differences (cross-fitted as in `ek._stats._prediction_powered`, with its Student t
interval at most the smaller effective audit size of the two figures less
one): the difference is then its own prediction-powered estimate,
``delta``, not exactly ``b - a`` of the two estimates, which keep their
own ``λ``. Unlike one estimate, the difference is cross-fitted at any
effective size: both engines read the same documents, so their lengths
largely cancel. On two equal engines (scripts/ppi_grid.py: lognormal
lengths σ = 0.5, proxies of correlation 0.9 and 0.5, 1,000 replications)
it rejected "no difference" at 10% in 11.6/11.7% at n = 30 (10.8/9.6%
over 4,000 more), 10.4/10.4% at n = 100 and 10.7/8.2% at n = 300 (each
engine at its own plug-in ``λ`` with a normal interval: 14.6/13.3% at
n = 30); against B at 0.7 × A's error rate with the weaker proxy it found
the difference 74% of the time at n = 30 and 99.4% at n = 100, where
plain PPI (``λ = 1``) found it 29% and 53%. With a fixed ``λ`` each half
keeps its estimate's ``λ`` and ``delta`` is exactly ``b - a``. With
``interval="bootstrap"`` both estimates were resampled with the same
id-hash weights, so the replicate differences are the paired bootstrap,
as in `ek.compare`. A row either estimate flags
``reliable: false`` is flagged too (its ``reliable`` and ``why``, the
whole corpus's on the Comparison too, and "not reliable: ..." in its verdict).
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from typing import Any, TypedDict

from ek._bootstrap import MIN_ITEMS, interval_of, p_value_of, verdict
from ek._corpus_estimates._columns import examples
from ek._corpus_estimates._corpus import Basis, group_rows
from ek._corpus_estimates._values import CorpusEstimate
from ek._stats._prediction_powered import Moments, effective_size, estimate, moments, normal_interval, p_value, without
from ek.base import Comparison, SliceComparison

__all__ = ["Row", "Sides", "Verdict", "compare"]

_WHO = "compare_estimates()"


class Verdict(TypedDict):
    """Whether B differs from A: the interval of ``B - A``, its p-value and the verdict in words."""

    interval: tuple[float, float]
    p_value: float
    verdict: str


class Sides(TypedDict):
    """Both engines' figures over a group, their difference and the audited items it rests on."""

    a: float | None
    b: float | None
    delta: float | None
    n: int


class Row(Sides, Verdict):
    """One row of the comparison: the whole corpus's, or a slice's."""


def compare(a: CorpusEstimate, b: CorpusEstimate) -> Comparison:
    """The `ek.Comparison` of estimate ``b`` against estimate ``a`` (see `ek.compare_estimates`).

    Each row carries its flag (`_flagged`): the slices' in their dicts, the whole corpus's in the
    Comparison's ``reliable`` and ``why`` and in its verdict, ``"not reliable: ..."``; its ``n`` is the corpus's.
    """
    ba, bb = _basis(a, "a"), _basis(b, "b")
    _check_pair(a, b, ba, bb)
    joint = _Joint(ba, bb)
    up = a.detail.get("higher_is_better")
    up = up if isinstance(up, bool) else None
    groups: list[int | None] = [None, *range(len(ba.p.labels))]
    rows = {g: _flagged(joint.row(g, a.level, up), a, b, None if g is None else ba.p.labels[g]) for g in groups}
    per_slice: dict[Hashable, SliceComparison] = {ba.p.labels[g]: rows[g] for g in groups if g is not None}
    whole = rows[None]
    return Comparison(
        metric=a.metric,
        a=whole["a"],
        b=whole["b"],
        delta=whole["delta"],
        interval=whole["interval"],
        p_value=whole["p_value"],
        verdict=whole["verdict"],
        per_slice=per_slice,
        level=a.level,
        n=a.n,
        higher_is_better=up,
        reliable=whole["reliable"],
        why=whole["why"],
    )


# ---------------------------------------------------------------------------


def _basis(estimate_: object, name: str) -> Basis:
    if not isinstance(estimate_, CorpusEstimate):
        raise TypeError(
            f"{_WHO} argument {name} is {type(estimate_).__name__}, not a CorpusEstimate; pass two "
            "ek.estimate_corpus results."
        )
    basis = estimate_._basis
    if not isinstance(basis, Basis):
        raise ValueError(
            f"{_WHO} argument {name} does not keep what it was estimated from (built by hand, or "
            "unpickled); compare estimates made by ek.estimate_corpus in this process."
        )
    return basis


def _check_pair(a: Any, b: Any, ba: Basis, bb: Basis) -> None:
    if a.metric != b.metric:
        raise ValueError(
            f"{_WHO} got a {a.metric!r} estimate and a {b.metric!r} one; compare two engines scored "
            "with the same metric."
        )
    if a.level != b.level or ba.interval != bb.interval:
        raise ValueError(
            f"{_WHO} got estimates at level {a.level} ({ba.interval}) and {b.level} ({bb.interval}); "
            "estimate both with the same level= and interval=."
        )
    if ba.p.n != bb.p.n:
        raise ValueError(
            f"{_WHO}: engine A's corpus has {ba.p.n} items and B's {bb.p.n}; compare engines run over the same corpus."
        )
    bb.p.rows(ba.p.ids, who=f"{_WHO} (A's corpus in B's)")
    texts_a = set(map(str, ba.a.ids))
    only = [i for i in bb.a.ids if str(i) not in texts_a]
    if only or len(texts_a) != bb.a.n:
        raise ValueError(
            f"{_WHO} needs both engines audited on the same items; A has {ba.a.n} audited items and B "
            f"{bb.a.n}{examples(only)}. Audit the same ids for both (one labelling serves both)."
        )
    if (ba.inclusion is None) != (bb.inclusion is None):
        raise ValueError(f"{_WHO}: one estimate used a plan and the other did not; estimate both with the same plan=.")


class _Joint:
    """The two engines' statistics side by side: corpus table, audit rows, λ per group, figure of B - A."""

    def __init__(self, ba: Basis, bb: Basis) -> None:
        import numpy as np

        self.ba, self.bb = ba, bb
        self.k = len(ba.p.names)
        in_b = bb.p.rows(ba.p.ids, who=_WHO)  # B's row of each of A's items
        self.table = np.concatenate([ba.p.table, bb.p.table[in_b]], axis=1)
        where = {str(i): j for j, i in enumerate(bb.a.ids)}
        order = np.fromiter((where[str(i)] for i in ba.a.ids), dtype=np.int64, count=ba.a.n)
        self.gold = np.concatenate([ba.a.table, bb.a.table[order]], axis=1)
        self.inclusion = ba.inclusion
        self.codes = ba.p.codes

    def value(self, totals: Any) -> float:
        return self.bb.p.value(totals[self.k :]) - self.ba.p.value(totals[: self.k])

    def row(self, group: int | None, level: float, up: bool | None) -> Row:
        """One row of the comparison: a, b, delta, interval, p_value, verdict, n."""
        import numpy as np

        at = group_rows(self.ba.p, self.ba.rows, group)
        n = len(at)
        ea, eb = self.ba.lams.get(group), self.bb.lams.get(group)
        figure_a, figure_b = _figure(self.ba, group), _figure(self.bb, group)
        out: Sides = {
            "a": figure_a,
            "b": figure_b,
            "delta": None if figure_a is None or figure_b is None else figure_b - figure_a,
            "n": n,
        }
        if n < 2 or ea is None or eb is None:
            return {
                **out,
                "interval": (math.nan, math.nan),
                "p_value": math.nan,
                "verdict": f"too few items (n={n}) to tell",
            }
        if self.ba.replicates is not None:
            if n < MIN_ITEMS:
                return {
                    **out,
                    "interval": (math.nan, math.nan),
                    "p_value": math.nan,
                    "verdict": f"too few items (n={n}) for the bootstrap to tell (use interval='clt')",
                }
            return {**out, **self._bootstrap(group, level, up)}
        mine = self.ba.rows[at]
        whole = moments(self.table if group is None else self.table[self.codes == group])
        unaudited = without(whole, moments(self.table[mine]))
        tuned = self.ba.asked == "tune" and self.bb.asked == "tune"
        lam = "tune" if tuned else np.concatenate([np.full(self.k, ea), np.full(self.k, eb)])
        inclusion = None if self.inclusion is None else self.inclusion[at]
        fig = estimate(
            unaudited,
            self.table[mine],
            self.gold[at],
            self.value,
            lam=lam,
            inclusion=inclusion,
            size=self._size(unaudited, mine, inclusion),
            min_size=0.0,  # cross-fitted at any effective size: see the module docstring
        )
        low, high = normal_interval(fig.estimate, fig.std_error, level, fig.df)
        p = p_value(fig.estimate, fig.std_error, fig.df)
        return {
            **out,
            "delta": fig.estimate,
            "interval": (low, high),
            "p_value": p,
            "verdict": verdict(low, high, up) if low == low else "no detectable difference",
        }

    def _size(self, unaudited: Moments, mine: Any, inclusion: Any) -> float:
        """The smaller of the two engines' effective audit sizes (each from its own figure's weights)."""
        sizes = []
        for side, basis in ((slice(0, self.k), self.ba), (slice(self.k, 2 * self.k), self.bb)):
            part = Moments(unaudited.n, unaudited.mean[side], unaudited.scatter[side, side])
            sizes.append(effective_size(part, self.table[mine][:, side], basis.p.value, inclusion))
        known = [
            x for x in sizes if not math.isnan(x)
        ]  # NaN: a figure without weights (see ek._stats._prediction_powered)
        return min(known) if known else math.nan

    def _bootstrap(self, group: int | None, level: float, up: bool | None) -> Verdict:
        import numpy as np

        mine, theirs = self.ba.replicates, self.bb.replicates  # both estimates were bootstrapped (_check_pair)
        va = None if mine is None else mine.get(group)
        vb = None if theirs is None else theirs.get(group)
        if va is None or vb is None:
            return {"interval": (math.nan, math.nan), "p_value": math.nan, "verdict": "no detectable difference"}
        d = np.asarray(vb[0], dtype=np.float64) - np.asarray(va[0], dtype=np.float64)
        low, high = interval_of(d, level)
        p = p_value_of(d)
        return {
            "interval": (float(low), float(high)),
            "p_value": p,
            "verdict": verdict(low, high, up) if p < round(1 - level, 12) else "no detectable difference",
        }


def _flagged(row: Row, a: CorpusEstimate, b: CorpusEstimate, label: Hashable) -> SliceComparison:
    """``row`` with ``reliable`` (False when either estimate's group is: too few audited items, or too small
    an effective size, `ek._corpus_estimates._corpus`) and ``why``; a flagged row's verdict says why.

    An interval either estimate does not trust is no ground for a verdict:
    its difference rests on the same audited items.
    """
    whys = []
    for name, est in (("A", a), ("B", b)):
        entry = est.detail if label is None else est.per_slice.get(label, {})
        if entry.get("reliable") is False:
            whys.append(f"engine {name}: {entry.get('why')}")
    why = "; ".join(whys) if whys else None
    out: SliceComparison = {**row, "reliable": why is None, "why": why}
    if why is not None and row["n"] >= 2:
        out["verdict"] = f"not reliable: {why}"
    return out


def _figure(basis: Basis, group: int | None) -> float | None:
    figure = basis.figures.get(group)
    return None if figure is None else float(figure)
