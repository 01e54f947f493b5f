"""The ``ek`` command (``python -m ek``): the table of commands `ek.cli.COMMANDS`, run by `ek.cli.run`."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``ek`` with ``argv`` (default: ``sys.argv[1:]``); returns the exit code."""
    from ek.cli import COMMANDS, run

    return run(COMMANDS, argv)


if __name__ == "__main__":
    sys.exit(main())
