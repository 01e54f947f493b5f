"""Inter-annotator agreement (ek.harness._agreement, public through ek.harness).

Reference numbers come from hand-worked examples in Krippendorff (2011),
"Computing Krippendorff's Alpha-Reliability", from scikit-learn's
``cohen_kappa_score`` and from the ``krippendorff`` package.
"""

from __future__ import annotations

import math
import random
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ek.harness import cohen_kappa, krippendorff_alpha, percent_agreement

NAN = float("nan")

# Krippendorff (2011), section C: 4 observers, 12 units, missing values.
CLASSIC = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
]


# ---------------------------------------------------------------------------
# percent agreement and Cohen's kappa
# ---------------------------------------------------------------------------


def test_percent_agreement_counts_identical_labels():
    assert percent_agreement(["a", "b", "b", "c"], ["a", "b", "c", "c"]) == 0.75
    assert percent_agreement([1, 2], [2, 1]) == 0.0


def test_cohen_kappa_textbook_two_by_two():
    # 50 items: yes/yes 20, yes/no 5, no/yes 10, no/no 15.
    # p_o = 35/50 = 0.7; A says yes 25/50, B 30/50, so p_e = .5*.6 + .5*.4 = 0.5;
    # kappa = (0.7 - 0.5) / (1 - 0.5) = 0.4.
    a = ["y"] * 25 + ["n"] * 25
    b = ["y"] * 20 + ["n"] * 5 + ["y"] * 10 + ["n"] * 15
    assert cohen_kappa(a, b) == pytest.approx(0.4)


def test_cohen_kappa_disjoint_single_labels_is_zero():
    # Each rater uses one label, but not the same one: p_o = p_e = 0, kappa = 0.
    assert cohen_kappa(["a", "a"], ["b", "b"]) == 0.0


@pytest.mark.parametrize("seed", range(12))
def test_cohen_kappa_matches_sklearn(seed):
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    rng = random.Random(seed)
    labels = ["cat", "dog", "bird", "fish"][: rng.randint(2, 4)]
    n = rng.randint(5, 80)
    a = [rng.choice(labels) for _ in range(n)]
    b = [x if rng.random() < 0.6 else rng.choice(labels) for x in a]
    if len(set(a) | set(b)) < 2:
        b[0] = labels[1] if a[0] == labels[0] else labels[0]
    expected = sklearn_metrics.cohen_kappa_score(a, b)
    assert cohen_kappa(a, b) == pytest.approx(expected, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from("abcd"), min_size=2, max_size=40).filter(lambda xs: len(set(xs)) > 1))
def test_kappa_of_identical_raters_is_one(labels):
    assert cohen_kappa(labels, list(labels)) == 1.0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("abc"), st.sampled_from("abc")), min_size=2, max_size=40))
def test_kappa_is_symmetric_and_bounded(pairs):
    a, b = [p[0] for p in pairs], [p[1] for p in pairs]
    try:
        k = cohen_kappa(a, b)
    except ValueError:  # a single shared category: undefined
        assert len(set(a) | set(b)) == 1
        return
    assert k == pytest.approx(cohen_kappa(b, a))
    assert -1.0 <= k <= 1.0


def test_raters_of_unequal_length_are_refused():
    with pytest.raises(ValueError, match=r"3 labels from rater_a but 2 from rater_b"):
        cohen_kappa(["a", "b", "a"], ["a", "b"])
    with pytest.raises(ValueError, match=r"same items, in the same order"):
        percent_agreement([1], [1, 2])


def test_kappa_of_a_single_category_is_undefined_not_nan():
    with pytest.raises(ValueError, match=r"undefined.*single label 'yes'.*percent_agreement"):
        cohen_kappa(["yes"] * 5, ["yes"] * 5)


def test_kappa_refuses_missing_labels():
    with pytest.raises(ValueError, match=r"item 1 has no label from rater_b.*krippendorff_alpha"):
        cohen_kappa(["a", "b"], ["a", None])
    with pytest.raises(ValueError, match=r"item 0 has no label from rater_a"):
        percent_agreement([NAN], [1.0])


