"""Every ``>>>`` example in ek's source runs and gives what it shows.

One test per module, so a failing example names its module. Doctests run
with ELLIPSIS and NORMALIZE_WHITESPACE, in the isolated data folder every
test gets (tests/conftest.py).
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import ek

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _modules() -> list[str]:
    found = ["ek"]
    for info in pkgutil.walk_packages(ek.__path__, prefix="ek."):
        found.append(info.name)
    return sorted(found)


MODULES = _modules()


def test_the_walk_finds_the_package():
    assert {"ek.facade", "ek.metrics.strings", "ek.harness", "ek._util"} <= set(MODULES)


class _Runner(doctest.DocTestRunner):
    """A doctest runner that keeps the first exception an example raised."""

    raised = None

    def report_unexpected_exception(self, out, test, example, exc_info):
        self.raised = self.raised or exc_info[1]
        super().report_unexpected_exception(out, test, example, exc_info)


@pytest.mark.parametrize("name", MODULES)
def test_module_examples(name):
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = _Runner(optionflags=FLAGS)
    for test in finder.find(module, name):
        runner.run(test)
    result = runner.summarize(verbose=False)
    if result.failed:  # raised from the first exception: an optional library missing skips (tests/conftest.py)
        raise AssertionError(
            f"{result.failed} of {result.attempted} examples in {name} failed (output above)"
        ) from runner.raised
