"""Run a fleet of OCR engines over one gold corpus and build its report.

`run_fleet` is `ek.ocr.benchmark_fleet` once its arguments are checked:
the gold pages (`ek.ocr._fleet.pages`), the engines that can run here, the
images checked before any engine reads them (a page whose image cannot be
read is recorded as that page's error for every engine), every engine's run
(`ek.ocr._fleet.schedule`), each engine's figures (`ek.ocr._fleet.figures`),
the ROVER consensus (`ek.ocr._fleet.consensus`) and the ranking
(`ek.ocr._fleet.report`). An engine that is not installed or not configured
is left out, with the install line, unless ``strict``; so is one that fails
on every page. Each engine that ran is asked once what it is (its version
and model files, `ek.ocr._fleet.versions`), and a stored run says how many
pages it took from earlier calls (``EngineResult.resumed``).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

from ek._runs import Item, score_cases, scored_report
from ek.canonicalize import resolve_canonicalizer
from ek.ocr._fleet.consensus import consensus_texts
from ek.ocr._fleet.engines import EngineSpec
from ek.ocr._fleet.figures import engine_parts
from ek.ocr._fleet.pages import WHO, Page, fleet_pages, image_problem
from ek.ocr._fleet.report import CONSENSUS, FleetReport, build_fleet_report
from ek.ocr._fleet.schedule import run_engines
from ek.ocr._fleet.settings import FleetSettings
from ek.ocr._fleet.versions import engine_versions
from ek.ocr._ocr_run import SCORER, with_confusions


def run_fleet(specs: tuple[EngineSpec, ...], gold: Mapping[Any, Any], settings: FleetSettings) -> FleetReport:
    """Run every engine of ``specs`` over ``gold`` and build the report (arguments checked by the caller)."""
    items = fleet_pages(gold, settings)
    ready, skipped = _ready(specs, settings.strict)
    check = settings.check_images
    if check is None:  # ocracy engines read files; a callable may take any key for an image
        check = any(isinstance(spec.engine, str) for spec in ready)
    unreadable = {key: why for key, page, _ in items if check and (why := image_problem(page.image)) is not None}
    versions = engine_versions(ready)  # once per run, before any page: each stored run records its engine's
    runs = {}
    for done in run_engines(ready, items, unreadable, settings, versions):
        if done.problem is None:
            runs[done.spec.name] = done
        else:
            skipped[done.spec.name] = done.problem
    if not runs:
        raise RuntimeError(  # no function name: the command line prints this as it is
            "no engine of the fleet could read the corpus: "
            + "; ".join(f"{name}: {why}" for name, why in skipped.items())
        )
    canon = resolve_canonicalizer(settings.normalize)
    scored = {
        name: (
            done.engine,
            done.report,
            {**engine_parts(done.report.detail["per_item"], canon), "resumed": done.resumed, "version": versions[name]},
        )
        for name, done in runs.items()
    }
    texts: dict[str, Any] = {}
    consensus = None
    if settings.consensus and len(runs) >= 2:
        texts = consensus_texts([k for k, _, _ in items], [done.report.detail["per_item"] for done in runs.values()])
        report = _consensus_report(items, texts, settings)
        consensus = (report, engine_parts(report.detail["per_item"], canon))
    return build_fleet_report(
        scored,
        consensus,
        metric=settings.metric,
        level=settings.level,
        n_items=len(items),
        unreadable=unreadable,
        skipped=skipped,
        consensus_texts=texts,
        run_id=settings.run.run_id,
    )


# ---------------------------------------------------------------------------


def _ready(specs: tuple[EngineSpec, ...], strict: bool) -> tuple[list[EngineSpec], dict[str, str]]:
    """The specs that can run here, and ``name -> why not`` for the others (``strict``: ImportError)."""
    from ek.ocr._engines import check_engine

    ready, skipped = [], {}
    for spec in specs:
        if callable(spec.engine):
            ready.append(spec)
            continue
        status = check_engine(spec.engine)
        if status["ok"]:
            ready.append(spec)
        elif strict:
            raise ImportError(f"{WHO}(strict=True): engine {spec.name!r} is {status['state']}: {status['hint']}")
        else:
            skipped[spec.name] = f"{status['state']}: {status['hint']}"
    if skipped:
        warnings.warn(
            f"{WHO}: {len(skipped)} engine(s) left out: "
            + "; ".join(f"{name} ({why})" for name, why in skipped.items()),
            stacklevel=4,
        )
    return ready, skipped


def _consensus_report(items: list[Item], texts: Mapping[Any, str | None], settings: FleetSettings) -> Any:
    """The ROVER consensus scored like one more engine: a report over the pages it has a text for."""
    metric = settings.metric
    pages: dict[Any, Page] = {key: page for key, page, _ in items}
    keys = [key for key in pages if texts.get(key) is not None]
    cases = [(texts[key], pages[key].reference) for key in keys]
    scores, _, error = score_cases(cases, keys, metric=metric, options=settings.scoring, who=WHO, scorer=SCORER)
    if error is not None:
        raise error
    scored = dict(zip(keys, scores))
    entries = []
    for key, page in pages.items():
        entry = {
            "prediction": texts.get(key),
            "reference": page.reference,
            "slice": page.slice,
            "score": scored.get(key),
            "error": None,
            "confidence": None,
            "seconds": None,
            "blocks": None,
            "backend": CONSENSUS,
        }
        if key not in scored:
            entry["error"] = "ValueError: no engine read this page, so there is no consensus"
        entries.append(entry)
    report, _ = scored_report(
        items,
        entries,
        label=settings.label,
        metric=metric,
        who=WHO,
        detail={"engine": CONSENSUS, "run_id": None},
        scorer=SCORER,
    )
    return with_confusions(report)
