"""The values of corpus estimation: `CorpusEstimate` (what `ek.estimate_corpus` returns) and `AuditPlan`.

Standard library only, so `ek.facade` re-exports them without loading numpy.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypedDict

from ek._stats import normal_quantile
from ek._util import first_repeat, type_name

__all__ = [
    "STRATEGIES",
    "AuditPlan",
    "Classical",
    "CorpusEstimate",
    "Entry",
    "EstimateDetail",
    "NotedEntry",
    "PlanDetail",
]

STRATEGIES = ("uniform", "stratified", "active")
"""How `ek.plan_audit` sets inclusion probabilities (see `ek._corpus_estimates._plan`)."""


class Classical(TypedDict):
    """The audit-only figure of a group and its interval."""

    estimate: float | None
    interval: tuple[float, float]


class Entry(TypedDict):
    """One group's keys of a `CorpusEstimate` (the whole corpus's, or a slice's)."""

    estimate: float | None
    interval: tuple[float, float]
    classical: Classical
    plug_in: float
    lam: float | None  # the proxy's weight (None: no audited item)
    effective_n: float
    n: int
    N: int
    reliable: bool
    why: str | None  # why the interval is not reliable, in numbers (None when it is)


class NotedEntry(Entry, total=False):
    """An `Entry` with the ``note`` that says why a figure has no interval, or why to read it with care."""

    note: str


class EstimateDetail(TypedDict, total=False):
    """A `CorpusEstimate`'s ``detail``: `ek.estimate_corpus` gives every key but the last three when they apply.

    All optional for an estimate built by hand (a pilot's ``variance`` is all `CorpusEstimate.half_width_for` reads).
    """

    method: str
    lam: str  # in words: how λ was tuned, or "fixed at ..."
    design: str
    interval: str  # in words: how the interval was computed
    statistics: tuple[str, ...]
    std_error: float
    classical_std_error: float
    variance: tuple[float, ...]  # (unaudited items' part, audit's part)
    audit_kurtosis: float
    higher_is_better: bool | None
    aggregation: str | None
    effective_size: float
    reliable: bool
    why: str | None
    lam_folds: tuple[float, ...]  # lam="tune" with more than one fold
    df: float  # a Student t interval's degrees of freedom
    note: str


