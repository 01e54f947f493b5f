"""Reliability of a k-trial run: pass@k, pass^k and the success rate, per task and per slice.

`reliability` turns graded episodes (or ``{task_id: [bool, ...]}``) into a
`ReliabilityReport`. The success rate is micro (over all trials) with a
Wilson interval; pass@k and pass^k are each task's unbiased estimator,
averaged over tasks, with a bootstrap interval that resamples tasks (the
independent unit), never trials.

>>> r = reliability({"t1": [True, True, False], "t2": [True, True, True]}, k=2)
>>> round(r.pass_hat_k, 3), round(r.pass_at_k, 3), r.success_rate
(0.667, 1.0, 0.8333333333333334)
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypedDict

from ek._stats import Z95, mean_interval, wilson
from ek._util import type_name
from ek.agents._reports import success_report
from ek.agents._stats import _pass_at_k, _pass_hat_k
from ek.agents.base import Episode, is_episode

__all__ = ["ReliabilityReport", "TaskFigures", "reliability"]

_RESAMPLES = 2000


class TaskFigures(TypedDict):
    """One task's row of `ReliabilityReport.per_task` (None: fewer than k trials, left out of both figures)."""

    n: int
    successes: int
    pass_at_k: float | None
    pass_hat_k: float | None


@dataclass(frozen=True)
class ReliabilityReport:
    """Corpus reliability of a k-trial run, with per-task and per-slice figures.

    Attributes:
        k: the k of pass@k and pass^k.
        n_tasks, n_trials, n_success: tasks seen, trials run, trials passed.
        success_rate: successes over all trials (micro), with ``success_ci``
            its Wilson 95% interval.
        pass_at_k, pass_hat_k: per-task unbiased estimators averaged over the
            tasks with at least k trials (None when no task qualifies), with
            ``pass_hat_k_ci`` a bootstrap 95% interval over tasks.
        stochastic: False when no task had mixed outcomes across its trials
            (pass^k then equals pass^1 and says nothing about reliability).
        per_task: ``{task_id: {"n", "successes", "pass_at_k", "pass_hat_k"}}``.
        per_slice: ``{label: {...}}`` with the same corpus figures per slice.
        cost: the cost report (see `ek.agents.cost_report`), empty if none.
        detail: ``skipped`` (tasks with fewer than k trials), ``reports``
            (``{"success_rate": Report}``, and ``"cost_per_success"`` for a
            priced `run_suite`: the figures as `ek.Report` s over tasks, which
            give ``interval()`` and work with `ek.compare` and
            `ek.merge_reports`), and whatever the harness adds (``metrics``,
            ``errors``, ``run``, ``run_id``).
    """

    k: int = 1
    n_tasks: int = 0
    n_trials: int = 0
    n_success: int = 0
    success_rate: float = 0.0
    success_ci: tuple[float, float] = (0.0, 1.0)
    pass_at_k: float | None = None
    pass_hat_k: float | None = None
    pass_hat_k_ci: tuple[float, float] = (0.0, 1.0)
    stochastic: bool = True
    per_task: Mapping[Hashable, TaskFigures] = field(default_factory=dict)
    per_slice: Mapping[Hashable, Mapping[str, object]] = field(default_factory=dict)
    cost: Mapping[str, object] = field(default_factory=dict)
    detail: Mapping[str, object] = field(default_factory=dict)


def reliability(
    source: Iterable[Episode] | Mapping[Hashable, Iterable[bool]],
    *,
    k: int = 1,
    slices: Mapping[str, str] | None = None,
    cost: Mapping[str, object] | None = None,
    warn_deterministic: bool = True,
) -> ReliabilityReport:
    """pass@k, pass^k and success rate of a k-trial run.

    Args:
        source: graded `Episode` s (grouped by ``task_id``), or a mapping
            ``{task_id: [bool, ...]}`` of trial outcomes.
        k: the k of pass@k / pass^k. A task with fewer than k trials is left
            out of those two figures rather than estimated wrongly, with a
            warning naming it, and listed in ``detail["skipped_tasks"]``
            (counted in ``detail["skipped"]``); its trials still count in
            the success rate.
        slices: optional ``{task_id: label}`` for per-slice figures.
        cost: a cost report (`ek.agents.cost_report`) to carry along;
            reliability without cost is half the answer.
        warn_deterministic: warn when ``k > 1`` and no task had mixed
            outcomes, so pass^k cannot differ from pass^1.

    Raises:
        ValueError: no trials at all, an ungraded episode, ``k < 1``, or
            ``k`` larger than the trials of every task.

    >>> r = reliability({"t1": [True, True, False], "t2": [True, True, True]}, k=2)
    >>> r.n_tasks, r.k, round(r.pass_hat_k, 3)      # t1: C(2,2)/C(3,2) = 1/3; t2: 1
    (2, 2, 0.667)
    """
    outcomes = _group(source)
    return _build(outcomes, k=k, slices=slices, cost=cost, warn_deterministic=warn_deterministic, stacklevel=3)


