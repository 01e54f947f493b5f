"""The offline harness: run a system over gold data, keep baselines, gate regressions.

A score is only useful when it can be reproduced and compared, slice by
slice, with the last good one. This module adds that discipline on top of
`ek.facade.evaluate`:

* `evaluate_store` runs any ``input -> prediction`` callable over a gold
  mapping (a dict, or a ``json_store("gold")``) and scores it per slice. A
  persisted run stores each item's result as it completes, so an
  interrupted run resumes where it stopped; a predictor failing on one item
  is recorded as an error instead of losing the run.
* `save_baseline` / `load_baseline` freeze a report's aggregate and
  per-slice figures in the ``baselines`` store.
* `regression_gate` fails when a report is worse than a baseline by more
  than a tolerance, on the aggregate or on any slice, in the direction the
  metric declares.
* `percent_agreement`, `cohen_kappa` and `krippendorff_alpha` measure how
  far annotators agree, the ceiling of any score against their labels.

>>> gold = {"a": {"input": "cat", "reference": "cat", "slice": "easy"},
...         "b": {"input": "dgo", "reference": "dog", "slice": "hard"}}
>>> report = evaluate_store(str.lower, gold, metric="cer")
>>> report.aggregate, dict(report.per_slice)
(0.3333333333333333, {'easy': 0.0, 'hard': 0.6666666666666666})
>>> gate = regression_gate(report, {"metric": "cer", "aggregate": 0.25, "per_slice": {}})
>>> bool(gate), gate.regressions[0]["slice"] is None
(False, True)

Errors: a bad argument or gold record raises ``ValueError`` / ``TypeError``
naming the item and the fix; `regression_gate` raises ``ValueError`` for a
baseline of another metric. A predictor's own exceptions are recorded per
item unless ``errors="raise"``.
"""

from __future__ import annotations

import dataclasses
import json
import math
import time
import warnings
from collections.abc import Mapping
from typing import Any, Callable, Optional

from ek._agreement import cohen_kappa, krippendorff_alpha, percent_agreement
from ek._util import Progress, rehome, type_name
from ek.base import GraphGrammar, Report
from ek._runs import (
    CHUNK_ITEMS,
    FLUSH_SECONDS,
    RunStore,
    digest,
    entry_from_json,
    entry_to_json,
    new_run_id,
    now,
    settings_key,
)
from ek.facade import evaluate, merge_reports
from ek.registry import get, names
from ek.stores import data_dir, json_store

__all__ = [
    "GateResult",
    "cohen_kappa",
    "evaluate_store",
    "krippendorff_alpha",
    "load_baseline",
    "percent_agreement",
    "regression_gate",
    "save_baseline",
]

_ERROR_MODES = ("record", "raise")
_ITEM_FIELDS = ("prediction", "reference", "slice", "score", "error")


# ---------------------------------------------------------------------------
# evaluate_store
# ---------------------------------------------------------------------------


