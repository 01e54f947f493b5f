"""Resolve each extra of this checkout with pip (no install) and check what it would pull.

    python scripts/check_extras.py            # every extra
    python scripts/check_extras.py calibration

For each extra, ``pip install --dry-run --ignore-installed --report`` resolves
``ek[extra]`` from this folder against the package index, as on a fresh
machine, and the script lists the distributions it would install. An extra
fails when it pulls a package on its deny list (``calibration`` must not pull
torch: netcal, which needs it, has an extra of its own) or when the core
pulls a copyleft Levenshtein binding. Exits 1 on any failure. Needs the
network (the package index), so it is not part of the test suite.
"""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]

# Distributions an extra must never bring in, and why.
DENY = {
    "": {"levenshtein": "GPL", "python-levenshtein": "GPL", "torch": "heavy", "scipy": "core stays lean"},
    "calibration": {"torch": "netcal's dependency; use ek[netcal]", "netcal": "own extra"},
    "metrics": {"torch": "not needed by any metric"},
    "report": {"torch": "not needed by the report"},
}


def resolve(extra: str) -> list[str]:
    """Names of the distributions pip would install for ``ek[extra]`` (``ek`` alone for "")."""
    target = f"{ROOT}[{extra}]" if extra else str(ROOT)
    with tempfile.TemporaryDirectory() as tmp:
        report = pathlib.Path(tmp) / "report.json"
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "install",
                "--dry-run",
                "--ignore-installed",
                "--quiet",
                "--report",
                str(report),
                target,
            ],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            raise SystemExit(f"pip could not resolve {target}:\n{done.stderr}")
        data = json.loads(report.read_text())
    return sorted(item["metadata"]["name"].lower() for item in data.get("install", []))


def main(argv: list[str]) -> int:
    extras = argv or ["", "metrics", "calibration", "report"]
    failed = False
    for extra in extras:
        names = resolve(extra)
        bad = {n: why for n, why in DENY.get(extra, {}).items() if n in names}
        label = f"ek[{extra}]" if extra else "ek"
        print(f"{label}: {len(names)} distributions: {', '.join(names)}")
        for name, why in bad.items():
            print(f"  FAIL {label} pulls {name} ({why})")
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
