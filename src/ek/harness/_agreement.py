"""Inter-annotator agreement behind `ek.harness`: percent agreement, Cohen's kappa, Krippendorff's alpha.

How far two people labelling the same items agree is the ceiling of any
model score measured against their labels. All three statistics are higher
when better and pure Python:

* `percent_agreement`: the raw share of items labelled alike (ignores chance);
* `cohen_kappa`: two raters, complete data, corrected for the agreement
  their label frequencies would give by chance; nominal labels, or ordered
  ones with linear or quadratic weights (scikit-learn's definition);
* `krippendorff_alpha`: any number of raters, missing labels allowed, and a
  difference function per level of measurement (nominal, ordinal, interval,
  ratio).

Both chance-corrected statistics are computed from integer counts with one
division at the end.
"""

from __future__ import annotations

import math
import numbers
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any

from ek._util import type_name

__all__ = ["cohen_kappa", "krippendorff_alpha", "percent_agreement"]

_LEVELS = ("nominal", "ordinal", "interval", "ratio")
# What a disagreement between scale positions i and j costs, per cohen_kappa weighting.
_WEIGHTS: dict[str | None, Callable[[int, int], int]] = {
    None: lambda i, j: int(i != j),
    "linear": lambda i, j: abs(i - j),
    "quadratic": lambda i, j: (i - j) * (i - j),
}


def percent_agreement(rater_a: Sequence[Hashable], rater_b: Sequence[Hashable]) -> float:
    """Share of items the two raters labelled identically (higher is better).

    Args:
        rater_a, rater_b: one label per item, items in the same order.

    Raises:
        ValueError: the raters label different numbers of items, no items,
            or an item is missing (None or NaN).

    >>> percent_agreement(["a", "b", "b", "c"], ["a", "b", "c", "c"])
    0.75
    """
    a, b = _check_raters(rater_a, rater_b, "percent_agreement")
    return sum(1 for x, y in zip(a, b) if x == y) / len(a)


def cohen_kappa(
    rater_a: Sequence[Hashable],
    rater_b: Sequence[Hashable],
    *,
    labels: Sequence[Hashable] | None = None,
    weights: str | None = None,
) -> float:
    """Cohen's kappa of two raters' labels (higher is better; 1 is perfect, 0 chance).

    ``1 - D_o / D_e``: the observed disagreement over the disagreement
    expected from each rater's label frequencies, with ``weights`` deciding
    what a disagreement between label ``i`` and label ``j`` costs:

    * None: 1 for any two different labels (nominal labels; the classic
      ``(p_o - p_e) / (1 - p_e)``);
    * ``"linear"``: ``|i - j|``, and ``"quadratic"``: ``(i - j) ** 2``, for
      ordered labels, ``i`` and ``j`` being positions in ``labels``.

    Both sums are exact integers and divided once. The values equal
    scikit-learn's ``cohen_kappa_score(rater_a, rater_b, labels=labels,
    weights=weights)``. For more than two raters or missing labels use
    `krippendorff_alpha`.

    Args:
        rater_a, rater_b: one label per item, items in the same order.
        labels: the labels to use, in order. Items where either rater gave
            a label outside this list are left out (as in scikit-learn), so
            it also selects a subset. None uses every label seen, sorted,
            which is the scale order for weighted kappa; pass ``labels`` when
            sorting does not give the scale (``["low", "mid", "high"]``).
        weights: None, ``"linear"`` or ``"quadratic"``.

    Raises:
        ValueError: unequal lengths, no items (or none left by
            ``labels``), a missing label, repeated ``labels``, an unknown
            ``weights``, or kappa is undefined (0/0) because all labels of
            both raters fall on one scale position.
        TypeError: unhashable labels, or weighted kappa over labels that
            cannot be sorted and no ``labels`` order.

    >>> round(cohen_kappa(["y", "y", "n", "n"], ["y", "n", "n", "n"]), 3)
    0.5
    >>> round(cohen_kappa([1, 2, 3, 3], [1, 3, 3, 2], weights="quadratic"), 3)  # 1 - 4 * 2 / 22
    0.636
    """
    if weights not in _WEIGHTS:
        raise ValueError(
            f"cohen_kappa() weights must be None, 'linear' or 'quadratic', got {weights!r}; "
            "None is for unordered labels, the other two weigh a disagreement by its distance."
        )
    a, b = _check_raters(rater_a, rater_b, "cohen_kappa")
    order = _scale(a, b, labels, weights)
    index = {label: i for i, label in enumerate(order)}
    pairs = [(index[x], index[y]) for x, y in zip(a, b) if x in index and y in index]
    if not pairs:
        raise ValueError(
            f"cohen_kappa(): none of the {len(a)} items has labels from both raters in labels="
            f"{list(order)!r:.80}, so there is nothing to compare. Include the labels the raters used."
        )
    n = len(pairs)
    counts_a, counts_b = [0] * len(order), [0] * len(order)
    for i, j in pairs:
        counts_a[i] += 1
        counts_b[j] += 1
    cost = _WEIGHTS[weights]
    observed = sum(cost(i, j) for i, j in pairs)
    expected = _expected_cost(counts_a, counts_b, weights)
    if expected == 0:
        label = order[counts_a.index(n)]
        raise ValueError(
            f"cohen_kappa is undefined here: both raters gave all {n} items the single label "
            f"{label!r}, so chance agreement is 1 and kappa is 0/0. Report percent_agreement "
            "instead, or add items that carry other labels."
        )
    return (expected - n * observed) / expected


