"""``ek monitor NAME``: append a window (and audit labels) to a stored monitor, or draw its history.

``ek monitor NAME --window FILE.jsonl [--audit FILE.jsonl] [--time T]``
appends one window to the monitor stored as NAME (`ek.qe.monitor.Monitor`,
created in Python with ``name=NAME``) and prints the window's figures next
to the cumulative ones, the anytime-valid bands and any alarm. A window
line is ``{"id", "signals": {name: value}, "time"?}``; an audit line
``{"id", "correct": true|false}``, for items of this window or an earlier
one. ``--audit`` alone (with ``--time``) adds late labels only.
``--report`` reads the state without changing it. ``--json PATH`` writes
the report (`MonitorReport.to_dict`), ``--html PATH`` the history page.
``--rootdir DIR`` is the data folder of the stores.

Exit status: 0; 1 while an alarm stands (the promise is broken or
calibration has shifted), so a scheduled job can act on it; 2 for bad
input, with nothing stored.
"""

from __future__ import annotations

import json
from typing import Any

from ek._files import InputError
from ek.cli._commands._format import Outcome
from ek.cli._commands._outputs import check_outputs, write_json, write_page

__all__ = ["run_monitor", "summary_text"]


def run_monitor(
    name: str,
    *,
    window: str | None,
    audit: str | None,
    time: str | None,
    report: bool,
    json_path: str | None,
    html_path: str | None,
    rootdir: str | None,
) -> Outcome:
    """The whole ``ek monitor`` command."""
    from ek.qe.monitor import Monitor

    inputs = {k: v for k, v in (("--window", window), ("--audit", audit)) if v is not None}
    check_outputs(inputs, json_path, html_path)
    if report and inputs:
        raise InputError("ek monitor --report reads the state only; leave out --window and --audit, or --report.")
    if not report and not inputs:
        raise InputError("ek monitor needs --window FILE.jsonl (and/or --audit FILE.jsonl), or --report.")
    try:
        monitor = Monitor.load(name, rootdir=rootdir)
    except KeyError as exc:
        raise InputError(str(exc.args[0])) from None
    if not report:
        items = _jsonl(window, "--window") if window is not None else None
        labels = _jsonl(audit, "--audit") if audit is not None else None
        monitor.update(items, audit=labels, time=_time(time))
    result = monitor.report()
    data: dict[str, Any] = {**result.to_dict(), "name": name}
    text = write_json(json_path, data) if json_path is not None else ""
    if html_path is not None:
        from ek.cli._html._monitor import render_monitor

        text += write_page(html_path, render_monitor(data))
    if "-" not in (json_path, html_path):
        text = summary_text(data)
    standing = data["sequence"]["risk_alarm"] or data["sequence"]["calibration_alarm"]
    return Outcome(stdout=text, exit_code=1 if standing else 0)


def summary_text(data: dict[str, Any]) -> str:
    """The latest window next to the cumulative figures, the bands and the alarms, as text."""
    windows, cum, seq = data["windows"], data["cumulative"], data["sequence"]
    settings = data["settings"]
    lines = [f"ek monitor {data.get('name', '')}: {cum['windows']} windows, {cum['n']:,} items"]
    if windows:
        last = windows[-1]
        lines.append(f"{'':28}{'window ' + str(last['time']):>34}{'cumulative':>34}")
        for label, key in (("accepted", "accept"), ("flagged", "flag"), ("blocked", "block")):
            lines.append(f"{label:28}{_pct(last['shares'][key]):>34}{_pct(cum['shares'][key]):>34}")
        lines.append(f"{'error among accepted':28}{_risk(last['risk']):>34}{_risk(cum['risk']):>34}")
        lines.append(f"{'calibration gap (p - y)':28}{_gap(last['calibration']):>34}{_gap(cum['calibration']):>34}")
        lines.append(f"{'ECE (audited)':28}{_pct(last['calibration']['ece']):>34}{_pct(cum['calibration']['ece']):>34}")
        for signal, d in last["drift"].items():
            ks = "–" if d["ks"] is None else f"KS {d['ks']:.3f} (p {_p(d['p_value'])})"
            lines.append(
                f"{'drift ' + signal:28}{ks + ', PSI ' + _num(d['psi']):>34}{'PSI ' + _num(cum['psi'][signal]):>34}"
            )
    promise = settings.get("promise")
    band = f"[{_pct(seq['risk'][0])}, {_pct(seq['risk'][1])}]"
    if promise:
        state = "ALARM" if seq["risk_alarm"] else "kept"
        lines.append(
            f"promise: {promise['means']} <= {_pct(promise['level'])}: {state}; anytime band "
            f"(1 - {settings['alpha']:g}) {band} from {seq['n_risk']} audited items"
        )
    cal = f"[{seq['calibration'][0]:+.4f}, {seq['calibration'][1]:+.4f}]"
    state = "ALARM" if seq["calibration_alarm"] else "no shift"
    lines.append(f"calibration-in-the-large: {state}; anytime band {cal} from {seq['n_calibration']} audited items")
    for alarm in data["alarms"]:
        lines.append(f"ALARM ({alarm['kind']}, update {alarm['update']}, {alarm['time']}): {alarm['message']}")
    lines.extend(f"note: {n}" for n in data["notes"])
    return "\n".join(lines)


# ---------------------------------------------------------------------------


def _jsonl(path: str, option: str) -> list[Any]:
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as exc:
        raise InputError(f"{option} {path} cannot be read: {exc.strerror or exc}.") from None
    out = []
    for k, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise InputError(
                f"{option} {path} line {k} is not JSON ({exc.msg}); write one JSON object a line."
            ) from None
    return out


def _time(value: str | None) -> Any:
    """``--time``: a whole number or a number when it reads as one (61, 61.5), else the string (an ISO date)."""
    if value is None:
        return None
    for kind in (int, float):  # --time 61 is window 61, not 61.0
        try:
            return kind(value)
        except ValueError:
            pass
    return value


def _pct(value: Any) -> str:
    return "–" if value is None else f"{100 * value:.2f}%"


def _num(value: Any) -> str:
    return "–" if value is None else f"{value:.3f}"


def _p(value: Any) -> str:
    return "–" if value is None else f"{value:.3g}"


def _risk(risk: Any) -> str:
    if not risk or risk.get("estimate") is None:
        return "–"
    interval = risk.get("interval")
    band = f" [{_pct(interval[0])}, {_pct(interval[1])}]" if interval else " (no audits)"
    return f"{_pct(risk['estimate'])}{band}"


def _gap(cal: Any) -> str:
    if cal.get("gap") is None:
        return "– (no audits)"
    interval = cal.get("gap_interval")
    return f"{cal['gap']:+.4f}" + (f" [{interval[0]:+.3f}, {interval[1]:+.3f}]" if interval else "")
