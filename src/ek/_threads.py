"""How many threads ek's own C loops may use: ``EK_THREADS``, else every core the process may run on.

A large CER batch is scored by rapidfuzz's ``cpdist`` on this many threads
(`ek.metrics._edit.distances`); the numbers do not depend on it (integer
distances, one per pair). ``EK_THREADS=1`` pins ek to one thread, as
``OMP_THREAD_LIMIT=1`` pins Tesseract, for a process that shares its cores
with others (a pool of workers, a benchmark's baseline).
"""

from __future__ import annotations

import os

__all__ = ["VARIABLE", "threads"]

VARIABLE = "EK_THREADS"


def threads() -> int:
    """``EK_THREADS`` (a whole number >= 1) when set, else the cores this process may run on.

    Raises:
        ValueError: ``EK_THREADS`` is set to something else; the message says what it must be.
    """
    raw = os.environ.get(VARIABLE, "").strip()
    if not raw:
        return cores()
    try:
        n = int(raw)
    except ValueError:
        n = 0
    if n < 1:
        raise ValueError(
            f"{VARIABLE} must be a whole number of threads, 1 or more, got {raw!r}; "
            f"set {VARIABLE}=1 to use one thread, or unset it to use every core ({cores()} here)."
        )
    return n


def cores() -> int:
    """The cores this process may run on (its CPU affinity where the platform says, else the machine's)."""
    if hasattr(os, "sched_getaffinity"):
        return max(len(os.sched_getaffinity(0)), 1)
    return os.cpu_count() or 1
