"""Corpus figures from a proxy of every item and a gold audit of a few: prediction-powered inference.

`ek.estimate_corpus`, `ek.compare_estimates` and `ek.plan_audit` are
defined here (`_public`) and re-exported by `ek.facade`; the proxies
`ek.agreement_proxy` and `ek.confidence_proxy`, made of `ek.evaluate`, are
in `ek.facade` and call `consensus` and `expected_statistics` below. One job
per module:

* `_public`: the three top-level calls (check, delegate, return the values);
* `_columns`: a `Report` read once into arrays, its id index and moments,
  kept on the report;
* `_corpus`: the audit joined to the corpus, overall and per slice;
  `_resample`: its id-hash Poisson bootstrap; `_compare`: two engines paired;
* `_plan`: inclusion probabilities, the Poisson draw, labels for a target;
* `_proxies`: agreement (ROVER) and confidence (expected statistics) proxies;
* `_values`: `CorpusEstimate` and `AuditPlan` (standard library only).

The estimator itself, PPI++ over statistic columns with the delta method
(a pure function of the unaudited items' moments and the audited rows), is
`ek._stats._prediction_powered`: `ek.qe.monitor` calls it window by window,
and this package reads `ek.qe.rover` for its agreement proxy, so it sits
below both.

Importing this package (as `ek.facade` does) loads only `_public` and
`_values`: each function loads the module it delegates to on first call,
and numpy is imported inside the functions that use it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ek._corpus_estimates._public import compare_estimates, estimate_corpus, plan_audit
from ek._corpus_estimates._values import STRATEGIES, AuditPlan, CorpusEstimate

__all__ = [
    "STRATEGIES",
    "AuditPlan",
    "CorpusEstimate",
    "compare_estimates",
    "consensus",
    "estimate_corpus",
    "expected_statistics",
    "plan_audit",
]


def consensus(references: Sequence[Any], *, who: str) -> list[Any]:
    """Each item's stand-in for gold (`ek._corpus_estimates._proxies`)."""
    from ek._corpus_estimates._proxies import consensus as run

    return run(references, who=who)


def expected_statistics(
    confidences: Sequence[Any], statistics: Sequence[str], *, calibrator: Callable[..., Any] | None, who: str
) -> list[dict[str, Any]]:
    """Each item's expected statistics (`ek._corpus_estimates._proxies`)."""
    from ek._corpus_estimates._proxies import expected_statistics as run

    return run(confidences, statistics, calibrator=calibrator, who=who)
