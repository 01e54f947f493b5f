"""Simulated streams for `ek.qe.monitor`: false alarms of a stable stream, detection delay of a shift, coverage.

    python scripts/monitor_simulation.py            # 400 replications x 365 windows, 50 audits a window

The model (the tests in tests/qe/test_monitor_simulation.py load this file
and run it smaller): a raw signal ``s ~ Beta(5, 2)``; an item is correct
with probability ``sigmoid(8 s - 4)``, which is exactly the calibrator
``PlattCalibrator(a=8, b=-4)``; the gate ``CostSensitiveGate(rho=9)``
accepts ``p >= 0.9``. The promise watched is the error rate among accepted
items at its true stable value ``e0`` (the hardest null: the promise holds
with equality). The shift inflates the raw signal by ``delta`` while
correctness still follows the old one, with ``delta`` solved so that the
accepted items' error rate doubles. Audits are uniform over all items, 50
a window. The alarms are computed as the monitor computes them
(`ek.qe.monitor._cs`, checked at the end of every window), vectorised over
replications; a test checks that `Monitor` itself raises the same alarms
on the same stream.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from ek.qe.monitor import _cs as cs
from ek.qe.monitor._alarms import SPLIT

A, B, TAU = 8.0, -4.0, 0.9
BETA = (5.0, 2.0)
ALPHA = 0.05


def truth(s: np.ndarray) -> np.ndarray:
    """P(correct | raw signal)."""
    return 1.0 / (1.0 + np.exp(-(A * s + B)))


def accepted_error(delta: float) -> float:
    """The error rate among accepted items when the raw signal is inflated by ``delta`` (numerical integral)."""
    from scipy import stats

    grid = np.linspace(1e-6, 1 - 1e-6, 200_001)
    density = stats.beta.pdf(grid, *BETA)
    accepted = truth(grid + delta) >= TAU
    return float((density * accepted * (1 - truth(grid))).sum() / (density * accepted).sum())


def doubling_delta() -> float:
    """The inflation of the raw signal that doubles the accepted error rate."""
    target, low, high = 2 * accepted_error(0.0), 0.0, 0.5
    for _ in range(50):
        mid = (low + high) / 2
        low, high = (mid, high) if accepted_error(mid) < target else (low, mid)
    return (low + high) / 2


def draw(rng: np.random.Generator, shape: tuple[int, int], delta: np.ndarray | float) -> tuple[np.ndarray, ...]:
    """Audited items: calibrated probability, accepted, correct (``delta`` may vary along the last axis)."""
    s = rng.beta(*BETA, size=shape)
    p = truth(s + delta)
    correct = rng.random(shape) < truth(s)
    return p, p >= TAU, correct


def alarms(p: np.ndarray, accepted: np.ndarray, correct: np.ndarray, level: float, per_window: int) -> np.ndarray:
    """``(replications, windows)``: whether an alarm stands after each window (either kind)."""
    ends = np.arange(per_window - 1, p.shape[-1], per_window)
    a_risk = ALPHA * SPLIT["risk"]
    x = (~correct).astype(np.float64)
    lam = cs.stakes(x, a_risk, mask=accepted)
    risk = cs.log_wealth(x, lam, level, side=+1)[..., ends] >= math.log(1 / a_risk)
    z = (p - correct + 1.0) / 2.0
    a_cal = ALPHA * SPLIT["calibration"] / 2
    lam = cs.stakes(z, a_cal)
    up = cs.log_wealth(z, lam, 0.5, side=+1)[..., ends] >= math.log(1 / a_cal)
    down = cs.log_wealth(z, lam, 0.5, side=-1)[..., ends] >= math.log(1 / a_cal)
    return np.logical_or.accumulate(risk | up | down, axis=-1)


def false_alarm_rate(replications: int, windows: int, per_window: int = 50, seed: int = 0) -> tuple[float, float]:
    """Share of stable streams raising an alarm within ``windows`` windows, and its Monte Carlo standard error."""
    rng, level, hits = np.random.default_rng(seed), accepted_error(0.0), 0
    for start in range(0, replications, 50):
        n = min(50, replications - start)
        p, acc, ok = draw(rng, (n, windows * per_window), 0.0)
        hits += int(alarms(p, acc, ok, level, per_window)[:, -1].sum())
    rate = hits / replications
    return rate, math.sqrt(max(rate * (1 - rate), 1e-12) / replications)


def detection_delays(
    replications: int, *, before: int = 30, after: int = 200, per_window: int = 50, seed: int = 1
) -> np.ndarray:
    """Windows from the shift to the first alarm (``after + 1`` when none came), per replication."""
    rng, level, delta = np.random.default_rng(seed), accepted_error(0.0), doubling_delta()
    shift = np.repeat(np.r_[np.zeros(before), np.full(after, delta)], per_window)
    p, acc, ok = draw(rng, (replications, (before + after) * per_window), shift)
    standing = alarms(p, acc, ok, level, per_window)[:, before:]
    return np.where(standing.any(axis=1), standing.argmax(axis=1) + 1, after + 1)


def main() -> None:
    e0, delta = accepted_error(0.0), doubling_delta()
    print(f"stable accepted error rate e0 = {e0:.5f}; delta doubling it = {delta:.5f} -> {accepted_error(delta):.5f}")
    rate, se = false_alarm_rate(400, 365)
    print(f"false alarms, 400 stable streams x 365 windows x 50 audits: {rate:.4f} (MC s.e. {se:.4f}), alpha {ALPHA}")
    delays = detection_delays(400)
    print(
        f"detection delay after a doubling shift (400 streams, 50 audits a window): median {np.median(delays):.0f} "
        f"windows, 90th percentile {np.percentile(delays, 90):.0f}, undetected in 200: {(delays > 200).mean():.3f}"
    )


if __name__ == "__main__":
    main()
