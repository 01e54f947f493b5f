"""ek.compare's paired interval: the symmetric bootstrap-t of B - A (issue 30 item 1).

The interval is worked here in numpy from its definition, with every
replicate's weights from the pure-Python `weight` (CER and micro-F1); its
p-value is checked against the interval at every level; summaries and merges
are checked against the serial comparison; hypothesis checks that swapping
the runs negates the interval and that equal runs give one holding 0; and a
small seeded cell of scripts/compare_grid.py checks the coverage.
"""

from __future__ import annotations

import dataclasses
import math
import pathlib
import sys

import pytest

import ek
from ek import _bootstrap
from ek._bootstrap import weight
from ek._bootstrap._bounds import Studentised, cross_table
from ek._bootstrap._pairs import paired_sums
from ek.base import Score
from ek.metrics import SummedStatistics

np = pytest.importorskip("numpy")
hypothesis = pytest.importorskip("hypothesis")
st = hypothesis.strategies

SCRIPTS = pathlib.Path(__file__).resolve().parents[1] / "scripts"


def _grid():  # scripts/ is not a package: the grids are imported from their files
    sys.path.insert(0, str(SCRIPTS))
    try:
        import compare_grid
        import coverage_grid
    finally:
        sys.path.remove(str(SCRIPTS))
    return coverage_grid, compare_grid


def cer_pair(edits_a, edits_b, lengths, ids=None):
    """Two CER reports over the same documents: ``e`` of ``l`` characters wrong in each."""
    gold = ["g" * int(n) for n in lengths]
    runs = [
        [("x" * int(e) + "g" * int(n - e), g) for e, n, g in zip(edits, lengths, gold)] for edits in (edits_a, edits_b)
    ]
    ids = ids or [f"d{i}" for i in range(len(gold))]
    return tuple(ek.evaluate(run, metric="cer", ids=ids) for run in runs)


def by_hand(num_a, den_a, num_b, den_b, ids, level):
    """The symmetric bootstrap-t of ``r_B - r_A`` for ratios ``Σ num / Σ den``, from its definition.

    In every replicate (weights ``w`` of `weight`), each run's linearised
    term ``z = (num - r den) / Σw den``, ``se* = sqrt(Σw (z_B - z_A)²)`` and
    ``|t*| = |Δ* - Δ| / se*``; the interval is ``Δ ± q se`` at numpy's
    ``level`` quantile ``q`` of ``|t*|``, within the replicates' ``Δ*``.
    """
    w = np.array([[weight(i, b) for i in ids] for b in range(_bootstrap.REPLICATES)], dtype=float)
    one = np.ones((1, len(ids)))

    def terms(w, num, den):
        r = (w @ num) / (w @ den)
        return r, (num - r[:, None] * den) / (w @ den)[:, None]

    (ra, za), (rb, zb) = terms(w, num_a, den_a), terms(w, num_b, den_b)
    (r0a, z0a), (r0b, z0b) = terms(one, num_a, den_a), terms(one, num_b, den_b)
    delta = float((r0b - r0a)[0])
    se0 = math.sqrt(float(((z0b - z0a) ** 2).sum()))
    t = np.abs(rb - ra - delta) / np.sqrt((w * (zb - za) ** 2).sum(axis=1))
    q = float(np.quantile(t, level))
    return max(delta - q * se0, float((rb - ra).min())), min(delta + q * se0, float((rb - ra).max()))


def test_the_cer_interval_is_the_symmetric_bootstrap_t_worked_by_hand():
    rng = np.random.default_rng(1)
    n = 45
    lengths = rng.integers(5, 80, n)
    ea, eb = rng.binomial(lengths, 0.1), rng.binomial(lengths, 0.07)
    a, b = cer_pair(ea, eb, lengths)
    ids = list(a.detail["ids"])
    for level in (0.9, 0.95):
        expect = by_hand(ea.astype(float), lengths * 1.0, eb.astype(float), lengths * 1.0, ids, level)
        assert ek.compare(a, b, level).interval == pytest.approx(expect, rel=1e-10)


def test_the_micro_f1_interval_is_the_symmetric_bootstrap_t_worked_by_hand():
    coverage_grid, _ = _grid()
    rng = np.random.default_rng(2)
    n = 60
    entities = rng.integers(1, 12, n)
    tables = []
    for found in (0.8, 0.9):
        tp = rng.binomial(entities, found)
        tables.append(np.stack([tp, rng.poisson(0.1 * entities), entities - tp], axis=1))
    a, b = (coverage_grid.report("f1", t, np.arange(n)) for t in tables)
    ids = list(a.detail["ids"])
    (ta, fa, na), (tb, fb, nb) = (t.T.astype(float) for t in tables)  # F1 = 2TP / (2TP + FP + FN)
    expect = by_hand(2 * ta, 2 * ta + fa + na, 2 * tb, 2 * tb + fb + nb, ids, 0.95)
    assert ek.compare(a, b).interval == pytest.approx(expect, rel=1e-10)


