"""The one rule for run options (`ek._runs`), held against every runner.

`evaluate_store`, `evaluate_ocr`, `benchmark_fleet` and `run_suite` take the same run options, in one order,
checked by one validator: a ``run_id`` implies ``persist``, a stored run without one gets a new id from the
clock, a run not stored has none; ``max_workers``/``timeout``/``executor`` mean the same everywhere.
"""

from __future__ import annotations

import inspect
import re
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

import ek.harness
from ek._runs import RUN_KEYWORDS, RunOptions, run_options
from ek.agents import TaskSpec, run_suite
from ek.harness import evaluate_store
from ek.ocr import benchmark_fleet, evaluate_ocr
from ek.stores import json_store

RUN_OPTIONS = ["persist", "run_id", "rootdir", "resume", "errors", "max_workers", "timeout", "executor", "progress"]
_NEW_ID = re.compile(r"run-\d{8}-\d{6}-[0-9a-f]{6}")


def echo(text):
    return text


def shout(text):
    return text.upper()


def read(image):
    return image  # the "image" is its own text


def answer(task):
    return task.gold


def _documents(**options):
    gold = {"a": {"input": "cat", "reference": "cat"}, "b": {"input": "dog", "reference": "DOG"}}
    report = evaluate_store(echo, gold, metric="cer", **options)
    return report.detail["run_id"], report


def _ocr(**options):
    gold = {"a": {"image": "cat", "reference_text": "cat"}, "b": {"image": "dog", "reference_text": "DOG"}}
    report = evaluate_ocr(read, gold, **options)
    return report.detail["run_id"], report


def _fleet(**options):
    gold = {"a": {"image": "cat", "reference_text": "cat"}, "b": {"image": "dog", "reference_text": "DOG"}}
    report = benchmark_fleet({"echo": read}, gold, **options)
    return report.run_id, report


def _agents(**options):
    report = run_suite(answer, [TaskSpec("t1", input="1", gold="1"), TaskSpec("t2", input="2", gold="2")], **options)
    return report.detail.get("run_id"), report


RUNNERS = {"documents": _documents, "ocr": _ocr, "fleet": _fleet, "agents": _agents}
FUNCTIONS = {"documents": evaluate_store, "ocr": evaluate_ocr, "fleet": benchmark_fleet, "agents": run_suite}


def _stored_headers(root):
    return sorted(json_store("runs", rootdir=root))


@pytest.mark.parametrize("kind", FUNCTIONS)
def test_every_runner_ends_with_the_same_run_options_in_one_order(kind):
    params = list(inspect.signature(FUNCTIONS[kind]).parameters.values())
    names = [p.name for p in params]
    expected = [n for n in RUN_OPTIONS if n != "errors"] if kind == "fleet" else RUN_OPTIONS  # the fleet records
    # the keywords, then the same options as one value (run_options=RunOptions(...))
    assert names[-len(expected) - 1 :] == [*expected, "run_options"]
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params[-len(expected) - 1 :])
    defaults = {p.name: p.default for p in params}
    assert {n: defaults[n] for n in expected} == {
        n: getattr(RunOptions(), n) if n != "max_workers" else None for n in expected
    }
    assert {n: defaults[n] for n in expected} == {n: RUN_KEYWORDS[n] for n in expected}
    assert defaults["run_options"] is None


@pytest.mark.parametrize("kind", RUNNERS)
def test_run_options_as_one_value_equal_the_keywords(kind, tmp_path):
    by_keywords = RUNNERS[kind](run_id="kw", rootdir=tmp_path / "a", max_workers=2)[1]
    one_value = RUNNERS[kind](run_options=RunOptions(run_id="kw", rootdir=tmp_path / "b", max_workers=2))[1]
    assert _stored_headers(tmp_path / "a") == _stored_headers(tmp_path / "b") != []
    if kind == "fleet":
        assert by_keywords.ranking == one_value.ranking
    elif kind == "agents":
        assert by_keywords.pass_at_k == one_value.pass_at_k
    else:
        assert by_keywords.aggregate == one_value.aggregate


@pytest.mark.parametrize("kind", RUNNERS)
def test_run_options_and_keywords_at_once_are_refused(kind):
    with pytest.raises(
        ValueError, match=r"got run_options= and max_workers=, timeout= too; pass the run options one way"
    ):
        RUNNERS[kind](run_options=RunOptions(persist=False), max_workers=3, timeout=5)


@pytest.mark.parametrize("kind", RUNNERS)
def test_run_options_must_be_a_run_options(kind):
    with pytest.raises(TypeError, match=r"run_options must be an ek.harness.RunOptions, got dict"):
        RUNNERS[kind](run_options={"persist": True})


def test_run_options_are_checked_as_the_keywords_are():
    with pytest.raises(ValueError, match="timeout must be a positive number"):
        _documents(run_options=RunOptions(timeout=-1))
    assert ek.harness.RunOptions is RunOptions


