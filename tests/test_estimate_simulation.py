"""Coverage of the prediction-powered intervals on simulated corpora (seeded; numpy-vectorised).

Synthetic corpora of N = 20,000 documents in three strata of different
difficulty, whose true CER and micro-F1 are known exactly (the metric of
the summed true statistics). Proxies of each document's statistics have a
chosen correlation with the true ones (about 0.3, 0.6, 0.9), or are biased
(they see half the errors, plus a constant), or are noise (independent of
the truth). Each corpus is audited three ways with n = 300 on average:
uniformly (ppi_py's two-sample estimator), by a stratified plan (Neyman
allocation) and by an active plan (probability growing with the proxy's
predicted uncertainty), and the tuned estimator's 90% and 95% intervals are
checked to cover the truth at no less than the level minus 1.5 points,
pooled per design and per proxy (3,000 to 5,000 intervals each: a Monte
Carlo error of 0.3 to 0.5 points), and each of the 13 pairs at no less
than the level minus 3 points (1,000 intervals: an error of 0.7 to 0.95
points). The plug-in figure's naive interval (the proxy taken for gold on
all N items) is printed beside it: it covers almost never, which is why ek
reports the plug-in without an interval. The tuned ``λ`` costs at most 2%
of width against the classical interval when the proxy is noise.

The estimator is `ek._ppi._core.estimate`, the function `ek.estimate_corpus`
runs per slice once it has read the reports (tests/test_estimate_corpus.py
checks the two agree); the probabilities are `ek._ppi._plan.probabilities`.
"""

from __future__ import annotations

import math

import pytest

np = pytest.importorskip("numpy")

from ek._ppi._core import Moments, estimate, gradient, moments, normal_interval, without  # noqa: E402
from ek._ppi._plan import poisson_uncertainty, probabilities  # noqa: E402

N, BUDGET, CORPORA, BATCH = 20_000, 300, 1000, 100
LEVELS = (0.90, 0.95)
STRATA = ((0.5, 2, 60), (0.3, 2, 30), (0.2, 3, 27))  # (share of documents, Beta(a, b) of their error rate)
PROXIES = {"rho 0.3": 0.3, "rho 0.6": 0.6, "rho 0.9": 0.9, "biased": "biased", "noise": "noise"}
DESIGNS = ("uniform", "stratified", "active")


def cer(t):
    return t[0] / t[1]


def micro_f1(t):
    return 2 * t[0] / (2 * t[0] + t[1] + t[2])


