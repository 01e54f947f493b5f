"""One suite run's work for the run engine: calling the agent, grading each trial, the report.

`Suite` is the task `ek._runs` runs (in this process, on threads or an event
loop, or on an executor's workers): ``step`` calls the agent for one trial and
``finish`` grades it into a *record*, the few values the report is built from
(outcome, error, cost, dollars, metric scores). The report is computed from
records only, in task-then-trial order, so it is the same whether trials
finished in order, concurrently, or across an interrupted and resumed run
(the engine stores records faithfully, `Cost` and `Score` included).
"""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import json
import math
import numbers
import warnings
from collections.abc import Iterable, Mapping, Sequence, Sized
from typing import Any, TypedDict, cast

from ek._runs import FORMAT, Done, Finished, callable_id, describe, fingerprint, register, setting_id, str_keys
from ek._stats import ratio_interval
from ek._util import type_name
from ek.agents._common import accepts_keyword, cost_summary, per_success, resolve_check
from ek.agents._reliability import ReliabilityReport, _build
from ek.agents._reports import TrialScore, cost_report, metric_report
from ek.agents.base import Cost, Episode, RunProvenance, TaskSpec, suite_grammar
from ek.agents.cost import episode_dollars
from ek.base import Score

__all__ = [
    "Suite",
    "TrialEntry",
    "check_summary",
    "run_summary",
    "suite_items",
    "suite_settings",
    "suite_specs",
    "summary",
]

register(Cost, "cost")


class _Trial(TypedDict):
    task_id: str
    trial: int
    seed: int | None
    success: bool
    error: str | None
    cost: Cost | None
    wall_s: float
    dollars: float | None


class TrialEntry(_Trial, total=False):
    """The stored record of one trial (kind ``agents``), written by `Suite` and checked by `Suite.check`.

    ``metrics`` (name -> Score, error text or None) is there when the suite
    scores metrics, ``episode`` (the graded episode as JSON) when it is stored.
    """

    metrics: dict[str, Any]
    episode: dict[str, Any]


