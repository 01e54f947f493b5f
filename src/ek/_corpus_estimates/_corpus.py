"""`ek.estimate_corpus` over reports: join the audit to the corpus, then estimate overall and per slice.

The proxy `Report` holds every item of the corpus, the audit `Report` the
audited ones, scored with the same metric against real gold. The audited
ids are found among the proxy's (`ek._corpus_estimates._columns`), the unaudited items'
moments are the corpus's less the audit's, and `ek._stats._prediction_powered.estimate`
makes the figures, for the whole corpus and for each slice on its own (its
own ``λ`` too). ``interval="bootstrap"`` replaces the normal intervals by
percentile intervals of the id-hash Poisson bootstrap (`ek._corpus_estimates._resample`).

Tiny audits. The normal interval needs a variance, so a slice with fewer
than 2 audited items has no interval (its ``note`` says so; with one item
and ``lam="tune"`` its estimate is plain PPI, ``λ = 1``, which needs no
variance to be unbiased), and the whole corpus needs at least 2. Every
group carries ``reliable`` (the whole corpus in ``detail``): False below
`MIN_RELIABLE` (10) audited items, or below an effective audit size of
`MIN_EFFECTIVE` (5; `ek._stats._prediction_powered.Figures.effective_size`, the
concentration of the reference lengths for CER, read over the corpus and
the audit), with ``why`` in words and numbers (None when reliable): with
the normal interval a slice of 400 documents covered 62% at 90% with 2
audited items and 78% with 5 (the t interval of ``"tune"``, much wider,
90-98% there). On scripts/ppi_grid.py's grid the flag fell on at most
1% of the intervals at lognormal σ = 0.5 (none at n ≥ 50), on 3-12% at
σ = 1.0 with n = 20 (none from n = 50), on all at σ = 1.5 with n = 20 and
7-31% at n = 50, and on all with Pareto lengths (α = 1.2: the audit is
worth about one item). The intervals it leaves unflagged covered at least
88.1% at 90% and 93.2% at 95% in every cell (MC s.e. 0.95 and 0.7 points). Below 40
audited items (`ek._bootstrap.MIN_ITEMS`) the bootstrap gives no interval,
as `ek.Report.interval` does not, and the normal interval comes with a
``note``: simulated on CER-like corpora (N = 20,000; documents' error rate
Beta(2, 38), lengths 20-100; a proxy of correlation 0.6; uniform audits;
2,000 corpora a size), the tuned 95% interval covered the true CER 76% of
the time at 5 audited items, 85% at 10, 90% at 20 and 92% at 40; at 300
tests/test_estimate_simulation.py finds 94.4-96.5% for CER and micro-F1
over 15 proxies and designs (40,000 corpora a case), as the classical
interval does.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ek._bootstrap import MIN_ITEMS, metric_of
from ek._corpus_estimates._columns import Columns, columns, examples
from ek._corpus_estimates._values import AuditPlan, Classical, CorpusEstimate, Entry, EstimateDetail, NotedEntry
from ek._stats import check_level
from ek._stats._prediction_powered import (
    MIN_TUNE,
    TUNE_EFFECTIVE,
    Figures,
    Weights,
    estimate,
    gradient,
    moments,
    normal_interval,
    without,
)
from ek._util import is_real
from ek.base import Report

if TYPE_CHECKING:
    from ek._corpus_estimates._resample import Replicates

__all__ = [
    "INTERVALS",
    "MIN_RELIABLE",
    "WHO",
    "Basis",
    "Classical",
    "Entry",
    "NotedEntry",
    "estimate_corpus",
    "group_rows",
]

INTERVALS = ("clt", "bootstrap")
WHO = "estimate_corpus()"
MIN_RELIABLE = 10
"""Fewer audited items than this and a group's interval is flagged ``reliable: false`` (see the module docstring)."""
MIN_EFFECTIVE = 5.0
"""An effective audit size (`ek._stats._prediction_powered.Figures.effective_size`) below this is flagged too (scripts/ppi_grid.py)."""


