"""The command-line side of ek: the commands, the pages they write, the demo, and argv parsing.

* `ek.cli._table`: `COMMANDS`, the one table of commands (name, function).
* `ek.cli._main`: `run`, argv mapped onto that table (each function's
  signature is its command's options; an `Options` parameter gives the
  flags its fields declare), exit codes, one-line errors.
* `ek.cli._help`: what --help shows, read from the docstrings (one line
  per option from the ``Args:`` and field lists), reST markup dropped.
* `ek.cli._commands`: ``ek evaluate``, ``compare``, ``estimate``,
  ``audit-plan``, ``benchmark`` and ``monitor`` (reading files through
  `ek._files`, printing, writing JSON and pages), and the small string-in,
  value-out commands (`ek.cli._commands._small`).
* `ek.cli._html`: the self-contained report pages.
* `ek.cli._demo`: ``ek demo`` on the bundled data.

`ek.tools` re-exports the command functions under their documented names
(their home in the API reference), and ``python -m ek`` / the ``ek`` script
is `ek.__main__.main`: ``run(COMMANDS)``.
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
from ek.cli._commands._small import (
    cer,
    check,
    cost_per_success,
    engines,
    pass_k,
    rover,
    version,
    wer,
    where,
)
from ek.cli._main import Command, run
from ek.cli._table import COMMANDS, demo

__all__ = [
    "COMMANDS",
    "Command",
    "Options",
    "Outcome",
    "audit_plan",
    "benchmark",
    "cer",
    "check",
    "compare",
    "cost_per_success",
    "demo",
    "engines",
    "estimate",
    "evaluate",
    "monitor",
    "normalize_steps",
    "pass_k",
    "rover",
    "run",
    "version",
    "wer",
    "where",
]