def test_agreement_refuses_empty_and_string_raters():
    with pytest.raises(ValueError, match=r"no items"):
        cohen_kappa([], [])
    with pytest.raises(TypeError, match=r"rater_a is a str.*one label per item"):
        percent_agreement("abc", "abd")


def test_kappa_refuses_unhashable_labels():
    with pytest.raises(TypeError, match=r"unhashable list.*tuples"):
        cohen_kappa([["a"], ["b"]], [["a"], ["b"]])


# ---------------------------------------------------------------------------
# Krippendorff's alpha
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "level, published",
    [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849), ("ratio", 0.797)],
)
def test_alpha_classic_four_coders_twelve_units(level, published):
    # Krippendorff (2011) section C gives these to three decimals; unit 12 has
    # one value only and drops out.
    assert round(krippendorff_alpha(CLASSIC, level=level), 3) == published


def test_alpha_classic_nominal_exact_fraction():
    # By hand: unit 12 drops out, leaving n = 40 pairable values with counts
    # 9, 13, 10, 5, 3 for the values 1..5. Only units 2 (2,2,3,2), 6 (1,2,3,4)
    # and 8 (1,1,2,1) disagree; their off-diagonal coincidences, each divided
    # by m_u - 1 = 3, are 6/3 + 12/3 + 6/3 = 8. Expected: 40**2 - (81 + 169 +
    # 100 + 25 + 9) = 1216. alpha = 1 - 39 * 8 / 1216 = 113 / 152.
    assert krippendorff_alpha(CLASSIC) == pytest.approx(113 / 152, abs=1e-12)


def test_alpha_binary_two_coders_ten_units():
    # Krippendorff (2011) section A: binary data, two coders, alpha = 0.095.
    # By hand: n = 20 values (14 zeros, 6 ones); 4 units disagree, each adding
    # 2 off-diagonal coincidences -> 8; expected = 20**2 - (14**2 + 6**2) = 168;
    # alpha = 1 - 19 * 8 / 168 = 0.0952.
    a = [0, 1, 0, 0, 0, 0, 0, 0, 1, 0]
    b = [1, 1, 1, 0, 0, 1, 0, 0, 0, 0]
    assert krippendorff_alpha([a, b]) == pytest.approx(1 - 19 * 8 / 168)
    assert round(krippendorff_alpha([a, b]), 3) == 0.095


def test_alpha_interval_hand_worked_with_missing_value():
    # Units (1, 1) and (2, 3); the third unit has a single value and drops out.
    # Pairable values 1, 1, 2, 3 (n = 4). Observed: unit 2 gives (2-3)^2 twice -> 2.
    # Expected: 2 * [n1*n2*1 + n1*n3*4 + n2*n3*1] = 2 * (2 + 8 + 1) = 22.
    # alpha = 1 - (n - 1) * 2 / 22 = 16 / 22.
    data = [[1, 2, None], [1, 3, 2]]
    assert krippendorff_alpha(data, level="interval") == pytest.approx(16 / 22)
    # Nominal on the same data: expected = 16 - (4 + 1 + 1) = 10 -> 1 - 3 * 2 / 10.
    assert krippendorff_alpha(data, level="nominal") == pytest.approx(0.4)


def test_alpha_nan_counts_as_missing():
    with_none = [[1, 2, None], [1, 3, 2]]
    with_nan = [[1.0, 2.0, NAN], [1.0, 3.0, 2.0]]
    assert krippendorff_alpha(with_nan, level="interval") == krippendorff_alpha(with_none, level="interval")


def test_alpha_perfect_agreement_is_one():
    assert krippendorff_alpha([[1, 1, 1, 1], [1, 1, 1, 1]]) == 1.0
    assert krippendorff_alpha([["a", "b", None], ["a", "b", "c"]], level="nominal") == 1.0


def test_alpha_systematic_disagreement_is_negative():
    assert krippendorff_alpha([[1, 2, 1, 2], [2, 1, 2, 1]]) < 0


