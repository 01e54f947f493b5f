"""ek.dask: a Dask collection scores to the serial report; the run engine runs on a Dask cluster.

Equality with `ek.evaluate` is checked over random partitionings (empty
partitions included) on the synchronous scheduler, for every family of
metric; the exact oracle is the metric's ``compute`` of each statistic
summed by an independent exact sum (Python ints, ``math.fsum`` for floats).
A few runs, the three runners' executors, a worker killed mid-run and a
resumed persisted run use a real ``LocalCluster`` of two worker processes
on the loopback interface, started once for the module.
"""

from __future__ import annotations

import importlib.resources
import itertools
import json
import math
import pathlib
import socket
import subprocess
import sys
import threading
import time
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

dask = pytest.importorskip("dask")
db = pytest.importorskip("dask.bag")
distributed = pytest.importorskip("distributed")

import ek  # noqa: E402
import ek.dask  # noqa: E402
from ek.agents import TaskSpec, per_million, run_suite  # noqa: E402
from ek.harness import evaluate_store  # noqa: E402
from ek.metrics.graphs import TypedEdge, TypedGraph, TypedNode  # noqa: E402
from ek.metrics.tables import Table  # noqa: E402
from ek.ocr import evaluate_ocr  # noqa: E402
from ek.registry import get  # noqa: E402
from ek.stores import json_store  # noqa: E402

# ---------------------------------------------------------------------------
# the cluster and the work it runs

WORK = '''
import os, pathlib, random, signal, time
from ek.agents import Cost, Episode

HERE = pathlib.Path(__file__).parent


def _calls(kind, text=""):
    with open(HERE / f"calls-{kind}.log", "a") as f:
        f.write(f"{text} {os.getpid()}\\n")


def _maybe_die(text):
    """SIGKILL this worker the first time a text "KILL:<token>" is seen (a marker file remembers)."""
    if text.startswith("KILL:"):
        marker = HERE / f"killed-{text[5:]}"
        if not marker.exists():
            marker.touch()
            time.sleep(0.2)  # the other worker is busy meanwhile
            os.kill(os.getpid(), signal.SIGKILL)


def predict(text):
    _calls("predict", text)
    _maybe_die(text)
    if (HERE / f"fail-{text}").exists():
        raise RuntimeError(f"cannot read {text}")
    return text.replace("0", "o")


def engine(image):
    return image.upper().replace("0", "O")


def agent(task, *, seed=None):
    rng = random.Random(f"{task.task_id}:{seed}")
    out = task.gold if rng.random() < 0.6 else "no"
    return Episode(output=out, cost=Cost(input_tokens=rng.randint(10, 99), output_tokens=rng.randint(1, 9)))


def die_once(row):
    _maybe_die(row[0])
    return row


def busy(dask_worker):
    """Tasks a worker still runs, counting those the scheduler cancelled (which the worker finishes anyway)."""
    return sum(ts.state in ("executing", "cancelled", "long-running") for ts in dask_worker.state.tasks.values())


def calls(kind):
    path = HERE / f"calls-{kind}.log"
    return len(path.read_text().splitlines()) if path.exists() else 0


def reset(kind):
    (HERE / f"calls-{kind}.log").unlink(missing_ok=True)
'''


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    """A module of work functions on sys.path before the workers start, so they unpickle it by name."""
    folder = tmp_path_factory.mktemp("dask_work")
    (folder / "dask_work.py").write_text(WORK)
    sys.path.insert(0, str(folder))
    import dask_work

    yield dask_work
    sys.path.remove(str(folder))
    sys.modules.pop("dask_work", None)


@pytest.fixture(scope="module")
def local_cluster(work):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with (
            distributed.LocalCluster(
                n_workers=2,
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                dashboard_address=None,
                scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
            ) as c,
            distributed.Client(c) as client,
        ):
            yield client


@pytest.fixture
def cluster(local_cluster):
    """The module's cluster with both workers up (a test may have killed one, which its nanny restarts)."""
    local_cluster.wait_for_workers(2, timeout=60)
    return local_cluster


@pytest.fixture
def sync():
    with dask.config.set(scheduler="synchronous"):
        yield


# ---------------------------------------------------------------------------
# cases of every family


def _graph(total, items):
    nodes = [TypedNode("inv", "invoice", {"total": total})]
    nodes += [TypedNode(f"l{k}", "line", {"sku": sku}) for k, sku in enumerate(items)]
    return TypedGraph(nodes, [TypedEdge("inv", f"l{k}", "has") for k in range(len(items))])


