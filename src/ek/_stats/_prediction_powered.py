"""Prediction-powered estimates of a corpus figure from statistic columns: the pure maths.

Every ek corpus figure is ``value(T)``, a function of the statistics ``T``
summed over the corpus (edits and reference lengths for CER, TP/FP/FN for
micro-F1, a sum and a count for a mean). Gold is known for ``n`` audited
items only; a *proxy* of every item's statistics (``ŝ``, scored against a
stand-in for gold) is known for all ``N``. With ``λ`` the weight given to the
proxy, the estimated totals are

* uniform audit (no plan; ppi_py's two-sample convention, the unlabelled
  set ``U`` being the ``N - n`` items not audited):
  ``T = N · (λ · mean_U(ŝ) + mean_L(s - λ ŝ))``;
* a Poisson sample with inclusion probabilities ``π`` (a plan; the active
  inference estimator of Zrnic & Candès 2024):
  ``T = Σ_all λ ŝ + Σ_L (s - λ ŝ) / π``.

The figure is ``value(T)`` and its standard error comes from the delta
method written once for every metric: ``g = ∇value(T)`` (central
differences, so any ``compute`` serves), each item's influence ``ψ = g · s``
and its proxy ``ψ̂ = g · ŝ``. Uniform audits:
``Var = N² [λ² Var_U(ψ̂) / N_U + Var_L(ψ - λ ψ̂) / n]`` (variances with
ddof 0), which is ppi_py's ``ppi_mean_ci`` when the statistics are a value
and a count of 1, and for a ratio ``A / B`` is
``[λ² Var_U(ê - θ r̂) / N_U + Var_L((e - θ r) - λ (ê - θ r̂)) / n] / B²``
with ``B`` the estimated mean denominator. Planned audits:
``Var = N · Var_all(g · t)`` over the per-item terms
``t = λ ŝ + ξ (s - λ ŝ) / π`` (``ξ`` = audited), the superpopulation
variance, so both designs bound the same target the same way.

PPI++'s plug-in power tuning (``lam="plug-in"``) is computed as ppi_py
computes it: the influences at the ``λ = 1`` estimate, then
``λ = Cov_L(ψ, ψ̂) / ((1 + n / N_U) · Var_all(ψ̂))`` (covariance with ddof 0,
ppi_py's ``np.cov`` with ddof 1 for the variance over all ``N`` proxies),
clipped to ``[0, 1]``; for planned audits, the ``λ`` minimising
``Var_all(t)``, clipped the same way. ``λ = 0`` is the classical,
audit-only estimate; ``λ = 1`` plain PPI.

The plug-in ``λ`` is chosen by the labels it then corrects: it grows with
the audit's own proxy mean, so the estimate is biased at small ``n``. On
CER corpora (scripts/ppi_grid.py: N = 5,000, lognormal lengths σ = 0.5, a
proxy of correlation 0.5 or 0.9, uniform audits) its relative bias was
-2.0% at n = 20 (8 MC s.e.) and its 90% intervals covered 81-83%.
``lam="tune"`` therefore cross-fits: audited item ``i`` is in fold
``i mod 5``, each fold is corrected at the plug-in ``λ`` tuned on the other
four, the unaudited items get the folds' mean ``λ`` (``lam``), the audit's
variance is pooled within folds (a degree of freedom per fold), and the
interval is Student's t at ``n - 5`` degrees of freedom (`Figures.df`).

Cross-fitting removes the bias, not the normal approximation of a ratio
over unequal documents: tuned, the interval still covered up to 4.5
points less than λ = 1 at σ = 0.5, 9 at σ = 1.0, 16 at σ = 1.5 and 41
with Pareto lengths (α = 1.2), where λ = 1, whose residuals shed the
length the proxy knows, covered 85-100%. So ``"tune"`` is plain PPI
(``λ = 1``, one fold, ``n - 1``) below `MIN_TUNE` (10) audited items and
below an effective audit size of `TUNE_EFFECTIVE` (80; `Figures.effective_size`:
Kish's size of the linearised weights, for CER the reference lengths, the
least of the audit's own and the corpus's scaled to ``n``, so an audit that
missed the long documents is not trusted for looking even), and its t
interval never has more degrees of freedom than that size less one. The
threshold reads no gold, so it selects nothing by the audit's errors. On
the grid (1,000 audits a cell, MC s.e. 0.95 points at 90%; 4 length
distributions × n = 20, 50, 200 × proxies of correlation 0, 0.5, 0.9 and a
biased one × uniform, stratified and active plans × 90% and 95%) the tuned
interval's shortfall below nominal was never more than 1 point beyond the
better of λ = 0's and λ = 1's (0 of 288 cells), and it covered at least
88.1% at 90% and 93.2% at 95% in every cell, flagged or not (σ = 0.5:
88.1-92.9% at n = 20, 88.9-92.4% at n = 50, 89.4-93.1% at n = 200). The
price is width where λ = 1 is forced: with a proxy of correlation 0 or 0.5
at σ = 0.5, n ≤ 50 the interval is 1.5-1.7× the audit-only one (0.5-0.6×
with correlation 0.9);
with an effective size near 1 (Pareto lengths) it is 5-120× as wide, and
flagged (`ek._corpus_estimates._corpus.MIN_EFFECTIVE`). Relative bias stayed within
MC error (σ ≤ 1.0: at most 1.9%). A proxy whose influence takes one
value on every item carries no information and gets ``λ = 0`` exactly
(float residue made the plug-in ratio 0 or 1 at random).

No interval is zero-wide while an item is unaudited: the squared standard
error is floored at half a count's Poisson noise per statistic over the
audit, ``N² · ½ Σ_j g_j² / n²`` (for CER ``½ / (audited reference
length)²``), so a slice whose few audited documents are all perfect keeps
a width, negligible beside any audit that varies.

The unaudited items enter only through their `Moments` (count, mean and
centred cross-products of the proxy statistics), so a caller keeps those of
the whole corpus and removes the audited rows (`without`), and a monitor can
feed one window at a time. numpy is imported inside each function.

Its callers are `ek._corpus_estimates` (`ek.estimate_corpus`, `ek.compare_estimates`) and
`ek.qe.monitor` (each window's risk); it lives here, below both, so neither imports the other.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Union

from ek._stats._distributions import normal_cdf
from ek._stats._distributions import student_quantile_approx as student_quantile  # Cornish-Fisher: documented numbers

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = [
    "Figures",
    "Moments",
    "effective_size",
    "estimate",
    "gradient",
    "moments",
    "normal_interval",
    "p_value",
    "student_quantile",
    "without",
]

Value = Callable[[Sequence[float]], float]
"""A corpus figure from its summed statistics, in column order."""

Lam = Union[str, float, Sequence[float], "npt.NDArray[np.float64]"]
"""``λ`` asked for: ``"tune"``, one weight, or one weight per statistic."""

Weights = float | tuple[float, ...]
"""``λ`` an estimate used: one weight, or one per statistic (when one per statistic was asked for)."""

_STEP = 1e-6  # relative step of the central differences
_FLOOR = 1e-2  # a statistic near 0 is stepped by this share of the largest one
FOLDS = 5  # cross-fitting folds of lam="tune"
MIN_TUNE = 10  # below this many audited items "tune" is plain PPI (λ = 1): see the module docstring
TUNE_EFFECTIVE = 80.0  # below this effective audit size (`Figures.effective_size`) "tune" is plain PPI too


@dataclass(frozen=True)
class Moments:
    """``n`` rows of statistics summarised: their mean (``k``) and centred cross-products (``k × k``)."""

    n: int
    mean: Any
    scatter: Any


@dataclass(frozen=True)
class Figures:
    """One prediction-powered estimate and its classical (audit-only) and plug-in (proxy-only) companions.

    ``variance`` splits the estimate's squared standard error into the part
    the unaudited items contribute (it does not shrink with more labels) and
    the audit's part (about ``1 / n``); the audit planner reads it.
    """

    estimate: float
    std_error: float
    lam: Weights
    classical: float
    classical_std_error: float
    plug_in: float
    n: int
    N: int
    variance: tuple[float, float] = (math.nan, math.nan)
    folds: tuple[float, ...] = ()  # "tune": each fold's cross-fitted λ (``lam`` is their mean)
    kurtosis: float = math.nan  # of the audited items' influence terms (the planner's noise of a variance)
    df: float = math.inf  # "tune": the audit's degrees of freedom, n less one per fold, for a t interval
    effective_size: float = math.nan  # Kish's size of the audit's linearised weights (`_Design.effective`)


def moments(table: Any) -> Moments:
    """The `Moments` of the rows of ``table`` (``(m, k)``)."""
    import numpy as np

    x = np.asarray(table, dtype=np.float64)
    if not len(x):
        return Moments(0, np.zeros(x.shape[1]), np.zeros((x.shape[1], x.shape[1])))
    mean = x.mean(axis=0)
    centred = x - mean
    return Moments(len(x), mean, centred.T @ centred)


def without(whole: Moments, part: Moments) -> Moments:
    """The `Moments` of the rows of ``whole`` that are not in ``part`` (a subset of them)."""
    import numpy as np

    rest = whole.n - part.n
    if rest <= 0:
        return Moments(0, np.zeros_like(whole.mean), np.zeros_like(whole.scatter))
    mean = (whole.n * whole.mean - part.n * part.mean) / rest
    delta = part.mean - mean
    scatter = whole.scatter - part.scatter - (part.n * rest / whole.n) * np.outer(delta, delta)
    return Moments(rest, mean, scatter)


def estimate(
    unaudited: Moments,
    proxy: Any,
    gold: Any,
    value: Value,
    *,
    lam: Lam = "tune",
    inclusion: Any | None = None,
    folds: int = FOLDS,
    min_tune: int = MIN_TUNE,
    size: float | None = None,
    min_size: float = TUNE_EFFECTIVE,
) -> Figures:
    """The prediction-powered estimate of ``value`` over the corpus (see the module docstring).

    Args:
        unaudited: `Moments` of the proxy statistics of the items not audited.
        proxy: ``(n, k)`` proxy statistics of the audited items.
        gold: ``(n, k)`` their real statistics, in the same order.
        value: the corpus figure from summed statistics.
        lam: ``"tune"`` (cross-fitted PPI++ tuning), ``"plug-in"`` (PPI++'s
            plug-in ``λ`` tuned on the whole audit, ppi_py's), a number in
            [0, 1], or one number per statistic (two estimates compared at
            their own ``λ``).
        inclusion: ``(n,)`` inclusion probabilities of a planned (Poisson)
            audit; None for a uniform audit.
        folds: how many folds ``"tune"`` cross-fits over.
        min_tune: below this many audited items ``"tune"`` is plain PPI.
        size: the audit's effective size (None: `Figures.effective_size`
            from ``value``; a paired difference passes the smaller of its
            two figures', whose weights its own gradient mixes up).
        min_size: below this effective size ``"tune"`` is plain PPI.
    """
    import numpy as np

    proxy, gold = np.asarray(proxy, dtype=np.float64), np.asarray(gold, dtype=np.float64)
    design = _Design(unaudited, proxy, gold, None if inclusion is None else np.asarray(inclusion, dtype=np.float64))
    k = proxy.shape[1]
    per_fold: tuple[float, ...] = ()
    rows, fold = None, None
    size = design.effective(value) if size is None else size
    if isinstance(lam, str) and lam == "tune":
        per_fold, rows, fold = design.cross_fitted(value, folds, min_tune, plain=size < min_size)
    elif isinstance(lam, str):  # "plug-in"
        lam = design.tuned(value)
    elif inclusion is None and not unaudited.n:
        lam = 0.0  # every item audited: the audit is the answer
    if rows is not None:
        weights = np.full(k, float(rows.mean()))
        row_weights = rows[:, None]
    else:
        weights = np.broadcast_to(np.asarray(lam, dtype=np.float64), (k,))
        row_weights = weights
    theta, se2, parts = design.figure(value, weights, row_weights, fold)
    classical, classical_se2, _ = design.figure(value, np.zeros(k), np.zeros(k))
    plug_in = _call(value, design.proxy_totals())
    lam_out = float(weights[0]) if (rows is not None or np.ndim(lam) == 0) else tuple(float(x) for x in weights)
    return Figures(
        theta,
        math.sqrt(se2),
        lam_out,
        classical,
        math.sqrt(classical_se2),
        plug_in,
        len(gold),
        unaudited.n + len(gold),
        parts,
        per_fold,
        design.kurtosis(value, weights, row_weights),
        math.inf if rows is None else _degrees(len(gold) - len(per_fold), size),
        size,
    )


def effective_size(unaudited: Moments, proxy: Any, value: Value, inclusion: Any | None = None) -> float:
    """`Figures.effective_size` of an audit with these proxy statistics, without estimating (see `estimate`)."""
    import numpy as np

    proxy = np.asarray(proxy, dtype=np.float64)
    pi = None if inclusion is None else np.asarray(inclusion, dtype=np.float64)
    return _Design(unaudited, proxy, proxy, pi).effective(value)


def _degrees(df: int, size: float) -> float:
    """A tuned interval's degrees of freedom: the audit's less one per fold, at most the effective size less one."""
    return float(max(1.0, min(df, size - 1))) if math.isfinite(size) else float(max(1, df))


def normal_interval(center: float, std_error: float, level: float, df: float = math.inf) -> tuple[float, float]:
    """``center ± q · std_error``, ``q`` the quantile of ``(1 + level) / 2`` (normal, or Student's t at ``df``)."""
    if not (math.isfinite(center) and math.isfinite(std_error)):
        return (math.nan, math.nan)
    q = student_quantile((1 + level) / 2, df)
    return (center - q * std_error, center + q * std_error)


def p_value(center: float, std_error: float, df: float = math.inf) -> float:
    """Two-sided p-value of "the figure is 0" (normal, or Student's t at ``df``); NaN without a standard error."""
    if not (math.isfinite(center) and math.isfinite(std_error)):
        return math.nan
    if std_error == 0:
        return 1.0 if center == 0 else 0.0
    t = abs(center) / std_error
    if math.isinf(df):
        return 2 * (1 - normal_cdf(t))
    low, high = 0.0, 1.0  # the p at which t is the quantile of 1 - p / 2: the quantile falls as p grows
    for _ in range(60):
        mid = (low + high) / 2
        low, high = (mid, high) if student_quantile(1 - mid / 2, df) > t else (low, mid)
    return (low + high) / 2


def gradient(value: Value, totals: Sequence[float]) -> list[float]:
    """``∇value`` at ``totals`` by central differences (each step relative to its total, floored)."""
    point = [float(t) for t in totals]
    scale = max((abs(t) for t in point), default=0.0) or 1.0
    out = []
    for j, t in enumerate(point):
        h = _STEP * max(abs(t), _FLOOR * scale)
        up, down = list(point), list(point)
        up[j], down[j] = t + h, t - h
        out.append((_call(value, up) - _call(value, down)) / (2 * h))
    return out


# ---------------------------------------------------------------------------


def _call(value: Value, totals: Any) -> float:
    try:
        return float(value([float(t) for t in totals]))
    except ZeroDivisionError:
        return math.nan


class _Design:
    """The audit's rows and the unaudited items' moments, with the estimator of the design they came from."""

    def __init__(self, unaudited: Moments, proxy: Any, gold: Any, inclusion: Any) -> None:
        self.u, self.proxy, self.gold, self.pi = unaudited, proxy, gold, inclusion
        self.n, self.N = len(gold), unaudited.n + len(gold)

    def proxy_totals(self) -> Any:
        return self.u.n * self.u.mean + self.proxy.sum(axis=0)

    def totals(self, lam: Any, rows: Any = None) -> Any:
        """The estimated corpus totals at weights ``lam`` (``rows``: each audited item's own, default ``lam``)."""
        rows = lam if rows is None else rows
        residual = self.gold - rows * self.proxy
        if self.pi is None:
            return self.N * (lam * self.u.mean + residual.mean(axis=0))
        return (
            lam * self.u.n * self.u.mean + (rows * self.proxy).sum(axis=0) + (residual / self.pi[:, None]).sum(axis=0)
        )

    def figure(self, value: Value, lam: Any, rows: Any, fold: Any = None) -> tuple[float, float, tuple[float, float]]:
        """``(value(T), its squared standard error, (unaudited part, audit part))``.

        ``lam`` weighs the unaudited items' proxy and ``rows`` (``(k,)`` or
        ``(n, 1)``) each audited item's. A uniform audit's part is the
        variance within ``fold`` (each audited item's cross-fitting fold):
        a fold's mean varies with its own items only, its ``λ`` being fixed by
        the others. The squared standard error is floored (`_floor`) unless
        every item is audited.
        """
        import numpy as np

        totals = self.totals(lam, rows)
        theta = _call(value, totals)
        g = np.asarray(gradient(value, totals))
        if not (math.isfinite(theta) and np.isfinite(g).all()):
            return theta, math.nan, (math.nan, math.nan)
        gl = g * lam
        spread_u = float(gl @ self.u.scatter @ gl) / self.u.n if self.u.n else 0.0  # Var_U(λ ψ̂)
        floor = self._floor(g)
        if self.pi is None:
            audit = _pooled_var((self.gold - rows * self.proxy) @ g, fold) / self.n
            unaudited = spread_u / self.u.n if self.u.n else 0.0
            se2 = max(self.N**2 * (unaudited + audit), floor)
            return theta, se2, (self.N**2 * unaudited, se2 - self.N**2 * unaudited)
        terms = (rows * self.proxy + (self.gold - rows * self.proxy) / self.pi[:, None]) @ g
        mean_u = float(gl @ self.u.mean)
        total = self.u.n * mean_u + float(terms.sum())
        square = self.u.n * (mean_u**2 + spread_u) + float(terms @ terms)
        var = max(0.0, square / self.N - (total / self.N) ** 2)
        unaudited = self.N * (spread_u * self.u.n / self.N)  # the proxy's own spread, which more labels keep
        se2 = max(self.N * var, floor)
        return theta, se2, (unaudited, max(0.0, se2 - unaudited))

    def kurtosis(self, value: Value, lam: Any, rows: Any) -> float:
        """``E[c⁴] / E[c²]²`` of the audited items' centred influence terms at the estimate (NaN: no spread)."""
        import numpy as np

        g = np.asarray(gradient(value, self.totals(lam, rows)))
        residual = self.gold - rows * self.proxy
        terms = (residual if self.pi is None else rows * self.proxy + residual / self.pi[:, None]) @ g
        centred = terms - terms.mean()
        square = float((centred**2).mean())
        return float((centred**4).mean()) / square**2 if square > 0 and np.isfinite(square) else math.nan

    def _floor(self, g: Any) -> float:
        """The least squared standard error while some item is unaudited: half a count's Poisson noise.

        As if each statistic could have been off by half a count over the
        audit that showed no spread: ``N² · ½ Σ_j g_j² / n²``. For CER this
        is ``½ / (audited reference length)²``, for a mean ``½ (1 + θ²) / n²``:
        negligible beside any audit that varies, never zero.
        """
        if self.u.n == 0 and (self.pi is None or bool((self.pi >= 1).all())):
            return 0.0
        return float(self.N**2 * 0.5 * (g @ g) / self.n**2)

    def constant(self, g: Any) -> bool:
        """Whether the proxy's influence ``g · ŝ`` takes one value on every item (float residue aside)."""
        import numpy as np

        psi_hat = self.proxy @ g
        mean_u = float(g @ self.u.mean) if self.u.n else float(psi_hat[0])
        scale = max(float(np.abs(psi_hat).max()), abs(mean_u), 1e-300)
        spread_u = float(g @ self.u.scatter @ g) if self.u.n else 0.0
        tol = 1e-9 * scale
        return float(np.ptp(psi_hat)) <= tol and abs(mean_u - float(psi_hat[0])) <= tol and spread_u <= tol**2 * self.N

    def cross_fitted(
        self, value: Value, folds: int, least: int, *, plain: bool = False
    ) -> tuple[tuple[float, ...], Any, Any]:
        """Each fold's ``λ``, tuned on the other folds, each audited item's (its fold's) and its fold (None: one).

        Item ``i`` of the audit is in fold ``i mod K``. Below ``least``
        audited items, or when ``plain`` (an effective audit size below
        `TUNE_EFFECTIVE`), ``λ = 1`` (plain PPI, unbiased); a proxy that never
        varies gets ``λ = 0`` exactly, as does a uniform audit of every item.
        """
        import numpy as np

        k = self.proxy.shape[1]
        g = np.asarray(gradient(value, self.totals(np.ones(k))))
        if (self.pi is None and not self.u.n) or not np.isfinite(g).all() or self.constant(g):
            return (0.0,), np.zeros(self.n), None
        count = min(folds, self.n // 2)
        if self.n < least or count < 2 or plain:
            return (1.0,), np.ones(self.n), None
        fold = np.arange(self.n) % count
        lams = []
        for f in range(count):
            keep = fold != f
            part = _Design(self.u, self.proxy[keep], self.gold[keep], None if self.pi is None else self.pi[keep])
            lams.append(part.tuned(value))
        return tuple(lams), np.asarray(lams)[fold], fold

    def effective(self, value: Value) -> float:
        """How many items the audit is worth: Kish's size of the linearised weights ``w``.

        ``w`` is the part of each item's linearised proxy ``∇value · ŝ`` that
        the figure falls with (its statistics of negative gradient at the
        proxy's totals): for a
        ratio of sums its denominator, the reference length for CER, the
        count for a mean (equal weights, size ``n``). The least of the audit's own (``w / π`` when planned) and the
        corpus's scaled to the audit, ``n · Kish_N(w) / N``: an audit that
        missed the few long documents holding most of the length looks
        even, the corpus does not. NaN when the weights do not sum to a
        positive number.
        """
        import numpy as np

        g = np.asarray(gradient(value, self.proxy_totals()))  # the proxy's totals: λ = 1's may be negative
        a = np.where(g < 0, -g, 0.0)
        if not np.isfinite(g).all():
            return math.nan
        w = self.proxy @ a
        mine = w if self.pi is None else w / self.pi
        total = float(a @ self.u.mean) * self.u.n + float(w.sum())
        squares = float(a @ (self.u.scatter + self.u.n * np.outer(self.u.mean, self.u.mean)) @ a) + float(w @ w)
        if not (total > 0 and squares > 0 and float(mine.sum()) > 0):
            return math.nan
        corpus = self.n * total**2 / squares / self.N
        return min(corpus, float(mine.sum()) ** 2 / float(mine @ mine))

    def tuned(self, value: Value) -> float:
        """PPI++'s plug-in ``λ`` for this design, clipped to [0, 1] (0 for a proxy that never varies)."""
        import numpy as np

        k = self.proxy.shape[1]
        g = np.asarray(gradient(value, self.totals(np.ones(k))))
        if not np.isfinite(g).all() or self.constant(g):
            return 0.0
        psi, psi_hat = self.gold @ g, self.proxy @ g
        mean_u, spread_u = float(g @ self.u.mean), float(g @ self.u.scatter @ g)  # of ψ̂ over U: mean, Σ (x - x̄)²
        if self.pi is None:
            if not self.u.n or self.N < 2:
                return 0.0
            cov = float(((psi - psi.mean()) * (psi_hat - psi_hat.mean())).mean())
            diff = mean_u - float(psi_hat.mean())
            pooled = spread_u + float(((psi_hat - psi_hat.mean()) ** 2).sum()) + self.u.n * self.n / self.N * diff**2
            var_all = pooled / (self.N - 1)
            return _clip(cov, (1 + self.n / self.u.n) * var_all)
        a = psi / self.pi
        b = psi_hat * (1 - 1 / self.pi)
        mean_a, mean_b = float(a.sum()) / self.N, (self.u.n * mean_u + float(b.sum())) / self.N
        cov = float(a @ b) / self.N - mean_a * mean_b
        var_b = (self.u.n * mean_u**2 + spread_u + float(b @ b)) / self.N - mean_b**2
        return _clip(-cov, var_b)


def _pooled_var(x: Any, fold: Any) -> float:
    """The variance of ``x`` about each ``fold``'s own mean, one degree of freedom spent per fold (ddof 0: no folds).

    Without folds it is ppi_py's (ddof 0); over ``K`` folds of a few items
    each, dividing by ``n`` rather than ``n - K`` would shrink it by
    ``1 - K / n`` (10% at n = 50).
    """
    import numpy as np

    if fold is None:
        return float(x.var())
    count = np.bincount(fold)
    means = np.bincount(fold, weights=x) / count
    return float(((x - means[fold]) ** 2).sum()) / max(1, len(x) - len(count))


def _clip(numerator: float, denominator: float) -> float:
    if not (denominator > 0 and math.isfinite(numerator)):
        return 0.0
    return min(1.0, max(0.0, numerator / denominator))
