"""Shared test set-up: every test gets its own ek data folder, and a partial install skips, never fails.

A test that needs an optional library (an extra of ek, or a reference
library of the ``test`` extra) is skipped with the install line when that
library is missing, whether the test module imports it at the top, a
fixture imports it, or ek raises its own `MissingExtraError` deep inside a
call: `OPTIONAL` says which modules count and what installs each. Any
other import error is a real failure. With ``EK_TEST_ALL_EXTRAS=1`` (set by
``.ci/run`` for its full run) such a skip is a failure instead, so CI shows
that nothing went untested.
"""

from __future__ import annotations

import importlib.util
import os
import re

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
    "regex": 'pip install "ek[metrics]"',
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
            "uniseg",
            "mypy",
            "ruff",
            "ppi_py",
        )
    },
}
"""Top-level module -> the command that installs it."""

ALL_EXTRAS = bool(os.environ.get("EK_TEST_ALL_EXTRAS"))
# ek's own messages (ek._util.import_optional, the netcal backend), for errors re-raised without their cause
_EK_HINT = re.compile(r"needs the optional package(?:\(s\))? '?([\w., ]+?)'?, which (?:is|are) not installed")


def missing_extra(exc: BaseException) -> str | None:
    """Why ``exc`` means an optional library is not installed (with its install line), else None."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, _GROUPS):  # hypothesis reports several failing examples at once
            return next(filter(None, map(missing_extra, exc.exceptions)), None)
        name = exc.name if isinstance(exc, ModuleNotFoundError) else None
        hint = _EK_HINT.search(str(exc))  # ek's own message, when it re-raised without the cause
        for top in [name] if name else hint.group(1).split(", ") if hint else ():
            top = top.split(".")[0]
            if top in OPTIONAL and importlib.util.find_spec(top) is None:
                return f"{top} is not installed ({OPTIONAL[top]})"
        exc = exc.__cause__ or exc.__context__
    return None


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "needs(*modules): the test needs these optional libraries (skips without them, naming what installs them)",
    )


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


def pytest_pycollect_makemodule(module_path, parent):
    if module_path.name.startswith("test_"):
        return _Module.from_parent(parent, path=module_path)
    return None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item):
    for mark in item.iter_markers("needs"):
        for module in mark.args:
            if importlib.util.find_spec(module) is None:
                skip_for(f"{module} is not installed ({OPTIONAL[module]})")
    return (yield from _skipping_missing_extras())


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    return (yield from _skipping_missing_extras())


def _skipping_missing_extras():
    """The body of a hook wrapper: run the phase, turning a missing optional library into a skip."""
    try:
        return (yield)
    except (Exception, pytest.fail.Exception) as exc:  # a pytest.fail raised while handling one counts too
        reason = missing_extra(exc)
        if reason is None:
            raise
        skip_for(reason)


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