POOLS = {
    "cer": [("kitten", "sitting"), ("ab", "ab"), ("", "abc"), ("a b c", "a c"), ("héllo", "hello"), ("x", "")],
    "fields": [
        ({"a": 1, "b": 2}, {"a": 1, "b": 3}),
        ({}, {"a": 1}),
        ({"a": 1}, {"a": 1}),
        ({"x": 1}, {}),
        ({"a": 2, "c": 3}, {"a": 2, "c": 4, "d": 5}),
    ],
    "span_f1_seqeval_conll": [
        (["B-PER", "I-PER", "O"], ["B-PER", "I-PER", "O"]),
        (["B-LOC", "O"], ["O", "O"]),
        (["O", "B-PER"], ["B-PER", "I-PER"]),
        (["O"], ["O"]),
    ],
    "span_f1_partial": [
        ([{"label": "ORG", "start": 1, "end": 1}], [{"label": "ORG", "start": 0, "end": 1}]),
        ([], [{"label": "PER", "start": 0, "end": 0}]),
        ([{"label": "X", "start": 0, "end": 2}], [{"label": "X", "start": 0, "end": 2}]),
    ],
    "teds": [
        (Table.from_grid([["a", "b"]]), Table.from_grid([["a", "c"]])),
        (Table.from_grid([["a", None], ["c", "d"]]), Table.from_grid([["a", "b"], ["c", "d"]])),
        (Table.from_grid([["x"]]), Table.from_grid([["x", "y"], ["z", "w"]])),
    ],
    "grits": [
        (Table.from_grid([["1", "2"], ["3", "4"]]), Table.from_grid([["1", "2"], ["3", "5"]])),
        (Table.from_grid([["a"]]), Table.from_grid([["a", "b"]])),
        (Table.from_grid([["p", None]]), Table.from_grid([["p", "q"]])),
    ],
    "typed_graph": [
        (_graph("10", ["a"]), _graph("12", ["a"])),
        (_graph("7", ["a", "b"]), _graph("7", ["b"])),
        (_graph("1", []), _graph("1", ["z", "y"])),
        (_graph("3", ["q"]), _graph("3", ["q"])),
    ],
}
POOLS["wer"] = POOLS["cer"]
FAMILIES = sorted(POOLS)
INTEGER = {"cer", "wer", "fields", "span_f1_seqeval_conll", "span_f1_partial"}  # integer statistics only


def _exact(values):
    """An independent exact sum: ints as ints, anything else by math.fsum."""
    return sum(values) if all(isinstance(v, int) for v in values) else math.fsum(values)


def _oracle(name, cases):
    """``(aggregate, per_slice)`` from each statistic of the serial scores, summed exactly."""
    m = get("metrics", name)
    scores = list(ek.evaluate(cases, metric=name).scores)

    def figure(rows):
        return m.compute({k: _exact([scores[i].detail[k] for i in rows]) for k in m.statistics})

    groups = {}
    for i, case in enumerate(cases):
        if len(case) == 3 and case[2] is not None:
            groups.setdefault(case[2], []).append(i)
    return figure(range(len(cases))), {label: figure(rows) for label, rows in groups.items()}


def _same(a, b):
    return a == b or (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b))


def _bag(chunks):
    return db.from_delayed([dask.delayed(chunk, traverse=False) for chunk in chunks])


def _chunks(items, cuts):
    bounds = [0, *sorted(cuts), len(items)]
    return [items[a:b] for a, b in itertools.pairwise(bounds)]


@st.composite
def corpora(draw, name):
    pool = POOLS[name]
    pairs = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=12))
    labels = draw(st.lists(st.sampled_from(["a", "b", None]), min_size=len(pairs), max_size=len(pairs)))
    sliced = draw(st.booleans())
    cases = [(p, g, s) for (p, g), s in zip(pairs, labels)] if sliced else list(pairs)
    cuts = draw(st.lists(st.integers(0, len(cases)), max_size=5))
    return cases, cuts


def _records(cases, ids):
    return [{"pred": c[0], "gold": c[1], "slice": c[2] if len(c) == 3 else None, "doc": i} for c, i in zip(cases, ids)]


def _intervals(report, level=0.9):
    return [report.interval(level)] + [report.interval(level, slice=label) for label in report.per_slice]


def _same_intervals(a, b, exact):
    if exact:  # integer replicate sums: the very same replicate values
        assert all(_same(x, y) for pa, pb in zip(a, b) for x, y in zip(pa, pb)), (a, b)
    else:  # float replicate sums are added in another order
        assert a == [pytest.approx(p, rel=1e-9, nan_ok=True) for p in b]


# ---------------------------------------------------------------------------
# equality with ek.evaluate


@pytest.mark.parametrize("name", FAMILIES)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_partitioning_gives_the_serial_report(name, data, sync):
    cases, cuts = data.draw(corpora(name))
    serial = ek.evaluate(cases, metric=name)
    report = ek.dask.evaluate(_bag(_chunks(cases, cuts)), metric=name)
    aggregate, per_slice = _oracle(name, cases)
    assert report.n == serial.n == len(cases)
    assert report.metric == serial.metric
    assert _same(report.aggregate, aggregate)
    assert report.per_slice.keys() == per_slice.keys() == serial.per_slice.keys()
    assert all(_same(report.per_slice[k], per_slice[k]) for k in per_slice)
    assert report.detail.get("slice_n") == serial.detail.get("slice_n")
    assert report.detail["partitions"] == len(cuts) + 1
    if name in INTEGER:  # to the last bit
        assert _same(report.aggregate, serial.aggregate)
        assert all(_same(report.per_slice[k], serial.per_slice[k]) for k in per_slice)
    else:  # a serial sum of floats rounds at every step; ours once
        assert report.aggregate == pytest.approx(serial.aggregate, rel=1e-12, nan_ok=True)
    _same_intervals(_intervals(report), _intervals(serial), exact=name in INTEGER)


