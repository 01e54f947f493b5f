"""What an alarm says: the evidence, in numbers, and the fix, as code to run.

Public through `ek.qe.monitor`. The fix is the same for both alarms: the
calibrator no longer describes the data, so re-fit it on the latest
audited items (`Monitor.audited`), save it as a new version with
`ek.qe.save_calibrator`, re-fit the gate on calibrated probabilities of
labelled items, and start a new monitor on the pair.
"""

from __future__ import annotations

from typing import Any

from ek.qe.monitor._gates import QUANTITIES

__all__ = ["alarm", "refit_hint"]

_CLASSES = {
    "platt": "PlattCalibrator",
    "isotonic": "IsotonicCalibrator",
    "temperature": "TemperatureCalibrator",
    "signal_family": "SignalFamilyCalibrator",
    "group": "GroupCalibrator",
}


def alarm(kind: str, update: dict[str, Any], book: Any, n_audited: int) -> Any:
    """The `Alarm` of ``kind`` raised by ``update``, after which ``n_audited`` audit rows were known."""
    from ek.qe.monitor._alarms import SPLIT
    from ek.qe.monitor._values import REFIT_ITEMS, Alarm

    sequence, alpha = update["sequence"], book.settings["alpha"]
    a = alpha * SPLIT[kind]
    last = min(n_audited, REFIT_ITEMS)
    e = sequence.get(f"{kind}_e")
    by = (
        f"the change detector's e-value is {e:.4g} >= {1 / a:g} (a stable stream ever reaches {1 / a:g} with "
        f"probability at most {a:.3g}, however long it runs)"
        if e is not None
        else f"the anytime-valid sequence excludes it (monitor format 1, at level {a:.3g})"
    )
    if kind == "risk":
        quantity, level = book.promise
        low, high = sequence["risk"]
        evidence = (
            f"the {QUANTITIES[quantity]} has risen above the promised {level:.4g}: {by}, after "
            f"{sequence['n_risk']} audited items; the mean of all of them lies in [{low:.4f}, {high:.4f}] "
            "(anytime-valid)"
        )
    else:
        level = 0.0
        low, high = sequence["calibration"]
        side = sequence.get("calibration_side") or ("over" if low + high > 0 else "under")
        evidence = (
            f"calibration has shifted, the probabilities look {side}confident: {by}, after "
            f"{sequence['n_calibration']} audited items; the mean of p - correct over all of them lies in "
            f"[{low:.4f}, {high:.4f}] (anytime-valid)"
        )
    message = f"{evidence}. {refit_hint(book, last)}"
    return Alarm(kind, update["index"], update["time"], (low, high), level, message)


def refit_hint(book: Any, last: int) -> str:
    """The re-fit to run, for the calibrator kind of ``book``."""
    kind = book.settings["calibrator"].get("kind")
    cls = _CLASSES.get(kind, "PlattCalibrator")
    names = book.names
    if cls == "SignalFamilyCalibrator":
        data = "[dict(zip(signals, row)) for row in zip(*signals.values())]"
    else:
        data = f"signals[{names[0]!r}]"
    # A stored monitor's name makes the new version's name; an unnamed one gets a name to replace.
    version = f"{book.store.name}-v2" if book.store is not None else "my-calibrator-v2"
    return (
        f"Re-fit the calibrator on the last {last} audited items and save it as a new version: "
        f"signals, correct = monitor.audited(last={last}); cal = ek.qe.{cls}().fit({data}, correct); "
        f"ek.qe.save_calibrator(cal, {version!r}); then re-fit the gate on calibrated probabilities of labelled "
        "items and start a new Monitor with them."
    )
