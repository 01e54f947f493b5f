"""The data of the ``ek benchmark --html`` page (see `ek.cli._html._fleet` for the keys), from a `FleetReport`.

Also the one line that says what a resumed fleet reused (`resumed_line`),
which the page lists with the settings and the terminal prints under them.

The ranking and per-slice figures are those of the ``--json`` report
(`ek.cli._commands._benchmark.fleet_payload`), so the page and the file agree.
Each row's worst pages carry their texts and aligned diffs (drawn as ``ek
evaluate`` draws them, `ek.cli._commands._pages`), and one page is shown as every
row read it: the page on which the rows' figures differ most.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ek.cli._commands._benchmark_gold import BenchmarkGold
from ek.cli._commands._pages import (
    _WORDS,
    SHOWN,
    _display_ops,
    _extremes,
    _preparer,
    unit_of,
)

if TYPE_CHECKING:
    from ek.ocr import EngineResult, FleetReport

_SHOWN_PER_ROW = 20  # worst pages listed per engine (the JSON lists every page)


def fleet_page(
    report: FleetReport, corpus: BenchmarkGold, payload: Mapping[str, object], steps: list[str] | None
) -> dict[str, object]:
    """The ``render_fleet`` data of a fleet run, with the payload's provenance keys."""
    prepare = _preparer(report.metric, steps)
    unit = unit_of(report.metric)
    up = report.higher_is_better
    data: dict[str, object] = {
        "title": f"ek benchmark: {corpus.source}",
        "metric": report.metric,
        "higher_is_better": up,
        "level": report.level,
        "n": report.n_items,
        "noun": "pages",
        "best": report.best,
        "ranking": payload["ranking"],
        "per_slice": payload["per_slice"],
        "worst": [{"name": row.name, "items": _worst(row, prepare, unit, up)} for row in report.rows],
        "side_by_side": _side_by_side(report, prepare, unit),
        "skipped": dict(report.skipped),
        "unreadable": dict(report.unreadable),
        "errors": [
            {"side": "gold", "path": str(corpus.records[k]["image"]), "id": str(k), "message": m}
            for k, m in report.unreadable.items()
            if k in corpus.records
        ],
    }
    for key in ("inputs", "settings", "ek_version", "date"):
        data[key] = payload.get(key)
    settings = payload.get("settings")
    data["settings"] = {**(settings if isinstance(settings, dict) else {}), **_run_lines(report)}
    return data


def resumed_line(report: FleetReport) -> str:
    """``"resumed: 40 of 54 pages read earlier, 14 read now"`` for a fleet that reused stored pages, else ""."""
    total = report.resumed
    if total is None or not total["reused"]:
        return ""
    n = total["reused"] + total["read"]
    counts = {name: r.resumed for name, r in report.engines.items() if r.resumed is not None}
    if len(counts) == 1:
        return f"resumed: {total['reused']} of {n} pages read earlier, {total['read']} read now"
    each = ", ".join(f"{name} {c['reused']} of {c['reused'] + c['read']}" for name, c in counts.items())
    return (
        f"resumed: {total['reused']} of {n} page readings ({len(counts)} engines x {report.n_items} pages) "
        f"read earlier, {total['read']} read now (earlier: {each})"
    )


# ---------------------------------------------------------------------------


def _run_lines(report: FleetReport) -> dict[str, str]:
    """The provenance lines of what read the pages (each engine's version and models) and what a resume reused."""
    lines = {f"engine {row.name}": _version_line(row.version) for row in report.engines.values()}
    resumed = resumed_line(report)
    if resumed:
        lines["resumed"] = resumed.removeprefix("resumed: ")
    return lines


def _worst(
    row: EngineResult, prepare: Callable[[str], str], unit: str | None, up: bool | None
) -> list[dict[str, object]]:
    """The row's worst pages (in the metric's direction), each with its aligned diff."""
    per_item = row.report.detail["per_item"]
    keys = [k for k, e in per_item.items() if e.get("error") is None]
    values = [per_item[k]["score"] for k in keys]
    picked = sorted(
        _extremes(values, min(SHOWN, _SHOWN_PER_ROW), largest=not up), key=lambda i: values[i], reverse=not up
    )  # the worst first, as the table says
    return [_item(k, per_item[k], prepare, unit) for k in (keys[i] for i in picked)]


def _item(key: object, entry: Mapping[str, Any], prepare: Callable[[str], str], unit: str | None) -> dict[str, object]:
    gold, pred = entry.get("reference"), entry.get("prediction")
    item: dict[str, object] = {
        "id": str(key),
        "slice": None if entry.get("slice") is None else str(entry["slice"]),
        "value": entry.get("score"),
        "gold": gold,
        "pred": pred,
        "confidence": entry.get("confidence"),
        "seconds": entry.get("seconds"),
        "unit": "word" if unit in _WORDS else "char",
    }
    if unit is not None and isinstance(gold, str) and isinstance(pred, str):
        item["ops"] = _display_ops(prepare(pred), prepare(gold), unit)
    return item


def _side_by_side(report: FleetReport, prepare: Callable[[str], str], unit: str | None) -> dict[str, object] | None:
    """The page every row read on which their figures are furthest apart, as each row read it."""
    rows = report.rows
    if not rows:
        return None
    items = [row.report.detail["per_item"] for row in rows]
    best_key, spread = None, -1.0
    for key in items[0]:
        values = [it[key]["score"] for it in items if key in it and it[key].get("error") is None]
        if len(values) == len(items) and max(values) - min(values) > spread:
            best_key, spread = key, max(values) - min(values)
    if best_key is None:
        return None
    first = items[0][best_key]
    return {
        "id": str(best_key),
        "slice": None if first.get("slice") is None else str(first["slice"]),
        "gold": first.get("reference"),
        "readings": [
            {"name": row.name, **_item(best_key, it[best_key], prepare, unit)} for row, it in zip(rows, items)
        ],
    }


def _version_line(record: Mapping[str, Any] | None) -> str:
    """A version record as one provenance line: the engine's version, its model files, what is unknown."""
    if not record:
        return "not recorded"
    parts = [str(record.get("version") or "version unknown")]
    models = [
        str(m["file"])
        + (f" {m['version']}" if m.get("version") else "")
        + (f" ({m['bytes']:,} bytes)" if m.get("bytes") else "")
        for m in record.get("models") or ()
    ]
    if models:
        parts.append("models " + ", ".join(models))
    if record.get("missing"):
        parts.append("; ".join(record["missing"]))
    return "; ".join(parts)