@pytest.mark.parametrize("name", FAMILIES)
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), kind=st.sampled_from([str, int]))
def test_with_an_id_field_the_interval_is_the_serial_one_over_those_ids(name, data, kind, sync):
    cases, cuts = data.draw(corpora(name))
    ids = data.draw(st.lists(st.integers(0, 10**6).map(kind), min_size=len(cases), max_size=len(cases), unique=True))
    serial = ek.evaluate(cases, metric=name, ids=ids)
    report = ek.dask.evaluate(_bag(_chunks(_records(cases, ids), cuts)), metric=name, slice="slice", id="doc")
    assert (report.n, report.per_slice.keys()) == (serial.n, serial.per_slice.keys())
    _same_intervals(_intervals(report), _intervals(serial), exact=name in INTEGER)
    assert report.detail["level"] == 0.95 and report.detail["interval"] == report.interval(0.95)


def test_replicate_sums_weigh_each_item_by_its_global_position(sync):
    """An oracle apart from ek._bootstrap's vectorised code: its pure-Python weight of each position."""
    from ek._bootstrap import resampled, weight

    cases = [("kitten", "sitting"), ("ab", "ab"), ("", "abc"), ("a b", "a c"), ("x", ""), ("yes", "yet"), ("q", "qq")]
    scores = ek.evaluate(cases, metric="cer").scores
    for chunks, ids in (([cases[:3], [], cases[3:5], cases[5:]], None), ([cases[:4], cases[4:]], list("ABCDEFG"))):
        bag = _bag(chunks) if ids is None else _bag([_records(c, ids[k:]) for c, k in ((chunks[0], 0), (chunks[1], 4))])
        report = ek.dask.evaluate(bag, metric="cer", id=None if ids is None else "doc")
        stored = resampled(report)  # the sums the report's resampler stores (once detail["replicates"])
        assert stored.statistics == ("edits", "ref_len") and stored.replicates == 1000
        for b in (0, 1, 7, 8, 500, 999):
            w = [weight(i if ids is None else ids[i], b) for i in range(len(cases))]
            expect = (
                sum(wi * s.detail["edits"] for wi, s in zip(w, scores)),
                sum(wi * s.detail["ref_len"] for wi, s in zip(w, scores)),
                sum(w),
            )
            assert tuple(stored.overall[b].tolist()) == expect


def test_two_dask_reports_compare_as_the_serial_ones(sync):
    """Replicate sums of the same items pair up: ek.compare of two summaries is the serial percentile comparison.

    Summaries keep no items, so not the products of A's statistics with B's that the bootstrap-t of the
    difference needs (`ek._bootstrap._reports.paired_sums`): theirs is the percentile interval.
    """
    from ek._bootstrap import compare as paired

    gold = [f"w{i % 5} word{i % 9}" for i in range(60)]
    runs = [
        [g.replace("o", "0") if i % 3 else g for i, g in enumerate(gold)],
        [g.replace("w", "vv") if i % 4 == 0 else g for i, g in enumerate(gold)],
    ]
    spread = [
        ek.dask.evaluate(db.from_sequence(list(zip(run, gold)), npartitions=k), metric="cer")
        for run, k in zip(runs, (3, 5))
    ]
    serial = [ek.evaluate(list(zip(run, gold)), metric="cer") for run in runs]
    assert ek.compare(*spread) == ek.base.Comparison(**paired(*serial, method="percentile"))
    assert ek.compare(*spread).interval != ek.compare(*serial).interval
    assert ek.compare(*spread).delta == pytest.approx(60 / 480 - 40 / 480)  # "w" -> "vv" twice in 15 items; 40 "o"s


def test_kept_items_carry_their_ids(sync):
    cases = [("kitten", "sitting", "x"), ("ab", "ab", "y"), ("", "abc", "x"), ("a b", "a c", None)]
    ids = ["d3", "d1", "d4", "d2"]
    serial = ek.evaluate(cases, metric="cer", ids=ids)
    report = ek.dask.evaluate(
        _bag(_chunks(_records(cases, ids), [1, 3])), metric="cer", slice="slice", id="doc", keep_items=True
    )
    assert report.detail["ids"] == serial.detail["ids"] == tuple(ids)
    assert report.detail["slices"] == serial.detail["slices"]
    assert list(report.scores) == list(serial.scores) and _intervals(report) == _intervals(serial)


