"""The simulation grid of issue 30 for the prediction-powered estimates: λ, paired estimates, small slices.

Run: ``PYTHONPATH=src python scripts/ppi_grid.py [replications]`` (default
1,000 a cell; about 10 CPU-minutes). Seeded; every figure comes from
`ek._stats._prediction_powered.estimate`, the estimator `ek.estimate_corpus` and
`ek.compare_estimates` run, on statistic columns (no `Report` is built).

The corpus: N = 5,000 documents, lengths lognormal (median 55, σ = 0.5, 1.0,
1.5) or Pareto (α = 1.2, from 20), error rates Beta(2, 38) in three strata
(Beta(2, 60), (2, 30), (3, 27)), edits Binomial(length, rate). CER is summed
edits over summed length; the truth is the corpus's own. Proxies of the
edits: the edits plus noise of correlation 0.5 and 0.9, another document's
edits (correlation 0) and a biased one (half the edits plus one); the
reference length is known to the proxy. Audits of n = 20, 50, 200: a uniform
sample, or Poisson samples of n expected items from `ek._corpus_estimates._plan`'s
stratified (Neyman) and active (π ∝ predicted uncertainty) probabilities.

Printed per cell: coverage at 90% and 95% of the tuned interval, of λ = 0
(audit-only) and λ = 1 (plain PPI); the share of tuned intervals ek flags
``reliable: false`` (fewer than 10 audited items, or an effective size
below 5) and the coverage of the others; the tuned relative bias; the
tuned 90% width over the audit-only one (summed over the audits); and
tuned's shortfall below nominal less the better of λ = 0's and λ = 1's
(over-coverage counts as no shortfall). A summary per length distribution
and n follows. Slices: a slice of 400 documents with 2-40 audited items,
coverage of all and of the unflagged. Engine pairs: false positives at 10% of two equal engines
(independent edits at the same rates) and coverage of the true difference
of unequal ones, for one λ tuned on the paired difference against each
engine at its own plug-in λ (ek before issue 30).
"""

from __future__ import annotations

import math
import sys
from statistics import NormalDist

import numpy as np

from ek._corpus_estimates._plan import poisson_uncertainty, probabilities
from ek._stats._prediction_powered import Moments, effective_size, estimate, moments, student_quantile, without

N = 5_000
LENGTHS = {"lognormal 0.5": 0.5, "lognormal 1.0": 1.0, "lognormal 1.5": 1.5, "pareto 1.2": "pareto"}
SIZES = (20, 50, 200)
PROXIES = (0.0, 0.5, 0.9, "biased")
DESIGNS = ("uniform", "stratified", "active")
LEVELS = (0.90, 0.95)
STRATA = ((0.5, 2, 60), (0.3, 2, 30), (0.2, 3, 27))
MIN_RELIABLE = 10  # the flags of ek._corpus_estimates._corpus: fewer audited items, or a smaller effective size
MIN_EFFECTIVE = 5.0


def cer(t):
    return t[0] / t[1]


def corpus(rng, lengths, size=N):
    """``(codes, gold (size, 2), {proxy: (size, 2)})``: edits and reference length of each document."""
    if lengths == "pareto":
        length = np.round(20 * (rng.pareto(1.2, size) + 1))
    else:
        length = np.maximum(1, np.round(np.exp(rng.normal(4, lengths, size))))
    codes = rng.choice(len(STRATA), size=size, p=[s[0] for s in STRATA])
    rate = rng.beta(np.array([s[1] for s in STRATA])[codes], np.array([s[2] for s in STRATA])[codes])
    edits = rng.binomial(length.astype(np.int64), rate).astype(float)
    return (
        codes,
        np.stack([edits, length], 1),
        {kind: np.stack([noisy(edits, kind, rng), length], 1) for kind in PROXIES},
    )


def noisy(edits, kind, rng):
    if kind == "biased":
        return np.maximum(0.0, 0.5 * edits + 1 + rng.normal(0, 0.5 * edits.std(), edits.shape))
    if kind == 0:
        return edits[rng.permutation(len(edits))]
    return np.maximum(0.0, edits + rng.normal(0, edits.std() * math.sqrt(1 / kind**2 - 1), edits.shape))


def audit(rng, design, n, pi):
    """The audited rows and their inclusion probabilities (None: a uniform sample without replacement)."""
    if design == "uniform":
        return rng.choice(len(pi), n, replace=False), None
    rows = np.flatnonzero(rng.random(len(pi)) < pi)
    return rows, pi[rows]


def plan(design, codes, proxy, n):
    if design == "uniform":
        return np.full(len(codes), n / len(codes))
    spread = poisson_uncertainty(proxy, cer)
    return probabilities(design, spread, codes, float(n), 0.25 * n / len(codes))[0]


