"""The cost model: what an agent spends per successfully completed task, in dollars.

Two facts make cost per *successful* task the unit, not cost per token:

1. Tokens are not dollars. Input, cached input, output and reasoning tokens
   are priced differently (output often ~5x input, cached input a fraction
   of it), so token counts only hint at the bill.
2. Failures are not free. Tokens spent on a failed episode buy nothing, so
   the denominator is successes, not attempts. This is Cost-of-Pass,
   ``E[cost] / P(success)``, and it is infinite for an agent that never
   succeeds: such an agent is unusable, not cheap.

ek ships no price table (rates change every month). A `ModelPrice` is passed
in, or looked up in a catalog you inject, usually LiteLLM's
``model_prices_and_context_window.json`` read by `load_prices` (the data
file only; the litellm SDK is never imported). A model with no rates raises
`UnknownModelPrice`, which says how to supply them.

Exceptions: ``KeyError`` <- `UnknownModelPrice`.

>>> from ek.agents.base import Cost
>>> price = ModelPrice(input=1e-6, output=5e-6)          # $1 / $5 per 1M tokens
>>> round(dollars(Cost(input_tokens=1_000_000, output_tokens=200_000), price), 4)
2.0
"""

from __future__ import annotations

import difflib
import json
import math
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, cast

from ek._util import type_name
from ek.agents._common import cost_summary, per_success
from ek.agents.base import Cost, Episode

__all__ = [
    "DEFAULT_BATCH_DISCOUNT",
    "DEFAULT_CACHE_DISCOUNT",
    "ModelPrice",
    "UnknownModelPrice",
    "cost_of_pass",
    "cost_report",
    "dollars",
    "episode_dollars",
    "load_prices",
    "per_million",
    "price_of",
]

DEFAULT_CACHE_DISCOUNT = 0.1
"""Cached input costs this fraction of the input rate when a price declares no cached rate."""

DEFAULT_BATCH_DISCOUNT = 0.5
"""Multiplier for batch (deferred) APIs; applied only when ``batch=True`` is asked for."""

# LiteLLM modes that bill text tokens; other modes (embedding, image, audio) are skipped.
_TEXT_MODES = (None, "chat", "completion", "responses")
_PER_MILLION = 1_000_000


class UnknownModelPrice(KeyError):
    """No rates for a model in the injected price catalog."""

    def __str__(self) -> str:  # KeyError would print the message quoted
        return str(self.args[0]) if self.args else ""


@dataclass(frozen=True)
class ModelPrice:
    """Rates for one model, in USD per token.

    Args:
        input: USD per fresh input (prompt) token.
        output: USD per output (completion) token.
        cached_input: USD per cached input token; None means
            ``DEFAULT_CACHE_DISCOUNT * input``.
        reasoning: USD per reasoning token; None means the output rate (the
            major providers bill reasoning as output).
    """

    input: float = 0.0
    output: float = 0.0
    cached_input: float | None = None
    reasoning: float | None = None

    def __post_init__(self) -> None:
        for name in ("input", "output", "cached_input", "reasoning"):
            v = getattr(self, name)
            if v is None and name in ("cached_input", "reasoning"):
                continue
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
                raise ValueError(
                    f"ModelPrice {name} must be a finite number of USD per token >= 0, got {v!r}; "
                    "use per_million() to give rates per 1M tokens."
                )

    @property
    def cached_rate(self) -> float:
        """USD per cached input token (declared, else the discounted input rate)."""
        return self.cached_input if self.cached_input is not None else DEFAULT_CACHE_DISCOUNT * self.input

    @property
    def reasoning_rate(self) -> float:
        """USD per reasoning token (declared, else the output rate)."""
        return self.reasoning if self.reasoning is not None else self.output


def per_million(
    input: float, output: float, *, cached_input: float | None = None, reasoning: float | None = None
) -> ModelPrice:
    """A `ModelPrice` from rates in USD per 1M tokens, the way providers publish them.

    >>> p = per_million(3.0, 15.0)          # $3 in / $15 out per 1M tokens
    >>> round(p.input, 9), round(p.output, 9)
    (3e-06, 1.5e-05)
    """

    def scale(v: float | None, name: str) -> float | None:
        if v is None:
            return None
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise TypeError(f"per_million() {name} must be a number of USD per 1M tokens, got {v!r}.")
        return v / _PER_MILLION

    # A None input or output rate reaches ModelPrice, whose check says what is wrong.
    return ModelPrice(
        input=cast(float, scale(input, "input")),
        output=cast(float, scale(output, "output")),
        cached_input=scale(cached_input, "cached_input"),
        reasoning=scale(reasoning, "reasoning"),
    )


