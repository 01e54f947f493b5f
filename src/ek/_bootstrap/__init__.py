"""Intervals, paired comparisons and item-free summaries of `Report` s, on the bootstrap of `ek._stats`.

The arithmetic (hash-derived Poisson weights, replicate sums, quantiles,
the sign-flip test) is `ek._stats`'; its package doc gives the design. This
package reads it off reports (`_reports`: which statistics a report's
metric sums, slices, ids, the replicate sums, item-free
summaries and their merging), `_checks` says whether reports can be
compared or merged, `_pairs` compares two (`compare`) and
`_bounds` judges an interval (`bounds`: whether it can be trusted, and why
not). A `Report` made by the facade carries a
`Resampler` (its metric, and the report's replicate sums once made or
stored: the one owner of its interval state), through which
`Report.interval` reaches this package without `ek.base` importing it.
"""

from ek._bootstrap._bounds import MIN_EFFECTIVE
from ek._bootstrap._checks import check_comparable, merged_ids
from ek._bootstrap._pairs import compare, small_verdict, verdict
from ek._bootstrap._reports import (
    Resampled,
    Resampler,
    bounds,
    is_summary,
    kept,
    merge_summaries,
    metric_of,
    moment_sums,
    resampled,
    resampled_pair,
    statistic_table,
    stored_sums,
    summarize,
)
from ek._stats import (
    MIN_ITEMS,
    REPLICATES,
    SCHEME,
    check_ids,
    id_text,
    interval_of,
    p_value_of,
    replicate_sums,
    sign_flip_p_value,
    smallest_p_value,
    weight,
)

__all__ = [
    "MIN_EFFECTIVE",
    "MIN_ITEMS",
    "REPLICATES",
    "SCHEME",
    "Resampled",
    "Resampler",
    "bounds",
    "check_comparable",
    "check_ids",
    "compare",
    "id_text",
    "interval_of",
    "is_summary",
    "kept",
    "merge_summaries",
    "merged_ids",
    "metric_of",
    "moment_sums",
    "p_value_of",
    "replicate_sums",
    "resampled",
    "resampled_pair",
    "sign_flip_p_value",
    "small_verdict",
    "smallest_p_value",
    "statistic_table",
    "stored_sums",
    "summarize",
    "verdict",
    "weight",
]
