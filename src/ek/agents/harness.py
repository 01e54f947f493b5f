"""The agent suite harness: k trials per task, per-slice figures, and a gate that survives noise.

`run_suite` runs the system under test over a task suite k times per task,
grades every episode with an injected checker, and reports pass^k, the
success rate, cost and latency, per slice. Trials may run concurrently
(threads for a plain function, the event loop for an ``async def`` agent),
each with an optional timeout; the report does not depend on the order in
which they finish. A trial that raises or times out is a failed episode
that carries its error. With ``persist=True`` every finished trial is stored
at once, and a run interrupted by Ctrl-C or a killed process resumes under
the same ``run_id``, running only the trials it lacks.

Why a separate gate. A point comparison (``ek.harness.regression_gate``
with a tolerance) suits a deterministic benchmark, not an agent: running
the same agent twice moves the number, so a point gate flags noise and
misses real drops that hide in its tolerance. `agent_regression_gate`
tests the *difference* current - baseline with both runs' uncertainty: a
Newcombe interval on the success rate and, for k > 1, a combined bound on
pass^k. Two shortcuts are wrong and are not used: comparing our interval
with the baseline's *point* (the baseline is noisy too, so one flake
against a lucky baseline looks like a regression), and asking whether two
95% intervals *overlap* (roughly a 0.5% test, blind to a 15-point drop on
a 60-task suite). Empty runs and empty baselines are refused: with no
trials every bound is the widest possible, a permanent free pass.

Hidden variables. In a tau-bench-style suite the user is simulated by an
LLM, and changing it moves scores. A baseline stores its `RunProvenance`,
and the gate refuses to compare across a different simulator, suite version
or scaffold: that comparison is a category error, not a regression check.

The checker must run where the agent cannot reach it; ek cannot enforce
your sandbox.

>>> from ek.agents.base import Cost, Episode, TaskSpec
>>> tasks = [TaskSpec("t1", input="2+2", gold="4"), TaskSpec("t2", input="3+3", gold="6")]
>>> def agent(task):
...     answers = {"2+2": "4", "3+3": "7"}      # gets t2 wrong, every time
...     return Episode(output=answers[task.input], cost=Cost(input_tokens=10))
>>> report = run_suite(agent, tasks, k=1)
>>> report.success_rate, report.pass_hat_k
(0.5, 0.5)
"""

from __future__ import annotations

import dataclasses
import inspect
import math
import numbers
import uuid
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Union

import ek.agents.metrics  # noqa: F401 - registers the built-in checkers
from ek._util import Progress, type_name
from ek.agents._common import accepts_keyword
from ek.agents._reliability import ReliabilityReport
from ek.agents._runner import run_trials
from ek.agents._stats import _Z95, _newcombe, difference_upper_bound
from ek.agents._suite import RunStore, Suite
from ek.agents.base import RunProvenance, TaskSpec
from ek.agents.cost import ModelPrice

__all__ = [
    "AgentGateResult",
    "agent_regression_gate",
    "load_agent_baseline",
    "run_suite",
    "save_agent_baseline",
]

_FORMAT = "ek.agents.baseline/1"


@dataclass(frozen=True)
class AgentGateResult:
    """What `agent_regression_gate` found; truthy when the run passed.

    ``reasons`` lists each confident regression. ``underpowered`` is True
    when a figure got worse but not significantly: not a clean pass, an
    experiment too small to tell (run more tasks or more trials).
    """

    passed: bool = True
    reasons: tuple = field(default_factory=tuple)
    pass_hat_k: Optional[float] = None
    pass_hat_k_baseline: Optional[float] = None
    success_rate: Optional[float] = None
    success_rate_baseline: Optional[float] = None
    cost_per_success: Optional[float] = None
    cost_per_success_baseline: Optional[float] = None
    underpowered: bool = False

    def __bool__(self) -> bool:
        return self.passed


