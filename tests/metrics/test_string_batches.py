"""The batch paths of CER and WER: the same numbers as one pair at a time, the same messages for bad items.

`StringMetric.score_many` lets ``str.strip`` and ``str.split`` refuse a
non-str item as they cut it and names the item afterwards; WER cuts its
texts in chunks (`ek.metrics._edit._CHUNK`). These tests pin both to the
pure-Python distance and to the messages of the per-item check.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ek.metrics import _edit
from ek.metrics.strings import StringMetric

CER, WER = StringMetric("cer"), StringMetric("wer")
PYTHON = _edit.backends()["python"][0]
words = st.lists(st.sampled_from(["a", "b", "ab", "\u00e9", " ", "\t", "\n", "  "]), max_size=8).map("".join)


def _pairs(n: int, seed: int) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    vocab = ["cat", "dog", "a", "the", "sat", "  ", "\t"]
    golds = [" ".join(rng.choice(vocab) for _ in range(rng.randint(0, 9))) for _ in range(n)]
    return [(" ".join(w for w in g.split() if rng.random() > 0.2) + rng.choice(["", " x"]), g) for g in golds]


@settings(max_examples=60)
@given(st.lists(st.tuples(words, words), min_size=1, max_size=40))
def test_batch_statistics_equal_the_pure_python_distance(pairs):
    preds, golds = [p for p, _ in pairs], [g for _, g in pairs]
    cer, wer = CER.score_many(preds, golds), WER.score_many(preds, golds)
    assert list(cer.column("edits")) == [PYTHON(p.strip(), g.strip()) for p, g in pairs]
    assert list(cer.column("ref_len")) == [len(g.strip()) for g in golds]
    assert list(wer.column("edits")) == [PYTHON(p.split(), g.split()) for p, g in pairs]
    assert list(wer.column("ref_len")) == [len(g.split()) for g in golds]


def test_wer_chunks_and_the_page_path_agree_with_one_pair_at_a_time():
    pairs = _pairs(3 * _edit._CHUNK + 5, 1)  # chunks of _CHUNK texts, the last one short
    pairs.append(("page " * 900, "page " * 1000))  # a gold of _LONG characters or more: the hinted loop
    preds, golds = [p for p, _ in pairs], [g for _, g in pairs]
    for batch in (WER.score_many(preds, golds), WER.score_many(preds[:-1], golds[:-1])):
        n = len(batch)
        assert list(batch.column("edits")) == [PYTHON(p.split(), g.split()) for p, g in pairs[:n]]
        assert list(batch.column("ref_len")) == [len(g.split()) for g in golds[:n]]
    assert WER.score_many(preds, golds)[-1].detail["edits"] == 100


@pytest.mark.parametrize("metric", [CER, WER], ids=["cer", "wer"])
def test_a_non_str_item_is_named_after_the_batch_refuses_it(metric):
    label = metric.mode.upper()
    with pytest.raises(TypeError, match=rf"^{label} compares strings, but item 2 pred is int: 7\."):
        metric.score_many(["a", "b", 7], ["a", "b", "c"])
    with pytest.raises(TypeError, match=rf"^{label} compares strings, but item 0 gold is bytes: b'a'\."):
        metric.score_many(["a"] * 2000, [b"a"] + ["a"] * 1999)  # past _BATCH: the cpdist path


@pytest.mark.parametrize("mode", ["cer", "wer"])
def test_a_canonicalizer_that_returns_no_str_is_named(mode):
    metric = StringMetric(mode, canonicalizer=lambda s: None if s == "b" else s)
    with pytest.raises(TypeError, match=r"^the canonicalizer returned None \(None\); every normalize step"):
        metric.score_many(["a", "b"], ["a", "a"])
    with pytest.raises(TypeError, match=rf"^{mode.upper()} compares strings, but item 1 gold is float: 1\.5\."):
        metric.score_many(["a", "b"], ["a", 1.5])  # checked before the canonicalizer sees it


def test_a_str_subclass_is_text():
    class Text(str):
        pass

    assert CER.score_many([Text("ct")], [Text("cat")])[0].detail == CER("ct", "cat").detail
    assert WER.score_many([Text("a b")], ["a c"])[0].value == 0.5
