"""The lint CI runs: ``ruff check`` and ``ruff format --check`` over the tree, as ``[tool.ruff]`` in
pyproject.toml configures them (line length 120, ruff's default rules plus E402 and E731, each
ignored rule with its reason). ruff is pinned in the test extra: a new release brings new default
rules, and a lint finding should come from a change to ek, not from the day CI ran.
"""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PATHS = ["src", "tests", "benchmarks", "scripts"]

pytest.importorskip("ruff")


def _ruff(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args, *PATHS], cwd=ROOT, capture_output=True, text=True, timeout=300
    )


def test_ruff_check_finds_nothing():
    done = _ruff("check", "--output-format", "concise")
    assert done.returncode == 0, f"ruff check reports (fix them, or `ruff check --fix`):\n{done.stdout}{done.stderr}"


def test_the_tree_is_formatted():
    done = _ruff("format", "--check")
    assert done.returncode == 0, f"not formatted (run `ruff format {' '.join(PATHS)}`):\n{done.stdout}{done.stderr}"
