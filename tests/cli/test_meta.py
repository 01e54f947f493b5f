"""The ``segment`` setting a report records comes from the metric's declared unit, not from its name."""

from __future__ import annotations

import json
import warnings

import pytest

import ek
import ek.registry
import ek.tools
from ek.cli import Options


class GraphemeMismatch:
    """A user's metric that reads grapheme clusters: 1 when the texts differ."""

    name = "grapheme_mismatch_test"
    unit = "grapheme"
    higher_is_better = False

    def __call__(self, pred: str, gold: str, *, grammar: object = None) -> ek.Score:
        return ek.Score(float(pred != gold), metric=self.name)


@pytest.fixture
def registered(monkeypatch):
    monkeypatch.setitem(ek.registry._registry.setdefault("metrics", {}), GraphemeMismatch.name, GraphemeMismatch())
    return GraphemeMismatch.name


@pytest.mark.parametrize(
    "metric, segment",
    [("grapheme_mismatch_test", "grapheme"), ("cer_grapheme", "grapheme"), ("cer", "codepoint"), ("wer", "codepoint")],
)
def test_the_segment_recorded_is_the_metric_s_declared_unit(tmp_path, registered, metric, segment):
    gold, pred = tmp_path / "g.jsonl", tmp_path / "p.jsonl"
    gold.write_text('{"id": "a", "text": "cat"}\n{"id": "b", "text": "dog"}\n', encoding="utf-8")
    pred.write_text('{"id": "a", "text": "cat"}\n{"id": "b", "text": "dig"}\n', encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the user's metric declares no aggregate: the mean, with a warning
        out = ek.tools.evaluate(str(gold), str(pred), options=Options(metric=metric, json="-"))
    report = json.loads(out.stdout)
    assert report["settings"]["metric"] == metric and report["settings"]["segment"] == segment
    if metric == registered:
        assert report["aggregate"] == 0.5  # one of the two items differs