@dataclass(frozen=True)
class Basis:
    """What an estimate was made from, kept on it for `ek.compare_estimates`."""

    proxy: Any
    audit: Any
    p: Columns
    a: Columns
    rows: Any  # proxy row of each audited item, in the audit's order
    inclusion: Any  # their inclusion probabilities (None: a uniform audit)
    lams: dict[int | None, Weights | None]  # group (None: the whole corpus; else a slice code) -> the λ used
    figures: dict[int | None, float | None]  # group -> the estimate (None: no audited item)
    interval: str
    replicates: Replicates | None  # for the bootstrap
    asked: Any = "tune"  # the lam= asked for: "tune" or a number


def estimate_corpus(
    proxy: Report, audit: Report, *, level: float, lam: str | float, interval: str, plan: AuditPlan | None
) -> CorpusEstimate:
    """The `ek.CorpusEstimate` (see `ek.estimate_corpus`), with its ``_basis``."""
    _check_options(level, lam, interval)
    p, a = columns(proxy, role="proxy", who=WHO), columns(audit, role="audit", who=WHO)
    _check_same_metric(proxy, audit)
    rows = p.rows(a.ids, who=WHO)
    _check_slices(p, a, rows)
    inclusion = None if plan is None else _inclusion(plan, p, a)
    if a.n < 2:
        raise ValueError(f"{WHO} needs at least 2 audited items for an interval, got {a.n}; audit more items.")
    groups: list[int | None] = [None, *range(len(p.labels))]
    found = {g: _group(p, a, rows, inclusion, g, lam) for g in groups}
    lams = {g: (f.lam if f is not None else None) for g, f in found.items()}
    replicates: Replicates | None = None
    if interval == "bootstrap":
        from ek._corpus_estimates._resample import replicate_values

        replicates = replicate_values(proxy, p, a, rows, inclusion, lams)
    entries = {g: _entry(found[g], p, rows, g, level, replicates) for g in groups}
    for g in groups:
        _flag_concentrated(entries[g], found[g], p, g)
    overall = entries[None]
    per_slice = {p.labels[g]: entries[g] for g in groups if g is not None}
    figures = {g: (f.estimate if f is not None else None) for g, f in found.items()}
    basis = Basis(proxy, audit, p, a, rows, inclusion, lams, figures, interval, replicates, lam)
    whole = found[None]
    if whole is None:  # a.n >= 2 was checked, and the whole corpus holds every audited item
        raise AssertionError("the whole corpus has no audited item")
    detail = _detail(whole, p, proxy, lam, interval, plan, overall.get("note"))
    detail["reliable"], detail["why"] = overall["reliable"], overall["why"]  # the whole corpus's flag: in its detail
    return CorpusEstimate(
        metric=proxy.metric,
        estimate=overall["estimate"],
        interval=overall["interval"],
        classical=overall["classical"],
        plug_in=overall["plug_in"],
        lam=overall["lam"],
        effective_n=overall["effective_n"],
        n=overall["n"],
        N=overall["N"],
        per_slice=per_slice,
        level=level,
        detail=detail,
        _basis=basis,
    )


def group_rows(p: Columns, rows: Any, group: int | None) -> Any:
    """Which audited items (positions in the audit) belong to ``group`` (None: all)."""
    import numpy as np

    return np.arange(len(rows)) if group is None else np.flatnonzero(p.codes[rows] == group)


# ---------------------------------------------------------------------------


