"""One suite run's bookkeeping: calling the agent, grading trials, storing them, and the report.

`Suite` turns each finished trial into a *record*: the few plain values the
report is built from (outcome, error, cost, dollars, metric statistics).
The report is computed from records only, in task-then-trial order, so it
is the same whether trials finished in order, concurrently, or across an
interrupted and resumed run (`RunStore` writes each record as it arrives
and reads them back unchanged).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from collections.abc import Mapping
from typing import Any, Optional

from ek._util import type_name
from ek.agents._common import cost_summary, per_success, resolve_check
from ek.agents._reliability import ReliabilityReport, _build
from ek.agents._stats import _ratio_bootstrap_ci
from ek.agents.base import Cost, Episode, RunProvenance, suite_grammar
from ek.agents.cost import episode_dollars
from ek.base import Score

_KIND = "ek.agents.run_suite/1"
_COST_FIELDS = ("input_tokens", "output_tokens", "cached_input_tokens", "reasoning_tokens",
                "retries", "latency_s")


class Suite:
    """The fixed settings of one `run_suite` call and the per-trial work."""

    def __init__(self, specs: list, *, k: int, check: Any, metrics: dict, price: Any, prices: Any,
                 run: Optional[RunProvenance], seed: Optional[int], takes_seed: bool,
                 is_async: bool, persist: bool) -> None:
        self.specs, self.k = specs, k
        self.check_name = check if isinstance(check, str) else getattr(check, "__qualname__", None) \
            or ("output" if check is None else type(check).__name__)
        self.check = resolve_check(check)
        for name, m in metrics.items():
            if not callable(m):
                raise TypeError(f"run_suite() metric {name!r} is {type_name(m)}, not a callable Metric.")
        self.metrics = metrics
        self.grammar = suite_grammar(specs) if metrics else None
        self.price, self.prices = price, prices
        self.priced = price is not None or prices is not None
        self.run, self.seed = run, seed
        self.takes_seed, self.is_async, self.persist = takes_seed, is_async, persist
        self._runs: dict = {}   # trial seed -> RunProvenance, shared by every task's trial

    def seed_of(self, trial: int) -> Optional[int]:
        return None if self.seed is None else self.seed + trial

    def call(self, agent: Any, i: int) -> Any:
        task, trial_seed = self.specs[i // self.k], self.seed_of(i % self.k)
        if self.takes_seed and trial_seed is not None:
            return agent(task, seed=trial_seed)
        return agent(task)

    def record(self, i: int, outcome: tuple) -> tuple:
        """``(record, stored)`` for trial ``i``: the report's inputs, and what to persist (None if not persisting)."""
        ok, value, wall = outcome
        task, trial = self.specs[i // self.k], i % self.k
        trial_seed = self.seed_of(trial)
        if ok:
            ep = self._episode(value, task, trial_seed)
            error = None
            try:
                verdict = self.check(ep, task.gold)
                if verdict is None:
                    raise TypeError("the checker returned None instead of True/False")
                success = bool(verdict)
            except Exception as exc:  # a broken oracle fails the trial, loudly, in detail["errors"]
                success, error = False, f"check failed: {type(exc).__name__}: {exc}"
        else:
            error = f"{type(value).__name__}: {value}"
            spent = getattr(value, "cost", None)
            ep = Episode(task_id=task.task_id, cost=spent if isinstance(spent, Cost) else None,
                         run=self._run(None, trial_seed), meta={"error": error})
            success = False
        rec = {"task_id": task.task_id, "trial": trial, "seed": trial_seed, "success": success,
               "error": error, "cost": ep.cost,
               "dollars": episode_dollars(ep, price=self.price, prices=self.prices) if self.priced else None}
        if self.metrics:
            graded = ep.graded(success)
            rec["metrics"] = {name: _metric_entry(m, graded, task.gold, self.grammar)
                              for name, m in self.metrics.items()}
        if not self.persist:
            return rec, None
        stored = dict(rec, cost=_cost_json(ep.cost), wall_s=wall,
                      episode=_jsonable(_episode_json(ep.graded(success))))
        return rec, stored

    def report(self, records: list, *, run_id: Optional[str]) -> ReliabilityReport:
        k = self.k
        outcomes, costs, successes, spent, errors = {}, [], [], [], []
        task_dollars, task_wins, value_delivered = [], [], 0.0
        slice_rows: dict = {}
        for t, task in enumerate(self.specs):
            recs = records[t * k:(t + 1) * k]
            outcomes[task.task_id] = [r["success"] for r in recs]
            wins = sum(r["success"] for r in recs)
            value_delivered += task.value * wins
            dollars_t = math.fsum(r["dollars"] for r in recs) if self.priced else 0.0
            task_dollars.append(dollars_t)
            task_wins.append(wins)
            for r in recs:
                costs.append(r["cost"])
                successes.append(r["success"])
                spent.append(r["dollars"])
                if r["error"] is not None:
                    errors.append({"task_id": r["task_id"], "trial": r["trial"], "error": r["error"]})
            if task.slice is not None:
                row = slice_rows.setdefault(task.slice, [0.0, 0])
                row[0] += dollars_t
                row[1] += wins
        cost = cost_summary(costs, successes, spent if self.priced else None)
        cost["value_delivered"] = value_delivered
        cost["cost_per_value"] = per_success(cost["total_dollars"], value_delivered) if self.priced else None
        cost["cost_per_success_ci"] = self._cost_ci(task_dollars, task_wins)
        slices = {t.task_id: t.slice for t in self.specs if t.slice is not None}
        slice_cost = {label: {"total_dollars": d if self.priced else None,
                              "cost_per_success": per_success(d, w) if self.priced else None}
                      for label, (d, w) in slice_rows.items()}
        detail = {"errors": errors, "metrics": self._metric_summary(records),
                  "run": dataclasses.asdict(self.run) if self.run is not None else None,
                  "seed": self.seed}
        if run_id is not None:
            detail["run_id"] = run_id
        return _build(outcomes, k=k, slices=slices or None, cost=cost, detail=detail,
                      slice_extra=slice_cost, stacklevel=4)

    # ----------------------------------------------------------------------

    def _episode(self, value: Any, task: Any, trial_seed: Optional[int]) -> Episode:
        if not isinstance(value, Episode):
            return Episode(task_id=task.task_id, output=value, run=self._run(None, trial_seed))
        run = self._run(value.run, trial_seed)
        if value.task_id == task.task_id and run is value.run:
            return value
        meta = dict(value.meta)
        if value.task_id and value.task_id != task.task_id:
            meta["agent_task_id"] = value.task_id
        return Episode(task_id=task.task_id, trajectory=value.trajectory, output=value.output,
                       final_state=value.final_state, cost=value.cost, success=value.success,
                       run=run, provenance=value.provenance, meta=meta)

    def _run(self, own: Optional[RunProvenance], trial_seed: Optional[int]) -> Optional[RunProvenance]:
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

    def _cost_ci(self, task_dollars: list, task_wins: list) -> Optional[tuple]:
        if not self.priced or len(task_dollars) < 2:
            return None
        return _ratio_bootstrap_ci(task_dollars, task_wins)

    def _metric_summary(self, records: list) -> dict:
        out = {}
        for name, m in self.metrics.items():
            scores, labels, failed = [], [], 0
            for i, r in enumerate(records):
                entry = r["metrics"][name]
                if "error" in entry:
                    failed += 1
                    continue
                scores.append(Score(entry["value"], metric=name, detail=entry["detail"]))
                labels.append(self.specs[i // self.k].slice)
            groups: dict = {}
            for s, label in zip(scores, labels):
                if label is not None:
                    groups.setdefault(label, []).append(s)
            out[name] = {"aggregate": _aggregate(m, scores), "n": len(scores), "errors": failed,
                         "per_slice": {label: _aggregate(m, part) for label, part in groups.items()}}
        return out


class RunStore:
    """The persisted form of one run: a header in ``runs``, one record per trial in ``results``."""

    def __init__(self, run_id: str, *, rootdir: Any) -> None:
        from ek.stores import json_store

        if not isinstance(run_id, str) or not run_id:
            raise TypeError(f"run_suite() run_id must be a non-empty str, got {run_id!r}.")
        if run_id.startswith(".") or any(ch in run_id for ch in "/\\\0") or len(run_id.encode()) > 200:
            raise ValueError(
                f"run_suite() run_id {run_id!r:.60} can't name a stored run: use at most 200 bytes, "
                "no '/', '\\' or NUL, and don't start with '.', e.g. 'nightly-2024-06-01'."
            )
        self.run_id = run_id
        self.runs = json_store("runs", rootdir=rootdir)
        self.results = json_store("results", rootdir=rootdir)
        self.header: dict = {}

    def open(self, suite: Suite) -> None:
        header = {
            "kind": _KIND, "run_id": self.run_id, "k": suite.k, "seed": suite.seed,
            "task_ids": [t.task_id for t in suite.specs], "check": suite.check_name,
            "metrics": sorted(suite.metrics), "priced": suite.priced,
            "price": _price_digest(suite.price, suite.prices),
            "run": dataclasses.asdict(suite.run) if suite.run is not None else None,
        }
        old = self.runs.get(self.run_id)
        if old is not None:
            if old.get("kind") != _KIND:
                raise ValueError(
                    f"run_id {self.run_id!r} is already used in the runs store by something other than "
                    "run_suite; pick another run_id."
                )
            changed = [key for key in header if key != "run_id" and old.get(key) != header[key]]
            if changed:
                key = changed[0]
                raise ValueError(
                    f"run_id {self.run_id!r} was started with {key}={old.get(key)!r}, but this call has "
                    f"{key}={header[key]!r}; a run resumes only with the same tasks and settings. Use "
                    "a new run_id, or the original settings."
                )
        self.header = header
        self.runs[self.run_id] = dict(header, status="running")

    def key(self, i: int) -> str:
        return f"{self.run_id}--{i:07d}"

    def load(self, n: int):
        """``(index, record)`` for every trial already stored."""
        for i in range(n):
            key = self.key(i)
            if key in self.results:
                yield i, _record_from_json(self.results[key])

    def save(self, i: int, stored: dict) -> None:
        self.results[self.key(i)] = stored

    def close(self, report: ReliabilityReport) -> None:
        summary = {"n_trials": report.n_trials, "n_success": report.n_success,
                   "success_rate": report.success_rate, "pass_hat_k": report.pass_hat_k,
                   "n_errors": len(report.detail.get("errors", ()))}
        self.runs[self.run_id] = dict(self.header, status="complete", summary=summary)


# --------------------------------------------------------------------------


def _price_digest(price: Any, prices: Any) -> Optional[str]:
    """A short hash of the rates a run is billed at (None when unpriced), so a resume can't mix rates."""
    if price is None and prices is None:
        return None

    def plain(p: Any) -> Any:
        return dataclasses.asdict(p) if dataclasses.is_dataclass(p) and not isinstance(p, type) else p

    table = None if prices is None else {str(k): plain(v) for k, v in prices.items()}
    blob = json.dumps({"price": plain(price), "prices": table}, sort_keys=True, default=repr)
    return hashlib.blake2b(blob.encode("utf-8"), digest_size=8).hexdigest()


def _metric_entry(metric: Any, episode: Episode, gold: Any, grammar: Any) -> dict:
    try:
        score = metric(episode, gold, grammar=grammar)
    except Exception as exc:
        return {"error": f"{type(exc).__name__}: {exc}"}
    if isinstance(score, Score):
        return {"value": float(score.value), "detail": _jsonable(dict(score.detail))}
    return {"value": float(score), "detail": {}}


def _aggregate(metric: Any, scores: list) -> Optional[float]:
    if not scores:
        return None
    agg = getattr(metric, "aggregate", None)
    if agg is not None:
        return agg(scores)
    return sum(s.value for s in scores) / len(scores)


def _cost_json(cost: Optional[Cost]) -> Optional[dict]:
    return None if cost is None else {name: getattr(cost, name) for name in _COST_FIELDS}


def _record_from_json(stored: Mapping) -> dict:
    rec = {key: stored.get(key) for key in ("task_id", "trial", "seed", "success", "error", "dollars")}
    rec["cost"] = Cost(**stored["cost"]) if stored.get("cost") is not None else None
    if "metrics" in stored:
        rec["metrics"] = stored["metrics"]
    return rec


def _episode_json(ep: Episode) -> dict:
    return {
        "task_id": ep.task_id,
        "output": ep.output,
        "final_state": ep.final_state,
        "trajectory": [{"tool": s.tool, "args": s.args, "observation": s.observation, "error": s.error}
                       for s in ep.trajectory],
        "success": ep.success,
        "run": dataclasses.asdict(ep.run) if ep.run is not None else None,
        "meta": ep.meta,
    }


def _jsonable(x: Any) -> Any:
    """A JSON-safe copy: str keys, lists for sequences, dataclasses as dicts, repr for the rest."""
    if x is None or isinstance(x, (str, bool, int, float)):
        return x
    if isinstance(x, Mapping):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple, set, frozenset)):
        items = sorted(x, key=repr) if isinstance(x, (set, frozenset)) else x
        return [_jsonable(v) for v in items]
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return _jsonable(dataclasses.asdict(x))
    return repr(x)
