"""`ek._files.join` pairs by id whatever the order: PRED in GOLD's order (no lookups) or any other, the same result."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ek._files import InputError, join
from ek._files._sides import Side

ids = st.lists(st.sampled_from([f"d{i}" for i in range(12)]), min_size=1, max_size=12, unique=True)
texts = st.one_of(st.none(), st.text(alphabet="ab ", max_size=4))


def _expected(gold_ids, gold_values, pred_ids, pred_values):
    """The join by hand: preds in gold order, "" for an absent or null one, the missing and extra ids."""
    by_id = dict(zip(pred_ids, pred_values))
    preds = tuple("" if by_id.get(i) is None else by_id[i] for i in gold_ids)
    missing = tuple(i for i in gold_ids if i not in by_id)
    extra = tuple(i for i in pred_ids if i not in gold_ids)
    return preds, missing, extra


@settings(max_examples=200)
@given(ids, st.data())
def test_any_pred_order_joins_as_by_hand(gold_ids, data):
    gold_values = tuple(f"g-{i}" for i in gold_ids)
    same_order = data.draw(st.booleans())
    pred_ids = list(gold_ids) if same_order else data.draw(st.permutations(gold_ids + ["x1", "x2"]))[: len(gold_ids)]
    pred_values = tuple(data.draw(texts) for _ in pred_ids)
    gold = Side("GOLD g.jsonl", "gold", tuple(gold_ids), gold_values)
    pred = Side("PRED p.jsonl", "pred", tuple(pred_ids), pred_values)
    preds, missing, extra = _expected(gold_ids, gold_values, pred_ids, pred_values)
    if extra and len(extra) == len(pred_ids):
        with pytest.raises(InputError, match=r"^nothing paired: no id of PRED p.jsonl is an id of GOLD g.jsonl"):
            join(gold, pred)
        return
    joined = join(gold, pred)
    assert joined.ids == tuple(gold_ids) and joined.golds == gold_values
    assert (joined.preds, joined.missing, joined.extra) == (preds, missing, extra)


def test_pred_in_gold_order_pairs_each_value_with_its_id():
    gold = Side("GOLD g.jsonl", "gold", ("a", "b", "c"), ("cat", "dog", "cow"))
    same = join(gold, Side("PRED p.jsonl", "pred", ("a", "b", "c"), ("ct", None, "cow")))
    shuffled = join(gold, Side("PRED p.jsonl", "pred", ("c", "a", "b"), ("cow", "ct", None)))
    assert same == shuffled
    assert same.preds == ("ct", "", "cow") and same.missing == () and same.extra == ()  # a null value is no absence
