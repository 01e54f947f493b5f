"""The run engine (ek._runs), once for its three kinds: documents, ocr and agents.

Each kind is driven through its public adapter (evaluate_store, evaluate_ocr,
run_suite) over the same shape of work: a module of picklable callables that
count their calls and can SIGKILL their own process at the Nth call. The
checks are the engine's promises: a run killed mid-way resumes to the report
of a clean run; a resume under other settings is refused, naming the
setting; a changed gold record is run again; any executor gives the serial
report; every stored record is faithful and a damaged one is named.
"""

from __future__ import annotations

import json
import math
import os
import re
import signal
import subprocess
import sys
import textwrap
import warnings
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import pytest

from ek.agents import TaskSpec, per_million, run_suite
from ek.base import GraphGrammar, Report, Score
from ek.harness import evaluate_store
from ek.metrics.graphs import TypedGraph, TypedNode
from ek.ocr import evaluate_ocr
from ek.stores import json_store

WORK = '''
import os, random, signal
from ek.agents import Cost, Episode, TaskSpec

CALLS = []


def _count():
    CALLS.append(1)
    if len(CALLS) == int(os.environ.get("KILL_AT", "0")):
        os.kill(os.getpid(), signal.SIGKILL)  # no cleanup, no finally: a real kill


def predict(text):
    _count()
    if text.endswith("!"):
        raise RuntimeError(f"cannot read {text}")
    return text.replace("0", "o")


def engine(image):
    _count()
    if image.endswith("!"):
        raise OSError(f"cannot open {image}")
    return image.upper()


def other_engine(image):
    return image.lower()


class Reader:
    """An engine with options, as ek.ocr.ocracy_backend binds one."""

    backend = "reader"

    def __init__(self, **options):
        self.options = options

    def __call__(self, image):
        return image.upper()


def agent(task, *, seed=None):
    _count()
    rng = random.Random(f"{task.task_id}:{seed}")
    if rng.random() < 0.15:
        raise RuntimeError("tool backend unavailable")
    out = task.gold if rng.random() < 0.6 else "no"
    return Episode(output=out, cost=Cost(input_tokens=rng.randint(10, 99), output_tokens=rng.randint(1, 9)))


def is_answer(episode, gold):
    return episode.output == gold


def documents():
    return {f"k{i:02d}": {"input": f"w0rd{i}" + ("!" if i % 7 == 3 else ""), "reference": f"word{i % 5}",
                          "slice": "ab"[i % 2]} for i in range(24)}


def images():
    return {f"p{i:02d}": {"image": f"page{i}" + ("!" if i % 7 == 3 else ""), "reference_text": f"PAGE{i % 5}",
                          "slice": "ab"[i % 2]} for i in range(24)}


def tasks():
    return [TaskSpec(f"t{i}", input=i, gold=f"a{i}", slice="ab"[i % 2]) for i in range(8)]
'''


@pytest.fixture
def work(tmp_path, monkeypatch):
    """The module of work callables, importable by name (so a process pool can unpickle them)."""
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "runs_work.py").write_text(WORK)
    monkeypatch.syspath_prepend(str(folder))
    sys.modules.pop("runs_work", None)
    import runs_work

    yield runs_work
    sys.modules.pop("runs_work", None)


PRICE = per_million(1.0, 5.0)


class Documents:
    kind, n_items, retried = "documents", 24, True
    call = "evaluate_store(work.predict, work.documents(), metric='cer', run_id='killed', rootdir=root)"
    imports = "from ek.harness import evaluate_store"

    def run(self, work, root, *, gold=None, run_id="r", **options):
        options.setdefault("metric", "cer")
        return evaluate_store(work.predict, gold or work.documents(), run_id=run_id, rootdir=root, **options)

    def change_gold(self, work):
        gold = work.documents()
        gold["k05"] = {**gold["k05"], "reference": "changed"}
        return gold

    def comparable(self, report):
        return report


class Ocr(Documents):
    kind = "ocr"
    call = "evaluate_ocr(work.engine, work.images(), persist=True, run_id='killed', rootdir=root)"
    imports = "from ek.ocr import evaluate_ocr"

    def run(self, work, root, *, gold=None, run_id="r", engine=None, **options):
        return evaluate_ocr(
            engine or work.engine, gold or work.images(), persist=True, run_id=run_id, rootdir=str(root), **options
        )

    def change_gold(self, work):
        gold = work.images()
        gold["p05"] = {**gold["p05"], "reference_text": "changed"}
        return gold

    def comparable(self, report):
        # Wall-clock seconds differ between any two runs; everything else must not.
        per_item = {k: {**v, "seconds": None} for k, v in report.detail["per_item"].items()}
        return Report(
            report.metric,
            report.aggregate,
            report.n,
            tuple(report.scores),
            dict(report.per_slice),
            {**report.detail, "per_item": per_item},
        )


