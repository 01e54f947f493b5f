"""The reference examples in ../shared/spec/examples must pass against this ek."""

import pathlib
import subprocess
import sys

import pytest

TOOL = pathlib.Path(__file__).resolve().parents[2] / "shared" / "tools" / "spec-examples"

# Modules whose examples this checkout implements in full.
MODULES = ["ek", "ek.agents", "ek.agents.base", "ek.agents.bridge", "ek.agents.cost",
           "ek.agents.harness", "ek.agents.judge", "ek.agents.metrics", "ek.agents.toolcalls",
           "ek.agents.trajectory", "ek.base", "ek.canonicalize", "ek.facade", "ek.harness", "ek.metrics.anls",
           "ek.metrics.graphs", "ek.ocr.benchmark", "ek.ocr.profiles", "ek.ocr.tables", "ek.qe",
           "ek.qe.calibrate", "ek.qe.decide", "ek.qe.signals", "ek.qe.verifiers", "ek.registry",
           "ek.stores", "ek.validate"]


@pytest.mark.skipif(not TOOL.exists(), reason=f"spec examples tool not found at {TOOL}")
@pytest.mark.parametrize("module", MODULES)
def test_spec_examples_pass(module):
    out = subprocess.run([sys.executable, str(TOOL), "--python", sys.executable, module],
                         capture_output=True, text=True, timeout=600)
    last = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else out.stderr
    assert out.returncode == 0 and " 0 failed" in last, out.stdout + out.stderr
