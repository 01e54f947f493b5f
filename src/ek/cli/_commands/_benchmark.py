"""``ek benchmark GOLD --engine A --engine B``: run a fleet of OCR engines over GOLD and print the ranking.

GOLD is read by `ek.cli._commands._benchmark_gold`; the fleet runs through
`ek.ocr.benchmark_fleet`. The printed ranking gives, per engine (and for the
ROVER consensus of the fleet), the corpus figure with its interval, the
difference to the best engine with its paired interval, p-value and verdict
(`ek.compare`), the seconds per page (median and 95th percentile) and the
pages it could not read; then the figures per slice, the engines'
confidence calibration, and what was left out: engines not installed or
not configured (with the install line; only under ``--keep-going``, else
such an engine is an error naming its fix), pages whose image cannot be read
(an error for every engine), pages an engine failed on. ``--json`` and
``--html`` carry the same figures (`fleet_payload`), written as ``ek
evaluate`` writes its outputs (`ek.cli._commands._outputs`); each ranking
row records what read its pages (the engine's version, packages and model
files: ``version``), and the page lists them with the settings. ``--save
NAME`` keeps every engine's run under NAME, so a benchmark that dies resumes
where it stopped when run again with the same NAME, and says so: a line
under the settings ("resumed: 40 of 54 pages read earlier, 14 read now") and
``resumed`` in the JSON (``{"reused", "read"}``, overall and per row).
"""

from __future__ import annotations

import dataclasses
import datetime
import math
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict

from ek._files import InputError
from ek._version import __version__
from ek.canonicalize import Canonicalizer
from ek.cli._commands import _format as fmt
from ek.cli._commands._benchmark_gold import BenchmarkGold, read_benchmark_gold
from ek.cli._commands._format import Outcome
from ek.cli._commands._options import in_flags
from ek.cli._commands._outputs import check_outputs, write_json, write_page

if TYPE_CHECKING:
    from ek.cli._html._data import Meta
    from ek.ocr import FleetReport
    from ek.ocr.benchmark import FleetSettings

_SHOWN_ERRORS = 5
# What ek.ocr.benchmark_fleet's messages name, in the words of this command's flags.
_FLAGS = {
    "Use a new run_id, or pass resume=False to start this one over": "Use another --save NAME",
    "run_id": "--save",
    "metric=": "--metric",
    "normalize=": "--normalize",
    "max_workers": "--max-workers",
}


@dataclass(frozen=True)
class BenchmarkOptions:
    """The options of ``ek benchmark`` its runner reads (the outputs and engines aside).

    ``fleet`` is the fleet's own group, as `ek.ocr.benchmark_fleet` builds it
    from its keywords (its ``normalize`` as given: documents get ``nfc`` once
    GOLD is read); the rest are this command's flags: ``save`` names the
    stored runs, ``keep_going`` ranks the engines that can run, ``id``,
    ``gold_field`` and ``slice`` say how to read GOLD.
    """

    fleet: FleetSettings
    save: str | None = None
    keep_going: bool = False
    id: str = "id"
    gold_field: str | None = None
    slice: str | None = None


def benchmark_options(
    *,
    metric: str,
    normalize: list[str] | None,
    level: float,
    save: str | None,
    keep_going: bool,
    max_workers: int | None,
    timeout: float | None,
    id: str,
    gold_field: str | None,
    slice: str | None,
) -> BenchmarkOptions:
    """The options of one ``ek benchmark`` call from its flags: engines that cannot run were refused already."""
    from ek.harness import RunOptions
    from ek.ocr.benchmark import FleetSettings

    run = RunOptions(persist=save is not None, run_id=save, max_workers=max_workers or 1, timeout=timeout)
    fleet = FleetSettings(metric=metric, normalize=normalize, level=level, strict=False, check_images=True, run=run)
    return BenchmarkOptions(fleet, save=save, keep_going=keep_going, id=id, gold_field=gold_field, slice=slice)


class RankingRow(TypedDict):
    """One row of the ranking (best first), as the table, the ``--json`` report and the page show it."""

    rank: int
    name: str
    engine: str
    aggregate: float | None
    interval: list[float]
    why: str | None  # why the interval cannot be trusted (None: it can, or it has no bounds)
    n: int
    best: bool
    consensus: bool
    delta: float | None
    delta_interval: list[float] | None
    delta_why: str | None
    p_value: float | None
    n_compared: int | None
    verdict: str | None
    seconds_median: float | None
    seconds_p95: float | None
    n_errors: int
    n_timeouts: int
    errors: dict[str, str]
    timeouts: list[object]
    mean_confidence: float | None
    calibration: dict[str, Any] | None  # unit, n, ece, curve: as `ek.ocr` measured it
    version: dict[str, Any] | None  # version, packages, models, missing: what read the pages (None: consensus)
    resumed: dict[str, int] | None  # reused, read: pages taken from a --save run and read now (None: not saved)


