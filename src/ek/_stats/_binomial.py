"""Seeded draws from the binomial and multinomial laws, for the bootstraps of `_resample`.

`random.Random` only, so a seed gives the same draws on every machine. A
binomial of small ``n`` is drawn through a cached inverse-CDF table, a rare
one by waiting times between successes, any other by Hormann's BTRS.
"""

from __future__ import annotations

import math
import random
from bisect import bisect_right
from collections.abc import Sequence
from functools import lru_cache

__all__ = ["binomial", "multinomial"]

_TABLE_MAX_N = 512  # binomials up to this n draw from a cached CDF table


def multinomial(rng: random.Random, n: int, sizes: Sequence[int]) -> list[int]:
    """Counts of ``n`` draws with replacement from groups of the given sizes (sequential binomials)."""
    counts, left, mass_left = [], n, sum(sizes)
    for m in sizes[:-1]:
        draw = 0 if left == 0 else (binomial(rng, left, m / mass_left) if m < mass_left else left)
        counts.append(draw)
        left -= draw
        mass_left -= m
    counts.append(left)
    return counts


def binomial(rng: random.Random, n: int, p: float) -> int:
    """One Binomial(n, p) draw: a cached inverse-CDF table for small n, else waiting times or BTRS."""
    if p <= 0.0:
        return 0
    if p >= 1.0:
        return n
    flipped = p > 0.5
    if flipped:
        p = 1.0 - p
    if n <= _TABLE_MAX_N:
        x = min(bisect_right(_binomial_cdf(n, p), rng.random()), n)
    elif n * p < 10.0:
        x = _binomial_waiting(rng, n, p)
    else:
        x = _binomial_btrs(rng, n, p)
    return n - x if flipped else x


@lru_cache(maxsize=8192)
def _binomial_cdf(n: int, p: float) -> tuple[float, ...]:
    # Cumulative probabilities of 0..n-1 successes (p <= 0.5 and n small, so q**n cannot underflow).
    q = 1.0 - p
    term, total, cdf = q**n, 0.0, []
    for k in range(n):
        total += term
        cdf.append(total)
        term *= (n - k) / (k + 1) * p / q
    return tuple(cdf)


def _binomial_waiting(rng: random.Random, n: int, p: float) -> int:
    # Count successes by jumping geometric gaps between them.
    log_q = math.log1p(-p)
    x, pos = 0, 0
    while True:
        pos += int(math.log(1.0 - rng.random()) / log_q) + 1
        if pos > n:
            return x
        x += 1


def _binomial_btrs(rng: random.Random, n: int, p: float) -> int:
    # Transformed rejection with squeeze (Hormann 1993), for n * p >= 10 and p <= 0.5.
    _spq, a, b, c, v_r, alpha, lpq, m, h = _btrs_constants(n, p)
    rnd, lgamma, log = rng.random, math.lgamma, math.log
    while True:
        u = rnd() - 0.5
        v = rnd()
        us = 0.5 - abs(u)
        k = math.floor((2 * a / us + b) * u + c)
        if k < 0 or k > n:
            continue
        if us >= 0.07 and v <= v_r:
            return k
        v = log(v * alpha / (a / (us * us) + b))
        if v <= h - lgamma(k + 1) - lgamma(n - k + 1) + (k - m) * lpq:
            return k


@lru_cache(maxsize=1024)
def _btrs_constants(n: int, p: float) -> tuple[float, float, float, float, float, float, float, int, float]:
    # A bootstrap draws from the same (n, p) over and over: set the constants up once.
    q = 1.0 - p
    spq = math.sqrt(n * p * q)
    b = 1.15 + 2.53 * spq
    a = -0.0873 + 0.0248 * b + 0.01 * p
    c = n * p + 0.5
    v_r = 0.92 - 4.2 / b
    alpha = (2.83 + 5.1 / b) * spq
    m = math.floor((n + 1) * p)
    return (spq, a, b, c, v_r, alpha, math.log(p / q), m, math.lgamma(m + 1) + math.lgamma(n - m + 1))
