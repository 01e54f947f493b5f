"""Fit + predict of Platt and isotonic calibration on 200,000 points, ek vs scikit-learn.

Goals (issue 33): Platt at most 1.0x scikit-learn, isotonic at most 0.6x.
The references are scikit-learn's own fits of the same models:

* Platt: the faster of two routes to the same two parameters, the sigmoid
  calibrator behind ``CalibratedClassifierCV(method="sigmoid")`` and a
  ``LogisticRegression`` without penalty on Platt's smoothed targets (each
  row twice, weighted by its target, as ``ek.qe.sklearn_calibrator`` does);
  both then predict the 200,000 probabilities.
* isotonic: ``IsotonicRegression(out_of_bounds="clip")``, once on distinct
  scores and once on scores rounded to three places (many ties).

Each round times ek and the reference back to back; the ratio is the median
of the per-round ratios (a slow spell on a shared machine lands on both
sides), the times the best of the rounds. The fitted figures are checked
against scikit-learn's before anything is timed. `figures` returns the rows
(``benchmarks/run_all.py`` prints them with the other goals). Run:

    python benchmarks/bench_calibrate.py
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ek.qe import IsotonicCalibrator, PlattCalibrator

N = 200_000
ROUNDS = 7
GOALS = {"platt": 1.0, "isotonic": 0.6, "isotonic (ties)": 0.6}


def _timed(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _paired(ours: Callable[[], Any], theirs: Callable[[], Any]) -> tuple[float, float, float]:
    """``(median ratio, best ek seconds, best reference seconds)`` over interleaved rounds."""
    eks, refs = [], []
    for _ in range(ROUNDS):
        refs.append(_timed(theirs))
        eks.append(_timed(ours))
    return statistics.median(e / r for e, r in zip(eks, refs)), min(eks), min(refs)


def _sklearn_platt(scores: Any, correct: Any) -> tuple[Callable[[], Any], str]:
    """The faster of scikit-learn's two Platt routes here (both give ek's parameters)."""
    from sklearn.calibration import _SigmoidCalibration

    from ek.qe._backends import _sklearn_platt as logistic_fit
    from ek.qe._fit import platt_predict

    def sigmoid_route() -> Any:
        return _SigmoidCalibration().fit(scores, correct).predict(scores)

    def logistic_route() -> Any:
        a, b = logistic_fit(scores, correct, np)
        return platt_predict(scores, a, b, np=np)

    routes = {"_SigmoidCalibration": sigmoid_route, "LogisticRegression": logistic_route}
    name = min(routes, key=lambda k: min(_timed(routes[k]) for _ in range(3)))
    return routes[name], name


def _check_figures(scores: Any, correct: Any) -> None:
    """ek's Platt parameters and probabilities against scikit-learn's sigmoid calibrator."""
    from sklearn.calibration import _SigmoidCalibration

    ours = PlattCalibrator().fit(scores, correct)
    theirs = _SigmoidCalibration().fit(scores, correct)
    # scikit-learn writes sigmoid(-(a*s + b)); its solver stops at a looser tolerance than ek's
    assert np.allclose([ours.a, ours.b], [-theirs.a_, -theirs.b_], rtol=1e-6), (ours, theirs.a_, theirs.b_)
    assert np.allclose(ours(scores), theirs.predict(scores), rtol=1e-6, atol=1e-9)
    batch = ours(scores[:2000])
    assert all(batch[i] == ours(float(scores[i])) for i in range(2000)), "a batch call differs from one-score calls"


def figures() -> list[dict[str, Any]]:
    """One row per goal: work, ek and baseline seconds, ratio, goal, pass."""
    from sklearn.isotonic import IsotonicRegression

    rng = np.random.default_rng(0)
    scores = rng.random(N)
    correct = rng.random(N) < scores**2
    rounded = np.round(scores, 3)  # many ties
    _check_figures(scores, correct)

    def isotonic(x: Any) -> tuple[Callable[[], Any], Callable[[], Any], str]:
        return (
            lambda: IsotonicCalibrator().fit(x, correct)(x),
            lambda: IsotonicRegression(out_of_bounds="clip").fit(x, correct).predict(x),
            "IsotonicRegression",
        )

    cases = {
        "platt": (lambda: PlattCalibrator().fit(scores, correct)(scores), *_sklearn_platt(scores, correct)),
        "isotonic": isotonic(scores),
        "isotonic (ties)": isotonic(rounded),
    }
    rows = []
    for name, (ours, theirs, reference) in cases.items():
        ratio, t_ek, t_ref = _paired(ours, theirs)
        rows.append(
            {
                "work": f"{name} fit + predict, {N // 1000}k points",
                "ek": t_ek,
                "baseline": t_ref,
                "baseline_name": f"scikit-learn {reference}",
                "ratio": ratio,
                "goal": f"<= {GOALS[name]:.1f}x",
                "pass": ratio <= GOALS[name],
            }
        )
    return rows


def main() -> None:
    print(f"fit + predict on {N:,} points ({ROUNDS} interleaved rounds: best times, median ratio)")
    print("figures: Platt's (a, b) and probabilities equal scikit-learn's to 1e-6; batch == per-score calls")
    for row in figures():
        verdict = "OK" if row["pass"] else "TOO SLOW"
        print(
            f"{row['work']:<44} ek={row['ek'] * 1000:7.1f} ms  {row['baseline_name']}={row['baseline'] * 1000:7.1f} ms"
            f"  ratio={row['ratio']:.2f}x (goal {row['goal']}: {verdict})"
        )


if __name__ == "__main__":
    main()