def run_benchmark(
    gold: str,
    engines: list[str] | None,
    options: BenchmarkOptions,
    *,
    json_path: str | None,
    html_path: str | None,
) -> Outcome:
    """The whole command: read GOLD, run the fleet, then print, write the JSON and the page."""
    check_outputs({"gold": gold}, json_path, html_path)
    if not engines:
        raise InputError(
            "name the engines to run with --engine, once per engine (e.g. --engine tesseract --engine "
            "rapidocr, or --engine tesseract:lang=deu); ek engines lists those installed here."
        )
    _check_engines(engines, keep_going=options.keep_going)
    corpus = read_benchmark_gold(
        gold, id_field=options.id or None, gold_field=options.gold_field, slice_field=options.slice
    )
    steps = options.fleet.normalize
    if steps is None and corpus.documents:
        steps = ["nfc"]  # documents are NFC-normalised, as ek evaluate does
    report = _run(engines, corpus, options, steps)
    meta = benchmark_meta(gold, engines, options, steps)
    payload = fleet_payload(report, meta)
    text = write_json(json_path, payload) if json_path is not None else ""
    if html_path is not None:
        from ek.cli._commands._benchmark_page import fleet_page
        from ek.cli._html._fleet import render_fleet

        text += write_page(html_path, render_fleet(fleet_page(report, corpus, payload, steps)))
    if "-" not in (json_path, html_path):  # the summary lists the engines left out; the JSON on stdout cannot
        return Outcome(stdout=summary(report, corpus, meta))
    return Outcome(stdout=text, stderr=_left_out(report))


def benchmark_meta(gold: str, engines: list[str], options: BenchmarkOptions, steps: list[str] | None) -> Meta:
    """Inputs, settings, ek version and date, as the ``--json`` report and the page carry them."""
    fleet = options.fleet
    return {
        "inputs": {"gold": gold},
        "settings": {
            "metric": fleet.metric,
            "normalize": Canonicalizer(steps).version if steps else None,
            "level": fleet.level,
            "engines": list(engines),
            "max_workers": fleet.run.max_workers if fleet.run.max_workers > 1 else None,
            "timeout": fleet.run.timeout,
            "keep_going": options.keep_going,
            "save": options.save,
        },
        "ek_version": __version__,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }


def summary(report: FleetReport, corpus: BenchmarkGold, meta: Meta) -> str:
    """The printed ranking, the per-slice figures, the calibration, and what could not be read."""
    way = fmt.direction(report.higher_is_better, unknown="direction unknown")
    n_engines = len(report.engines)
    head = [
        f"ek benchmark: {report.metric} ({way}) on {report.n_items} pages, {n_engines} engine"
        f"{'s' if n_engines != 1 else ''}" + (" and their ROVER consensus" if report.consensus else ""),
        f"settings: normalize {meta['settings']['normalize'] or 'none'} | level {report.level:g}",
    ]
    from ek.cli._commands._benchmark_page import resumed_line  # with the page's data: it lists the line too

    resumed = resumed_line(report)
    if resumed:
        head.append(resumed)
    ranked = fleet_rows(report)
    rows = [_ranking_row(row) for row in ranked]
    header = [
        "rank",
        "engine",
        report.metric,
        f"{report.level:.0%} interval",
        "vs best",
        "interval of difference",
        "p",
        "verdict",
        "s/page",
        "p95 s",
        "errors",
    ]
    lines = [*head, "", fmt.table(header, rows)]
    lines += _unreliable_lines(ranked)
    lines += _slice_lines(report)
    lines += _calibration_lines(report)
    lines += _problem_lines(report)
    return "\n".join(lines)


