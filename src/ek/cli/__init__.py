"""The command-line side of ek: the commands, the pages they write, the demo, and argv parsing.

* `ek.cli._main`: `run`, argv mapped onto a list of functions (each
  signature is its command's options; an `Options` parameter gives the
  flags its fields declare), exit codes, one-line errors.
* `ek.cli._help`: what --help shows, read from the docstrings (one line
  per option from the ``Args:`` and field lists), reST markup dropped.
* `ek.cli._commands`: ``ek evaluate``, ``compare``, ``estimate``,
  ``audit-plan`` and ``benchmark`` (reading files through `ek._files`,
  printing, writing JSON and pages).
* `ek.cli._html`: the self-contained report pages.
* `ek.cli._demo`: ``ek demo`` on the bundled data.

The documented command functions live in `ek.tools` (their home in the
API reference), and ``python -m ek`` / the ``ek`` script is
`ek.__main__.main`, which runs them through `run`.
"""

from __future__ import annotations

from ek.cli._commands import (
    Options,
    Outcome,
    audit_plan,
    benchmark,
    compare,
    estimate,
    evaluate,
    monitor,
    normalize_steps,
)
from ek.cli._main import run

__all__ = [
    "Options",
    "Outcome",
    "audit_plan",
    "benchmark",
    "compare",
    "demo",
    "estimate",
    "evaluate",
    "monitor",
    "normalize_steps",
    "run",
]


def demo(*, engines: bool = False) -> str:
    """``ek demo``: every part of ek on the bundled data, as text (the engines only when installed).

    ``engines`` runs them over every bundled page and line, not a few lines.
    """
    from ek.cli._demo import demo as run_demo  # the demo reads data files: only when asked

    return run_demo(engines=engines)
