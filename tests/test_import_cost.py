"""import ek must load only the core: no numpy, scipy, sklearn, networkx or extras."""

import json
import subprocess
import sys

HEAVY = [
    "numpy",
    "scipy",
    "sklearn",
    "networkx",
    "apted",
    "seqeval",
    "nervaluate",
    "anls_star",
    "crepes",
    "netcal",
    "torch",
    "ocracy",
    "dol",
    "pandas",
    "inspect_ai",
    "deepeval",
    "dask",
    "distributed",
]


def test_import_ek_stays_light():
    code = f"import sys, json, ek; print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == []


def test_score_and_evaluate_stay_light():
    code = (
        "import sys, json, ek; ek.score('a', 'b'); ek.evaluate([({'a': 1}, {'a': 2})]); "
        f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert json.loads(out.stdout) == []
