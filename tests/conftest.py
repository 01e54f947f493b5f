"""Shared test set-up: every test gets its own ek data folder, and a partial install skips, never fails.

A test that needs an optional library (an extra of ek, or a reference
library of the ``test`` extra) is skipped with the install line when that
library is missing, whether the test module imports it at the top, a
fixture imports it, or ek raises its own `MissingExtraError` deep inside a
call: `OPTIONAL` says which modules count and what installs each. Any
other import error is a real failure. Programs a test runs (Tesseract,
console scripts) are in `PROGRAMS`, found by `program` beside this
interpreter or on PATH; a ``needs`` mark names them like modules, and a
subprocess that cannot start one skips the same way. With ``EK_TEST_ALL_EXTRAS=1`` (set by
``.ci/run`` for its full run) such a skip is a failure instead (``pytest.importorskip`` included),
so CI shows that nothing went untested.

Two passes, no test run twice: ``--skipped-to=FILE`` writes the ids of the
tests (and test modules) a run skipped, and ``--rerun-skipped=FILE`` runs
exactly those, collecting no other file. (Write them with ``=``: pytest
learns these options from this file, and before it has read it, a path
after a space is taken for a test path.) ``.ci/run`` runs the README's
light install with the first, adds the heavy extras, then runs the second
with ``EK_TEST_ALL_EXTRAS=1``.

With pytest-xdist installed (the ``test`` extra) the suite runs on every
core (``-n auto``) unless ``-n``/``--numprocesses`` says otherwise (``-n 0``:
in this process), so the README's plain ``python -m pytest`` is parallel.
Every test writes under its own ``tmp_path`` and gets its own ek data
folder, so tests never share state across workers.
"""

from __future__ import annotations

import importlib.util
import os
import pathlib
import re
import shutil
import sysconfig

import pytest

try:
    _GROUPS: tuple[type[BaseException], ...] = (BaseExceptionGroup,)  # a builtin from Python 3.11
except NameError:  # Python 3.10: hypothesis raises the backport's groups
    from exceptiongroup import BaseExceptionGroup as _Backport

    _GROUPS = (_Backport,)

_TEST = 'pip install -e ".[test]"'
OPTIONAL = {
    "ocracy": 'pip install "ek[ocr]"',
    "rapidocr_onnxruntime": 'pip install "ek[rapidocr]"',
    "onnxruntime": 'pip install "ek[rapidocr]"',
    "regex": 'pip install "ek[ocr]"',
    "scipy": 'pip install "ek[metrics]"',
    "networkx": 'pip install "ek[metrics]"',
    "seqeval": 'pip install "ek[metrics]"',
    "nervaluate": 'pip install "ek[metrics]"',
    "anls_star": 'pip install "ek[metrics]"',
    "sklearn": 'pip install "ek[calibration]"',
    "crepes": 'pip install "ek[calibration]"',
    "netcal": 'pip install torch==2.13.0 "ek[netcal]"',
    "torch": 'pip install torch==2.13.0 "ek[netcal]"',
    "dask": 'pip install "ek[dask]"',
    "distributed": 'pip install "ek[dask]"',
    "pandas": 'pip install "ek[dask]"',
    "pyarrow": 'pip install "ek[dask]"',
    "cloudpickle": 'pip install "ek[dask]"',
    "PIL": 'pip install "ek[ocr]"',
    **{
        name: _TEST
        for name in (
            "hypothesis",
            "jiwer",
            "apted",
            "statsmodels",
            "inspect_ai",
            "deepeval",
            "krippendorff",
            "selenium",
            "dinglehopper",
            "ocrd_page_to_alto",
            "ocrd_validators",  # dinglehopper's dependencies, the test extra brings them
            "ocrd_models",
            "lxml",
            "uniseg",
            "mypy",
            "ruff",
            "ppi_py",
        )
    },
}
"""Top-level module -> the command that installs it."""

PROGRAMS = {
    "tesseract": "apt-get install -y tesseract-ocr",
    "page-to-alto": _TEST,  # ocrd-page-to-alto's converter
    "ek": "pip install -e .",  # the console script
}
"""Programs tests run -> the command that installs each (found by `program`; a `needs` mark takes them too)."""


def program(name: str) -> str | None:
    """The path of the program ``name``: beside this interpreter first (an installed script of a venv
    that is not activated), then on PATH; None when neither has it."""
    folders = [sysconfig.get_path("scripts"), os.environ.get("PATH", "")]
    return shutil.which(name, path=os.pathsep.join(f for f in folders if f))


