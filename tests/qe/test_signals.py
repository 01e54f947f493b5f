"""Intrinsic signals: logprob aggregators and per-unit confidences (ek.qe.signals)."""

import math
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st

import ek
from ek.qe.signals import (
    DEFAULT_LENGTH_ALPHA,
    DEFAULT_PROB_FLOOR,
    IntrinsicConfidenceSignal,
    LogprobSignal,
    geo_mean,
    length_normalized,
    mean_prob,
    min_prob,
)

LOGPS = [math.log(0.9), math.log(0.8), math.log(0.95)]


def test_aggregators_by_hand():
    assert geo_mean(LOGPS) == pytest.approx((0.9 * 0.8 * 0.95) ** (1 / 3))
    assert round(geo_mean(LOGPS), 4) == 0.8811
    assert min_prob(LOGPS) == pytest.approx(0.8)
    assert mean_prob(LOGPS) == pytest.approx((0.9 + 0.8 + 0.95) / 3)
    # sum log p / T**alpha with T = 3
    expected = math.exp(sum(LOGPS) / 3**0.6)
    assert length_normalized(LOGPS) == pytest.approx(expected)
    assert DEFAULT_LENGTH_ALPHA == 0.6


def test_length_normalized_spans_product_to_geometric_mean():
    assert length_normalized(LOGPS, alpha=1.0) == pytest.approx(geo_mean(LOGPS))
    assert length_normalized(LOGPS, alpha=0.0) == pytest.approx(0.9 * 0.8 * 0.95)


def test_zero_probability_token_is_floored_not_dropped():
    assert min_prob([0.0, -math.inf]) == pytest.approx(DEFAULT_PROB_FLOOR)
    assert geo_mean([0.0, -math.inf]) == pytest.approx(math.sqrt(DEFAULT_PROB_FLOOR))


@given(st.lists(st.floats(min_value=-30, max_value=0), min_size=1, max_size=20))
def test_aggregators_are_probabilities_ordered_min_geo_mean(logps):
    lo, geo, mean = min_prob(logps), geo_mean(logps), mean_prob(logps)
    assert 0.0 <= lo <= geo * (1 + 1e-12) and geo <= mean * (1 + 1e-12) and mean <= 1.0


def test_logprob_signal_pools_by_name_or_callable():
    assert LogprobSignal()(LOGPS) == pytest.approx(geo_mean(LOGPS))
    assert LogprobSignal("min_prob")(LOGPS) == pytest.approx(0.8)
    assert LogprobSignal("length_normalized", alpha=1.0)(LOGPS) == pytest.approx(geo_mean(LOGPS))
    assert LogprobSignal(lambda lp: 0.5)(LOGPS) == 0.5
    assert LogprobSignal()(SimpleNamespace(logprobs=LOGPS)) == pytest.approx(geo_mean(LOGPS))
    assert LogprobSignal().cost_tier == 2
    assert set(ek.names("aggregators")) >= {"geo_mean", "length_normalized", "min_prob", "mean_prob"}


def test_intrinsic_confidence_pools():
    assert IntrinsicConfidenceSignal(pool="min")([0.99, 0.4, 0.95]) == 0.4
    assert IntrinsicConfidenceSignal(pool="mean")([0.5, 1.0]) == 0.75
    assert IntrinsicConfidenceSignal(pool="geo_mean")([0.25, 1.0]) == pytest.approx(0.5)
    assert IntrinsicConfidenceSignal()(SimpleNamespace(confidences=[0.7, 0.9])) == 0.7
    assert IntrinsicConfidenceSignal(pool="geo_mean")([0.0, 1.0]) == pytest.approx(1e-6)


# --------------------------------------------------------------------------
# OCR results (issue 11, item 7): block confidences, then the mean, then no evidence
# --------------------------------------------------------------------------


def _block(text, confidence=None, level="word"):
    return SimpleNamespace(text=text, confidence=confidence, level=level)


def _ocr(text, blocks=(), mean_confidence=None):
    return SimpleNamespace(text=text, blocks=list(blocks), mean_confidence=mean_confidence)


def test_intrinsic_pools_the_block_confidences_of_an_ocr_result():
    # the line block (0.1) repeats the words; only the finest level is pooled
    result = _ocr("net 12", [_block("net", 0.9), _block("12", 0.5), _block("net 12", 0.1, "line")], 0.5)
    assert IntrinsicConfidenceSignal(pool="min")(result) == 0.5
    assert IntrinsicConfidenceSignal(pool="mean")(result) == pytest.approx(0.7)
    assert IntrinsicConfidenceSignal(pool="geo_mean")(result) == pytest.approx(math.sqrt(0.45))
    lines = _ocr("a\nb", [_block("a", 0.8, "line"), _block("b", None, "line")])  # a block without one is skipped
    assert IntrinsicConfidenceSignal(pool="mean")(lines) == 0.8


def test_intrinsic_falls_back_to_the_mean_confidence():
    assert IntrinsicConfidenceSignal()(_ocr("x", [_block("x")], mean_confidence=0.42)) == 0.42


@pytest.mark.parametrize("pool", ["min", "mean", "geo_mean"])
def test_intrinsic_text_only_result_is_no_evidence(pool):
    assert IntrinsicConfidenceSignal(pool=pool)(_ocr("x")) == 1.0
    assert IntrinsicConfidenceSignal(pool=pool)(_ocr(None, [_block("x")])) == 1.0


def test_intrinsic_on_an_ocracy_result():
    base = pytest.importorskip("ocracy.base")
    result = base.OcrResult(
        text="a b",
        blocks=[base.TextBlock("a", confidence=0.6, level="word"), base.TextBlock("b", confidence=0.3, level="word")],
    )
    assert IntrinsicConfidenceSignal()(result) == 0.3
    assert IntrinsicConfidenceSignal()(base.OcrResult.from_text("a b")) == 1.0


def test_intrinsic_block_confidence_outside_unit_interval():
    with pytest.raises(ValueError, match=r"confidence\[0\] is 87.0, outside \[0, 1\]"):
        IntrinsicConfidenceSignal()(_ocr("x", [_block("x", 87)]))


# --------------------------------------------------------------------------
# bad input
# --------------------------------------------------------------------------


def test_positive_log_probability():
    with pytest.raises(ValueError, match=r"logps\[1\] is 0.5; a log-probability must be <= 0"):
        geo_mean([-0.1, 0.5])


def test_nan_log_probability():
    with pytest.raises(ValueError, match=r"logps\[0\] is nan"):
        min_prob([math.nan])


def test_no_tokens():
    with pytest.raises(ValueError, match="got no log-probabilities"):
        mean_prob([])


def test_unknown_aggregator_name():
    with pytest.raises(KeyError, match="Did you mean 'geo_mean'"):
        LogprobSignal("geo_man")


def test_confidence_outside_unit_interval():
    with pytest.raises(ValueError, match=r"confidence\[1\] is 95.0, outside \[0, 1\]; divide 0-100"):
        IntrinsicConfidenceSignal()([0.9, 95])


def test_unknown_pool():
    with pytest.raises(ValueError, match="pool must be one of min, mean, geo_mean"):
        IntrinsicConfidenceSignal(pool="max")


def test_bad_length_alpha():
    with pytest.raises(ValueError, match="alpha must be a finite number >= 0"):
        length_normalized(LOGPS, alpha=-1)
