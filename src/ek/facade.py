"""The top-level calls: `score`, `evaluate`, `merge_reports`, `compare`, `estimate_quality`.

This layer only resolves strategies, delegates and assembles results; the
numbers come from the metrics and the quality-estimation pipeline.

* `score` compares one prediction with one gold answer. Without ``metric=``
  the rules of the ``"dispatch"`` namespace pick by type (agent episodes,
  tables, typed graphs, then str -> CER, dict -> field F1, anything with a
  ``.text`` -> CER on that text; the order is set out in `ek.metrics`).
* `evaluate` scores a corpus of ``(pred, gold)`` or ``(pred, gold, slice)``
  cases and aggregates with the metric's own ``aggregate``; a plain
  function with no ``aggregate`` gets the mean of its values, with a
  warning (declare its aggregation with `ek.metric`).
* `merge_reports` joins reports over disjoint parts of a corpus into exactly
  the report of the whole (its `Report.interval` included).
* `compare` tells whether run B differs from run A on the same items, with a
  paired bootstrap interval and p-value.
* `estimate_quality` judges an extraction with no gold answer.
* `estimate_corpus` estimates a corpus figure from a proxy of every item
  and a gold audit of a few (prediction-powered inference), with
  `compare_estimates` for two engines and `plan_audit` to choose the audit
  (defined in `ek._corpus_estimates`, re-exported here); `agreement_proxy` and
  `confidence_proxy` build proxies from `evaluate`.

>>> score("hello wrld", "hello world").metric
'cer'
>>> r = evaluate([("ct", "cat"), ("dg", "dog")], metric="cer")
>>> r.n, round(r.aggregate, 3)
(2, 0.333)
"""

from __future__ import annotations

import typing
import warnings
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from functools import reduce
from itertools import chain
from operator import add, itemgetter
from typing import Any

import ek.metrics  # noqa: F401 - registers the core metrics before any lookup
from ek._corpus_estimates import (
    AuditPlan,
    CorpusEstimate,
    compare_estimates,
    estimate_corpus,
    plan_audit,
)
from ek._quality_args import Calibration, Policy, Signals, Sources, Validators  # what estimate_quality takes
from ek._util import as_columns, as_rule, rehome, type_name
from ek.base import (
    Calibrator,
    Comparison,
    CostWeight,
    GraphGrammar,
    Metric,
    MetricContract,
    QualityReport,
    Report,
    Score,
)
from ek.canonicalize import Steps, resolve_canonicalizer
from ek.metrics import as_metric
from ek.registry import _live, get, names

__all__ = [
    "AuditPlan",
    "CorpusEstimate",
    "agreement_proxy",
    "compare",
    "compare_estimates",
    "confidence_proxy",
    "estimate_corpus",
    "estimate_quality",
    "evaluate",
    "merge_reports",
    "plan_audit",
    "score",
]

_CASE_TYPES = {tuple, list}
_PRED, _GOLD, _SLICE = itemgetter(0), itemgetter(1), itemgetter(2)

if typing.TYPE_CHECKING:
    # a "dispatch" rule as _rules() reads it: (metric name, predicate, pairs, prepare)
    _Rule = tuple[str, Callable[[Any], Any], str, Callable[[Any], Any] | None]


def score(
    pred: object,
    gold: object,
    *,
    grammar: GraphGrammar | None = None,
    metric: str | Metric | None = None,
    normalize: Steps | None = None,
    weights: CostWeight | None = None,
) -> Score:
    """Score one prediction against its gold reference.

    Args:
        pred: the prediction (a string, a dict record, anything with
            ``.text``, or a type a registered metric handles).
        gold: the reference, of the same kind as ``pred``.
        grammar: a `GraphGrammar` whose importance weights cost-aware metrics read.
        metric: a registered name (``"cer"``, ``"wer"``, ``"fields"``, ...), a
            metric callable, or None to choose by type.
        normalize: canonicalizer (a step name, callable, list of steps or
            `ek.canonicalize.Canonicalizer`) applied before comparing, by
            a metric that declares ``normalize`` in its ``options``.
        weights: a `CostWeight` overriding the grammar's weights, for
            metrics that declare ``weights`` (the typed-graph distance).

    Raises:
        TypeError: None or mismatched inputs, or an option the metric does
            not declare.
        KeyError: an unknown metric name (the message lists the known ones).
    """
    _name, m, prepare = _resolve(metric, pred, gold, normalize, weights)
    if prepare is not None:
        pred, gold = _prepared(prepare, pred, "pred"), _prepared(prepare, gold, "gold")
    return m(pred, gold, grammar=grammar)