def price_of(model: str, *, prices: Mapping[str, ModelPrice] | None = None) -> ModelPrice:
    """The rates of ``model`` from the injected catalog ``prices``.

    A provider prefix is tolerated on either side: ``"openai/gpt-4o"`` finds
    ``"gpt-4o"`` and the other way round, when that is unambiguous.

    Raises:
        UnknownModelPrice: no catalog was given, or it has no rates for
            ``model``; the message lists close names and how to add rates.
    """
    if not isinstance(model, str) or not model:
        raise UnknownModelPrice(
            f"No model name to price (got {model!r}); record the model on the episode "
            "(RunProvenance(model=...)) or pass price=ModelPrice(...)."
        )
    if prices is None:
        raise UnknownModelPrice(
            f"No rates for model {model!r}: ek ships no price table. Pass "
            "prices=load_prices('model_prices_and_context_window.json') or "
            "price=per_million(input_usd, output_usd)."
        )
    found = _lookup(model, prices)
    if found is not None:
        return found
    close = difflib.get_close_matches(model, [str(k) for k in prices], n=3)
    hint = f" Close names: {', '.join(map(repr, close))}." if close else ""
    raise UnknownModelPrice(
        f"Model {model!r} is not in the price catalog ({len(prices)} models).{hint} Add its "
        f"rates, e.g. prices[{model!r}] = per_million(input_usd, output_usd), or pass price=..."
    )


def dollars(
    cost: Cost, price: ModelPrice | str, *, prices: Mapping[str, ModelPrice] | None = None, batch: bool = False
) -> float:
    """USD billed for one `Cost` tally.

    Args:
        cost: the token tally.
        price: a `ModelPrice`, or a model name looked up in ``prices``.
        prices: the injected catalog (needed when ``price`` is a name).
        batch: apply `DEFAULT_BATCH_DISCOUNT` (batch APIs).

    Raises:
        UnknownModelPrice: ``price`` names a model the catalog lacks.
    """
    if not isinstance(cost, Cost):
        raise TypeError(f"dollars() needs a Cost, got {type_name(cost)}; see cost_from_usage().")
    rate = _as_price(price, prices)
    total = (
        cost.input_tokens * rate.input
        + cost.cached_input_tokens * rate.cached_rate
        + cost.output_tokens * rate.output
        + cost.reasoning_tokens * rate.reasoning_rate
    )
    return total * DEFAULT_BATCH_DISCOUNT if batch else total


def episode_dollars(
    episode: Episode,
    *,
    prices: Mapping[str, ModelPrice] | None = None,
    price: ModelPrice | str | None = None,
    batch: bool = False,
) -> float:
    """USD billed for one episode (0.0 when it carries no `Cost`).

    With ``price`` every token is billed at it. Otherwise the episode's model
    (``episode.run.model``) is looked up in ``prices``; an episode whose
    ``meta["cost_by_model"]`` splits usage by model (an Inspect sample that
    used several models) is billed model by model.

    Raises:
        UnknownModelPrice: no ``price`` and the model is not in ``prices``.
    """
    if episode.cost is None:
        return 0.0
    if price is not None:
        return dollars(episode.cost, price, prices=prices, batch=batch)
    by_model = episode.meta.get("cost_by_model") if isinstance(episode.meta, Mapping) else None
    if by_model and all(isinstance(c, Cost) for c in by_model.values()):
        return sum(dollars(c, m, prices=prices, batch=batch) for m, c in by_model.items())
    model = episode.run.model if episode.run is not None else ""
    if not model:
        raise UnknownModelPrice(
            f"Episode {episode.task_id!r} names no model, so its tokens can't be priced; "
            "pass price=ModelPrice(...) or record RunProvenance(model=...) on the episode."
        )
    return dollars(episode.cost, model, prices=prices, batch=batch)


def cost_of_pass(total_cost: float, n_success: int) -> float:
    """Expected cost of one successful task, ``total_cost / n_success`` (lower is better).

    ``inf`` when nothing succeeded: an agent that never succeeds is not cheap.

    >>> cost_of_pass(10.0, 4)
    2.5
    >>> cost_of_pass(10.0, 0)
    inf
    """
    if (
        isinstance(total_cost, bool)
        or not isinstance(total_cost, (int, float))
        or math.isnan(total_cost)
        or total_cost < 0
    ):
        raise ValueError(f"cost_of_pass() total_cost must be a number of USD >= 0, got {total_cost!r}.")
    if isinstance(n_success, bool) or not isinstance(n_success, (int, float)) or n_success < 0:
        raise ValueError(f"cost_of_pass() n_success must be a count >= 0, got {n_success!r}.")
    return per_success(float(total_cost), n_success)


