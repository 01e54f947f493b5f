"""Imports inside ek only point down the layer map (the README's "Architecture" section).

    ek._util  ek._json                stdlib helpers every layer may use; the one JSON tag codec;
    ek._reading                       how files are read (ReadOptions), named by readers and flags alike
    ek.base  ek._calls  ek._files     data model, call helpers, input files: stdlib only;
    ek._words  ek._stats              Unicode words (regex, lazily); the statistics core;
    ek._stretch                       long texts' exact distances block by block (rapidfuzz, lazily)
    ek.registry  ek.stores            infrastructure; ek._ocr_result: reads of an OcrResult;
    ek._quality_args                  the argument types of estimate_quality
    ek._bootstrap                     intervals and comparisons of reports
    ek.canonicalize  ek._align        normalize steps, alignment
    ek.metrics | ek.qe                strategies; siblings, never import each other
    ek.validate                       layered validation, on top of ek.qe
    ek.facade  (ek._estimate,         score / evaluate / estimate_quality / estimate_corpus
      ek._corpus_estimates)
    ek.harness (ek._runs)             the run engine and the offline harness
    ek.qe.monitor                     monitoring a deployed gate: PPI figures (ek._stats), state in the run engine
    ek.ocr | ek.agents                domain packages; never import each other
    ek.cli (_html, _commands, _demo)  the command line: report pages, commands, the demo;
                                      ek.cli itself: argv parsing (ek.cli.run)
    ek.tools                          the documented command functions
    ek                                the root re-exports
    ek.__main__                       the entry point: ek.tools run by ek.cli.run

Each module gets the rank of its row; a module may import only modules of a
strictly lower rank or of its own package. Lazy imports inside functions
count: a cycle or a back-edge is a design fault even when Python tolerates it.
"""

from __future__ import annotations

import ast
import pathlib

SRC = pathlib.Path(__file__).resolve().parents[1] / "src" / "ek"

# The longest matching prefix decides a module's rank.
RANKS = {
    "ek._util": 0,
    "ek._version": 0,
    "ek._json": 0,
    "ek._reading": 0,
    "ek.base": 1,
    "ek._calls": 1,
    "ek._files": 1,
    "ek._stats": 1,
    "ek._words": 1,
    "ek._stretch": 1,
    "ek.registry": 2,
    "ek.stores": 2,
    "ek._bootstrap": 2,
    "ek._ocr_result": 2,
    "ek._quality_args": 2,  # what ek.estimate_quality takes, as types built of ek.base's  # reads engines' readings typed by ek.base's OcrResult
    "ek.canonicalize": 3,
    "ek._align": 3,
    "ek.metrics": 4,
    "ek.qe": 4,
    "ek.validate": 5,
    "ek._estimate": 6,
    "ek._corpus_estimates": 6,
    "ek.facade": 7,
    "ek._runs": 8,
    "ek.harness": 9,
    "ek.qe.monitor": 9,  # it stores its state in the run engine: above it
    "ek.ocr": 10,
    "ek.agents": 10,
    "ek.dask": 10,
    "ek.cli._html": 11,
    "ek.cli._commands": 12,
    "ek.cli._demo": 13,
    "ek.cli": 14,
    "ek.tools": 15,
    "ek": 16,
    "ek.__main__": 17,
}


def module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def group(module: str) -> str:
    """The entry of RANKS that owns ``module`` (its longest matching prefix)."""
    if module == "ek":
        return "ek"
    best = max((k for k in RANKS if k != "ek" and (module == k or module.startswith(k + "."))), key=len, default=None)
    assert best is not None, f"{module} has no row in the layer map; add it to RANKS and the README"
    return best


def imports(path: pathlib.Path, known: set[str]) -> list[tuple[str, int]]:
    """Every ek module ``path`` imports (lazy ones included), with its line."""
    is_pkg = path.name == "__init__.py"
    me = module_name(path)
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names if a.name.split(".")[0] == "ek"]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = me.split(".") if is_pkg else me.split(".")[:-1]
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "ek":
                continue
            for a in node.names:  # ``from ek import _align`` imports the module ek._align
                full = f"{target}.{a.name}"
                out.append((full if full in known else target, node.lineno))
    return out


def test_imports_point_down():
    files = sorted(SRC.rglob("*.py"))
    known = {module_name(f) for f in files}
    wrong = []
    for f in files:
        me = group(module_name(f))
        for target, line in imports(f, known):
            there = group(target)
            if there != me and RANKS[there] >= RANKS[me]:
                wrong.append(
                    f"{f.relative_to(SRC.parent)}:{line} ({me}, row {RANKS[me]}) imports "
                    f"{target} ({there}, row {RANKS[there]})"
                )
    assert not wrong, "imports that point up or sideways:\n" + "\n".join(wrong)


def package(module: str) -> str:
    """The package of ek that holds ``module``: its first two parts (``ek.qe.monitor._x`` is in ``ek.qe``)."""
    return ".".join(module.split(".")[:2])


def test_no_two_packages_import_each_other():
    """A package may reach another only one way, even where the rows allow both (``ek.qe.monitor`` sits above
    ``ek._corpus_estimates`` though ``ek.qe`` is below it): what both need lives below both, as the PPI++
    estimator does in ``ek._stats._prediction_powered``."""
    files = sorted(SRC.rglob("*.py"))
    known = {module_name(f) for f in files}
    edges: dict[tuple[str, str], str] = {}
    for f in files:
        me = package(module_name(f))
        for target, line in imports(f, known):
            if package(target) != me:
                edges.setdefault((me, package(target)), f"{f.relative_to(SRC.parent)}:{line}")
    both = [f"{a} <-> {b} ({edges[a, b]}; {edges[b, a]})" for a, b in edges if a < b and (b, a) in edges]
    assert not both, "packages that import each other:\n" + "\n".join(both)
    assert ("ek._corpus_estimates", "ek.qe") in edges  # the agreement proxy reads ek.qe.rover: the one way left
    assert ("ek.qe", "ek._stats") in edges


def test_base_imports_only_the_standard_library():
    tree = ast.parse((SRC / "base.py").read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            assert node.module.split(".")[0] != "ek" or node.module == "ek._util", node.module
        elif isinstance(node, ast.Import):
            assert all(a.name.split(".")[0] != "ek" for a in node.names)
