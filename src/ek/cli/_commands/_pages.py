"""The data of the ``--html`` pages (see `ek.cli._html` for the keys), built from scored runs.

Text metrics get aligned diffs from `ek._align`, the one alignment ek has:
every item with an edit is aligned once, on the text the figure compared
(normalised as it was, a profile's normalisation under ``--profile``) and in
the figure's unit (code points, grapheme clusters or words), so the edits of
a diff add up to the item's share of the figure's numerator. The confusion
table counts those same ops over the whole corpus; the items the page shows
keep their texts and ops (the rest carry their value only, so a page of
100,000 items stays small).
Field metrics get per-field precision, recall and F1. Text documents add their OCR
``measures`` (CER, WER, FCA, bag of words) and the documents that failed to read.
``meta`` (the provenance the command builds once for ``--json`` and the page: inputs,
settings, ek version, date, errors, skipped files) is copied into the page data; its keys
win over those computed here.
"""

from __future__ import annotations

import heapq
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from ek._align import Op, align, confusion_table, confusions
from ek._files import Joined
from ek._util import prf
from ek.base import Comparison, Report
from ek.canonicalize import resolve_canonicalizer
from ek.cli._commands._inputs import Bounds, Scored, item_rows, metric_facts
from ek.cli._commands._options import Options
from ek.cli._html._chars import align_clusters
from ek.cli._html._data import (
    CompareItem,
    ComparePage,
    EvaluatePage,
    FieldFigures,
    Item,
    Meta,
    ReadError,
    SliceDelta,
)
from ek.metrics.strings import StringMetric

SHOWN = 200  # items the pages list (the worst, or the most changed each way)
_WORDS = ("word", "unicode_word")  # diffs and confusions count the metric's own words
_N_CONFUSIONS = 200
_SLICE_KEYS: tuple[Literal["a", "b", "delta", "p_value", "verdict", "n"], ...] = (
    "a",
    "b",
    "delta",
    "p_value",
    "verdict",
    "n",
)


def evaluate_page(
    scored: Scored, overall: Bounds, per_slice: Mapping[object, Bounds], options: Options, meta: Meta | None = None
) -> EvaluatePage:
    """The ``render_evaluate`` data of one scored run, with ``meta``'s keys copied in."""
    report = scored.report
    slice_n = report.detail.get("slice_n") or {}
    up = report.detail.get("higher_is_better")
    data: EvaluatePage = {
        "title": f"ek evaluate: {scored.name}",
        "metric": report.metric,
        "higher_is_better": up,
        "aggregate": report.aggregate,
        "interval": list(overall),
        "level": options.level,
        "n": report.n,
        "missing": list(scored.missing),
        "extra": list(scored.extra),
        "per_slice": {
            label: {"aggregate": value, "interval": list(per_slice[label]), "n": slice_n.get(label)}
            for label, value in report.per_slice.items()
        },
    }
    rows = item_rows(report)
    ids, labels = _ids(report), _slices(report)
    items: list[Item] = [
        {"id": str(i), "slice": s, "value": v, "statistics": stats} for i, s, (v, stats) in zip(ids, labels, rows)
    ]
    worst = _extremes([v for v, _ in rows], SHOWN, largest=not up)
    prepare = _preparer(report.metric, options.steps, profile=options.profile)
    joined, unit = scored.joined, unit_of(report.metric)
    if joined is not None:
        for k in worst:
            items[k]["gold"], items[k]["pred"] = _shown(joined.golds[k]), _shown(joined.preds[k])
        if unit is not None:
            shown = _shown_ops(joined, worst, unit, prepare)
            data["confusions"] = _corpus_confusions(joined, items, unit, prepare, shown)
            for k, ops in shown.items():
                items[k]["ops"], items[k]["unit"] = ops, "word" if unit in _WORDS else "char"
    data["items"] = items
    fields = _fields(report)
    if fields:
        data["fields"] = fields
    measures = scored.documents.get("measures")
    if measures:
        data["measures"] = dict(measures)
    if scored.documents.get("measures_left_out"):
        data["measures_left_out"] = dict(scored.documents["measures_left_out"])
    if joined is not None and joined.documents:
        data["noun"] = "documents"
        data["errors"] = _read_errors(joined)
    return {**data, **(meta or {})}