def flagged(fig):
    """Whether ek prints this interval ``reliable: false`` (ek._corpus_estimates._corpus's two flags)."""
    return fig.n < MIN_RELIABLE or (fig.n < fig.N and fig.effective_size < MIN_EFFECTIVE)


def cell(rng, gold, proxy, design, n, pi, reps):
    """Per ``lam`` of (tune, 0, 1): covered counts per level (all and unflagged), flags, widths, estimates."""
    truth = cer(gold.sum(axis=0))
    whole = moments(proxy)
    out = {
        lam: {"cover": dict.fromkeys(LEVELS, 0), "kept": dict.fromkeys(LEVELS, 0), "flagged": 0}
        | {"width": 0.0, "sum": 0.0, "runs": 0}
        for lam in ("tune", 0.0, 1.0)
    }
    for _ in range(reps):
        rows, inclusion = audit(rng, design, n, pi)
        if len(rows) < 2:
            continue
        rest = without(whole, moments(proxy[rows]))
        for lam, tally in out.items():
            fig = estimate(rest, proxy[rows], gold[rows], cer, lam=lam, inclusion=inclusion)
            tally["runs"] += 1
            tally["sum"] += fig.estimate - truth
            flag = flagged(fig)
            tally["flagged"] += int(flag)
            for level in LEVELS:
                q = student_quantile((1 + level) / 2, fig.df)  # ek's interval: t when tuned
                hit = int(abs(fig.estimate - truth) <= q * fig.std_error)
                tally["cover"][level] += hit
                tally["kept"][level] += hit * (not flag)
                tally["width"] += q * fig.std_error if level == 0.9 else 0.0
    return truth, out


def shares(out):
    """Per ``lam``: coverage per level, flagged share, unflagged coverage per level (NaN: all flagged)."""
    res = {}
    for lam, t in out.items():
        runs, kept = max(1, t["runs"]), t["runs"] - t["flagged"]
        res[lam] = {
            "cover": {lv: t["cover"][lv] / runs for lv in LEVELS},
            "flagged": t["flagged"] / runs,
            "kept": {lv: (t["kept"][lv] / kept if kept else math.nan) for lv in LEVELS},
        }
    return res


def grid(reps):
    print(f"CER, N = {N}, {reps} audits a cell; 90/95% coverage of tuned, lambda 0 (audit-only), lambda 1 (PPI);")
    print("tuned: share flagged, unflagged coverage, relative bias, 90% width / audit-only width;")
    print("short: tuned's shortfall below nominal less the better of lambda 0 and 1's, at 90/95 (points)")
    print(
        f"{'lengths':14} {'n':>4} {'proxy':>7} {'design':10} {'tuned':>11} {'lam 0':>11} {'lam 1':>11} "
        f"{'flag':>5} {'unflagged':>11} {'bias':>6} width short"
    )
    rows = []
    for name, lengths in LENGTHS.items():
        rng = np.random.default_rng(30)
        codes, gold, proxies = corpus(rng, lengths)
        for n in SIZES:
            for kind in PROXIES:
                for design in DESIGNS:
                    pi = plan(design, codes, proxies[kind], n)
                    truth, out = cell(rng, gold, proxies[kind], design, n, pi, reps)
                    res = shares(out)
                    tuned = out["tune"]
                    bias = tuned["sum"] / max(1, tuned["runs"]) / truth
                    width = tuned["width"] / out[0.0]["width"]
                    short = {lv: shortfall(res, lv) for lv in LEVELS}
                    cells = "  ".join(f"{res[lam]['cover'][0.9]:.3f}/{res[lam]['cover'][0.95]:.3f}" for lam in out)
                    kept = res["tune"]["kept"]
                    print(
                        f"{name:14} {n:4} {kind!s:>7} {design:10} {cells}  {res['tune']['flagged']:5.2f} "
                        f"{kept[0.9]:.3f}/{kept[0.95]:.3f} {bias:+.3f} {width:5.2f} "
                        f"{100 * short[0.9]:+.1f}/{100 * short[0.95]:+.1f}",
                        flush=True,
                    )
                    rows.append((name, n, kind, design, res, short))
    return rows


def shortfall(res, level):
    """Tuned's shortfall below ``level`` less the smaller of λ = 0's and λ = 1's (over-coverage is no gain)."""
    miss = {lam: max(0.0, level - res[lam]["cover"][level]) for lam in res}
    return miss["tune"] - min(miss[0.0], miss[1.0])


def summary(rows, reps):
    se = math.sqrt(0.9 * 0.1 / reps)
    print(f"\nMonte Carlo SE at 90%: {se:.3f}")
    for name in LENGTHS:
        for n in SIZES:
            mine = [r for r in rows if r[0] == name and r[1] == n]
            worse = sum(r[5][lv] > 0.01 for r in mine for lv in LEVELS)
            fails = sum(r[4]["tune"]["kept"][lv] < lv - 0.015 for r in mine for lv in LEVELS)
            flag = np.mean([r[4]["tune"]["flagged"] for r in mine])
            low = min(r[4]["tune"]["cover"][0.9] for r in mine)
            print(
                f"{name:14} n={n:3}: tuned > 1 point short of the better lambda in {worse} of {2 * len(mine)}; "
                f"unflagged below nominal - 1.5 in {fails}; flagged {flag:.0%}; lowest 90% coverage {low:.3f}"
            )


