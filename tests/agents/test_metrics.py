"""ek.agents.metrics: success oracles, task success and cost per success."""

import math

import pytest

import ek
import ek.agents  # registers the agent metrics and checkers
from ek.agents.base import Cost, Episode, RunProvenance
from ek.agents.cost import UnknownModelPrice, per_million
from ek.agents.metrics import CostPerSuccessMetric, TaskSuccessMetric, final_state_match, output_match, recorded_success
from ek.registry import get


def test_output_match_canonicalizes_and_reads_numbers():
    assert output_match(Episode(output="  The  ANSWER "), "the answer")
    assert output_match(Episode(output="42"), 42) and output_match(Episode(output="1,000"), 1000)
    assert output_match(Episode(output=4.0), "4")
    assert not output_match(Episode(output="43"), 42)
    assert not output_match(Episode(output=None), "x")
    assert output_match("raw answer", "Raw Answer")  # a bare answer is its own output


def test_final_state_match_is_structural():
    ep = Episode(final_state={"orders": [{"id": 1, "status": "refunded"}], "balance": 10})
    assert final_state_match(ep, {"balance": 10, "orders": ({"status": "refunded", "id": 1},)})
    assert not final_state_match(ep, {"balance": 11, "orders": [{"id": 1, "status": "refunded"}]})
    assert not final_state_match(Episode(), {"balance": 10})
    with pytest.raises(ValueError, match="needs the goal state"):
        final_state_match(ep, None)


def test_recorded_success():
    assert recorded_success(Episode(success=True), None) is True
    with pytest.raises(ValueError, match="nothing was recorded"):
        recorded_success(Episode(), None)


def test_checkers_are_registered():
    assert get("checkers", "output") is output_match
    assert get("checkers", "final_state") is final_state_match
    assert get("checkers", "recorded") is recorded_success


def test_task_success_metric_and_rate():
    m = TaskSuccessMetric()
    scores = [m(Episode(output="a"), "a"), m(Episode(output="b"), "a"), m(Episode(output="a"), "a")]
    assert [s.value for s in scores] == [1.0, 0.0, 1.0]
    assert m.aggregate(scores) == pytest.approx(2 / 3)
    state = TaskSuccessMetric("final_state")
    assert state(Episode(final_state={"x": 1}), {"x": 1}).value == 1.0
    custom = TaskSuccessMetric(lambda ep, gold: len(ep.output) == gold)
    assert custom(Episode(output="abc"), 3).value == 1.0
    with pytest.raises(KeyError, match="Did you mean 'output'"):
        TaskSuccessMetric("outptu")(Episode(output="a"), "a")
    with pytest.raises(TypeError, match="returned None"):
        TaskSuccessMetric(lambda ep, gold: None)(Episode(), "a")


def test_cost_per_success_is_a_ratio_of_sums():
    m = CostPerSuccessMetric(price=per_million(1.0, 1.0))
    a = m(Episode(output="y", cost=Cost(input_tokens=3_000_000)), "y")  # $3, success
    b = m(Episode(output="n", cost=Cost(input_tokens=1_000_000)), "y")  # $1, failure
    assert a.value == pytest.approx(3.0) and b.value == pytest.approx(1.0)
    assert m.aggregate([a, b]) == pytest.approx(4.0)
    assert m.aggregate([b]) == math.inf
    assert CostPerSuccessMetric.higher_is_better is False and "higher_is_better" not in a.detail


def test_cost_per_success_resolves_each_episode_model():
    table = {"cheap": per_million(1.0, 1.0), "dear": per_million(10.0, 10.0)}
    m = CostPerSuccessMetric(prices=table)
    s = m(Episode(output="y", cost=Cost(input_tokens=10**6), run=RunProvenance(model="dear")), "y")
    assert s.value == pytest.approx(10.0)
    with pytest.raises(UnknownModelPrice, match="'nope' is not in the price catalog"):
        m(Episode(output="y", cost=Cost(input_tokens=1), run=RunProvenance(model="nope")), "y")
    with pytest.raises(TypeError, match="scores an Episode"):
        m("y", "y")


def test_usable_through_ek_score_and_evaluate():
    assert ek.score(Episode(output="4"), "4", metric="task_success").value == 1.0
    report = ek.evaluate(
        [(Episode(output="4"), "4"), (Episode(output="5"), "4")],
        metric=CostPerSuccessMetric(price=per_million(1.0, 1.0)),
    )
    assert report.aggregate == 0.0 and report.n == 2


def test_score_dispatches_an_episode_to_task_success():
    import ek
    from ek.agents import Episode

    right = ek.score(Episode(task_id="t1", output="391"), "391")
    wrong = ek.score(Episode(task_id="t1", output="392"), "391")
    assert right.metric == wrong.metric == "task_success"
    assert (right.value, wrong.value) == (1.0, 0.0)
    report = ek.evaluate([(Episode(output="4"), "4"), (Episode(output="5"), "4")])
    assert report.metric == "task_success" and report.aggregate == 0.5


@pytest.mark.parametrize(
    "call",
    [
        lambda: ek.score(Episode(output="4", cost=Cost(input_tokens=10)), "4", metric="cost_per_success"),
        lambda: ek.evaluate([(Episode(output="4"), "4")], metric="cost_per_success"),
        lambda: CostPerSuccessMetric()(Episode(output="4"), "4"),  # priceless: no silent $0
    ],
    ids=["score", "evaluate", "no-price"],
)
def test_cost_per_success_by_name_says_which_rates_it_needs(call):
    with pytest.raises(UnknownModelPrice) as info:
        call()
    message = str(info.value)
    assert "can't be used by name" in message
    assert "CostPerSuccessMetric(price=per_million(input_usd, output_usd))" in message
    assert "load_prices(" in message and "Did you mean" not in message
    assert isinstance(info.value, KeyError)  # what a by-name lookup raises, per ek.registry