def fleet_rows(report: FleetReport) -> list[RankingRow]:
    """One dict per row of the ranking (best first): the figures the table, the JSON and the page show."""
    rows: list[RankingRow] = []
    for rank, result in enumerate(report.rows, 1):
        c = result.comparison
        rows.append(
            {
                "rank": rank,
                "name": result.name,
                "engine": result.engine,
                "aggregate": result.aggregate,
                "interval": list(result.interval),
                "why": result.why,
                "n": result.report.n,
                "best": result.name == report.best,
                "consensus": report.consensus is not None and result is report.consensus,
                "delta": None if c is None else c.delta,
                "delta_interval": None if c is None else list(c.interval),
                "delta_why": None if c is None else _why(c.reliable, c.why, c.interval),
                "p_value": None if c is None else c.p_value,
                "n_compared": None if c is None else c.n,
                "verdict": "best" if result.name == report.best else (None if c is None else c.verdict),
                "seconds_median": result.seconds_median,
                "seconds_p95": result.seconds_p95,
                "n_errors": len(result.errors),
                "n_timeouts": len(result.timeouts),
                "errors": dict(result.errors),
                "timeouts": list(result.timeouts),
                "mean_confidence": result.mean_confidence,
                "calibration": None if result.calibration is None else dict(result.calibration),
                "version": None if result.version is None else dict(result.version),
                "resumed": None if result.resumed is None else dict(result.resumed),
            }
        )
    return rows


def slice_rows(report: FleetReport) -> dict[object, dict[str, dict[str, Any]]]:
    """``slice -> {row name -> figures}``: each row's figure, interval and difference to the best in that slice."""
    out: dict[object, dict[str, dict[str, Any]]] = {}
    for result in report.rows:
        per = result.comparison.per_slice if result.comparison is not None else {}
        n = result.report.detail.get("slice_n") or {}
        for label, value in result.report.per_slice.items():
            s = per.get(label)
            out.setdefault(label, {})[result.name] = {
                "aggregate": value,
                "interval": list(result.slice_intervals.get(label, (math.nan, math.nan))),
                "why": result.slice_whys.get(label),
                "n": n.get(label),
                "delta": s["delta"] if s else None,
                "delta_interval": list(s["interval"]) if s else None,
                "delta_why": _why(s["reliable"], s["why"], s["interval"]) if s else None,
                "p_value": s["p_value"] if s else None,
                "verdict": "best" if result.name == report.best else (s["verdict"] if s else None),
            }
    return out


def fleet_payload(report: FleetReport, meta: Meta) -> dict[str, object]:
    """The ``--json`` report of a fleet: ranking, per-slice figures, pages, consensus texts, and what was left out."""
    return {
        "metric": report.metric,
        "higher_is_better": report.higher_is_better,
        "level": report.level,
        "n_items": report.n_items,
        "best": report.best,
        "ranking": fleet_rows(report),
        "per_slice": slice_rows(report),
        "items": {
            row.name: {
                str(k): {f: e.get(f) for f in ("prediction", "score", "confidence", "seconds", "error")}
                for k, e in row.report.detail["per_item"].items()
            }
            for row in report.rows
        },
        "consensus_texts": dict(report.consensus_texts),
        "unreadable": dict(report.unreadable),
        "skipped": dict(report.skipped),
        "run_id": report.run_id,
        "resumed": report.resumed,
        **meta,
    }


# ---------------------------------------------------------------------------


def _check_engines(engines: list[str], *, keep_going: bool) -> None:
    """InputError for an unknown engine, and (unless ``--keep-going``) for one that cannot run here, with its fix."""
    from ek.registry import check_requirements

    repeated = sorted({e for e in engines if engines.count(e) > 1})
    if repeated:
        raise InputError(
            f"--engine {repeated[0]} is given twice; each engine is ranked once, so name it once (two settings of "
            "one engine are two engines, each with its options after a colon: --engine tesseract:lang=deu "
            "--engine tesseract:lang=eng)."
        )
    reports = [check_requirements(engine=engine) for engine in engines]
    unknown = [str(r["hint"]) for r in reports if r.get("state") == "unknown"]
    if unknown:
        raise InputError(" ".join(unknown))
    missing = [str(r["hint"]).rstrip(".") for r in reports if not r["ok"]]
    ready = [engine for engine, r in zip(engines, reports) if r["ok"]]
    if missing and (not keep_going or not ready):
        fallback = f"; or pass --keep-going to rank {', '.join(ready)} without {'it' if len(missing) == 1 else 'them'}"
        raise InputError("; ".join(missing) + (fallback if ready else "") + ".")


def _run(engines: list[str], corpus: BenchmarkGold, options: BenchmarkOptions, steps: list[str] | None) -> FleetReport:
    """The fleet run; a fleet that read nothing is bad input."""
    from ek.ocr.benchmark import benchmark_fleet

    if options.save is not None:
        from ek.cli._commands._saved import check_name

        check_name(options.save)
    settings = dataclasses.replace(options.fleet, normalize=steps)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # engines left out and pages not read are printed from the report
        try:
            return benchmark_fleet(engines, corpus.records, **settings.keywords())
        except (ImportError, RuntimeError) as exc:
            raise InputError(" ".join(str(exc).split())) from None
        except (ValueError, TypeError) as exc:  # a bad value or a metric for another type: bad input either way
            raise in_flags(exc, "benchmark_fleet", _FLAGS) from None