def krippendorff_alpha(reliability_data: Sequence[Sequence[Hashable]], *, level: str = "nominal") -> float:
    """Krippendorff's alpha over any number of raters (higher is better; 1 is perfect, 0 chance).

    ``reliability_data`` has one row per rater and one column per item; a
    missing label is None or NaN. Items labelled by fewer than two raters
    cannot be paired and are left out, as the method prescribes. Following
    Krippendorff's coincidence-matrix computation, ``alpha = 1 - D_o / D_e``:
    observed disagreement within items over the disagreement expected
    between all pairable values, under the ``level``'s squared difference:

    * ``"nominal"``: 0 for equal labels, else 1 (labels may be any hashable);
    * ``"ordinal"``: the squared count of values ranked between the two
      (values must be mutually comparable; their sort order is the scale);
    * ``"interval"``: ``(c - k) ** 2`` (numbers);
    * ``"ratio"``: ``((c - k) / (c + k)) ** 2`` (numbers >= 0).

    When no pairable values disagree, alpha is 1.0, including data holding a
    single value throughout.

    Raises:
        ValueError: an unknown level, rows of different lengths, fewer than
            two raters, no item with two or more labels, or a negative value
            at the ratio level.
        TypeError: a non-numeric value at the interval or ratio level,
            values that cannot be ordered at the ordinal level.

    >>> round(krippendorff_alpha([[1, 2, 3, 3], [1, 2, 3, 4]], level="nominal"), 3)
    0.696
    >>> round(krippendorff_alpha([[1, 2, None], [1, 3, 2]], level="interval"), 3)  # 1 - 3 * 2 / 22
    0.727
    """
    if level not in _LEVELS:
        raise ValueError(
            f"krippendorff_alpha() level must be one of {', '.join(map(repr, _LEVELS))}, got "
            f"{level!r}; use 'nominal' for unordered categories."
        )
    units = _pairable_units(reliability_data)
    totals: Counter[str] = Counter()
    for unit in units:
        totals.update(unit)
    _check_level_values(totals, level)
    n = sum(totals.values())
    delta = _difference(level, totals)
    observed = math.fsum(_within(unit, delta) / (sum(unit.values()) - 1) for unit in units)
    if observed == 0:
        return 1.0
    expected = _expected(totals, n, level, delta)
    return 1.0 - (n - 1) * observed / expected


# ---------------------------------------------------------------------------
# checks
# ---------------------------------------------------------------------------