def _check_options(level: Any, lam: Any, interval: Any) -> None:
    check_level(level, WHO)
    if isinstance(lam, str):
        if lam != "tune":
            raise ValueError(
                f"{WHO} lam must be 'tune' (PPI++'s power tuning) or a number in [0, 1] (0: the audit "
                f"alone, 1: plain PPI), got {lam!r}."
            )
    elif not is_real(lam) or not 0 <= lam <= 1:
        raise ValueError(f"{WHO} lam must be 'tune' or a number in [0, 1], got {lam!r}.")
    if interval not in INTERVALS:
        raise ValueError(
            f"{WHO} interval must be 'clt' (normal, delta method) or 'bootstrap' (the id-hash Poisson "
            f"bootstrap), got {interval!r}."
        )


def _check_same_metric(proxy: Any, audit: Any) -> None:
    if proxy.metric != audit.metric:
        raise ValueError(
            f"{WHO} got a {proxy.metric!r} proxy and a {audit.metric!r} audit; score both with the same metric."
        )
    mp, ma = metric_of(proxy), metric_of(audit)
    if mp != ma:
        raise ValueError(
            f"{WHO} got a proxy and an audit scored with differently configured {proxy.metric!r} metrics ({mp!r} and "
            f"{ma!r}), e.g. another normalisation; score both with the same metric= and normalize=."
        )


def _check_slices(p: Columns, a: Columns, rows: Any) -> None:
    """The audit's slices, where both have any, must be the proxy's for the same items (the corpus's slices)."""
    if not a.labels or not p.labels:
        return
    for i, row in enumerate(rows.tolist()):
        mine = None if a.codes[i] < 0 else a.labels[a.codes[i]]
        theirs = None if p.codes[row] < 0 else p.labels[p.codes[row]]
        if mine != theirs:
            raise ValueError(
                f"{WHO}: audited item {a.ids[i]!r} is in slice {mine!r}, but the proxy puts it in "
                f"{theirs!r}; slice both reports by the same field."
            )


def _inclusion(plan: Any, p: Columns, a: Columns) -> Any:
    """The inclusion probability of each audited item, from the plan."""
    import numpy as np

    if not isinstance(plan, AuditPlan):
        raise TypeError(f"{WHO} plan must be an ek.AuditPlan (from ek.plan_audit), got {type(plan).__name__}.")
    if plan.N is not None and plan.N != p.n:
        raise ValueError(
            f"{WHO}: the plan was drawn from a corpus of {plan.N} items, the proxy has {p.n}; plan "
            "and estimate on the same corpus."
        )
    probs, unplanned = [], []
    for item in a.ids:
        try:
            probs.append(plan.probability(item))
        except KeyError:
            unplanned.append(item)
    if unplanned:
        raise ValueError(
            f"{WHO}: {len(unplanned)} audited items were not drawn by the plan{examples(unplanned)}; "
            "audit the plan's items only (or estimate without plan= for a uniform audit)."
        )
    if len(plan.ids) > a.n:
        audited = set(map(str, a.ids))
        left = [i for i in plan.ids if str(i) not in audited]
        warnings.warn(
            f"{WHO}: {len(left)} of the plan's {len(plan.ids)} drawn items are not in the audit"
            f"{examples(left)}; the estimate treats them as missing at random. Audit them for an honest "
            "estimate.",
            UserWarning,
            stacklevel=4,
        )
    return np.asarray(probs, dtype=np.float64)


def _group(p: Columns, a: Columns, rows: Any, inclusion: Any, group: int | None, lam: Any) -> Figures | None:
    """The `Figures` of one group (None: the whole corpus), or None when it has no audited item."""
    at = group_rows(p, rows, group)
    if not len(at):
        return None
    mine = rows[at]
    unaudited = without(p.moments(group), moments(p.table[mine]))
    lam_here = 1.0 if (lam == "tune" and len(at) < 2) else lam
    return estimate(
        unaudited,
        p.table[mine],
        a.table[at],
        p.value,
        lam=lam_here,
        inclusion=None if inclusion is None else inclusion[at],
    )