def run_suite(agent: Callable, tasks: Any, *, k: int = 1, check: Any = None,
              metrics: Optional[Mapping] = None, price: Optional[Union[ModelPrice, str]] = None,
              prices: Optional[Mapping[str, ModelPrice]] = None, run: Optional[RunProvenance] = None,
              seed: Optional[int] = None, persist: bool = False, run_id: Optional[str] = None,
              rootdir: Any = None, max_concurrency: int = 1,
              timeout: Optional[float] = None) -> ReliabilityReport:
    """Run ``agent`` on every task ``k`` times and report reliability and cost.

    Args:
        agent: the system under test, ``TaskSpec -> Episode`` (another return
            value becomes the episode's output; see `as_agent`). It gets the
            whole spec (``input``, ``tools``, ``gold``). An ``async def``
            agent runs on an event loop. If it takes a ``seed`` keyword, the
            trial's seed is passed.
        tasks: `TaskSpec` s, or a ``{task_id: TaskSpec}`` mapping.
        k: trials per task. k > 1 is what gives pass^k meaning, and only for
            a stochastic agent (the report warns otherwise).
        check: the success oracle: a registered checker name or an
            ``(episode, gold) -> bool`` callable; default ``"output"``.
            Inject a state-based or executable oracle for a real suite, and
            run it out of the agent's reach.
        metrics: optional ``{name: Metric}`` scored on every episode against
            ``task.gold`` with the suite's tool grammar (`suite_grammar`)
            injected, so tool and argument weights reach ``tool_call`` and
            ``trajectory`` metrics. Corpus figures land in
            ``report.detail["metrics"]``.
        price, prices: rates for the dollar figures (see `ek.agents.cost`);
            without them dollars are None, never 0. Dollars are computed as
            each trial finishes, so a missing rate stops the run early.
        run: the `RunProvenance` of this run, recorded on every episode and
            on any baseline saved from the report.
        seed: base seed; trial i of each task gets ``seed + i``, recorded on
            the episode and passed to an agent that takes ``seed``.
        persist: store the run header in the ``runs`` store and each
            finished trial in the ``results`` store, as it finishes.
        run_id: the name to store and resume the run under (needs
            ``persist=True``; generated when omitted). Calling again with the
            same ``run_id`` and settings runs only the missing trials and
            returns the same report as an uninterrupted run.
        rootdir: data folder for the stores (default: ek's data folder).
        max_concurrency: trials in flight at once (threads for a sync agent,
            tasks on the loop for an async one).
        timeout: seconds a trial may take; a trial over it fails with a
            ``TimeoutError`` (an async trial is cancelled, a sync one
            abandoned).

    Returns:
        A `ReliabilityReport` with pass@k, pass^k (bootstrap interval over
        tasks), the success rate (Wilson interval), per-slice figures and the
        cost report (``cost_per_success_ci`` is a bootstrap over tasks).
        ``detail`` has ``errors`` (one entry per failed-by-exception trial),
        ``metrics``, ``run``, ``seed`` and, when persisted, ``run_id``.
        Latency is what the agent reports in ``Cost.latency_s`` (the
        bridges fill it); the harness's own wall-clock per trial is only
        stored with a persisted trial, so reports stay reproducible.
        Progress is printed to stderr when it is a terminal.

    Raises:
        ValueError: no tasks, duplicate task ids, ``k < 1``, bad
            concurrency or timeout, ``run_id`` without ``persist=True``, or a
            ``run_id`` stored with different settings.
    """
    specs = _tasks(tasks)
    _check_settings(k, seed, max_concurrency, timeout, run, metrics)
    if run_id is not None and not persist:
        raise ValueError(
            f"run_id={run_id!r} is only used to store and resume a run; pass persist=True as well, "
            "or drop run_id."
        )
    suite = Suite(specs, k=k, check=check, metrics=dict(metrics or {}), price=price,
                         prices=prices, run=run, seed=seed,
                         takes_seed=_accepts_seed(agent), is_async=_is_async(agent),
                         persist=persist)
    records: list = [None] * (len(specs) * k)
    store = None
    if persist:
        run_id = run_id if run_id is not None else f"run-{uuid.uuid4().hex[:12]}"
        store = RunStore(run_id, rootdir=rootdir)
        store.open(suite)
        for i, rec in store.load(len(records)):
            records[i] = rec
    pending = [i for i, rec in enumerate(records) if rec is None]
    progress = Progress(len(records), label="run_suite", unit="trials",
                        reused=len(records) - len(pending))

    def on_done(i: int, outcome: tuple) -> None:
        rec, stored = suite.record(i, outcome)
        if store is not None:
            store.save(i, stored)
        records[i] = rec
        progress.tick(rec["error"] is None and rec["success"])

    try:
        run_trials(lambda i: suite.call(agent, i), pending, is_async=suite.is_async,
                   max_concurrency=max_concurrency, timeout=timeout, on_done=on_done)
    finally:
        progress.close()
    report = suite.report(records, run_id=run_id if persist else None)
    if store is not None:
        store.close(report)
    return report