def evaluate(
    cases: Iterable[Sequence[object]],
    *,
    metric: str | Metric | None = None,
    grammar: GraphGrammar | None = None,
    normalize: Steps | None = None,
    weights: CostWeight | None = None,
    ids: Iterable[Hashable] | None = None,
) -> Report:
    """Score a corpus and aggregate it into a `Report`.

    Args:
        cases: ``(pred, gold)`` or ``(pred, gold, slice)`` tuples.
        metric, grammar, normalize, weights: as in `score`; a type-chosen
            metric is picked once, from the first case.
        ids: one id per case (str or int; unique), kept in
            ``detail["ids"]``. They decide how `Report.interval` resamples
            each item, so two runs over the same ids pair up in `compare`.
            None numbers the cases by position (0, 1, ...).

    Returns:
        A `Report` whose ``aggregate`` (and each ``per_slice`` value) comes
        from the metric's ``aggregate``: summed edits over summed reference
        length for CER/WER, micro-F1 for fields. ``detail`` records the
        metric's ``higher_is_better`` and the ``aggregation`` rule (see
        `ek.metrics`). An empty corpus gives ``n == 0`` and ``aggregate is
        None``.

    Raises:
        ValueError: the metric returned NaN for an item, which no aggregate
            can use; the message names the item (its index, and its id when
            ``ids`` are given). To skip such items, leave them out of
            ``cases``: nothing is dropped unless you drop it.

    Warns:
        UserWarning: the metric has no ``aggregate``, so the figure is the
            mean of the per-item values (``detail["aggregation"] ==
            "mean"``), which is not the corpus figure of a ratio such as an
            error rate. Declare the aggregation with `ek.metric`.
    """
    preds, golds, slices = _split_cases(cases)
    if ids is not None:
        from ek._bootstrap import (
            check_ids,  # the bootstrap loads with the first report that needs it
        )

        ids = check_ids(ids, len(preds), who="evaluate()")
    if not preds:
        label = metric if isinstance(metric, str) else as_metric(metric).name if callable(metric) else ""
        return Report(metric=label, aggregate=None, n=0)
    name, m, prepare = _resolve(metric, preds[0], golds[0], normalize, weights)
    if prepare is not None:
        preds = [_prepared(prepare, p, f"item {i} pred") for i, p in enumerate(preds)]
        golds = [_prepared(prepare, g, f"item {i} gold") for i, g in enumerate(golds)]
    scores = m.score_many(preds, golds, grammar=grammar)
    _warn_if_mean(m, name, "evaluate")
    report = _report(m, name, scores, slices, ids)
    _refuse_nan(report, preds)
    return report


def merge_reports(*reports: Report, metric: str | Metric | None = None) -> Report:
    """Join reports over disjoint parts of a corpus into the report of the whole.

    The scores are concatenated in the order given and re-aggregated with the
    metric's ``aggregate``, so ``merge_reports(evaluate(a), evaluate(b))``
    equals ``evaluate(a + b)``, its `Report.interval` included. Items keep
    their ids; reports numbered by position are renumbered as
    ``evaluate(a + b)`` numbers them. Reports whose items were dropped
    (which keep their replicate sums instead) merge by adding their
    sums. The metric is looked up by the reports' name; pass ``metric=``
    for one that is not registered.

    Raises:
        ValueError: no reports, reports of different metrics, an id held
            by two reports (or twice by one), or reports with ids mixed with reports
            numbered by position.
    """
    if not reports:
        raise ValueError("merge_reports() needs at least one Report.")
    for i, r in enumerate(reports):
        if not isinstance(r, Report):
            raise TypeError(f"merge_reports() argument {i} is {type_name(r)}, not a Report.")
    labels = {r.metric for r in reports if r.n}
    if len(labels) > 1:
        raise ValueError(
            f"merge_reports() got reports of different metrics {sorted(labels)}; "
            "only reports of one metric can be merged."
        )
    full = [r for r in reports if r.n]
    if not full:
        return reports[0]
    name = labels.pop()
    m = as_metric(
        get("metrics", name if metric is None else metric) if metric is None or isinstance(metric, str) else metric
    )
    from ek import _bootstrap

    ids = _bootstrap.merged_ids(full)
    _warn_if_mean(m, name, "merge_reports")
    if any(_bootstrap.is_summary(r) for r in full):
        detail = {"higher_is_better": m.higher_is_better, "aggregation": m.aggregation}
        merged: Report = _bootstrap.merge_summaries(full, m, name, ids, detail)
        return merged
    slices: list[Any] = []
    for r in full:
        slices.extend(r.detail.get("slices") or (None,) * r.n)
    has_slices = any(r.detail.get("slices") for r in full)
    return _report(m, name, _concatenated([r.scores for r in full]), slices if has_slices else None, ids)