def evaluate_store(
    predict: Callable[[Any], Any],
    gold: Mapping,
    *,
    metric: Any = None,
    grammar: Optional[GraphGrammar] = None,
    normalize: Any = None,
    weights: Any = None,
    input_key: str = "input",
    reference_key: str = "reference",
    slice_key: str = "slice",
    persist: bool = False,
    run_id: Optional[str] = None,
    rootdir: Any = None,
    errors: str = "record",
    resume: bool = True,
    progress: Optional[bool] = None,
) -> Report:
    """Run ``predict`` on every gold record's input and score it per slice.

    Each record of ``gold`` is a mapping holding the input, the reference
    answer and, optionally, a slice label. Items are visited in the dict's
    order, or in sorted key order for any other mapping (a store), so runs
    are repeatable. Scoring goes through `ek.facade.evaluate`; the aggregate
    and each per-slice figure come from the metric's summed statistics.

    A persisted run (``persist=True``, or any ``run_id``) stores item
    results in the ``results`` store as they complete (written in chunks at
    most a second apart, and whenever the run stops or raises) and its
    summary in the ``runs`` store under ``run_id``. Calling again with the
    same ``run_id`` predicts only the items with no stored result (or whose
    gold record changed, or that raised last time) and returns the report an
    uninterrupted run gives; ``resume=False`` starts the run over. A
    persisted report holds predictions and scores as JSON gives them back
    (tuples as lists), so the first and a resumed run agree.

    Args:
        predict: the system under test, ``input -> prediction``.
        gold: ``key -> {input, reference, slice, ...}``; a dict or a ``json_store("gold")``.
        metric: a registered name or a metric callable; None picks one by
            the type of the first prediction and reference.
        grammar, normalize, weights: passed on to scoring, as in `ek.evaluate`.
        input_key, reference_key, slice_key: field names inside each record.
        persist: store the run (implied by ``run_id``).
        run_id: the run's name in the stores; a new one is made when
            persisting without it (read it back from ``detail["run_id"]``).
        rootdir: data folder for the stores (default: the ek data folder).
        errors: ``"record"`` (default) keeps going when ``predict`` raises
            and lists the item under ``detail["errors"]``, leaving it out of
            the scores; ``"raise"`` stops at the first failure.
        resume: reuse stored item results of ``run_id``.
        progress: show a progress bar on stderr; None (default) shows it
            only when stderr is a terminal.

    Returns:
        A `Report` over the successfully predicted items. ``detail["per_item"]``
        maps each gold key to its ``prediction``, ``reference``, ``slice``,
        ``score`` (a `Score`, or None) and ``error`` (None, or the exception
        text); ``detail["errors"]`` maps failed keys to their exception text
        and ``detail["run_id"]`` names the stored run (None when not persisted).

    Raises:
        TypeError: ``predict`` is not callable, ``gold`` is not a mapping, a
            record is not a mapping, or a prediction cannot be scored
            against its reference (e.g. ``predict`` returns the wrong type).
        ValueError: a record lacks its input or reference, a bad ``errors``
            value, or a stored run of another metric under ``run_id``.

    >>> r = evaluate_store(lambda x: x.upper(), {"k": {"input": "ab", "reference": "AB"}})
    >>> r.metric, r.aggregate, r.detail["per_item"]["k"]["prediction"]
    ('cer', 0.0, 'AB')
    """
    if not callable(predict):
        raise TypeError(
            f"evaluate_store() predict is a {type_name(predict)}; pass the system under test as a "
            "callable input -> prediction."
        )
    if errors not in _ERROR_MODES:
        raise ValueError(
            f"evaluate_store() errors must be 'record' or 'raise', got {errors!r}; 'record' keeps "
            "going past a failing item, 'raise' stops at the first one."
        )
    fields = (input_key, reference_key, slice_key)
    persisting = bool(persist) or run_id is not None
    items = _gold_items(gold, *fields, fingerprints=persisting)
    store = None
    label = _metric_label(metric)
    if persisting:
        run_id = new_run_id() if run_id is None else run_id
        store = RunStore(run_id, rootdir)
        label = store.start(label, len(items), resume=resume,
                            settings=settings_key(normalize, grammar, weights))
        metric = label if metric is None else metric
    run = _Run(metric, label, {"grammar": grammar, "normalize": normalize, "weights": weights}, store)
    entries: dict = {}
    reused = 0
    bar = Progress(len(items), label="evaluate_store", enabled=progress)
    try:
        for key, record, fingerprint in items:
            entry = store.load(key, fingerprint) if store is not None and resume else None
            if entry is not None:
                reused += 1
            else:
                entry = run.predict(predict, key, record, fingerprint, fields, errors)
            entries[key] = entry
            bar.update(len(entries), run.n_errors, reused)
    finally:
        try:
            run.flush()
        finally:
            bar.close()

    scored = [(e["score"], e["slice"]) for e in entries.values() if e["error"] is None]
    report = _assemble(scored, run.label, run.metric)
    failures = {k: e["error"] for k, e in entries.items() if e["error"] is not None}
    per_item = {k: {f: e[f] for f in _ITEM_FIELDS} for k, e in entries.items()}
    report = dataclasses.replace(
        report, detail={**report.detail, "per_item": per_item, "errors": failures, "run_id": run_id}
    )
    if store is not None:
        store.finish({
            "metric": report.metric, "n_items": len(items), "n_scored": report.n,
            "n_errors": len(failures), "aggregate": report.aggregate,
            "per_slice": {str(k): v for k, v in report.per_slice.items()},
        })
    if failures:
        warnings.warn(
            f"evaluate_store: predict raised on {len(failures)} of {len(items)} items; they are left "
            "out of the scores and listed in report.detail['errors']. Pass errors='raise' to stop "
            "at the first failure instead.",
            stacklevel=2,
        )
    return report