def test_level_none_skips_the_bootstrap(sync):
    cases = [("ct", "cat"), ("dog", "dog")] * 5
    report = ek.dask.evaluate(db.from_sequence(cases, npartitions=3), metric="cer", level=None)
    assert report.aggregate == ek.evaluate(cases, metric="cer").aggregate
    assert "replicates" not in report.detail and "interval" not in report.detail
    with pytest.raises(
        ValueError,
        match=r"comes from ek.dask.evaluate\(..., level=None\), which skips the "
        r"bootstrap, so it has no interval; pass level=0.95",
    ):
        report.interval()
    with pytest.raises(
        ValueError,
        match=r"^ek\.dask\.evaluate\(\) level must be a number between 0 and 1 \(e\.g\. 0\.95 for a 95% interval\) or None, got 95\.$",
    ):
        ek.dask.evaluate(db.from_sequence(cases), metric="cer", level=95)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_records_and_dataframes_give_the_serial_report(data, sync):
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    cases, cuts = data.draw(corpora("cer"))
    records = [
        {"hyp": c[0], "ref": c[1], "part": c[2] if len(c) == 3 else None, "doc": f"d{i}"} for i, c in enumerate(cases)
    ]
    serial = ek.evaluate([(r["hyp"], r["ref"], r["part"]) for r in records], metric="wer")
    columns = ["hyp", "ref", "part", "doc"]
    frames = [
        dask.delayed(pd.DataFrame(chunk, columns=columns, dtype=object), traverse=False)
        for chunk in _chunks(records, cuts)
    ]
    frame = dd.from_delayed(frames, meta=pd.DataFrame(columns=columns, dtype=object), verify_meta=False)
    for collection in (_bag(_chunks(records, cuts)), frame):
        report = ek.dask.evaluate(collection, metric="wer", pred="hyp", gold="ref", slice="part", id="doc")
        assert (report.n, report.aggregate, report.per_slice) == (serial.n, serial.aggregate, serial.per_slice)
        assert report.detail["slice_n"] == serial.detail["slice_n"]


def _value(pred, gold):
    return float(pred)


def test_float_statistics_do_not_depend_on_the_partitioning(sync):
    m = ek.metric(_value, aggregate="mean")
    cases = [(v, 0) for v in [1e16, 1.0, -1e16, 0.1, 0.2]]
    for cuts in ([], [1], [1, 2], [2, 3, 4], [0, 5]):
        report = ek.dask.evaluate(_bag(_chunks(cases, cuts)), metric=m)
        assert report.aggregate == math.fsum(v for v, _ in cases) / 5 == 1.3 / 5  # a float sum would say 0.3 / 5


def test_a_metric_chosen_by_type_and_kept_items(sync):
    cases = [({"a": 1}, {"a": 1, "b": 2}, "x"), ({"c": 3}, {"c": 4}, "y"), ({}, {}), ({"a": 1}, {"a": 2}, "x")]
    serial = ek.evaluate(cases)
    report = ek.dask.evaluate(_bag([cases[:1], [], cases[1:]]), keep_items=True)
    assert report.metric == serial.metric == "fields"
    assert (report.aggregate, report.per_slice) == (serial.aggregate, serial.per_slice)
    assert list(report.scores) == list(serial.scores)
    assert report.detail["slices"] == serial.detail["slices"] == ("x", "y", None, "x")


def test_options_reach_every_partition(sync):
    cases = [("Hello  World", "hello world"), ("ABC", "abd"), ("x", "X")]
    serial = ek.evaluate(cases, metric="cer", normalize=["lower", "collapse_whitespace"])
    report = ek.dask.evaluate(_bag([cases[:1], cases[1:]]), metric="cer", normalize=["lower", "collapse_whitespace"])
    assert report.aggregate == serial.aggregate == 1 / 15  # only "c" -> "d" is left, over 11 + 3 + 1 characters
    assert report.aggregate != ek.evaluate(cases, metric="cer").aggregate


def test_no_item_reaches_the_client_without_keep_items(sync):
    def size(n):
        cases = [("kitten" * (i % 3), "sitting", "ab"[i % 2]) for i in range(n)]
        report = ek.dask.evaluate(db.from_sequence(cases, npartitions=4), metric="cer")
        assert report.scores == () and "slices" not in report.detail
        return report.detail["summary_bytes"]

    small, large = size(40), size(40_000)
    assert large < small + 64  # a few more digits in the sums, nothing per item


def test_an_empty_collection_has_no_aggregate(sync):
    report = ek.dask.evaluate(db.from_sequence([], npartitions=1), metric="cer")
    assert (report.n, report.aggregate, report.metric) == (0, None, "cer")


def test_import_ek_dask_does_not_import_dask():
    code = "import sys, ek, ek.dask; print(any(m in sys.modules for m in ('dask', 'distributed')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "False", out.stderr