def compare(report_a: Report, report_b: Report, level: float = 0.95) -> Comparison:
    """Is run B better or worse than run A? The paired difference B - A on the same items.

    Both reports are resampled with the same weights per item id (see
    `Report.interval`): a paired bootstrap, in which the noise both runs
    share cancels. ``report_a`` and ``report_b`` must be of one metric over
    the same items (unique ids, or as many items numbered by position); ``level``
    is the confidence level. Returns a `Comparison`: ``a``, ``b``, ``delta``
    (B - A), its paired ``interval``, ``p_value`` and ``verdict``, overall
    and per slice.

    A handful of documents cannot show a difference, and the bootstrap
    would pretend they do. So, for the whole corpus and for each slice:

    * Below 40 items there is no interval (``(nan, nan)``) and the p-value
      comes from a paired sign-flip permutation test: A's and B's
      statistics are swapped within items, every way for up to 12 items
      (999 ways drawn by a hash of the ids beyond), and the corpus figures
      recomputed from the summed statistics. Its smallest p-value is
      ``2 / 2**n``, so up to 5 items (at ``level=0.95``) the verdict is
      ``"too few items (n=K) to tell"`` whatever the runs did.
    * From 40 items on, the bootstrap gives the interval and the p-value
      (for a ratio of sums such as CER or micro-F1, each replicate's
      difference divided by its linearised standard error: a symmetric
      bootstrap-t, which covers at small n where the plain percentile
      interval of the differences falls short; else that percentile
      interval), and a difference it finds is called only when the permutation test
      finds it too (else the verdict is ``"no detectable difference"``
      with that test's p-value): a difference made by a few documents
      among many is a few documents' worth of evidence.

    Reports whose items were dropped (`merge_reports` of summaries, Dask)
    have only the bootstrap, and its percentile interval (the products of A's
    statistics with B's went with the items): below 40 items their p-value is
    NaN and their verdict ``"too few items"``.

    Raises:
        ValueError: reports of different metrics or over different items
            (the message names them), or an empty report.

    >>> gold = ["the cat sat", "a dog ran", "birds sing"] * 30
    >>> a = evaluate([(g.replace("a", "o"), g) for g in gold], metric="cer")
    >>> b = evaluate([(g.replace("t", "d"), g) for g in gold], metric="cer")
    >>> c = compare(a, b)
    >>> round(c.delta, 3), c.verdict
    (-0.033, 'better')
    >>> few = compare(evaluate([("ct", "cat"), ("dg", "dog")], metric="cer"),
    ...               evaluate([("cat", "cat"), ("dog", "dog")], metric="cer"))
    >>> few.interval, few.p_value, few.verdict
    ((nan, nan), 0.5, 'too few items (n=2) to tell')
    """
    for i, r in enumerate((report_a, report_b)):
        if not isinstance(r, Report):
            raise TypeError(f"compare() argument {i} is {type_name(r)}, not a Report; pass two ek.evaluate reports.")
    from ek._bootstrap import compare as paired

    return Comparison(**paired(report_a, report_b, level))


def estimate_quality(
    extraction: object,
    *,
    sources: Sources = (),
    signals: Signals = (),
    calibrator: Calibration | None = None,
    validators: Validators = (),
    policy: Policy | None = None,
    agreement: bool = True,
    assume_calibrated: bool = False,
) -> QualityReport:
    """Estimate how trustworthy an extraction is, with no gold answer.

    Runs signals -> calibration -> validators -> decision over a raw value, a
    `FieldEstimate` or a whole `AnnotatedExtraction` (see `ek.qe` for each
    stage). ``validators`` run through `ek.validate.validation_pipeline`, so
    gated correctors and nested pipelines behave as in a direct validation.
    On an extraction, ``sources`` is either a mapping from `NodePath` (or
    field name) to that field's other hypotheses, or a flat list of
    whole-document readings whose ROVER agreement goes to every field.
    A ``policy`` never sees an uncalibrated score: without a ``calibrator``
    (and ``assume_calibrated=False``) it raises ValueError. The report's
    ``provenance`` dict says how the estimate was reached (score source,
    per-family values, decision reason); each field's `FieldEstimate`
    ``provenance`` (where the value came from) passes through untouched.

    >>> round(estimate_quality("the cat sat", sources=["the cat sit", "the bat sat"]).raw_signals["agreement"], 3)
    0.778
    """
    from ek._estimate import estimate  # the qe and validate stages load only when used

    return estimate(
        extraction,
        sources=sources,
        signals=signals,
        calibrator=calibrator,
        validators=validators,
        policy=policy,
        agreement=agreement,
        assume_calibrated=assume_calibrated,
    )


