"""The walk of ``ek evaluate``'s options stays short: the metric is looked up in the registry once by the command."""

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


def test_ek_evaluate_resolves_its_metric_once_and_climbs_back_at_most_three_times(tmp_path):
    walk = _script()
    gold, pred = walk._corpus(str(tmp_path))
    figures = walk.walk(["evaluate", gold, pred, "--metric", "cer", "--json", os.path.join(tmp_path, "r.json")])
    # once by the command (the metric asked for, kept on the scored run), once by ek.evaluate under the OCR scoring
    assert figures["metric lookups"] == 2
    assert len(figures["climbs"]) <= 3, figures["climbs"]
    assert sum("read_document" in stack for stack in figures["walk"]) == 4  # two documents a side
