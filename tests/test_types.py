"""The type check CI runs, and what shipping ``py.typed`` promises to a user's type checker.

``[tool.mypy]`` in pyproject.toml checks every package of ek with the flags of ``--strict``,
and tests/typed_usage.py, calls a user writes with ek's own strategies (each must satisfy
the Protocol the signature names). Third-party modules are followed for their types only.
It runs twice: with the packages of this environment, and in an environment that sees only
ek's core dependencies (scripts/typecheck_envs.py, which also checks each extra alone), so an
optional import checks clean whether its package is installed or not. Each run has a cache of
its own in a temporary folder (about 15 s of CPU each): a shared ``.mypy_cache`` would replay
what a run that saw other packages found.
"""

from __future__ import annotations

import ast
import importlib.util
import pathlib
import subprocess
import sys
import typing

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "ek"


def _typecheck_envs():
    spec = importlib.util.spec_from_file_location("typecheck_envs", ROOT / "scripts" / "typecheck_envs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _assert_clean(done: subprocess.CompletedProcess) -> None:
    assert done.returncode == 0, f"mypy reports errors:\n{done.stdout}{done.stderr}"
    assert "no issues found" in done.stdout, done.stdout


@pytest.mark.needs("mypy")
def test_mypy_finds_no_errors(tmp_path):
    # A cache of its own: one left by a run that saw other packages would replay that run's results.
    done = _typecheck_envs().check(pathlib.Path(sys.executable), tmp_path / "cache")
    _assert_clean(done)


@pytest.mark.needs("mypy", "packaging")
def test_mypy_finds_no_errors_with_only_the_core_installed(tmp_path):
    # Where no extra is installed, every optional import is missing: it must still check clean.
    envs = _typecheck_envs()
    python = envs.environment(tmp_path / "env", [])
    probe = "import importlib.util as u; print(*(n for n in NAMES if u.find_spec(n)))".replace(
        "NAMES", repr(("rapidfuzz", "dol", "numpy", "scipy", "networkx", "sklearn", "dask", "ocracy", "netcal"))
    )
    seen = subprocess.run([str(python), "-c", probe], capture_output=True, text=True, check=True).stdout.split()
    assert seen == ["rapidfuzz", "dol", "numpy"]  # the core, and no extra
    _assert_clean(envs.check(python, tmp_path / "cache"))


def test_the_core_environment_is_built_from_the_core_requirements_only():
    envs = _typecheck_envs()
    assert {"rapidfuzz", "dol", "numpy"} <= envs.distributions([])
    assert "scipy" not in envs.distributions([]) and "scipy" in envs.distributions(["metrics"])
    assert "dask" in envs.distributions(["dask"]) and "numpy" in envs.distributions(["dask"])
    assert set(envs.extras()) >= {"metrics", "calibration", "ocr", "dask"}


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