def ranking_cells(row: RankingRow, name: str) -> list[str]:
    """A ranking row's rank, name, figure, interval, difference to the best with its interval, p and verdict."""
    compared = row["delta"] is not None
    return [
        str(row["rank"]),
        name,
        fmt.number(row["aggregate"]),
        _marked(fmt.interval(row["interval"], n=row["n"]), row["why"]),
        fmt.number(row["delta"], signed=True) if compared else "-",
        _marked(fmt.interval(row["delta_interval"], signed=True, n=row["n_compared"]), row["delta_why"])
        if compared
        else "-",
        fmt.p_value(row["p_value"]) if compared else "-",
        row["verdict"] or "-",
    ]


def _unreliable_lines(rows: list[RankingRow]) -> list[str]:
    """One line per reason an interval above is marked unreliable, naming the rows it marks."""
    named: dict[str, list[str]] = {}
    for row in rows:
        if row["why"]:
            named.setdefault(row["why"], []).append(row["name"])
        if row["delta_why"]:
            named.setdefault(row["delta_why"], []).append(f"{row['name']} vs best")
    return [f"unreliable intervals ({', '.join(names)}): {why}" for why, names in named.items()]


def _why(reliable: bool, why: str | None, interval: Any) -> str | None:
    """A paired interval's why when it has bounds that cannot be trusted, else None."""
    return why if not reliable and interval[0] == interval[0] else None


def _marked(cell: str, why: str | None) -> str:
    """An interval cell, marked ``(unreliable)`` when ``why`` says it cannot be trusted."""
    return f"{cell} (unreliable)" if why else cell


def _ranking_row(row: RankingRow) -> list[str]:
    return [
        *ranking_cells(row, row["name"] + (" (consensus)" if row["consensus"] else "")),
        _seconds(row["seconds_median"]),
        _seconds(row["seconds_p95"]),
        str(row["n_errors"]) + (f" ({row['n_timeouts']} timed out)" if row["n_timeouts"] else ""),
    ]


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _slice_lines(report: FleetReport) -> list[str]:
    per = slice_rows(report)
    if not per:
        return []
    names = list(report.ranking)
    rows = [
        [
            str(label),
            str(next((v["n"] for v in by.values() if v.get("n") is not None), "")),
            *(fmt.number(by[name]["aggregate"]) if name in by else "-" for name in names),
        ]
        for label, by in per.items()
    ]
    return ["", f"per slice ({report.metric}):", fmt.table(["slice", "n", *names], rows)]


def _calibration_lines(report: FleetReport) -> list[str]:
    rows = [
        [
            r.name,
            fmt.number(r.mean_confidence),
            fmt.number(r.calibration["ece"]),
            r.calibration["unit"],
            str(r.calibration["n"]),
        ]
        for r in report.engines.values()
        if r.calibration is not None
    ]
    if not rows:
        return []
    return [
        "",
        "confidence (does the engine know when it is wrong? ECE: 0 is perfectly calibrated):",
        fmt.table(["engine", "mean confidence", "ECE", "unit", "n"], rows),
    ]


def _problem_lines(report: FleetReport) -> list[str]:
    lines: list[str] = []
    if report.skipped:
        lines += ["", f"left out: {len(report.skipped)} engine(s):"]
        lines += [f"  {name}: {why}" for name, why in report.skipped.items()]
    if report.unreadable:
        lines += [
            "",
            f"unreadable: {len(report.unreadable)} page(s) whose image cannot be read (an error for every engine):",
        ]
        lines += [f"  {key}: {why}" for key, why in report.unreadable.items()]
    for result in report.engines.values():
        own = {k: e for k, e in result.errors.items() if k not in report.unreadable}
        if own:
            lines += [f"{result.name} could not read {len(own)} page(s):"]
            lines += [f"  {k}: {e}" for k, e in list(own.items())[:_SHOWN_ERRORS]]
            if len(own) > _SHOWN_ERRORS:
                lines.append(f"  ... and {len(own) - _SHOWN_ERRORS} more (every one is listed by --json and --html)")
    return lines


def _left_out(report: FleetReport) -> str:
    """The stderr note when the ranking is incomplete (engines left out)."""
    if not report.skipped:
        return ""
    return "ek benchmark: " + "; ".join(f"engine {name} left out: {why}" for name, why in report.skipped.items())
