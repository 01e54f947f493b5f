"""Decision gates: turn a calibrated probability into accept, flag or block.

A gate is a selective predictor: it accepts a value automatically or routes
it to a person. (Not to be confused with `ek.harness.regression_gate` and
`ek.agents.agent_regression_gate`, CI checks that compare a whole run with a
baseline.) Every gate here reads calibrated probabilities only; a raw
score must go through a calibrator first (`ek.qe.calibrate`).

* `CostSensitiveGate` (the default): the accept threshold follows from the
  cost ratio ``rho = c_FN / c_FP``; no labelled data needed.
* `ConformalGate`: split conformal; on exchangeable data at most ``alpha``
  of the truly correct values are flagged, on average over calibration
  sets (a marginal guarantee, not one per field type).
* `GroupConformalGate`: the same per group key (Mondrian), for per-type
  validity; `crepes_mondrian_gate` is the crepes-backed equivalent.
* `RiskControlGate`: conformal risk control; keeps the expected rate of
  accepted-but-wrong values at or below ``target``.
* `risk_coverage_curve`: the trade-off between how much is accepted and how
  often an accepted value is wrong, to choose an operating point.

Gates take one confidence (a `Decision` out) or a list/array of them (an
array of decisions out, the same as calling per value). The guarantees rest
on exchangeability: re-fit when the data drifts.

>>> from ek.base import Decision
>>> gate = CostSensitiveGate(rho=9.0)
>>> gate.tau
0.9
>>> gate(0.95) is Decision.ACCEPT, gate(0.5) is Decision.FLAG
(True, True)
"""

from __future__ import annotations

import math
import numbers
import warnings
from bisect import bisect_left
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ek._calls import number, probability
from ek._util import rehome, type_name
from ek.base import Decision
from ek.qe import _checks
from ek.qe._backends import crepes_mondrian_gate
from ek.qe._checks import (
    as_decisions,
    check_alpha,
    correct_scores,
    is_batch,
    labels,
    min_n,
    one_minus,
    probabilities,
    rank,
)
from ek.registry import register

__all__ = [
    "DEFAULT_ALPHA",
    "DEFAULT_RISK_TARGET",
    "ConformalGate",
    "CostSensitiveGate",
    "GroupConformalGate",
    "RiskControlGate",
    "crepes_mondrian_gate",
    "risk_coverage_curve",
    "split_conformal_quantile",
]

DEFAULT_ALPHA = 0.1
"""Default miscoverage of the conformal gates: flag at most about 10% of correct values."""

DEFAULT_RISK_TARGET = 0.05
"""Default ceiling of `RiskControlGate` on the rate of accepted-but-wrong values."""


def _zero_one(correct: bool) -> float:
    """Default loss: 1 for a wrong value, 0 for a correct one."""
    return 0.0 if correct else 1.0


class _Gate:
    """Scalar-or-batch call over ``_decide``."""

    def __call__(self, confidence: Any) -> Any:
        """The `Decision` for a calibrated ``confidence`` (an array for a batch)."""
        self._require_fit()
        name = type(self).__name__
        if is_batch(confidence):
            probs = probabilities(confidence, what=f"{name} confidences", np=None)
            return as_decisions([self._decide(p) for p in probs])
        return self._decide(probability(confidence, what=f"{name} confidence"))

    def _require_fit(self) -> None:
        pass

    def _decide(self, p: float) -> Decision:  # pragma: no cover - overridden
        raise NotImplementedError