@pytest.mark.parametrize("kind", RUNNERS)
def test_a_run_id_alone_stores_the_run(kind, tmp_path):
    run_id, _ = RUNNERS[kind](run_id="nightly", rootdir=tmp_path)
    assert run_id == "nightly"
    headers = _stored_headers(tmp_path)
    assert headers == ["fleet.nightly.echo"] if kind == "fleet" else headers == [f"{kind}.nightly"]


@pytest.mark.parametrize("kind", RUNNERS)
def test_persist_without_a_run_id_gets_one_from_the_clock(kind, tmp_path):
    run_id, _ = RUNNERS[kind](persist=True, rootdir=tmp_path)
    assert _NEW_ID.fullmatch(run_id), run_id
    stored = f"fleet.{run_id}.echo" if kind == "fleet" else f"{kind}.{run_id}"
    assert _stored_headers(tmp_path) == [stored]


@pytest.mark.parametrize("kind", RUNNERS)
def test_a_run_not_stored_has_no_run_id_and_writes_nothing(kind, tmp_path):
    run_id, _ = RUNNERS[kind](rootdir=tmp_path)
    assert run_id is None
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("kind", RUNNERS)
@pytest.mark.parametrize(
    "options,message",
    [
        ({"max_workers": 0}, r"{who}\(\) max_workers must be a whole number >= 1 \(items run at once\), got 0"),
        ({"max_workers": 1.5}, r"{who}\(\) max_workers must be a whole number >= 1"),
        ({"max_workers": True}, r"{who}\(\) max_workers must be a whole number >= 1"),
        ({"timeout": 0}, r"{who}\(\) timeout must be a positive number of seconds per item or None, got 0"),
        ({"timeout": float("inf")}, r"{who}\(\) timeout must be a positive number"),
        ({"run_id": ".hidden"}, r"{who}\(\) run_id must be a non-empty str"),
        ({"max_workers": 2, "executor": "pool"}, r"{who}\(\) got both max_workers=2 and executor="),
    ],
)
def test_bad_run_options_get_one_message_from_every_runner(kind, options, message, tmp_path):
    who = FUNCTIONS[kind].__name__
    if options.get("executor") == "pool":
        with ThreadPoolExecutor(1) as pool, pytest.raises(ValueError, match=message.format(who=who)):
            RUNNERS[kind](rootdir=tmp_path, **{**options, "executor": pool})
    else:
        with pytest.raises(ValueError, match=message.format(who=who)):
            RUNNERS[kind](rootdir=tmp_path, **options)
    assert not tmp_path.exists() or list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("kind", ["documents", "ocr", "agents"])
def test_errors_is_record_or_raise_everywhere(kind, tmp_path):
    who = FUNCTIONS[kind].__name__
    with pytest.raises(ValueError, match=rf"{who}\(\) errors must be 'record' or 'raise', got 'skip'"):
        RUNNERS[kind](errors="skip")


@pytest.mark.parametrize("kind", RUNNERS)
def test_max_workers_and_an_executor_give_the_serial_report(kind):
    _, serial = RUNNERS[kind]()
    _, threaded = RUNNERS[kind](max_workers=3)
    with ThreadPoolExecutor(2) as pool:
        _, pooled = RUNNERS[kind](executor=pool)
    serial, threaded, pooled = (_comparable(x) for x in (serial, threaded, pooled))
    assert threaded == serial and pooled == serial


def _comparable(report):
    """What must not depend on how the items ran (an OCR page's seconds do)."""
    if hasattr(report, "engines"):
        return [(name, _comparable(e.report)) for name, e in report.engines.items()]
    if not hasattr(report, "per_slice") or "per_item" not in report.detail:
        return report
    items = {k: (e["prediction"], e["score"], e["error"]) for k, e in report.detail["per_item"].items()}
    return report.metric, report.aggregate, report.n, report.scores, items


def slow_upper(text):
    if text == "dog":
        time.sleep(2)
    return text.upper()


def test_evaluate_store_takes_a_timeout_like_every_runner():
    gold = {"a": {"input": "cat", "reference": "CAT"}, "b": {"input": "dog", "reference": "DOG"}}
    with pytest.warns(UserWarning, match="predict raised on 1 of 2 items"):
        report = evaluate_store(slow_upper, gold, metric="cer", timeout=0.3)
    assert report.n == 1 and report.aggregate == 0.0
    assert report.detail["errors"]["b"].startswith("TimeoutError: ")


def test_run_options_is_the_one_validator():
    options = run_options("f", run_id="r", max_workers=4, timeout=2)
    assert options == RunOptions(persist=True, run_id="r", max_workers=4, timeout=2.0)
    assert options.plan("f").calls.workers == 4 and options.plan("f").calls.timeout == 2.0
    with ThreadPoolExecutor(1) as pool:
        plan = options.plan("f", executor=pool)  # a runner's own pool stands in for the threads
        assert plan.executor is pool and plan.calls.workers == 1
    with pytest.raises(TypeError, match=r"f\(\) persist must be True or False, got str"):
        run_options("f", persist="yes")
    with pytest.raises(TypeError, match=r"f\(\) executor must be a concurrent.futures.Executor"):
        run_options("f", executor=4)