def test_the_p_value_is_under_one_minus_the_level_exactly_when_the_interval_excludes_0():
    rng = np.random.default_rng(3)
    lengths = rng.integers(10, 90, 80)
    a, b = cer_pair(rng.binomial(lengths, 0.06), rng.binomial(lengths, 0.045), lengths)
    p = _bootstrap.compare(a, b, 0.95)["p_value"]
    assert 0.001 < p < 0.5
    for level in (0.5, 0.8, 0.9, 1 - p - 1e-6, 1 - p + 1e-6, 0.95, 0.99):
        low, high = _bootstrap.compare(a, b, level)["interval"]
        assert (low > 0 or high < 0) == (p < 1 - level), level
    low, high = _bootstrap.compare(a, b, 1 - p)["interval"]
    assert min(abs(low), abs(high)) < 1e-12  # at level 1 - p the interval ends at 0


def test_the_p_value_has_the_floor_of_the_replicates_when_all_lie_on_one_side():
    s = Studentised(-0.5, 0.2, (0.5, 1.0, 2.0, 3.0), (-0.9, -0.1))
    assert s.p_value() == 1 / 4 and s.interval(0.99) == (-0.9, -0.1)  # -0.5 ± 2.97 * 0.2, clipped
    assert Studentised(0.075, 0.1, (0.5, 1.0, 2.0, 3.0), (-0.2, 0.4)).p_value() == pytest.approx(
        1 - 0.5 / 3
    )  # |t0| = 0.75
    assert Studentised(0.0, 0.1, (0.5, 1.0), (-0.2, 0.4)).p_value() == 1.0


def test_the_percentile_method_stays_and_a_bad_method_is_refused():
    rng = np.random.default_rng(4)
    lengths = rng.integers(10, 90, 50)
    a, b = cer_pair(rng.binomial(lengths, 0.06), rng.binomial(lengths, 0.05), lengths)
    sa, sb = _bootstrap.resampled(a), _bootstrap.resampled(b)
    d = np.array(sb.values()) - np.array(sa.values())
    percentile = _bootstrap.compare(a, b, 0.9, method="percentile")
    assert percentile["interval"] == _bootstrap.interval_of(d, 0.9)
    with pytest.raises(
        ValueError, match=r"^compare\(\) method must be one of \('student', 'percentile'\), got 'bca'\.$"
    ):
        _bootstrap.compare(a, b, method="bca")


def test_merged_parts_compare_as_the_whole_and_summaries_keep_the_percentile_interval():
    rng = np.random.default_rng(5)
    lengths = rng.integers(10, 90, 70)
    ea, eb = rng.binomial(lengths, 0.06), rng.binomial(lengths, 0.04)
    a, b = cer_pair(ea, eb, lengths)
    parts = [
        cer_pair(ea[s], eb[s], lengths[s], ids=[f"d{i}" for i in range(70)][s]) for s in (slice(0, 30), slice(30, 70))
    ]
    whole = ek.compare(a, b)
    assert ek.compare(ek.merge_reports(parts[0][0], parts[1][0]), ek.merge_reports(parts[0][1], parts[1][1])) == whole
    # The cross sums of A's and B's statistics add up over the parts, exactly (integers).
    crosses = [paired_sums(*p)[2][0] for p in parts]
    assert np.array_equal(crosses[0] + crosses[1], paired_sums(a, b)[2][0])
    assert crosses[0].dtype.kind == "i"
    # Summaries keep no items, so no cross sums: their comparison is the serial percentile one, merged or not.
    percentile = ek.base.Comparison(**_bootstrap.compare(a, b, method="percentile"))
    summaries = [[_bootstrap.summarize(r) for r in p] for p in parts]
    merged = [ek.merge_reports(summaries[0][k], summaries[1][k]) for k in (0, 1)]
    assert ek.compare(*map(_bootstrap.summarize, (a, b))) == percentile == ek.compare(*merged)
    assert whole.interval != percentile.interval and whole.delta == percentile.delta


def test_slices_get_their_own_studentised_interval():
    rng = np.random.default_rng(6)
    lengths = rng.integers(10, 90, 100)
    ea, eb = rng.binomial(lengths, 0.06), rng.binomial(lengths, 0.04)
    labels = ["x"] * 50 + ["y"] * 50
    gold = ["g" * int(n) for n in lengths]
    a, b = (
        ek.evaluate([("x" * int(e) + g[int(e) :], g, s) for e, g, s in zip(edits, gold, labels)], metric="cer")
        for edits in (ea, eb)
    )
    c = ek.compare(a, b)
    ids = list(range(100))  # no ids given: the positions
    for label, rows in (("x", slice(0, 50)), ("y", slice(50, 100))):
        f = lambda v: v[rows].astype(float)  # noqa: E731
        expect = by_hand(f(ea), f(lengths), f(eb), f(lengths), ids[rows], 0.95)
        assert c.per_slice[label]["interval"] == pytest.approx(expect, rel=1e-10)


