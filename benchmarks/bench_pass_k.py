"""pass@k and pass^k speed at large n, against the closed form over whole binomials.

Goal (issue 10, fault 11): ``ek pass-k 100000000 50000000 --k 50000000`` and
``pass_at_k(n=10**6, ...)`` answer at once for any n. The baseline is the
previous implementation, ``1 - comb(n - c, k) / comb(n, k)`` and
``comb(c, k) / comb(n, k)`` with ``math.comb``, timed side by side in this
process on the same inputs (its largest cases are skipped: they take
minutes). The ratio column is baseline time / ek time.

    python benchmarks/bench_pass_k.py
"""

from __future__ import annotations

import math
import time

from ek.agents import pass_at_k, pass_hat_k

CASES = [  # (n, c, k)
    (100, 37, 10),
    (10_000, 5_000, 100),
    (1_000_000, 10, 100_000),
    (1_000_000, 999_000, 1_000),
    (1_000_000, 500_000, 500_000),
    (100_000_000, 50_000_000, 50_000_000),
]
BASELINE_MAX_N = 1_000_000  # the closed form takes many seconds beyond this


def closed_form(n: int, c: int, k: int) -> tuple:
    total = math.comb(n, k)
    return 1 - math.comb(n - c, k) / total, math.comb(c, k) / total


def ek_both(n: int, c: int, k: int) -> tuple:
    return pass_at_k(n=n, c=c, k=k), pass_hat_k(n=n, c=c, k=k)


def timed(fn, *args) -> tuple:
    t = time.perf_counter()
    out = fn(*args)
    return time.perf_counter() - t, out


def main() -> None:
    print(f"{'n':>12} {'c':>11} {'k':>11} {'ek ms':>9} {'closed form ms':>15} {'ratio':>9}  agree")
    for n, c, k in CASES:
        t_ek, ours = timed(ek_both, n, c, k)
        if n <= BASELINE_MAX_N:
            t_base, ref = timed(closed_form, n, c, k)
            agree = all(math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-300) for a, b in zip(ours, ref))
            base_ms, ratio = f"{t_base * 1e3:15.2f}", f"{t_base / t_ek:9.0f}"
        else:
            base_ms, ratio, agree = f"{'skipped':>15}", f"{'-':>9}", "-"
        print(f"{n:>12} {c:>11} {k:>11} {t_ek * 1e3:9.3f} {base_ms} {ratio}  {agree}")


if __name__ == "__main__":
    main()
