"""Task success and cost per successful task: the two metrics an agent evaluation turns on.

Both score an `Episode` against the task's gold and aggregate a corpus as a
ratio of two sums, never a mean of per-episode figures (the rule that makes
ek's WER and field F1 correct):

* `TaskSuccessMetric` (higher is better) grades the outcome with an injected
  success oracle, a `Checker`; its aggregate is the success rate. ek owns
  no LLM and no sandbox, so the oracle is a plugged-in strategy: a database
  comparison, a hidden test run, a predicate, a judge. Built-in checkers are
  registered under ``"checkers"``: ``"output"`` (`output_match`),
  ``"final_state"`` (`final_state_match`) and ``"recorded"``
  (`recorded_success`).
* `CostPerSuccessMetric` (lower is better) is Cost-of-Pass: summed dollars
  over summed successes, ``inf`` when nothing succeeded. It needs token
  rates, which a name cannot carry, so ``"cost_per_success"`` is a reserved
  metric name whose lookup explains how to build it.

The checker must run where the agent cannot reach it. An audit of agent
benchmarks found a ten-line ``conftest.py``, which pytest loads on its own,
that rewrote every test outcome to "passed": near-perfect scores with no
task solved. Verifier isolation is a security boundary, and ek cannot
enforce it for you.

>>> from ek.agents.base import Cost, Episode
>>> from ek.agents.cost import per_million
>>> ep = Episode(task_id="t1", output="42", cost=Cost(input_tokens=1_000_000))
>>> TaskSuccessMetric()(ep, "42").value
1.0
>>> round(CostPerSuccessMetric(price=per_million(2.0, 6.0))(ep, "42").value, 4)
2.0
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Protocol

from ek._util import DispatchRule, ratio, type_name
from ek.agents._common import per_success, run_check
from ek.agents.base import Episode, is_episode
from ek.agents.cost import ModelPrice, UnknownModelPrice, episode_dollars
from ek.base import GraphGrammar, Score
from ek.canonicalize import default_canonicalizer
from ek.metrics import SummedStatistics
from ek.registry import register

__all__ = [
    "Checker",
    "CostPerSuccessMetric",
    "TaskSuccessMetric",
    "final_state_match",
    "output_match",
    "recorded_success",
]

_CANON = default_canonicalizer()
_NO_RATES = (
    "CostPerSuccessMetric needs token rates: Cost-of-Pass is dollars per success, and a metric "
    "name carries no prices, so 'cost_per_success' can't be used by name (nor built without "
    "price= or prices=). Build it with the rates and pass the object: "
    "metric=CostPerSuccessMetric(price=per_million(input_usd, output_usd)), or "
    "CostPerSuccessMetric(prices=load_prices('model_prices_and_context_window.json')) to price "
    "each episode's own model."
)


class Checker(Protocol):
    """The success oracle: did this episode leave the world in the required state?

    Any ``(episode, gold) -> bool`` callable is one. It is injected, never
    owned by ek, and must run isolated from the agent.
    """

    def __call__(self, episode: Any, gold: Any, /) -> bool: ...


def output_match(episode: object, gold: object) -> bool:
    """Whether the final answer equals ``gold`` after canonicalization (the GAIA-style oracle).

    Strings are compared after NFC, casefolding and whitespace collapsing; a
    numeric gold also accepts a string answer that parses to the same
    number. The weakest useful oracle, and the default only because it needs
    nothing: use a state-based or executable checker when the task has one.
    A bare answer (not an episode) is read as the output.

    >>> from ek.agents.base import Episode
    >>> output_match(Episode(output="  Paris "), "paris"), output_match(Episode(output="4.0"), 4)
    (True, True)
    """
    out = getattr(episode, "output", None) if is_episode(episode) else episode  # is_episode: it has an output
    return _same_answer(out, gold)


def final_state_match(episode: object, gold: object) -> bool:
    """Whether the episode's final state equals the goal state ``gold`` (the tau-bench oracle).

    The comparison is structural: mappings by key, lists and tuples in
    order; an episode with no final state fails.

    Raises:
        ValueError: ``gold`` is None (the task declares no goal state).
    """
    if gold is None:
        raise ValueError(
            "final_state_match() got gold=None; a state oracle needs the goal state. Put it in "
            "TaskSpec(gold=...) or use check='output'."
        )
    state = getattr(episode, "final_state", None)
    if state is None:
        return False
    return bool(_plain(state) == _plain(gold))


def recorded_success(episode: object, gold: object) -> bool:
    """The ``success`` already recorded on the episode (by an external harness); ``gold`` is unused.

    Raises:
        ValueError: the episode carries no recorded success.
    """
    success = getattr(episode, "success", None)
    if not isinstance(success, bool):
        raise ValueError(
            f"recorded_success(): episode {getattr(episode, 'task_id', '')!r} has success="
            f"{success!r}; nothing was recorded. Grade it with another checker (e.g. 'output')."
        )
    return success


@dataclass(frozen=True)
class TaskSuccessMetric(SummedStatistics):
    """Whether an episode completed its task: 1.0 or 0.0 (higher is better); aggregate is the success rate.

    Args:
        check: a `Checker`: a registered name (``"output"``,
            ``"final_state"``, ``"recorded"``) or any ``(episode, gold) ->
            bool`` callable. Defaults to ``"output"``; inject a state-based
            or executable oracle for a real suite.
    """

    check: str | Checker | None = None

    name = "task_success"
    higher_is_better = True
    percent = True  # a share or a rate: the pages show it as a percentage
    statistics = ("successes", "n")

    def __call__(self, pred: object, gold: object, *, grammar: GraphGrammar | None = None) -> Score:
        """1.0 when ``check(pred, gold)`` holds, else 0.0."""
        ok = run_check(self.check, pred, gold)
        return Score(1.0 if ok else 0.0, metric=self.name, detail={"successes": int(ok), "n": 1})

    def compute(self, totals: Mapping[str, float]) -> float:
        """Success rate: summed successes over summed episodes (NaN for ``n == 0``)."""
        return ratio(totals["successes"], totals["n"])


@dataclass(frozen=True)
class CostPerSuccessMetric(SummedStatistics):
    """Cost-of-Pass: dollars per successfully completed task (lower is better).

    An episode's ``Score.value`` is its dollar cost; the figure that matters
    is the corpus `aggregate`, summed dollars over summed successes, which is
    ``inf`` when nothing succeeded (a "$0.003 per call" agent that never
    succeeds is not cheap).

    Args:
        check: the success oracle, as in `TaskSuccessMetric`.
        price: a `ModelPrice` for every episode, or None to look each
            episode's model up in ``prices``.
        prices: a ``{model: ModelPrice}`` catalog (see `load_prices`).

    Raises:
        UnknownModelPrice: when called with neither ``price`` nor
            ``prices`` (``metric="cost_per_success"`` raises it too), or
            when an episode's model is not in ``prices``.
    """

    check: str | Checker | None = None
    price: ModelPrice | str | None = field(default=None, kw_only=True)
    prices: Mapping[str, ModelPrice] | None = field(default=None, kw_only=True)

    name = "cost_per_success"
    higher_is_better = False
    statistics = ("dollars", "successes")

    def __call__(self, pred: Episode, gold: object, *, grammar: GraphGrammar | None = None) -> Score:
        """This episode's dollars, with its success, for the corpus ratio."""
        if self.price is None and self.prices is None:
            raise UnknownModelPrice(_NO_RATES)
        if not isinstance(pred, Episode):
            raise TypeError(
                f"CostPerSuccessMetric scores an Episode, got {type_name(pred)}; wrap the run "
                "with ek.agents.episode_from_messages() or Episode(output=..., cost=...)."
            )
        ok = run_check(self.check, pred, gold)
        spent = episode_dollars(pred, price=self.price, prices=self.prices)
        return Score(spent, metric=self.name, detail={"dollars": spent, "successes": int(ok)})

    def compute(self, totals: Mapping[str, float]) -> float:
        """Summed dollars over summed successes (``inf`` when there were none)."""
        return per_success(totals["dollars"], totals["successes"])


