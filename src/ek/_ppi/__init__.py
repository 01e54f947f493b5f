"""Corpus figures from a proxy of every item and a gold audit of a few: prediction-powered inference.

Behind `ek.estimate_corpus`, `ek.compare_estimates`, `ek.plan_audit`,
`ek.agreement_proxy` and `ek.confidence_proxy` (the facade resolves and
delegates; the maths is here). One job per module:

* `_core`: the estimator over statistic columns, a pure function of the
  unaudited items' moments and the audited rows (a monitor calls it window
  by window): PPI++ with the delta method, uniform or planned audits;
* `_columns`: a `Report` read once into arrays, its id index and moments,
  kept on the report;
* `_estimate`: the audit joined to the corpus, overall and per slice;
  `_resample`: its id-hash Poisson bootstrap; `_compare`: two engines paired;
* `_plan`: inclusion probabilities, the Poisson draw, labels for a target;
* `_proxies`: agreement (ROVER) and confidence (expected statistics) proxies;
* `_values`: `CorpusEstimate` and `AuditPlan` (standard library only).

Importing this package (as `ek.facade` does) loads only `_values`: each
function below loads its module on first call, and numpy is imported inside
the functions that use it.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

from ek._ppi._values import STRATEGIES, AuditPlan, CorpusEstimate

__all__ = ["AuditPlan", "CorpusEstimate", "STRATEGIES", "compare", "consensus", "estimate_corpus",
           "expected_statistics", "plan"]

def estimate_corpus(proxy: Any, audit: Any, *, level: float, lam: Any, interval: str, plan: Any) -> dict[str, Any]:
    """The fields of a `CorpusEstimate` (`ek._ppi._estimate`)."""
    from ek._ppi._estimate import estimate_corpus as run

    return run(proxy, audit, level=level, lam=lam, interval=interval, plan=plan)


def compare(a: CorpusEstimate, b: CorpusEstimate) -> dict[str, Any]:
    """The fields of an `ek.Comparison` of two estimates (`ek._ppi._compare`)."""
    from ek._ppi._compare import compare as run

    return run(a, b)


def plan(proxy: Any, budget: Any, *, strategy: str, seed: Any, min_prob: Optional[float]) -> dict[str, Any]:
    """The fields of an `AuditPlan` (`ek._ppi._plan`)."""
    from ek._ppi._plan import plan as run

    return run(proxy, budget, strategy=strategy, seed=seed, min_prob=min_prob)


def consensus(references: Sequence[Any], *, who: str) -> list[Any]:
    """Each item's stand-in for gold (`ek._ppi._proxies`)."""
    from ek._ppi._proxies import consensus as run

    return run(references, who=who)


def expected_statistics(confidences: Sequence[Any], statistics: Sequence[str], *,
                        calibrator: Optional[Callable[..., Any]], who: str) -> list[dict[str, Any]]:
    """Each item's expected statistics (`ek._ppi._proxies`)."""
    from ek._ppi._proxies import expected_statistics as run

    return run(confidences, statistics, calibrator=calibrator, who=who)
