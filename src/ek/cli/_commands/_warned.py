"""Warnings raised while a command runs, in command-line words: one ``ek CMD: warning: …`` line each.

`caught` wraps the one call of a command (`ek.cli._main.run`): every
warning the library raises inside it is recorded instead of printed by
Python (no ``file:line``, no source line), and `so_far` gives the texts
recorded until now, so `ek.cli._commands._meta.run_meta` puts them into
the ``--json`` report (``warnings``) and the page. `cli_words` rewrites
the Python advice a library warning gives (``normalize=[..., "mufi"]``,
``profile="dinglehopper"``, ``who():``) as the flags that do the same.
"""

from __future__ import annotations

import contextlib
import contextvars
import re
import warnings
from collections.abc import Iterator

__all__ = ["caught", "cli_words", "so_far"]

_RECORDS: contextvars.ContextVar[list[warnings.WarningMessage] | None] = contextvars.ContextVar(
    "ek_cli_warnings", default=None
)
# Python advice -> the command line's; applied in order, before the generic ``name=`` -> ``--name``.
_PHRASES = (
    (re.compile(r'normalize=\[\.\.\., "mufi"\]'), "--normalize …,mufi"),
    (re.compile(r'profile="dinglehopper"'), "--profile dinglehopper"),
    (
        re.compile(r"add a str -> str step to normalize= that does, if the gold spells them out"),
        "replace them in the files before scoring if the gold spells them out",
    ),
    (re.compile(r"\bnot in the audit\b"), "not in the --audit file"),
    (re.compile(r"^[A-Za-z_][\w.]*\(\)(?::| )\s*"), ""),  # "estimate_corpus(): " starts a Python message
)
_PARAMETER = re.compile(r"(?<![\w-])([a-z][a-z_]*)=(?=[\s,.;)]|$)")


@contextlib.contextmanager
def caught() -> Iterator[list[warnings.WarningMessage]]:
    """Record every warning raised in the block (each text once), instead of Python printing it."""
    with warnings.catch_warnings(record=True) as records:
        warnings.simplefilter("always")
        # Another package's deprecations are for its callers (ek), not for a command-line user.
        warnings.filterwarnings("ignore", category=DeprecationWarning)
        warnings.filterwarnings("ignore", category=PendingDeprecationWarning)
        warnings.filterwarnings("always", category=DeprecationWarning, module=r"ek(\.|$)")
        token = _RECORDS.set(records)
        try:
            yield records
        finally:
            _RECORDS.reset(token)


def so_far() -> list[str]:
    """The warnings recorded by the enclosing `caught` until now, in command-line words, each once."""
    records = _RECORDS.get()
    return texts(records) if records else []


def texts(records: list[warnings.WarningMessage]) -> list[str]:
    """``records`` as command-line texts, each once, in the order first raised."""
    return list(dict.fromkeys(cli_words(str(r.message)) for r in records))


def cli_words(message: str) -> str:
    """A library warning in command-line words, on one line.

    >>> cli_words('x: Pass normalize=[..., "mufi"] or profile="dinglehopper" to map them')
    'x: Pass --normalize …,mufi or --profile dinglehopper to map them'
    >>> cli_words("estimate_corpus(): 3 drawn items are not in the audit; set min_prob= higher.")
    '3 drawn items are not in the --audit file; set --min-prob higher.'
    """
    text = " ".join(message.split())
    for pattern, words in _PHRASES:
        text = pattern.sub(words, text)
    return _PARAMETER.sub(lambda m: "--" + m[1].replace("_", "-"), text)
