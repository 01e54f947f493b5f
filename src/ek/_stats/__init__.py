"""ek's statistics core: quantiles, bootstraps, permutation tests and proportion intervals, below every reader.

One home for the arithmetic that `ek._bootstrap` (intervals and comparisons of `Report` s) and `ek.agents`
(reliability, cost per success, the regression gate) read. It imports nothing of ek but `ek._util`; numpy is
imported inside the functions that need it.

* `_quantiles`: numpy's "linear" quantile and the percentile interval, in plain Python (every interval's ends),
  and the nearest-rank quantile (the fleet's timing percentiles);
* `_distributions`: the normal's quantile and CDF, Student's t quantiles (exact, and Cornish-Fisher);
* `_levels`: `check_level`, the one check of a confidence level;
* `_weights`: the hash-derived Poisson bootstrap of items (weights, replicate sums, the paired p-value);
* `_permutation`: the paired sign-flip permutation test;
* `_resample` (with `_binomial`): seeded bootstraps over units, of any statistic, a mean, a ratio of sums;
* `_proportions`: Wilson, Newcombe and MOVER intervals of proportions;
* `_prediction_powered`: PPI++ estimates of a corpus figure from a proxy of every item and an audit of a few
  (`ek.estimate_corpus`'s and the monitor's estimator; imported by module, not re-exported).

**The Poisson bootstrap of items** (`_weights`).

A corpus figure is a function of summed statistics (edits over reference
length, micro-F1 of TP/FP/FN), so its uncertainty comes from which
*documents* the corpus happened to hold, not which characters. The bootstrap
here resamples documents: replicate ``b`` gives item ``i`` a weight
``w(i, b)`` drawn from a Poisson(1)-like law, sums ``w(i, b) * s_i`` over the
items for every statistic ``s``, and recomputes the metric from those sums.
The percentile interval of the ``B`` replicate values is the interval.

Why a hash, not a random generator: ``w(i, b)`` is a pure function of the
item's id and ``b``, the same on every machine and in every process, so

* each part of a corpus carries its own replicate sums, and the sums of the
  parts add up to the sums of the whole, exactly for integer statistics
  (the interval of merged reports *is* the interval of the whole);
* two systems scored on the same ids are resampled identically, so the
  replicate differences form a paired bootstrap for free.

**The weight.** ``key`` is the 64-bit FNV-1a hash of the id text's UTF-8
bytes followed by one more step with their count in place of a byte, where the
id text is the id itself for a str, its decimal form for an integer and
its ``repr`` otherwise. For ``b = 8j + k``,
``h = splitmix64(key + (j + 1) * 0x9E3779B97F4A7C15 mod 2**64)`` and ``u``
is byte ``k`` of ``h`` (``(h >> 8k) & 255``). The weight is the number of
cut points ``94, 189, 235, 251, 255`` that ``u`` reaches: 0 to 5 with
probabilities 94, 95, 46, 16, 4 and 1 in 256, a discretised Poisson(1)
whose mean and variance are exactly 1 and whose third central moment is
0.98 (Poisson: 1). One 64-bit hash makes eight weights, which is what lets
1,000 replicates over 100,000 items run in well under a second.

**The values.** A replicate whose items all got weight 0 has no value (the
figure of an empty corpus is undefined) and is left out, which matters
only for slices of a handful of items. The interval is the pair of
``(1 - level) / 2`` and ``(1 + level) / 2`` quantiles of the replicate
values (linear interpolation, as numpy and ``scipy.stats.bootstrap``'s
percentile method take them). The paired p-value inverts that interval:
"p < 1 - level" exactly when the interval of the replicate differences at
``level`` excludes 0, so the p-value and the verdict never disagree; it is
reported no lower than ``1 / B``.

**Small samples.** Below `MIN_ITEMS` (40) items, in a report or a slice,
the percentile bootstrap is too narrow to trust (one document gives a
zero-width interval), so there is no interval (NaN) and `compare` takes
its p-value from the paired sign-flip permutation test of `_permutation`,
exact at any size, whose verdict is "too few items (n=K) to tell" when no
outcome could reach the level (up to 5 items at 0.95). From `MIN_ITEMS` on,
a bootstrap p-value under the level stands only when that test reaches
the level too; otherwise the test's p-value replaces it. The simulation
figures behind the minimum are in `MIN_ITEMS`' doc.

The reading of `Report` s (which statistics a report's metric sums, slices,
ids, merging, `compare`) is `ek._bootstrap`'s.
"""

from ek._stats._binomial import binomial, multinomial
from ek._stats._distributions import normal_cdf, normal_quantile, student_quantile, student_quantile_approx
from ek._stats._effective import Concentration, concentration, effective_size
from ek._stats._levels import check_level
from ek._stats._permutation import sign_flip_p_value, smallest_p_value
from ek._stats._proportions import (
    Z95,
    mover_upper,
    newcombe,
    smallest_detectable_drop,
    wilson,
)
from ek._stats._quantiles import interval_of, nearest_rank, quantile
from ek._stats._resample import bootstrap, mean_interval, ratio_interval
from ek._stats._weights import (
    MIN_ITEMS,
    REPLICATES,
    SCHEME,
    as_table,
    check_ids,
    id_keys,
    id_text,
    p_value_of,
    replicate_sums,
    splitmix,
    weight,
)

__all__ = [
    "MIN_ITEMS",
    "REPLICATES",
    "SCHEME",
    "Z95",
    "Concentration",
    "as_table",
    "binomial",
    "bootstrap",
    "check_ids",
    "check_level",
    "concentration",
    "effective_size",
    "id_keys",
    "id_text",
    "interval_of",
    "mean_interval",
    "mover_upper",
    "multinomial",
    "nearest_rank",
    "newcombe",
    "normal_cdf",
    "normal_quantile",
    "p_value_of",
    "quantile",
    "ratio_interval",
    "replicate_sums",
    "sign_flip_p_value",
    "smallest_detectable_drop",
    "smallest_p_value",
    "splitmix",
    "student_quantile",
    "student_quantile_approx",
    "weight",
    "wilson",
]