def test_without_dask_the_error_says_what_to_install():
    code = (
        "import sys; sys.modules['dask'] = None\nimport ek.dask\n"
        "try:\n    ek.dask.evaluate([('a', 'a')])\nexcept ImportError as e:\n    print(type(e).__name__, e)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert "MissingExtraError" in out.stdout and 'pip install "ek[dask]"' in out.stdout, out.stderr


# ---------------------------------------------------------------------------
# bad input


def test_an_unknown_column_lists_the_columns():
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    frame = dd.from_pandas(pd.DataFrame({"hyp": ["a"], "ref": ["b"]}), npartitions=1)
    with pytest.raises(
        ValueError,
        match=r"the DataFrame has no column 'pred' \(pred=\); its columns are: "
        r"'hyp', 'ref'\. Pass pred= with the column that holds it",
    ):
        ek.dask.evaluate(frame)
    with pytest.raises(ValueError, match=r"has no column 'lang' \(slice=\)"):
        ek.dask.evaluate(frame, pred="hyp", gold="ref", slice="lang")


def test_an_unknown_record_field_lists_the_fields(sync):
    bag = db.from_sequence([{"hyp": "a", "gold": "b"}], npartitions=1)
    with pytest.raises(
        ValueError,
        match=r"partition 0 row 0 has no field 'pred' \(pred=\); its fields are: "
        r"'hyp', 'gold'\. Pass pred=",
    ):
        ek.dask.evaluate(bag)


@pytest.mark.parametrize(
    "rows, shape",
    [
        (["just a string"], r"row 0 is a str \('just a string'\)"),
        ([("a", "b"), ("a", "b", "s", "x")], r"row 1 has 4 elements"),
    ],
)
def test_rows_that_are_not_cases_are_named(rows, shape, sync):
    bag = _bag([[("a", "a")], rows])
    with pytest.raises(
        ValueError,
        match=rf"partition 1 {shape}; each row must be a \(pred, gold\) or "
        r"\(pred, gold, slice\) tuple, or a record",
    ):
        ek.dask.evaluate(bag, metric="cer")


@pytest.mark.parametrize("rows", [[("a", "b"), {"pred": "a", "gold": "b"}], [{"pred": "a", "gold": "b"}, ("a", "b")]])
def test_a_partition_mixing_tuples_and_records_is_named(rows, sync):
    with pytest.raises(
        ValueError,
        match=r"partition 0 mixes tuples and records: its row 0 is not one of the "
        r"(records|tuples) row 1 is\. Give every row one shape",
    ):
        ek.dask.evaluate(_bag([rows]), metric="cer")


def test_tuples_have_no_named_fields(sync):
    with pytest.raises(ValueError, match=r"got id='doc', but partition 0 holds tuples.*Use records"):
        ek.dask.evaluate(db.from_sequence([("a", "b")]), id="doc")


class _Locked:
    """A metric holding a lock: it cannot be pickled."""

    name, higher_is_better, statistics = "locked", False, ("edits", "ref_len")

    def __init__(self):
        self.lock = threading.Lock()

    def __call__(self, pred, gold, *, grammar=None):
        return ek.score(pred, gold, metric="cer")

    def compute(self, totals):
        return totals["edits"] / totals["ref_len"]

    def aggregate(self, scores):
        return get("metrics", "cer").aggregate(scores)


def test_a_metric_that_cannot_be_pickled_is_refused_up_front():
    with pytest.raises(
        TypeError,
        match=r"metric \(locked\) cannot be pickled \(TypeError: .*lock.*\), so it cannot "
        r"be sent to the Dask workers\. Keep no open file, lock",
    ):
        ek.dask.evaluate(db.from_sequence([("a", "b")]), metric=_Locked())


def _plain(pred, gold):
    return float(pred == gold)


@pytest.mark.parametrize(
    "metric, why",
    [
        (_plain, r"it has no aggregate\(\), so a serial ek.evaluate would take the mean"),
        (ek.metric(_plain, aggregate=lambda scores: 0.0), r"it aggregates with a custom function"),
    ],
)
def test_a_metric_without_mergeable_statistics_says_what_to_pass(metric, why):
    with pytest.raises(
        ValueError,
        match=rf"cannot use metric '_plain': {why}.*ek.metric\(fn, "
        r"aggregate='sum_ratio', statistics=\(numerator, denominator\)\)",
    ):
        ek.dask.evaluate(db.from_sequence([("a", "b")]), metric=metric)


def test_a_mean_metric_merges_like_the_serial_one(sync):
    m = ek.metric(_plain, aggregate="mean", higher_is_better=True)
    cases = [("a", "a"), ("a", "b"), ("c", "c")]
    assert ek.dask.evaluate(_bag([cases[:2], cases[2:]]), metric=m).aggregate == ek.evaluate(cases, metric=m).aggregate


def test_partitions_that_pick_different_metrics_by_type_are_refused(sync):
    with pytest.raises(
        ValueError,
        match=r"scored partition 0 with metric 'cer' but partition 1 with 'fields'.*"
        r"Pass metric='cer'",
    ):
        ek.dask.evaluate(_bag([[("a", "b")], [({"a": 1}, {"a": 1})]]))


def test_an_unknown_metric_name_is_refused_before_anything_runs():
    with pytest.raises(KeyError, match=r"registered as 'cerr'\. Did you mean 'cer'\?"):
        ek.dask.evaluate(db.from_sequence([("a", "b")]), metric="cerr")


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: ek.dask.client("tcp://127.0.0.1:1", workers=2), r"takes scheduler= .* or workers= .*, not both"),
        (lambda: ek.dask.client(workers=0), r"workers must be a whole number >= 1, got 0"),
    ],
)
def test_client_arguments_are_checked(call, message):
    with pytest.raises(ValueError, match=message), call():
        pass


def test_a_local_client_scores_on_workers_without_the_stack_profiler():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with ek.dask.client(workers=1) as c:
            flags = c.run(lambda: dask.config.get("distributed.worker.profile.enabled"))
            assert dask.config.get("distributed.worker.profile.enabled") is True  # the caller's config is untouched
            report = ek.dask.evaluate(db.from_sequence([("ct", "cat"), ("dog", "dog")], npartitions=2), metric="cer")
    assert list(flags.values()) == [False]
    assert (report.n, report.aggregate) == (2, 1 / 6)