def save_agent_baseline(report: ReliabilityReport, name: str, *, rootdir: Any = None) -> dict:
    """Store ``report`` as the named baseline, with its provenance, in the ``baselines`` store.

    Returns the stored dict.

    Raises:
        ValueError: the run evaluated nothing. An empty baseline is worse
            than none: every bound in it is the widest possible, so no later
            run could ever be shown to fall below it.
    """
    from ek.stores import json_store

    if not isinstance(report, ReliabilityReport):
        raise TypeError(f"save_agent_baseline() needs a ReliabilityReport, got {type_name(report)}.")
    if report.n_trials == 0:
        raise ValueError(
            f"save_agent_baseline({name!r}): the report has no trials. An empty baseline would be a "
            "permanent free pass for the gate; run the suite (run_suite) and save that report."
        )
    summary = _summary(report)
    json_store("baselines", rootdir=rootdir)[name] = summary
    return summary


def load_agent_baseline(name: str, *, rootdir: Any = None) -> Optional[dict]:
    """The named agent baseline from the ``baselines`` store, or None when there is none."""
    from ek.stores import json_store

    try:
        return json_store("baselines", rootdir=rootdir)[name]
    except KeyError:
        return None


def agent_regression_gate(report: ReliabilityReport, baseline: Any, *, tolerance: float = 0.0,
                          cost_tolerance: float = 0.0, rootdir: Any = None) -> AgentGateResult:
    """Fail only when the evidence says the agent really got worse, not on noise.

    Tests the change ``current - baseline`` with both runs' uncertainty: a
    Newcombe interval on the success rate (trials of one task share its
    difficulty, which only makes this conservative on a fixed suite) and,
    when both runs have the same k > 1, a combined bound on pass^k
    (`difference_upper_bound` of the two bootstrap intervals). A figure
    regresses when the upper bound of its change is below ``-tolerance``.
    Cost per success regresses when the lower bound of its increase (from
    the two bootstrap intervals) exceeds ``cost_tolerance`` times the
    baseline's (a relative allowance: 0.1 lets it grow by 10%).

    A figure that is worse but not significantly so sets ``underpowered``
    and warns: that is an experiment too small to decide, not a clean pass.

    Args:
        report: the current run's `ReliabilityReport`.
        baseline: a baseline name (looked up in the ``baselines`` store
            under ``rootdir``), a dict from `save_agent_baseline`, or a
            `ReliabilityReport`.
        tolerance: allowed drop in success rate and pass^k (probability units).
        cost_tolerance: allowed relative rise in cost per success.

    Raises:
        ValueError: the baseline is missing or malformed, either run has no
            trials, or the runs differ in user simulator, suite version or
            scaffold (not comparable).
    """
    for name, value in (("tolerance", tolerance), ("cost_tolerance", cost_tolerance)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                or value < 0:
            raise ValueError(f"agent_regression_gate() {name} must be a finite number >= 0, got {value!r}.")
    if not isinstance(report, ReliabilityReport):
        raise TypeError(f"agent_regression_gate() needs a ReliabilityReport, got {type_name(report)}.")
    if report.n_trials == 0:
        raise ValueError(
            "agent_regression_gate(): the current report has no trials, so nothing can be tested; "
            "run the suite first."
        )
    cur = _summary(report)
    base = _baseline(baseline, rootdir)
    _check_comparable(cur, base)
    reasons, worse = [], []
    lo, hi = _newcombe(cur["n_success"], cur["n_trials"], base["n_success"], base["n_trials"], _Z95)
    drop = cur["success_rate"] - base["success_rate"]
    if hi < -tolerance:
        reasons.append(
            f"success rate fell from {base['success_rate']:.3f} to {cur['success_rate']:.3f}; the 95% "
            f"interval of the change is [{lo:+.3f}, {hi:+.3f}], entirely below -{tolerance:g}."
        )
    elif drop < -tolerance:
        worse.append(f"success rate {drop:+.3f}")
    if cur["k"] == base["k"] and cur["k"] > 1 and cur["pass_hat_k"] is not None \
            and base["pass_hat_k"] is not None:
        ub = difference_upper_bound(cur["pass_hat_k"], cur["pass_hat_k_ci"], base["pass_hat_k"],
                                    base["pass_hat_k_ci"], z=_Z95)
        change = cur["pass_hat_k"] - base["pass_hat_k"]
        if ub is not None and ub < -tolerance:
            reasons.append(
                f"pass^{cur['k']} fell from {base['pass_hat_k']:.3f} to {cur['pass_hat_k']:.3f}; the "
                f"upper 95% bound of the change is {ub:+.3f}, below -{tolerance:g}."
            )
        elif change < -tolerance:
            worse.append(f"pass^{cur['k']} {change:+.3f}")
    elif cur["k"] != base["k"]:
        warnings.warn(
            f"the baseline was run with k={base['k']} and this run with k={cur['k']}, so pass^k is "
            "not compared; run both with the same k.", stacklevel=2)
    cost_reason, cost_worse = _cost_change(cur, base, cost_tolerance)
    if cost_reason:
        reasons.append(cost_reason)
    elif cost_worse:
        worse.append(cost_worse)
    underpowered = not reasons and bool(worse)
    if underpowered:
        warnings.warn(
            f"the agent looks worse than its baseline ({', '.join(worse)}) but the difference is not "
            "significant: the run is too small to tell. Add tasks or trials (k) before trusting "
            "this pass.", stacklevel=2)
    return AgentGateResult(
        passed=not reasons, reasons=tuple(reasons),
        pass_hat_k=cur["pass_hat_k"], pass_hat_k_baseline=base["pass_hat_k"],
        success_rate=cur["success_rate"], success_rate_baseline=base["success_rate"],
        cost_per_success=cur["cost_per_success"], cost_per_success_baseline=base["cost_per_success"],
        underpowered=underpowered,
    )


# --------------------------------------------------------------------------


def _tasks(tasks: Any) -> list:
    if isinstance(tasks, Mapping):
        items = list(tasks.values())
    elif isinstance(tasks, (str, bytes)) or not hasattr(tasks, "__iter__"):
        raise TypeError(f"run_suite() tasks must be TaskSpec s or {{task_id: TaskSpec}}, got {type_name(tasks)}.")
    else:
        items = list(tasks)
    if not items:
        raise ValueError("run_suite() got no tasks; a suite needs at least one TaskSpec.")
    seen = set()
    for i, t in enumerate(items):
        if not isinstance(t, TaskSpec):
            raise TypeError(
                f"run_suite() task {i} is {type_name(t)}; wrap it as TaskSpec(task_id, input=..., gold=...)."
            )
        if t.task_id in seen:
            raise ValueError(
                f"run_suite() task id {t.task_id!r} appears twice; task ids group trials, so each "
                "task needs its own id."
            )
        seen.add(t.task_id)
    return items


def _check_settings(k: Any, seed: Any, max_concurrency: Any, timeout: Any, run: Any, metrics: Any) -> None:
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1:
        raise ValueError(
            f"run_suite() k={k!r}: k is the number of trials per task and must be a whole number >= 1."
        )
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, numbers.Integral)):
        raise TypeError(f"run_suite() seed must be an int or None, got {seed!r}.")
    if isinstance(max_concurrency, bool) or not isinstance(max_concurrency, numbers.Integral) \
            or max_concurrency < 1:
        raise ValueError(f"run_suite() max_concurrency must be a whole number >= 1, got {max_concurrency!r}.")
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float))
                                or not math.isfinite(timeout) or timeout <= 0):
        raise ValueError(f"run_suite() timeout must be a positive number of seconds or None, got {timeout!r}.")
    if run is not None and not isinstance(run, RunProvenance):
        raise TypeError(f"run_suite() run must be a RunProvenance, got {type_name(run)}.")
    if metrics is not None and not isinstance(metrics, Mapping):
        raise TypeError(f"run_suite() metrics must be a {{name: Metric}} mapping, got {type_name(metrics)}.")