def compare_page(
    result: Comparison, a: Scored, b: Scored, bounds: Sequence[Bounds], options: Options, meta: Meta | None = None
) -> ComparePage:
    """The ``render_compare`` data of two scored runs, with ``meta``'s keys copied in."""
    data: ComparePage = {
        "title": f"ek compare: {a.name} vs {b.name}",
        "metric": result.metric,
        "higher_is_better": result.higher_is_better,
        "level": result.level,
        "n": result.n,
        "a": {"name": a.name, "aggregate": a.report.aggregate, "interval": list(bounds[0])},
        "b": {"name": b.name, "aggregate": b.report.aggregate, "interval": list(bounds[1])},
        "delta": result.delta,
        "interval": list(result.interval),
        "p_value": result.p_value,
        "verdict": result.verdict,
        "per_slice": {label: _slice_delta(s) for label, s in result.per_slice.items()},
    }
    values_b = dict(zip(map(str, _ids(b.report)), (v for v, _ in item_rows(b.report))))
    items: list[CompareItem] = []
    for i, s, (va, _) in zip(_ids(a.report), _slices(a.report), item_rows(a.report)):
        vb = values_b.get(str(i))
        items.append({"id": str(i), "slice": s, "a": va, "b": vb, "delta": None if vb is None else vb - va})
    deltas = [it["delta"] if it["delta"] is not None else 0.0 for it in items]
    shown = _extremes(deltas, SHOWN, largest=True) | _extremes(deltas, SHOWN, largest=False)
    unit = unit_of(result.metric)
    prepare = _preparer(result.metric, options.steps, profile=options.profile)
    texts = {side: _texts(run) for side, run in (("a", a), ("b", b))}
    for k in shown:
        item = items[k]
        gold = texts["a"].get(item["id"], (None, None))[0] or texts["b"].get(item["id"], (None, None))[0]
        item["gold"] = _shown(gold)
        for side in ("a", "b"):
            pred = texts[side].get(item["id"], (None, None))[1]
            ops = (
                _display_ops(prepare(pred), prepare(gold), unit)
                if unit and isinstance(gold, str) and isinstance(pred, str)
                else None
            )
            _put_side(item, side, _shown(pred), ops)
        item["unit"] = "word" if unit in _WORDS else "char"
    data["items"] = items
    if a.joined is not None and a.joined.documents:
        data["noun"] = "documents"
    return {**data, **(meta or {})}


# ---------------------------------------------------------------------------


def unit_of(metric: str) -> str | None:
    """The unit the registered metric ``metric`` declares (its diffs align in it), or None: no diffs."""
    facts = metric_facts(metric)
    return None if facts is None else facts.unit


def _slice_delta(s: Mapping[str, Any]) -> SliceDelta:
    """A slice of `ek.Comparison.per_slice` as the page takes it (its interval a list)."""
    out = SliceDelta()
    for key in _SLICE_KEYS:
        if key in s:
            out[key] = s[key]
    out["interval"] = list(s["interval"])
    return out


def _put_side(item: CompareItem, side: str, pred: str | None, ops: list[Op] | None) -> None:
    """Side ``a``'s or ``b``'s prediction (and its diff, if any) on a compare page item."""
    if side == "a":
        item["pred_a"] = pred
        if ops is not None:
            item["ops_a"] = ops
    else:
        item["pred_b"] = pred
        if ops is not None:
            item["ops_b"] = ops


def _ids(report: Report) -> list[object]:
    return list(report.detail.get("ids") or range(report.n))


def _slices(report: Report) -> list[str | None]:
    labels = report.detail.get("slices")
    return [None if s is None else str(s) for s in labels] if labels is not None else [None] * report.n


def _extremes(values: Sequence[object], n: int, *, largest: bool) -> set[int]:
    """Indices of the ``n`` largest (or smallest) finite values."""
    finite: list[tuple[float, int]] = [(v, k) for k, v in enumerate(values) if isinstance(v, (int, float)) and v == v]
    pick = heapq.nlargest if largest else heapq.nsmallest
    return {k for _, k in pick(n, finite)}