def test_not_a_dask_collection():
    with pytest.raises(TypeError, match=r"takes a dask.bag.Bag or a dask.dataframe.DataFrame, got list.*ek.evaluate"):
        ek.dask.evaluate([("a", "b")])


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def silent():
    """The address of a server that accepts connections and never says a word."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(8)
        yield f"tcp://127.0.0.1:{s.getsockname()[1]}"


@pytest.mark.parametrize("address", ["refused", "no-port-here", "silent"])  # names stable for pytest-xdist
def test_a_scheduler_that_does_not_answer_times_out_with_a_clear_message(address, request):
    if address == "silent":
        address = request.getfixturevalue("silent")
    elif address == "refused":
        address = f"tcp://127.0.0.1:{_free_port()}"
    start = time.monotonic()
    with (
        pytest.raises(
            ConnectionError,
            match=rf"no Dask scheduler answered at '{address}' within 1 s \(.+\); "
            r"check the address",
        ),
        ek.dask.client(address, timeout=1),
    ):
        pass
    assert time.monotonic() - start < 30  # bounded (never a hang); the message names the 1 s


# ---------------------------------------------------------------------------
# ek evaluate --workers / --scheduler

DEMO = pathlib.Path(str(importlib.resources.files("ek") / "data"))


def _ek(capsys, *argv):
    from ek.__main__ import main

    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_ek_evaluate_on_a_scheduler_prints_what_it_prints_alone(cluster, capsys):
    argv = ["evaluate", DEMO / "demo_ocr.jsonl", DEMO / "demo_ocr_b.jsonl", "--level", "0.9"]
    alone = _ek(capsys, *argv)
    assert alone[0] == 0 and "clean_print    40" in alone[1]
    assert _ek(capsys, *argv, "--scheduler", cluster.scheduler.address) == alone
    code, out, _ = _ek(capsys, *argv, "--scheduler", cluster.scheduler.address, "--json", "-")
    on_cluster, here = json.loads(out), json.loads(_ek(capsys, *argv, "--json", "-")[1])
    for payload in (on_cluster, here):  # the run's date may fall in the next second; nothing else may differ
        assert payload.pop("date")
    assert code == 0 and on_cluster == here  # every item too


def test_ek_evaluate_on_local_workers(capsys, tmp_path):
    gold = tmp_path / "gold.jsonl"
    gold.write_text("".join(json.dumps({"id": f"r{i}", "text": f"w0rd {i % 7}"}) + "\n" for i in range(30)))
    pred = tmp_path / "pred.jsonl"
    pred.write_text("".join(json.dumps({"id": f"r{i}", "text": f"word {i % 5}"}) + "\n" for i in range(1, 31)))
    alone = _ek(capsys, "evaluate", gold, pred, "--metric", "wer")
    assert alone[0] == 0 and "missing: 1" in alone[1] and "extra: 1" in alone[1]
    assert _ek(capsys, "evaluate", gold, pred, "--metric", "wer", "--workers", "2") == alone


def test_ek_evaluate_on_local_workers_cuts_words_as_told_and_keeps_profiles_here(capsys, tmp_path):
    gold = tmp_path / "gold.jsonl"
    gold.write_text("".join(json.dumps({"id": f"r{i}", "text": f"der Hund, {i}."}) + "\n" for i in range(30)))
    pred = tmp_path / "pred.jsonl"
    pred.write_text("".join(json.dumps({"id": f"r{i}", "text": f"der Hund {i}"}) + "\n" for i in range(30)))
    argv = ["evaluate", gold, pred, "--metric", "wer", "--words", "unicode"]
    alone = _ek(capsys, *argv)
    # Unicode words leave the punctuation out: every pair is right; cut at whitespace, two of three words differ
    assert alone[0] == 0 and "wer_unicode" in alone[1] and " 0.0000 " in alone[1]
    assert _ek(capsys, *argv, "--workers", "2") == alone
    code, out, err = _ek(capsys, "evaluate", gold, pred, "--profile", "dinglehopper", "--workers", "1")
    assert (code, out) == (2, "") and "--profile dinglehopper scores the texts as OCR documents" in err


def test_ek_evaluate_gives_up_on_a_silent_scheduler_with_one_line_and_exit_2(capsys, silent, monkeypatch):
    from ek.cli._commands import _dask

    monkeypatch.setattr(_dask, "CONNECT_SECONDS", 1.0)
    start = time.monotonic()
    code, out, err = _ek(capsys, "evaluate", DEMO / "demo_ocr.jsonl", DEMO / "demo_ocr_b.jsonl", "--scheduler", silent)
    assert time.monotonic() - start < 30
    assert (code, out, err.count("\n")) == (2, "", 1)
    assert err.startswith(f"ek evaluate: error: no Dask scheduler answered at '{silent}' within 1 s (")


@pytest.fixture
def no_workers():
    """A live scheduler on loopback that has no worker (and gets none), closed afterwards."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with distributed.LocalCluster(n_workers=0, processes=True, host="127.0.0.1", dashboard_address=None) as c:
            yield c.scheduler_address