def _gold_items(
    gold: Any, input_key: str, reference_key: str, slice_key: str, *, fingerprints: bool
) -> list[tuple]:
    """``(key, record, fingerprint)`` for every gold record, all checked before any prediction.

    The fingerprint (a hash of the input, reference and slice) lets a resumed
    run spot a changed record; it is only computed for persisted runs.
    """
    if not isinstance(gold, Mapping):
        raise TypeError(
            f"evaluate_store() gold is a {type_name(gold)}; it must be a mapping key -> record "
            "(a dict or json_store('gold')). Build one with dict(enumerate(records))."
        )
    for name, value in (("input_key", input_key), ("reference_key", reference_key), ("slice_key", slice_key)):
        if not isinstance(value, str):
            raise TypeError(f"evaluate_store() {name} must be a str field name, got {type_name(value)}.")
    keys = list(gold)
    if not isinstance(gold, dict):  # a store: sorted, so every run visits items in one order
        try:
            keys.sort()
        except TypeError:
            keys.sort(key=repr)
    items = []
    for key in keys:
        record = gold[key]
        if not isinstance(record, Mapping):
            raise TypeError(
                f"gold record {key!r} is a {type_name(record)}; each record must be a mapping with "
                f"{input_key!r} and {reference_key!r} fields (and optionally {slice_key!r})."
            )
        for name, option, role in ((reference_key, "reference_key", "reference answer to score against"),
                                   (input_key, "input_key", "input to predict from")):
            if name not in record:
                raise ValueError(
                    f"gold record {key!r} has no {name!r} field (it has {sorted(map(str, record))}); "
                    f"every record needs the {role}. Add it, or pass {option}= naming the field "
                    "it is stored under."
                )
        if record[reference_key] is None:
            raise ValueError(
                f"gold record {key!r} has {reference_key}=None, so there is no answer to score "
                "against; fill it in, or leave the record out of the gold set."
            )
        fingerprint = None
        if fingerprints:
            core = [record[input_key], record[reference_key], record.get(slice_key)]
            fingerprint = digest(json.dumps(core, sort_keys=True, default=repr))
        items.append((key, record, fingerprint))
    return items