def _is_missing(x: Any) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def _check_raters(rater_a: Any, rater_b: Any, who: str) -> tuple[list[Any], list[Any]]:
    a, b = _labels(rater_a, "rater_a", who), _labels(rater_b, "rater_b", who)
    if len(a) != len(b):
        raise ValueError(
            f"{who}() got {len(a)} labels from rater_a but {len(b)} from rater_b; both raters must "
            "label the same items, in the same order. Keep only the items both labelled, or use "
            "krippendorff_alpha with None for the missing labels."
        )
    if not a:
        raise ValueError(f"{who}() got no items; pass one label per item for each rater.")
    for i, (x, y) in enumerate(zip(a, b)):
        if _is_missing(x) or _is_missing(y):
            side = "rater_a" if _is_missing(x) else "rater_b"
            raise ValueError(
                f"{who}() item {i} has no label from {side} ({(x if side == 'rater_a' else y)!r}); it "
                "needs complete data. Drop the item, or use krippendorff_alpha, which allows "
                "missing labels."
            )
        for side, v in (("rater_a", x), ("rater_b", y)):
            try:
                hash(v)
            except TypeError:
                raise TypeError(
                    f"{who}() item {i} of {side} is an unhashable {type_name(v)} ({v!r:.40}); labels "
                    "must be hashable (str, int, tuple). Convert lists to tuples."
                ) from None
    return a, b


def _labels(rater: Any, name: str, who: str) -> list[Any]:
    if isinstance(rater, (str, bytes)) or not isinstance(rater, Iterable):
        raise TypeError(
            f"{who}() {name} is a {type_name(rater)}; pass a sequence with one label per item, "
            "e.g. ['pos', 'neg', 'pos']."
        )
    return list(rater)


def _scale(a: list[Any], b: list[Any], labels: Any, weights: str | None) -> list[Any]:
    """The labels of cohen_kappa in scale order: ``labels`` checked, else the sorted labels seen."""
    if labels is None:
        seen = list(dict.fromkeys(a + b))
        if weights is None:
            return seen  # unweighted kappa does not depend on the order
        return _sorted(
            seen,
            f"cohen_kappa(weights={weights!r}) needs the labels in scale order, "
            "but a mix of {kinds} cannot be sorted; pass labels=[...] from lowest "
            "to highest.",
        )
    order = _labels(labels, "labels", "cohen_kappa")
    if not order:
        raise ValueError("cohen_kappa() got labels=[]; list the labels to use, or pass None for all.")
    for i, label in enumerate(order):
        try:
            hash(label)
        except TypeError:
            raise TypeError(
                f"cohen_kappa() labels[{i}] is an unhashable {type_name(label)}; labels must be "
                "hashable (str, int, tuple)."
            ) from None
    repeated = [label for label, count in Counter(order).items() if count > 1]
    if repeated:
        raise ValueError(
            f"cohen_kappa() labels lists {repeated[0]!r} more than once; each label takes one "
            "position on the scale. Remove the repeats."
        )
    return order


def _sorted(values: Iterable[Any], message: str) -> list[Any]:
    """``sorted(values)``, or a TypeError whose ``message`` gets the mixed types as ``{kinds}``."""
    try:
        return sorted(values)
    except TypeError:
        kinds = ", ".join(sorted({type_name(v) for v in values}))
        raise TypeError(message.format(kinds=kinds)) from None


def _pairable_units(data: Any) -> list[Counter[str]]:
    """Per item, the counts of its non-missing values; items with fewer than two are dropped."""
    if isinstance(data, (str, bytes)) or not isinstance(data, Iterable):
        raise TypeError(
            f"krippendorff_alpha() reliability_data is a {type_name(data)}; pass one row per rater, "
            "each a sequence with one value per item (None for missing)."
        )
    rows = []
    for r, row in enumerate(data):
        if isinstance(row, (str, bytes)) or not isinstance(row, Iterable):
            raise TypeError(
                f"krippendorff_alpha() row {r} is a {type_name(row)}; each row is one rater's "
                "sequence of values, one per item."
            )
        rows.append(list(row))
    if len(rows) < 2:
        raise ValueError(
            f"krippendorff_alpha() got {len(rows)} rater row(s); agreement needs at least two. The "
            "data is one row per rater and one column per item (transpose item-major data)."
        )
    width = len(rows[0])
    for r, row in enumerate(rows):
        if len(row) != width:
            raise ValueError(
                f"krippendorff_alpha() row {r} has {len(row)} values but row 0 has {width}; every "
                "rater row needs one entry per item. Put None where a rater gave no label."
            )
    units = []
    for j in range(width):
        unit = Counter(row[j] for row in rows if not _is_missing(row[j]))
        if sum(unit.values()) >= 2:
            units.append(unit)
    if not units:
        raise ValueError(
            f"krippendorff_alpha() found no item with two or more values among {width} items and "
            f"{len(rows)} raters, so there is nothing to compare. Each item needs labels from at "
            "least two raters (None marks a missing one)."
        )
    return units