def _no_worker_message(address: str, seconds: str) -> str:
    return (
        f"ek evaluate: error: the Dask scheduler at {address!r} has no worker, and none joined within {seconds} s; "
        f"start workers for it (dask worker {address}), wait longer with --timeout S, or score on local workers "
        "with --workers N instead.\n"
    )


def test_ek_evaluate_gives_up_on_a_scheduler_without_workers_after_timeout_seconds(no_workers):
    # A real process, so that the wait is capped: before --timeout it waited for a worker forever.
    argv = [
        sys.executable,
        "-m",
        "ek",
        "evaluate",
        DEMO / "demo_ocr.jsonl",
        DEMO / "demo_ocr_b.jsonl",
        "--scheduler",
        no_workers,
        "--timeout",
        "1.5",
    ]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", _no_worker_message(no_workers, "1.5"))


def test_without_timeout_the_wait_for_a_worker_is_the_documented_default(no_workers, capsys, monkeypatch):
    from ek.cli._commands import _dask, evaluate

    assert (
        _dask.WORKER_SECONDS == 30
        and "timeout (SECONDS): how long --scheduler waits for a worker (default: 30)"
        in " ".join(evaluate.__doc__.split())
    )
    monkeypatch.setattr(_dask, "WORKER_SECONDS", 1.0)
    code, out, err = _ek(
        capsys, "evaluate", DEMO / "demo_ocr.jsonl", DEMO / "demo_ocr_b.jsonl", "--scheduler", no_workers
    )
    assert (code, out, err) == (2, "", _no_worker_message(no_workers, "1"))


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["--workers", "2", "--scheduler", "tcp://127.0.0.1:1"],
            (
                "--workers N (a local cluster) and --scheduler "
                "ADDRESS (a running one) cannot be used together; pass "
                "one of them"
            ),
        ),
        (["--workers", "0"], "--workers must be at least 1, got 0"),
        (
            ["--timeout", "5"],
            "--timeout S is how long --scheduler ADDRESS waits for a worker; pass --scheduler too, or drop --timeout",
        ),
        (
            ["--scheduler", "tcp://127.0.0.1:1", "--timeout", "0"],
            "--timeout must be a number of seconds above 0, got 0; e.g. --timeout 120",
        ),
        (
            ["--scheduler", "tcp://127.0.0.1:1", "--timeout", "nan"],
            "--timeout must be a number of seconds above 0, got nan; e.g. --timeout 120",
        ),
    ],
)
def test_ek_evaluate_cluster_options_are_checked(capsys, argv, message):
    code, out, err = _ek(capsys, "evaluate", DEMO / "demo_ocr.jsonl", DEMO / "demo_ocr_b.jsonl", *argv)
    assert (code, out) == (2, "") and err == f"ek evaluate: error: {message}.\n"


def test_ek_evaluate_keeps_text_documents_here(capsys, tmp_path):
    (tmp_path / "gold").mkdir()
    (tmp_path / "pred").mkdir()
    (tmp_path / "gold" / "a.gt.txt").write_text("cat")
    (tmp_path / "pred" / "a.txt").write_text("cut")
    code, out, err = _ek(capsys, "evaluate", tmp_path / "gold", tmp_path / "pred", "--workers", "1")
    assert (code, out) == (2, "")
    assert (
        "pred holds text documents, whose OCR measures and confusion tables are computed in this process; "
        "drop --workers/--scheduler for documents" in err
    )


# ---------------------------------------------------------------------------
# on the cluster


def test_on_the_cluster_a_bag_and_a_dataframe_give_the_serial_report(cluster):
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    graphs = [(p, g, "ab"[i % 2]) for i, (p, g) in enumerate(POOLS["typed_graph"] * 5)]
    report = ek.dask.evaluate(db.from_sequence(graphs, npartitions=4), metric="typed_graph")
    aggregate, per_slice = _oracle("typed_graph", graphs)
    assert (report.n, report.aggregate, report.per_slice) == (20, aggregate, per_slice)
    _same_intervals(_intervals(report), _intervals(ek.evaluate(graphs, metric="typed_graph")), exact=False)
    texts = [(p, g, "xyz"[i % 3]) for i, (p, g) in enumerate(POOLS["cer"] * 50)]
    frame = dd.from_pandas(pd.DataFrame(texts, columns=["pred", "gold", "lang"]), npartitions=5)
    serial = ek.evaluate(texts, metric="cer")
    report = ek.dask.evaluate(frame, metric="cer", slice="lang")
    assert (report.n, report.aggregate, report.per_slice) == (serial.n, serial.aggregate, serial.per_slice)
    assert _intervals(report) == _intervals(serial)
    docs = [f"doc-{i:03d}" for i in range(len(texts))]
    records = db.from_sequence(_records(texts, docs), npartitions=3)
    report = ek.dask.evaluate(records, metric="cer", slice="slice", id="doc")
    assert _intervals(report) == _intervals(ek.evaluate(texts, metric="cer", ids=docs)) != _intervals(serial)