class _Run:
    """Predicts items one by one and scores them in batches (one `evaluate` call per chunk)."""

    def __init__(self, metric: Any, label: Optional[str], options: dict, store: Optional[RunStore]) -> None:
        self.metric, self.label, self.options, self.store = metric, label, options, store
        self.pending: list[tuple[Any, dict]] = []
        self.n_errors = 0
        self.last_flush = time.monotonic()

    def predict(self, predict: Callable, key: Any, record: Mapping, fingerprint: Optional[str],
                fields: tuple, errors: str) -> dict:
        input_key, reference_key, slice_key = fields
        entry = {"prediction": None, "reference": record[reference_key], "slice": record.get(slice_key),
                 "score": None, "error": None, "fingerprint": fingerprint}
        try:
            entry["prediction"] = predict(record[input_key])
        except Exception as exc:
            if errors == "raise":
                raise
            entry["error"] = f"{type(exc).__name__}: {exc}"
            self.n_errors += 1
        self.pending.append((key, entry))
        due = self.store is not None and time.monotonic() - self.last_flush >= FLUSH_SECONDS
        if due or len(self.pending) >= CHUNK_ITEMS:
            self.flush()
        return entry

    def flush(self) -> None:
        """Score the pending predictions and, for a stored run, write them as one chunk."""
        batch, self.pending = self.pending, []
        self.last_flush = time.monotonic()
        todo = [(k, e) for k, e in batch if e["error"] is None]
        failure = None
        if todo:
            try:
                self._score(todo)
            except (TypeError, ValueError):
                failure = self._score_one_by_one(todo)
        if self.store is not None:
            for key, entry in batch:
                if entry["error"] is not None or entry["score"] is not None:
                    saved = entry_to_json(key, entry, self.label)
                    entry.update(entry_from_json(saved))  # the report holds what a resumed run reads back
                    self.store.add(key, saved)
            self.store.flush()
        if failure is not None:
            raise failure

    def _score(self, todo: list) -> None:
        report = evaluate([(e["prediction"], e["reference"]) for _, e in todo], metric=self.metric, **self.options)
        for (_, entry), score in zip(todo, report.scores):
            entry["score"] = score
        self._fix_metric(report.metric)

    def _score_one_by_one(self, todo: list) -> Optional[Exception]:
        """Score items singly to name the one that cannot be scored; return its error."""
        for key, entry in todo:
            prediction, reference = entry["prediction"], entry["reference"]
            try:
                report = evaluate([(prediction, reference)], metric=self.metric, **self.options)
            except (TypeError, ValueError) as exc:
                hint = ""
                if type(prediction) is not type(reference):
                    got = "None" if prediction is None else f"a {type_name(prediction)}"
                    hint = (f" predict returned {got} but the reference is a "
                            f"{type_name(reference)}; make predict return the same kind of value as "
                            "the references.")
                error = type(exc)(
                    f"evaluate_store could not score gold item {key!r} (prediction {prediction!r:.60}):"
                    f"{hint} The metric said: {exc}"
                )
                error.__cause__ = exc
                return error
            entry["score"] = report.scores[0]
            self._fix_metric(report.metric)
        return None

    def _fix_metric(self, name: str) -> None:
        # The first scored batch fixes a type-dispatched metric for the rest of the run.
        if self.metric is None:
            self.metric = name
        self.label = self.label or name


def _assemble(scored: list, label: Optional[str], metric: Any) -> Report:
    """The report over the scored items, aggregated by the metric, per slice when labelled."""
    if not scored:
        return Report(metric=label or "", aggregate=None, n=0)
    scores = tuple(s for s, _ in scored)
    slices = tuple(label_ for _, label_ in scored)
    flat = Report(metric=label, n=len(scores), scores=scores,
                  detail={"slices": slices} if any(x is not None for x in slices) else {})
    return merge_reports(flat, metric=metric)


def _metric_label(metric: Any) -> Optional[str]:
    if metric is None or isinstance(metric, str):
        return metric
    return getattr(metric, "name", None) or getattr(metric, "__name__", None) or type(metric).__name__


# ---------------------------------------------------------------------------
# baselines and the regression gate
# ---------------------------------------------------------------------------


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
    aggregate_current: Optional[float] = None
    aggregate_baseline: Optional[float] = None
    regressions: tuple = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "regressions", tuple(self.regressions))

    def __bool__(self) -> bool:
        return bool(self.passed)

    def __str__(self) -> str:
        way = "higher" if self.higher_is_better else "lower"
        head = (f"{self.metric} ({way} is better): {self.aggregate_current} vs baseline "
                f"{self.aggregate_baseline}, tolerance {self.tolerance:g}")
        if self.passed:
            return f"PASS {head}"
        lines = [f"FAIL {head}"]
        for r in self.regressions:
            where = "aggregate" if r["slice"] is None else f"slice {r['slice']!r}"
            now = "missing from the report" if r["current"] is None else f"{r['current']} ({r['delta']:+.4g})"
            lines.append(f"  {where}: baseline {r['baseline']}, now {now}")
        return "\n".join(lines)


