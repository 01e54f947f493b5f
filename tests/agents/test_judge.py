"""ek.agents.judge (and _agreement): judge seams, position-bias correction, judge validation."""

import math
import random
import warnings

import pytest

from ek.agents.base import Episode
from ek.agents.judge import JUDGE_COST_TIER, JudgeMetric, JudgeSignal, judge_validation, pairwise_judge
from ek.base import Finding, Signal


def test_judge_signal_is_a_signal_reading_the_output():
    stub = lambda output, *, criteria="": 0.9 if "meow" in output else 0.1  # noqa: E731
    sig = JudgeSignal(stub, criteria="helpful?")
    assert isinstance(sig, Signal) and sig.cost_tier == JUDGE_COST_TIER == 5
    assert sig("the cat says meow") == 0.9
    assert sig(Episode(output="woof")) == 0.1
    seen = {}
    JudgeSignal(lambda o, *, criteria: seen.setdefault("c", criteria) and 0.5, criteria="rubric")("x")
    assert seen["c"] == "rubric"


def test_judge_signal_rejects_out_of_range_scores_and_keeps_rationales():
    with pytest.raises(ValueError, match=r"returned 7.*number in \[0, 1\]"):
        JudgeSignal(lambda o, *, criteria="": 7)("x")
    f = JudgeSignal(lambda o, *, criteria="": 0.2).finding(Episode(task_id="t9"), "cites no source")
    assert isinstance(f, Finding) and f.field == "t9" and f.message == "cites no source"


def test_judge_metric_passes_the_reference_and_averages():
    m = JudgeMetric(lambda o, *, criteria, reference: 1.0 if o == reference else 0.25, criteria="same?")
    a, b = m(Episode(output="x"), "x"), m("y", "x")
    assert (a.value, b.value) == (1.0, 0.25)
    assert m.aggregate([a, b]) == pytest.approx(0.625)


def test_pairwise_judge_cancels_position_bias():
    first_wins = lambda x, y, *, criteria="": 1.0  # noqa: E731
    assert pairwise_judge(first_wins, "A", "B") == 0.5
    assert pairwise_judge(first_wins, "A", "B", swap=False) == 1.0
    # true preference for A is 0.6; the judge adds 0.3 for whichever answer it reads first
    truth = {("A", "B"): 0.6, ("B", "A"): 0.4}
    biased = lambda x, y, *, criteria="": truth[(x, y)] + 0.3  # noqa: E731
    assert pairwise_judge(biased, "A", "B") == pytest.approx(0.6)
    assert pairwise_judge(biased, "A", "B", swap=False) == pytest.approx(0.9)


def test_judge_validation_doc_example_and_disagreement():
    r = judge_validation([1, 1, 0, 0], [1, 1, 0, 0])
    assert (r["alpha"], r["kappa"], r["percent_agreement"], r["n"], r["verdict"]) == (1.0, 1.0, 1.0, 4, "good")
    r = judge_validation([1, 0, 1, 0, 1, 0], [1, 1, 0, 0, 1, 1])
    assert r["verdict"] == "unreliable" and r["percent_agreement"] == pytest.approx(0.5)


def test_judge_validation_matches_krippendorff_and_sklearn():
    kd = pytest.importorskip("krippendorff")
    sk = pytest.importorskip("sklearn.metrics")
    import numpy as np

    rng = random.Random(3)
    human = [rng.randint(0, 3) for _ in range(60)]
    judge = [h if rng.random() < 0.75 else rng.randint(0, 3) for h in human]
    for level in ("nominal", "ordinal", "interval", "ratio"):
        ours = judge_validation(judge, human, level=level)["alpha"]
        ref = kd.alpha(reliability_data=np.array([judge, human], dtype=float), level_of_measurement=level)
        assert ours == pytest.approx(ref, abs=1e-9), level
    assert judge_validation(judge, human)["kappa"] == pytest.approx(sk.cohen_kappa_score(judge, human))


def test_judge_validation_with_missing_labels_matches_krippendorff():
    kd = pytest.importorskip("krippendorff")
    import numpy as np

    judge = [1, 2, None, 3, 3, 1, float("nan"), 2, 2, 1]
    human = [1, 2, 2, 3, 2, 1, 1, None, 2, 3]
    ours = judge_validation(judge, human, level="interval")
    ref = kd.alpha(
        reliability_data=np.array(
            [[math.nan if v is None else v for v in judge], [math.nan if v is None else v for v in human]], dtype=float
        ),
        level_of_measurement="interval",
    )
    assert ours["alpha"] == pytest.approx(ref, abs=1e-9)
    assert ours["n"] == 7 and ours["kappa"] is None


def test_judge_validation_bad_input():
    with pytest.raises(ValueError, match="3 judge labels and 2 human labels"):
        judge_validation([1, 0, 1], [1, 0])
    with pytest.raises(ValueError, match="level must be one of"):
        judge_validation([1], [1], level="cardinal")
    with pytest.raises(ValueError, match="no item labelled by both"):
        judge_validation([None, 1], [0, None])


def test_judge_validation_constant_labels_are_undefined():
    with pytest.warns(UserWarning, match="can't be told from chance"):
        r = judge_validation([1, 1, 1], [1, 1, 1])
    assert r["alpha"] is None and r["verdict"] == "undefined" and r["kappa"] is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        judge_validation([1, 0], [1, 0])