def test_a_worker_killed_mid_run_costs_a_retry_not_the_run(cluster, work):
    cases = [(f"w0rd{i}", f"word{i % 7}", "ab"[i % 2]) for i in range(400)]
    cases[250] = ("KILL:evaluate", "word", "a")
    serial = ek.evaluate(cases, metric="cer")
    bag = db.from_sequence(cases, npartitions=8).map(work.die_once)
    report = ek.dask.evaluate(bag, metric="cer")
    assert (report.n, report.aggregate, report.per_slice) == (serial.n, serial.aggregate, serial.per_slice)
    assert _intervals(report) == _intervals(serial)
    assert (work.HERE / "killed-evaluate").exists()  # the worker did die


def _documents(n=24):
    return {f"k{i:02d}": {"input": f"w0rd{i}", "reference": f"word{i % 5}", "slice": "ab"[i % 2]} for i in range(n)}


def test_the_three_runners_run_on_a_dask_executor(cluster, work, tmp_path):
    executor = cluster.get_executor(pure=False)
    images = {
        f"p{i:02d}": {"image": f"page{i}0", "reference_text": f"PAGEO{i % 3}", "slice": "ab"[i % 2]} for i in range(24)
    }
    tasks = [TaskSpec(f"t{i}", input=i, gold=f"a{i}", slice="ab"[i % 2]) for i in range(8)]
    price = per_million(1.0, 5.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        serial = [
            evaluate_store(work.predict, _documents(), metric="cer"),
            evaluate_ocr(work.engine, images),
            run_suite(work.agent, tasks, k=3, seed=0, price=price),
        ]
        dask_runs = [
            evaluate_store(work.predict, _documents(), metric="cer", executor=executor),
            evaluate_ocr(work.engine, images, executor=executor),
            run_suite(work.agent, tasks, k=3, seed=0, price=price, executor=executor),
        ]
    assert dask_runs[0] == serial[0]
    assert _timeless(dask_runs[1]) == _timeless(serial[1])
    assert dask_runs[2] == serial[2]


def test_a_dask_executor_keeps_every_thread_of_the_cluster_busy(cluster):
    from ek._runs._execute import _parallelism

    class Client:  # what a bigger cluster's client says
        def nthreads(self):
            return {"tcp://10.0.0.1:1": 16, "tcp://10.0.0.2:1": 16}

    executor = cluster.get_executor(pure=False)
    assert _parallelism(executor) == sum(cluster.nthreads().values()) == 2
    executor._client = Client()
    assert _parallelism(executor) == 32  # not this machine's cores


def _timeless(report):
    """An OCR report without its wall-clock seconds, which differ between any two runs."""
    per_item = {k: {**v, "seconds": None} for k, v in report.detail["per_item"].items()}
    return (report.aggregate, report.per_slice, tuple(report.scores), per_item)


def test_an_executor_run_survives_a_killed_worker(cluster, work):
    gold = _documents()
    gold["k13"] = {**gold["k13"], "input": "KILL:store"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clean = evaluate_store(lambda text: text.replace("0", "o"), gold, metric="cer")
        report = evaluate_store(work.predict, gold, metric="cer", executor=cluster.get_executor(pure=False))
    assert (work.HERE / "killed-store").exists()
    assert report.aggregate == clean.aggregate and report.per_slice == clean.per_slice and report.n == 24


def test_a_persisted_run_on_the_cluster_resumes(cluster, work, tmp_path):
    gold = _documents()
    failing = work.HERE / "fail-w0rd23"
    failing.touch()
    executor = cluster.get_executor(pure=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match="cannot read w0rd23"):
            evaluate_store(
                work.predict, gold, metric="cer", run_id="r", rootdir=tmp_path, errors="raise", executor=executor
            )
        stored = _stored(tmp_path)
        assert len(stored) < 24
        failing.unlink()
        _settle(cluster, work)  # a chunk cancelled in flight may still be running: let it end before counting
        work.reset("predict")
        resumed = evaluate_store(work.predict, gold, metric="cer", run_id="r", rootdir=tmp_path, executor=executor)
        assert work.calls("predict") == 24 - len(stored)  # only what the first run did not store
        clean = evaluate_store(work.predict, gold, metric="cer", run_id="r", rootdir=tmp_path / "clean")
        work.reset("predict")
        again = evaluate_store(work.predict, gold, metric="cer", run_id="r", rootdir=tmp_path)
    assert resumed == clean == again
    assert work.calls("predict") == 0  # in this process: nothing left to predict
    assert json_store("runs", rootdir=tmp_path)["documents.r"]["status"] == "complete"


def _settle(client, work, timeout=30.0):
    """Wait until no worker runs anything, so a chunk cancelled in flight does not count as a later call.

    The probe lives in the work module: a function of this test module would travel by name, and a worker
    started outside the checkout cannot import ``tests.test_dask``.
    """
    deadline = time.monotonic() + timeout
    while any(client.run(work.busy).values()) and time.monotonic() < deadline:
        time.sleep(0.05)


def _stored(root):
    results = json_store("results", rootdir=root)
    return {
        json.dumps(item["key"])
        for k in results
        if k.startswith("documents.r.")
        for item in results[k]["items"].values()
    }
