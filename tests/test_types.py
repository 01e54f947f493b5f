"""The type check CI runs, and what shipping ``py.typed`` promises to a user's type checker.

``[tool.mypy]`` in pyproject.toml checks every package of ek with the flags of ``--strict``,
and tests/typed_usage.py, calls a user writes with ek's own strategies (each must satisfy
the Protocol the signature names). Third-party modules are followed for their types only. mypy keeps its
cache in ``.mypy_cache`` at the project root: a first run takes about 15 s,
later ones about 2 s.
"""

from __future__ import annotations

import ast
import os
import pathlib
import subprocess
import sys
import typing

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "ek"


def test_mypy_finds_no_errors():
    try:
        import mypy  # noqa: F401
    except ImportError:
        if os.environ.get("CI"):
            raise
        pytest.skip('mypy is not installed (it is in the test extra: pip install -e ".[test]")')
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, f"mypy reports errors:\n{done.stdout}{done.stderr}"
    assert "no issues found" in done.stdout, done.stdout


def test_the_package_ships_its_types():
    assert (SRC / "py.typed").is_file()


def test_the_lazy_names_have_types():
    # `import ek` loads only the core; a type checker reads the rest from the
    # TYPE_CHECKING imports, which must name exactly the lazy names.
    import ek

    typed = {}
    for node in ast.walk(ast.parse((SRC / "__init__.py").read_text(encoding="utf-8"))):
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            for imp in node.body:
                assert isinstance(imp, ast.ImportFrom), ast.dump(imp)
                typed.update((a.asname or a.name, imp.module) for a in imp.names)
    assert typed == ek._LAZY


def test_all_is_a_literal_that_lists_every_public_name():
    # A literal __all__ is what makes ``ek.score`` an export for a strict type checker.
    import ek

    tree = ast.parse((SRC / "__init__.py").read_text(encoding="utf-8"))
    literal = next(
        ast.literal_eval(n.value)
        for n in tree.body
        if isinstance(n, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in n.targets)
    )
    eager = {
        a.asname or a.name
        for n in tree.body
        if isinstance(n, ast.ImportFrom) and n.module.startswith("ek.")
        for a in n.names
    }
    assert literal == ek.__all__ == sorted(literal)
    assert set(literal) == (eager - {"__version__"}) | set(ek._LAZY)


@pytest.mark.parametrize(("module", "name"), [("ek.validate", "Corrector"), ("ek.agents.metrics", "Checker")])
def test_corrector_and_checker_are_protocols_in_their_homes(module, name):
    import importlib

    proto = getattr(importlib.import_module(module), name)
    assert typing.Protocol in proto.__mro__
    assert proto.__module__ == module