def agreement_proxy(
    preds: Iterable[object],
    references: Iterable[object],
    *,
    metric: str | Metric | None = None,
    ids: Iterable[Hashable] | None = None,
    slices: Iterable[Hashable] | None = None,
    normalize: Steps | None = None,
) -> Report:
    """A proxy `Report` for `estimate_corpus`: each prediction scored against another engine's output.

    Each item's reference is one other output, or several, fused into their
    ROVER consensus (`ek.qe.rover`, strings). The rest is `evaluate`.

    >>> proxy = agreement_proxy(["the cat sat"], [["the cat sit", "the cat sat", "the bat sat"]], metric="cer")
    >>> proxy.aggregate
    0.0
    """
    from ek._corpus_estimates import consensus

    stand_ins = consensus(list(references), who="agreement_proxy()")
    preds, labels = list(preds), None if slices is None else list(slices)
    if len(stand_ins) != len(preds) or (labels is not None and len(labels) != len(preds)):
        raise ValueError(
            f"agreement_proxy() got {len(preds)} predictions and {len(stand_ins)} references"
            + ("" if labels is None else f", and {len(labels)} slices")
            + "; give one of each per item, in the same order."
        )
    cases = list(zip(preds, stand_ins) if labels is None else zip(preds, stand_ins, labels))
    return evaluate(cases, metric=metric, normalize=normalize, ids=ids)


def confidence_proxy(
    confidences: Iterable[float | Sequence[float] | Mapping[str, float]],
    *,
    metric: str = "cer",
    calibrator: Calibrator | None = None,
    ids: Iterable[Hashable] | None = None,
    slices: Iterable[Hashable] | None = None,
    normalize: Steps | None = None,
) -> Report:
    """A proxy `Report` for `estimate_corpus`: each item's expected statistics from calibrated confidences.

    Per item: one confidence per character or word (CER, WER), per field
    (field F1, a list or a field mapping) or one (means); ``calibrator`` (a
    fitted `ek.qe` calibrator) maps raw scores to probabilities of being
    correct. Expected edits are ``Σ (1 - p)`` over the prediction's units,
    expected TP/FP/FN ``Σ p`` and ``Σ (1 - p)``; ``detail["uncertainty"]``
    feeds ``plan_audit(strategy="active")``. Use the audit's ``metric`` and
    ``normalize``.

    >>> proxy = confidence_proxy([[1.0, 0.5, 1.0], [0.75, 1.0]], metric="cer")
    >>> proxy.aggregate, proxy.scores[0].detail["edits"]
    (0.15, 0.5)
    """
    from ek._corpus_estimates import expected_statistics

    name, m, _ = _resolve(metric, None, None, normalize, None)
    rows = expected_statistics(list(confidences), m.statistics, calibrator=calibrator, who="confidence_proxy()")
    labels = None if slices is None else list(slices)
    if labels is not None and len(labels) != len(rows):
        raise ValueError(f"confidence_proxy() got {len(rows)} items and {len(labels)} slices; give one per item.")
    if ids is not None:
        from ek._bootstrap import check_ids

        ids = check_ids(ids, len(rows), who="confidence_proxy()")
    scores = tuple(Score(float(m.compute(row)), metric=name, detail=row) for row in rows)
    return _report(m, name, scores, labels, None if ids is None else tuple(ids))


# ---------------------------------------------------------------------------


