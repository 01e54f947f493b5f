"""The small commands of ``ek``: string in, value out (``ek cer``, ``ek pass-k``, ``ek where``, ...).

Each is also a Python function, re-exported under its documented name by
`ek.tools`; the command table (`ek.cli.COMMANDS`) lists them with the
larger commands. ``check_engine`` is ``ek check``: `check`'s report, with exit 2
and the hint on stderr when the engine is not ready.
"""

from __future__ import annotations

import json
from typing import Any, TypedDict

from ek.cli._commands._format import Outcome
from ek.cli._commands._options import normalize_steps as _steps
from ek.facade import score
from ek.registry import check_requirements, get

__all__ = [
    "CostPerSuccess",
    "EngineState",
    "PassK",
    "RoverSummary",
    "cer",
    "check",
    "check_engine",
    "cost_per_success",
    "engines",
    "pass_k",
    "rover",
    "version",
    "wer",
    "where",
]


def cer(prediction: str, gold: str, *, normalize: str | None = None) -> float:
    """Character error rate of a prediction against gold (lower is better).

    Args:
        prediction: the predicted text
        gold: the true text
        normalize (STEPS): normalisation steps for both texts, e.g. nfc,lower
    """
    return score(prediction, gold, metric="cer", normalize=_steps(normalize)).value


def wer(prediction: str, gold: str, *, normalize: str | None = None) -> float:
    """Word error rate of a prediction against gold (lower is better).

    Args:
        prediction: the predicted text
        gold: the true text
        normalize (STEPS): normalisation steps for both texts, e.g. lower,collapse_whitespace
    """
    return score(prediction, gold, metric="wer", normalize=_steps(normalize)).value


def where() -> str:
    """The local data folder where ek keeps gold sets, results and runs."""
    from ek.stores import app_folder

    return str(app_folder())


def version() -> str:
    """The installed ek version."""
    from ek._version import __version__

    return __version__


class RoverSummary(TypedDict):
    """What `rover` returns: the consensus text and how much the engines agreed on it."""

    consensus: str
    mean_agreement: float
    agreement: list[float]
    n_engines: int


class PassK(TypedDict):
    """What `pass_k` returns."""

    n: int
    c: int
    k: int
    pass_at_k: float
    pass_hat_k: float
    success_rate: float
    success_ci: list[float]


class CostPerSuccess(TypedDict, total=False):
    """What `cost_per_success` returns (the per-attempt figures only when ``attempts`` is given)."""

    total_dollars: float
    successes: int
    cost_per_success: float
    attempts: int
    cost_per_attempt: float
    success_rate: float
    success_ci: list[float]


class EngineState(TypedDict):
    """One entry of `engines`."""

    engine: str
    state: str
    hint: str


def rover(*hypotheses: str, confidence: bool = True) -> RoverSummary:
    """ROVER-fuse two or more transcriptions into a consensus (no gold needed).

    Prints the consensus, its mean agreement and each word's, as JSON; in
    Python, `ek.rover` (the same as `ek.qe.rover`) returns the whole
    consensus object.

    Args:
        *hypotheses (TEXT): two or more transcriptions of the same text
        confidence: blend each engine's confidence into the vote, where it has one
    """
    from ek.qe import rover as fuse

    if len(hypotheses) < 2:
        raise ValueError(
            f"rover needs two or more transcriptions to compare, got {len(hypotheses)}; "
            'e.g. ek rover "the cat sat" "the cat sit".'
        )
    c = fuse(list(hypotheses), use_confidence=confidence)
    return {
        "consensus": c.text,
        "mean_agreement": c.mean_agreement,
        "agreement": list(c.agreement),
        "n_engines": c.n_engines,
    }


