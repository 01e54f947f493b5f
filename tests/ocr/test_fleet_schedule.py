"""How a fleet's engines run side by side (`ek.ocr._fleet.schedule`): ocracy engines on worker processes.

The real engines' test reads a few bundled pages for real twice, on worker processes and one engine
after the other in this process, and asks for the same report, reading by reading: the engines' output
does not depend on where or beside what they ran. The rest uses fakes and needs no engine.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import subprocess
import sys
import textwrap
import warnings
from concurrent.futures.process import BrokenProcessPool

import pytest

from ek.ocr import EngineSpec, benchmark_fleet
from ek.ocr._fleet import schedule
from ek.ocr._fleet.schedule import SpecReader, process_pool
from tests.ocr import _fleet_fakes as fakes
from tests.ocr.test_fleet import _corpus, comparable, requires_rapidocr, requires_tesseract


@pytest.fixture()
def pools(monkeypatch):
    """The sizes of the process pools the fleet asked for (0: none), in order."""
    sizes = []
    real = schedule.process_pool

    @contextlib.contextmanager
    def spy(workers):
        sizes.append(workers)
        with real(workers) as pool:
            yield pool

    monkeypatch.setattr(schedule, "process_pool", spy)
    return sizes


@requires_tesseract
@requires_rapidocr
def test_real_engines_on_worker_processes_read_what_they_read_one_at_a_time(pools):
    gold = _corpus(5)  # lines of every slice, a few seconds of reading
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the intervals of 5 pages are flagged
        side = benchmark_fleet(["tesseract", "rapidocr"], gold, max_workers=2, progress=False)
        alone = benchmark_fleet(["tesseract", "rapidocr"], gold, progress=False)
    assert pools == [2, 0]
    assert comparable(side) == comparable(alone)
    assert side.consensus_texts == alone.consensus_texts and all(side.consensus_texts.values())
    assert all(not row.errors for row in side.engines.values())


def test_callable_engines_stay_on_threads_of_this_process(pools):
    engines = {"careful": fakes.careful, "sloppy": fakes.sloppy}
    fakes.CALLS.clear()
    side = benchmark_fleet(engines, fakes.gold(6), max_workers=2)
    assert pools == [0] and len(fakes.CALLS) == 12  # every call counted here: none ran in another process
    assert comparable(side) == comparable(benchmark_fleet(engines, fakes.gold(6)))


def test_one_engine_after_the_other_starts_no_pool(pools):
    benchmark_fleet({"careful": fakes.careful}, fakes.gold(3))
    benchmark_fleet({"careful": fakes.careful}, fakes.gold(1), max_workers=2)  # one page: nothing to share
    assert pools == [0, 0]


def test_a_spec_reader_pickles_as_its_spec_and_binds_once_per_process(monkeypatch):
    from ek.ocr._fleet import engines

    bound = []

    def fake_bind(spec):
        bound.append(spec.name)
        return lambda image, **kind: f"{spec.name} read {image} {kind}"

    monkeypatch.setattr(engines, "fleet_engine", fake_bind)
    monkeypatch.setattr(schedule, "_BOUND", {})
    spec = EngineSpec("tesseract:psm=6", "tesseract", {"psm": 6})
    reader = pickle.loads(pickle.dumps(SpecReader(spec)))
    assert reader.spec == spec and bound == []  # nothing bound until the first page
    assert reader("a.png") == "tesseract:psm=6 read a.png {}"
    assert reader("b.png", kind="line") == "tesseract:psm=6 read b.png {'kind': 'line'}"
    assert bound == ["tesseract:psm=6"]


def test_worker_processes_hold_each_engine_to_one_thread(monkeypatch):
    monkeypatch.delenv("OMP_THREAD_LIMIT", raising=False)
    with process_pool(1) as pool:
        assert pool.submit(os.getenv, "OMP_THREAD_LIMIT").result() == "1"
    monkeypatch.setenv("OMP_THREAD_LIMIT", "3")  # the user's own limit is kept
    with process_pool(1) as pool:
        assert pool.submit(os.getenv, "OMP_THREAD_LIMIT").result() == "3"
    with process_pool(0) as pool:
        assert pool is None


def test_a_worker_that_dies_is_an_error_saying_what_to_do():
    with (
        pytest.raises(RuntimeError, match=r"worker processes died .* pass max_workers=1") as caught,
        process_pool(1) as pool,
    ):
        pool.submit(os._exit, 3).result()
    assert isinstance(caught.value.__cause__, BrokenProcessPool)


def test_a_script_that_runs_the_fleet_unguarded_is_told_to_guard_it(tmp_path):
    # A spawned worker imports the script first, so the script's pool starts again inside the worker's
    # start-up, which multiprocessing refuses: the worker dies and the parent sees a broken pool.
    script = tmp_path / "fleet_script.py"
    script.write_text(
        textwrap.dedent(
            """
            import os
            from ek.ocr._fleet.schedule import process_pool

            with process_pool(1) as pool:
                print(pool.submit(os.getpid).result())
            """
        )
    )
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 1
    assert "RuntimeError: benchmark_fleet()'s worker processes died" in done.stderr
    assert 'put the call under `if __name__ == "__main__":`' in done.stderr


def test_rapidocr_sessions_take_the_thread_limit(monkeypatch):
    pytest.importorskip("ocracy", reason='ocracy is not installed: pip install "ek[ocr]"')
    from ek.ocr import _rapidocr

    for value, expected in (("1", 1), ("4", 4)):
        monkeypatch.setenv("OMP_THREAD_LIMIT", value)
        assert _rapidocr._thread_options() == {"intra_op_num_threads": expected, "inter_op_num_threads": expected}
    for value in ("", "0", "many"):
        monkeypatch.setenv("OMP_THREAD_LIMIT", value)
        assert _rapidocr._thread_options() == {}
    monkeypatch.delenv("OMP_THREAD_LIMIT")
    assert _rapidocr._thread_options() == {}


def test_the_fleet_settings_are_benchmark_fleet_s_keywords_with_their_defaults():
    import dataclasses
    import inspect

    from ek.harness import RunOptions
    from ek.ocr.benchmark import FleetSettings

    params = inspect.signature(benchmark_fleet).parameters
    own = {n for n, p in params.items() if p.kind is p.KEYWORD_ONLY} - {f.name for f in dataclasses.fields(RunOptions)}
    keywords = FleetSettings().keywords()
    assert set(keywords) == own  # run_options among them: the run keywords travel as one RunOptions
    assert {n: keywords[n] for n in own - {"run_options"}} == {n: params[n].default for n in own - {"run_options"}}
    assert keywords["run_options"] == RunOptions()