class Suite:
    """The fixed settings of one `run_suite` call, and the work of one trial."""

    per_item = True  # grade each trial as it ends: a missing price stops the run at the first
    unsettled = False  # every setting is known before the first trial (see `ek._runs.Task`)
    learned: dict[str, Any] | None = None

    def __init__(
        self,
        agent: Any,
        specs: list[TaskSpec],
        *,
        k: int,
        check: Any,
        metrics: Mapping[Any, Any] | None,
        price: Any,
        prices: Any,
        run: RunProvenance | None,
        seed: int | None,
    ) -> None:
        _check_settings(k, seed, run, metrics)
        self.is_async = _is_async(agent)
        self.agent, self.specs, self.k, self.check_given = agent, specs, k, check
        self.checker = resolve_check(check)
        metrics = dict(metrics or {})
        for name, m in metrics.items():
            if not callable(m):
                raise TypeError(f"run_suite() metric {name!r} is {type_name(m)}, not a callable Metric.")
        self.metrics, self.grammar = metrics, suite_grammar(specs) if metrics else None
        self.price, self.prices = price, prices
        self.priced = price is not None or prices is not None
        self.run, self.seed, self.persist = run, seed, False
        self.takes_seed = accepts_keyword(agent, "seed")
        self._runs: dict[Any, Any] = {}  # trial seed -> RunProvenance, shared by every task's trial

    def parts(self) -> dict[str, Any]:
        """What a process pool must pickle: the agent, the checker and each metric."""
        return {"agent": self.agent, "check": self.checker, **{f"metric {n!r}": m for n, m in self.metrics.items()}}

    def items(self) -> list[Any]:
        """The run's items, one per trial (fingerprinted when the run is stored)."""
        return suite_items(self.specs, self.k, self.persist)

    def settings(self) -> dict[Any, Any]:
        """The settings a stored run is checked against on resume."""
        return suite_settings(
            self.specs, self.k, self.seed, self.check_given, self.metrics, self.price, self.prices, self.run
        )

    def seed_of(self, trial: int) -> int | None:
        return None if self.seed is None else self.seed + trial

    def step(self, payload: Any) -> Any:
        task, trial = payload
        trial_seed = self.seed_of(trial)
        if self.takes_seed and trial_seed is not None:
            return self.agent(task, seed=trial_seed)
        return self.agent(task)

    def finish(self, batch: Sequence[Done]) -> Finished:
        return [self._record(payload, value, wall, None) for payload, value, wall in batch], None

    def failed(self, payload: Any, exc: BaseException, wall: float) -> TrialEntry:
        return self._record(payload, None, wall, exc)

    def check(self, rec: Mapping[str, Any]) -> None:
        """Raise saying what is wrong with a stored record."""
        if not isinstance(rec.get("success"), bool):
            raise ValueError(f"its success is {rec.get('success')!r:.40}, not True or False")
        if not isinstance(rec.get("trial"), int) or not isinstance(rec.get("task_id"), str):
            raise ValueError("its task_id or trial is missing or of the wrong type")
        if not isinstance(rec.get("cost"), (Cost, type(None))):
            raise ValueError(f"its cost is {type_name(rec.get('cost'))}, not a stored Cost")
        dollars = rec.get("dollars")
        if self.priced and (
            isinstance(dollars, bool)
            or not isinstance(dollars, (int, float))
            or not math.isfinite(dollars)
            or dollars < 0
        ):
            raise ValueError(f"its dollars are {dollars!r:.40}; a trial costs a finite amount >= 0")
        if self.metrics and not (
            isinstance(rec.get("metrics"), dict)
            and all(isinstance(rec["metrics"].get(n), (Score, str, type(None))) for n in self.metrics)
        ):
            raise ValueError("its metrics do not hold a stored Score, error or None per metric")

    def report(self, records: list[Any], specs: list[Any], *, run_id: str | None) -> ReliabilityReport:
        k = self.k
        outcomes, errors, task_dollars, task_wins, value_delivered = {}, [], [], [], 0.0
        slice_rows: dict[Any, Any] = {}
        for t, task in enumerate(specs):
            recs = records[t * k : (t + 1) * k]
            outcomes[task.task_id] = [r["success"] for r in recs]
            wins = sum(outcomes[task.task_id])
            value_delivered += task.value * wins
            dollars_t = math.fsum(r["dollars"] for r in recs) if self.priced else 0.0
            task_dollars.append(dollars_t)
            task_wins.append(wins)
            errors += [
                {"task_id": r["task_id"], "trial": r["trial"], "error": r["error"]}
                for r in recs
                if r["error"] is not None
            ]
            if task.slice is not None:
                row = slice_rows.setdefault(task.slice, [0.0, 0])
                row[0] += dollars_t
                row[1] += wins
        cost = cost_summary(
            [r["cost"] for r in records],
            [r["success"] for r in records],
            [r["dollars"] for r in records] if self.priced else None,
        )
        cost["value_delivered"] = value_delivered
        cost["cost_per_value"] = per_success(cost["total_dollars"], value_delivered) if self.priced else None
        cost["cost_per_success_ci"] = (
            ratio_interval(task_dollars, task_wins) if self.priced and len(task_dollars) >= 2 else None
        )
        slice_cost = {
            label: {
                "total_dollars": d if self.priced else None,
                "cost_per_success": per_success(d, w) if self.priced else None,
            }
            for label, (d, w) in slice_rows.items()
        }
        detail: dict[str, Any] = {
            "errors": errors,
            "metrics": self._metric_summary(records, specs),
            "run": dataclasses.asdict(self.run) if self.run is not None else None,
            "seed": self.seed,
        }
        if self.priced:
            detail["reports"] = {
                "cost_per_success": cost_report(
                    [t.task_id for t in specs],
                    task_dollars,
                    task_wins,
                    [t.slice for t in specs],
                    price=self.price,
                    prices=self.prices,
                )
            }
        if run_id is not None:
            detail["run_id"] = run_id
        slices = {t.task_id: t.slice for t in specs if t.slice is not None}
        return _build(
            outcomes, k=k, slices=slices or None, cost=cost, detail=detail, slice_extra=slice_cost, stacklevel=4
        )

    # ----------------------------------------------------------------------

    def _record(self, payload: tuple[Any, int], value: Any, wall: float, exc: BaseException | None) -> TrialEntry:
        task, trial = payload
        trial_seed = self.seed_of(trial)
        if exc is None:
            ep = self._episode(value, task, trial_seed)
            success, error = self._grade(ep, task.gold)
        else:
            error = describe(exc)
            spent = getattr(exc, "cost", None)
            ep = Episode(
                task_id=task.task_id,
                cost=spent if isinstance(spent, Cost) else None,
                run=self._run(None, trial_seed),
                meta={"error": error},
            )
            success = False
        rec: TrialEntry = {
            "task_id": task.task_id,
            "trial": trial,
            "seed": trial_seed,
            "success": success,
            "error": error,
            "cost": ep.cost,
            "wall_s": wall,
            "dollars": episode_dollars(ep, price=self.price, prices=self.prices) if self.priced else None,
        }
        if self.metrics or self.persist:
            graded = ep.graded(success)
            if self.metrics:
                rec["metrics"] = {
                    name: None if task.gold is None else _metric_score(m, name, graded, task.gold, self.grammar)
                    for name, m in self.metrics.items()
                }
            if self.persist:
                rec["episode"] = _episode_json(graded)
        return rec

    def _grade(self, ep: Episode, gold: Any) -> tuple[Any, ...]:
        """``(success, error)``: a checker that raises or returns a non-bool fails the trial, loudly."""
        try:
            verdict = self.checker(ep, gold)
        except Exception as exc:
            return False, f"check failed: {describe(exc)}"
        if isinstance(verdict, bool) or type(verdict).__name__ == "bool_":  # numpy's bool too
            return bool(verdict), None
        return False, (
            f"check failed: the checker returned {verdict!r:.40} ({type_name(verdict)}) instead "
            "of True/False, so the trial cannot be graded; return a bool (a string such as "
            "'no' is truthy and would count as a success)."
        )

    def _episode(self, value: Any, task: Any, trial_seed: int | None) -> Episode:
        if not isinstance(value, Episode):
            return Episode(task_id=task.task_id, output=value, run=self._run(None, trial_seed))
        run = self._run(value.run, trial_seed)
        if value.task_id == task.task_id and run is value.run:
            return value
        meta = dict(value.meta)
        if value.task_id and value.task_id != task.task_id:
            meta["agent_task_id"] = value.task_id
        return Episode(
            task_id=task.task_id,
            trajectory=value.trajectory,
            output=value.output,
            final_state=value.final_state,
            cost=value.cost,
            success=value.success,
            run=run,
            provenance=value.provenance,
            meta=meta,
        )

    def _run(self, own: RunProvenance | None, trial_seed: int | None) -> RunProvenance | None:
        """The provenance recorded on a trial: the suite's ``run`` (or the agent's own) with its seed."""
        if own is None or self.run is not None and not own.model:
            if trial_seed is None and self.run is None:
                return None
            cached = self._runs.get(trial_seed)
            if cached is None:
                base = self.run if self.run is not None else RunProvenance()
                cached = self._runs[trial_seed] = dataclasses.replace(base, seed=trial_seed)
            return cached
        if self.run is not None:  # the agent named its model; the suite's settings win otherwise
            model = self.run.model or own.model
            return dataclasses.replace(self.run, seed=trial_seed, model=model)
        return own if own.seed is not None or trial_seed is None else dataclasses.replace(own, seed=trial_seed)

    def _metric_summary(self, records: list[Any], specs: list[Any]) -> dict[Any, Any]:
        out = {}
        goldless = [t.task_id for t in specs if t.gold is None]
        if self.metrics and goldless:
            shown = ", ".join(map(repr, goldless[:5])) + (", ..." if len(goldless) > 5 else "")
            warnings.warn(
                f"run_suite(): {len(goldless)} task(s) have no gold ({shown}), so the metrics "
                f"{', '.join(map(repr, self.metrics))} cannot score them; they are left out of "
                "report.detail['metrics'] (listed under 'skipped'). Give those tasks a gold answer.",
                stacklevel=4,
            )
        for name, m in self.metrics.items():
            scored: list[TrialScore] = []
            failed = 0
            for i, r in enumerate(records):
                entry = r["metrics"][name]
                if isinstance(entry, Score):
                    scored.append((r["task_id"], r["trial"], entry, specs[i // self.k].slice))
                else:
                    failed += isinstance(entry, str)
            report = metric_report(m, name, scored)
            out[name] = {
                "aggregate": report.aggregate,
                "n": len(scored),
                "errors": failed,
                "skipped": goldless,
                "per_slice": dict(report.per_slice),
                "report": report,
            }
        return out


# --------------------------------------------------------------------------


def _metric_score(metric: Any, name: str, episode: Episode, gold: Any, grammar: Any) -> Any:
    """The trial's `Score`, or the text of the error that kept the metric from scoring it."""
    try:
        score = metric(episode, gold, grammar=grammar)
        value = score.value if isinstance(score, Score) else score
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
            raise TypeError(f"metric {name!r} returned {value!r:.40} ({type_name(value)}), not a number")
    except Exception as exc:
        return describe(exc)
    return score if isinstance(score, Score) else Score(float(value), metric=name)


def _episode_json(ep: Episode) -> dict[Any, Any]:
    """What a stored trial shows of its episode (values JSON cannot hold are kept as their repr)."""
    return {
        "task_id": ep.task_id,
        "output": ep.output,
        "final_state": ep.final_state,
        "trajectory": [
            {"tool": s.tool, "args": s.args, "observation": s.observation, "error": s.error} for s in ep.trajectory
        ],
        "success": ep.success,
        "run": dataclasses.asdict(ep.run) if ep.run is not None else None,
        "meta": ep.meta,
    }


def suite_specs(tasks: Any) -> list[Any]:
    """The suite's `TaskSpec` s, in order, checked: some, each a TaskSpec with its own id and a hashable slice."""
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
        try:
            hash(t.slice)
        except TypeError:
            raise TypeError(
                f"run_suite() task {t.task_id!r} has slice {t.slice!r:.40} ({type_name(t.slice)}), which "
                "cannot label a slice (it is not hashable); use a str such as 'easy'."
            ) from None
        seen.add(t.task_id)
    return items


def _check_settings(k: Any, seed: Any, run: Any, metrics: Any) -> None:
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1:
        raise ValueError(f"run_suite() k={k!r}: k is the number of trials per task and must be a whole number >= 1.")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, numbers.Integral)):
        raise TypeError(f"run_suite() seed must be an int or None, got {seed!r}.")
    if run is not None and not isinstance(run, RunProvenance):
        raise TypeError(f"run_suite() run must be a RunProvenance, got {type_name(run)}.")
    if metrics is not None and not isinstance(metrics, Mapping):
        raise TypeError(f"run_suite() metrics must be a {{name: Metric}} mapping, got {type_name(metrics)}.")


def _is_async(agent: Any) -> bool:
    """Whether the agent runs on an event loop (TypeError: it is not callable)."""
    if not callable(agent):
        raise TypeError(f"run_suite() agent must be callable (TaskSpec -> Episode), got {type_name(agent)}.")
    return inspect.iscoroutinefunction(agent) or inspect.iscoroutinefunction(type(agent).__call__)


# --------------------------------------------------------------------------
# what a suite run stores: its items, settings, summary; the summary a baseline keeps


def suite_items(specs: list[Any], k: int, persist: bool) -> list[Any]:
    """``((task_id, trial), (task, trial), fingerprint of the task)`` per trial, task by task."""
    fps = [fingerprint((t.input, t.gold, t.slice, t.value, t.tools)) if persist else None for t in specs]
    return [((t.task_id, trial), (t, trial), fp) for t, fp in zip(specs, fps) for trial in range(k)]


def suite_settings(
    specs: list[Any],
    k: int,
    seed: Any,
    check: Any,
    metrics: dict[Any, Any],
    price: Any,
    prices: Any,
    run: RunProvenance | None,
) -> dict[Any, Any]:
    """The settings a stored run is checked against on resume."""
    check_id = (
        "output" if check is None else check if isinstance(check, str) else callable_id(check, "check", "run_suite")
    )
    return {
        "k": k,
        "seed": seed,
        "task_ids": [t.task_id for t in specs],
        "check": check_id,
        "metrics": {name: setting_id(m, f"metric {name!r}", "run_suite") for name, m in metrics.items()},
        "price": price_digest(price, prices),
        "run": dataclasses.asdict(run) if run is not None else None,
    }


def price_digest(price: Any, prices: Any) -> str | None:
    """A short hash of the rates a run is billed at (None when unpriced), so a resume can't mix rates."""
    if price is None and prices is None:
        return None

    def plain(p: Any) -> Any:
        return dataclasses.asdict(p) if dataclasses.is_dataclass(p) and not isinstance(p, type) else p

    table = None if prices is None else {str(k): plain(v) for k, v in prices.items()}
    blob = json.dumps({"price": plain(price), "prices": table}, sort_keys=True, default=repr)
    return hashlib.blake2b(blob.encode("utf-8"), digest_size=8).hexdigest()


def run_summary(report: ReliabilityReport) -> dict[Any, Any]:
    """The headline stored with a finished run; a figure that is not finite is stored as null."""
    cost = report.cost or {}

    def finite(value: Any) -> Any:
        return value if isinstance(value, (int, float)) and math.isfinite(value) else None

    return {
        "n_tasks": report.n_tasks,
        "n_trials": report.n_trials,
        "n_success": report.n_success,
        "success_rate": report.success_rate,
        "pass_hat_k": report.pass_hat_k,
        "n_errors": len(cast("Sized", report.detail.get("errors", ()))),
        "total_dollars": finite(cost.get("total_dollars")),
        "cost_per_success": finite(cost.get("cost_per_success")),
    }


def summary(report: ReliabilityReport) -> dict[Any, Any]:
    """The JSON form of a report that baselines store and the gate compares."""
    cost = report.cost or {}
    ci = cost.get("cost_per_success_ci")
    return {
        "format": FORMAT,
        "kind": "agents",
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
        "cost_per_success_ci": list(cast("Iterable[float]", ci)) if ci is not None else None,
        "per_slice": str_keys(
            {
                k: {kk: (list(v) if isinstance(v, tuple) else v) for kk, v in row.items()}
                for k, row in report.per_slice.items()
            },
            "slice",
            "save_agent_baseline()",
        ),
        "run": dict(cast("Mapping[str, object]", report.detail.get("run") or {})),
    }


def check_summary(base: Mapping[Any, Any]) -> None:
    """Raise saying what is wrong with a report summary (stored baseline, or the current run)."""
    needed = (
        "k", "n_tasks", "n_trials", "n_success", "success_rate", "pass_hat_k", "pass_hat_k_ci", "cost_per_success", "run"
    )  # fmt: skip
    missing = [key for key in needed if key not in base]
    if missing:
        raise ValueError(f"lacks {', '.join(missing)}")
    for name in ("success_ci", "pass_hat_k_ci", "cost_per_success_ci"):
        pair = base.get(name)
        if pair is not None and (isinstance(pair, (str, bytes)) or not isinstance(pair, Sequence) or len(pair) != 2):
            raise ValueError(f"has {name}={pair!r:.60}, not an interval [low, high] (or null)")
    n, s = base["n_trials"], base["n_success"]
    if not all(type(v) is int for v in (n, s, base["k"], base["n_tasks"])) or not 0 <= s <= n:
        raise ValueError(f"has n_success={s!r} of n_trials={n!r} (k={base['k']!r}, n_tasks={base['n_tasks']!r})")
    rates = [("success_rate", base["success_rate"]), ("pass_hat_k", base["pass_hat_k"])]
    rates += [
        (f"{name}[{i}]", v) for name in ("success_ci", "pass_hat_k_ci") for i, v in enumerate(base.get(name) or ())
    ]
    for name, value in rates:
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1
        ):
            raise ValueError(f"has {name}={value!r}, not a proportion in [0, 1] (a NaN cannot be compared)")
    dollars = [("total_dollars", base.get("total_dollars")), ("cost_per_success", base.get("cost_per_success"))]
    dollars += [(f"cost_per_success_ci[{i}]", v) for i, v in enumerate(base.get("cost_per_success_ci") or ())]
    for name, value in dollars:
        if value is not None and (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not value >= 0
            or (name == "total_dollars" and value == math.inf)
        ):
            raise ValueError(f"has {name}={value!r}; dollars are a number >= 0 (a NaN or negative cost is refused)")