@dataclass(frozen=True)
class CorpusEstimate:
    """A corpus figure estimated from a proxy of every item and a gold audit of a few (`ek.estimate_corpus`).

    ``estimate`` is the prediction-powered figure and ``interval`` its
    interval at ``level``; ``classical`` holds the audit-only
    ``{"estimate", "interval"}`` computed the same way (``λ = 0``) and
    ``plug_in`` the proxy's own figure over all ``N`` items, which has no
    interval (its bias is unknown). ``lam`` is the weight the proxy got,
    ``effective_n`` the audit size the classical interval would need to be
    as narrow, ``n`` the audited items and ``N`` the corpus. ``per_slice``
    maps each slice of the corpus to a dict of these keys (and ``note``
    when the slice has no interval, saying why); ``detail`` says how the
    figures were computed (``lam_folds``: each cross-fitting fold's ``λ``).
    A slice with fewer than 2 audited items has no interval (NaN), and
    ``interval="bootstrap"`` gives none below 40. Each slice's
    ``reliable`` (the whole corpus's in ``detail``) is False below 10
    audited items, or when the audit is worth fewer than 5 items
    (``detail["effective_size"]``: Kish's size of the linearised weights,
    the reference lengths for CER, when a few long documents hold most of
    them), with ``why`` in numbers: such intervals cover far less than
    their level.
    """

    metric: str
    estimate: float | None
    interval: tuple[float, float]
    classical: Classical
    plug_in: float | None
    lam: float | None
    effective_n: float
    n: int
    N: int
    per_slice: Mapping[Hashable, NotedEntry] = field(default_factory=dict)
    level: float = 0.95
    detail: EstimateDetail = field(default_factory=EstimateDetail)
    _basis: object = field(default=None, compare=False, repr=False)  # what compare_estimates re-reads (a Basis)

    def half_width_for(self, n: int) -> float:
        """The half-width an audit of ``n`` items would buy, read off this (pilot) estimate.

        The proxy's part of the variance stays, the audit's shrinks as
        ``1 / n``, at this estimate's ``λ`` and design (approximate for a
        plan, whose probabilities would change with the budget). The split
        is ``detail["variance"]``: (unaudited items' part, audit's part).
        The proxy's part is a mean over the items left unaudited, so it
        grows as ``1 / (N - n)``: when ``n`` is a sizeable share of ``N``,
        more labels at this ``λ`` can widen the interval (re-estimating
        with ``lam="tune"`` would then give the proxy less weight).

        >>> import ek
        >>> est = ek.CorpusEstimate("cer", 0.1, (0.08, 0.12), {}, 0.1, 0.5, 400.0, 100, 10_000,
        ...                         detail={"variance": (0.0, 1e-4)})
        >>> round(est.half_width_for(400), 4)
        0.0098
        """
        if isinstance(n, bool) or not isinstance(n, numbers.Real) or not n >= 2:
            raise ValueError(f"half_width_for() needs an audit size of at least 2 items, got {n!r}.")
        unaudited, audit = _variance(self)
        keep = unaudited * (self.N - self.n) / (self.N - n) if self.N > n else 0.0
        return _z(self.level) * math.sqrt(keep + audit * self.n / float(n))

    def labels_for(self, half_width: float, *, assurance: float = 0.5) -> int:
        """How many audited items this (pilot) estimate says an interval of ``± half_width`` needs.

        At the default ``assurance=0.5`` the answer is a median: the pilot's
        variance taken at face value, so about half the audits of that size
        come out wider (43% in tests/test_audit_plan.py). ``assurance=0.8``
        returns the size whose interval is within ``± half_width`` with
        probability 0.8, allowing for the noise of the pilot's variance and of
        the audit's own: the audit's part of the variance is raised by
        ``n / (n - 1) · exp((v_n - v_m) / 2 + z_a (√v_n + √v_m))``, the
        log-normal approximation of a sample variance over ``k`` items,
        ``v_k = (κ - 1) / k``, for the pilot (``n``) and the audit (``m``).
        ``κ`` is the kurtosis of the pilot's influence terms
        (``detail["audit_kurtosis"]``; 3, the normal's, when absent),
        corrected for the pilot's size (G2) and raised by ``z_a √(24 / n)``,
        as a small pilot rarely sees its corpus's tail. On CER corpora it
        reached the half-width in 79-84% of 30-item pilots.

        Raises:
            ValueError: ``half_width`` is not a positive number, ``assurance``
                not in [0.5, 1), or no audit reaches the half-width because
                the proxy's own noise over the unaudited items is wider (the
                message gives the narrowest reachable).

        >>> import ek
        >>> est = ek.CorpusEstimate("cer", 0.1, (0.08, 0.12), {}, 0.1, 0.5, 400.0, 100, 10_000,
        ...                         detail={"variance": (0.0, 1e-4)})
        >>> est.labels_for(0.01), est.labels_for(0.01, assurance=0.8)
        (385, 475)
        """
        if isinstance(half_width, bool) or not isinstance(half_width, numbers.Real) or not half_width > 0:
            raise ValueError(f"labels_for() needs a positive half-width, got {half_width!r}.")
        if isinstance(assurance, bool) or not isinstance(assurance, numbers.Real) or not 0.5 <= assurance < 1:
            raise ValueError(
                f"labels_for() assurance must be in [0.5, 1) (0.5: the median size; 0.8: reached 8 times in 10), "
                f"got {assurance!r}."
            )
        unaudited, audit = _variance(self)
        m = _labels(self, half_width, unaudited, audit)
        if assurance == 0.5:
            return m
        z_a = normal_quantile(assurance)
        spread = _kurtosis(self) - 1 + z_a * math.sqrt(24 / self.n)  # the kurtosis is itself uncertain: its bound
        pilot = spread / self.n
        for _ in range(50):  # m grows with the raised variance, and the raise shrinks as m grows: a fixed point
            future = spread / m
            raised = (
                audit
                * self.n
                / max(1, self.n - 1)
                * math.exp((pilot - future) / 2 + z_a * (math.sqrt(pilot) + math.sqrt(future)))
            )
            again = _labels(self, half_width, unaudited, raised)
            if again == m:
                break
            m = again
        return m


def _kurtosis(estimate: CorpusEstimate) -> float:
    """The pilot's kurtosis of its influence terms, corrected for its size (G2, as a sample's runs low), at least 3."""
    n, raw = estimate.n, (estimate.detail or {}).get("audit_kurtosis")
    if not (isinstance(raw, float) and math.isfinite(raw)) or n < 4:
        return 3.0
    excess = ((n + 1) * (raw - 3) + 6) * (n - 1) / ((n - 2) * (n - 3))
    return 3.0 + max(0.0, excess)