def _random_data(rng: random.Random, level: str) -> list:
    raters, units = rng.randint(2, 5), rng.randint(3, 25)
    values = [1, 2, 3, 4, 5] if level != "ratio" else [0, 1, 2, 5, 10]
    truth = [rng.choice(values) for _ in range(units)]
    data = [
        [None if rng.random() < 0.2 else (t if rng.random() < 0.7 else rng.choice(values)) for t in truth]
        for _ in range(raters)
    ]
    data[0][0] = data[1][0] = values[0]  # at least one pairable unit
    data[0][1], data[1][1] = values[0], values[-1]  # and some disagreement
    return data


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
@pytest.mark.parametrize("seed", range(6))
def test_alpha_matches_krippendorff_package(level, seed):
    krippendorff = pytest.importorskip("krippendorff")
    data = _random_data(random.Random(seed * 31 + len(level)), level)
    as_float = [[NAN if v is None else float(v) for v in row] for row in data]
    expected = krippendorff.alpha(reliability_data=as_float, level_of_measurement=level)
    assert krippendorff_alpha(data, level=level) == pytest.approx(expected, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.lists(st.one_of(st.none(), st.sampled_from("abcd")), min_size=6, max_size=6),
        min_size=2,
        max_size=4,
    ),
    st.permutations("wxyz"),
)
def test_nominal_alpha_is_invariant_to_relabelling(rows, new_names):
    rename = dict(zip("abcd", new_names))
    relabelled = [[None if v is None else rename[v] for v in row] for row in rows]
    try:
        before = krippendorff_alpha(rows)
    except ValueError:  # no item with two values
        with pytest.raises(ValueError):
            krippendorff_alpha(relabelled)
        return
    assert krippendorff_alpha(relabelled) == pytest.approx(before, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.integers(0, 9), min_size=5, max_size=5), min_size=2, max_size=4))
def test_alpha_at_most_one(rows):
    for level in ("nominal", "ordinal", "interval"):
        assert krippendorff_alpha(rows, level=level) <= 1.0 + 1e-12


def test_alpha_needs_two_values_in_some_unit():
    with pytest.raises(ValueError, match=r"no item with two or more values.*at least two raters"):
        krippendorff_alpha([[1, None, 3], [None, 2, None]])


def test_alpha_needs_two_raters():
    with pytest.raises(ValueError, match=r"1 rater row\(s\).*at least two"):
        krippendorff_alpha([[1, 2, 3]])


def test_alpha_rows_must_have_equal_length():
    with pytest.raises(ValueError, match=r"row 1 has 2 values but row 0 has 3.*None"):
        krippendorff_alpha([[1, 2, 3], [1, 2]])


def test_alpha_unknown_level():
    with pytest.raises(ValueError, match=r"level must be one of .*'nominal'.*got 'binary'"):
        krippendorff_alpha([[1, 2], [1, 2]], level="binary")


def test_alpha_interval_needs_numbers():
    with pytest.raises(TypeError, match=r"level='interval'\) needs numbers, got the str"):
        krippendorff_alpha([["a", "b"], ["a", "c"]], level="interval")


def test_alpha_ratio_refuses_negative_values():
    with pytest.raises(ValueError, match=r"ratio.*values >= 0.*got -1"):
        krippendorff_alpha([[-1, 2], [1, 2]], level="ratio")


def test_alpha_ordinal_needs_orderable_values():
    with pytest.raises(TypeError, match=r"ordinal.*can be ordered"):
        krippendorff_alpha([["a", 1], ["a", 2]], level="ordinal")


def test_alpha_refuses_a_flat_list():
    with pytest.raises(TypeError, match=r"row 0 is a int"):
        krippendorff_alpha([1, 2, 3])


def test_alpha_public_path():
    assert krippendorff_alpha.__module__ == "ek.harness"
    assert math.isclose(krippendorff_alpha([[1, 2, 3], [1, 2, 3]], level="ratio"), 1.0)


# ---------------------------------------------------------------------------
# weighted kappa and labels=, against scikit-learn
# ---------------------------------------------------------------------------


