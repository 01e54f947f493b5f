"""`replicate_sums` over repeated statistics rows: summed per distinct row, the same integers as chunk by chunk.

Lines of text share a few hundred ``(edits, length)`` rows among 100,000
items, so their weights are summed per row and multiplied by it once
(`ek._stats._weights._by_row`). The sums must equal the weight matrix
product (pure-Python weights, `weight`) and the einsum path, exactly.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ek
from ek._stats import _weights
from ek._stats._weights import id_keys, replicate_sums, weight

REPLICATES = 16
LINES = [f"line-{i}" for i in range(3600)]
LINE_WEIGHTS = np.array([[weight(i, b) for i in LINES] for b in range(REPLICATES)], dtype=object)


def _by_hand(ids, table, codes, n_groups):
    w = LINE_WEIGHTS[:, : len(ids)]
    out = np.zeros((n_groups, REPLICATES, table.shape[1] + 1), dtype=object)
    for g in range(n_groups):
        mine = codes == g
        out[g, :, :-1] = w[:, mine] @ table[mine].astype(object)
        out[g, :, -1] = w[:, mine].sum(axis=1)
    return out.tolist()


def _both_paths(ids, table, codes, n_groups):
    keys = id_keys(ids)
    rows = _weights._distinct_rows(table, codes)
    assert rows is not None  # the tables below repeat their rows: the row path is taken
    by_row = np.zeros((n_groups, REPLICATES, table.shape[1] + 1), dtype=np.int64)
    by_chunk = np.zeros_like(by_row)
    _weights._by_row(keys, rows, by_row, None, None)
    _weights._by_chunk(keys, table, codes, by_chunk, None, None)
    return by_row.tolist(), by_chunk.tolist()


@settings(max_examples=40, deadline=None)
@given(
    st.integers(3300, 3600),  # up to 3 x 4**3 rows, few enough for the row path (_ROW_COST x rows <= items x columns)
    st.integers(0, 3),
    st.integers(1, 3),
    st.sampled_from([(0, 3), (-2, 2), (2**40, 2**40 + 2)]),
    st.integers(0, 2**32 - 1),
)
def test_rows_sum_as_the_weight_matrix_product(n, k, n_groups, span, seed):
    rng = np.random.default_rng(seed)
    ids = LINES[:n]
    table = rng.integers(*span, size=(n, k), dtype=np.int64)
    codes = rng.integers(0, n_groups, size=n).astype(np.int64)
    by_row, by_chunk = _both_paths(ids, table, codes, n_groups)
    assert by_row == by_chunk == _by_hand(ids, table, codes, n_groups)


def test_a_large_corpus_of_lines_takes_the_row_path_on_threads_and_matches(monkeypatch):
    n = 40_000  # 40,000 x 1,000 weights: past _PARALLEL_WORK, so the blocks run on threads
    rng = np.random.default_rng(7)
    ids = [f"doc-{i:06d}" for i in range(n)]
    edits, length = rng.integers(0, 9, n), rng.integers(40, 61, n)
    table = np.stack([edits, length, edits * edits, edits * length, length * length], axis=1)
    codes = rng.integers(0, 2, n).astype(np.int64)
    assert _weights._distinct_rows(table, codes) is not None  # 2 x 9 x 21 rows among 40,000 items
    monkeypatch.setenv("EK_THREADS", "2")
    done: list[int] = []
    sums = replicate_sums(ids, table, codes, 2, progress=done.append)
    chunked = np.zeros_like(sums)
    _weights._by_chunk(id_keys(ids), table, codes, chunked, None, None)
    assert sums.tolist() == chunked.tolist()
    assert done == sorted(done) and done[-1] == n
    assert sums[:, :, -1].sum(axis=0).tolist() == chunked[:, :, -1].sum(axis=0).tolist()


@pytest.mark.parametrize(
    ("table", "why"),
    [
        (np.arange(200, dtype=np.int64).reshape(100, 2), "every row differs"),
        (np.array([[2**63 + 1], [0]] * 20, dtype=np.uint64), "a uint64 past int64"),
        (np.array([[0, -(2**62)], [1, 2**62]] * 20, dtype=np.int64), "a column spanning 2**63"),
    ],
)
def test_rows_that_repeat_too_little_or_do_not_fit_int64_go_chunk_by_chunk(table, why):
    assert _weights._distinct_rows(table, np.zeros(len(table), dtype=np.int64)) is None, why


def test_floats_go_chunk_by_chunk_and_sum_as_before():
    ids = [f"x{i}" for i in range(64)]
    table = np.tile([[0.5], [0.25]], (32, 1))
    sums = replicate_sums(ids, table, np.zeros(64, dtype=np.int64), 1, replicates=REPLICATES)[0]
    w = np.array([[weight(i, b) for i in ids] for b in range(REPLICATES)])
    assert np.allclose(sums[:, 0], w @ table[:, 0]) and sums[:, 1].tolist() == w.sum(axis=1).tolist()


@pytest.mark.parametrize(
    ("low", "high"),
    [(0, 3), (40, 100), (-3, 3), (500, 900), (-(2**20), 2**20), (0, 2**31)],
    ids=["int16 whole", "int16 in two digits", "int16 signed", "int32", "int32 signed", "int64"],
)
def test_chunk_by_chunk_sums_exactly_whatever_the_chunk_dtype(low, high):
    """The einsum path on its own (the row path now takes the small tables `replicate_sums` is given)."""
    n, n_groups = 1100, 2  # three chunks of 512 items
    rng = np.random.default_rng(low & 0xFFFF)
    table = rng.integers(low, high, size=(n, 2), dtype=np.int64)
    table[:600, 1] = rng.integers(0, 2, size=600)  # one chunk of small values among the large ones
    codes = rng.integers(0, n_groups, size=n).astype(np.int64)
    sums = np.zeros((n_groups, REPLICATES, 3), dtype=np.int64)
    _weights._by_chunk(id_keys(LINES[:n]), table, codes, sums, None, None)
    assert sums.tolist() == _by_hand(LINES[:n], table, codes, n_groups)


def test_columns_too_wide_together_are_renumbered_densely_and_still_sum_exactly():
    n = 1300
    rng = np.random.default_rng(3)
    picks = rng.integers(0, 3, size=(n, 3))
    table = np.stack([picks[:, 0] * 2**40, picks[:, 1] * 2**30 - 7, picks[:, 2]], axis=1)  # spans multiply past 2**62
    codes = np.zeros(n, dtype=np.int64)
    rows = _weights._distinct_rows(table, codes)
    assert rows is not None and len(rows.values) == len({tuple(r) for r in table.tolist()})
    by_row, by_chunk = _both_paths(LINES[:n], table, codes, 1)
    assert by_row == by_chunk == _by_hand(LINES[:n], table, codes, 1)


def test_evaluate_gives_the_same_intervals_by_row_as_chunk_by_chunk_and_merged(monkeypatch):
    rng = np.random.default_rng(11)
    words = ["cat", "dog", "sat", "mat", "a", "the"]
    golds = [" ".join(rng.choice(words, size=rng.integers(2, 6))) for _ in range(3000)]
    cases = [(g.replace("a", "o", int(rng.integers(0, 3))), g, "ab"[i % 2]) for i, g in enumerate(golds)]
    ids = [f"line-{i}" for i in range(len(cases))]

    def figures(report):
        return report.interval(), report.interval(slice="a"), report.interval(slice="b")

    seen: list[int] = []
    row_path = _weights._by_row
    monkeypatch.setattr(
        _weights, "_by_row", lambda keys, rows, *rest: seen.append(len(rows.values)) or row_path(keys, rows, *rest)
    )
    by_row = figures(ek.evaluate(cases, metric="cer", ids=ids))
    assert seen and seen[0] < 100  # the row path ran: a few dozen (slice, edits, length) rows
    merged = figures(
        ek.merge_reports(
            ek.evaluate(cases[:1700], metric="cer", ids=ids[:1700]),
            ek.evaluate(cases[1700:], metric="cer", ids=ids[1700:]),
        )
    )
    monkeypatch.setattr(_weights, "_MAX_ROWS", 0)  # every table goes chunk by chunk
    assert _weights._distinct_rows(np.zeros((10, 1), dtype=np.int64), np.zeros(10, dtype=np.int64)) is None
    by_chunk = figures(ek.evaluate(cases, metric="cer", ids=ids))
    assert by_row == by_chunk == merged