def _check_level_values(totals: Counter[str], level: str) -> None:
    if level == "nominal":
        return
    if level == "ordinal":
        _sorted(
            totals,
            "krippendorff_alpha(level='ordinal') needs values that can be ordered, got "
            "a mix of {kinds}; map the labels onto ranks (e.g. 1..5) first.",
        )
        return
    for v in totals:
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise TypeError(
                f"krippendorff_alpha(level={level!r}) needs numbers, got the {type_name(v)} "
                f"{v!r:.40}; use level='nominal' or 'ordinal' for labels."
            )
        if level == "ratio" and v < 0:
            raise ValueError(
                f"krippendorff_alpha(level='ratio') needs values >= 0 (a ratio scale has a true "
                f"zero), got {v!r}; use level='interval' for data that can be negative."
            )


# ---------------------------------------------------------------------------
# the maths
# ---------------------------------------------------------------------------


def _expected_cost(counts_a: list[int], counts_b: list[int], weights: str | None) -> int:
    """Sum over all label pairs ``(i, j)`` of ``cost(i, j) * counts_a[i] * counts_b[j]``, in O(labels)."""
    n = sum(counts_a)
    if weights is None:
        return n * n - sum(x * y for x, y in zip(counts_a, counts_b))
    s1a = sum(i * c for i, c in enumerate(counts_a))
    if weights == "quadratic":
        s1b = sum(i * c for i, c in enumerate(counts_b))
        s2a = sum(i * i * c for i, c in enumerate(counts_a))
        s2b = sum(i * i * c for i, c in enumerate(counts_b))
        return n * s2a + n * s2b - 2 * s1a * s1b
    total, below, below_sum = 0, 0, 0  # linear: split |i - j| at j, with running sums below j
    for j, cb in enumerate(counts_b):
        if cb:
            total += cb * ((j * below - below_sum) + (s1a - below_sum) - j * (n - below))
        below += counts_a[j]
        below_sum += j * counts_a[j]
    return total


def _difference(level: str, totals: Counter[str]) -> Callable[[Any, Any], float]:
    """The squared difference function of ``level`` (``0`` for equal values)."""
    if level == "nominal":
        return lambda c, k: 0.0 if c == k else 1.0
    if level == "interval":
        return lambda c, k: float(c - k) ** 2
    if level == "ratio":
        return lambda c, k: 0.0 if c == k else ((c - k) / (c + k)) ** 2
    # ordinal: values between c and k (inclusive) counted, minus half of each end
    ranked = sorted(totals)
    cumulative, running = {}, 0
    for v in ranked:
        running += totals[v]
        cumulative[v] = running  # count of values ranked at or below v

    def ordinal(c: Any, k: Any) -> float:
        if c == k:
            return 0.0
        lo, hi = (c, k) if c < k else (k, c)
        between = cumulative[hi] - cumulative[lo] + totals[lo]
        return (between - (totals[c] + totals[k]) / 2) ** 2

    return ordinal


def _within(unit: Counter[str], delta: Callable[[Any, Any], float]) -> float:
    """Sum of the difference over ordered pairs of distinct raters' values within one item."""
    values = list(unit.items())
    total = 0.0
    for i, (c, m_c) in enumerate(values):
        for k, m_k in values[i + 1 :]:
            total += 2 * m_c * m_k * delta(c, k)
    return total


def _expected(totals: Counter[str], n: int, level: str, delta: Callable[[Any, Any], float]) -> float:
    """Sum over ordered pairs of all pairable values of their difference."""
    if level == "nominal":
        return float(n * n - sum(c * c for c in totals.values()))
    if level == "interval":
        s1 = math.fsum(m * float(v) for v, m in totals.items())
        s2 = math.fsum(m * float(v) ** 2 for v, m in totals.items())
        return 2 * n * s2 - 2 * s1 * s1
    return _within(totals, delta)
