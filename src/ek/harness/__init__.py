"""The offline harness: run a system over gold data, keep baselines, gate regressions.

A score is only useful when it can be reproduced and compared, slice by
slice, with the last good one. This module adds that discipline on top of
`ek.facade.evaluate`:

* `evaluate_store` runs any ``input -> prediction`` callable over a gold
  mapping (a dict, or a ``json_store("gold")``) and scores it per slice. A
  persisted run stores each item's result as it completes, so an
  interrupted run resumes where it stopped; a predictor failing on one item
  is recorded as an error instead of losing the run.
* `save_baseline` / `load_baseline` freeze a report's aggregate and
  per-slice figures in the ``baselines`` store.
* `regression_gate` fails when a report is worse than a baseline by more
  than a tolerance, on the aggregate or on any slice, in the direction the
  metric declares. It is a CI check over whole reports; the *gates* of
  `ek.qe.decide` (``ConformalGate``, ...) are something else, policies that
  accept, flag or block one extracted value.
* `percent_agreement`, `cohen_kappa` and `krippendorff_alpha` measure how
  far annotators agree, the ceiling of any score against their labels.

>>> gold = {"a": {"input": "cat", "reference": "cat", "slice": "easy"},
...         "b": {"input": "dgo", "reference": "dog", "slice": "hard"}}
>>> report = evaluate_store(str.lower, gold, metric="cer")
>>> report.aggregate, dict(report.per_slice)
(0.3333333333333333, {'easy': 0.0, 'hard': 0.6666666666666666})
>>> gate = regression_gate(report, {"metric": "cer", "aggregate": 0.25, "per_slice": {}})
>>> bool(gate), gate.regressions[0]["slice"] is None
(False, True)

Errors: a bad argument or gold record raises ``ValueError`` / ``TypeError``
naming the item and the fix; `regression_gate` raises ``ValueError`` for a
baseline of another metric. A predictor's own exceptions are recorded per
item unless ``errors="raise"``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Hashable, Mapping
from concurrent.futures import Executor
from typing import Any, TypeVar

from ek._runs import (
    ErrorMode,
    RunOptions,
    Scorer,
    ScoringTask,
    gold_items,
    run_options_of,
    run_scored,
)
from ek._util import rehome, type_name
from ek.base import CostWeight, GraphGrammar, Metric, Report
from ek.canonicalize import Steps
from ek.facade import evaluate, merge_reports
from ek.harness._agreement import cohen_kappa, krippendorff_alpha, percent_agreement
from ek.harness._baselines import (
    BaselineRecord,
    GateResult,
    Regression,
    load_baseline,
    regression_gate,
    save_baseline,
)

__all__ = [
    "BaselineRecord",
    "GateResult",
    "Regression",
    "RunOptions",
    "cohen_kappa",
    "evaluate_store",
    "krippendorff_alpha",
    "load_baseline",
    "percent_agreement",
    "regression_gate",
    "save_baseline",
]

_WHO = "evaluate_store"
_SCORER = Scorer(evaluate, merge_reports)
_K = TypeVar("_K", bound=Hashable)


# ---------------------------------------------------------------------------
# evaluate_store
# ---------------------------------------------------------------------------


def evaluate_store(
    predict: Callable[[Any], object],
    gold: Mapping[_K, Mapping[str, object]],
    *,
    metric: str | Metric | None = None,
    grammar: GraphGrammar | None = None,
    normalize: Steps | None = None,
    weights: CostWeight | None = None,
    input_key: str = "input",
    reference_key: str = "reference",
    slice_key: str = "slice",
    persist: bool = False,
    run_id: str | None = None,
    rootdir: str | os.PathLike[str] | None = None,
    resume: bool = True,
    errors: ErrorMode = "record",
    max_workers: int | None = None,
    timeout: float | None = None,
    executor: Executor | None = None,
    progress: bool | None = None,
    run_options: RunOptions | None = None,
) -> Report:
    """Run ``predict`` on every gold record's input and score it per slice.

    Each record of ``gold`` is a mapping holding the input, the reference
    answer and, optionally, a slice label. Items are visited in the dict's
    order, or in sorted key order for any other mapping (a store), so runs
    are repeatable. Scoring goes through `ek.facade.evaluate`; the aggregate
    and each per-slice figure come from the metric's summed statistics.

    A persisted run (``persist=True``, or any ``run_id``) stores item
    results in the ``results`` store as they complete (in chunks at most a
    second apart, and whenever the run stops or raises) and its header and
    summary in the ``runs`` store, under ``documents.<run_id>``. Calling
    again with the same ``run_id`` predicts only the items with no stored
    result (or whose gold record changed, or that raised last time) and
    returns the report an uninterrupted run gives. The settings (metric,
    normalize, grammar, weights) are recorded with the run; a resume under
    other ones is refused, and one that names no metric uses the stored
    one. ``resume=False`` starts the run over.

    Args:
        predict: the system under test, ``input -> prediction``.
        gold: ``key -> {input, reference, slice, ...}``; a dict or a ``json_store("gold")``.
        metric: a registered name or a metric callable; None picks one by
            the type of the first prediction and reference.
        grammar, normalize, weights: passed on to scoring, as in `ek.evaluate`.
        input_key, reference_key, slice_key: field names inside each record.
        persist: store the run (implied by ``run_id``).
        run_id: the run's name in the stores; a new one is made when
            persisting without it (read it back from ``detail["run_id"]``).
        rootdir: data folder for the stores (default: the ek data folder).
        resume: reuse stored item results of ``run_id``.
        errors: ``"record"`` (default) keeps going when ``predict`` raises
            and lists the item under ``detail["errors"]``, leaving it out of
            the scores; ``"raise"`` stops at the first failure.
        max_workers: how many items ``predict`` runs on at once, on threads
            (None: one after the other).
        timeout: seconds ``predict`` may take on one item; an item over it
            fails with ``TimeoutError`` (its thread is abandoned).
        executor: a ``concurrent.futures.Executor`` (thread pool, process
            pool, a Dask client's executor) that predicts *and* scores
            chunks of items; the report equals a serial run's. A process
            pool needs ``predict`` and the metric defined at module level.
        progress: show a progress bar on stderr; None (default) shows it
            only when stderr is a terminal.
        run_options: the run options as one `ek.harness.RunOptions` value, instead of
            the keywords ``persist`` to ``progress`` (passing both is refused).

    The run options (``persist`` to ``progress``) follow the one rule of
    every ek runner (`ek.ocr.evaluate_ocr`, `ek.agents.run_suite`).

    Returns:
        A `Report` over the successfully predicted items. ``detail["per_item"]``
        maps each gold key to its ``prediction``, ``reference``, ``slice``,
        ``score`` (the item's metric value, a number; None when it failed),
        ``detail`` (the metric's statistics for the item) and ``error``
        (None, or the exception text); ``detail["errors"]`` maps failed
        keys to their exception text and ``detail["run_id"]`` names the
        stored run (None when not persisted).

    Raises:
        TypeError: ``predict`` is not callable, ``gold`` is not a mapping, a
            record is not a mapping, or a prediction cannot be scored
            against its reference (e.g. ``predict`` returns the wrong type).
        ValueError: a record lacks its input or reference, a bad ``errors``,
            ``max_workers`` or ``timeout`` value (or both ``max_workers`` and
            ``executor``), a metric that returns NaN for an item, a lambda metric
            in a persisted run, or a stored run of other settings under
            ``run_id``.

    >>> r = evaluate_store(lambda x: x.upper(), {"k": {"input": "ab", "reference": "AB"}})
    >>> r.metric, r.aggregate, r.detail["per_item"]["k"]["score"]
    ('cer', 0.0, 0.0)
    """
    if not callable(predict):
        raise TypeError(
            f"evaluate_store() predict is a {type_name(predict)}; pass the system under test as a "
            "callable input -> prediction."
        )
    scoring = {"normalize": normalize, "grammar": grammar, "weights": weights}
    task = ScoringTask(predict, metric, scoring, _WHO, scorer=_SCORER)
    options = run_options_of(_WHO, locals(), parts=task.parts("predict"))
    items = gold_items(
        gold,
        ((input_key, "input_key"), (reference_key, "reference_key"), slice_key),
        _WHO,
        fingerprints=options.persist,
        check=_check_reference(reference_key),
    )
    return run_scored("documents", task, items, options, inherit=("metric",))


def _check_reference(reference_key: str) -> Callable[..., Any]:
    def check(key: Any, reference: Any) -> None:
        if reference is None:
            raise ValueError(
                f"gold record {key!r} has {reference_key}=None, so there is no answer to score "
                "against; fill it in, or leave the record out of the gold set."
            )

    return check


rehome(globals())  # the agreement statistics and the gate live in private modules