def _entry(
    fig: Figures | None, p: Columns, rows: Any, group: int | None, level: float, replicates: Replicates | None
) -> NotedEntry:
    """One group's keys of a `CorpusEstimate` (the whole corpus's, or a slice's)."""
    size = p.n if group is None else int((p.codes == group).sum())
    nan = (math.nan, math.nan)
    if fig is None:
        plug_in = p.value(p.table[p.codes == group].sum(axis=0))
        return {
            "estimate": None,
            "interval": nan,
            "classical": {"estimate": None, "interval": nan},
            "plug_in": plug_in,
            "lam": None,
            "effective_n": math.nan,
            "n": 0,
            "N": size,
            "reliable": False,
            "why": _why(0),
            "note": "no audited item in this slice: only the plug-in figure, which has no interval",
        }
    note = None
    if replicates is None:
        interval = normal_interval(
            fig.estimate, fig.std_error, level, fig.df
        )  # t when tuned: see ek._stats._prediction_powered
        classical = normal_interval(fig.classical, fig.classical_std_error, level, _classical_df(fig))
    else:
        from ek._corpus_estimates._resample import percentile

        interval, classical = percentile(replicates[group][0], level), percentile(replicates[group][1], level)
    if fig.n < 2:
        interval = classical = nan
        note = f"{fig.n} audited item in this slice: an interval needs at least 2"
    elif replicates is not None and fig.n < MIN_ITEMS:
        interval = classical = nan
        note = f"{fig.n} audited items: the bootstrap gives an interval from {MIN_ITEMS} (use interval='clt')"
    elif fig.n < MIN_ITEMS:
        note = f"{fig.n} audited items: below {MIN_ITEMS} the normal interval covers less than its level"
    out: NotedEntry = {
        "estimate": fig.estimate,
        "interval": interval,
        "classical": {"estimate": fig.classical, "interval": classical},
        "plug_in": fig.plug_in,
        "lam": _one(fig.lam),
        "effective_n": _effective_n(fig, interval, classical, replicates is None),
        "n": fig.n,
        "N": size,
        "reliable": fig.n >= MIN_RELIABLE,
        "why": _why(fig.n) if fig.n < MIN_RELIABLE else None,
    }
    if note is not None:
        out["note"] = note
    return out


def _flag_concentrated(entry: NotedEntry, fig: Figures | None, p: Columns, group: int | None) -> None:
    """Flag ``entry`` when its audit's effective size is below `MIN_EFFECTIVE`, saying why in numbers.

    Kish's size of the linearised weights (for CER about the reference
    lengths): when a few items hold most of the weight, an interval covers
    its level only as far as the audit happened to catch them, whatever
    ``n`` says (scripts/ppi_grid.py, Pareto lengths: the audit alone
    covered 53-75% at 90% from uniform and stratified audits; the tuned interval, at so few degrees of
    freedom, covered by being 5-120 times as wide). Every item audited
    needs no interval.
    """
    import numpy as np

    from ek._stats._effective import concentration

    if fig is None or not entry["reliable"] or fig.n == fig.N or not fig.effective_size < MIN_EFFECTIVE:
        return
    table = p.table if group is None else p.table[p.codes == group]
    g = np.asarray(gradient(p.value, table.sum(axis=0)))
    falls = (
        g < 0
    )  # the statistics the figure falls with: a ratio's denominator (see _prediction_powered._Design.effective)
    weights = table[:, falls] @ -g[falls]
    held = concentration(np.maximum(weights, 0.0).tolist())
    of = " and ".join(str(name) for name, down in zip(p.names, falls) if down)
    entry["reliable"] = False
    entry["why"] = (
        f"{held.why('items', of)} over the corpus; the {fig.n} audited items are worth about "
        f"{fig.effective_size:.1f}, fewer than {MIN_EFFECTIVE:.0f}: too few for the interval's level to be trusted"
    )


def _one(lam: Weights) -> float:
    """The one ``λ`` of an estimate: a group is estimated at one weight (one per statistic is a comparison's)."""
    if isinstance(lam, tuple):
        raise AssertionError(f"one lambda per statistic in a corpus estimate: {lam}")
    return lam