def _split_cases(cases: Iterable[Sequence[object]]) -> tuple[list[Any], list[Any], list[Any] | None]:
    if isinstance(cases, (str, bytes, Mapping)) or not isinstance(cases, Iterable):
        raise TypeError(
            f"evaluate() takes an iterable of (pred, gold) or (pred, gold, slice) tuples, "
            f"got {type_name(cases)}. Build cases with zip(preds, golds)."
        )
    cases = cases if isinstance(cases, list) else list(cases)
    if set(map(type, cases)) <= _CASE_TYPES:
        # C-speed split. Every case has the last index taken (an IndexError
        # otherwise) and the lengths sum to n times that: all have that length.
        total = sum(map(len, cases))
        try:
            if total == 2 * len(cases):
                return list(map(_PRED, cases)), list(map(_GOLD, cases)), None
            if total == 3 * len(cases):
                return list(map(_PRED, cases)), list(map(_GOLD, cases)), list(map(_SLICE, cases))
        except IndexError:
            pass  # a shorter case: the loop below names it
    preds: list[Any] = []
    golds: list[Any] = []
    slices: list[Any] = []
    sliced = False
    for i, case in enumerate(cases):
        n = len(case) if isinstance(case, (tuple, list)) else -1
        if n == 2:
            preds.append(case[0])
            golds.append(case[1])
            slices.append(None)
        elif n == 3:
            preds.append(case[0])
            golds.append(case[1])
            slices.append(case[2])
            sliced = True
        else:
            shape = f"has {n} elements" if n >= 0 else f"is a {type_name(case)}"
            raise ValueError(
                f"evaluate() item {i} {shape}; each case must be (pred, gold) or "
                "(pred, gold, slice). Build cases with zip(preds, golds)."
            )
    return preds, golds, (slices if sliced else None)


def _report(
    m: MetricContract,
    name: str,
    scores: Sequence[Score],
    slices: Sequence[Any] | None,
    ids: tuple[Any, ...] | None = None,
) -> Report:
    from ek._bootstrap import Resampler

    aggregate = m.aggregate(scores)
    per_slice: dict[Any, float] = {}
    detail: dict[str, Any] = {"higher_is_better": m.higher_is_better, "aggregation": m.aggregation}
    if ids is not None:
        detail["ids"] = ids
    if slices is not None:
        groups: dict[Any, list[int]] = {}
        for i, label in enumerate(slices):
            if label is not None:
                try:
                    groups.setdefault(label, []).append(i)
                except TypeError:
                    raise TypeError(
                        f"evaluate() item {i} has slice label {label!r:.60} of type {type_name(label)}, which "
                        "cannot key a slice; use a hashable label such as a str or a tuple."
                    ) from None
        columns = as_columns(scores)
        for label, idx in groups.items():
            part = columns.take(idx) if columns is not None else [scores[i] for i in idx]
            per_slice[label] = m.aggregate(part)
        detail.update(slices=tuple(slices), slice_n={k: len(v) for k, v in groups.items()})
    return Report(
        metric=name,
        aggregate=aggregate,
        n=len(scores),
        scores=scores,
        per_slice=per_slice,
        detail=detail,
        _resampler=Resampler(m),
    )


def _refuse_nan(report: Report, preds: Sequence[Any]) -> None:
    """Raise naming the first item whose value is NaN.

    Column-backed scores (`score_many`) make each value from the statistics
    the aggregate sums, so they are searched only when the aggregate is NaN.
    """
    scores = report.scores
    if hasattr(scores, "column") and report.aggregate == report.aggregate:
        return
    at = next((i for i, s in enumerate(scores) if s.value != s.value), None)
    if at is None:
        return
    ids = report.detail.get("ids")
    item = f"item {at}" if ids is None else f"item {at} (id {ids[at]!r})"
    raise ValueError(
        f"evaluate(): metric {report.metric!r} returned NaN for {item}, prediction {preds[at]!r:.60}; no "
        "aggregate can use a NaN. Make the metric return a number for every item, or, to skip the item, "
        "leave it out of cases."
    )


def _concatenated(parts: list[Sequence[Score]]) -> Sequence[Score]:
    """The scores of several reports in order; column-backed scores stay column-backed."""
    kind = type(parts[0])
    if kind is not list and all(type(p) is kind for p in parts):
        try:
            return reduce(add, parts)
        except TypeError:
            pass
    return tuple(chain.from_iterable(parts))


def _warn_if_mean(m: MetricContract, name: str, who: str) -> None:
    if not m.declared:
        warnings.warn(
            f"{who}() aggregates metric {name!r} by the mean of its per-item values because it has no "
            "aggregate(); for a ratio such as an error rate that is not the corpus figure. Declare how it "
            f"aggregates with ek.metric(fn, aggregate='mean' | 'sum_ratio' | callable, ...).",
            UserWarning,
            stacklevel=3,
        )


