"""The walk of ``ek evaluate``'s options from argv to the reader and to the metric (issue 32, item 1).

``python scripts/options_walk.py`` runs ``ek evaluate GOLD PRED`` on two small folders of text
documents under a profiler and prints, over the call stacks (ek's own frames) at each call of the
reader (``ek._files._documents.read_document``) and at each lookup of the metric in the registry
(``ek.registry.get("metrics", ...)``):

* steps: the distinct ek functions on those stacks, from ``ek.cli._main.run`` down;
* files: the distinct source files they are in;
* climbs: how many times the walk comes back up a layer between one target and the next: on the way
  from one stack's top to the frame it shares with the next stack, each return from a module of a
  lower rank (``tests/test_layering.py``) to one of a higher rank;
* metric lookups: how many times the registry was asked for the metric.

Run it with ``PYTHONPATH`` set to the tree to measure; the figures are the same on every run.
"""

from __future__ import annotations

import ast
import contextlib
import io
import itertools
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def _ranks() -> dict[str, int]:
    tree = ast.parse((ROOT / "tests" / "test_layering.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "RANKS":
            return ast.literal_eval(node.value)  # type: ignore[no-any-return]
    raise SystemExit("no RANKS in tests/test_layering.py")


def _rank(module: str, ranks: dict[str, int]) -> int:
    best = max((p for p in ranks if module == p or module.startswith(p + ".")), key=len, default="ek")
    return ranks[best]


def _corpus(folder: str) -> tuple[str, str]:
    gold, pred = os.path.join(folder, "gold"), os.path.join(folder, "pred")
    for side, texts in ((gold, ("the cat sat", "a dog ran")), (pred, ("the cut sat", "a dog ran"))):
        os.mkdir(side)
        for k, text in enumerate(texts):
            Path(side, f"p{k}.txt").write_text(text, encoding="utf-8")
    return gold, pred


def walk(argv: list[str]) -> dict[str, Any]:
    """The figures of one ``ek`` run of ``argv`` (see the module doc)."""
    import ek.cli

    stacks: list[list[tuple[str, str]]] = []
    lookups = 0

    def profile(frame: Any, event: str, arg: Any) -> None:
        nonlocal lookups
        if event != "call":
            return
        code = frame.f_code
        module = frame.f_globals.get("__name__", "")
        target = (module, code.co_name)
        is_lookup = target == ("ek.registry", "get") and frame.f_locals.get("namespace") == "metrics"
        if target != ("ek._files._documents", "read_document") and not is_lookup:
            return
        lookups += is_lookup
        stack, f = [], frame
        while f is not None:
            name = f.f_globals.get("__name__", "")
            if name.startswith("ek"):
                stack.append((name, f.f_code.co_qualname))
            if (name, f.f_code.co_name) == ("ek.cli._main", "run"):
                break
            f = f.f_back
        stacks.append(stack[::-1])

    sys.setprofile(profile)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            ek.cli.run(ek.cli.COMMANDS, argv)
    finally:
        sys.setprofile(None)
    ranks = _ranks()
    steps = {frame for stack in stacks for frame in stack}
    climbs = []
    for one, following in itertools.pairwise(stacks):
        shared = next((k for k, (a, b) in enumerate(zip(one, following)) if a != b), min(len(one), len(following)))
        back = one[max(shared - 1, 0) :]  # from the frame both share up to this stack's top
        climbs += [(a, b) for a, b in itertools.pairwise(back) if _rank(a[0], ranks) > _rank(b[0], ranks)]
    return {
        "walk": [" > ".join(q for _, q in stack) for stack in stacks],
        "steps": len(steps),
        "files": len({module for module, _ in steps}),
        "climbs": [f"{b[1]} ({b[0]}) back to {a[1]} ({a[0]})" for a, b in climbs],
        "metric lookups": lookups,
    }


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        gold, pred = _corpus(folder)
        figures = walk(["evaluate", gold, pred, "--metric", "cer", "--json", os.path.join(folder, "r.json")])
    print(
        f"steps {figures['steps']}, files {figures['files']}, climbs {len(figures['climbs'])}, "
        f"metric lookups {figures['metric lookups']}"
    )
    for stack in figures["walk"]:
        print("  to", stack)
    for climb in figures["climbs"]:
        print("  climb:", climb)


if __name__ == "__main__":
    main()