def _why(n: int) -> str:
    """Why an interval over ``n`` audited items is flagged (the simulated coverage of the module docstring)."""
    return (
        f"{n} audited item{'s' if n != 1 else ''}, fewer than {MIN_RELIABLE}: too few for the interval to cover at "
        f"its level; audit at least {MIN_RELIABLE}"
    )


def _classical_df(fig: Figures) -> float:
    """The classical companion's degrees of freedom: ``n - 1`` beside a tuned (t) interval, else normal."""
    return float(fig.n - 1) if math.isfinite(fig.df) and fig.n > 1 else math.inf


def _effective_n(fig: Figures, interval: tuple[float, float], classical: tuple[float, float], clt: bool) -> float:
    """The audit size at which the classical estimate would be as precise: ``n · (classical se / se)²``.

    From the standard errors for normal and t intervals (their quantiles
    differ with the degrees of freedom, the precision does not), from the
    widths for the bootstrap's.
    """
    if clt:
        se, wide = fig.std_error, fig.classical_std_error
    else:
        se, wide = interval[1] - interval[0], classical[1] - classical[0]
    if not (se > 0 and math.isfinite(wide)):
        return math.nan
    return fig.n * (wide / se) ** 2


def _tuning(fig: Figures) -> str:
    """How ``lam="tune"`` chose the whole corpus's ``λ`` (slices alike, each on its own audit)."""
    if len(fig.folds) > 1:
        low, high = min(fig.folds), max(fig.folds)
        return (
            f"cross-fitted per slice: PPI++'s power tuning, each of {len(fig.folds)} folds of the audit corrected at "
            f"the lambda tuned on the others ({low:.3g} to {high:.3g}; lam is their mean), clipped to [0, 1]"
        )
    if fig.lam == 0.0:
        return "0: the proxy never varies, or every item is audited (the audit alone)"
    if fig.n < MIN_TUNE:
        return f"1 (plain PPI): fewer than {MIN_TUNE} audited items, too few to tune lambda without bias"
    return (
        f"1 (plain PPI): the audit's effective size {fig.effective_size:.1f} is below {TUNE_EFFECTIVE:.0f}, where "
        "a tuned lambda covered less than plain PPI (scripts/ppi_grid.py)"
    )


def _detail(
    fig: Figures, p: Columns, proxy: Any, lam: Any, interval: str, plan: Any, note: str | None
) -> EstimateDetail:
    """How the figures were computed, in words and numbers."""
    tuned = _tuning(fig) if lam == "tune" else f"fixed at {lam}"
    if plan is None:
        design = (
            f"uniform audit: the {fig.N - fig.n} unaudited items and the {fig.n} audited ones as two samples "
            "(ppi_py's convention)"
        )
    else:
        design = (
            f"Poisson sample (plan {plan.strategy!r}): each audited item weighed by 1 / its inclusion "
            "probability (active inference)"
        )
    way = (
        ("Student t" if math.isfinite(fig.df) else "normal") + ", delta method over the metric's summed statistics"
        if interval == "clt"
        else "percentile bootstrap, id-hash Poisson weights over the corpus and the audit"
    )
    out: EstimateDetail = {
        "method": "prediction-powered inference",
        "lam": tuned,
        "design": design,
        "interval": way,
        "statistics": p.names,
        "std_error": fig.std_error,
        "classical_std_error": fig.classical_std_error,
        "variance": tuple(float(v) for v in fig.variance),
        "audit_kurtosis": fig.kurtosis,
        "higher_is_better": proxy.detail.get("higher_is_better"),
        "aggregation": proxy.detail.get("aggregation"),
    }
    if len(fig.folds) > 1:
        out["lam_folds"] = fig.folds
    if math.isfinite(fig.df):
        out["df"] = fig.df
    out["effective_size"] = fig.effective_size
    if note is not None:
        out["note"] = note
    return out
