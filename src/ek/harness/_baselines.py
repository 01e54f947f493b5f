"""Baselines and the regression gate of `ek.harness` (documents kind).

`save_baseline` / `load_baseline` freeze a report's aggregate and per-slice
figures in the ``baselines`` store (under ``documents.<name>``, so an agent
baseline of the same name is another record); `regression_gate` fails when a
report is worse than a baseline by more than a tolerance, on the aggregate or
on any slice, in the direction the metric declares. A NaN or infinite figure
is refused, never compared: NaN is neither worse nor better than anything, so
a gate over it would always pass.

>>> from ek.base import Report
>>> base = {"metric": "cer", "aggregate": 0.25, "per_slice": {}}
>>> gate = regression_gate(Report(metric="cer", aggregate=0.3, n=2), base)
>>> bool(gate), gate.regressions[0]["delta"] > 0
(False, True)
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Callable, Mapping
from typing import Any, TypedDict, cast

from ek._runs import (
    baseline_of,
    load_baseline_record,
    now,
    save_baseline_record,
    str_keys,
)
from ek._util import type_name
from ek.base import Report
from ek.metrics import as_metric
from ek.registry import get, names

__all__ = ["BaselineRecord", "GateResult", "Regression", "load_baseline", "regression_gate", "save_baseline"]


class Regression(TypedDict):
    """One figure a gate found worse: the baseline slice (None for the aggregate) and both figures."""

    slice: object
    baseline: float
    current: float | None  # None when the report lacks the slice
    delta: float | None  # current - baseline, None when the slice is missing


class BaselineRecord(TypedDict, total=False):
    """A documents baseline as `save_baseline` stores it and `load_baseline` reads it back.

    A record saved in the first format lacks ``format``, ``kind`` and ``name``.
    """

    format: int
    kind: str
    name: str
    metric: str
    higher_is_better: bool | None
    aggregate: float | None
    n: int
    per_slice: dict[str, float]
    slice_n: dict[str, int]
    saved_at: str


@dataclasses.dataclass(frozen=True)
class GateResult:
    """What `regression_gate` found; truthy when nothing regressed.

    ``regressions`` holds one dict per regression: ``slice`` (None for the
    aggregate), ``baseline``, ``current`` (None when the slice is missing
    from the report) and ``delta`` (``current - baseline``, None if missing).
    """

    passed: bool
    metric: str
    higher_is_better: bool
    tolerance: float
    aggregate_current: float | None = None
    aggregate_baseline: float | None = None
    regressions: tuple[Regression, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "regressions", tuple(self.regressions))

    def __bool__(self) -> bool:
        return bool(self.passed)

    def __str__(self) -> str:
        way = "higher" if self.higher_is_better else "lower"
        head = (
            f"{self.metric} ({way} is better): {self.aggregate_current} vs baseline "
            f"{self.aggregate_baseline}, tolerance {self.tolerance:g}"
        )
        if self.passed:
            return f"PASS {head}"
        lines = [f"FAIL {head}"]
        for r in self.regressions:
            where = "aggregate" if r["slice"] is None else f"slice {r['slice']!r}"
            now = "missing from the report" if r["current"] is None else f"{r['current']} ({r['delta']:+.4g})"
            lines.append(f"  {where}: baseline {r['baseline']}, now {now}")
        return "\n".join(lines)


def save_baseline(report: Report, name: str, *, rootdir: str | os.PathLike[str] | None = None) -> BaselineRecord:
    """Store a report's aggregate and per-slice figures as the baseline ``name``; return it.

    The record holds ``name``, ``metric``, ``higher_is_better`` (from the
    scores' detail, or None), ``aggregate``, ``n``, ``per_slice`` and
    ``slice_n`` (slice labels as strings), ``saved_at``, and the record's
    ``kind`` (``"documents"``) and ``format``. It is returned as
    `load_baseline` will give it back. Saving under an existing name
    replaces it; an agent baseline of the same name is another record.

    Raises:
        TypeError: ``report`` is not a `Report`.
        ValueError: the report is empty, a figure is NaN or infinite, two
            slice labels are the same as text, or ``name`` cannot be a store key.

    >>> import tempfile
    >>> from ek.facade import evaluate
    >>> root = tempfile.mkdtemp()
    >>> report = evaluate([("ab", "ab")], metric="cer")
    >>> save_baseline(report, "demo", rootdir=root)["aggregate"]
    0.0
    >>> load_baseline("demo", rootdir=root)["metric"]
    'cer'
    """
    _check_report(report, "save_baseline")
    if report.aggregate is None:
        raise ValueError(
            f"save_baseline() got an empty {report.metric!r} report (n=0), which has no figures to "
            "freeze; evaluate a non-empty gold set first."
        )
    record = {
        "metric": report.metric,
        "higher_is_better": _declared_direction(report),
        "aggregate": report.aggregate,
        "n": report.n,
        "per_slice": str_keys(report.per_slice, "slice", "save_baseline()"),
        "slice_n": str_keys(report.detail.get("slice_n") or {}, "slice", "save_baseline()"),
        "saved_at": now(),
    }
    _check_figures(record, "save_baseline(): the report has")
    return cast(BaselineRecord, save_baseline_record("documents", name, record, rootdir=rootdir, who="save_baseline"))


def load_baseline(name: str, *, rootdir: str | os.PathLike[str] | None = None) -> BaselineRecord | None:
    """The baseline saved as ``name`` by `save_baseline`, or None if there is none.

    Raises:
        ValueError: the record under ``name`` is damaged (naming its file),
            or ``name`` holds an agent baseline (load that with
            `ek.agents.load_agent_baseline`).
    """
    found = load_baseline_record(
        "documents",
        name,
        rootdir=rootdir,
        who="load_baseline",
        saver="ek.harness.save_baseline()",
        check=_check_baseline,
    )
    return cast("BaselineRecord | None", found)


def regression_gate(
    report: Report,
    baseline: Any,
    *,
    tolerance: float = 0.0,
    higher_is_better: bool | None = None,
    rootdir: str | os.PathLike[str] | None = None,
) -> GateResult:
    """Compare ``report`` with a baseline, on the aggregate and on every baseline slice.

    A figure regresses when it is worse than the baseline by more than
    ``tolerance``: lower when higher is better, higher when lower is better.
    The direction is, in order: ``higher_is_better`` if given, the one the
    report records (``detail["higher_is_better"]``, the metric's own), the
    one of the metric registered under the report's name (CER/WER and the
    graph and trajectory distances are lower-is-better; F1, ANLS and the
    similarities higher-is-better), then the one stored with the baseline.
    A slice in the baseline but absent from the report counts as a regression, so coverage cannot quietly
    shrink; new slices cannot regress.

    Args:
        report: the current `Report`.
        baseline: a name saved with `save_baseline` (read from ``rootdir``),
            or the dict it returned.
        tolerance: drift allowed before a change counts as a regression (>= 0).
        higher_is_better: force the direction.
        rootdir: data folder holding the baselines store.

    Returns:
        A `GateResult`, falsy when anything regressed.

    Raises:
        ValueError: the baseline does not exist or belongs to another
            metric, the report is empty, a negative tolerance, or the
            direction cannot be told (pass ``higher_is_better=``).

    >>> base = {"metric": "fields", "aggregate": 0.8, "per_slice": {"pdf": 0.9}}
    >>> cur = Report(metric="fields", aggregate=0.82, n=3, per_slice={"pdf": 0.85})
    >>> gate = regression_gate(cur, base, tolerance=0.01)
    >>> bool(gate), [(r["slice"], r["baseline"], r["current"]) for r in gate.regressions]
    (False, [('pdf', 0.9, 0.85)])
    """
    _check_report(report, "regression_gate")
    if (
        isinstance(tolerance, bool)
        or not isinstance(tolerance, (int, float))
        or not (math.isfinite(tolerance) and tolerance >= 0)
    ):
        raise ValueError(
            f"regression_gate() tolerance must be a finite number >= 0, got {tolerance!r}; it is "
            "the drift allowed before a change counts as a regression."
        )
    base = baseline_of(
        baseline, "documents", rootdir=rootdir, who="regression_gate", saver="save_baseline", check=_check_baseline
    )
    _check_figures(
        {"aggregate": report.aggregate, "per_slice": dict(report.per_slice)}, "regression_gate(): the report has"
    )
    if base["metric"] != report.metric:
        raise ValueError(
            f"regression_gate() refuses to compare a {report.metric!r} report with a baseline of "
            f"metric {base['metric']!r}: figures of different metrics are not comparable. Gate "
            f"against a baseline saved from a {report.metric!r} report."
        )
    if report.aggregate is None:
        raise ValueError(
            f"regression_gate() got an empty {report.metric!r} report (n=0); there is nothing to "
            "compare with the baseline. Check that the gold set and the predictor ran."
        )
    direction = _direction(report, base, higher_is_better)
    worse: Callable[[float, float], bool]
    worse = (lambda cur, old: cur < old - tolerance) if direction else (lambda cur, old: cur > old + tolerance)
    regressions: list[Regression] = []
    if base.get("aggregate") is not None and worse(report.aggregate, base["aggregate"]):
        regressions.append(_regression(None, base["aggregate"], report.aggregate))
    current = {str(k): v for k, v in report.per_slice.items()}
    for label, old in (base.get("per_slice") or {}).items():
        now = current.get(str(label))
        if now is None:
            regressions.append(_regression(label, old, None))
        elif worse(now, old):
            regressions.append(_regression(label, old, now))
    return GateResult(
        passed=not regressions,
        metric=report.metric,
        higher_is_better=direction,
        tolerance=float(tolerance),
        aggregate_current=report.aggregate,
        aggregate_baseline=base.get("aggregate"),
        regressions=tuple(regressions),
    )


def _check_report(report: Any, who: str) -> None:
    if not isinstance(report, Report):
        raise TypeError(
            f"{who}() takes a Report, got {type_name(report)}; build one with ek.evaluate(...) or evaluate_store(...)."
        )


def _check_baseline(record: Mapping[str, Any]) -> None:
    """Raise saying what is wrong with a documents baseline record."""
    for needed in ("metric", "aggregate"):
        if needed not in record:
            raise ValueError(f"has no {needed!r} entry (keys: {sorted(map(str, record))})")
    if record.get("kind", "documents") != "documents":
        raise ValueError(f"is a {record['kind']!r} baseline; the document gate needs one saved by save_baseline()")
    if not isinstance(record["metric"], str):
        raise ValueError(f"has metric {record['metric']!r:.60}, not a metric name")
    if record.get("higher_is_better") not in (None, True, False):
        raise ValueError(f"has higher_is_better={record['higher_is_better']!r:.60}, not True, False or None")
    _check_figures(record, "has")


def _check_figures(record: Mapping[str, Any], lead: str) -> None:
    """Refuse a non-numeric or non-finite aggregate or per-slice figure: no gate can compare it."""
    figures = [("aggregate", record.get("aggregate"))]
    per_slice = record.get("per_slice") or {}
    if not isinstance(per_slice, Mapping):
        raise ValueError(f"{lead} a per_slice that is {type_name(per_slice)}, not a mapping")
    figures += [(f"slice {label!r}", v) for label, v in per_slice.items()]
    for where, value in figures:
        if where == "aggregate" and value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ValueError(
                f"{lead} a NaN, infinite or non-numeric {where:.80} figure ({value!r:.60}), which cannot be "
                "compared, so it could neither pass nor fail a gate. Find the items whose scores are "
                "not finite (report.detail['per_item']) and fix the metric or the data"
            )


def _declared_direction(report: Report) -> bool | None:
    """The direction the report records, else that of the metric registered under its name, or None."""
    flag = report.detail.get("higher_is_better") if isinstance(report.detail, Mapping) else None
    if flag is None and report.metric in names("metrics"):
        flag = as_metric(get("metrics", report.metric)).higher_is_better
    return flag if isinstance(flag, bool) else None


def _direction(report: Report, base: Mapping[str, Any], override: bool | None) -> bool:
    if override is not None:
        return bool(override)
    for found in (_declared_direction(report), base.get("higher_is_better")):
        if found is not None:
            return bool(found)
    raise ValueError(
        f"regression_gate() cannot tell whether higher or lower {report.metric!r} is better: neither "
        "the report nor a metric registered under that name declares higher_is_better, and the "
        "baseline does not record it. Pass higher_is_better=True or False."
    )


def _regression(label: object, old: float, now: float | None) -> Regression:
    return {"slice": label, "baseline": old, "current": now, "delta": None if now is None else now - old}
