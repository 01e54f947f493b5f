"""``EK_THREADS``: how many threads a large CER batch is scored on, and the same integers on any number of them."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import Levenshtein

import ek
from ek import _util
from ek.metrics import _edit

PYTHON = _edit.backends()["python"][0]
# Non-BMP letters, combining marks, a zero-width joiner and plain letters: code points of every width.
texts = st.text(alphabet="ab \u00e9e\u0301\u0303\U0001d400\U0001f600\u200d\u0e33", max_size=12)


def test_unset_or_blank_means_every_core_the_process_may_use(monkeypatch):
    monkeypatch.delenv("EK_THREADS", raising=False)
    expected = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert _util.threads() == _util.cores() == expected
    monkeypatch.setenv("EK_THREADS", " ")
    assert _util.threads() == expected


@pytest.mark.parametrize(("raw", "n"), [("1", 1), (" 2 ", 2), ("16", 16)])
def test_a_whole_number_pins_the_count(monkeypatch, raw, n):
    monkeypatch.setenv("EK_THREADS", raw)
    assert _util.threads() == n


@pytest.mark.parametrize("raw", ["0", "-1", "two", "1.5"])
def test_anything_else_warns_saying_what_it_must_be_and_uses_every_core(monkeypatch, raw):
    monkeypatch.setenv("EK_THREADS", raw)
    message = (
        rf"^EK_THREADS must be a whole number of threads, 1 or more, got '{raw}'; it is ignored, so ek uses "
        rf"every core \({_util.cores()} here\)\. Set EK_THREADS=1 to use one thread, or unset it\.$"
    )
    with pytest.warns(UserWarning, match=message):
        assert _util.threads() == _util.cores()
    with pytest.warns(UserWarning, match=message):  # a batch large enough for threads asks, and is scored
        report = ek.evaluate([("ab", "abc")] * _edit._THREADED, metric="cer")
    assert report.aggregate == pytest.approx(1 / 3)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(texts, texts), min_size=1, max_size=30))
def test_threaded_distances_are_the_single_threaded_ones(pairs):
    tiled = (pairs * (_edit._THREADED // len(pairs) + 1))[: _edit._THREADED + 3]  # past the threads' threshold
    preds, golds = [p for p, _ in tiled], [g for _, g in tiled]
    exact = [PYTHON(p, g) for p, g in pairs]
    with pytest.MonkeyPatch.context() as mp:
        found = {}
        for n in ("1", "2", "3"):
            mp.setenv("EK_THREADS", n)
            found[n] = _edit.distances(preds, golds)
    assert found["1"] == found["2"] == found["3"] == [Levenshtein.distance(p, g) for p, g in tiled]
    assert found["2"][: len(pairs)] == exact


def test_evaluate_reports_the_same_figures_on_one_thread_or_two(monkeypatch):
    pairs = [("kitten", "sitting"), ("\U0001d400e\u0301", "\U0001d400\u00e9"), ("", "ab"), (" x ", "x")] * 1000
    reports = []
    for n in ("1", "2"):
        monkeypatch.setenv("EK_THREADS", n)
        reports.append(ek.evaluate(pairs, metric="cer"))
    assert reports[0] == reports[1]
    assert reports[0].aggregate == (3 + 2 + 2 + 0) * 1000 / ((7 + 2 + 2 + 1) * 1000)  # edits over reference length


def test_a_pinned_block_uses_its_count_and_ek_threads_still_wins(monkeypatch):
    monkeypatch.delenv("EK_THREADS", raising=False)
    with _util.pinned_threads(1):
        assert _util.threads() == 1
        with _util.pinned_threads(3):
            assert _util.threads() == 3
        assert _util.threads() == 1
        monkeypatch.setenv("EK_THREADS", "2")  # the user's own setting is kept inside a pinned block
        assert _util.threads() == 2
        monkeypatch.delenv("EK_THREADS")
    assert _util.threads() == _util.cores()


def test_a_pin_holds_only_in_the_thread_that_set_it(monkeypatch):
    from concurrent.futures import ThreadPoolExecutor

    monkeypatch.delenv("EK_THREADS", raising=False)
    with _util.pinned_threads(1), ThreadPoolExecutor(1) as pool:
        assert pool.submit(_util.threads).result() == _util.cores()
        assert _util.threads() == 1


def _record_threads(monkeypatch):
    """The count every large CER batch is scored with, from here on."""
    seen: list[int] = []

    def recording() -> int:
        seen.append(_util.threads())
        return seen[-1]

    monkeypatch.setattr(_edit, "threads", recording)
    return seen


def test_a_dask_partition_is_scored_on_one_thread(monkeypatch):
    """The cluster already runs one task per core: a task's own threads would only crowd them."""
    from ek.dask._summary import Spec, score_partition, summarize

    monkeypatch.delenv("EK_THREADS", raising=False)
    seen = _record_threads(monkeypatch)
    pairs = [("kitten", "sitting")] * _edit._THREADED
    scored = score_partition(pairs, Spec(metric="cer"), 0)
    assert seen == [1]
    assert scored.report == ek.evaluate(pairs, metric="cer")  # the same figures
    weighed: list[int] = []
    monkeypatch.setattr("ek._stats._weights.threads", lambda: weighed.append(_util.threads()) or weighed[-1])
    summarize(scored, Spec(metric="cer"), [0])
    assert weighed == [1]
    ek.evaluate(pairs, metric="cer").interval()  # outside a task: every core again
    assert seen[-1] == weighed[-1] == _util.cores()


def test_a_fleet_worker_keeps_ek_to_one_thread_unless_told(monkeypatch):
    from ek.ocr._fleet import schedule

    monkeypatch.delenv("EK_THREADS", raising=False)
    monkeypatch.delenv("OMP_THREAD_LIMIT", raising=False)
    schedule._one_thread()
    assert (os.environ["EK_THREADS"], os.environ["OMP_THREAD_LIMIT"]) == ("1", "1")
    assert _util.threads() == 1
    monkeypatch.setenv("EK_THREADS", "2")
    schedule._one_thread()
    assert os.environ["EK_THREADS"] == "2"
