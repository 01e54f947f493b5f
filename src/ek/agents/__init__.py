"""Evaluate AI agents and assistants, in cost per successful task.

The agent instance of ek, beside `ek.ocr`. It is the same two-by-two as the
rest of ek (reference or not, one item or a corpus), but the object is an
*episode* (tool calls and observations ending in a final state) and the
objective is the cost of a successfully completed task, not the cost of a
token.

=========================  ==========================================  =====================
corner                     for an agent                                entry point
=========================  ==========================================  =====================
with reference, one item   grade an episode against a gold outcome      `ek.score`
with reference, corpus     a task suite: pass^k and cost, per slice     `run_suite`
no reference, one item     judge, verifier, the confidence gate         `ek.estimate_quality`
=========================  ==========================================  =====================

Reused rather than rebuilt: the `ek.base.GraphGrammar` becomes the task/tool
grammar (`FieldSpec.importance` is the cost of a wrong argument, so a wrong
argument to a destructive tool is not one unit of error), field F1's
TP/FP/FN accounting scores tool calls, inter-annotator agreement validates a
judge, and the signal -> calibrate -> validate -> decide cascade is the
confidence gate. Nothing here needs an extra: the bridges duck-type Inspect
AI, DeepEval and provider transcripts.

>>> from ek.agents import TaskSpec, run_suite, as_agent
>>> tasks = [TaskSpec("t1", input="hi", gold="HI"), TaskSpec("t2", input="yo", gold="YO")]
>>> run_suite(as_agent(str.upper), tasks).success_rate
1.0
"""

from ek._util import rehome
from ek.agents._reliability import ReliabilityReport, reliability
from ek.agents._stats import (
    bootstrap_ci,
    difference_upper_bound,
    newcombe_difference,
    pass_at_k,
    pass_hat_k,
    wilson_interval,
)
from ek.agents.base import (
    Cost,
    Episode,
    RunProvenance,
    Step,
    TaskSpec,
    ToolSpec,
    Trajectory,
    as_call,
    is_episode,
    suite_grammar,
    tool_grammar,
)
from ek.agents.bridge import (
    as_agent,
    cost_from_usage,
    episode_from_messages,
    from_deepeval_test_case,
    from_inspect_sample,
    trajectory_from_messages,
)
from ek.agents.cost import (
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
from ek.agents.harness import (
    AgentGateResult,
    agent_regression_gate,
    load_agent_baseline,
    run_suite,
    save_agent_baseline,
)
from ek.agents.judge import JudgeMetric, JudgeSignal, judge_validation, pairwise_judge
from ek.agents.metrics import (
    Checker,
    CostPerSuccessMetric,
    TaskSuccessMetric,
    final_state_match,
    output_match,
    recorded_success,
)
from ek.agents.toolcalls import ToolCallMetric, match_calls
from ek.agents.trajectory import TrajectoryMetric

__all__ = [
    "AgentGateResult",
    "Checker",
    "Cost",
    "CostPerSuccessMetric",
    "Episode",
    "JudgeMetric",
    "JudgeSignal",
    "ModelPrice",
    "ReliabilityReport",
    "RunProvenance",
    "Step",
    "TaskSpec",
    "TaskSuccessMetric",
    "ToolCallMetric",
    "ToolSpec",
    "Trajectory",
    "TrajectoryMetric",
    "UnknownModelPrice",
    "agent_regression_gate",
    "as_agent",
    "as_call",
    "bootstrap_ci",
    "cost_from_usage",
    "cost_of_pass",
    "cost_report",
    "difference_upper_bound",
    "dollars",
    "episode_dollars",
    "episode_from_messages",
    "final_state_match",
    "from_deepeval_test_case",
    "from_inspect_sample",
    "is_episode",
    "judge_validation",
    "load_agent_baseline",
    "load_prices",
    "match_calls",
    "newcombe_difference",
    "output_match",
    "pairwise_judge",
    "pass_at_k",
    "pass_hat_k",
    "per_million",
    "price_of",
    "recorded_success",
    "reliability",
    "run_suite",
    "save_agent_baseline",
    "suite_grammar",
    "tool_grammar",
    "trajectory_from_messages",
    "wilson_interval",
]


# Names implemented in private modules (_stats, _reliability) are documented here.
rehome(globals())
