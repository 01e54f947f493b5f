"""The mutation smoke script's planted bugs still fit the code (a refactor that moves a line must move its mutant)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _script():
    spec = importlib.util.spec_from_file_location("mutation_smoke", ROOT / "scripts" / "mutation_smoke.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the script loads
    spec.loader.exec_module(module)
    return module


def test_every_mutant_matches_one_line_and_names_existing_tests():
    smoke = _script()
    problems = [p for p in (smoke._problem(ROOT, m) for m in smoke.MUTANTS) if p]
    assert problems == []
    assert len(smoke.MUTANTS) >= 34


def test_a_mutant_that_no_longer_matches_is_reported(tmp_path):
    smoke = _script()
    m = smoke.MUTANTS[0]
    (tmp_path / Path(m.path).parent).mkdir(parents=True)
    (tmp_path / m.path).write_text("x = 1\n", encoding="utf-8")
    for t in m.tests:
        (tmp_path / t).mkdir(parents=True, exist_ok=True)
    assert (
        smoke._problem(tmp_path, m) == f"{m.name}: {m.path} has 0 lines reading {m.original!r} (expected exactly one)"
    )
    assert smoke._problem(tmp_path / "nowhere", m) == f"{m.name}: {m.path} does not exist"
