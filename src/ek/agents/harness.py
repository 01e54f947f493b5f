"""The agent suite harness: k trials per task, per-slice figures, and a gate that survives noise.

`run_suite` runs the system under test over a task suite k times per task,
grades every episode with an injected checker, and reports pass^k, the
success rate, cost and latency, per slice. Trials may run concurrently
(threads for a plain function, the event loop for an ``async def`` agent,
or any ``executor=``), each with an optional timeout; the report does not
depend on the order in which they finish. A trial that raises or times out
is a failed episode that carries its error. It runs on the engine every
persisted evaluation shares (`ek.harness.evaluate_store` is another): with
``persist=True`` finished trials are stored as they come (at most a second
apart), and a run interrupted by Ctrl-C or a killed process resumes under
the same ``run_id`` and settings, running only the trials it lacks.

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
import math
import os
import warnings
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

import ek.agents.metrics  # noqa: F401 - registers the built-in checkers
from ek._runs import (
    ErrorMode,
    RunOptions,
    baseline_of,
    execute,
    load_baseline_record,
    run_options_of,
    save_baseline_record,
    start_run,
)
from ek._stats import Z95, newcombe, smallest_detectable_drop
from ek._util import type_name
from ek.agents._reliability import ReliabilityReport
from ek.agents._stats import difference_upper_bound
from ek.agents._suite import Suite, check_summary, run_summary, suite_specs, summary
from ek.agents.base import RunProvenance, TaskSpec
from ek.agents.cost import ModelPrice
from ek.agents.metrics import Checker
from ek.base import Metric

__all__ = [
    "AgentGateResult",
    "agent_regression_gate",
    "load_agent_baseline",
    "run_suite",
    "save_agent_baseline",
]

_WHO = "run_suite"
_LEGACY_FORMAT = "ek.agents.baseline/1"


@dataclass(frozen=True)
class AgentGateResult:
    """What `agent_regression_gate` found; truthy when the run passed.

    ``reasons`` lists each confident regression (and a suite that shrank).
    ``underpowered`` is True when a figure got worse and the run cannot show
    the drop stays within the tolerance: the interval of the change reaches
    past it, or the suite is too small to resolve a drop of that size (the
    drop plus the smallest drop this many trials or tasks can detect passes
    the tolerance). Not a clean pass: an experiment too small to tell (run
    more tasks or more trials).
    """

    passed: bool = True
    reasons: tuple[str, ...] = field(default_factory=tuple)
    pass_hat_k: float | None = None
    pass_hat_k_baseline: float | None = None
    success_rate: float | None = None
    success_rate_baseline: float | None = None
    cost_per_success: float | None = None
    cost_per_success_baseline: float | None = None
    underpowered: bool = False

    def __bool__(self) -> bool:
        return self.passed


def run_suite(
    agent: Callable[[TaskSpec], object],
    tasks: Iterable[TaskSpec] | Mapping[str, TaskSpec],
    *,
    k: int = 1,
    check: str | Checker | None = None,
    metrics: Mapping[str, Metric] | None = None,
    price: ModelPrice | str | None = None,
    prices: Mapping[str, ModelPrice] | None = None,
    run: RunProvenance | None = None,
    seed: int | None = None,
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
) -> ReliabilityReport:
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
            run it out of the agent's reach. A verdict that is not a bool
            fails the trial with an error, never counts as a success.
        metrics: optional ``{name: Metric}`` scored on every episode against
            ``task.gold`` with the suite's tool grammar (`suite_grammar`)
            injected, so tool and argument weights reach ``tool_call`` and
            ``trajectory`` metrics. Corpus figures land in
            ``report.detail["metrics"]``; a task with no gold is left out
            (with a warning naming it), a metric that fails on a trial is
            counted in its ``errors``.
        price, prices: rates for the dollar figures (see `ek.agents.cost`);
            without them dollars are None, never 0. Dollars are computed as
            each trial finishes, so a missing rate stops the run early.
        run: the `RunProvenance` of this run, recorded on every episode and
            on any baseline saved from the report.
        seed: base seed; trial i of each task gets ``seed + i``, recorded on
            the episode and passed to an agent that takes ``seed``.
        persist: store the run (implied by ``run_id``): its header in the
            ``runs`` store and the finished trials in the ``results`` store
            (in chunks at most a second apart), under ``agents.<run_id>``.
        run_id: the name to store and resume the run under (a new one is
            made when persisting without it). Calling again with the
            same ``run_id`` and settings runs only the missing trials and
            returns the same report as an uninterrupted run; other settings
            (k, seed, tasks, checker, metrics, prices, provenance) are refused.
        rootdir: data folder for the stores (default: ek's data folder).
        resume: reuse the stored trials of ``run_id``; False starts it over.
        errors: ``"record"`` (default): a trial whose agent raises or times
            out is a failed episode carrying its error; ``"raise"`` stops
            the run at the first such trial.
        max_workers: trials in flight at once (threads for a sync agent,
            tasks on the loop for an async one); None runs one at a time.
        timeout: seconds a trial may take; a trial over it fails with a
            ``TimeoutError`` (an async trial is cancelled, a sync one
            abandoned, one that blocks the event loop counted as timed out).
        executor: any ``concurrent.futures.Executor`` to run chunks of trials
            on (graded there too), instead of ``max_workers``; the report
            equals a serial run's.
        progress: a progress bar on stderr; None (default) shows one only
            when stderr is a terminal.
        run_options: the run options as one `ek.harness.RunOptions` value, instead of
            the keywords ``persist`` to ``progress`` (passing both is refused).

    The run options (``persist`` to ``progress``) follow the one rule of
    every ek runner (`ek.harness.evaluate_store`, `ek.ocr.evaluate_ocr`).

    Returns:
        A `ReliabilityReport` with pass@k, pass^k (bootstrap interval over
        tasks), the success rate (Wilson interval), per-slice figures and the
        cost report (``cost_per_success_ci`` is a bootstrap over tasks).
        ``detail`` has ``errors`` (one entry per failed-by-exception trial),
        ``metrics``, ``run``, ``seed`` and, when persisted, ``run_id``.
        Latency is what the agent reports in ``Cost.latency_s`` (the
        bridges fill it); the harness's own wall-clock per trial is only
        stored with a persisted trial, so reports stay reproducible.

    Raises:
        ValueError: no tasks, duplicate task ids, ``k < 1``, bad
            ``max_workers`` or timeout (or both ``max_workers`` and
            ``executor``), an unusable ``run_id``, a ``run_id`` stored with different settings, or a lambda checker
            or metric in a persisted run.
        TypeError: a task's slice label is not hashable.
    """
    specs = suite_specs(tasks)
    suite = Suite(agent, specs, k=k, check=check, metrics=metrics, price=price, prices=prices, run=run, seed=seed)
    options = run_options_of(_WHO, locals(), parts=suite.parts())
    suite.persist = options.persist
    items = suite.items()
    stored = start_run("agents", options, who=_WHO, settings=suite.settings, n_items=len(items))
    plan = options.plan(_WHO, unit="trials", is_async=suite.is_async, retry_failed=False)
    report = suite.report(execute(stored, suite, items, plan), specs, run_id=stored.run_id)
    stored.close(run_summary(report))
    return report


