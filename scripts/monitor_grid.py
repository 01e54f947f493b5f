"""The monitor's grid: false alarms of stable streams, and how fast each alarm catches a shift, then and now.

    python scripts/monitor_grid.py                       # 400 streams x 365 windows, 50 audits a window
    python scripts/monitor_grid.py --streams 100         # quicker

The model (the tests in tests/qe/test_monitor_simulation.py load this file
and run it smaller): a raw signal ``s ~ Beta(5, 2)``; an item is correct
with probability ``sigmoid(8 s - 4)``, which is exactly the calibrator
``PlattCalibrator(a=8, b=-4)``; the gate ``CostSensitiveGate(rho=9)``
accepts ``p >= 0.9``. The promise watched is the error rate among accepted
items at its true stable value ``e0`` (the hardest null: the promise holds
with equality). The shift inflates the raw signal by ``delta`` while
correctness still follows the old one, with ``delta`` solved so that the
accepted items' error rate doubles (0.056 -> 0.112); it also makes the
probabilities overconfident, which the calibration alarm sees. The gradual
drift raises ``delta`` linearly from 0 to that value over `RAMP` windows.
Audits are uniform over all items, 50 a window, one update a window.

Each alarm is computed as the monitor computes it, vectorised over
streams: the e-detectors of `ek.qe.monitor._detect` (what `Monitor` does
now), and beside them the confidence-sequence alarms of
`ek.qe.monitor._cs` that it did before (``before``). A delay counts the
windows from the first shifted one to the one whose update raises the
alarm (1: caught at once); a stream not caught within ``after`` windows
counts as ``after + 1``. A test checks that `Monitor` itself raises the
alarms this file computes, on the same stream.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from ek.qe.monitor import _cs as cs
from ek.qe.monitor import _detect as detect
from ek.qe.monitor._alarms import SPLIT

A, B, TAU = 8.0, -4.0, 0.9
BETA = (5.0, 2.0)
ALPHA = 0.05
RAMP = 100
BATCH = 100  # streams drawn at once (memory)


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


def detector_alarms(p: np.ndarray, accepted: np.ndarray, correct: np.ndarray, level: float, per_window: int) -> dict:
    """``{"risk", "calibration"}``: ``(streams, windows)``, whether each e-detector's alarm stands after each window."""
    streams, windows = p.shape[0], p.shape[-1] // per_window
    x, z = (~correct).astype(np.float64), (p - correct + 1.0) / 2.0
    risk = np.full((streams, len(detect.risk_stakes(level))), -np.inf)
    cal = np.full((streams, len(detect.CALIBRATION_STAKES)), -np.inf)
    out = {k: np.zeros((streams, windows), dtype=bool) for k in ("risk", "calibration")}
    for w in range(windows):
        cut, t = slice(w * per_window, (w + 1) * per_window), w + 1
        risk = detect.step(risk, t, x[:, cut], detect.risk_stakes(level), level, mask=accepted[:, cut])
        cal = detect.step(cal, t, z[:, cut], detect.CALIBRATION_STAKES, 0.5)
        out["risk"][:, w] = detect.log_evidence(risk, t) >= math.log(1 / (ALPHA * SPLIT["risk"]))
        out["calibration"][:, w] = detect.log_evidence(cal, t) >= math.log(1 / (ALPHA * SPLIT["calibration"]))
    return {k: np.logical_or.accumulate(v, axis=-1) for k, v in out.items()}


def sequence_alarms(p: np.ndarray, accepted: np.ndarray, correct: np.ndarray, level: float, per_window: int) -> dict:
    """The alarms the monitor raised before the detectors: its confidence sequences leaving the promise (or 0)."""
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
    return {k: np.logical_or.accumulate(v, axis=-1) for k, v in (("risk", risk), ("calibration", up | down))}


def _all_alarms(p: np.ndarray, accepted: np.ndarray, correct: np.ndarray, level: float, per: int) -> dict:
    now, before = detector_alarms(p, accepted, correct, level, per), sequence_alarms(p, accepted, correct, level, per)
    out = {**now, **{f"{k} before": v for k, v in before.items()}}
    out["either"] = now["risk"] | now["calibration"]
    return out


def false_alarms(streams: int, windows: int, per_window: int = 50, seed: int = 0) -> dict[str, float]:
    """Share of stable streams raising each alarm within ``windows`` windows (``either``: the monitor's)."""
    rng, level, hits = np.random.default_rng(seed), accepted_error(0.0), {}
    for start in range(0, streams, BATCH):
        p, acc, ok = draw(rng, (min(BATCH, streams - start), windows * per_window), 0.0)
        for kind, standing in _all_alarms(p, acc, ok, level, per_window).items():
            hits[kind] = hits.get(kind, 0) + int(standing[:, -1].sum())
    return {kind: n / streams for kind, n in hits.items()}


def delays(
    streams: int, *, before: int, after: int = 200, per_window: int = 50, seed: int = 1, ramp: int = 0
) -> dict[str, np.ndarray]:
    """Windows from the shift (or the drift's start) to each alarm, per stream; ``after + 1`` when none came."""
    rng, level, delta = np.random.default_rng(seed), accepted_error(0.0), doubling_delta()
    path = np.minimum(1.0, np.arange(1, after + 1) / ramp) if ramp else np.ones(after)
    shift = np.repeat(np.r_[np.zeros(before), delta * path], per_window)
    out: dict[str, list[np.ndarray]] = {}
    for start in range(0, streams, BATCH):
        p, acc, ok = draw(rng, (min(BATCH, streams - start), (before + after) * per_window), shift)
        for kind, standing in _all_alarms(p, acc, ok, level, per_window).items():
            late = standing[:, before:]
            caught = np.where(late.any(axis=1), late.argmax(axis=1) + 1, after + 1)
            out.setdefault(kind, []).append(np.where(standing[:, before - 1], 0, caught))  # 0: a false alarm first
    return {kind: np.concatenate(v) for kind, v in out.items()}


def _median(values: np.ndarray) -> str:
    return f"{np.median(values[values > 0]):.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=400)
    parser.add_argument("--windows", type=int, default=365)
    args = parser.parse_args()
    e0, delta = accepted_error(0.0), doubling_delta()
    print(f"stable accepted error rate e0 = {e0:.5f}; delta doubling it = {delta:.5f} -> {accepted_error(delta):.5f}")
    rates = false_alarms(args.streams, args.windows)
    print(f"false alarms, {args.streams} stable streams x {args.windows} windows x 50 audits (alpha {ALPHA}):")
    for kind in ("risk", "calibration", "either", "risk before", "calibration before"):
        se = math.sqrt(max(rates[kind] * (1 - rates[kind]), 1e-12) / args.streams)
        print(f"  {kind:20} {rates[kind]:.4f} (MC s.e. {se:.4f})")
    kinds = ("risk", "calibration", "either", "risk before", "calibration before")
    print(f"median delay in windows ({args.streams} streams; streams with a false alarm before the change left out):")
    print(f"  {'change':26}" + "".join(f"{k:>20}" for k in kinds))
    cases = [(f"shift after {b} windows", b, 0) for b in (30, 180, 300)] + [(f"drift over {RAMP} from 30", 30, RAMP)]
    for label, before, ramp in cases:
        found = delays(args.streams, before=before, ramp=ramp)
        cells = "".join(f"{_median(found[k]):>20}" for k in kinds)
        print(f"  {label:26}{cells}   (risk not caught in 200: {(found['risk'] > 200).mean():.3f})")


if __name__ == "__main__":
    main()
