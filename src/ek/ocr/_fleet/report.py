"""The figures of a fleet run: each engine's report, the ranking, and every engine paired with the best.

`build_fleet_report` turns the engines' scored runs (`ek.ocr._fleet.run`) into a
`FleetReport`. Every figure is one ek already computes for a single run, so
a fleet figure is exactly the one `ek.ocr.evaluate_ocr` + `ek.compare` give
engine by engine:

* an engine's report is its `ek.ocr.evaluate_ocr`-shaped `Report`, with the
  bootstrap interval of its figure and of each slice's (`ek.Report.interval`;
  ``(nan, nan)`` below 40 pages);
* the ranking orders the engines (and the ROVER consensus) by their corpus
  figure in the metric's direction, ties kept in the order given; the best
  is the first *engine* (the consensus is what combining them would give,
  measured against it, not a candidate for "the engine to ship");
* each other row holds ``ek.compare(best, row)``: delta = row - best, its
  paired interval, p-value and verdict, overall and per slice, exactly as
  `ek.compare` gives them (NaN intervals and "too few items (n=K) to tell"
  on small corpora). When an engine failed on pages the best one read (or
  the other way round), the pair is compared on the pages both read, and
  ``Comparison.n`` says how many;
* seconds per page (median and 95th percentile, nearest rank) over the pages
  an engine read, the pages it could not read or that timed out, its mean
  confidence and the calibration of that confidence (`ek.ocr._fleet.figures`).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypedDict

from ek.base import Comparison, Report

CONSENSUS = "rover"
"""The name of the ROVER consensus row of a fleet (no engine of the fleet may take it)."""


class ConfidenceCalibration(TypedDict):
    """How well an engine's confidences predict a unit read right: `ek.qe.expected_calibration_error` and its curve."""

    unit: str  # "word", "line", ... the finest level the engine gave confidences at ("mixed" across pages)
    n: int
    ece: float
    curve: list[dict[str, float]]  # `ek.qe.reliability_curve`


@dataclass(frozen=True)
class EngineResult:
    """One row of a `FleetReport`: an engine's figures on the fleet's corpus (or the ROVER consensus's).

    ``report`` is the engine's `Report`, as `ek.ocr.evaluate_ocr` gives it
    (``detail["per_item"]`` holds every page's reading, score, confidence,
    time and error). ``interval`` bounds ``report.aggregate`` at the fleet's
    level and ``slice_intervals`` each slice's figure (``(nan, nan)`` below
    40 pages); ``why`` (and ``slice_whys``) says why an interval cannot be
    trusted (`ek.Report.bounds`), None when it can or has no bounds. ``comparison`` is ``ek.compare(best, this)`` (None for the best
    engine itself, and in a fleet of one). ``seconds_median`` /
    ``seconds_p95`` are the engine's time per page read; ``errors`` maps each
    page it could not read to the message, ``timeouts`` lists those that
    timed out. ``mean_confidence`` is the mean of the engine's own
    confidences (over the units ``calibration`` uses, else over pages), and
    ``calibration`` (None without confidences) is ``{"unit": "word" |
    "line", "n", "ece", "curve"}``: how well those confidences predict
    whether a unit was read right (`ek.qe.expected_calibration_error` and
    `ek.qe.reliability_curve`). ``version`` records what read the pages:
    the engine's version, the Python packages and the model files
    (``{"version", "packages", "models", "missing"}``, see
    `ek.ocr._fleet.versions`; None for the consensus). ``resumed`` is, for a
    stored run, ``{"reused": pages taken from the stored run, "read": pages
    read now}`` (None for a run not stored, and for the consensus).
    """

    name: str
    engine: str
    report: Report
    interval: tuple[float, float] = (math.nan, math.nan)
    slice_intervals: Mapping[Hashable, tuple[float, float]] = field(default_factory=dict)
    why: str | None = None
    slice_whys: Mapping[Hashable, str | None] = field(default_factory=dict)
    comparison: Comparison | None = None
    seconds_median: float | None = None
    seconds_p95: float | None = None
    errors: Mapping[str, str] = field(default_factory=dict)
    timeouts: tuple[str, ...] = ()
    mean_confidence: float | None = None
    calibration: ConfidenceCalibration | None = None
    version: Mapping[str, object] | None = None
    resumed: Mapping[str, int] | None = None

    @property
    def aggregate(self) -> float | None:
        """The engine's corpus figure (``report.aggregate``)."""
        return self.report.aggregate


@dataclass(frozen=True)
class FleetReport:
    """A fleet of OCR engines run over one gold corpus (`ek.ocr.benchmark_fleet`).

    ``engines`` maps each engine that ran to its `EngineResult`, in the
    order given; ``consensus`` is the ROVER consensus of the fleet scored
    like one more engine (None with fewer than two engines, or when asked
    not to), and ``consensus_texts`` its text of every page (None where no
    engine read the page). ``ranking`` lists the rows best first (the
    consensus included, as ``"rover"``) and ``best`` names the best engine.
    ``unreadable`` maps each page whose image cannot be read to why (an
    error for every engine), ``skipped`` each engine that did not run to why
    (not installed, not configured, or failed on every page) with the fix.
    ``run_id`` names the stored runs when persisted.
    """

    metric: str
    level: float
    higher_is_better: bool | None
    n_items: int
    engines: Mapping[str, EngineResult] = field(default_factory=dict)
    ranking: tuple[str, ...] = ()
    best: str | None = None
    consensus: EngineResult | None = None
    consensus_texts: Mapping[str, str | None] = field(default_factory=dict)
    unreadable: Mapping[str, str] = field(default_factory=dict)
    skipped: Mapping[str, str] = field(default_factory=dict)
    run_id: str | None = None

    def __getitem__(self, name: str) -> EngineResult:
        """The row named ``name``: an engine, or ``"rover"`` for the consensus."""
        if name == CONSENSUS and self.consensus is not None:
            return self.consensus
        if name in self.engines:
            return self.engines[name]
        known = ", ".join(map(repr, self.ranking)) or "none"
        raise KeyError(f"this fleet has no row {name!r}; its rows are {known}.")

    @property
    def rows(self) -> tuple[EngineResult, ...]:
        """The `EngineResult` of every row, best first (the order of ``ranking``)."""
        return tuple(self[name] for name in self.ranking)

    @property
    def resumed(self) -> dict[str, int] | None:
        """``{"reused", "read"}`` summed over the engines: page readings taken from the stored runs and read now.

        None for a fleet not stored. A fresh stored fleet has ``reused`` 0.
        """
        counts = [r.resumed for r in self.engines.values() if r.resumed is not None]
        if not counts:
            return None
        return {"reused": sum(c["reused"] for c in counts), "read": sum(c["read"] for c in counts)}


