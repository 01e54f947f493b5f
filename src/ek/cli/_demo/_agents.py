"""The agent part of ``ek demo``: a simulated, seeded agent suite and its report as text.

The agent is simulated so the demo runs offline and prints the same numbers
every time: each task has a fixed chance of success (high for lookups, low
for refunds), each trial draws its outcome and its token usage from a
generator seeded by ``(task, trial seed)``, and a run is priced at $3 / $15
per million input / output tokens. It shows the three things a single
accuracy figure hides: pass@k (what the agent can do at least once) against
pass^k (what it does every time), the interval around the success rate, and
the cost of a *successful* task.

>>> report = demo_report()
>>> report.n_tasks, report.k, report.pass_hat_k < report.success_rate < report.pass_at_k
(24, 8, True)
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, cast

from ek._util import format_table
from ek.agents import ReliabilityReport
from ek.agents.base import Cost, Episode, RunProvenance, TaskSpec
from ek.agents.cost import per_million
from ek.agents.harness import run_suite

# slice -> (number of tasks, lowest and highest per-trial success chance)
_SLICES = {"lookup": (8, 0.90, 0.99), "multi-step": (8, 0.60, 0.90), "refund": (8, 0.30, 0.70)}
_PRICE = per_million(3.0, 15.0)


def demo_tasks() -> list[TaskSpec]:
    """The 24 simulated tasks, each with its success chance in ``input``."""
    tasks: list[TaskSpec] = []
    for label, (n, lo, hi) in _SLICES.items():
        for i in range(n):
            p = lo + (hi - lo) * i / (n - 1)
            tasks.append(
                TaskSpec(
                    f"{label}-{i + 1:02d}",
                    input={"p": round(p, 3), "slice": label},
                    gold=f"answer-{label}-{i + 1}",
                    slice=label,
                )
            )
    return tasks


def demo_agent(task: TaskSpec, *, seed: int = 0) -> Episode:
    """A flaky agent: succeeds with the task's chance; spends tokens whether or not it succeeds."""
    rng = random.Random(f"{task.task_id}:{seed}")
    ok = rng.random() < task.input["p"]
    hard = task.input["slice"] == "refund"
    cost = Cost(
        input_tokens=rng.randint(1500, 3000),
        cached_input_tokens=rng.randint(0, 1000),
        output_tokens=rng.randint(150, 400),
        reasoning_tokens=rng.randint(300, 900) if hard else 0,
        latency_s=round(rng.uniform(1.0, 6.0), 3),
    )
    return Episode(output=task.gold if ok else "a confident wrong answer", cost=cost)


def demo_report(*, k: int = 8, seed: int = 0) -> ReliabilityReport:
    """Run the simulated suite: 24 tasks, ``k`` trials each, seeded, priced."""
    run = RunProvenance(model="simulated-agent-1", simulator="none", suite_version="demo-1", scaffold="ek-demo")
    return run_suite(demo_agent, demo_tasks(), k=k, seed=seed, price=_PRICE, run=run)


def format_demo(report: ReliabilityReport) -> str:
    """The report as a short plain-text summary with one row per slice."""
    k = report.k
    rows = []
    for label, s in report.per_slice.items():
        rows.append(
            [
                label,
                s["n_tasks"],
                _pct(s["success_rate"]),
                _pct(s["pass_at_k"]),
                _pct(s["pass_hat_k"]),
                _usd(s.get("cost_per_success")),
            ]
        )
    cost = report.cost
    rows.append(
        [
            "all",
            report.n_tasks,
            _pct(report.success_rate),
            _pct(report.pass_at_k),
            _pct(report.pass_hat_k),
            _usd(cost.get("cost_per_success")),
        ]
    )
    lo, hi = report.success_ci
    plo, phi = report.pass_hat_k_ci
    ci = cast("Sequence[float] | None", cost.get("cost_per_success_ci"))
    spread = f"95% interval {_usd(ci[0])} to {_usd(ci[1])}; " if ci else ""
    facts = [
        ("success rate", _pct(report.success_rate), f"95% Wilson interval {_pct(lo)} to {_pct(hi)}"),
        (f"pass@{k}", _pct(report.pass_at_k), f"can it do a task at least once in {k} tries?"),
        (
            f"pass^{k}",
            _pct(report.pass_hat_k),
            f"does it do it all {k} times? (95% interval {_pct(plo)} to {_pct(phi)})",
        ),
        (
            "cost per success",
            _usd(cost.get("cost_per_success")),
            f"{spread}{_usd(cost.get('total_dollars'))} spent on {report.n_trials} trials",
        ),
    ]
    lines = [
        f"3. A simulated agent on {report.n_tasks} tasks, {k} trials each (seeded flakiness, $3/$15 per M tokens)",
        "",
        format_table(["slice", "tasks", "success", f"pass@{k}", f"pass^{k}", "$/success"], rows),
        "",
    ] + [f"{name:<17}{value:>8}  {note}" for name, value, note in facts]
    return "\n".join(lines)


def _pct(v: Any) -> str:
    return "n/a" if v is None else f"{v:.1%}"


def _usd(v: Any) -> str:
    if v is None:
        return "n/a"
    if v == float("inf"):
        return "inf"
    return f"${v:.4f}"