# --------------------------------------------------------------------------


def _group(source: Any) -> dict[Any, Any]:
    """``{task_id: [bool, ...]}`` in first-seen order, from episodes or a mapping."""
    if isinstance(source, Mapping):
        out = {}
        for task_id, trials in source.items():
            if isinstance(trials, (str, bytes)) or not isinstance(trials, Iterable):
                raise TypeError(
                    f"reliability(): task {task_id!r} maps to {type_name(trials)}; give a list of "
                    "trial outcomes, e.g. {'t1': [True, False, True]}."
                )
            out[task_id] = [_outcome(v, task_id, i) for i, v in enumerate(trials)]
        return out
    if isinstance(source, (str, bytes)) or not isinstance(source, Iterable):
        raise TypeError(f"reliability() takes graded episodes or {{task_id: [bool, ...]}}, got {type_name(source)}.")
    out = {}
    for i, ep in enumerate(source):
        if not is_episode(ep):
            raise TypeError(f"reliability() item {i} is {type_name(ep)}, not an Episode.")
        if not isinstance(ep.success, bool):
            raise ValueError(
                f"reliability() item {i} (task {ep.task_id!r}) is ungraded (success={ep.success!r}); "
                "grade episodes first with a checker, e.g. ep.graded(output_match(ep, gold)), "
                "or use run_suite()."
            )
        out.setdefault(ep.task_id, []).append(ep.success)
    return out


def _outcome(v: Any, task_id: Any, i: int) -> bool:
    if isinstance(v, bool):
        return v
    if isinstance(v, numbers.Integral) and v in (0, 1):
        return bool(v)
    raise TypeError(f"reliability(): trial {i} of task {task_id!r} is {v!r}; each outcome must be True/False.")


def _build(
    outcomes: Mapping[str, Sequence[bool]],
    *,
    k: int,
    slices: Mapping[Any, Any] | None = None,
    cost: Mapping[Any, Any] | None = None,
    warn_deterministic: bool = True,
    detail: Mapping[Any, Any] | None = None,
    slice_extra: Mapping[Any, Any] | None = None,
    stacklevel: int = 2,
) -> ReliabilityReport:
    """The report from grouped outcomes (shared by `reliability` and `run_suite`)."""
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1:
        raise ValueError(f"k must be a whole number >= 1 (trials per estimate), got {k!r}.")
    if slices is not None and not isinstance(slices, Mapping):
        raise TypeError(f"slices must be a mapping {{task_id: label}}, got {type_name(slices)}.")
    counts = {t: (len(v), sum(v)) for t, v in outcomes.items()}
    n_trials = _checked_trials(counts, k)
    per_task, hat_values, at_sum, skipped = _per_task(counts, k)
    n_success = sum(c for _, c in counts.values())
    repeated = [(n, c) for n, c in counts.values() if n >= 2]
    stochastic = any(0 < c < n for n, c in repeated) if repeated else True
    _warn(len(counts), k, skipped, warn_deterministic and not stochastic, stacklevel + 1)
    evaluated = len(hat_values)
    extra: dict[str, Any] = {"skipped": len(skipped), "skipped_tasks": skipped}
    extra.update(detail or {})
    extra["reports"] = {"success_rate": success_report(counts, slices), **(extra.get("reports") or {})}
    per_slice = _per_slice(per_task, slices) if slices else {}
    for label, more in (slice_extra or {}).items():
        if label in per_slice:
            per_slice[label].update(more)
    pass_hat_k = sum(hat_values) / evaluated if evaluated else None
    if evaluated:
        lo, hi = mean_interval(hat_values, resamples=_RESAMPLES)
        # Rounding can put the float mean an ulp outside a degenerate interval (ten tasks at
        # 0.1 average to 0.0999...); the interval must contain its own estimate.
        hat_ci = (min(lo, pass_hat_k), max(hi, pass_hat_k))
    else:
        hat_ci = (0.0, 1.0)
    return ReliabilityReport(
        k=int(k),
        n_tasks=len(counts),
        n_trials=n_trials,
        n_success=n_success,
        success_rate=n_success / n_trials,
        success_ci=wilson(n_success, n_trials, Z95),
        pass_at_k=at_sum / evaluated if evaluated else None,
        pass_hat_k=pass_hat_k,
        pass_hat_k_ci=hat_ci,
        stochastic=stochastic,
        per_task=per_task,
        per_slice=per_slice,
        cost=dict(cost or {}),
        detail=extra,
    )


