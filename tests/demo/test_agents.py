"""ek.cli._demo._agents: the simulated suite behind `ek demo`."""

from ek.cli._demo._agents import demo_report, format_demo


def test_demo_is_deterministic_and_shows_the_gap():
    r = demo_report()
    assert r == demo_report()
    assert (r.n_tasks, r.k, r.n_trials) == (24, 8, 192)
    assert r.pass_hat_k < r.success_rate < r.pass_at_k
    assert set(r.per_slice) == {"lookup", "multi-step", "refund"}
    assert r.per_slice["refund"]["cost_per_success"] > r.per_slice["lookup"]["cost_per_success"]
    assert r.cost["cost_per_success_ci"][0] < r.cost["cost_per_success"] < r.cost["cost_per_success_ci"][1]


def test_format_demo_lists_the_figures():
    text = format_demo(demo_report(k=4))
    for piece in ("pass@4", "pass^4", "success rate", "Wilson interval", "cost per success", "refund", "all"):
        assert piece in text