@st.composite
def rated_items(draw):
    scale = draw(st.integers(2, 6))
    n = draw(st.integers(1, 40))
    a = draw(st.lists(st.integers(0, scale - 1), min_size=n, max_size=n))
    b = draw(st.lists(st.integers(0, scale - 1), min_size=n, max_size=n))
    labels = None
    if draw(st.booleans()):  # an explicit order, possibly a subset, with unseen labels
        pool = list(range(scale + 1))
        labels = draw(st.permutations(pool))[: draw(st.integers(1, len(pool)))]
    return a, b, labels


@settings(max_examples=300, deadline=None)
@given(rated_items(), st.sampled_from([None, "linear", "quadratic"]))
def test_cohen_kappa_equals_sklearn_with_weights_and_labels(items, weights):
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    a, b, labels = items
    kept = [(x, y) for x, y in zip(a, b) if labels is None or (x in labels and y in labels)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # sklearn warns (and returns nan) where kappa is 0/0
        try:
            expected = sklearn_metrics.cohen_kappa_score(a, b, labels=labels, weights=weights)
        except ValueError:  # sklearn: no label of `labels` in rater a
            expected = None
    if not kept or expected is None or math.isnan(expected):
        with pytest.raises(ValueError, match="undefined|nothing to compare"):
            cohen_kappa(a, b, labels=labels, weights=weights)
    else:
        assert cohen_kappa(a, b, labels=labels, weights=weights) == pytest.approx(expected, rel=1e-9, abs=1e-12)


def test_weighted_kappa_hand_values():
    a, b = [1, 2, 3, 3], [1, 3, 3, 2]
    # positions 0,1,2; observed distances 0,1,0,1; both raters' counts (1, 1, 2).
    # quadratic: observed 2, expected sum (i-j)^2 * ca_i * cb_j = 22 -> 1 - 4 * 2 / 22
    assert cohen_kappa(a, b, weights="quadratic") == 1 - 8 / 22
    # linear: observed 2, expected 14 -> 1 - 4 * 2 / 14
    assert cohen_kappa(a, b, weights="linear") == pytest.approx(1 - 8 / 14, abs=1e-15)


def test_labels_order_is_the_scale():
    a = ["low", "mid", "high", "high", "mid"]
    b = ["mid", "mid", "high", "mid", "low"]
    scale = ["low", "mid", "high"]
    as_ranks = {label: i for i, label in enumerate(scale)}
    ranked = cohen_kappa([as_ranks[x] for x in a], [as_ranks[x] for x in b], weights="linear")
    assert cohen_kappa(a, b, labels=scale, weights="linear") == ranked
    # sorted() puts "high" < "low" < "mid": a different scale, a different value
    assert cohen_kappa(a, b, weights="linear") != ranked
    # unweighted kappa does not depend on the order
    assert cohen_kappa(a, b, labels=scale[::-1]) == cohen_kappa(a, b)


def test_labels_select_a_subset_of_items():
    a, b = ["x", "y", "z", "x"], ["x", "y", "x", "z"]
    assert cohen_kappa(a, b, labels=["x", "y"]) == cohen_kappa(["x", "y"], ["x", "y"]) == 1.0


def test_bad_weights_and_labels_are_refused():
    with pytest.raises(ValueError, match=r"weights must be None, 'linear' or 'quadratic', got 'cubic'"):
        cohen_kappa([1, 2], [1, 2], weights="cubic")
    with pytest.raises(ValueError, match="lists 2 more than once"):
        cohen_kappa([1, 2], [1, 2], labels=[1, 2, 2])
    with pytest.raises(ValueError, match=r"labels=\[\]"):
        cohen_kappa([1, 2], [1, 2], labels=[])
    with pytest.raises(ValueError, match="none of the 2 items .* nothing to compare"):
        cohen_kappa([1, 2], [1, 2], labels=[7])
    with pytest.raises(TypeError, match=r"labels\[0\] is an unhashable list"):
        cohen_kappa([1, 2], [1, 2], labels=[[1], 2])
    with pytest.raises(TypeError, match=r"cannot be sorted; pass labels=\[\.\.\.\]"):
        cohen_kappa([1, "a"], ["a", 1], weights="linear")
    assert cohen_kappa([1, "a"], ["a", 1], labels=[1, "a"], weights="linear") == -1.0