def _is_async(agent: Any) -> bool:
    if not callable(agent):
        raise TypeError(f"run_suite() agent must be callable (TaskSpec -> Episode), got {type_name(agent)}.")
    return inspect.iscoroutinefunction(agent) or inspect.iscoroutinefunction(getattr(agent, "__call__", None))


def _accepts_seed(agent: Any) -> bool:
    return accepts_keyword(agent, "seed")


def _summary(report: ReliabilityReport) -> dict:
    """The JSON form of a report that baselines store and the gate compares."""
    cost = report.cost or {}
    ci = cost.get("cost_per_success_ci")
    return {
        "format": _FORMAT,
        "k": report.k,
        "n_tasks": report.n_tasks,
        "n_trials": report.n_trials,
        "n_success": report.n_success,
        "success_rate": report.success_rate,
        "success_ci": list(report.success_ci),
        "pass_at_k": report.pass_at_k,
        "pass_hat_k": report.pass_hat_k,
        "pass_hat_k_ci": list(report.pass_hat_k_ci),
        "stochastic": report.stochastic,
        "total_dollars": cost.get("total_dollars"),
        "cost_per_success": cost.get("cost_per_success"),
        "cost_per_success_ci": list(ci) if ci is not None else None,
        "per_slice": {str(k): {kk: (list(v) if isinstance(v, tuple) else v) for kk, v in row.items()}
                      for k, row in report.per_slice.items()},
        "run": dict(report.detail.get("run") or {}),
    }


