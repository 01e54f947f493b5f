"""ek.agents.cost: rates, dollars, Cost-of-Pass, the cost report and LiteLLM price files."""

import json
import math
from pathlib import Path

import pytest

from ek.agents.base import Cost, Episode, RunProvenance
from ek.agents.cost import (
    DEFAULT_BATCH_DISCOUNT,
    DEFAULT_CACHE_DISCOUNT,
    ModelPrice,
    UnknownModelPrice,
    cost_of_pass,
    cost_report,
    dollars,
    episode_dollars,
    load_prices,
    per_million,
    price_of,
)

PRICES_FILE = Path(__file__).parent / "data" / "litellm_prices.json"


def test_per_million_scales_every_rate():
    p = per_million(3.0, 15.0, cached_input=0.3, reasoning=20.0)
    assert (p.input, p.output, p.cached_input, p.reasoning) == pytest.approx((3e-6, 1.5e-5, 3e-7, 2e-5))


def test_default_cached_and_reasoning_rates():
    p = ModelPrice(input=1e-6, output=4e-6)
    assert p.cached_rate == pytest.approx(DEFAULT_CACHE_DISCOUNT * 1e-6)
    assert p.reasoning_rate == 4e-6
    with pytest.raises(ValueError, match="per_million"):
        ModelPrice(input=-1.0)


def test_dollars_bills_each_token_kind_at_its_rate():
    price = per_million(2.0, 10.0, cached_input=0.5, reasoning=12.0)
    c = Cost(input_tokens=1_000_000, cached_input_tokens=2_000_000, output_tokens=100_000, reasoning_tokens=500_000)
    expected = 2.0 + 2 * 0.5 + 0.1 * 10.0 + 0.5 * 12.0
    assert dollars(c, price) == pytest.approx(expected)
    assert dollars(c, price, batch=True) == pytest.approx(expected * DEFAULT_BATCH_DISCOUNT)


def test_dollars_by_model_name_and_unknown_model():
    table = {"m": per_million(1.0, 1.0)}
    assert dollars(Cost(input_tokens=10**6), "m", prices=table) == pytest.approx(1.0)
    with pytest.raises(UnknownModelPrice, match=r"Model 'gpt-9' is not in the price catalog.*per_million"):
        dollars(Cost(), "gpt-9", prices=table)
    with pytest.raises(UnknownModelPrice, match="ek ships no price table"):
        price_of("m")
    with pytest.raises(KeyError):  # UnknownModelPrice is a KeyError
        price_of("x", prices={})


def test_unknown_model_message_suggests_close_names():
    with pytest.raises(UnknownModelPrice) as info:
        price_of("gpt-4o-mni", prices=load_prices(PRICES_FILE))
    assert "Close names: 'gpt-4o-mini'" in str(info.value)
    assert not str(info.value).startswith('"')  # readable, not KeyError's quoted repr


def test_price_of_tolerates_provider_prefixes():
    table = load_prices(PRICES_FILE)
    assert price_of("openai/gpt-4o", prices=table) is table["gpt-4o"]
    assert price_of("gemini-2.5-flash", prices=table) is table["gemini/gemini-2.5-flash"]


def test_load_prices_reads_the_litellm_format():
    table = load_prices(PRICES_FILE)
    assert set(table) == {
        "gpt-4o",
        "gpt-4o-mini",
        "o3-mini",
        "claude-3-5-sonnet-20241022",
        "bedrock/anthropic.claude-3-haiku-20240307-v1:0",
        "gemini/gemini-2.5-flash",
        "ollama/llama3",
        "text-completion-codestral/codestral-2405",
    }
    sonnet = table["claude-3-5-sonnet-20241022"]
    assert (sonnet.input, sonnet.output, sonnet.cached_input) == (3e-06, 1.5e-05, 3e-07)
    assert sonnet.reasoning is None and sonnet.reasoning_rate == 1.5e-05
    assert table["gemini/gemini-2.5-flash"].reasoning == 2.5e-06
    assert table["gpt-4o"].cached_rate == 1.25e-06
    # the same file parsed by hand gives the same table
    assert load_prices(json.loads(PRICES_FILE.read_text())) == table