def cost_report(
    episodes: Iterable[Episode],
    *,
    prices: Mapping[str, ModelPrice] | None = None,
    price: ModelPrice | str | None = None,
) -> dict[str, object]:
    """Quality, cost and latency of a set of graded episodes, side by side.

    Returns a dict with ``n``, ``n_success``, ``success_rate``,
    ``total_dollars``, ``cost_per_success`` (Cost-of-Pass, ``inf`` when
    nothing succeeded), ``mean_latency_s``, ``total_tokens``, and the
    per-kind token totals. Without ``price`` or ``prices`` the dollar figures
    are None: ek invents no rates, and 0.0 would make a costly agent look
    free. ``success_rate`` is None for no episodes; ``mean_latency_s`` is
    None when no episode reported a latency.

    Raises:
        ValueError: an episode is ungraded (``success is None``), as in
            `ek.agents.reliability`.
        TypeError: an item is not an `Episode`.

    >>> from ek.agents.base import Cost, Episode
    >>> eps = [Episode(task_id="a", cost=Cost(input_tokens=1_000_000), success=True),
    ...        Episode(task_id="b", cost=Cost(input_tokens=1_000_000), success=False)]
    >>> round(cost_report(eps, price=per_million(1.0, 1.0))["cost_per_success"], 2)
    2.0
    """
    eps = list(episodes)
    for i, ep in enumerate(eps):
        if not isinstance(ep, Episode):
            raise TypeError(f"cost_report() item {i} is {type_name(ep)}, not an Episode.")
        if ep.success is None:
            raise ValueError(
                f"cost_report() item {i} (task {ep.task_id!r}) is ungraded (success=None); an "
                "ungraded episode is not a failed one, and counting it as failed would understate "
                "the success rate and overstate the cost per success. Grade it first, e.g. "
                "ep.graded(output_match(ep, gold)), or use run_suite()."
            )
    priced = price is not None or prices is not None
    spent = [episode_dollars(ep, prices=prices, price=price) for ep in eps] if priced else None
    return cost_summary([ep.cost for ep in eps], [ep.success is True for ep in eps], spent)


def load_prices(source: str | os.PathLike[str] | Mapping[str, object]) -> dict[str, ModelPrice]:
    """A ``{model: ModelPrice}`` table from a LiteLLM-format price catalog.

    ``source`` is a path to LiteLLM's ``model_prices_and_context_window.json``
    (MIT-licensed data) or the parsed mapping. Read per entry:
    ``input_cost_per_token``, ``output_cost_per_token``,
    ``cache_read_input_token_cost`` and ``output_cost_per_reasoning_token``.
    The ``sample_spec`` template, non-text modes (embeddings, images, audio)
    and entries without both token rates are skipped.

    Raises:
        ValueError: the file is not JSON or not an object of model entries.

    >>> table = load_prices({"m": {"input_cost_per_token": 1e-6,
    ...                            "output_cost_per_token": 2e-6}})
    >>> table["m"].output
    2e-06
    """
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        try:
            with open(path, encoding="utf-8") as fh:
                data = json.load(fh)
        except json.JSONDecodeError as exc:
            raise ValueError(
                f"load_prices(): {path} is not valid JSON ({exc}); pass LiteLLM's "
                "model_prices_and_context_window.json or a dict of the same shape."
            ) from None
    else:
        data = source
    if not isinstance(data, Mapping):
        raise ValueError(
            f"load_prices() expects an object mapping model names to price entries, got "
            f"{type_name(data)}; this is the layout of LiteLLM's model_prices_and_context_window.json."
        )
    table = {}
    for model, entry in data.items():
        if model == "sample_spec" or not isinstance(entry, Mapping):
            continue
        if entry.get("mode") not in _TEXT_MODES:
            continue
        rates = [
            _rate(entry.get(key))
            for key in (
                "input_cost_per_token",
                "output_cost_per_token",
                "cache_read_input_token_cost",
                "output_cost_per_reasoning_token",
            )
        ]
        if rates[0] is None or rates[1] is None:
            continue
        table[str(model)] = ModelPrice(input=rates[0], output=rates[1], cached_input=rates[2], reasoning=rates[3])
    return table


# --------------------------------------------------------------------------


def _as_price(price: Any, prices: Mapping[str, ModelPrice] | None) -> ModelPrice:
    if isinstance(price, ModelPrice):
        return price
    if isinstance(price, str):
        return price_of(price, prices=prices)
    raise TypeError(
        f"price must be a ModelPrice or a model name, got {type_name(price)}; "
        "build one with per_million(input_usd, output_usd)."
    )


def _lookup(model: str, prices: Mapping[str, ModelPrice]) -> ModelPrice | None:
    found = prices.get(model)
    if found is not None:
        return found
    bare = model.rsplit("/", 1)[-1]
    if bare != model and bare in prices:
        return prices[bare]
    suffixed = [k for k in prices if isinstance(k, str) and k.rsplit("/", 1)[-1] == bare]
    return prices[suffixed[0]] if len(suffixed) == 1 else None


def _rate(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    try:
        rate = float(value)
    except (TypeError, ValueError):
        return None
    return rate if math.isfinite(rate) and rate >= 0 else None