def _resolve(
    metric: str | Metric | None, pred: Any, gold: Any, normalize: Steps | None, weights: CostWeight | None
) -> tuple[str, MetricContract, Callable[[Any], Any] | None]:
    """(name, the metric as the contract, per-side conversion or None) for one call.

    This is where a metric is wrapped into `ek.base.MetricContract`, once
    (`ek.metrics.as_metric`); everything after reads its attributes.
    """
    prepare = None
    if metric is None:
        name, prepare = _dispatch(pred, gold)
        m = as_metric(get("metrics", name))
    elif isinstance(metric, str):
        name, m = metric, as_metric(get("metrics", metric))
        prepare = _named_prepare(pred, gold)
    elif callable(metric):
        m = as_metric(metric)
        name = m.name
    else:
        raise TypeError(
            f"metric must be a registered name, a metric callable or None, got {type_name(metric)}. "
            f"Registered metrics: {', '.join(names('metrics'))}."
        )
    if normalize is not None or weights is not None:
        options = {"normalize": resolve_canonicalizer(normalize), "weights": weights}
        options = {k: v for k, v in options.items() if v is not None}
        if options:
            m = _configure(m, name, options)
    return name, m, prepare


def _configure(m: MetricContract, name: str, options: dict[str, Any]) -> MetricContract:
    """The metric with the facade options applied, through the options it declares."""
    for option in options:
        if option not in m.options:
            raise TypeError(
                f"metric {name!r} does not take {option}=; drop it, or use a metric that declares "
                f"{option!r} in its options (see the metric contract in ek.metrics)."
            )
    return m.with_options(**options)


_RULES: list[Any] = [None, [], []]  # registry entries last seen; their rules in order; those that convert


def _rules() -> list[_Rule]:
    """The ``"dispatch"`` rules, tried in this order (priority, then name).

    Each is ``(metric name, predicate, pairs, prepare)``, read off the
    registered rule once per registry change.
    """
    live = _live("dispatch")
    if tuple(live.items()) != _RULES[0]:
        entries = [(n, as_rule(get("dispatch", n))) for n in names("dispatch")]  # get() loads entry points
        entries.sort(key=lambda entry: (entry[1].priority, entry[0]))
        ordered = [(rule.metric or name, rule.accepts, rule.pairs, rule.prepare) for name, rule in entries]
        _RULES[:] = [tuple(live.items()), ordered, [r for r in ordered if r[3] is not None]]
    rules: list[_Rule] = _RULES[1]
    return rules


def _dispatch(pred: Any, gold: Any) -> tuple[str, Callable[[Any], Any] | None]:
    for side, value in (("pred", pred), ("gold", gold)):
        if value is None:
            raise TypeError(
                f"score() got None as {side}; pass the prediction and the gold answer "
                "(use '' or {} for an empty one)."
            )
    # The first rule that claims the pair wins. A rule that claims by either
    # side lets its metric check (or coerce) the other: task success compares
    # an Episode with a plain gold answer.
    for metric, accepts, pairs, prepare in _rules():
        on_pred, on_gold = bool(accepts(pred)), bool(accepts(gold))
        if not (on_pred and on_gold if pairs == "both" else on_pred or on_gold):
            continue
        if pairs == "same" and not (on_pred and on_gold):
            _mismatch(pred, gold)
        return metric, prepare
    raise TypeError(
        f"score() has no default metric for {type_name(pred)}; pass metric= with one of "
        f"{', '.join(names('metrics'))}, or a callable (pred, gold, *, grammar=None) -> Score."
    )


def _named_prepare(pred: Any, gold: Any) -> Callable[[Any], Any] | None:
    """A named metric still reads ``.text`` when a converting rule claims both sides (OCR results)."""
    _rules()
    converting: list[_Rule] = _RULES[2]
    for _, accepts, _, prepare in converting:
        if accepts(pred) and accepts(gold):
            return prepare
    return None


def _mismatch(pred: Any, gold: Any) -> None:
    raise TypeError(
        f"pred is {type_name(pred)} but gold is {type_name(gold)}; score() compares a "
        "prediction with a gold answer of the same kind."
    )


def _prepared(prepare: Callable[[Any], Any], obj: Any, what: str) -> Any:
    try:
        return prepare(obj)
    except TypeError as exc:
        raise TypeError(f"{what}: {exc}.") from None


rehome(globals())  # corpus estimation (its calls and values) is defined in ek._corpus_estimates