def corpora(metric: str, seed: int):
    """Batches of ``(strata codes, true statistics, {proxy: proxy statistics})``, arrays ``(BATCH, N, k)``."""
    rng = np.random.default_rng(seed)
    shares = np.array([s[0] for s in STRATA])
    for _ in range(CORPORA // BATCH):
        codes = rng.choice(len(STRATA), size=(BATCH, N), p=shares)
        a = np.array([s[1] for s in STRATA])[codes]
        b = np.array([s[2] for s in STRATA])[codes]
        rate = rng.beta(a, b)
        if metric == "cer":
            size = rng.integers(40, 161, size=(BATCH, N))
            errors = rng.binomial(size, rate).astype(float)
            truth = np.stack([errors, size.astype(float)], axis=-1)
        else:
            size = rng.integers(5, 16, size=(BATCH, N))
            wrong = rng.binomial(size, np.minimum(1.0, 2 * rate))
            missing = rng.binomial(size - wrong, 0.03)
            spurious = rng.binomial(3, 0.05, size=(BATCH, N))
            truth = np.stack([(size - wrong - missing), wrong + spurious, wrong + missing], axis=-1).astype(float)
        yield codes, truth, {name: _proxy(truth, kind, metric, rng) for name, kind in PROXIES.items()}


def _proxy(truth, kind, metric, rng):
    """Proxy statistics: the true error counts plus noise of a chosen correlation, a biased or a noise proxy.

    The noise proxy is another corpus of the batch: statistics of the same
    kind that have nothing to do with this corpus's documents.
    """
    if kind == "noise":
        return np.roll(truth, 1, axis=0)
    out = truth.copy()
    for j in ([0] if metric == "cer" else [1, 2]):
        e = truth[..., j]
        if kind == "biased":
            out[..., j] = np.maximum(0.0, 0.5 * e + 1 + rng.normal(0, 0.5 * e.std(), e.shape))
        else:
            sigma = e.std() * math.sqrt(1 / kind ** 2 - 1)  # corr(e, e + noise) = rho
            out[..., j] = np.maximum(0.0, e + rng.normal(0, sigma, e.shape))
    if metric == "f1":  # TP seen through the noisy FN: tp + fn keeps the number of gold fields
        out[..., 0] = np.maximum(0.0, truth[..., 0] + truth[..., 2] - out[..., 2])
    return out


def draw(design, codes, spread, rng):
    """``(audited rows, their inclusion probabilities or None)`` for one corpus."""
    if design == "uniform":  # BUDGET distinct rows, each subset alike: the first distinct of random draws
        draws = rng.integers(0, N, 2 * BUDGET)
        _, first = np.unique(draws, return_index=True)
        return np.sort(draws[np.sort(first)][:BUDGET]), None
    probs, _ = probabilities(design, spread, codes, BUDGET, 0.25 * BUDGET / N)
    rows = np.flatnonzero(rng.random(N) < probs)
    return rows, probs[rows]


def batch_moments(tables):
    """The `Moments` of each corpus of a batch ``(B, N, k)``, in one pass."""
    mean = tables.mean(axis=1)
    centred = tables - mean[:, None, :]
    scatter = np.matmul(centred.transpose(0, 2, 1), centred)
    return [Moments(N, mean[b], scatter[b]) for b in range(len(tables))]


def run(metric: str, seed: int) -> dict:
    """``{(proxy, design): {"cover": {level: share}, "plug_in": {level: share}, "width", "classical", "lam"}}``."""
    value = cer if metric == "cer" else micro_f1
    rng = np.random.default_rng(seed + 1)
    tally: dict = {}
    for codes_b, truth_b, proxies in corpora(metric, seed):
        targets = [value(t) for t in truth_b.sum(axis=1)]
        for name, proxy_b in proxies.items():
            wholes = batch_moments(proxy_b)
            for c in range(BATCH):
                codes, proxy, truth, whole = codes_b[c], proxy_b[c], truth_b[c], wholes[c]
                spread = poisson_uncertainty(proxy, value) if name != "noise" else None
                plug = _plug_in(whole, value)
                for design in DESIGNS if name != "noise" else ("uniform",):  # noise: the cost of tuning
                    rows, pi = draw(design, codes, spread, rng)
                    unaudited = without(whole, moments(proxy[rows]))
                    fig = estimate(unaudited, proxy[rows], truth[rows], value, lam="tune", inclusion=pi)
                    _count(tally.setdefault((name, design), _empty()), fig, plug, targets[c])
    for row in tally.values():
        for key in ("cover", "plug_in"):
            row[key] = {level: k / CORPORA for level, k in row[key].items()}
        for key in ("width", "classical", "lam"):
            row[key] /= CORPORA
    return tally


def _plug_in(whole, value):
    """The proxy's figure over all N items and its naive standard error (the proxy taken for gold)."""
    totals = N * whole.mean
    g = np.asarray(gradient(value, totals))
    return value(totals), math.sqrt(float(g @ whole.scatter @ g))


def _empty():
    return {"cover": dict.fromkeys(LEVELS, 0), "plug_in": dict.fromkeys(LEVELS, 0), "width": 0.0, "classical": 0.0,
            "lam": 0.0}


def _count(row, fig, plug, target):
    for level in LEVELS:
        low, high = normal_interval(fig.estimate, fig.std_error, level)
        row["cover"][level] += low <= target <= high
        low, high = normal_interval(*plug, level)
        row["plug_in"][level] += low <= target <= high
    row["width"] += fig.std_error
    row["classical"] += fig.classical_std_error
    row["lam"] += fig.lam


def report(metric: str, tally: dict) -> None:
    print(f"\n{metric}: {CORPORA} corpora of N={N}, audits of n={BUDGET} (on average for plans)")
    print(f"{'proxy':8} {'design':10}  cover 90%  cover 95%  plug-in 90/95   width/classical  mean lam")
    for (name, design), row in tally.items():
        print(f"{name:8} {design:10}  {row['cover'][0.9]:9.3f}  {row['cover'][0.95]:9.3f}  "
              f"{row['plug_in'][0.9]:6.3f}/{row['plug_in'][0.95]:.3f}   {row['width'] / row['classical']:15.3f}  "
              f"{row['lam']:8.3f}")


@pytest.mark.parametrize("metric", ["cer", "f1"])
def test_coverage_width_and_the_plug_in(metric):
    """One test per metric (the two run in parallel under xdist); every figure is printed (pytest -s)."""
    tally = run(metric, seed=23 if metric == "cer" else 24)
    report(metric, tally)
    short = []
    for level in LEVELS:
        for kind, members in (("design", DESIGNS), ("proxy", [p for p in PROXIES if p != "noise"])):
            for member in members:
                rows = [row for key, row in tally.items() if key[0 if kind == "proxy" else 1] == member]
                pooled = sum(row["cover"][level] for row in rows) / len(rows)
                if pooled < level - 0.015:
                    short.append(f"{kind} {member} at {level:.0%}: {pooled:.3f} over {len(rows)} x {CORPORA}")
        short += [f"{name} {design} at {level:.0%}: {row['cover'][level]:.3f}"
                  for (name, design), row in tally.items() if row["cover"][level] < level - 0.03]
    assert not short, "coverage too low:\n" + "\n".join(short)
    for name in ("rho 0.3", "biased"):
        assert tally[(name, "uniform")]["plug_in"][0.95] < 0.5, name  # the plug-in's naive interval misses
    noise = tally[("noise", "uniform")]
    assert noise["width"] <= 1.02 * noise["classical"], noise["width"] / noise["classical"]
    good = tally[("rho 0.9", "uniform")]
    assert good["width"] < 0.6 * good["classical"], good