@dataclass(frozen=True)
class CostSensitiveGate(_Gate):
    """Accept when the expected cost of accepting is no more than that of a review.

    Accepting risks a missed error, expected cost ``(1 - p) * c_FN``;
    flagging a correct value wastes a review, expected cost ``p * c_FP``.
    Accepting is cheaper iff ``p >= rho / (1 + rho)`` with
    ``rho = c_FN / c_FP``: ``rho = 1`` gives 0.5, and a larger ``rho``
    raises the bar towards 1.

    Args:
        rho: cost ratio ``c_FN / c_FP`` (>= 0; ``inf`` accepts only ``p == 1``).
        block_threshold: block values whose probability is at or below it;
            the default 0 never blocks on probability alone (a failed
            verifier is what blocks).
        accept_threshold: set the accept threshold directly instead of via ``rho``.
    """

    rho: float = 1.0
    block_threshold: float = 0.0
    accept_threshold: float | None = None

    def __post_init__(self) -> None:
        rho = self.rho
        if isinstance(rho, bool) or not isinstance(rho, (int, float)) or math.isnan(rho) or rho < 0:
            raise ValueError(f"CostSensitiveGate rho must be a number >= 0 (c_FN / c_FP), got {rho!r}.")
        probability(self.block_threshold, what="CostSensitiveGate block_threshold")
        if self.accept_threshold is not None:
            probability(self.accept_threshold, what="CostSensitiveGate accept_threshold")
        if self.block_threshold > 0 and self.block_threshold >= self.tau:
            raise ValueError(
                f"CostSensitiveGate block_threshold={self.block_threshold} is not below the accept "
                f"threshold {self.tau}; lower it so that some values can be flagged for review."
            )

    @property
    def tau(self) -> float:
        """The accept threshold on the calibrated probability."""
        if self.accept_threshold is not None:
            return float(self.accept_threshold)
        return 1.0 if math.isinf(self.rho) else self.rho / (1.0 + self.rho)

    def _decide(self, p: float) -> Decision:
        if self.block_threshold > 0 and p <= self.block_threshold:
            return Decision.BLOCK
        return Decision.ACCEPT if p >= self.tau else Decision.FLAG


def split_conformal_quantile(scores: Iterable[float], alpha: float) -> float:
    """The split-conformal threshold: the ``ceil((n + 1)(1 - alpha))``-th smallest score.

    ``scores`` are nonconformity scores of an exchangeable calibration set.
    Returns ``+inf`` when ``n`` is too small for ``1 - alpha`` coverage
    (nothing can be flagged honestly at that size) and ``-inf`` when
    ``alpha >= 1`` (flag everything). The rank uses the exact value of
    ``alpha``, so no rounding slips it by one.

    >>> split_conformal_quantile([0.1, 0.2, 0.3, 0.4], 0.5)
    0.3
    >>> split_conformal_quantile([0.1, 0.2, 0.3, 0.4], 0.1)
    inf
    """
    alpha = number(alpha, what="split_conformal_quantile() alpha")
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"split_conformal_quantile() alpha must be in [0, 1], got {alpha!r}.")
    values = sorted(_checks.scores(scores, what="split_conformal_quantile() scores"))
    k = rank(len(values), alpha)
    if k > len(values):
        return math.inf
    if k <= 0:
        return -math.inf
    return float(values[k - 1])