def pass_k(n: int, c: int, k: int = 1) -> PassK:
    """pass@k (can it ever?) and pass^k (every time?) from C successes in N trials.

    Args:
        n: the number of trials
        c: how many of them succeeded
        k: the k of pass@k and pass^k
    """
    from ek.agents import pass_at_k, pass_hat_k, wilson_interval

    # checked here in the words of both callers (ek.agents names its own keyword arguments)
    if n < 1:
        raise ValueError(f"the number of trials must be 1 or more, got {n}.")
    if not 0 <= c <= n:
        raise ValueError(f"{c} successes out of {n} trials cannot be; the successes are 0 to {n} of the trials.")
    if not 1 <= k <= n:
        raise ValueError(f"k must be 1 to {n} (the number of trials), got {k}; pass@k needs k trials or more.")
    at, hat = pass_at_k(n=n, c=c, k=k), pass_hat_k(n=n, c=c, k=k)
    lo, hi = wilson_interval(c, n)
    return {"n": n, "c": c, "k": k, "pass_at_k": at, "pass_hat_k": hat, "success_rate": c / n, "success_ci": [lo, hi]}


def cost_per_success(total_dollars: float, successes: int, *, attempts: int | None = None) -> CostPerSuccess:
    """Dollars per successfully completed task (inf when nothing succeeded).

    Args:
        total_dollars (DOLLARS): what the attempts cost altogether
        successes: how many tasks were completed successfully
        attempts (N): every trial, failed ones included: adds the cost per attempt
    """
    from ek.agents import cost_of_pass, wilson_interval

    for what, value, low in (
        ("total dollars", total_dollars, 0),
        ("successes", successes, 0),
        ("attempts", attempts, 1),
    ):
        if value is not None and not value >= low:
            raise ValueError(f"the {what} must be {low} or more, got {value}.")
    out: CostPerSuccess = {
        "total_dollars": total_dollars,
        "successes": successes,
        "cost_per_success": cost_of_pass(total_dollars, successes),
    }
    if attempts is not None:
        if attempts < successes:
            raise ValueError(
                f"{attempts} attempts are fewer than the {successes} successes; the attempts count "
                "every trial, failed ones included."
            )
        lo, hi = wilson_interval(successes, attempts)
        out["attempts"] = attempts
        out["cost_per_attempt"] = total_dollars / attempts
        out["success_rate"] = successes / attempts
        out["success_ci"] = [lo, hi]
    return out


def engines() -> list[EngineState]:
    """The OCR engines installed here, and whether each is ready to run.

    Needs the ``ocr`` extra. One ``{"engine", "state", "hint"}`` entry per
    engine whose package (and system program) is installed, state as
    ``ek check`` decides it: ``"ready"`` (usable now), or ``"installed, not
    configured"`` for a cloud engine whose credential variable is not set,
    ``hint`` naming it. Only ``"ready"`` engines can be used.
    """
    return [
        {"engine": r["engine"], "state": r["state"], "hint": r["hint"]}
        for r in map(check, get("engines", "installed")())
    ]


def check(engine: str) -> dict[str, Any]:
    """What an OCR engine needs to run here, and whether it is ready.

    The report's ``ok`` and ``state`` say whether it can run; its ``hint``
    why not and the fix: the install line, or the credential to set. ``ek
    check ENGINE`` prints the report and exits 2 when the engine is not
    ready, with the hint on stderr.

    Args:
        engine: an engine id, options after a colon as ek benchmark takes them (tesseract:lang=deu)
    """
    return check_requirements(engine=engine)


def check_engine(engine: str) -> Outcome:
    """What an OCR engine needs to run here, and whether it is ready.

    Prints the report of `check` as JSON and exits 2 when the engine cannot
    run, with the hint (the install line, or the credential to set) on stderr.

    Args:
        engine: an engine id, options after a colon as ek benchmark takes them (tesseract:lang=deu)
    """
    report = check(engine)
    ready = report.get("ok") is True
    return Outcome(
        stdout=json.dumps(report, indent=2, default=str),
        stderr="" if ready else f"ek check: {report.get('hint', '')}",
        exit_code=0 if ready else 2,
    )