def build_fleet_report(
    runs: Mapping[str, tuple[Any, ...]],
    consensus: tuple[Any, ...] | None,
    *,
    metric: Any,
    level: float,
    n_items: int,
    unreadable: Mapping[str, str],
    skipped: Mapping[str, str],
    consensus_texts: Mapping[str, str | None],
    run_id: str | None,
) -> FleetReport:
    """The `FleetReport` of scored runs: ``runs`` maps a name to ``(engine id, report, parts)``.

    ``parts`` are the engine's timing, errors, confidence and calibration
    (`ek.ocr._fleet.figures.engine_parts`); ``consensus`` is ``(report,
    parts)`` of the ROVER row or None.
    """
    rows = {name: (engine, report, parts) for name, (engine, report, parts) in runs.items()}
    if consensus is not None:
        rows[CONSENSUS] = (CONSENSUS, consensus[0], consensus[1])
    up = next((r.detail.get("higher_is_better") for _, r, _ in rows.values() if r.n), None)
    ranking = _ranking({name: r for name, (_, r, _) in rows.items()}, up)
    best = next((name for name in ranking if name in runs), None)
    results = {}
    for name, (engine, report, parts) in rows.items():
        interval, slices, why, slice_whys = _intervals(report, level)
        paired = None
        if best is not None and name != best and report.n and rows[best][1].n:
            paired = paired_comparison(rows[best][1], report, level=level, metric=metric)
        results[name] = EngineResult(
            name=name,
            engine=engine,
            report=report,
            interval=interval,
            slice_intervals=slices,
            why=why,
            slice_whys=slice_whys,
            comparison=paired,
            **parts,
        )
    label = next((r.metric for _, r, _ in rows.values() if r.metric), metric if isinstance(metric, str) else "")
    return FleetReport(
        metric=label,
        level=level,
        higher_is_better=up,
        n_items=n_items,
        engines={name: results[name] for name in runs},
        ranking=ranking,
        best=best,
        consensus=results.get(CONSENSUS),
        consensus_texts=dict(consensus_texts),
        unreadable=dict(unreadable),
        skipped=dict(skipped),
        run_id=run_id,
    )


# ---------------------------------------------------------------------------


def _ranking(reports: Mapping[str, Report], up: bool | None) -> tuple[Any, ...]:
    """The names best first by corpus figure (lower first when the metric has no direction); ties keep their order."""
    order = list(reports)

    def key(name: str) -> tuple[Any, ...]:
        value = reports[name].aggregate
        if value is None or math.isnan(value):
            return (1, 0.0, order.index(name))
        return (0, -value if up else value, order.index(name))

    return tuple(sorted(order, key=key))


def paired_comparison(best: Report, other: Report, *, level: float, metric: Any) -> Comparison | None:
    """``ek.compare(best, other)`` on the pages both scored (None when they share none)."""
    from ek.facade import compare

    ids_best, ids_other = list(best.detail.get("ids") or ()), list(other.detail.get("ids") or ())
    if set(ids_best) == set(ids_other):
        return compare(best, other, level=level)
    shared = set(ids_best) & set(ids_other)
    if not shared:
        return None
    return compare(_restricted(best, shared, metric), _restricted(other, shared, metric), level=level)


def _restricted(report: Report, keep: set[Any], metric: Any) -> Report:
    """``report`` over the items whose id is in ``keep`` (their scores unchanged, the figures recomputed)."""
    from ek.facade import merge_reports

    ids, slices = report.detail["ids"], report.detail.get("slices")
    kept = [i for i, key in enumerate(ids) if key in keep]
    detail: dict[str, Any] = {"ids": tuple(ids[i] for i in kept)}
    if slices is not None:
        detail["slices"] = tuple(slices[i] for i in kept)
    flat = Report(metric=report.metric, n=len(kept), scores=tuple(report.scores[i] for i in kept), detail=detail)
    return merge_reports(flat, metric=metric)


def _intervals(report: Report, level: float) -> tuple[Any, ...]:
    """The interval of the report's figure and of every slice's (NaN for an empty report), and their whys."""
    if not report.n:
        return (math.nan, math.nan), {}, None, {}
    whole = report.bounds(level)
    parts = {label: report.bounds(level, slice=label) for label in report.per_slice}
    return whole.pair(), {k: b.pair() for k, b in parts.items()}, _why(whole), {k: _why(b) for k, b in parts.items()}


def _why(bounds: Any) -> str | None:
    """Why an interval with bounds cannot be trusted; None when it can (or is NaN, which says so itself)."""
    return bounds.why if not bounds.reliable and bounds.low == bounds.low else None
