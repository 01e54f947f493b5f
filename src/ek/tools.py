"""Small string-in, value-out functions behind the ``ek`` command line.

Each function's signature is its command: positional parameters become
arguments, keyword-only ones become ``--options``, each with the line of
help its docstring's ``Args:`` list gives it; the flags ``evaluate``,
``compare`` and ``estimate`` share are the fields of their ``options``
parameter (`ek.cli.Options`: ``evaluate(gold, pred,
options=Options(metric="wer"))`` is ``ek evaluate GOLD PRED --metric
wer``). The commands themselves, and the one table of them
(`ek.cli.COMMANDS`, also `_dispatch_funcs` here), live in `ek.cli`.

    ek cer "hello wrld" "hello world"
    ek evaluate gold.jsonl pred.jsonl --html report.html
    ek compare gold.jsonl pred_a.jsonl pred_b.jsonl
    ek estimate pred.jsonl --proxy other_engine.jsonl --audit audited_gold.jsonl
    ek benchmark gold.jsonl --engine tesseract --engine rapidocr
    ek monitor NAME --window day.jsonl --audit labels.jsonl --html history.html
    ek where
"""

from __future__ import annotations

from ek._util import rehome
from ek.cli import COMMANDS as _dispatch_funcs  # noqa: F401 - the API reference's name for the table
from ek.cli import (
    audit_plan,
    benchmark,
    cer,
    check,
    compare,
    cost_per_success,
    engines,
    estimate,
    evaluate,
    monitor,
    pass_k,
    rover,
    version,
    wer,
    where,
)

__all__ = [
    "audit_plan",
    "benchmark",
    "cer",
    "check",
    "compare",
    "cost_per_success",
    "engines",
    "estimate",
    "evaluate",
    "monitor",
    "pass_k",
    "rover",
    "version",
    "wer",
    "where",
]

rehome(globals())  # the commands report ek.tools, their home in the API reference
