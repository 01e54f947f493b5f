"""Fit + predict of Platt and isotonic calibration on 200,000 points, ek vs scikit-learn.

Target (issue 4): ek within 2x of scikit-learn. The references are
scikit-learn's own implementations of the same models: ``IsotonicRegression``
and the sigmoid calibrator behind ``CalibratedClassifierCV(method="sigmoid")``
(Platt's smoothed targets). Each timing is the best of a few repeats in one
process. Run:

    python benchmarks/bench_calibrate.py
"""

from __future__ import annotations

import time

import numpy as np

from ek.qe import IsotonicCalibrator, PlattCalibrator

N = 200_000
REPEATS = 5


def _best(fn) -> float:
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    from sklearn.calibration import _SigmoidCalibration
    from sklearn.isotonic import IsotonicRegression

    rng = np.random.default_rng(0)
    scores = rng.random(N)
    correct = rng.random(N) < scores**2
    rounded = np.round(scores, 3)  # many ties

    cases = [
        (
            "platt",
            lambda: PlattCalibrator().fit(scores, correct)(scores),
            lambda: _SigmoidCalibration().fit(scores, correct).predict(scores),
        ),
        (
            "isotonic",
            lambda: IsotonicCalibrator().fit(scores, correct)(scores),
            lambda: IsotonicRegression(out_of_bounds="clip").fit(scores, correct).predict(scores),
        ),
        (
            "isotonic (ties)",
            lambda: IsotonicCalibrator().fit(rounded, correct)(rounded),
            lambda: IsotonicRegression(out_of_bounds="clip").fit(rounded, correct).predict(rounded),
        ),
    ]
    print(f"fit + predict on {N:,} points (best of {REPEATS})")
    for name, ours, theirs in cases:
        t_ek, t_sk = _best(ours), _best(theirs)
        ratio = t_ek / t_sk
        verdict = "OK" if ratio <= 2.0 else "TOO SLOW"
        print(
            f"{name:<16} ek={t_ek * 1000:7.1f} ms  sklearn={t_sk * 1000:7.1f} ms  "
            f"ratio={ratio:.2f}x (target <= 2x: {verdict})"
        )
    cal = PlattCalibrator().fit(scores, correct)
    batch = cal(scores[:2000])
    assert all(batch[i] == cal(float(scores[i])) for i in range(2000))
    print("batch call equals per-score calls on 2,000 points: OK")


if __name__ == "__main__":
    main()
