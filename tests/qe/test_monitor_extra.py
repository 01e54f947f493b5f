"""Without the metrics extra (numpy, scipy) the monitor says what to install before doing any work."""

from __future__ import annotations

import sys

import pytest

from ek.qe import PlattCalibrator
from ek.qe.monitor import Monitor
from ek.registry import MissingExtraError


@pytest.mark.parametrize("package", ["numpy", "scipy"])
def test_a_missing_array_library_names_the_metrics_extra(monkeypatch, tmp_path, package):
    calibrator = PlattCalibrator().fit([0.2, 0.4, 0.6, 0.8], [False, False, True, True])
    monkeypatch.setitem(sys.modules, package, None)  # as if not installed: importing it raises ImportError
    hint = rf"ek.qe.monitor needs the optional package '{package}'.*pip install \"ek\[metrics\]\""
    with pytest.raises(MissingExtraError, match=hint):
        Monitor(calibrator, calibration_signals={"conf": [0.1, 0.5, 0.9]}, name="m", rootdir=tmp_path)
    assert not list(tmp_path.iterdir())  # nothing stored
    with pytest.raises(MissingExtraError, match=hint):
        Monitor.load("m", rootdir=tmp_path)
    with pytest.raises(MissingExtraError, match=hint):
        Monitor.merge()
