"""The figures issue 22 asks for, before and after: how much of ek is declared rather than prose.

Prints, for the tree it runs in (``python scripts/code_figures.py [SRC]``):

* the share of ``Any`` among the annotations of public functions and methods (parameters and
  returns of every public name reachable from a public module, ``self``/``cls`` left out);
* mypy errors over ``src/ek`` with ``--strict`` (needs mypy);
* ruff findings (``ruff check``, default rules; needs ruff);
* ``getattr(`` calls in ``ek/facade.py``;
* top-level units of ``src/ek`` that hold the command line;
* functions longer than 60 lines, and functions with more than 12 parameters.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

SRC = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent / "src"
CLI_UNITS = ("__main__", "tools", "_commands", "_files", "_html", "_demo", "cli")


def _public(path: Path) -> bool:
    rel = path.relative_to(SRC).with_suffix("")
    return not any(part.startswith("_") and part != "__init__" for part in rel.parts)


def _annotations(tree: ast.AST) -> tuple[int, int]:
    """(annotations, of which mention Any) over the public functions and methods of one module."""
    total = anys = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name.startswith("_"):
            continue
        body = node.body if isinstance(node, (ast.Module, ast.ClassDef)) else []
        for fn in body:
            if (
                not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
                or fn.name.startswith("_")
                and fn.name != "__call__"
            ):
                continue
            args = fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs
            args += [a for a in (fn.args.vararg, fn.args.kwarg) if a is not None]
            hints = [a.annotation for a in args if a.arg not in ("self", "cls") and a.annotation is not None]
            hints += [fn.returns] if fn.returns is not None else []
            for hint in hints:
                total += 1
                anys += "Any" in ast.unparse(hint)
    return total, anys


def _functions(tree: ast.AST) -> tuple[int, int]:
    long = wide = 0
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            long += (fn.end_lineno or fn.lineno) - fn.lineno + 1 > 60
            a = fn.args
            n = len(a.posonlyargs + a.args + a.kwonlyargs) + (a.vararg is not None) + (a.kwarg is not None)
            wide += n - (1 if a.args and a.args[0].arg in ("self", "cls") else 0) > 12
    return long, wide


def _run(cmd: list[str]) -> str:
    return subprocess.run(cmd, capture_output=True, text=True, cwd=SRC.parent).stdout


def main() -> None:
    total = anys = long = wide = 0
    for path in sorted((SRC / "ek").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if _public(path):
            t, a = _annotations(tree)
            total, anys = total + t, anys + a
        lo, wi = _functions(tree)
        long, wide = long + lo, wide + wi
    print(f"Any in public signatures: {anys} of {total} annotations ({anys / max(total, 1):.1%})")
    out = _run([sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent", "src/ek"])
    last = out.strip().splitlines()[-1] if out.strip() else "(mypy printed nothing: is it installed?)"
    print(f"mypy --strict src/ek: {last}")
    if shutil.which("ruff"):
        out = _run(["ruff", "check", "--statistics", "src"])
        n = sum(int(line.split()[0]) for line in out.splitlines() if line.strip() and line.split()[0].isdigit())
        print(f"ruff check findings: {n}")
    else:
        print("ruff check findings: ruff not installed")
    facade = (SRC / "ek" / "facade.py").read_text(encoding="utf-8")
    print(f"getattr( in ek/facade.py: {facade.count('getattr(')}")
    units = [u for u in CLI_UNITS if (SRC / "ek" / u).exists() or (SRC / "ek" / f"{u}.py").exists()]
    print(f"top-level units holding the command line: {len(units)} ({', '.join(units)})")
    print(f"functions over 60 lines: {long}; functions over 12 parameters: {wide}")


if __name__ == "__main__":
    main()
