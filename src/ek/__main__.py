"""The ``ek`` command (``python -m ek``): the functions of `ek.tools`, run by `ek.cli.run`."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``ek`` with ``argv`` (default: ``sys.argv[1:]``); returns the exit code."""
    from ek.cli import run
    from ek.tools import _dispatch_funcs

    return run(_dispatch_funcs, argv)


if __name__ == "__main__":
    sys.exit(main())