def _preparer(metric: str, steps: list[str] | None, *, profile: str | None = None) -> Callable[[str], str]:
    """What the figure did to a text before comparing it: the normalisation, and CER's trimmed ends.

    Under a profile the normalisation is the profile's own (`ek.ocr.files.canonicalizer_for`), and
    CER keeps the whitespace at both ends (dinglehopper counts it: `ek.ocr.files` scores with
    ``strip=False`` then), so the diff shows what the figure counted.
    """
    if profile is None:
        canon = resolve_canonicalizer(steps)
    else:
        from ek.ocr.files import canonicalizer_for  # loads the OCR scoring only for a profile

        canon = canonicalizer_for(profile, normalize=steps)
    facts = metric_facts(metric)
    trim = profile is None and isinstance(facts, StringMetric) and facts.strip and facts.unit in ("char", "grapheme")

    def prepare(text: str) -> str:
        text = canon(text) if canon is not None else text
        return text.strip() if trim else text

    return prepare


def _display_ops(pred: str, gold: str, unit: str, *, exact: bool = True) -> list[Op]:
    """The one alignment of an item the page draws and counts, in the figure's ``unit`` (see `ek._align`).

    Its edits are the figure's numerator for the item; the page draws code points by grapheme
    cluster without aligning again (`ek.cli._html._diff`). Clusters are aligned as coded code
    points (`ek.cli._html._chars.align_clusters`), the same alignment as ``unit="grapheme"``.
    A drawn item is aligned minimally whatever its length (``exact``: time about units x edits
    / 64, a few times what its figure cost); the confusion table's other items are aligned
    between anchors where that is cheaper (``exact=False``, see `ek._align`), counting at
    least their edits.
    """
    if unit == "grapheme":
        return align_clusters(pred, gold, exact=exact)
    return align(pred, gold, unit=unit, exact=exact)


def _shown(value: object) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def _texts(run: Scored) -> dict[str, tuple[Any, Any]]:
    joined = run.joined
    if joined is None:
        return {}
    return {str(i): (g, p) for i, g, p in zip(joined.ids, joined.golds, joined.preds)}


def _shown_ops(joined: Joined, shown: set[int], unit: str, prepare: Callable[[str], str]) -> dict[int, list[Op]]:
    """The ops of each shown item with two texts, from `_display_ops` on the prepared texts."""
    ops = {}
    for k in sorted(shown):
        gold, pred = joined.golds[k], joined.preds[k]
        if isinstance(gold, str) and isinstance(pred, str):
            ops[k] = _display_ops(prepare(pred), prepare(gold), unit)
    return ops


def _corpus_confusions(
    joined: Joined, items: list[Item], unit: str, prepare: Callable[[str], str], known: Mapping[int, list[Op]]
) -> list[dict[str, Any]]:
    """The most frequent confusions over every item with an edit, from the ops the diffs draw.

    The shown items' ``known`` ops are counted as they are; every other item with an edit is
    aligned once the same way, so the table counts the edits the figure counts, in its unit
    (an item too long to align exactly within `ek._align`'s work bound is aligned between
    anchors, and may count a few more).
    """
    every_op = (
        op
        for k, (g, p, item) in enumerate(zip(joined.golds, joined.preds, items))
        if item["statistics"].get("edits") != 0 and isinstance(g, str) and isinstance(p, str)
        for op in (known[k] if k in known else _display_ops(prepare(p), prepare(g), unit, exact=False))
    )
    return confusion_table(confusions(every_op), n=_N_CONFUSIONS)


def _read_errors(joined: Joined) -> list[ReadError]:
    """The documents that failed to read, as the page lists them (``meta["errors"]`` replaces these)."""
    return [
        ReadError(side=side, path="", id=str(i), message=str(message))
        for side, errors in (("gold", joined.gold_errors), ("pred", joined.pred_errors))
        for i, message in errors.items()
    ]


def _fields(report: Report) -> dict[str, FieldFigures]:
    """Per-field TP/FP/FN summed over the items, with precision, recall and F1."""
    totals: dict[str, list[int]] = {}
    if not report.scores or "per_field" not in report.scores[0].detail:  # not a field metric
        return {}
    for s in report.scores:
        per_field = s.detail.get("per_field")
        if not per_field:
            continue
        for name, counts in per_field.items():
            t = totals.setdefault(str(name), [0, 0, 0])
            for j in range(3):
                t[j] += counts[j]
    out: dict[str, FieldFigures] = {}
    for name, (tp, fp, fn) in totals.items():
        precision, recall, f1 = prf(tp, tp + fp, tp + fn)
        out[name] = {"precision": precision, "recall": recall, "f1": f1, "tp": tp, "fp": fp, "fn": fn}
    return out