def _labels(estimate: CorpusEstimate, half_width: float, unaudited: float, audit: float) -> int:
    """The least audit size whose half-width, at these variance parts of a pilot of ``estimate.n``, is ``half_width``."""
    z = _z(estimate.level)
    target = (half_width / z) ** 2
    big_n, n = estimate.N, estimate.n
    # unaudited (N - n) / (N - m) + audit n / m = target, times m (N - m): a quadratic in m
    rest, size = unaudited * (big_n - n), big_n
    b = rest - audit * n - target * size
    disc = b * b - 4 * target * audit * n * size
    if disc < 0 and target > unaudited * (big_n - n) / big_n:
        raise ValueError(
            f"labels_for(): no audit short of all {big_n} items reaches ± {half_width:g} at this estimate's lambda: "
            "the proxy's noise over the items left unaudited grows as they get fewer. Ask for a wider interval, "
            "or audit every item (ek.evaluate)."
        )
    if disc < 0 or target <= unaudited * (big_n - n) / big_n:
        raise ValueError(
            f"labels_for(): no audit reaches ± {half_width:g}: the proxy's own noise over the unaudited items "
            f"already gives ± {z * math.sqrt(unaudited):.4g}. Ask for a wider interval, or use a better proxy."
        )
    m = math.ceil((-b - math.sqrt(disc)) / (2 * target) - 1e-9)

    def width(k: int) -> float:
        keep = unaudited * (big_n - n) / (big_n - k) if big_n > k else 0.0
        return z * math.sqrt(keep + audit * n / float(k))

    while m < size and width(max(2, m)) > half_width:
        m += 1
    return max(2, m)


class PlanDetail(TypedDict, total=False):
    """An `AuditPlan`'s ``detail``: empty for a uniform plan or one read back from a file."""

    uncertainty: str  # where each item's uncertainty came from (not "uniform")
    allocation: dict[Any, float]  # slice (None: unsliced) -> expected labels ("stratified")


@dataclass(frozen=True)
class AuditPlan:
    """Which items to audit and the probability each had of being drawn (`ek.plan_audit`).

    ``ids`` are the drawn items, in corpus order, and ``probabilities``
    their inclusion probabilities: each item of the corpus was drawn on its
    own with its probability (Poisson sampling), so the number drawn is
    ``budget`` on average. `ek.estimate_corpus` with ``plan=`` weighs each
    audited item by the inverse of its probability. ``N`` is the corpus
    size, ``strategy`` how the probabilities were set (``"uniform"``,
    ``"stratified"``, ``"active"``, or ``"file"`` for a plan read back from
    a labelling file), ``min_prob`` the floor of every probability and
    ``detail`` the allocation per slice and the uncertainty used.

    Raises:
        ValueError: ``ids`` and ``probabilities`` of different lengths, an
            id given twice, or a probability outside (0, 1].
    """

    ids: tuple[Hashable, ...]
    probabilities: tuple[float, ...]
    strategy: str = "file"
    budget: float | None = None
    N: int | None = None
    seed: int | None = None
    min_prob: float | None = None
    detail: PlanDetail = field(default_factory=PlanDetail)
    if TYPE_CHECKING:  # made by __post_init__ and no field: declared for the type checker only
        _lookup: dict[str, float] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        ids, probs = tuple(self.ids), tuple(self.probabilities)
        if len(ids) != len(probs):
            raise ValueError(
                f"AuditPlan got {len(ids)} ids and {len(probs)} probabilities; give one inclusion "
                "probability per drawn id."
            )
        for item, p in zip(ids, probs):
            if isinstance(p, bool) or not isinstance(p, (int, float)) or not (0 < p <= 1) or math.isnan(p):
                raise ValueError(
                    f"AuditPlan: item {item!r} has inclusion probability {p!r} ({type_name(p)}); every probability "
                    "must be in (0, 1]: an item that could not be drawn cannot stand for others. Give the probability "
                    "the item was drawn with."
                )
        repeat = first_repeat([str(i) for i in ids])
        if repeat is not None:
            raise ValueError(f"AuditPlan holds id {ids[repeat[1]]!r} twice; each drawn item appears once.")
        object.__setattr__(self, "ids", ids)
        object.__setattr__(self, "probabilities", tuple(float(p) for p in probs))
        # Derived here, while the value is being made: nothing is written onto it once it exists.
        object.__setattr__(self, "_lookup", dict(zip(map(str, ids), self.probabilities)))

    def probability(self, item_id: object) -> float:
        """The inclusion probability of drawn item ``item_id`` (KeyError when it was not drawn)."""
        return float(self._lookup[str(item_id)])


def _variance(estimate: CorpusEstimate) -> tuple[float, float]:
    parts = (estimate.detail or {}).get("variance")
    if not parts or not all(isinstance(v, float) and math.isfinite(v) for v in parts):
        raise ValueError(
            "this estimate has no variance to plan from (an estimate of at least 2 audited items has "
            "one in detail['variance']); estimate the pilot audit with ek.estimate_corpus."
        )
    return float(parts[0]), float(parts[1])


def _z(level: float) -> float:
    return normal_quantile((1 + level) / 2)