def test_load_prices_skips_template_embeddings_images_and_unpriced():
    table = load_prices(PRICES_FILE)
    for skipped in ("sample_spec", "text-embedding-3-small", "dall-e-3", "some-provider/unpriced-model"):
        assert skipped not in table


def test_load_prices_refuses_bad_files(tmp_path):
    bad = tmp_path / "p.json"
    bad.write_text("{not json")
    with pytest.raises(ValueError, match="is not valid JSON"):
        load_prices(bad)
    with pytest.raises(ValueError, match="mapping model names to price entries"):
        load_prices([1, 2])


def test_cached_input_is_billed_at_the_cached_rate_from_the_catalog():
    table = load_prices(PRICES_FILE)
    fresh = Cost(input_tokens=1_000_000)
    cached = Cost(cached_input_tokens=1_000_000)
    assert dollars(fresh, "gpt-4o", prices=table) == pytest.approx(2.5)
    assert dollars(cached, "gpt-4o", prices=table) == pytest.approx(1.25)


def test_cost_of_pass():
    assert cost_of_pass(10.0, 4) == 2.5
    assert cost_of_pass(10.0, 0) == math.inf
    assert cost_of_pass(0.0, 0) == math.inf
    with pytest.raises(ValueError, match="total_cost"):
        cost_of_pass(-1.0, 2)


def test_episode_dollars_uses_the_episode_model_or_the_split_by_model():
    table = {"a": per_million(1.0, 1.0), "b": per_million(10.0, 10.0)}
    ep = Episode(cost=Cost(input_tokens=10**6), run=RunProvenance(model="a"))
    assert episode_dollars(ep, prices=table) == pytest.approx(1.0)
    split = Episode(
        cost=Cost(input_tokens=2 * 10**6),
        run=RunProvenance(model="a"),
        meta={"cost_by_model": {"a": Cost(input_tokens=10**6), "b": Cost(input_tokens=10**6)}},
    )
    assert episode_dollars(split, prices=table) == pytest.approx(11.0)
    assert episode_dollars(Episode(), prices=table) == 0.0
    with pytest.raises(UnknownModelPrice, match="names no model"):
        episode_dollars(Episode(cost=Cost(input_tokens=1)), prices=table)


def test_cost_report_pairs_quality_cost_and_latency():
    p = per_million(1.0, 1.0)
    eps = [
        Episode(task_id="a", cost=Cost(input_tokens=10**6, latency_s=2.0), success=True),
        Episode(task_id="b", cost=Cost(input_tokens=10**6, latency_s=4.0), success=False),
        Episode(task_id="c", success=True),
    ]
    r = cost_report(eps, price=p)
    assert r["n"] == 3 and r["n_success"] == 2 and r["success_rate"] == pytest.approx(2 / 3)
    assert r["total_dollars"] == pytest.approx(2.0) and r["cost_per_success"] == pytest.approx(1.0)
    assert r["mean_latency_s"] == 3.0 and r["total_tokens"] == 2 * 10**6
    unpriced = cost_report(eps)
    assert unpriced["total_dollars"] is None and unpriced["cost_per_success"] is None
    assert unpriced["total_tokens"] == 2 * 10**6


def test_cost_report_nothing_succeeded_is_infinite():
    r = cost_report([Episode(cost=Cost(output_tokens=10), success=False)], price=per_million(1, 1))
    assert r["cost_per_success"] == math.inf
    assert cost_report([])["success_rate"] is None


def test_cost_report_refuses_ungraded_episodes():
    eps = [
        Episode(task_id="a", cost=Cost(input_tokens=10), success=True),
        Episode(task_id="b", cost=Cost(input_tokens=10)),
    ]  # never graded
    with pytest.raises(ValueError, match=r"item 1 \(task 'b'\) is ungraded \(success=None\).*Grade it first"):
        cost_report(eps, price=per_million(1.0, 1.0))
    with pytest.raises(ValueError, match="ungraded"):
        cost_report(eps)  # with or without rates