def _baseline(baseline: Any, rootdir: Any) -> dict:
    if isinstance(baseline, ReliabilityReport):
        base = _summary(baseline)
    elif isinstance(baseline, str):
        base = load_agent_baseline(baseline, rootdir=rootdir)
        if base is None:
            raise ValueError(
                f"no agent baseline named {baseline!r} in the baselines store; save one first with "
                f"save_agent_baseline(report, {baseline!r}) (or pass rootdir= if it lives elsewhere)."
            )
    elif isinstance(baseline, Mapping):
        base = dict(baseline)
    else:
        raise TypeError(
            f"baseline must be a name, a dict from save_agent_baseline or a ReliabilityReport, "
            f"got {type_name(baseline)}."
        )
    if base.get("format") != _FORMAT:
        raise ValueError(
            f"the baseline is not an agent baseline (format={base.get('format')!r}, expected "
            f"{_FORMAT!r}); save it with save_agent_baseline(), not ek.harness.save_baseline()."
        )
    needed = ("k", "n_trials", "n_success", "success_rate", "pass_hat_k", "pass_hat_k_ci", "run")
    missing = [key for key in needed if key not in base]
    if missing:
        raise ValueError(f"the agent baseline is malformed: it lacks {', '.join(missing)}; save it again.")
    n, s = base["n_trials"], base["n_success"]
    if not isinstance(n, int) or not isinstance(s, int) or not 0 <= s <= n:
        raise ValueError(f"the agent baseline is malformed: n_success={s!r} of n_trials={n!r}; save it again.")
    if n == 0:
        raise ValueError(
            "the agent baseline recorded zero trials; an empty baseline can never be shown to be "
            "beaten, so it would pass every run. Save a baseline from a real run."
        )
    return base


def _check_comparable(cur: dict, base: dict) -> None:
    a, b = RunProvenance(**_provenance_fields(base["run"])), RunProvenance(**_provenance_fields(cur["run"]))
    for field_name, label in (("simulator", "user simulator"), ("suite_version", "suite version"),
                              ("scaffold", "scaffold")):
        was, now = getattr(a, field_name), getattr(b, field_name)
        if was != now:
            raise ValueError(
                f"the baseline was run with {label} {was!r} but this run used {now!r}; runs with a "
                "different user simulator, suite version or scaffold are not comparable, so the gate "
                "refuses. Re-run the baseline under the new setting and save it under a new name."
            )


def _provenance_fields(run: Any) -> dict:
    if not isinstance(run, Mapping):
        return {}
    names = {f.name for f in dataclasses.fields(RunProvenance)}
    return {k: v for k, v in run.items() if k in names}


def _cost_change(cur: dict, base: dict, cost_tolerance: float) -> tuple:
    """(reason, worse-note) for cost per success; nothing when either side lacks dollars or an interval."""
    c, b = cur.get("cost_per_success"), base.get("cost_per_success")
    c_ci, b_ci = cur.get("cost_per_success_ci"), base.get("cost_per_success_ci")
    if c is None or b is None or not (math.isfinite(c) and math.isfinite(b)) or not c_ci or not b_ci:
        return None, None
    if not all(math.isfinite(v) for v in list(c_ci) + list(b_ci)):
        return None, None
    allowed = cost_tolerance * b
    low = (c - b) - math.hypot(c - c_ci[0], b_ci[1] - b)
    if low > allowed:
        return (f"cost per success rose from ${b:.4g} to ${c:.4g}; the lower 95% bound of the rise is "
                f"${low:.4g}, above the allowed ${allowed:.4g}."), None
    if c - b > allowed:
        return None, f"cost per success {c - b:+.4g} USD"
    return None, None