def slices(reps):
    print("\nslices of 400 documents (lognormal 0.5, proxy 0.9, uniform): tuned coverage at 90%, flagged share")
    rng = np.random.default_rng(31)
    _, gold, proxies = corpus(rng, 0.5, 400)
    truth, whole = cer(gold.sum(axis=0)), moments(proxies[0.9])
    for m in (2, 3, 5, 10, 20, 40):
        hits, zero, flags, kept = 0, 0, 0, 0
        for _ in range(reps):
            rows = rng.choice(400, m, replace=False)
            fig = estimate(without(whole, moments(proxies[0.9][rows])), proxies[0.9][rows], gold[rows], cer)
            hit = int(abs(fig.estimate - truth) <= student_quantile(0.95, fig.df) * fig.std_error)
            hits, flags = hits + hit, flags + int(flagged(fig))
            kept += hit * (not flagged(fig))
            zero += int(fig.std_error == 0)
        unflagged = "-" if flags == reps else f"{kept / (reps - flags):.3f}"
        print(
            f"  {m:3} audited: coverage {hits / reps:.3f}, flagged {flags / reps:.0%}, unflagged {unflagged}, "
            f"zero width {zero}"
        )


def pairs(reps):
    print("\nengine pairs, lognormal 0.5, proxies of correlation 0.9 / 0.5: rejections at 10% (paired | each own lam)")
    rng = np.random.default_rng(32)
    for n in (30, 100, 300):
        for shift in (1.0, 0.7):
            line = []
            for rho in (0.9, 0.5):
                paired, own, cover = pair_cell(rng, n, rho, shift, reps)
                line.append(f"rho {rho}: {paired:.3f} | {own:.3f} (covers {cover:.3f})")
            label = "equal  " if shift == 1.0 else "B 0.7 A"
            print(f"  n={n:3} {label}  " + "   ".join(line), flush=True)


def pair_cell(rng, n, rho, shift, reps):
    """Rejections of "no difference" at 10%: one λ on the difference, and each engine at its own; coverage.

    Each replication draws both engines' edits afresh over the same
    documents (B's rates ``shift`` times A's), so equal engines differ by
    nothing in expectation; coverage is of the replication's own difference.
    """
    z = NormalDist().inv_cdf(0.95)
    length = np.maximum(1, np.round(np.exp(rng.normal(4, 0.5, N)))).astype(np.int64)
    rate = rng.beta(2, 38, N)
    paired = own = cover = 0
    for _ in range(reps):
        a, b = rng.binomial(length, rate).astype(float), rng.binomial(length, shift * rate).astype(float)
        gold = np.column_stack([a, length, b, length]).astype(float)
        proxy = np.column_stack([noisy(a, rho, rng), length, noisy(b, rho, rng), length]).astype(float)
        truth = delta(gold.sum(axis=0))
        rows = rng.choice(N, n, replace=False)
        rest = without(moments(proxy), moments(proxy[rows]))
        fig = estimate(rest, proxy[rows], gold[rows], delta, size=pair_size(rest, proxy[rows]), min_size=0.0)
        q = student_quantile(0.95, fig.df)
        paired += int(abs(fig.estimate) > q * fig.std_error)
        cover += int(abs(fig.estimate - truth) <= q * fig.std_error)
        weights = np.repeat([own_lam(proxy, gold, rows, j) for j in (0, 2)], 2)
        old = estimate(rest, proxy[rows], gold[rows], delta, lam=weights)
        own += int(abs(old.estimate) > z * old.std_error)
    return paired / reps, own / reps, cover / reps


def pair_size(rest, audited):
    """The smaller of the two engines' effective audit sizes, as ek._corpus_estimates._compare passes it."""
    sizes = []
    for side in (slice(0, 2), slice(2, 4)):
        part = Moments(rest.n, rest.mean[side], rest.scatter[side, side])
        sizes.append(effective_size(part, audited[:, side], cer))
    return min(sizes)


def delta(t):
    return t[2] / t[3] - t[0] / t[1]


def own_lam(proxy, gold, rows, j):
    """Engine ``j // 2``'s own plug-in λ (PPI++ tuned on its audit alone), as ek tuned each estimate before."""
    mine = slice(j, j + 2)
    rest = without(moments(proxy[:, mine]), moments(proxy[rows][:, mine]))
    return estimate(rest, proxy[rows][:, mine], gold[rows][:, mine], cer, lam="plug-in").lam


def main(reps):
    summary(grid(reps), reps)
    slices(reps)
    pairs(reps)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