@dataclass
class ConformalGate(_Gate):
    """Split-conformal accept/flag: at most ``alpha`` of correct values flagged, on average.

    `fit` takes calibrated probabilities and correctness labels of a holdout;
    the nonconformity scores of its correct items set the threshold ``q``.
    A later value is accepted iff its nonconformity is at most ``q``. For a
    correct value exchangeable with the holdout, the chance of a flag is at
    most ``alpha`` (over the draw of holdout and value). The guarantee is
    marginal: per field type, use `GroupConformalGate`. The fitted gate keeps
    the sorted holdout scores (a quantile is not a sum, so it cannot be
    merged from summaries) for `p_value`.

    Args:
        alpha: target rate of flagged correct values.
        nonconformity: calibrated confidence -> nonconformity score (default
            ``1 - confidence``).
        q: the threshold (set by `fit`).
    """

    alpha: float = DEFAULT_ALPHA
    nonconformity: Callable[[float], float] = one_minus
    q: float = math.inf
    _cal: tuple[float, ...] = ()
    _fitted: bool = field(default=False, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.alpha = check_alpha(self.alpha, "ConformalGate alpha")
        self.q = _threshold(self.q, "ConformalGate q")
        self._cal = tuple(sorted(self._cal))

    def fit(self, probs: Iterable[float], correct: Iterable[bool | int]) -> ConformalGate:
        """Set ``q`` from the correct holdout items; returns self.

        Non-finite probabilities are dropped with a warning (one NaN would
        otherwise sort last and shift the quantile). With fewer correct items
        than ``1 - alpha`` coverage needs (`split_conformal_quantile` gives
        ``+inf``), the fit still succeeds, with a warning: the gate then
        flags nothing, and `p_value` works as usual.

        Raises:
            ValueError: probabilities outside [0, 1], or labels that do not match them.
        """
        p, y = _holdout(probs, correct, "ConformalGate.fit")
        cal = sorted(correct_scores([v for v, c in zip(p, y) if c], self.nonconformity))
        if rank(len(cal), self.alpha) > len(cal):
            warnings.warn(
                f"ConformalGate.fit has too few correct calibration items ({len(cal)}) for "
                f"alpha={self.alpha}: the 1 - alpha guarantee needs at least {min_n(self.alpha)}, so "
                "the threshold is +inf and the gate flags nothing. Add labelled items or raise alpha.",
                stacklevel=2,
            )
        self._cal = tuple(cal)
        self.q = split_conformal_quantile(cal, self.alpha)
        self._fitted = True
        return self

    def p_value(self, confidence: Any) -> Any:
        """Conformal p-value: ``(#{holdout scores >= this one} + 1) / (n + 1)`` (small = atypical).

        The holdout scores are the nonconformity scores of the correct
        calibration items; the +1 counts the item itself (the finite-sample
        correction), so an empty holdout gives 1.0.
        """
        if not (self._fitted or self._cal):
            raise ValueError("ConformalGate.p_value needs a fitted gate; call .fit(probs, correct) first.")
        if is_batch(confidence):
            probs = probabilities(confidence, what="ConformalGate.p_value confidences")
            return _checks.as_out([self._p(v) for v in probs], _checks.numpy_or_none())
        return self._p(probability(confidence, what="ConformalGate.p_value confidence"))

    def _p(self, p: float) -> float:
        nc = self.nonconformity(p)
        n = len(self._cal)
        return (n - bisect_left(self._cal, nc) + 1) / (n + 1)

    def _require_fit(self) -> None:
        if self.q == math.inf and not (self._cal or self._fitted):
            raise ValueError(
                "ConformalGate is not fitted yet; call .fit(probs, correct) on a labelled holdout "
                "of calibrated probabilities first."
            )

    def _decide(self, p: float) -> Decision:
        return Decision.ACCEPT if self.nonconformity(p) <= self.q else Decision.FLAG


@dataclass
class GroupConformalGate(_Gate):
    """Mondrian conformal: one `ConformalGate` per group key, with a pooled fallback.

    Fitting each group (a node type, a field spec name) separately gives the
    ``alpha`` guarantee within every group, approximately restoring the
    per-type validity a single marginal gate lacks. Groups unseen at fit
    time, or with too few correct items for ``alpha`` (a warning names
    them), use the pooled gate.
    """

    alpha: float = DEFAULT_ALPHA
    nonconformity: Callable[[float], float] = one_minus
    by_group: dict[Hashable, ConformalGate] = field(default_factory=dict)
    pooled: ConformalGate | None = None

    def __post_init__(self) -> None:
        self.alpha = check_alpha(self.alpha, "GroupConformalGate alpha")

    def fit(
        self, probs: Iterable[float], correct: Iterable[bool | int], *, groups: Iterable[Hashable]
    ) -> GroupConformalGate:
        """Fit the pooled gate and one gate per group with enough correct items; returns self."""
        p, y = _holdout(probs, correct, "GroupConformalGate.fit", keep_all=True)
        keys = list(groups.tolist() if hasattr(groups, "tolist") else groups)
        if len(keys) != len(p):
            raise ValueError(
                f"GroupConformalGate.fit got {len(keys)} group keys for {len(p)} probs; pass one per prob."
            )
        self.pooled = ConformalGate(self.alpha, self.nonconformity).fit(p, y)
        index: dict[Any, list[int]] = {}
        for i, k in enumerate(keys):
            index.setdefault(k, []).append(i)
        self.by_group, small = {}, []
        for k, idx in index.items():
            n_ok = sum(1 for i in idx if y[i] and math.isfinite(p[i]))
            if rank(n_ok, self.alpha) > n_ok:
                small.append(f"{k!r} ({n_ok} correct)")
                continue
            self.by_group[k] = ConformalGate(self.alpha, self.nonconformity).fit(
                [p[i] for i in idx], [y[i] for i in idx]
            )
        if small:
            warnings.warn(
                f"GroupConformalGate: groups {', '.join(small)} have too few correct items for "
                f"alpha={self.alpha} (need {min_n(self.alpha)}); they use the pooled gate, which "
                "holds only marginally. Add labelled items for them.",
                stacklevel=2,
            )
        return self

    def __call__(self, confidence: Any, *, group: Any = None) -> Any:
        """The decision from ``group``'s gate (a batch may take a batch of groups)."""
        if self.pooled is None and not self.by_group:
            raise ValueError("GroupConformalGate is not fitted yet; call .fit(probs, correct, groups=...) first.")
        if is_batch(confidence) and is_batch(group):
            keys = list(group)
            probs = probabilities(confidence, what="GroupConformalGate confidences")
            if len(keys) != len(probs):
                raise ValueError(f"GroupConformalGate got {len(keys)} groups for {len(probs)} confidences.")
            return as_decisions([self._pick(k)._decide(v) for v, k in zip(probs, keys)])
        return self._pick(group)(confidence)

    def _pick(self, group: Any) -> ConformalGate:
        gate = self.by_group.get(group) if group is not None else None
        if gate is None and group is not None:
            gate = self.by_group.get(str(group))
        gate = gate if gate is not None else self.pooled
        if gate is None:
            raise ValueError(f"GroupConformalGate has no gate for group {group!r} and no pooled fallback.")
        return gate


@dataclass
class RiskControlGate(_Gate):
    """Conformal risk control: accept ``p >= lam``, keeping accepted errors at or below ``target``.

    The controlled quantity is ``E[loss(correct) * 1(accepted)]``; with the
    default 0/1 loss, the rate of values that are both accepted and wrong
    (over all values, not only the accepted ones). `fit` picks the smallest
    ``lam`` (the most values accepted) whose finite-sample bound
    ``(sum of holdout losses among accepted + B) / (n + 1)`` is at most
    ``target``. Built with ``lam`` other than 1, it counts as fitted.

    Args:
        target: ceiling on the expected loss of accepted values.
        loss: ``correct -> loss`` in ``[0, loss_bound]``.
        loss_bound: the loss's upper bound ``B``; it must match ``loss`` or
            the guarantee fails.
        lam: the accept threshold (set by `fit`).
    """

    target: float = DEFAULT_RISK_TARGET
    loss: Callable[[bool], float] = _zero_one
    loss_bound: float = 1.0
    lam: float = 1.0
    _fitted: bool = field(default=False, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.target = check_alpha(self.target, "RiskControlGate target")
        self.loss_bound = number(self.loss_bound, what="RiskControlGate loss_bound")
        if self.loss_bound <= 0:
            raise ValueError(f"RiskControlGate loss_bound must be > 0, got {self.loss_bound}.")
        self.lam = _threshold(self.lam, "RiskControlGate lam")
        self._fitted = self.lam != 1.0

    def fit(self, probs: Iterable[float], correct: Iterable[bool | int]) -> RiskControlGate:
        """Find the smallest accept threshold whose risk bound is at most ``target``; returns self.

        Raises:
            ValueError: too few items for ``target`` (even accepting nothing
                cannot be certified), NaN or out-of-range probabilities, or a
                loss outside ``[0, loss_bound]``.
        """
        p = probabilities(probs, what="RiskControlGate.fit probs")
        y = labels(correct, len(p), what="RiskControlGate.fit correct")
        n, bound = len(p), self.loss_bound
        if bound / (n + 1) > self.target:
            raise ValueError(
                f"RiskControlGate.fit has {n} items, too few for target={self.target} with "
                f"loss_bound={bound}: certifying even 'accept nothing' needs "
                f"n >= {math.ceil(bound / self.target) - 1}. Add labelled items or raise target."
            )
        losses = []
        for i, c in enumerate(y):
            v = number(self.loss(c), what=f"RiskControlGate loss of item {i}")
            if not 0.0 <= v <= bound:
                raise ValueError(
                    f"RiskControlGate loss of item {i} is {v}, outside [0, loss_bound={bound}]; "
                    "set loss_bound to the loss's true maximum."
                )
            losses.append(v)
        order = sorted(range(n), key=lambda i: -p[i])
        lam, total, j = math.inf, 0.0, 0
        while j < n:
            level = p[order[j]]
            while j < n and p[order[j]] == level:
                total += losses[order[j]]
                j += 1
            if (total + bound) / (n + 1) > self.target:
                break
            lam = level
        if math.isinf(lam):
            warnings.warn(
                f"RiskControlGate accepts nothing: even the most confident holdout items exceed "
                f"target={self.target}. Improve the calibrator or raise target.",
                stacklevel=2,
            )
        self.lam, self._fitted = lam, True
        return self

    def _require_fit(self) -> None:
        if not self._fitted:
            raise ValueError(
                "RiskControlGate is not fitted yet; call .fit(probs, correct) on a labelled holdout "
                "of calibrated probabilities first."
            )

    def _decide(self, p: float) -> Decision:
        return Decision.ACCEPT if p >= self.lam else Decision.FLAG


def risk_coverage_curve(
    probs: Iterable[float], correct: Iterable[bool | int], *, thresholds: Sequence[float] | None = None
) -> list[dict[str, float]]:
    """The risk-coverage trade-off: one ``{threshold, coverage, selective_risk}`` per threshold.

    Accepting ``p >= threshold``, coverage is the share of values accepted
    and selective risk the share of accepted values that are wrong (None
    when nothing is accepted). Points run from the strictest threshold to
    the loosest; by default the thresholds are the distinct probabilities.

    >>> for point in risk_coverage_curve([0.9, 0.8, 0.6, 0.3], [True, False, True, True]):
    ...     print(point)
    {'threshold': 0.9, 'coverage': 0.25, 'selective_risk': 0.0}
    {'threshold': 0.8, 'coverage': 0.5, 'selective_risk': 0.5}
    {'threshold': 0.6, 'coverage': 0.75, 'selective_risk': 0.3333333333333333}
    {'threshold': 0.3, 'coverage': 1.0, 'selective_risk': 0.25}
    """
    p = probabilities(probs, what="risk_coverage_curve() probs")
    y = labels(correct, len(p), what="risk_coverage_curve() correct")
    n = len(p)
    if n == 0:
        raise ValueError("risk_coverage_curve() got no items; pass at least one (prob, correct) pair.")
    order = sorted(range(n), key=p.__getitem__)
    asc = [p[i] for i in order]
    wrong_before = [0]
    for i in order:
        wrong_before.append(wrong_before[-1] + (0 if y[i] else 1))
    if thresholds is None:
        ts = sorted(set(asc), reverse=True)
    else:
        ts = sorted((number(t, what="risk_coverage_curve() threshold") for t in thresholds), reverse=True)
    out = []
    for t in ts:
        j = bisect_left(asc, t)
        accepted = n - j
        wrong = wrong_before[n] - wrong_before[j]
        out.append({"threshold": t, "coverage": accepted / n, "selective_risk": wrong / accepted if accepted else None})
    return out


# --------------------------------------------------------------------------


def _threshold(value: Any, what: str) -> float:
    """A gate threshold as a float; +-inf are allowed (accept all / nothing), NaN is not."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{what} must be a real number, got {type_name(value)} {value!r:.40}.")
    if math.isnan(value):
        raise ValueError(
            f"{what} must be a number (inf is allowed), got {value!r}; a NaN threshold would "
            "flag every value. Leave it at its default and call fit()."
        )
    return float(value)


def _holdout(
    probs: Iterable[float], correct: Iterable[bool | int], owner: str, *, keep_all: bool = False
) -> tuple[list[float], list[bool]]:
    """Probabilities (non-finite dropped with a warning unless keep_all) and labels."""
    p = probabilities(probs, what=f"{owner} probs", allow_nonfinite=True)
    y = labels(correct, len(p), what=f"{owner} correct")
    bad = [i for i, v in enumerate(p) if not math.isfinite(v)]
    if bad and not keep_all:
        warnings.warn(
            f"{owner} dropped {len(bad)} non-finite probabilities (first at index {bad[0]}); "
            "fix or remove them so the calibration set matches the data the gate will see.",
            stacklevel=3,
        )
        keep = set(bad)
        p = [v for i, v in enumerate(p) if i not in keep]
        y = [c for i, c in enumerate(y) if i not in keep]
    return list(p), list(y)


register("policies", "cost_sensitive", CostSensitiveGate)
register("policies", "conformal", ConformalGate)
register("policies", "group_conformal", GroupConformalGate)
register("policies", "risk_control", RiskControlGate)
rehome(globals())  # the objects of private modules report this documented home