def _checked_trials(counts: Mapping[Any, Any], k: int) -> int:
    """The number of trials, after checking there are some and that some task has k of them."""
    n_trials = sum(n for n, _ in counts.values())
    if n_trials == 0:
        raise ValueError(
            f"reliability() got {len(counts)} task(s) but no trials; there is nothing to estimate. "
            "Run each task at least once (k times for pass^k)."
        )
    most = max(n for n, _ in counts.values())
    if k > most:
        raise ValueError(
            f"k={k} is larger than the trials run: the most any task has is {most}. pass@k and "
            f"pass^k need at least k trials per task; run k={k} trials (run_suite(..., k={k})) "
            "or lower k."
        )
    return int(n_trials)


def _per_task(
    counts: Mapping[Hashable, tuple[int, int]], k: int
) -> tuple[dict[Hashable, TaskFigures], list[float], float, list[Hashable]]:
    """``(per_task, pass^k values, summed pass@k, skipped ids)``; tasks short of k trials are skipped."""
    per_task: dict[Hashable, TaskFigures] = {}
    hat_values: list[float] = []
    at_sum, skipped = 0.0, []
    for task_id, (n, c) in counts.items():
        if n < k:
            skipped.append(task_id)
            per_task[task_id] = {"n": n, "successes": c, "pass_at_k": None, "pass_hat_k": None}
            continue
        at, hat = _pass_at_k(n, c, k), _pass_hat_k(n, c, k)
        per_task[task_id] = {"n": n, "successes": c, "pass_at_k": at, "pass_hat_k": hat}
        at_sum += at
        hat_values.append(hat)
    return per_task, hat_values, at_sum, skipped


def _warn(n_tasks: int, k: int, skipped: list[Any], deterministic: bool, stacklevel: int) -> None:
    """The two warnings of a defined but suspect report: pass^k that can't differ, skipped tasks."""
    if deterministic and k > 1:
        warnings.warn(
            f"no task had mixed outcomes across its trials ({n_tasks} tasks), so pass^{k} "
            "equals pass^1 here and says nothing about reliability. If the agent is meant to be "
            "stochastic, check that the seed or temperature reaches it; silence this with "
            "warn_deterministic=False.",
            stacklevel=stacklevel,
        )
    if skipped:
        shown = ", ".join(map(repr, skipped[:10])) + (", ..." if len(skipped) > 10 else "")
        warnings.warn(
            f"{len(skipped)} of {n_tasks} task(s) have fewer than k={k} trials and are left out "
            f"of pass@{k} and pass^{k} (their trials still count in the success rate): {shown}. "
            f"They are listed in detail['skipped_tasks']; run {k} or more trials per task, or "
            "lower k, to include them.",
            stacklevel=stacklevel,
        )


def _per_slice(per_task: Mapping[Any, Any], slices: Mapping[Any, Any]) -> dict[Any, Any]:
    groups: dict[Any, Any] = {}
    for task_id, row in per_task.items():
        label = slices.get(task_id)
        if label is not None:
            groups.setdefault(label, []).append(row)
    out = {}
    for label, rows in groups.items():
        n = sum(r["n"] for r in rows)
        c = sum(r["successes"] for r in rows)
        scored = [r for r in rows if r["pass_hat_k"] is not None]
        out[label] = {
            "n_tasks": len(rows),
            "n_trials": n,
            "n_success": c,
            "success_rate": c / n if n else None,
            "success_ci": wilson(c, n, Z95) if n else (0.0, 1.0),
            "pass_at_k": sum(r["pass_at_k"] for r in scored) / len(scored) if scored else None,
            "pass_hat_k": sum(r["pass_hat_k"] for r in scored) / len(scored) if scored else None,
            "skipped": len(rows) - len(scored),
        }
    return out
