"""Run ek's type check as it goes on machines with other sets of extras: none, each one alone, all.

    python scripts/typecheck_envs.py               # core only, each extra alone, every extra
    python scripts/typecheck_envs.py core netcal   # just these

An optional import has to check clean whether its package is installed or
not, typed or not; a check run only where everything happens to be installed
cannot tell. So for each set of extras this builds a virtual environment
that sees only ek's core dependencies and that extra's (symlinks to the
distributions installed here, so nothing is downloaded), and runs mypy as
``[tool.mypy]`` configures it with ``--python-executable`` pointing there
and a cache of its own. An extra whose packages are not installed here is
reported and skipped. Exits 1 when any check finds errors.
``tests/test_types.py`` runs the core-only case with the rest of the suite.
"""

from __future__ import annotations

import pathlib
import subprocess
import sys
import tempfile
import venv
from importlib import metadata

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = pathlib.Path(__file__).resolve().parents[1]
# Extras that only gather others (all), carry nothing (agents, report), or are the test tooling.
_NOT_CHECKED = {"all", "agents", "report", "test"}


def extras() -> list[str]:
    """The extras of ek whose packages can change what mypy sees."""
    declared = metadata.metadata("ek").get_all("Provides-Extra") or []
    return [e for e in declared if e not in _NOT_CHECKED]


def distributions(extra_names: list[str]) -> set[str]:
    """The installed distributions ek needs with these extras (its core ones always), dependencies included."""
    wanted: set[str] = set()
    todo = [(req, set(extra_names)) for req in _requirements("ek")]
    while todo:
        text, active = todo.pop()
        req = Requirement(text)
        if req.marker is not None and not any(req.marker.evaluate({"extra": e}) for e in active | {""}):
            continue
        name = canonicalize_name(req.name)
        if name == "ek":  # ek[metrics,...] inside another extra: its extras join the active ones
            todo += [(r, set(req.extras)) for r in _requirements("ek")]
            continue
        if name in wanted:
            continue
        try:
            metadata.distribution(name)
        except metadata.PackageNotFoundError:
            raise LookupError(f"{req.name} is not installed here") from None
        wanted.add(name)
        todo += [(r, set(req.extras)) for r in _requirements(name)]
    return wanted


def environment(folder: pathlib.Path, extra_names: list[str]) -> pathlib.Path:
    """A virtual environment in ``folder`` that sees only these distributions; returns its python."""
    venv.EnvBuilder(with_pip=False, symlinks=True).create(folder)
    python = folder / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")
    site = pathlib.Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    for name in distributions(extra_names):
        dist = metadata.distribution(name)
        for top in {f.parts[0] for f in dist.files or () if f.parts and f.parts[0] not in ("..", "__pycache__")}:
            if top.endswith((".dist-info", ".egg-info", ".pth")):
                continue
            target = site / top
            if not target.exists():
                target.symlink_to(pathlib.Path(str(dist.locate_file(top))))
    return python


def check(python: pathlib.Path, cache: pathlib.Path) -> subprocess.CompletedProcess[str]:
    """mypy over ek as pyproject.toml configures it, seeing the packages of ``python``."""
    command = [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml")]
    command += ["--python-executable", str(python), "--cache-dir", str(cache)]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=900)


def main(argv: list[str]) -> int:
    cases = argv or ["core", *extras(), "all"]
    failed = 0
    for case in cases:
        chosen = [] if case == "core" else extras() if case == "all" else [case]
        with tempfile.TemporaryDirectory() as tmp:
            try:
                python = environment(pathlib.Path(tmp) / "env", chosen)
            except LookupError as exc:
                print(f"{case}: skipped, {exc}")
                continue
            done = check(python, pathlib.Path(tmp) / "cache")
        last = (done.stdout.strip().splitlines() or [done.stderr.strip()])[-1]
        print(f"{case}: {last}")
        if done.returncode != 0:
            failed += 1
            print(done.stdout + done.stderr)
    return 1 if failed else 0


def _requirements(name: str) -> list[str]:
    return metadata.requires(name) or []


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