def save_agent_baseline(
    report: ReliabilityReport, name: str, *, rootdir: str | os.PathLike[str] | None = None
) -> dict[str, object]:
    """Store ``report`` as the named baseline, with its provenance, in the ``baselines`` store.

    Returns the stored dict. It is kept under ``agents.<name>``, so a
    document baseline of the same name (`ek.harness.save_baseline`) is
    another record.

    Raises:
        ValueError: the run evaluated nothing (an empty baseline is worse
            than none: every bound in it is the widest possible, so no later
            run could ever be shown to fall below it), or a figure is NaN.
    """
    if not isinstance(report, ReliabilityReport):
        raise TypeError(f"save_agent_baseline() needs a ReliabilityReport, got {type_name(report)}.")
    if report.n_trials == 0:
        raise ValueError(
            f"save_agent_baseline({name!r}): the report has no trials. An empty baseline would be a "
            "permanent free pass for the gate; run the suite (run_suite) and save that report."
        )
    record = summary(report)
    try:
        check_summary(record)
    except ValueError as exc:
        raise ValueError(f"save_agent_baseline({name!r}): the report {exc}; it cannot be gated against.") from None
    return save_baseline_record("agents", name, record, rootdir=rootdir, who="save_agent_baseline")


def load_agent_baseline(name: str, *, rootdir: str | os.PathLike[str] | None = None) -> dict[str, object] | None:
    """The named agent baseline from the ``baselines`` store, or None when there is none.

    Raises:
        ValueError: the stored record is damaged (naming its file), or
            ``name`` holds a document baseline (see `ek.harness.load_baseline`).
    """
    return load_baseline_record(
        "agents",
        name,
        rootdir=rootdir,
        who="load_agent_baseline",
        saver="ek.agents.save_agent_baseline()",
        check=_check_baseline,
    )