ALL_EXTRAS = bool(os.environ.get("EK_TEST_ALL_EXTRAS"))
# ek's own messages (ek._util.import_optional, the netcal backend), for errors re-raised without their cause
_IMPORTORSKIP = re.compile(r"could not import ")  # how pytest.importorskip words its skip
_EK_HINT = re.compile(r"needs the optional package(?:\(s\))? '?([\w., ]+?)'?, which (?:is|are) not installed")


def missing_extra(exc: BaseException) -> str | None:
    """Why ``exc`` means an optional library is not installed (with its install line), else None."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, _GROUPS):  # hypothesis reports several failing examples at once
            return next(filter(None, map(missing_extra, exc.exceptions)), None)
        if isinstance(exc, FileNotFoundError) and exc.filename in PROGRAMS and program(exc.filename) is None:
            return f"the program {exc.filename} is not installed ({PROGRAMS[exc.filename]})"  # a subprocess run
        name = exc.name if isinstance(exc, ModuleNotFoundError) else None
        hint = _EK_HINT.search(str(exc))  # ek's own message, when it re-raised without the cause
        for top in [name] if name else hint.group(1).split(", ") if hint else ():
            top = top.split(".")[0]
            if top in OPTIONAL and importlib.util.find_spec(top) is None:
                return f"{top} is not installed ({OPTIONAL[top]})"
        exc = exc.__cause__ or exc.__context__
    return None


def pytest_addoption(parser):
    group = parser.getgroup("ek", "ek's two-pass run (tests/conftest.py)")
    group.addoption(
        "--skipped-to",
        metavar="FILE",
        help="write the ids of the tests and test modules this run skipped to FILE, one per line",
    )
    group.addoption(
        "--rerun-skipped",
        metavar="FILE",
        help="run only the tests a --skipped-to FILE lists (no other test file is collected)",
    )


@pytest.hookimpl(wrapper=True)
def pytest_cmdline_main(config):
    # Before xdist reads its options: a plain `python -m pytest` uses every core.
    if (
        config.pluginmanager.hasplugin("xdist")
        and config.option.numprocesses is None
        and not os.environ.get("PYTEST_XDIST_WORKER")
        and not config.option.collectonly
        and not config.option.usepdb
    ):
        config.option.numprocesses = "auto"
    return (yield)


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "needs(*names): the test needs these optional libraries or programs (skips without them, naming what "
        "installs them)",
    )
    if config.option.skipped_to and not os.environ.get("PYTEST_XDIST_WORKER"):
        config.pluginmanager.register(_SkipRecorder(pathlib.Path(config.option.skipped_to)), "ek-skip-recorder")
    if config.option.rerun_skipped:
        config.pluginmanager.register(_Rerun(pathlib.Path(config.option.rerun_skipped)), "ek-rerun-skipped")


class _SkipRecorder:
    """Collects the ids of what was skipped (on xdist's controller, which gets every worker's reports)."""

    def __init__(self, path: pathlib.Path) -> None:
        self.path, self.ids = path, set()

    def pytest_collectreport(self, report):
        if report.skipped:  # a module skipped whole: its id is the file's
            self.ids.add(report.nodeid)

    def pytest_runtest_logreport(self, report):
        if report.skipped and not hasattr(report, "wasxfail"):  # an xfail ran; it did not skip
            self.ids.add(report.nodeid)

    def pytest_sessionfinish(self, session):
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text("".join(f"{i}\n" for i in sorted(self.ids)), encoding="utf-8")

    def pytest_terminal_summary(self, terminalreporter):
        terminalreporter.write_line(f"{len(self.ids)} skipped test id(s) written to {self.path}")


class _Rerun:
    """Selects what a `_SkipRecorder` file lists: those files only are collected, those tests only run."""

    def __init__(self, path: pathlib.Path) -> None:
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise pytest.UsageError(
                f"--rerun-skipped {path}: {exc.strerror}; write it with --skipped-to first"
            ) from exc
        self.ids = {line.strip() for line in lines if line.strip()}
        self.files = {pathlib.Path(i.split("::")[0]).resolve() for i in self.ids}

    def pytest_ignore_collect(self, collection_path, config):
        if collection_path.is_file() and collection_path.name.startswith("test_"):
            return collection_path.resolve() not in self.files or None
        return None

    def pytest_collection_modifyitems(self, config, items):
        keep = [item for item in items if self._listed(item.nodeid)]
        dropped = [item for item in items if not self._listed(item.nodeid)]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
        items[:] = keep

    def pytest_sessionfinish(self, session, exitstatus):
        if not self.ids and exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED:
            session.exitstatus = pytest.ExitCode.OK  # the first pass skipped nothing: nothing left to run

    def _listed(self, nodeid: str) -> bool:
        return nodeid in self.ids or any(nodeid.startswith(f"{i}::") for i in self.ids)


def skip_for(reason: str) -> None:
    """Skip the current test for ``reason``, or fail it when every extra must be installed."""
    if ALL_EXTRAS:
        pytest.fail(f"EK_TEST_ALL_EXTRAS is set, yet {reason}", pytrace=False)
    pytest.skip(reason)


class _Module(pytest.Module):
    """A test module whose top-level import of a missing optional library skips the module."""

    def _getobj(self):
        try:
            return super()._getobj()
        except self.CollectError as exc:
            reason = missing_extra(exc)
            if reason is None:
                raise
            if ALL_EXTRAS:
                raise self.CollectError(f"EK_TEST_ALL_EXTRAS is set, yet {reason}") from exc
            raise pytest.skip.Exception(reason, allow_module_level=True) from exc
        except pytest.skip.Exception as exc:  # pytest.importorskip at the top of the module
            if ALL_EXTRAS and _IMPORTORSKIP.match(str(exc.msg)):
                raise self.CollectError(f"EK_TEST_ALL_EXTRAS is set, yet {exc.msg}") from exc
            raise


def pytest_pycollect_makemodule(module_path, parent):
    if module_path.name.startswith("test_"):
        return _Module.from_parent(parent, path=module_path)
    return None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item):
    for mark in item.iter_markers("needs"):
        for name in mark.args:
            if name in PROGRAMS:
                if program(name) is None:
                    skip_for(f"the program {name} is not installed ({PROGRAMS[name]})")
            elif importlib.util.find_spec(name) is None:
                skip_for(f"{name} is not installed ({OPTIONAL[name]})")
    return (yield from _skipping_missing_extras())


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    return (yield from _skipping_missing_extras())


def _skipping_missing_extras():
    """The body of a hook wrapper: run the phase, turning a missing optional library into a skip."""
    try:
        return (yield)
    except pytest.skip.Exception as exc:
        if ALL_EXTRAS and _IMPORTORSKIP.match(str(exc.msg)):
            pytest.fail(f"EK_TEST_ALL_EXTRAS is set, yet {exc.msg}", pytrace=False)
        raise
    except (Exception, pytest.fail.Exception) as exc:  # a pytest.fail raised while handling one counts too
        reason = missing_extra(exc)
        if reason is None:
            raise
        skip_for(reason)


@pytest.fixture(scope="session", name="program")
def _program():
    """`program`, for a test that runs one of `PROGRAMS` (with a `needs` mark naming it)."""
    return program


REAL_DATA = pathlib.Path(__file__).parent / "fixtures" / "real"


@pytest.fixture(scope="session")
def real_data(tmp_path_factory) -> pathlib.Path:
    """A folder with real OCR files as other tools wrote them: ``dinglehopper/`` and ``ocrd-assets/``.

    Unpacked from the archives in tests/fixtures/real (its README says what each holds, whence, and
    under which licence), once per test process.
    """
    import tarfile

    target = tmp_path_factory.mktemp("real-data")
    for archive in sorted(REAL_DATA.glob("*.tar.xz")):
        with tarfile.open(archive) as tar:
            if hasattr(tarfile, "data_filter"):  # Python 3.10.12+: refuse links and paths out of the folder
                tar.extractall(target, filter="data")
            else:
                tar.extractall(target)  # our own archive, checked in
    return target


@pytest.fixture(autouse=True)
def _isolated_data_home(tmp_path, monkeypatch):
    # Nothing a test writes may land in the real user folder.
    monkeypatch.setenv("EK_DATA_HOME", str(tmp_path / "ek-data"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))


try:
    from hypothesis import settings
except ModuleNotFoundError:  # the property tests skip, naming the test extra
    pass
else:
    # CI replays the same examples every run, so a red build is reproducible.
    settings.register_profile("ci", derandomize=True, deadline=None)
    settings.register_profile("dev", deadline=None)
    settings.load_profile("ci" if os.environ.get("CI") else "dev")
