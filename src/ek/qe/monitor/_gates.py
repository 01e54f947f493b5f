"""What the monitor needs from a calibrator and a gate: batch calls, the promise, and records to store.

Public through `ek.qe.monitor`.

* `calibrate`: the calibrated probabilities of a window's raw signals (one
  array call for a scalar calibrator, one call per item for a
  `SignalFamilyCalibrator`, which reads a mapping of signals).
* `decide`: the gate's decision codes (0 accept, 1 flag, 2 block), on the
  array at once for ek's gates (the same comparisons their ``__call__``
  makes), item by item for any other gate; without a gate every item is
  accepted.
* `default_promise`: what the gate promises, as ``(quantity, level)``:
  `RiskControlGate` bounds the share of items accepted *and* wrong at
  ``target``; `ConformalGate` / `GroupConformalGate` the share of correct
  items that are flagged at ``alpha``; `CostSensitiveGate` accepts only
  ``p >= tau``, so with calibrated probabilities the error rate among
  accepted items is at most ``1 - tau``. Mind what the conformal and risk
  control guarantees are: averages over the draw of the calibration set.
  One fitted gate's own rate sits above its level about half the time, by
  about ``sqrt(level (1 - level) / n)`` for ``n`` calibration items, and
  a monitor watching the bare level will, rightly, find that out. Pass
  ``promise=(quantity, level + slack)`` for the rate you will accept.
* `gate_record` / `gate_from_record`: a gate as plain numbers, for the
  stored state (a gate with a custom nonconformity or loss is code, and is
  refused).
"""

from __future__ import annotations

from typing import Any

from ek._util import type_name
from ek.qe._families import SignalFamilyCalibrator
from ek.qe._records import from_record

__all__ = [
    "QUANTITIES",
    "calibrate",
    "calibrator_record",
    "decide",
    "default_promise",
    "gate_from_record",
    "gate_record",
]

QUANTITIES = {
    "accepted_error": "error rate among accepted items",
    "accepted_and_wrong": "share of all items accepted and wrong",
    "false_flag": "share of correct items flagged or blocked",
}
"""The promises a monitor can watch, by name."""


def calibrate(calibrator: Any, names: list[str], signals: Any) -> Any:
    """Calibrated probabilities of the ``(n, k)`` signal matrix (columns in ``names`` order)."""
    import numpy as np

    if isinstance(calibrator, SignalFamilyCalibrator):
        rows = [dict(zip(names, map(float, row))) for row in signals]
        return np.asarray([calibrator(r) for r in rows], dtype=np.float64)
    out = calibrator(signals[:, 0]) if len(signals) else np.zeros(0)
    return np.asarray(out, dtype=np.float64).reshape(len(signals))


def decide(gate: Any, p: Any) -> Any:
    """Decision codes (0 accept, 1 flag, 2 block) of the calibrated probabilities ``p``."""
    import numpy as np

    from ek.qe._checks import one_minus
    from ek.qe.decide import ConformalGate, CostSensitiveGate, RiskControlGate

    if gate is None:
        return np.zeros(len(p), dtype=np.int64)
    if isinstance(gate, CostSensitiveGate):
        codes = np.where(p >= gate.tau, 0, 1)
        return np.where((gate.block_threshold > 0) & (p <= gate.block_threshold), 2, codes).astype(np.int64)
    if isinstance(gate, RiskControlGate):
        gate._require_fit()
        return np.where(p >= gate.lam, 0, 1).astype(np.int64)
    if isinstance(gate, ConformalGate) and gate.nonconformity is one_minus:
        gate._require_fit()
        return np.where(1.0 - p <= gate.q, 0, 1).astype(np.int64)
    order = {"accept": 0, "flag": 1, "block": 2}
    return np.asarray([order[str(d)] for d in gate(p.tolist())], dtype=np.int64)


def default_promise(gate: Any) -> tuple[str, float] | None:
    """``(quantity, level)`` the gate promises, None when it promises nothing the monitor can check."""
    from ek.qe.decide import ConformalGate, CostSensitiveGate, GroupConformalGate, RiskControlGate

    if isinstance(gate, RiskControlGate):
        return "accepted_and_wrong", float(gate.target)
    if isinstance(gate, (ConformalGate, GroupConformalGate)):
        return "false_flag", float(gate.alpha)
    if isinstance(gate, CostSensitiveGate) and gate.tau < 1.0:
        return "accepted_error", 1.0 - gate.tau
    return None


def calibrator_record(calibrator: Any) -> dict[str, Any]:
    """The calibrator's ``to_dict()`` (a TypeError when it has none: the state could not rebuild it)."""
    to_dict = getattr(calibrator, "to_dict", None)
    if to_dict is None:
        raise TypeError(
            f"Monitor needs a calibrator it can store, with to_dict(); {type_name(calibrator)} has none. "
            "Use one of ek.qe's calibrators (PlattCalibrator, IsotonicCalibrator, ...)."
        )
    record = to_dict()
    from_record(record, where="Monitor calibrator")  # it must rebuild, or a resumed monitor could not
    return dict(record)


def gate_record(gate: Any) -> dict[str, Any] | None:
    """The gate as plain numbers (None for no gate)."""
    from ek.qe._checks import one_minus
    from ek.qe.decide import ConformalGate, CostSensitiveGate, RiskControlGate, _zero_one

    if gate is None:
        return None
    if isinstance(gate, CostSensitiveGate):
        return {
            "kind": "cost_sensitive",
            "rho": float(gate.rho),
            "block_threshold": gate.block_threshold,
            "accept_threshold": gate.accept_threshold,
        }
    if isinstance(gate, RiskControlGate) and gate.loss is _zero_one:
        gate._require_fit()
        return {"kind": "risk_control", "target": gate.target, "lam": float(gate.lam)}
    if isinstance(gate, ConformalGate) and gate.nonconformity is one_minus:
        gate._require_fit()
        return {"kind": "conformal", "alpha": gate.alpha, "q": float(gate.q)}
    raise TypeError(
        f"Monitor can store CostSensitiveGate, RiskControlGate (0/1 loss) and ConformalGate (default "
        f"nonconformity), not {type_name(gate)}: its state must rebuild the gate from numbers. Use one of "
        "those, or gate=None to watch calibration and drift alone (every item then counts as accepted)."
    )


def gate_from_record(record: Any) -> Any:
    """The gate `gate_record` wrote."""
    from ek.qe.decide import ConformalGate, CostSensitiveGate, RiskControlGate

    if record is None:
        return None
    kind = record.get("kind") if isinstance(record, dict) else None
    if kind == "cost_sensitive":
        return CostSensitiveGate(float(record["rho"]), record["block_threshold"], record["accept_threshold"])
    if kind == "risk_control":
        risk_gate = RiskControlGate(target=record["target"], lam=float(record["lam"]))
        risk_gate._fitted = True
        return risk_gate
    if kind == "conformal":
        gate = ConformalGate(alpha=record["alpha"], q=float(record["q"]))
        gate._fitted = True  # q is set: the gate decides as the one that was fitted
        return gate
    raise ValueError(f"the stored gate record {record!r:.80} has no known kind; the monitor state is damaged.")
