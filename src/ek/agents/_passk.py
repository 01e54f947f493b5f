"""The binomial ratio behind pass@k and pass^k, exact when small and in constant time at any size.

pass@k is ``1 - C(n - c, k) / C(n, k)`` and pass^k is ``C(c, k) / C(n, k)``:
both are the ratio ``C(n - m, k) / C(n, k)``, with ``m = c`` successes or
``m = n - c`` failures. Whole binomials of a 10**8-trial run have hundreds
of millions of digits, so neither is ever formed: `exact_ratio` takes the
ratio as a short product of exact integers while that product is small,
and `log_ratio` gives its logarithm in O(1) otherwise.
"""

from __future__ import annotations

import math
from functools import lru_cache

_EXACT_BITS = 1 << 15  # products up to this size are formed exactly (a few ms at most)
_UNDERFLOW = 750  # exp(-750) rounds to 0.0
_LOG_2PI = math.log(2 * math.pi)


@lru_cache(maxsize=4096)
def exact_ratio(n: int, m: int, k: int) -> tuple[int, int] | None:
    """``C(n - m, k) / C(n, k)`` as integers ``(num, den)`` when that is cheap, else None.

    The ratio is the product of ``(n - s - j) / (n - j)`` over ``j < t``,
    with ``t = min(m, k)`` and ``s = max(m, k)``: ``t`` factors, not the
    ``n``-sized binomials. The product is formed exactly while it stays
    within `_EXACT_BITS` bits, so every small run gets the correctly rounded
    closed form. A ratio below ``exp(-t * s / n)``, and so below
    ``exp(-_UNDERFLOW)``, is 0.0 in floating point whatever its exact value.
    """
    if m + k > n:
        return 0, 1
    if m == 0:
        return 1, 1
    t, s = min(m, k), max(m, k)
    if t * s >= _UNDERFLOW * n:
        return 0, 1
    if t * n.bit_length() > _EXACT_BITS:
        return None
    return math.prod(range(n - s - t + 1, n - s + 1)), math.prod(range(n - t + 1, n + 1))


def log_ratio(n: int, m: int, k: int) -> float:
    """``log(C(n - m, k) / C(n, k))`` in O(1), for ``m, k >= 1`` and ``m + k <= n``.

    The ratio is the hypergeometric probability of drawing none of ``m``
    marked items in ``k`` draws from ``n``, which factors exactly into three
    binomial probabilities at ``p = k / n``:
    ``q**m * b(k; n - m, p) / b(k; n, p)``. Each binomial term is written
    the way Loader (2000) computes it, as a Stirling remainder
    (`_stirling_tail`) plus a deviance (``x * _deviance(r)``) that never
    subtracts two large logarithms, so the result keeps its relative
    precision (about 1e-14) where ``lgamma`` differences would lose eight
    digits at ``n = 10**8``. Past ``2**1000`` (beyond floats) only runs far
    smaller than ``n`` reach here, and then every factor equals
    ``1 - s / n`` to full precision.
    """
    if n.bit_length() > 1000:
        t, s = min(m, k), max(m, k)
        return t * math.log1p(-s / n) if t.bit_length() <= 1000 else -(t * s) / n
    rest = n - m - k
    log_q = _log_fraction(n - k, n)
    tails = _stirling_tail(n) - _stirling_tail(n - k)
    if rest == 0:  # 1 / C(n, k), from the same expansion of b(k; n, p)
        return k * _log_fraction(k, n) + m * log_q - tails + _stirling_tail(k) + 0.5 * (_LOG_2PI + math.log(k) + log_q)
    out = m * log_q + _stirling_tail(n - m) - _stirling_tail(rest) - tails
    out -= k * _deviance(m, n) + rest * _deviance(-(m * k), n * rest)
    return out - 0.5 * (_log_fraction(rest, n - m) - log_q)


def _stirling_tail(x: int) -> float:
    """``lgamma(x + 1)`` minus its Stirling approximation, for a whole ``x >= 1``."""
    if x <= 15:
        return math.lgamma(x + 1) - (x + 0.5) * math.log(x) + x - 0.5 * _LOG_2PI
    xf = float(x)
    inv2 = 1.0 / (xf * xf)
    terms = (1 / 12, 1 / 360, 1 / 1260, 1 / 1680, 1 / 1188)
    used = 2 if x > 500 else 3 if x > 80 else 4 if x > 35 else 5
    acc = 0.0
    for coef in reversed(terms[:used]):
        acc = coef - acc * inv2
    return acc / xf


def _deviance(a: int, b: int) -> float:
    """``-log1p(-r) - r`` for ``r = a / b < 1`` (= r**2/2 + r**3/3 + ...), without cancellation."""
    r = a / b
    if abs(r) >= 0.1:
        return -_log_fraction(b - a, b) - r
    total, power, j = 0.0, r * r, 2
    while True:
        term = power / j
        if abs(term) <= 1e-17 * abs(total):
            return total + term
        total += term
        power *= r
        j += 1


def _log_fraction(a: int, b: int) -> float:
    """``log(a / b)`` for positive whole numbers, precise also when ``a / b`` is near 1."""
    x = a / b
    return math.log1p((a - b) / b) if 0.5 < x < 2 else math.log(x)