# --------------------------------------------------------------------------


def _same_answer(out: Any, gold: Any) -> bool:
    if out is None:
        return gold is None
    if isinstance(out, str) and isinstance(gold, str):
        return out == gold or _canon(out) == _canon(gold)
    if _is_number(gold) and isinstance(out, str):
        return _parses_to(out, gold)
    if _is_number(out) and isinstance(gold, str):
        return _parses_to(gold, out)
    return bool(_plain(out) == _plain(gold))


@lru_cache(maxsize=65536)
def _canon(text: str) -> str:
    # Cached: a suite compares the same gold answers on every trial.
    return _CANON(text)


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _parses_to(text: str, number: float) -> bool:
    try:
        value = float(_canon(text).replace(",", ""))
    except ValueError:
        return False
    return value == number or (math.isnan(value) and isinstance(number, float) and math.isnan(number))


def _plain(x: Any) -> Any:
    """A structural form for equality: tuples and lists alike, mappings as dicts."""
    if isinstance(x, Mapping):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    return x


register("checkers", "output", output_match)
register("checkers", "final_state", final_state_match)
register("checkers", "recorded", recorded_success)
_METRIC = register("metrics", "task_success", TaskSuccessMetric())  # also the entry-point target
register("dispatch", "task_success", DispatchRule(is_episode))  # ek.score(episode, gold) grades task success
# Reserved: by name, Cost-of-Pass can only say which rates it needs (ek.registry.get raises this).
register("metrics", "cost_per_success", UnknownModelPrice(_NO_RATES))
