"""Tests for ek.metrics.tables: Table/Cell, TEDS/TEDS-Struct and GriTS-Con/GriTS-Top."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ek
from ek.metrics import _table_scoring
from ek.metrics.tables import Cell, GritsMetric, Table, TedsMetric

A = "<table><tr><td>a</td><td>b</td></tr></table>"
B = "<table><tr><td>a</td><td>c</td></tr></table>"


# ---------------------------------------------------------------------------
# Table and Cell


def test_from_html_reads_spans_text_and_sections():
    t = Table.from_html(
        "<p>x</p><table><thead><tr><th colspan='2'>H &amp; x</th></tr></thead>"
        "<tbody><tr><td rowspan=2>a<br>b</td><td> c  d </td></tr><tr><td>e</td></tr></tbody></table>"
    )
    assert t.rows == (
        (Cell("H & x", 1, 2),),
        (Cell("a b", 2, 1), Cell("c d")),
        (Cell("e"),),
    )


def test_from_html_is_lenient_about_implicit_closing():
    t = Table.from_html("<table><tr><td>a<td>b<tr><td>c")
    assert [[c.text for c in row] for row in t.rows] == [["a", "b"], ["c"]]


def test_nested_table_text_belongs_to_the_outer_cell():
    t = Table.from_html("<table><tr><td>x<table><tr><td>y</td></tr></table></td><td>z</td></tr></table>")
    assert [[c.text for c in row] for row in t.rows] == [["x y", "z"]]


def test_from_grid_infers_spans_from_none():
    t = Table.from_grid([["a", None, "b"], [None, None, "c"], ["d", "e", None]])
    # "c" comes before "e" in reading order, so it claims the None below it
    assert t.rows == ((Cell("a", 2, 2), Cell("b")), (Cell("c", 2, 1),), (Cell("d"), Cell("e")))
    assert Table.from_grid([[1, 2.5]]).rows == ((Cell("1"), Cell("2.5")),)


def test_as_grid_repeats_spanning_cells_and_pads_ragged_rows():
    t = Table([[Cell("a", 2, 1), Cell("b")], [Cell("c")], [Cell("d")]])
    grid = t.as_grid()
    assert [[c.text if c else None for c in row] for row in grid] == [["a", "b"], ["a", "c"], ["d", None]]
    assert grid[0][0] is grid[1][0]


def test_coerce():
    t = Table.from_grid([["a"]])
    assert Table.coerce(t) is t
    assert Table.coerce("<table><tr><td>a</td></tr></table>") == t
    assert Table.coerce([["a"]]) == t


def test_ocr_style_grid_round_trip():
    t = Table.from_grid([["a", "b"], ["c", "d"]])
    assert [[c.text for c in row] for row in t.rows] == [["a", "b"], ["c", "d"]]


# ---------------------------------------------------------------------------
# hand-worked TEDS


def test_teds_spec_examples():
    assert TedsMetric()(A, B).value == 0.75  # 4 nodes, one cell text fully changed
    assert TedsMetric(structure_only=True)(A, B).value == 1.0


def test_teds_hand_worked_structure_cases():
    one_row = [["a", "b"]]
    # an extra column: insert one td in a 5-node tree
    assert TedsMetric(structure_only=True)(one_row, [["a", "b", "c"]]).value == pytest.approx(1 - 1 / 5)
    # a merged cell: rename the spanning td (1) and insert one td (1), over 4 nodes
    s = TedsMetric()([["a", None]], one_row)
    assert (s.detail["distance"], s.detail["max_distance"], s.value) == (2.0, 4, 0.5)
    # partial text: "abcd" -> "abcx" costs 1/4 on one cell, over 4 nodes
    assert TedsMetric()([["abcx", "b"]], [["abcd", "b"]]).value == pytest.approx(1 - 0.25 / 4)
    # a missing row of two cells: 3 insertions over the gold's 7 nodes
    assert TedsMetric()([["a", "b"]], [["a", "b"], ["c", "d"]]).value == pytest.approx(1 - 3 / 7)


def test_teds_split_row_is_cheaper_than_row_by_row():
    # gold has one row of four cells, pred splits it in two rows: the best edit
    # deletes both pred rows and inserts one (3), moving no cell.
    s = TedsMetric()([["a", "b"], ["c", "d"]], [["a", "b", "c", "d"]])
    assert s.detail["distance"] == 3.0


def test_teds_canonicalizer_applies_to_cell_text():
    assert TedsMetric(canonicalizer=str.lower)([["ABC"]], [["abc"]]).value == 1.0
    assert ek.score(Table.from_grid([["ABC"]]), Table.from_grid([["abc"]]), normalize="lower").value == 1.0


def test_teds_text_costs_without_numpy_match(monkeypatch):
    import sys

    pred, gold = [["abcx", "b"], ["kitten", ""]], [["abcd", "b"], ["sitting", "z"]]
    expected = TedsMetric()(pred, gold).detail["distance"]
    monkeypatch.setitem(sys.modules, "rapidfuzz.process", None)  # no cdist: pair by pair
    assert TedsMetric()(pred, gold).detail["distance"] == pytest.approx(expected)
    assert expected == pytest.approx(0.25 + 3 / 7 + 1)


def test_teds_aggregate_is_the_mean():
    m = TedsMetric()
    scores = [m(A, B), m(A, A)]
    assert m.aggregate(scores) == pytest.approx((0.75 + 1.0) / 2)
    r = ek.evaluate([(Table.coerce(A), Table.coerce(B)), (Table.coerce(A), Table.coerce(A))])
    assert r.metric == "teds" and r.aggregate == pytest.approx(0.875)
    with pytest.raises(ValueError, match="empty corpus has no aggregate"):
        m.aggregate([])


# ---------------------------------------------------------------------------
# cross-check TEDS against apted


cells = st.builds(
    Cell, st.sampled_from(["", "a", "ab", "b", "ba", "abc"]), st.sampled_from([1, 1, 2]), st.sampled_from([1, 1, 2])
)
tables = st.builds(Table, st.lists(st.lists(cells, max_size=4), max_size=4))


def apted_distance(pred: Table, gold: Table, *, structure_only: bool) -> float:
    pytest.importorskip("apted")
    from ek.metrics._apted_reference import apted_table_distance

    return apted_table_distance(pred, gold, structure_only=structure_only)


@settings(max_examples=300, deadline=None)
@given(tables, tables, st.booleans())
def test_teds_distance_matches_apted(pred, gold, structure_only):
    s = TedsMetric(structure_only=structure_only)(pred, gold)
    assert s.detail["distance"] == pytest.approx(apted_distance(pred, gold, structure_only=structure_only))


def _node_count(table: Table) -> int:
    """Nodes of the TEDS tree, counted by hand: the table, one per row, one per cell."""
    return 1 + len(table.rows) + sum(len(row) for row in table.rows)


def test_teds_divides_by_the_larger_tree_when_the_prediction_is_larger():
    # one row of three cells against one cell: delete two cells (2) over the
    # prediction's 5 nodes; dividing by the gold's 3 would give 1 - 2/3
    s = TedsMetric()([["a", "b", "c"]], [["a"]])
    assert s.detail["distance"] == 2.0
    assert s.value == pytest.approx(0.6)
    # 1x10 against 1x1: 9 deletions over 12 nodes, never below 0 (-2.0 over the gold's 3)
    wide = TedsMetric()([["a"] * 10], [["a"]])
    assert wide.value == pytest.approx(1 - 9 / 12)
    assert TedsMetric(structure_only=True)([["x"] * 10], [["a"]]).value == pytest.approx(1 - 9 / 12)
    # the same pair the other way round scores the same
    assert TedsMetric()([["a"]], [["a"] * 10]).value == pytest.approx(wide.value)


def test_teds_is_never_negative():
    # 6 nodes each side, but an empty row makes the least edit cost 7: delete the empty
    # row and one "a" row with its cell, rename the other "a" to "", insert three cells
    pred = Table([[], [Cell("a")], [Cell("a")]])
    gold = Table([[Cell("")] * 4])
    s = TedsMetric()(pred, gold)
    assert s.detail["distance"] == 7.0 == apted_distance(pred, gold, structure_only=False)
    assert s.value == 0.0 and s.detail["similarity"] == 0.0


@settings(max_examples=200, deadline=None)
@given(tables, tables, st.booleans())
def test_teds_is_one_minus_apted_over_the_larger_node_count(pred, gold, structure_only):
    value = TedsMetric(structure_only=structure_only)(pred, gold).value
    larger = max(_node_count(pred), _node_count(gold))
    assert 0.0 <= value <= 1.0
    assert value == pytest.approx(max(0.0, 1 - apted_distance(pred, gold, structure_only=structure_only) / larger))


@settings(max_examples=100, deadline=None)
@given(tables)
def test_identical_tables_score_one(table):
    for metric in (TedsMetric(), TedsMetric(structure_only=True), GritsMetric(), GritsMetric(structure_only=True)):
        s = metric(table, table)
        assert s.value == 1.0, metric.name


def test_table_tree_distance_on_empty_tables():
    def unit(a, b):
        return [[0.0] * len(b) for _ in a]

    assert _table_scoring.table_tree_distance([], [], unit) == 0.0
    assert _table_scoring.table_tree_distance([[]], [], unit) == 1.0
    assert _table_scoring.table_tree_distance([["x", "y"]], [], unit) == 3.0


# ---------------------------------------------------------------------------
# hand-worked GriTS


def test_grits_spec_examples():
    assert GritsMetric(structure_only=True)(A, B).value == 1.0
    s = GritsMetric()(A, B)  # 2 positions each, one identical, one fully different
    assert (s.detail["overlap_con"], s.detail["overlap_top"]) == (1.0, 2.0)
    # the default averages GriTS-Con (0.5) with GriTS-Top (1.0)
    assert (s.detail["overlap"], s.precision, s.recall, s.value) == (1.5, 0.75, 0.75, 0.75)


def test_grits_con_precision_and_recall_differ():
    s = GritsMetric()([["ab"]], [["ab", "c"]])
    assert s.detail["overlap"] == 1.0
    assert (s.precision, s.recall) == (1.0, 0.5)
    assert s.value == pytest.approx(2 / 3)


def test_grits_con_uses_lcs_similarity():
    s = GritsMetric()([["abcd"]], [["abxd"]])  # LCS 3 -> 2 * 3 / 8
    assert s.detail["overlap_con"] == pytest.approx(0.75)
    assert s.value == pytest.approx((0.75 + 1.0) / 2)


def test_grits_top_on_a_merged_cell():
    # gold covers both positions with one cell: boxes (0,0,2,1) and (-1,0,1,1);
    # pred has two unit cells; each position's IoU is 1/2.
    s = GritsMetric(structure_only=True)([["a", "b"]], [["a", None]])
    assert s.detail["overlap"] == pytest.approx(1.0)
    assert (s.precision, s.recall, s.value) == (0.5, 0.5, 0.5)


def test_grits_aggregate_pools_overlap_and_cells():
    m = GritsMetric()
    a = m([["ab"]], [["ab", "c"]])  # overlap 1 (content 1, topology 1), cells 1 and 2
    b = m(A, B)  # overlap 1.5 (content 1, topology 2), cells 2 and 2
    assert m.aggregate([a, b]) == pytest.approx(2 * 2.5 / (3 + 4))
    assert m.aggregate([a, b]) != pytest.approx((a.value + b.value) / 2)


def test_grits_empty_tables_agree():
    s = GritsMetric()(Table(), Table())
    assert (s.value, s.precision, s.recall) == (1.0, 1.0, 1.0)
    assert GritsMetric()(Table(), [["a"]]).value == 0.0


def _exact_mss(gold, pred, sim):
    """Best sum over all order-preserving row and column sub-alignments (tiny grids only)."""

    def alignments(n, m):
        for k in range(min(n, m) + 1):
            for a in itertools.combinations(range(n), k):
                for b in itertools.combinations(range(m), k):
                    yield list(zip(a, b))

    best = 0.0
    for rows in alignments(len(gold), len(pred)):
        for cols in alignments(len(gold[0]), len(pred[0])):
            best = max(best, sum(sim(gold[i][j], pred[k][l]) for i, k in rows for j, l in cols))
    return best


grids = st.integers(1, 3).flatmap(
    lambda c: st.lists(st.lists(st.sampled_from(["", "a", "ab", "b"]), min_size=c, max_size=c), min_size=1, max_size=3)
)


@settings(max_examples=150, deadline=None)
@given(grids, grids)
def test_factored_alignment_never_beats_the_exact_substructure(gold, pred):
    factored = _table_scoring.overlap(gold, pred, _table_scoring.lcs_similarity)
    assert factored <= _exact_mss(gold, pred, _table_scoring.lcs_similarity) + 1e-9
    if gold == pred:
        assert factored == pytest.approx(sum(len(r) for r in gold))


def test_lcs_fallback_matches_rapidfuzz():
    for a, b in [("", ""), ("abc", ""), ("kitten", "sitting"), ("abcd", "acbd")]:
        assert _table_scoring._py_lcs_length(a, b) == _table_scoring._lcs_length(a, b)


# ---------------------------------------------------------------------------
# registry, dispatch, bad input


def test_registered_names_and_dispatch():
    assert ek.get("metrics", "teds").name == "teds"
    assert ek.get("metrics", "teds_struct").structure_only is True
    assert ek.get("metrics", "grits").name == "grits"
    assert ek.get("metrics", "grits_top").structure_only is True
    t = Table.from_grid([["a"]])
    assert ek.score(t, t).metric == "teds"
    assert ek.score(A, B, metric="grits").value == 0.75


@pytest.mark.parametrize(
    "html, message",
    [
        ("<p>no table here</p>", "contains no <table> element"),
        ("<table><td>x</td></table>", r"<td> appears outside any <tr>"),
    ],
)
def test_html_that_does_not_parse(html, message):
    with pytest.raises(ValueError, match=message):
        Table.from_html(html)
    with pytest.raises(ValueError, match=message):
        TedsMetric()(html, A)


def test_bad_values_raise_with_a_message():
    with pytest.raises(ValueError, match=r"grid\[0\]\[0\] is None but no cell"):
        Table.from_grid([[None, "a"]])
    with pytest.raises(TypeError, match=r"grid\[0\]\[1\] is dict"):
        Table.from_grid([["a", {}]])
    with pytest.raises(TypeError, match="Cannot read a table from int"):
        TedsMetric()(3, A)
    with pytest.raises(ValueError, match="rowspan must be an int >= 1"):
        Cell("a", rowspan=0)
    with pytest.raises(TypeError, match=r"rows\[0\]\[0\] is str; rows hold Cell objects"):
        Table([["a"]])


# ---------------------------------------------------------------------------
# hostile markup, the size limit and the array engines (issues 10 and 11)


@pytest.mark.parametrize(
    "value, colspan, rowspan",
    [
        ("\u0663", 1, 1),  # ARABIC-INDIC DIGIT THREE: a digit to Python's int(), not to a browser
        ("\u00b2", 1, 1),  # a superscript two
        ("0", 1, 1),
        ("two", 1, 1),
        ("", 1, 1),
        ("-2", 1, 1),
        (" 3px", 3, 3),
        ("+2", 2, 2),
        ("0003", 3, 3),
        ("1000000", 1000, 65534),
        ("1" + "0" * 23, 1000, 65534),
        ("9" * 5000, 1000, 65534),  # more digits than int() reads by default
    ],
)
def test_span_attributes_are_read_as_browsers_read_them(value, colspan, rowspan):
    t = Table.from_html(f'<table><tr><td colspan="{value}" rowspan="{value}">x</td></tr></table>')
    assert (t.rows[0][0].colspan, t.rows[0][0].rowspan) == (colspan, rowspan)


def test_span_attribute_without_a_value_and_repeated_attributes():
    t = Table.from_html('<table><tr><td colspan>a</td><td colspan="2" colspan="5">b</td></tr></table>')
    assert [c.colspan for c in t.rows[0]] == [1, 2]  # the first of repeated attributes counts


def _naive_place(table):
    """The HTML placement position by position (the engine before the size limit)."""
    taken, placed = set(), []
    for r, row in enumerate(table.rows):
        c = 0
        for cell in row:
            while (r, c) in taken:
                c += 1
            placed.append((cell, r, c))
            taken |= {(rr, cc) for rr in range(r, r + cell.rowspan) for cc in range(c, c + cell.colspan)}
            c += cell.colspan
    return placed


@settings(max_examples=200, deadline=None)
@given(tables)
def test_layout_places_cells_as_html_does(table):
    from ek.metrics.tables import _layout

    layout = _layout(table, max_cells=10_000, label="t")
    placed = _naive_place(table)
    assert layout.placed == placed
    assert layout.n_rows == max([len(table.rows)] + [r + c.rowspan for c, r, _ in placed])
    assert layout.n_cols == max([0] + [k + c.colspan for c, _, k in placed])


def test_tables_over_the_size_limit_are_refused_before_any_work():
    huge = Table([[Cell("a", rowspan=10**9, colspan=10**9)]])
    wide = Table([[Cell("a", colspan=200)]] + [[Cell("b")]] * 99)  # 100 rows x 200 columns
    for metric in (TedsMetric(), TedsMetric(structure_only=True), GritsMetric(), GritsMetric(structure_only=True)):
        with pytest.raises(ValueError, match=r"the pred table has 1000000000 rows .* max_cells=10000"):
            metric(huge, [["a"]])
        with pytest.raises(ValueError, match=r"the gold table has 100 rows and at least 200 columns.*raise max_cells="):
            metric([["a"]], wide)
    with pytest.raises(ValueError, match="max_cells=10000"):
        huge.as_grid()
    # rowspan="1000000" is clamped to 65534 rows: refused, not a hang
    with pytest.raises(ValueError, match="65534 rows"):
        GritsMetric()('<table><tr><td rowspan="1000000">a</td></tr></table>', [["a"]])


def test_the_size_limit_admits_100x100_and_can_be_raised():
    square = Table.from_grid([[str(c) for c in range(100)] for _ in range(100)])
    assert len(square.as_grid()) == 100  # exactly at the limit
    taller = Table([[Cell("a")]] * 101 + [[Cell("b", colspan=100)]])
    with pytest.raises(ValueError, match="102 rows"):
        taller.as_grid()
    assert len(taller.as_grid(max_cells=10_200)) == 102
    assert TedsMetric(max_cells=20_000, structure_only=True)(taller, taller).value == 1.0
    with pytest.raises(ValueError, match="max_cells must be an int >= 1"):
        GritsMetric(max_cells=0)
    with pytest.raises(ValueError, match="max_cells must be an int >= 1"):
        TedsMetric(max_cells=True)


# --------------------------------------------------------------------------
# issue 20 item 6: the total text is bounded as well as the cell count
# --------------------------------------------------------------------------


TEXT_METRICS = (TedsMetric, GritsMetric)


@pytest.mark.parametrize("metric", TEXT_METRICS)
def test_text_over_max_chars_is_refused_naming_the_limit(metric):
    # "abcde" spanning 3 columns counts 15 characters, one per grid position it covers, plus "xy": 17
    table = Table([[Cell("abcde", colspan=3)], [Cell("xy"), Cell(""), Cell("")]])
    assert metric(max_chars=17)(table, table).value == 1.0
    with pytest.raises(
        ValueError,
        match=r"the pred table holds 17 characters of cell text \(counted at every grid "
        r"position a cell covers\), over the limit of max_chars=16;.*"
        r"structure_only=True.*raise max_chars= on the metric",
    ):
        metric(max_chars=16)(table, [["a"]])
    with pytest.raises(ValueError, match=r"the gold table holds 17 characters.*max_chars=16"):
        metric(max_chars=16)([["a"]], table)


@pytest.mark.parametrize("metric", TEXT_METRICS)
def test_the_default_text_limit_is_half_a_million_characters(metric):
    at_limit = Table([[Cell("a" * 500_000)]])
    over = Table([[Cell("a" * 500_001)]])
    assert metric()(at_limit, at_limit).value == 1.0  # equal texts are not aligned, so this is quick
    with pytest.raises(ValueError, match=r"holds 500001 characters .* max_chars=500000"):
        metric()(over, at_limit)


def test_the_issue_input_is_refused_at_once():
    # two 100x100 tables of 300-character cells: inside max_cells, six times max_chars (ran over 120 s each)
    big = Table.from_grid([[f"{c:03d}" * 100 for c in range(100)] for _ in range(100)])
    for metric in (TedsMetric(), GritsMetric()):
        with pytest.raises(ValueError, match=r"holds 3000000 characters .* max_chars=500000"):
            metric(big, big)


@pytest.mark.parametrize("metric", TEXT_METRICS)
def test_structure_only_scores_ignore_the_text_limit(metric):
    table = Table([[Cell("abcde"), Cell("fgh")]])
    assert metric(structure_only=True, max_chars=1)(table, [["x", "y"]]).value == 1.0


@pytest.mark.parametrize("metric", TEXT_METRICS)
@pytest.mark.parametrize("bad", [0, -5, True, 2.5, "10"])
def test_max_chars_must_be_a_positive_int(metric, bad):
    with pytest.raises(ValueError, match=rf"{metric.__name__} max_chars must be an int >= 1, got {bad!r}"):
        metric(max_chars=bad)


def test_colspan_of_a_billion_is_scored_as_1000_columns():
    s = GritsMetric(structure_only=True)('<table><tr><td colspan="1000000000">a</td></tr></table>', [["a"]])
    # pred: one cell over 1000 positions; gold: one position. Topology IoU of the
    # aligned position is 1/1000 and the grids have 1000 and 1 positions.
    assert s.detail["pred_cells"] == 1000 and s.detail["gold_cells"] == 1
    assert s.detail["overlap_top"] == pytest.approx(1 / 1000)


def test_teds_equals_0_8_not_a_float32_rounding():
    # one cell text 4/5 changed, over 4 nodes: 1 - 0.8 / 4
    s = TedsMetric()([["abcde", "q"]], [["axyzw", "q"]])
    assert s.value == pytest.approx(0.8, abs=1e-15)
    assert s.detail["distance"] == 0.8


texts_varied = st.sampled_from(["", "a", "ab", "abc", "abcde", "bcdea", "xyz", "abcdefg", "aaab", "ba"])
cells_varied = st.builds(Cell, texts_varied, st.sampled_from([1, 1, 2]), st.sampled_from([1, 1, 2]))
tables_varied = st.builds(Table, st.lists(st.lists(cells_varied, max_size=4), max_size=4))


def _teds_from_apted(pred, gold, structure_only):
    distance = apted_distance(pred, gold, structure_only=structure_only)
    nodes = max(1 + len(t.rows) + sum(map(len, t.rows)) for t in (pred, gold))
    # floored at 0: an empty row can push the distance past the larger tree's size (see test above)
    return max(0.0, 1.0 - distance / nodes)


@settings(max_examples=300, deadline=None)
@given(tables_varied, tables_varied, st.booleans())
def test_teds_value_equals_apted_to_1e_12(pred, gold, structure_only):
    s = TedsMetric(structure_only=structure_only)(pred, gold)
    assert abs(s.value - _teds_from_apted(pred, gold, structure_only)) <= 1e-12


@settings(max_examples=300, deadline=None)
@given(tables_varied, tables_varied, st.booleans())
def test_array_teds_engine_equals_the_python_one(pred, gold, structure_only):
    from ek.metrics import _table_arrays

    expected = _table_scoring.table_tree_distance(pred.rows, gold.rows, _table_scoring.rename_matrix(structure_only))
    assert abs(_table_arrays.tree_distance(pred.rows, gold.rows, structure_only=structure_only) - expected) <= 1e-12
    # a band too narrow for the answer never reports less than the distance; one wide enough is exact
    tokens = _table_arrays._TokensB(gold.rows)
    floor = abs(len(pred.rows) + sum(map(len, pred.rows)) - tokens.m)
    for extra in (0, 1, 3):
        found = _table_arrays._banded_distance(pred.rows, tokens, structure_only, floor + extra) if tokens.m else None
        if found is not None and (pred.rows or gold.rows):
            assert found >= expected - 1e-12
            if found <= floor + extra:
                assert abs(found - expected) <= 1e-12


@settings(max_examples=200, deadline=None)
@given(tables_varied, tables_varied)
def test_array_grits_engine_equals_the_python_one(pred, gold):
    from ek.metrics import _table_arrays
    from ek.metrics.tables import _layout, _text_grid, _topology_grid

    gold_l, pred_l = _layout(gold, max_cells=100, label="g"), _layout(pred, max_cells=100, label="p")
    for kind, view in (("topology", _topology_grid), ("content", lambda lay: _text_grid(lay, None))):
        g, p = view(gold_l), view(pred_l)
        if not (g and p and g[0] and p[0]):
            continue
        similarity = _table_scoring.SIMILARITIES[kind]
        rows, cols = _table_arrays.alignment_scores(g, p, kind=kind)
        found = _table_scoring.aligned_sum(
            g, p, lambda i, k: rows[i][k], lambda j, l: cols[j][l], lambda i, k, j, l: similarity(g[i][j], p[k][l])
        )
        assert found == _table_scoring.overlap(g, p, similarity)


def test_engine_choice_and_missing_numpy(monkeypatch):
    import sys

    from ek._util import MissingExtraError

    assert _table_scoring._arrays(100, "TEDS") is None  # small work: pure Python
    assert _table_scoring._arrays(10**6, "TEDS") is not None
    monkeypatch.setattr(_table_scoring, "is_installed", lambda name: False)
    monkeypatch.setitem(sys.modules, "numpy", None)
    assert _table_scoring._arrays(10**6, "TEDS") is None  # pure Python while it is quick enough
    with pytest.raises(MissingExtraError, match=r'TEDS on tables this large .*pip install "ek\[metrics\]"'):
        _table_scoring._arrays(10**8, "TEDS")


def test_the_array_engines_take_over_from_small_tables():
    # measured: numpy wins from about 6x5 cells against 6x5 (work ~ 1000); 4x4 tables stay pure Python
    assert _table_scoring._arrays(500, "GriTS") is None
    assert _table_scoring._arrays(1_000, "GriTS") is not None
    assert _table_scoring._arrays(2_000, "TEDS") is not None


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.floats(0, 1), min_size=3, max_size=3), min_size=1, max_size=6))
def test_best_total_is_the_total_of_align(rewards):
    total, pairs = _table_scoring.align(len(rewards), 3, lambda i, j: rewards[i][j])
    assert _table_scoring.best_total(rewards) == total  # the same sums in the same order: exactly equal
    assert sum(rewards[i][j] for i, j in pairs) == pytest.approx(total)


def test_equal_texts_are_identical_without_an_alignment(monkeypatch):
    monkeypatch.setattr(_table_scoring, "_lcs_length", lambda a, b: pytest.fail("aligned equal texts"))
    assert _table_scoring.lcs_similarity("x" * 10_000, "x" * 10_000) == 1.0
    assert _table_scoring.lcs_similarity("", "") == 1.0


def test_grits_blends_topology_and_content():
    gold = [["Total", "12"], ["Net", "10"]]
    pred = [["Totl", "12"], ["Nt", "10"]]  # right structure, imperfect text
    s, top, con = GritsMetric()(pred, gold), GritsMetric(structure_only=True)(pred, gold), GritsMetric().report
    report = con([s])
    assert top.value == 1.0 and report["grits_top"]["f1"] == 1.0
    # content: 2*4/9 + 1 + 2*2/5 + 1 over 4 positions
    content = (8 / 9 + 1 + 4 / 5 + 1) / 4
    assert report["grits_con"]["f1"] == pytest.approx(content)
    assert s.value == pytest.approx((1.0 + content) / 2) and s.value > content
    assert (s.precision, s.recall) == (pytest.approx(s.value), pytest.approx(s.value))
    assert s.detail["overlap"] == pytest.approx((s.detail["overlap_top"] + s.detail["overlap_con"]) / 2)


def test_grits_report_pools_each_variant():
    m = GritsMetric()
    a = m([["ab"]], [["ab", "c"]])  # content 1, topology 1; cells 1 and 2
    b = m(A, B)  # content 1, topology 2; cells 2 and 2
    report = m.report([a, b])
    assert report["grits_con"] == pytest.approx({"precision": 2 / 3, "recall": 2 / 4, "f1": 2 * 2 / 7})
    assert report["grits_top"] == pytest.approx({"precision": 3 / 3, "recall": 3 / 4, "f1": 2 * 3 / 7})
    assert report["grits"]["f1"] == pytest.approx(m.aggregate([a, b]))
    assert report["grits"]["f1"] == pytest.approx((report["grits_con"]["f1"] + report["grits_top"]["f1"]) / 2)
    top = GritsMetric(structure_only=True)
    assert set(top.report([top(A, B)])) == {"grits", "grits_top"}
    with pytest.raises(ValueError, match="empty corpus has no aggregate"):
        m.report([])