def test_cross_table_is_every_product_of_a_and_b_statistics():
    a, b = np.array([[1, 2], [3, 4]]), np.array([[5, 6], [7, 8]])
    assert cross_table(a, b).tolist() == [[5, 6, 10, 12], [21, 24, 28, 32]]
    assert cross_table(a * 1.5, b).dtype.kind == "f" and cross_table(a, b).dtype.kind == "i"


documents = st.lists(
    st.tuples(st.integers(1, 60), st.integers(0, 60), st.integers(0, 60)), min_size=40, max_size=60
).map(lambda rows: [(n, min(e, n), min(f, n)) for n, e, f in rows])


@hypothesis.settings(max_examples=25, deadline=None)
@hypothesis.given(documents)
def test_swapping_the_runs_negates_the_interval(rows):
    lengths, ea, eb = (np.array(c) for c in zip(*rows))
    a, b = cer_pair(ea, eb, lengths)
    ab, ba = ek.compare(a, b), ek.compare(b, a)
    assert ba.interval == pytest.approx((-ab.interval[1], -ab.interval[0]), rel=1e-9, abs=1e-15)
    assert ba.p_value == pytest.approx(ab.p_value, rel=1e-9) and ba.delta == -ab.delta


@hypothesis.settings(max_examples=25, deadline=None)
@hypothesis.given(documents)
def test_equal_runs_give_an_interval_holding_0(rows):
    lengths, ea, _ = (np.array(c) for c in zip(*rows))
    a, b = cer_pair(ea, ea, lengths)
    c = ek.compare(a, b)
    assert c.interval[0] <= 0 <= c.interval[1] and c.verdict == "no detectable difference"
    same = dataclasses.replace(a)
    assert ek.compare(a, same).interval == (0.0, 0.0)


def test_a_light_cell_of_the_compare_grid_covers():
    _, compare_grid = _grid()
    cells = {c.method: c for c in compare_grid.cell("cer", "lognormal 0.5", 50, "unequal", 300, seed=0, levels=(0.9,))}
    student, percentile = cells["student"], cells["percentile"]
    # 300 audits: the coverage's standard error is 1.7 points; the seeded figures are 88.6% and 86.2%.
    assert student.flagged < 0.05 and student.unflagged_coverage >= 0.865
    assert student.unflagged_coverage > percentile.unflagged_coverage and 1.0 < student.width_ratio < 1.1


class SquaredRate(SummedStatistics):
    """A figure that is no ratio of sums, ``(Σx / Σy)²``: its comparison keeps the percentile interval."""

    name = "squared_rate"
    higher_is_better = False
    statistics = ("x", "y")

    @staticmethod
    def compute(t):
        return (t["x"] / t["y"]) ** 2 if t["y"] else 0.0

    def __call__(self, pred, gold, *, grammar=None):
        return Score((pred / gold) ** 2, metric=self.name, detail={"x": pred, "y": gold})


def test_a_figure_that_is_no_ratio_of_sums_keeps_the_percentile_interval():
    rng = np.random.default_rng(7)
    gold = rng.integers(10, 90, 60).tolist()
    runs = [[(int(rng.binomial(g, p)), g) for g in gold] for p in (0.1, 0.08)]
    a, b = (ek.evaluate(run, metric=SquaredRate()) for run in runs)
    assert ek.compare(a, b) == ek.base.Comparison(**_bootstrap.compare(a, b, method="percentile"))


def test_the_interval_is_the_same_whatever_was_made_before_and_in_whatever_order_b_lists_its_items():
    rng = np.random.default_rng(8)
    lengths = rng.integers(10, 90, 60)
    ea, eb = rng.binomial(lengths, 0.06), rng.binomial(lengths, 0.045)
    ids = [f"d{i}" for i in range(60)]
    fresh = ek.compare(*cer_pair(ea, eb, lengths, ids=ids))
    a, b = cer_pair(ea, eb, lengths, ids=ids)
    a.interval(), b.interval()  # their own sums and products made first: compare adds the cross sums alone
    assert ek.compare(a, b) == fresh
    order = rng.permutation(60)
    _, shuffled = cer_pair(ea[order], eb[order], lengths[order], ids=[ids[i] for i in order])
    assert ek.compare(a, shuffled) == fresh
