"""The walk of ``ek evaluate``'s options stays short (issue 32: ≤ 15 steps, ≤ 3 climbs): one registry lookup."""

from __future__ import annotations

import importlib.util
import os
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _script():
    spec = importlib.util.spec_from_file_location("options_walk", ROOT / "scripts" / "options_walk.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_ek_evaluate_resolves_its_metric_once_in_at_most_fifteen_steps(tmp_path):
    walk = _script()
    gold, pred = walk._corpus(str(tmp_path))
    figures = walk.walk(["evaluate", gold, pred, "--metric", "cer", "--json", os.path.join(tmp_path, "r.json")])
    # once by the command (the metric asked for, kept on the scored run); the OCR scoring builds its measures
    assert figures["metric lookups"] == 1
    assert figures["steps"] <= 15, figures["walk"]
    assert len(figures["climbs"]) <= 3, figures["climbs"]
    assert sum("read_document" in stack for stack in figures["walk"]) == 4  # two documents a side
