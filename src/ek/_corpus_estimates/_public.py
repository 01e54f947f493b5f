"""The top-level calls of corpus estimation: `estimate_corpus`, `compare_estimates`, `plan_audit`.

Documented in and re-exported by `ek.facade` (their ``__module__`` says so);
they check their arguments and delegate to the modules of `ek._corpus_estimates`,
which return the values. Each of those modules loads on first call, so importing this one
loads the standard library and `ek.base` only. The proxies built from
`ek.evaluate` (`ek.agreement_proxy`, `ek.confidence_proxy`) stay in
`ek.facade`, beside the scoring they are made of.
"""

from __future__ import annotations

import numbers

from ek._corpus_estimates._values import AuditPlan, CorpusEstimate
from ek._util import type_name
from ek.base import Comparison, Report

__all__ = ["compare_estimates", "estimate_corpus", "plan_audit"]


def estimate_corpus(
    proxy: Report,
    audit: Report,
    *,
    level: float = 0.95,
    lam: str | float = "tune",
    interval: str = "clt",
    plan: AuditPlan | None = None,
) -> CorpusEstimate:
    """How good is the whole corpus, from a proxy of every item and a gold audit of a few? A `CorpusEstimate`.

    Prediction-powered inference (PPI++): the proxy's statistics on all N
    items, corrected by the n audited ones, then the metric's own figure of
    the estimated totals, so CER stays edits over reference length and F1
    micro-F1. The interval is valid whatever the proxy's quality and
    narrower the better the proxy; overall and per slice (each tuned alone).

    Args:
        proxy: a `Report` of the metric on every item, scored against a
            stand-in for gold (`agreement_proxy`, `confidence_proxy`, yours).
        audit: a `Report` of the same metric (and normalisation) against real
            gold on audited ids, a subset of the proxy's.
        level: the confidence level.
        lam: ``"tune"`` (PPI++'s power tuning, cross-fitted over 5 folds of
            the audit, with a Student t interval; plain PPI below 10 audited
            items or an effective audit size of 80, ``detail["lam"]`` says
            which), or the proxy's weight in [0, 1] (0: the audit alone;
            1: plain PPI), which ppi_py computes alike.
        interval: ``"clt"`` (normal, delta method) or ``"bootstrap"`` (the
            id-hash Poisson bootstrap of `Report.interval`).
        plan: the `AuditPlan` the audit was drawn by (items weighed by 1 / their
            inclusion probability); None: a uniform sample.

    Raises:
        ValueError: audit ids not in the corpus, an audit without ids (or a
            proxy without ids against an audit of named ids: items are
            joined by id, never by position), an id held by two items,
            another metric or normalisation, fewer than 2 audited items,
            NaN or negative statistics, a proxy without summed statistics,
            audited items the plan did not draw.

    >>> import ek
    >>> gold = ["the cat sat", "a dog ran", "birds sing", "fish swim"] * 25
    >>> pred = [g.replace("a", "o") for g in gold]
    >>> proxy = ek.agreement_proxy(pred, [g.replace("i", "e") for g in gold], ids=range(100))
    >>> audit = ek.evaluate(zip(pred[::5], gold[::5]), metric="cer", ids=range(0, 100, 5))
    >>> est = ek.estimate_corpus(proxy, audit)
    >>> est.n, est.N, est.interval[0] < est.estimate < est.interval[1]
    (20, 100, True)
    """
    for name, r in (("proxy", proxy), ("audit", audit)):
        if not isinstance(r, Report):
            raise TypeError(f"estimate_corpus() {name} is {type_name(r)}, not a Report; pass ek.evaluate reports.")
    _check_join(proxy, audit)
    from ek._corpus_estimates._corpus import estimate_corpus as run

    return run(proxy, audit, level=level, lam=lam, interval=interval, plan=plan)


def _check_join(proxy: Report, audit: Report) -> None:
    """ValueError unless the audit can be joined to the corpus by id, never by position alone.

    Without ids a report numbers its items 0, 1, ...: an audit of a few
    items numbered so would be joined to the corpus's first items, whatever
    was audited. That numbering is the same on both sides only when both
    are numbered by position over the same items (the audit is the whole
    corpus), or when the audit's own ids are positions of the proxy
    (integers, as ``ek.evaluate(..., ids=range(0, N, 5))`` gives).
    """
    proxy_ids, audit_ids = proxy.detail.get("ids"), audit.detail.get("ids")
    if audit_ids is None and (proxy_ids is not None or audit.n != proxy.n):
        raise ValueError(
            f"estimate_corpus() got an audit of {audit.n} items without ids, so its items would be joined to the "
            f"corpus's by position; pass ids= to ek.evaluate for the audit (the corpus ids of the items audited)."
        )
    if proxy_ids is None and audit_ids is not None and not all(_is_position(i) for i in audit_ids):
        raise ValueError(
            f"estimate_corpus() got a proxy of {proxy.n} items without ids (numbered 0 to {proxy.n - 1}) and an "
            f"audit with ids such as {next(i for i in audit_ids if not _is_position(i))!r}; pass ids= to the "
            "proxy (ek.agreement_proxy, ek.confidence_proxy, ek.evaluate) so both name items alike."
        )


def _is_position(item: object) -> bool:
    return isinstance(item, numbers.Integral) and not isinstance(item, bool)


def compare_estimates(a: CorpusEstimate, b: CorpusEstimate) -> Comparison:
    """Engine B against engine A on the same corpus and audit: B - A with its paired interval, p-value, verdict.

    Both estimates come from `estimate_corpus` over the same corpus ids,
    audit ids, plan, level and interval kind; B's and A's statistics are
    paired item by item (`ek.compare` reads the `Comparison` the same way).
    When both were tuned, one ``λ`` is tuned on the paired difference and
    ``delta`` is that difference's own estimate (not exactly ``b - a``).
    """
    from ek._corpus_estimates._compare import compare as paired

    return paired(a, b)


def plan_audit(
    proxy: Report, budget: float, *, strategy: str = "uniform", seed: int = 0, min_prob: float | None = None
) -> AuditPlan:
    """Which items to audit: an `AuditPlan` of Poisson-drawn ids and their inclusion probabilities.

    ``budget`` is the expected number of audited items; ``strategy``
    ``"uniform"``, ``"stratified"`` (Neyman allocation over the proxy's
    slices) or ``"active"`` (probability growing with each item's
    predicted uncertainty, never below ``min_prob``; default a quarter of
    ``budget / N``). ``seed`` makes the draw reproducible. Pass the plan to
    `estimate_corpus` with the audit of its ids.

    >>> import ek
    >>> proxy = ek.evaluate([("ct", "cat"), ("dog", "dog")] * 50, metric="cer")
    >>> plan = ek.plan_audit(proxy, 20, strategy="active", seed=1)
    >>> plan.N, plan.budget, min(plan.probabilities) >= plan.min_prob
    (100, 20.0, True)
    """
    if not isinstance(proxy, Report):
        raise TypeError(f"plan_audit() proxy is {type_name(proxy)}, not a Report; pass an ek.evaluate report.")
    from ek._corpus_estimates._plan import plan

    return plan(proxy, budget, strategy=strategy, seed=seed, min_prob=min_prob)