def save_baseline(report: Report, name: str, *, rootdir: Any = None) -> dict:
    """Store a report's aggregate and per-slice figures as the baseline ``name``; return it.

    The record holds ``name``, ``metric``, ``higher_is_better`` (the
    metric's direction, or None), ``aggregate``, ``n``, ``per_slice`` and
    ``slice_n`` (slice labels as strings) and ``saved_at``. It is returned as
    `load_baseline` will give it back. Saving under an existing name replaces it.

    Raises:
        TypeError: ``report`` is not a `Report`.
        ValueError: the report is empty, or ``name`` cannot be a store key.

    >>> import tempfile
    >>> root = tempfile.mkdtemp()
    >>> report = evaluate_store(str.strip, {"x": {"input": " ab ", "reference": "ab"}}, metric="cer")
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
    slice_n = report.detail.get("slice_n") or {}
    record = {
        "name": name,
        "metric": report.metric,
        "higher_is_better": _declared_direction(report),
        "aggregate": report.aggregate,
        "n": report.n,
        "per_slice": {str(k): v for k, v in report.per_slice.items()},
        "slice_n": {str(k): v for k, v in slice_n.items()},
        "saved_at": now(),
    }
    record = json.loads(json.dumps(record))
    json_store("baselines", rootdir=rootdir)[name] = record
    return record


def load_baseline(name: str, *, rootdir: Any = None) -> Optional[dict]:
    """The baseline saved as ``name`` by `save_baseline`, or None if there is none."""
    return json_store("baselines", rootdir=rootdir).get(name)


def regression_gate(
    report: Report,
    baseline: Any,
    *,
    tolerance: float = 0.0,
    higher_is_better: Optional[bool] = None,
    rootdir: Any = None,
) -> GateResult:
    """Compare ``report`` with a baseline, on the aggregate and on every baseline slice.

    A figure regresses when it is worse than the baseline by more than
    ``tolerance``: lower when higher is better, higher when lower is better.
    The direction is, in order: ``higher_is_better`` if given, the one the
    report records (``detail["higher_is_better"]``, the metric's own), the
    one of the metric registered under the report's name (CER/WER and the
    graph and trajectory distances are lower-is-better; F1, ANLS and the
    similarities higher-is-better), then the one stored with the baseline.
    A slice in the baseline but absent
    from the report counts as a regression, so coverage cannot quietly
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
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or not (
        math.isfinite(tolerance) and tolerance >= 0
    ):
        raise ValueError(
            f"regression_gate() tolerance must be a finite number >= 0, got {tolerance!r}; it is "
            "the drift allowed before a change counts as a regression."
        )
    base = _resolve_baseline(baseline, rootdir)
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
    worse = (lambda cur, old: cur < old - tolerance) if direction else (lambda cur, old: cur > old + tolerance)
    regressions = []
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
            f"{who}() takes a Report, got {type_name(report)}; build one with ek.evaluate(...) or "
            "evaluate_store(...)."
        )


def _resolve_baseline(baseline: Any, rootdir: Any) -> Mapping:
    if isinstance(baseline, str):
        found = load_baseline(baseline, rootdir=rootdir)
        if found is None:
            raise ValueError(
                f"regression_gate() found no baseline named {baseline!r} in "
                f"{data_dir('baselines', rootdir=rootdir)}; save one first with "
                f"save_baseline(report, {baseline!r}), or pass the baseline dict itself."
            )
        baseline = found
    if not isinstance(baseline, Mapping):
        raise TypeError(
            f"regression_gate() baseline is a {type_name(baseline)}; pass a baseline name or the "
            "dict save_baseline() returned."
        )
    for needed in ("metric", "aggregate"):
        if needed not in baseline:
            raise ValueError(
                f"regression_gate() baseline has no {needed!r} entry (keys: {sorted(baseline)}); "
                "build it with save_baseline(report, name)."
            )
    return baseline


def _declared_direction(report: Report) -> Optional[bool]:
    """The direction the report records, else that of the metric registered under its name, or None."""
    flag = report.detail.get("higher_is_better") if isinstance(report.detail, Mapping) else None
    if flag is None and report.metric in names("metrics"):
        flag = getattr(get("metrics", report.metric), "higher_is_better", None)
    return flag if isinstance(flag, bool) else None


def _direction(report: Report, base: Mapping, override: Optional[bool]) -> bool:
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


def _regression(label: Any, old: float, now: Optional[float]) -> dict:
    return {"slice": label, "baseline": old, "current": now,
            "delta": None if now is None else now - old}


rehome(globals())  # the agreement statistics live in a private module
