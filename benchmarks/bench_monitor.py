"""Speed of ek.qe.monitor: a 100,000-item window with 500 audits, an update at day 365 against day 10, a year drawn.

    python benchmarks/bench_monitor.py [--items 100000] [--audits 500] [--days 365]

1. Update: one window of ``--items`` items and ``--audits`` audit labels
   appended to a stored monitor (run engine, fsynced files), after a first
   window of the same size; best of 5 (a fresh window each time). Goal:
   under 1 s. Printed beside it: the load of the stored state.
2. Incremental: two stored monitors of daily windows (2,000 items, 50
   audits), one ``--days`` old and one 10 days old, then ten updates each,
   taken in turn, every one bringing the same signals and labels (only the
   ids differ): the work is the same, only the history behind it differs.
   Printed: each monitor's median and their ratio. Goal: at most 1.5 (an
   update costs its new items and audits, not the history).
3. History: a monitor of ``--days`` daily windows (2,000 items, 50 audits
   each, a shift half-way so alarms are drawn); ``report()`` and the page
   (`ek.cli._html._monitor.render_monitor`) timed separately, and
   ``Monitor.load`` of the stored state. Goal: the page under 3 s.

Timings are noisy on a shared machine: the load average is printed with them.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

import numpy as np

from ek.cli._html._monitor import render_monitor
from ek.qe import CostSensitiveGate, PlattCalibrator
from ek.qe.monitor import Monitor

CAL = PlattCalibrator(a=8.0, b=-4.0)


def _window(rng: np.random.Generator, prefix: str, n: int, audits: int, shift: float = 0.0) -> tuple[list, dict]:
    s = rng.beta(5, 2, n)
    y = rng.random(n) < CAL(s)
    items = [{"id": f"{prefix}-{k}", "signals": {"conf": float(v + shift)}} for k, v in enumerate(s)]
    labels = {f"{prefix}-{k}": bool(y[k]) for k in rng.choice(n, audits, replace=False)}
    return items, labels


def update(n: int, audits: int) -> float:
    rng = np.random.default_rng(0)
    root = tempfile.mkdtemp()
    monitor = Monitor(
        CAL, CostSensitiveGate(rho=9.0), calibration_signals={"conf": rng.beta(5, 2, 5000)}, name="bench", rootdir=root
    )
    items, labels = _window(rng, "d0", n, audits)
    monitor.update(items, audit=labels, time=0)
    times = []
    for day in range(1, 6):
        items, labels = _window(rng, f"d{day}", n, audits)
        start = time.perf_counter()
        monitor.update(items, audit=labels, time=day)
        times.append(time.perf_counter() - start)
    start = time.perf_counter()
    Monitor.load("bench", rootdir=root)
    loaded = time.perf_counter() - start
    print(
        f"update, {n:,} items + {audits} audits, stored: best {min(times):.3f} s, median {np.median(times):.3f} s "
        f"(goal < 1 s); load of 6 windows: {loaded:.3f} s; load average {os.getloadavg()[0]:.2f}"
    )
    return min(times)


def incremental(days: int) -> float:
    """The median update time of a monitor ``days`` old over that of one 10 days old (the same work each)."""
    rng = np.random.default_rng(2)
    monitors = []
    for age, name in ((days, "old"), (10, "young")):
        monitor = Monitor(
            CAL,
            CostSensitiveGate(rho=9.0),
            calibration_signals={"conf": rng.beta(5, 2, 5000)},
            name=name,
            rootdir=tempfile.mkdtemp(),
        )
        for day in range(age):
            items, labels = _window(rng, f"d{day}", 2000, 50)
            monitor.update(items, audit=labels, time=day)
        monitors.append((monitor, age))
    times: dict[int, list[float]] = {days: [], 10: []}
    for k in range(11):  # turn about, so that the machine's noise falls on both alike; the first round warms up
        for monitor, age in monitors:
            items, labels = _window(np.random.default_rng(99), f"t{k}", 2000, 50)  # the same signals and labels
            start = time.perf_counter()
            monitor.update(items, audit=labels, time=age + k)
            if k:
                times[age].append(time.perf_counter() - start)
    young, old = float(np.median(times[10])), float(np.median(times[days]))
    print(
        f"incremental update, 2,000 items + 50 audits, stored: at day 10 {1000 * young:.1f} ms, at day {days} "
        f"{1000 * old:.1f} ms, ratio {old / young:.2f} (goal <= 1.5); load average {os.getloadavg()[0]:.2f}"
    )
    return old / young


def history(days: int) -> float:
    rng = np.random.default_rng(1)
    root = tempfile.mkdtemp()
    monitor = Monitor(
        CAL, CostSensitiveGate(rho=9.0), calibration_signals={"conf": rng.beta(5, 2, 5000)}, name="year", rootdir=root
    )
    start = time.perf_counter()
    for day in range(days):
        items, labels = _window(rng, f"d{day}", 2000, 50, shift=0.16 if day >= days // 2 else 0.0)
        monitor.update(items, audit=labels, time=float(day))
    built = time.perf_counter() - start
    start = time.perf_counter()
    loaded = Monitor.load("year", rootdir=root)
    load = time.perf_counter() - start
    start = time.perf_counter()
    data = loaded.report().to_dict()
    report = time.perf_counter() - start
    start = time.perf_counter()
    html = render_monitor({**data, "name": "year"})
    page = time.perf_counter() - start
    print(
        f"history of {days} daily windows ({built:.1f} s to build): load {load:.3f} s, report {report:.3f} s, "
        f"page {page:.3f} s ({len(html) / 1e6:.2f} MB, goal < 3 s), alarms {len(data['alarms'])}; "
        f"load average {os.getloadavg()[0]:.2f}"
    )
    return page


def figures(quick: bool = False) -> list[dict[str, object]]:
    """The three goals as rows for ``run_all.py`` (``quick``: 20,000 items and 60 days)."""
    items, days = (20_000, 60) if quick else (100_000, 365)
    best = update(items, 500)
    ratio = incremental(days)
    page = history(days)
    return [
        {"work": f"monitor update, {items // 1000}k items", "ek": best, "goal": "<= 1 s", "pass": best < 1},
        {
            "work": f"monitor update at day {days} vs day 10",
            "ratio": ratio,
            "baseline_name": "the update at day 10",
            "goal": "<= 1.5x",
            "pass": ratio <= 1.5,
        },
        {"work": f"monitor page, {days} days", "ek": page, "goal": "<= 3 s", "pass": page < 3},
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--audits", type=int, default=500)
    parser.add_argument("--days", type=int, default=365)
    args = parser.parse_args()
    update(args.items, args.audits)
    incremental(args.days)
    history(args.days)


if __name__ == "__main__":
    main()