class Agents(Documents):
    kind, n_items, retried = "agents", 24, False
    call = (
        "run_suite(work.agent, work.tasks(), k=3, seed=0, price=per_million(1.0, 5.0), persist=True, "
        "run_id='killed', rootdir=root)"
    )
    imports = "from ek.agents import per_million, run_suite"

    def run(self, work, root, *, gold=None, run_id="r", **options):
        options = {"k": 3, "seed": 0, "price": PRICE, **options}
        return run_suite(work.agent, gold or work.tasks(), persist=True, run_id=run_id, rootdir=root, **options)

    def change_gold(self, work):
        tasks = work.tasks()
        tasks[5] = TaskSpec("t5", input=5, gold="changed", slice="b")
        return tasks


KINDS = [Documents(), Ocr(), Agents()]
IDS = [k.kind for k in KINDS]


def _chunks(root, kind, run_id):
    results = json_store("results", rootdir=root)
    return [results[k] for k in results if k.startswith(f"{kind}.{run_id}.")]


def _stored(root, kind, run_id):
    return {json.dumps(item["key"]): item for c in _chunks(root, kind, run_id) for item in c["items"].values()}


# ---------------------------------------------------------------------------
# resume after a hard kill


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
@pytest.mark.parametrize("k", KINDS, ids=IDS)
def test_resume_after_sigkill_equals_a_clean_run(k, work, tmp_path):
    root = tmp_path / "data"
    script = textwrap.dedent(f"""
        import sys, warnings
        sys.path.insert(0, {str(tmp_path / "work")!r})
        warnings.simplefilter("ignore")
        import ek._runs._execute
        ek._runs._execute.FLUSH_SECONDS = 0.0  # write each finished item before the next starts
        import runs_work as work
        {k.imports}
        root = {str(root)!r}
        {k.call}
    """)
    proc = subprocess.run(
        [sys.executable, "-c", script], env={**os.environ, "KILL_AT": "11"}, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    stored = _stored(root, k.kind, "killed")
    assert len(stored) == 10  # every item finished before the kill, and nothing else
    header = json_store("runs", rootdir=root)[f"{k.kind}.killed"]
    assert (header["kind"], header["format"], header["status"]) == (k.kind, 2, "running")
    kept = sum(1 for item in stored.values() if item["error"] is None or not k.retried)

    work.CALLS.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        resumed = k.run(work, root, run_id="killed")
        assert len(work.CALLS) == k.n_items - kept  # only the items with no usable stored result
        clean = k.run(work, tmp_path / "clean", run_id="killed")
        work.CALLS.clear()
        again = k.run(work, root, run_id="killed")
    assert k.comparable(resumed) == k.comparable(clean)
    assert k.comparable(again) == k.comparable(clean)
    assert work.CALLS == [] or k.retried  # a finished run costs nothing to re-read (failed items retry)
    assert json_store("runs", rootdir=root)[f"{k.kind}.killed"]["status"] == "complete"


def test_a_third_run_predicts_nothing_and_every_result_is_on_disk(work, tmp_path):
    gold = {k: v for k, v in work.documents().items() if not v["input"].endswith("!")}

    def interrupted(text):
        if text == "w0rd12":
            raise KeyboardInterrupt
        return work.predict(text)

    with pytest.raises(KeyboardInterrupt):
        evaluate_store(interrupted, gold, metric="cer", run_id="r", rootdir=tmp_path)
    first = evaluate_store(work.predict, gold, metric="cer", run_id="r", rootdir=tmp_path)
    work.CALLS.clear()
    third = evaluate_store(work.predict, gold, metric="cer", run_id="r", rootdir=tmp_path)
    assert work.CALLS == [] and third == first
    assert sorted(json.loads(key) for key in _stored(tmp_path, "documents", "r")) == sorted(gold)
    seqs = sorted(c["seq"] for c in _chunks(tmp_path, "documents", "r"))
    assert seqs == list(range(len(seqs)))  # a resume numbers its chunks after the stored ones


# ---------------------------------------------------------------------------
# settings and gold changes


@pytest.mark.parametrize(
    "k,setting,first,second",
    [
        (KINDS[0], "metric", {"metric": "cer"}, {"metric": "wer"}),
        (KINDS[0], "normalize", {}, {"normalize": "lower"}),
        (KINDS[0], "grammar", {}, {"grammar": GraphGrammar()}),
        (KINDS[0], "weights", {}, {"weights": {"total": 2.0}}),
        (KINDS[1], "engine", {}, {"engine": "other"}),
        (KINDS[1], "engine", {"engine": "reader-a"}, {"engine": "reader-b"}),
        (KINDS[1], "metric", {}, {"metric": "wer"}),
        (KINDS[1], "normalize", {}, {"normalize": "lower"}),
        (KINDS[1], "grammar", {}, {"grammar": GraphGrammar()}),
        (KINDS[2], "price", {}, {"price": per_million(2.0, 5.0)}),
        (KINDS[2], "check", {}, {"check": "is_answer"}),
        (KINDS[2], "seed", {}, {"seed": 1}),
        (KINDS[2], "k", {}, {"k": 2}),
    ],
    ids=lambda v: v.kind if hasattr(v, "kind") else None,
)
def test_a_resume_under_other_settings_is_refused(k, setting, first, second, work, tmp_path):
    def resolve(options):
        engines = {"other": work.other_engine, "reader-a": work.Reader(lang="en"), "reader-b": work.Reader(lang="fr")}
        options = dict(options)
        if "engine" in options:
            options["engine"] = engines[options["engine"]]
        if options.get("check") == "is_answer":
            options["check"] = work.is_answer
        return options

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        k.run(work, tmp_path, **resolve(first))
        work.CALLS.clear()
        with pytest.raises(
            ValueError,
            match=rf"run_id 'r' was started with {setting}=.*but this call has "
            rf"{setting}=.*resume=False",
        ):
            k.run(work, tmp_path, **resolve(second))
        assert work.CALLS == []  # refused before any item ran


@pytest.mark.parametrize("k", KINDS, ids=IDS)
def test_a_changed_gold_record_is_run_again_not_reused(k, work, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        k.run(work, tmp_path)
        changed = k.change_gold(work)
        work.CALLS.clear()
        resumed = k.run(work, tmp_path, gold=changed)
        ran = len(work.CALLS)
        clean = k.run(work, tmp_path / "clean", gold=changed)
    failed = 0 if not k.retried else sum(1 for i in range(24) if i % 7 == 3)
    assert ran == (3 if k.kind == "agents" else 1) + failed  # the changed item (each trial of the task)
    assert k.comparable(resumed) == k.comparable(clean)


def test_a_resume_without_a_metric_uses_the_stored_one(work, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        first = evaluate_store(work.predict, work.documents(), metric="wer", run_id="r", rootdir=tmp_path)
        again = evaluate_store(work.predict, work.documents(), run_id="r", rootdir=tmp_path)
    assert again.metric == "wer" and again == first


def test_a_lambda_metric_cannot_be_resumed_and_says_so_up_front(work, tmp_path):
    calls = []
    with pytest.raises(ValueError, match=r"metric is a lambda.*persist=False"):
        evaluate_store(
            lambda x: calls.append(x) or x,
            work.documents(),
            run_id="r",
            rootdir=tmp_path,
            metric=lambda p, g, *, grammar=None: 0.0,
        )
    assert calls == []


# ---------------------------------------------------------------------------
# executors


@pytest.mark.parametrize(
    "make", [lambda: ThreadPoolExecutor(2), lambda: ProcessPoolExecutor(2)], ids=["threads", "processes"]
)
@pytest.mark.parametrize("k", KINDS, ids=IDS)
def test_executor_results_equal_serial_results(k, make, work, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        serial = k.run(work, tmp_path / "serial")
        with make() as pool:
            parallel = k.run(work, tmp_path / "parallel", executor=pool)
    assert k.comparable(parallel) == k.comparable(serial)
    stored = _stored(tmp_path / "parallel", k.kind, "r")
    assert len(stored) == 24


def test_executor_keeps_input_order_with_a_type_chosen_metric(work):
    gold = {f"k{i:03d}": {"input": f"w{i}", "reference": f"w{i % 7}"} for i in range(300)}
    serial = evaluate_store(str.upper, gold)
    with ProcessPoolExecutor(2) as pool:
        parallel = evaluate_store(str.upper, gold, executor=pool)
    assert parallel == serial and list(parallel.detail["per_item"]) == list(gold)


def test_a_process_pool_refuses_what_it_cannot_pickle_up_front(work):
    calls = []
    with ProcessPoolExecutor(1) as pool:
        with pytest.raises(
            TypeError,
            match=r"evaluate_store\(\) predict \(.*<lambda>\) cannot be pickled.*"
            r"module level.*ThreadPoolExecutor",
        ):
            evaluate_store(lambda x: calls.append(x) or x, work.documents(), executor=pool)
        with pytest.raises(TypeError, match=r"run_suite\(\) agent .*cannot be pickled"):
            run_suite(lambda t: calls.append(t), work.tasks(), executor=pool)
    assert calls == []


def test_executor_must_be_an_executor(work):
    with pytest.raises(TypeError, match=r"executor must be a concurrent.futures.Executor.*got int"):
        evaluate_ocr(work.engine, work.images(), executor=4)


def test_errors_raise_means_the_same_on_every_kind(work, tmp_path):
    with pytest.raises(RuntimeError, match="cannot read w0rd3!"):
        evaluate_store(work.predict, work.documents(), errors="raise")
    with pytest.raises(OSError, match="cannot open page3!"):
        evaluate_ocr(work.engine, work.images(), errors="raise")
    with pytest.raises(RuntimeError, match="tool backend unavailable"):
        run_suite(work.agent, work.tasks(), k=3, seed=0, errors="raise")
    for call in (
        lambda: evaluate_store(work.predict, {}, errors="skip"),
        lambda: evaluate_ocr(work.engine, work.images(), errors="skip"),
        lambda: run_suite(work.agent, work.tasks(), errors="skip"),
    ):
        with pytest.raises(ValueError, match=r"errors must be 'record' or 'raise', got 'skip'"):
            call()


# ---------------------------------------------------------------------------
# every shipped metric in a persisted, resumable run


def _graph(amount, city="Paris"):
    return TypedGraph([TypedNode("d1", "donation", {"amount": amount, "city": city})])


_TABLE = "<table><tr><td>{}</td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table>"
_METRIC_CASES = {
    "anls": [
        ({"name": "Acme Inc", "total": "10"}, {"name": "Acme", "total": "10"}),
        ({"name": "Bolt", "total": "7"}, {"name": "Bolt", "total": "9"}),
        ({"name": "Core", "total": "3"}, {"name": "Core", "total": "3"}),
    ],
    "typed_graph": [(_graph("100"), _graph("100")), (_graph("900"), _graph("100")), (_graph("5", "Lyon"), _graph("5"))],
    "span_f1_exact": [
        (["B-PER", "I-PER", "O"], ["B-PER", "I-PER", "O"]),
        (["B-LOC", "O", "O"], ["O", "B-LOC", "O"]),
        (["O", "O", "B-ORG"], ["O", "O", "B-ORG"]),
    ],
    "teds": [
        (_TABLE.format("a"), _TABLE.format("a")),
        (_TABLE.format("x"), _TABLE.format("a")),
        (_TABLE.format("ab"), _TABLE.format("a")),
    ],
}
_METRIC_CASES.update(
    {
        "typed_graph_bipartite": _METRIC_CASES["typed_graph"],
        "typed_graph_auto": _METRIC_CASES["typed_graph"],
        "span_f1_partial": _METRIC_CASES["span_f1_exact"],
        "span_f1_strict": _METRIC_CASES["span_f1_exact"],
        "span_f1_type": _METRIC_CASES["span_f1_exact"],
        "span_f1_seqeval_conll": _METRIC_CASES["span_f1_exact"],
        "span_f1_seqeval_strict": _METRIC_CASES["span_f1_exact"],
        "teds_struct": _METRIC_CASES["teds"],
        "grits": _METRIC_CASES["teds"],
        "grits_top": _METRIC_CASES["teds"],
    }
)


@pytest.mark.parametrize("metric", sorted(_METRIC_CASES))
def test_every_shipped_metric_runs_persisted_and_resumes_to_the_clean_report(metric, tmp_path):
    cases = _METRIC_CASES[metric]
    gold = {f"i{i}": {"input": i, "reference": g, "slice": "ab"[i % 2]} for i, (_, g) in enumerate(cases)}

    def interrupted(i):
        if i == 2:
            raise KeyboardInterrupt
        return cases[i][0]

    with pytest.raises(KeyboardInterrupt):
        evaluate_store(interrupted, gold, metric=metric, run_id="r", rootdir=tmp_path)
    resumed = evaluate_store(lambda i: cases[i][0], gold, metric=metric, run_id="r", rootdir=tmp_path)
    clean = evaluate_store(lambda i: cases[i][0], gold, metric=metric, run_id="r", rootdir=tmp_path / "clean")
    in_memory = evaluate_store(lambda i: cases[i][0], gold, metric=metric)
    assert resumed == clean
    assert resumed.scores == in_memory.scores and resumed.aggregate == in_memory.aggregate
    assert resumed.per_slice == in_memory.per_slice

    def scored(report):  # a prediction JSON cannot hold (a TypedGraph) is stored as its repr
        return {
            k: {f: v[f] for f in ("score", "detail", "slice", "error")} for k, v in report.detail["per_item"].items()
        }

    assert scored(resumed) == scored(in_memory)


# ---------------------------------------------------------------------------
# namespaces and faithful records


def test_kinds_never_share_a_run_and_the_cache_never_meets_a_run(work, tmp_path):
    from ek.stores import persistent_cache

    @persistent_cache(key="documents.r", rootdir=tmp_path)
    def cached():
        return {"mine": True}

    @persistent_cache(key="r", rootdir=tmp_path)
    def bare():
        return {"also mine": True}

    assert cached() == {"mine": True} and bare() == {"also mine": True}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        docs = [KINDS[0].run(work, tmp_path) for _ in range(2)]
        ocr = [KINDS[1].run(work, tmp_path) for _ in range(2)]
        agents = [KINDS[2].run(work, tmp_path) for _ in range(2)]
    assert docs[0] == docs[1] and agents[0] == agents[1]
    assert KINDS[1].comparable(ocr[0]) == KINDS[1].comparable(ocr[1])
    assert cached() == {"mine": True} and bare() == {"also mine": True}
    assert sorted(json_store("runs", rootdir=tmp_path)) == [
        "agents.r",
        "cache.documents.r",
        "cache.r",
        "documents.r",
        "ocr.r",
    ]


def test_stored_items_keep_types_json_would_lose(tmp_path):
    # Tuples, non-str keys and non-finite floats come back as they went in.
    pred = {"pair": (1, 2), 3: "int key", "inf": math.inf, "nested": [(None, True)]}

    def metric(p, g, *, grammar=None):
        return Score(1.0, metric="exact", detail={"n": 1, "seen": {(1, "a"): -math.inf}})

    gold = {"a": {"input": "x", "reference": "x"}}
    first = evaluate_store(lambda x: pred, gold, metric=metric, run_id="r", rootdir=tmp_path)
    again = evaluate_store(lambda x: pytest.fail("reused"), gold, metric=metric, run_id="r", rootdir=tmp_path)
    assert again == first
    assert again.detail["per_item"]["a"]["prediction"] == pred
    assert again.scores[0].detail["seen"] == {(1, "a"): -math.inf}
    text = next((tmp_path / "results").iterdir()).read_text()
    json.loads(text, parse_constant=lambda c: pytest.fail(f"bare {c} in a stored record"))


# ---------------------------------------------------------------------------
# damaged records


def _edit(path, change):
    record = json.loads(path.read_text())
    change(record)
    path.write_text(json.dumps(record))


def _first_item(record):
    """The stored item of the run's first key (k00, or trial 0 of t0)."""
    return next(v for v in record["items"].values() if v["key"] in ("k00", {"$tuple": ["t0", 0]}))


@pytest.mark.parametrize(
    "what,change,problem",
    [
        ("chunk", lambda r: r.update(items=[1, 2]), r"damaged documents run chunk: its 'items' is list"),
        ("chunk", lambda r: r.update(kind="agents"), r"damaged documents run chunk: its kind is 'agents'"),
        (
            "chunk",
            lambda r: _first_item(r).update(score={"$score": {"value": "high"}}),
            r"damaged documents run chunk: a stored Score has value 'high'",
        ),
        (
            "chunk",
            lambda r: _first_item(r).update(score=None),
            r"damaged documents record for item 'k00': it has no error but its score is None",
        ),
        ("chunk", lambda r: _first_item(r).update(error=7), r"record for item 'k00': its error is int"),
        ("header", lambda r: r.update(settings="cer"), r"damaged documents run header: its 'settings' is str"),
        ("header", lambda r: r.update(format=1), r"damaged documents run header: its format is 1"),
    ],
)
def test_a_damaged_run_record_names_its_file_and_what_is_wrong(what, change, problem, work, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        KINDS[0].run(work, tmp_path)
        folder, name = ("results", "documents.r.000000") if what == "chunk" else ("runs", "documents.r")
        path = tmp_path / folder / f"{name}.json"
        _edit(path, change)
        with pytest.raises(ValueError, match=rf"{path}.*{problem}"):
            KINDS[0].run(work, tmp_path)


@pytest.mark.parametrize(
    "change,problem",
    [
        (
            lambda item: item.update(cost={"$cost": {"input_tokens": -5}}),
            r"input_tokens is -5; a count can't be negative",
        ),
        (lambda item: item.update(dollars=-1.0), r"its dollars are -1.0"),
        (lambda item: item.update(success="yes"), r"its success is 'yes'"),
    ],
)
def test_a_forged_agent_trial_is_refused_naming_its_file(change, problem, work, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        KINDS[2].run(work, tmp_path)
        path = tmp_path / "results" / "agents.r.000000.json"
        _edit(path, lambda r: change(_first_item(r)))
        with pytest.raises(ValueError, match=rf"{path}.*{problem}"):
            KINDS[2].run(work, tmp_path)


def test_chunks_of_an_earlier_format_are_refused_with_a_way_out(work, tmp_path):
    json_store("runs", rootdir=tmp_path)["r"] = {"run_id": "r", "status": "running", "metric": "cer"}
    with pytest.raises(ValueError, match=r"run 'r' was stored by an earlier version of ek.*resume=False"):
        KINDS[0].run(work, tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert KINDS[0].run(work, tmp_path, resume=False).n == 21


# ---------------------------------------------------------------------------
# one writer per run; a run replaced only once its replacement is complete


HOLD = """
import sys
from ek._runs import run_lock
lock = run_lock({kind!r}, "r", rootdir={root!r}, who="holder").acquire()
print("held", flush=True)
sys.stdin.read()
"""


@pytest.mark.skipif(sys.platform == "win32", reason="flock")
@pytest.mark.parametrize("k", KINDS, ids=IDS)
def test_a_run_another_process_is_writing_is_refused_until_it_is_done(k, work, tmp_path):
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD.format(kind=k.kind, root=str(tmp_path))],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline() == "held\n"
        with pytest.raises(
            BlockingIOError,
            match=rf"^\w+: run 'r' is being written by another process \(pid "
            rf"{holder.pid} since .+ UTC\); a run has one writer at a time",
        ):
            k.run(work, tmp_path)
        assert f"{k.kind}.r" not in json_store("runs", rootdir=tmp_path)  # refused before anything was written
    finally:
        holder.communicate("", timeout=60)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert k.comparable(k.run(work, tmp_path)) == k.comparable(k.run(work, tmp_path / "clean"))


def test_a_failed_run_lets_the_next_writer_in_at_once(work, tmp_path):
    def broken(text):
        raise ValueError("model not loaded")

    with pytest.raises(ValueError, match="model not loaded") as caught:
        evaluate_store(broken, work.documents(), metric="cer", run_id="r", rootdir=tmp_path, errors="raise")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert evaluate_store(work.predict, work.documents(), metric="cer", run_id="r", rootdir=tmp_path).n == 21
    assert caught.value is not None  # the failed run's traceback is still held, and did not hold the lock


@pytest.mark.skipif(sys.platform == "win32", reason="fork")
def test_forked_pool_workers_do_not_keep_a_finished_run_locked(work, tmp_path):
    import multiprocessing

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("fork")) as pool:
            first = KINDS[0].run(work, tmp_path, executor=pool)  # the workers fork while the run is locked
            again = KINDS[0].run(work, tmp_path, executor=pool, resume=False)  # they are still alive here
    assert again == first


SLOW_WORKER = """
import os, sys, warnings, multiprocessing
from concurrent.futures import ProcessPoolExecutor

forks, (wait_r, wait_w) = [0], os.pipe()


def count():
    forks[0] += 1


def hold_back():  # the pool's second worker stops here, before ek's fork handler can close its copy of the lock
    os.close(wait_w)  # so a worker left waiting by a parent that died reads the end of the pipe
    if forks[0] == 2:
        os.read(wait_r, 1)


os.register_at_fork(before=count, after_in_child=hold_back)  # before ek is imported, so this runs first
sys.path.insert(0, {folder!r})
import runs_work as work
from ek.harness import evaluate_store

warnings.simplefilter("ignore")
with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("fork")) as pool:
    run = lambda **kw: evaluate_store(work.predict, work.documents(), metric="cer", run_id="r", rootdir={root!r},
                                      executor=pool, **kw)
    first = run()  # the first worker runs every chunk
    try:
        again = run(resume=False)
    finally:
        os.write(wait_w, b"go")
print(again == first, first.n)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="fork")
def test_a_pool_worker_slow_to_close_its_copy_of_the_lock_does_not_keep_a_finished_run_locked(work, tmp_path):
    script = SLOW_WORKER.format(folder=os.path.dirname(work.__file__), root=str(tmp_path))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert (done.returncode, done.stdout) == (0, "True 21\n"), done.stderr


def _report_copy(fd, path, conn):
    """In a forked child: say whether ``fd`` is still the lock file, then stay alive until told to go."""
    try:
        kept = os.path.samestat(os.fstat(fd), os.stat(path))
    except OSError:
        kept = False
    conn.send(kept)
    conn.recv()


@pytest.mark.skipif(sys.platform == "win32", reason="fork")
def test_a_child_forked_while_the_lock_is_being_taken_closes_its_copy(tmp_path, monkeypatch):
    import multiprocessing

    from ek._runs import _lock, run_lock

    fork, real, forked = multiprocessing.get_context("fork"), _lock._lock, []

    def lock_then_fork(fd):  # a fork (another thread's pool starting) right after the flock, as a race would place it
        real(fd)
        here, there = fork.Pipe()
        child = fork.Process(target=_report_copy, args=(fd, lock.path, there))
        child.start()
        forked.append((child, here))

    lock = run_lock("documents", "r", rootdir=tmp_path, who="t")
    monkeypatch.setattr(_lock, "_lock", lock_then_fork)
    lock.acquire()
    monkeypatch.undo()
    [(child, conn)] = forked
    try:
        assert conn.recv() is False  # the child closed its copy: the lock file was registered before it was locked
        lock.release()
        assert run_lock("documents", "r", rootdir=tmp_path, who="u").acquire().held
    finally:
        conn.send(None)
        child.join(60)
    assert child.exitcode == 0


class _Watched:
    """The lock guard, saying when a fork starts to wait for it."""

    def __init__(self, guard, waiting):
        self.guard, self.waiting = guard, waiting

    def acquire(self):
        self.waiting.set()
        return self.guard.acquire()

    def release(self):
        self.guard.release()

    def __enter__(self):
        return self.guard.__enter__()

    def __exit__(self, *exc):
        return self.guard.__exit__(*exc)


@pytest.mark.skipif(sys.platform == "win32", reason="fork")
def test_a_fork_in_another_thread_waits_for_a_lock_file_being_opened_to_be_registered(tmp_path, monkeypatch):
    import multiprocessing
    import threading

    from ek._runs import _lock, run_lock

    fork, real_open, fds = multiprocessing.get_context("fork"), os.open, []
    opened, go, waiting = threading.Event(), threading.Event(), threading.Event()

    def open_then_pause(*args, **kwargs):  # the taker stops with the file open, before it is registered
        fd = real_open(*args, **kwargs)
        if threading.current_thread() is taker:
            fds.append(fd)
            opened.set()
            go.wait(60)
        return fd

    lock = run_lock("documents", "r", rootdir=tmp_path, who="t")
    monkeypatch.setattr(_lock.os, "open", open_then_pause)
    taker, (here, there), child = threading.Thread(target=lock.acquire), fork.Pipe(), None
    try:
        taker.start()
        assert opened.wait(60)
        monkeypatch.setattr(_lock, "_GUARD", _Watched(_lock._GUARD, waiting))
        child = fork.Process(target=_report_copy, args=(fds[0], lock.path, there))
        forker = threading.Thread(target=child.start)
        forker.start()
        assert waiting.wait(60)  # the fork is held back while the lock file is half taken
        go.set()
        taker.join(60)
        forker.join(60)
        assert lock.held and here.recv() is False  # forked only once the file was registered, so it closed its copy
    finally:
        go.set()
        monkeypatch.undo()
        if child is not None and child.pid is not None:
            here.send(None)
            child.join(60)
        lock.release()


def _drop_copy(lock, conn):
    """In a forked child: report ``lock.held``, then release this copy of a lock the parent took."""
    conn.send(lock.held)
    lock.release()
    conn.send("released")


@pytest.mark.skipif(sys.platform == "win32", reason="fork")
def test_a_lock_released_in_a_process_that_did_not_take_it_stays_held(tmp_path):
    import multiprocessing

    from ek._runs import _lock, run_lock

    fork = multiprocessing.get_context("fork")
    lock = run_lock("documents", "r", rootdir=tmp_path, who="t").acquire()
    _lock._HELD.discard(lock)  # unregistered, so the child keeps a copy with the fd set, as a stray object would
    here, there = fork.Pipe()
    child = fork.Process(target=_drop_copy, args=(lock, there))
    child.start()
    assert (here.recv(), here.recv()) == (False, "released")
    child.join(60)
    assert lock.held
    with pytest.raises(BlockingIOError, match=r"^u: run 'r' is being written by another process \(pid \d+ since"):
        run_lock("documents", "r", rootdir=tmp_path, who="u").acquire()
    lock.release()
    assert run_lock("documents", "r", rootdir=tmp_path, who="u").acquire().held


def _replace_interrupted(work, root, stop_at):
    def interrupted(text):
        if text == stop_at:
            raise KeyboardInterrupt
        return work.predict(text).upper()

    with pytest.raises(KeyboardInterrupt):
        evaluate_store(interrupted, work.documents(), metric="cer", run_id="r", rootdir=root, resume=False)


def test_an_interrupted_replacement_leaves_the_old_run_whole_and_a_resume_carries_it_on(work, tmp_path):
    from ek._runs import read_run

    def shouting(text):
        return work.predict(text).upper()

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        old = evaluate_store(work.predict, work.documents(), metric="cer", run_id="r", rootdir=tmp_path)
        old_header, old_items = read_run("documents", "r", rootdir=tmp_path, who="t")
        _replace_interrupted(work, tmp_path, "w0rd9")
        header, items = read_run("documents", "r", rootdir=tmp_path, who="t")
        assert (header, items) == (old_header, old_items)  # the old run, whole, is still the one in force
        staged = json_store("runs", rootdir=tmp_path)["documents.r"]["staging"]
        assert staged["status"] == "running" and re.fullmatch(r"v[0-9a-f]{12}", staged["generation"])
        _replace_interrupted(work, tmp_path, "w0rd5")  # starting over again drops the first attempt's chunks
        names = sorted(json_store("results", rootdir=tmp_path))
        restaged = json_store("runs", rootdir=tmp_path)["documents.r"]["staging"]["generation"]
        assert names[0] == "documents.r.000000" and {n.rsplit(".", 1)[-1] for n in names[1:]} == {restaged}
        work.CALLS.clear()
        resumed = evaluate_store(shouting, work.documents(), metric="cer", run_id="r", rootdir=tmp_path)
        calls = len(work.CALLS)
        clean = evaluate_store(shouting, work.documents(), metric="cer", run_id="r", rootdir=tmp_path / "clean")
    assert calls == 24 - 4  # the replacement finished k00..k04 before it stopped; k03 failed and runs again
    assert resumed == clean and resumed != old
    header = json_store("runs", rootdir=tmp_path)["documents.r"]
    assert "staging" not in header and header["generation"] == restaged and header["status"] == "complete"
    assert {n.rsplit(".", 1)[-1] for n in json_store("results", rootdir=tmp_path)} == {restaged}


def test_a_reader_starts_over_when_a_replacement_takes_over_while_it_reads(work, tmp_path, monkeypatch):
    from ek._runs import _records, read_run

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        evaluate_store(work.predict, work.documents(), metric="cer", run_id="r", rootdir=tmp_path)
        saved = _records.RunStore.saved
        calls = []

        def replaced_first(store, *args, **kwargs):  # the first read finds the old chunks gone, as a race would
            calls.append(store.generation)
            if len(calls) == 1:
                evaluate_store(str.upper, work.documents(), metric="cer", run_id="r", rootdir=tmp_path, resume=False)
            return saved(store, *args, **kwargs)

        monkeypatch.setattr(_records.RunStore, "saved", replaced_first)
        header, items = read_run("documents", "r", rootdir=tmp_path, who="t")
    assert calls[0] == "" and calls[1] == header["generation"] != ""
    assert len(items) == 24 and {e["prediction"] for e in items.values()} >= {"W0RD1"}