def agent_regression_gate(
    report: ReliabilityReport,
    baseline: str | ReliabilityReport | Mapping[str, object],
    *,
    tolerance: float = 0.0,
    cost_tolerance: float = 0.0,
    rootdir: str | os.PathLike[str] | None = None,
) -> AgentGateResult:
    """Fail only when the evidence says the agent really got worse, not on noise.

    Tests the change ``current - baseline`` with both runs' uncertainty: a
    Newcombe interval on the success rate (trials of one task share its
    difficulty, which only makes this conservative on a fixed suite) and,
    when both runs have the same k > 1, a combined interval on pass^k (from
    the two bootstrap intervals, see `difference_upper_bound`). A figure
    regresses when the upper bound of its change is below ``-tolerance``.
    Cost per success regresses when the lower bound of its increase (from
    the two bootstrap intervals) exceeds ``cost_tolerance`` times the
    baseline's (a relative allowance: 0.1 lets it grow by 10%). A current
    run over fewer tasks than the baseline fails: it is not the same
    experiment.

    A figure that is worse, whose interval of change still reaches past the
    tolerance, sets ``underpowered`` and warns, even when the drop itself is
    within the tolerance: a small run cannot show it stays inside. So does a
    drop that, with the smallest drop this suite size can detect added, goes
    past the tolerance (the smallest detectable drop comes from the run's
    size alone: Newcombe's interval over the trials for the success rate,
    over the tasks for pass^k), which catches an interval made narrow by
    tasks that all scored alike. The warning names that smallest drop.
    That is an experiment too small to decide, not a clean pass.

    Args:
        report: the current run's `ReliabilityReport`.
        baseline: a baseline name (looked up in the ``baselines`` store
            under ``rootdir``), a dict from `save_agent_baseline`, or a
            `ReliabilityReport`.
        tolerance: allowed drop in success rate and pass^k (probability units).
        cost_tolerance: allowed relative rise in cost per success.

    Raises:
        ValueError: the baseline is missing or malformed (a NaN figure
            included), either run has no trials, or the runs differ in user
            simulator, suite version or scaffold (not comparable).
    """
    for name, value in (("tolerance", tolerance), ("cost_tolerance", cost_tolerance)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
            raise ValueError(f"agent_regression_gate() {name} must be a finite number >= 0, got {value!r}.")
    if not isinstance(report, ReliabilityReport):
        raise TypeError(f"agent_regression_gate() needs a ReliabilityReport, got {type_name(report)}.")
    if report.n_trials == 0:
        raise ValueError(
            "agent_regression_gate(): the current report has no trials, so nothing can be tested; run the suite first."
        )
    cur = summary(report)
    try:
        check_summary(cur)
    except ValueError as exc:
        raise ValueError(f"agent_regression_gate(): the current report {exc}; it cannot be gated.") from None
    base = _baseline(baseline, rootdir)
    _check_comparable(cur, base)
    reasons: list[Any] = []
    worse: list[Any] = []
    if cur["n_tasks"] < base["n_tasks"]:
        reasons.append(
            f"the suite shrank from {base['n_tasks']} tasks to {cur['n_tasks']}: a run over fewer tasks is "
            "not the same experiment as its baseline. Run the whole suite, or save a new baseline."
        )
    _success_change(cur, base, tolerance, reasons, worse)
    _pass_k_change(cur, base, tolerance, reasons, worse)
    _cost_change(cur, base, cost_tolerance, reasons, worse)
    underpowered = not reasons and bool(worse)
    if underpowered:
        warnings.warn(
            f"the agent looks worse than its baseline ({'; '.join(worse)}), and the evidence that the drop "
            f"is small is not significant: the run is too small to tell whether it stays within "
            f"tolerance={tolerance:g}. Add tasks or trials (k) before trusting this pass.",
            stacklevel=2,
        )
    return AgentGateResult(
        passed=not reasons,
        reasons=tuple(reasons),
        pass_hat_k=cur["pass_hat_k"],
        pass_hat_k_baseline=base["pass_hat_k"],
        success_rate=cur["success_rate"],
        success_rate_baseline=base["success_rate"],
        cost_per_success=cur["cost_per_success"],
        cost_per_success_baseline=base["cost_per_success"],
        underpowered=underpowered,
    )


# --------------------------------------------------------------------------


def _baseline(baseline: Any, rootdir: Any) -> dict[Any, Any]:
    if isinstance(baseline, ReliabilityReport):
        baseline = summary(baseline)
    return baseline_of(
        baseline,
        "agents",
        rootdir=rootdir,
        who="agent_regression_gate",
        saver="save_agent_baseline",
        check=_check_baseline,
    )


def _check_baseline(base: Mapping[Any, Any]) -> None:
    if base.get("kind") != "agents" and base.get("format") != _LEGACY_FORMAT:
        raise ValueError(
            f"is not an agent baseline (kind={base.get('kind')!r}, format={base.get('format')!r}); save it "
            "with save_agent_baseline(), not ek.harness.save_baseline()"
        )
    check_summary(base)
    if base["n_trials"] == 0:
        raise ValueError(
            "recorded zero trials; an empty baseline can never be shown to be beaten, so it would pass "
            "every run. Save a baseline from a real run"
        )


def _check_comparable(cur: dict[Any, Any], base: dict[Any, Any]) -> None:
    a, b = RunProvenance(**_provenance_fields(base["run"])), RunProvenance(**_provenance_fields(cur["run"]))
    for field_name, label in (
        ("simulator", "user simulator"),
        ("suite_version", "suite version"),
        ("scaffold", "scaffold"),
    ):
        was, now = getattr(a, field_name), getattr(b, field_name)
        if was != now:
            raise ValueError(
                f"the baseline was run with {label} {was!r} but this run used {now!r}; runs with a "
                "different user simulator, suite version or scaffold are not comparable, so the gate "
                "refuses. Re-run the baseline under the new setting and save it under a new name."
            )


def _provenance_fields(run: Any) -> dict[Any, Any]:
    if not isinstance(run, Mapping):
        return {}
    names = {f.name for f in dataclasses.fields(RunProvenance)}
    return {k: v for k, v in run.items() if k in names}


def _success_change(
    cur: dict[str, Any], base: dict[str, Any], tolerance: float, reasons: list[str], worse: list[str]
) -> None:
    lo, hi = newcombe(cur["n_success"], cur["n_trials"], base["n_success"], base["n_trials"], Z95)
    was, now = base["success_rate"], cur["success_rate"]
    detectable = smallest_detectable_drop(was, base["n_trials"], cur["n_trials"])
    _verdict(
        now - was,
        lo,
        hi,
        tolerance,
        reasons,
        worse,
        f"success rate fell from {was:.3f} to {now:.3f}; "
        f"the 95% interval of the change is [{lo:+.3f}, {hi:+.3f}], entirely below -{tolerance:g}.",
        f"success rate {now - was:+.3f}, 95% interval [{lo:+.3f}, {hi:+.3f}], "
        + _detectable_note(detectable, f"{cur['n_trials']} trials"),
        detectable,
    )


def _pass_k_change(
    cur: dict[str, Any], base: dict[str, Any], tolerance: float, reasons: list[str], worse: list[str]
) -> None:
    k = cur["k"]
    if k != base["k"]:
        warnings.warn(
            f"the baseline was run with k={base['k']} and this run with k={k}, so pass^k is "
            "not compared; run both with the same k.",
            stacklevel=3,
        )
        return
    if k == 1 or cur["pass_hat_k"] is None or base["pass_hat_k"] is None:
        return
    pair = (cur["pass_hat_k"], cur["pass_hat_k_ci"], base["pass_hat_k"], base["pass_hat_k_ci"])
    hi = difference_upper_bound(*pair, z=Z95)
    lower = difference_upper_bound(*pair[2:], *pair[:2], z=Z95)
    assert hi is not None and lower is not None  # both estimates and intervals are present (checked above)
    lo = -lower
    was, now = base["pass_hat_k"], cur["pass_hat_k"]
    detectable = smallest_detectable_drop(was, base["n_tasks"], cur["n_tasks"])
    _verdict(
        now - was,
        lo,
        hi,
        tolerance,
        reasons,
        worse,
        f"pass^{k} fell from {was:.3f} to {now:.3f}; the "
        f"upper 95% bound of the change is {hi:+.3f}, below -{tolerance:g}.",
        f"pass^{k} {now - was:+.3f}, 95% interval [{lo:+.3f}, {hi:+.3f}], "
        + _detectable_note(detectable, f"{cur['n_tasks']} tasks"),
        detectable,
    )


def _cost_change(
    cur: dict[str, Any], base: dict[str, Any], cost_tolerance: float, reasons: list[str], worse: list[str]
) -> None:
    """Cost per success; nothing when either side lacks dollars or an interval."""
    c, b = cur.get("cost_per_success"), base.get("cost_per_success")
    c_ci, b_ci = cur.get("cost_per_success_ci"), base.get("cost_per_success_ci")
    if c is None or b is None or not c_ci or not b_ci or not all(map(math.isfinite, [c, b, *c_ci, *b_ci])):
        return
    allowed = cost_tolerance * b
    low = (c - b) - math.hypot(c - c_ci[0], b_ci[1] - b)
    high = (c - b) + math.hypot(c_ci[1] - c, b - b_ci[0])
    # A rise is a fall of the negated figure: the same verdict, mirrored.
    _verdict(
        b - c,
        -high,
        -low,
        allowed,
        reasons,
        worse,
        f"cost per success rose from ${b:.4g} to ${c:.4g}; "
        f"the lower 95% bound of the rise is ${low:.4g}, above the allowed ${allowed:.4g}.",
        f"cost per success {c - b:+.4g} USD, 95% interval [{low:+.4g}, {high:+.4g}]",
    )


def _verdict(
    change: float,
    lo: float,
    hi: float,
    tolerance: float,
    reasons: list[Any],
    worse: list[Any],
    reason: str,
    note: str,
    detectable: float | None = 0.0,
) -> None:
    """A regression when the whole interval of the change is below ``-tolerance``; underpowered
    when the figure got worse and the interval, or the drop plus the smallest detectable one
    (None: no drop is detectable), still reaches below it."""
    if hi < -tolerance:
        reasons.append(reason)
    elif change < 0 and (lo < -tolerance or detectable is None or change - detectable < -tolerance):
        worse.append(note)


def _detectable_note(detectable: float | None, size: str) -> str:
    if detectable is None:
        return f"no drop is detectable at {size}"
    return f"the smallest detectable drop at {size} is {detectable:.3f}"
