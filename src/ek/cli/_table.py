"""The table of ``ek`` commands: one row per command, its name and the function it runs.

A function's signature is its command line (`ek.cli.run`): positional
parameters are arguments, keyword-only ones ``--flags``, and a parameter
typed with a dataclass of flags (`Options`) is that group of flags. The
name is the row's, so a command's function keeps the name that says what it
does in Python (``check_engine`` is ``ek check``). A new command is its
module plus one row here.
"""

from __future__ import annotations

from ek.cli._commands import _small, audit_plan, benchmark, compare, estimate, evaluate, monitor
from ek.cli._main import Command

__all__ = ["COMMANDS", "Command", "demo"]


def demo(*, engines: bool = False) -> str:
    """Score the bundled demo corpus and print the results (``ek demo``).

    The OCR engines installed here (Tesseract, RapidOCR) read six bundled
    lines, which takes seconds.

    Args:
        engines: have the engines read all 54 bundled pages and lines (a minute or more on two cores)
    """
    from ek.cli._demo import demo as run_demo  # the demo reads its data files only when asked

    return run_demo(engines=engines)


COMMANDS: tuple[Command, ...] = (
    Command("cer", _small.cer),
    Command("wer", _small.wer),
    Command("evaluate", evaluate),
    Command("compare", compare),
    Command("estimate", estimate),
    Command("audit-plan", audit_plan),
    Command("benchmark", benchmark),
    Command("monitor", monitor),
    Command("where", _small.where),
    Command("version", _small.version),
    Command("rover", _small.rover),
    Command("pass-k", _small.pass_k),
    Command("cost-per-success", _small.cost_per_success),
    Command("engines", _small.engines),
    Command("check", _small.check_engine),
    Command("demo", demo),
)
"""Every command of ``ek``, in the order ``ek --help`` lists them."""
