"""ek.agents speed: reliability() and run_suite() at scale, against bare loops.

Goals (issue 7):

* ``reliability`` and ``run_suite`` over 10,000 tasks x 8 trials with a
  trivial agent, each under 5 s;
* an async agent that sleeps 50 ms per trial: 1,000 trials at
  ``max_concurrency=100`` under 2 s (the floor is 1000 * 0.05 / 100 = 0.5 s).

Each figure is printed next to a bare baseline doing the same work with no
harness (a plain loop calling the agent and comparing answers; a bare
``asyncio`` semaphore loop), so the ratio shows what the harness costs.

    python benchmarks/bench_agents.py
"""

from __future__ import annotations

import asyncio
import math
import random
import time
import warnings

from ek.agents import Episode, TaskSpec, as_agent, per_million, reliability, run_suite

N_TASKS, K = 10_000, 8
N_ASYNC, SLEEP_S, CONCURRENCY = 1_000, 0.05, 100
REPEATS = 3


def best_of(fn, repeats: int = REPEATS) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def bare_suite(tasks: list, agent) -> float:
    """The same work as run_suite, minus the harness: call, compare, count, estimate pass^k."""
    hat = 0.0
    for task in tasks:
        c = sum(agent(task).output == task.gold for _ in range(K))
        hat += math.comb(c, K) / math.comb(K, K)
    return hat / len(tasks)


async def bare_async(n: int) -> None:
    sem = asyncio.Semaphore(CONCURRENCY)

    async def one() -> None:
        async with sem:
            await asyncio.sleep(SLEEP_S)

    await asyncio.gather(*(one() for _ in range(n)))


def main() -> None:
    warnings.simplefilter("ignore")  # a deterministic agent warns that pass^k == pass^1
    tasks = [TaskSpec(f"t{i}", input=f"q{i}", gold=f"Q{i}", slice=("a", "b")[i % 2]) for i in range(N_TASKS)]
    trivial = as_agent(str.upper)
    rows = []

    t_suite = best_of(lambda: run_suite(trivial, tasks, k=K))
    t_bare = best_of(lambda: bare_suite(tasks, trivial))
    rows.append(("run_suite, trivial agent", t_suite, t_bare, 5.0))

    def flaky(task, *, seed=None):
        ok = random.Random(f"{task.task_id}:{seed}").random() < 0.7
        return Episode(output=task.gold if ok else "no")

    t_flaky = best_of(lambda: run_suite(flaky, tasks, k=K, seed=0, price=per_million(1.0, 5.0)), 1)
    rows.append(("run_suite, seeded flaky agent, priced", t_flaky, None, None))

    rng = random.Random(0)
    outcomes = {t.task_id: [rng.random() < 0.7 for _ in range(K)] for t in tasks}
    episodes = [Episode(task_id=t, success=s) for t, trials in outcomes.items() for s in trials]
    t_rel = best_of(lambda: reliability(outcomes, k=K))
    t_rel_eps = best_of(lambda: reliability(episodes, k=K))
    t_rel_bare = best_of(lambda: sum(math.comb(sum(v), K) for v in outcomes.values()) / len(outcomes))
    rows.append(("reliability, {task: [bool]}", t_rel, t_rel_bare, 5.0))
    rows.append(("reliability, 80,000 episodes", t_rel_eps, None, 5.0))

    async def sleepy(task):
        await asyncio.sleep(SLEEP_S)
        return task.gold

    few = tasks[: N_ASYNC // K]
    t_async = best_of(lambda: run_suite(sleepy, few, k=K, max_concurrency=CONCURRENCY))
    t_async_bare = best_of(lambda: asyncio.run(bare_async(N_ASYNC)))
    rows.append((f"run_suite, async 50 ms x {N_ASYNC}, concurrency {CONCURRENCY}", t_async, t_async_bare, 2.0))

    print(f"ek.agents benchmark: {N_TASKS:,} tasks x {K} trials; best of {REPEATS}\n")
    print(f"{'case':<52}{'ek (s)':>9}{'bare (s)':>10}{'ratio':>8}{'goal':>8}  result")
    for name, ours, bare, goal in rows:
        ratio = f"{ours / bare:.1f}x" if bare else "-"
        verdict = "" if goal is None else ("PASS" if ours < goal else "FAIL")
        print(
            f"{name:<52}{ours:>9.3f}{(f'{bare:.3f}' if bare else '-'):>10}{ratio:>8}"
            f"{(f'<{goal:g}s' if goal else '-'):>8}  {verdict}"
        )


if __name__ == "__main__":
    main()
