"""Small string-in, value-out functions behind the ``ek`` command line.

Each function's signature is its command: positional parameters become
arguments, keyword-only ones become ``--options``. `_dispatch_funcs` is the
one list of what ``ek`` exposes.

    ek cer "hello wrld" "hello world"
    ek where
"""

from __future__ import annotations

from typing import Optional

from ek.facade import score

__all__ = ["cer", "version", "wer", "where"]


def cer(prediction: str, gold: str, *, normalize: Optional[str] = None) -> float:
    """Character error rate of a prediction against a gold string (lower is better)."""
    return score(prediction, gold, metric="cer", normalize=_steps(normalize)).value


def wer(prediction: str, gold: str, *, normalize: Optional[str] = None) -> float:
    """Word error rate of a prediction against a gold string (lower is better)."""
    return score(prediction, gold, metric="wer", normalize=_steps(normalize)).value


def where() -> str:
    """The local data folder where ek keeps gold sets, results and runs."""
    from ek.stores import app_folder

    return str(app_folder())


def version() -> str:
    """The installed ek version."""
    from ek import __version__

    return __version__


def _steps(normalize: Optional[str]) -> Optional[list[str]]:
    """``"nfc,lower"`` on the command line -> ``["nfc", "lower"]``."""
    if normalize is None:
        return None
    return [s.strip() for s in normalize.split(",") if s.strip()]


def _demo() -> str:
    """Score the bundled demo corpus and print the results."""
    from ek._demo import demo

    return demo()


_demo.__name__ = "demo"

_dispatch_funcs = [cer, wer, where, version, _demo]
