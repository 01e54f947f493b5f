"""ek.qe.monitor state in the run engine: reload, refusals of a foreign or damaged state, a SIGKILL mid-update."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

np = pytest.importorskip("numpy")

from ek.qe import CostSensitiveGate, IsotonicCalibrator, PlattCalibrator  # noqa: E402
from ek.qe.monitor import Monitor  # noqa: E402
from ek.stores import data_dir  # noqa: E402

CAL = PlattCalibrator(a=8.0, b=-4.0)
CALIBRATION = {"conf": [0.2, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95]}


def _window(w, n=200, seed=0):
    rng = np.random.default_rng(seed + w)
    s = rng.beta(5, 2, n)
    y = rng.random(n) < CAL(s)
    items = [{"id": f"w{w}-{k}", "signals": {"conf": float(v)}} for k, v in enumerate(s)]
    return items, {f"w{w}-{k}": bool(y[k]) for k in range(0, n, 5)}


def _new(tmp_path, **kw):
    return Monitor(
        CAL, CostSensitiveGate(rho=9.0), calibration_signals=CALIBRATION, name="gate", rootdir=tmp_path, **kw
    )


def _stored_and_twin(tmp_path, windows=3):
    """A stored monitor and its in-memory twin, after the same ``windows`` updates."""
    monitor = _new(tmp_path)
    twin = Monitor(CAL, CostSensitiveGate(rho=9.0), calibration_signals=CALIBRATION)  # the same, in memory
    for w in range(windows):
        items, labels = _window(w)
        monitor.update(items, audit=labels, time=w)
        twin.update(items, audit=labels, time=w)
    return monitor, twin


def test_a_stored_monitor_reloads_to_the_same_report_and_carries_on(tmp_path):
    monitor, twin = _stored_and_twin(tmp_path)
    again = Monitor.load("gate", rootdir=tmp_path)
    assert again.report().to_dict() == monitor.report().to_dict() == twin.report().to_dict()
    late = {"w0-1": True, "w1-2": False}  # late labels for items of earlier windows, read from their stored tables
    again.update(audit=late, time=3)
    twin.update(audit=late, time=3)
    assert Monitor.load("gate", rootdir=tmp_path).report().to_dict() == twin.report().to_dict()
    # the constructor with the same calibrator, gate and calibration set continues the stored state too
    assert _new(tmp_path).report().to_dict() == twin.report().to_dict()
    header = json.loads((data_dir("runs", rootdir=tmp_path) / "monitor.gate.json").read_text())
    assert header["kind"] == "monitor" and header["format"] == 2 and header["summary"]["updates"] == 4


def test_a_late_audit_of_a_window_no_longer_held_in_memory_is_read_from_the_store(tmp_path):
    monitor = _new(tmp_path)
    twin = Monitor(CAL, CostSensitiveGate(rho=9.0), calibration_signals=CALIBRATION)
    for w in range(12):  # more windows than a stored monitor keeps in memory
        items, labels = _window(w, n=50)
        monitor.update(items, audit=labels, time=w)
        twin.update(items, audit=labels, time=w)
    assert 0 not in monitor._book.tables
    late = {"w0-1": True, "w0-2": False, "w11-3": True}
    monitor.update(audit=late, time=12)
    twin.update(audit=late, time=12)
    assert monitor.report().to_dict() == twin.report().to_dict()


def test_a_state_from_another_calibrator_gate_or_calibration_set_is_refused(tmp_path):
    _new(tmp_path).update(*_window(0)[:1], time=0)
    with pytest.raises(
        ValueError, match=r"monitor state 'gate' was built with another calibrator .* than this Monitor"
    ):
        Monitor(
            PlattCalibrator(a=7.0, b=-4.0),
            CostSensitiveGate(rho=9.0),
            calibration_signals=CALIBRATION,
            name="gate",
            rootdir=tmp_path,
        )
    iso = IsotonicCalibrator().fit([0.1, 0.5, 0.9, 0.95], [False, False, True, True])
    with pytest.raises(ValueError, match=r"another calibrator"):
        Monitor(iso, CostSensitiveGate(rho=9.0), calibration_signals=CALIBRATION, name="gate", rootdir=tmp_path)
    with pytest.raises(ValueError, match=r"another gate"):
        Monitor(CAL, CostSensitiveGate(rho=4.0), calibration_signals=CALIBRATION, name="gate", rootdir=tmp_path)
    with pytest.raises(ValueError, match=r"another calibration set"):
        Monitor(
            CAL, CostSensitiveGate(rho=9.0), calibration_signals={"conf": [0.1, 0.2]}, name="gate", rootdir=tmp_path
        )
    assert Monitor.load("gate", rootdir=tmp_path).report().cumulative["n"] == 200  # nothing stored was touched


def test_a_state_of_another_format_version_is_refused_naming_both(tmp_path):
    _new(tmp_path)
    path = data_dir("runs", rootdir=tmp_path) / "monitor.gate.json"
    header = json.loads(path.read_text())
    header["settings"]["format"] = 99
    path.write_text(json.dumps(header))
    with pytest.raises(ValueError, match=r"written in monitor format 99; this version of ek reads formats 1, 2"):
        Monitor.load("gate", rootdir=tmp_path)


def _as_format_1(root, *, alarms=None):
    """Rewrite a stored state as monitor format 1 wrote it: format 1 in the header, records without the detectors.

    Format 1's records are format 2's without ``risk_e``, ``calibration_e`` and ``calibration_side`` (checked
    against a state written by the format-1 code); ``alarms`` replaces the stored alarms (flags and announcements).
    """
    header_path = data_dir("runs", rootdir=root) / "monitor.gate.json"
    header = json.loads(header_path.read_text())
    header["settings"]["format"] = 1
    header_path.write_text(json.dumps(header))
    for path in sorted(data_dir("results", rootdir=root).glob("monitor.gate.0*.json"))[1:]:
        chunk = json.loads(path.read_text())
        for update in chunk["items"].values():
            for key in ("risk_e", "calibration_e", "calibration_side"):
                del update["sequence"][key]
            if alarms is not None:
                update["fired"] = alarms.get(update["index"], [])
                for kind in ("risk", "calibration"):
                    update["sequence"][f"{kind}_alarm"] = any(
                        kind in alarms.get(u, []) for u in range(update["index"] + 1)
                    )
        path.write_text(json.dumps(chunk))


def test_a_format_1_state_is_read_replayed_into_the_detectors_and_continued_in_format_1(tmp_path):
    _, twin = _stored_and_twin(tmp_path)
    _as_format_1(tmp_path)
    old = Monitor.load("gate", rootdir=tmp_path)
    assert old.settings["format"] == 1
    report, written = old.report().to_dict(), twin.report().to_dict()
    assert report["sequence"] == written["sequence"]  # the detectors, replayed from the rows
    assert [w["risk"] for w in report["windows"]] == [w["risk"] for w in written["windows"]]
    assert "risk_e" not in report["windows"][0]["sequence"]  # the stored records are shown as they were stored
    items, labels = _window(3)
    _new(tmp_path).update(items, audit=labels, time=3)  # built again with the same calibrator, gate and set
    twin.update(items, audit=labels, time=3)
    header = json.loads((data_dir("runs", rootdir=tmp_path) / "monitor.gate.json").read_text())
    assert header["settings"]["format"] == 1 and header["summary"]["updates"] == 4
    again = Monitor.load("gate", rootdir=tmp_path).report().to_dict()
    assert again["sequence"] == twin.report().to_dict()["sequence"]
    assert again["windows"][3]["sequence"] == twin.report().to_dict()["windows"][3]["sequence"]


def test_a_format_1_alarm_stays_raised_and_one_the_detectors_find_in_its_history_is_announced_next(tmp_path):
    monitor = _new(tmp_path, promise=0.02)
    rng = np.random.default_rng(4)
    for w in range(12):
        s = rng.beta(5, 2, 200)
        y = rng.random(200) < CAL(s) - 0.2  # wrong far more often than promised, and overconfident
        items = [{"id": f"w{w}-{k}", "signals": {"conf": float(v)}} for k, v in enumerate(s)]
        monitor.update(items, audit={f"w{w}-{k}": bool(y[k]) for k in range(100)}, time=w)
    assert {a.kind for a in monitor.report().alarms} == {"risk", "calibration"}
    _as_format_1(tmp_path, alarms={2: ["risk"]})  # as if the old sequences raised the risk alarm only, at update 2
    old = Monitor.load("gate", rootdir=tmp_path)
    assert [(a.kind, a.update) for a in old.report().alarms] == [("risk", 2)]
    assert "monitor format 1" in old.report().alarms[0].message
    assert old.report().sequence["risk_alarm"] and old.report().sequence["calibration_alarm"]
    old.update(_window(12)[0], time=12)
    assert [(a.kind, a.update) for a in old.report().alarms] == [("risk", 2), ("calibration", 12)]


def test_a_missing_state_and_a_stale_monitor_are_refused(tmp_path):
    with pytest.raises(KeyError, match=r"no monitor is stored as 'nope'"):
        Monitor.load("nope", rootdir=tmp_path)
    first = _new(tmp_path)
    second = Monitor.load("gate", rootdir=tmp_path)
    first.update(*_window(0)[:1], time=0)
    with pytest.raises(ValueError, match=r"another process updated it since it was loaded"):
        second.update(*_window(1)[:1], time=1)


def test_a_refused_update_stores_nothing(tmp_path):
    monitor = _new(tmp_path)
    monitor.update(*_window(0)[:1], time=5)
    files = sorted(os.listdir(data_dir("results", rootdir=tmp_path)))
    items, _ = _window(1)
    with pytest.raises(ValueError, match="time going backwards|not after the last update's time"):
        monitor.update(items, time=4)
    with pytest.raises(ValueError, match="match no item"):
        monitor.update(items, audit={"ghost": True}, time=6)
    assert sorted(os.listdir(data_dir("results", rootdir=tmp_path))) == files
    assert Monitor.load("gate", rootdir=tmp_path).report().to_dict() == monitor.report().to_dict()


_KILLED = textwrap.dedent(
    """
    import os, sys, time
    import numpy as np
    import ek.stores
    from ek.qe import CostSensitiveGate, PlattCalibrator
    from ek.qe.monitor import Monitor

    root, marker = sys.argv[1], sys.argv[2]
    write = ek.stores._JsonStore._write

    def slow(self, key, value):  # the chunk of the update is about to be written: say so, then wait for the kill
        if self.kind == "results" and key.startswith("monitor.gate.0"):
            open(marker, "w").close()
            time.sleep(60)
        return write(self, key, value)

    monitor = Monitor.load("gate", rootdir=root)
    ek.stores._JsonStore._write = slow
    rng = np.random.default_rng(7)
    items = [{"id": f"k{i}", "signals": {"conf": float(v)}} for i, v in enumerate(rng.beta(5, 2, 500))]
    monitor.update(items, audit={"k1": True, "w0-1": False}, time=10)
    """
)


def test_a_update_killed_mid_write_leaves_the_state_as_it_was(tmp_path):
    monitor = _new(tmp_path)
    items, labels = _window(0)
    monitor.update(items, audit=labels, time=0)
    before = monitor.report().to_dict()
    script, marker = tmp_path / "killed.py", tmp_path / "writing"
    script.write_text(_KILLED)
    proc = subprocess.Popen([sys.executable, str(script), str(tmp_path), str(marker)], cwd=str(tmp_path))
    try:
        deadline = time.monotonic() + 60
        while not marker.exists():
            assert proc.poll() is None, "the update finished or failed before it was killed"
            assert time.monotonic() < deadline
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == -signal.SIGKILL
    resumed = Monitor.load("gate", rootdir=tmp_path)
    assert resumed.report().to_dict() == before  # the table was written, the chunk was not: no update
    rng = np.random.default_rng(7)
    again = [{"id": f"k{i}", "signals": {"conf": float(v)}} for i, v in enumerate(rng.beta(5, 2, 500))]
    summary = resumed.update(again, audit={"k1": True, "w0-1": False}, time=10)  # the same update goes through now
    assert summary.n == 500 and resumed.report().cumulative["calibration"]["n_audited"] == len(labels) + 2
