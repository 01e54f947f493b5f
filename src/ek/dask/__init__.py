"""Score corpora bigger than one machine on Dask, and get the report a serial `ek.evaluate` gives.

* `evaluate` scores a Dask Bag of ``(pred, gold[, slice])`` tuples or of
  records, or a Dask DataFrame. Each partition is scored where it lives, by
  `ek.evaluate` itself; what leaves it is a summary whose size does not
  grow with the number of items: the exact sum of each of the metric's
  statistics, overall and per slice, and the partition's share of the
  bootstrap replicate sums behind `ek.Report.interval`. Summaries are
  merged as a tree on the workers, and the client computes the figures
  from the final sums, so ``aggregate``, ``per_slice``, ``n`` and
  ``interval()`` equal the serial ones (integer statistics are summed as
  Python ints; float ones exactly, then rounded once, so the figure does
  not depend on the partitioning). An item is resampled by its id: the
  ``id=`` field, else its position in the collection, as in a serial
  ``ek.evaluate(cases, ids=...)`` over the same cases in the same order.
* `client` connects to a Dask scheduler, or starts a local cluster, and
  closes what it started; it never waits on a scheduler that does not answer.

Dask is the engine: scheduling, data locality, retries of the partitions a
lost worker held (its summaries are recomputed, so the report equals a
clean run's) and reading inputs anywhere fsspec reaches
(``dask.bag.read_text`` for JSON lines, ``dask.dataframe.read_csv`` /
``read_parquet``). ek adds the reduction. The work runs on the scheduler the
collection would use: an active ``distributed.Client``, the one set with
``dask.config.set(scheduler=...)``, or the collection's default. The run
engine's ``executor=`` (`ek.harness.evaluate_store`, `ek.ocr.evaluate_ocr`,
`ek.agents.run_suite`) takes a Dask client's ``get_executor()``.

Needs the ``dask`` extra (``pip install "ek[dask]"``), imported only when
called.

>>> import dask, dask.bag as db, ek.dask
>>> bag = db.from_sequence([("ct", "cat"), ("dog", "dog"), ("brd", "bird")], npartitions=2)
>>> with dask.config.set(scheduler="synchronous"):
...     report = ek.dask.evaluate(bag, metric="cer")
>>> report.n, report.aggregate
(3, 0.2)
>>> report.interval(0.95) == ek.evaluate(bag.compute(), metric="cer").interval(0.95)
True
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import pickle
from collections.abc import Iterator
from typing import Any

from ek._stats import check_level
from ek._util import import_optional, type_name
from ek.base import CostWeight, GraphGrammar, Metric, Report
from ek.canonicalize import Steps
from ek.dask._rows import Fields, check_columns
from ek.dask._summary import (
    Spec,
    Summary,
    check_mergeable,
    items_of,
    length,
    merge,
    metric_object,
    offsets,
    score_partition,
    summarize,
)
from ek.metrics import as_metric

__all__ = ["client", "evaluate"]

_WHO = "ek.dask.evaluate()"
_FAN_IN = 8  # summaries merged by one task of the tree
_QUIET_HTTP = {"dashboard_address": "127.0.0.1:0"}  # the scheduler's metrics server: any free loopback port


def evaluate(
    collection: object,
    *,
    metric: str | Metric | None = None,
    pred: str = "pred",
    gold: str = "gold",
    slice: str | None = None,
    id: str | None = None,
    normalize: Steps | None = None,
    grammar: GraphGrammar | None = None,
    weights: CostWeight | None = None,
    level: float | None = 0.95,
    keep_items: bool = False,
) -> Report:
    """Score a Dask collection and aggregate it into the `Report` `ek.evaluate` gives for the same cases.

    Args:
        collection: a ``dask.bag.Bag`` of ``(pred, gold)`` / ``(pred, gold,
            slice)`` tuples or of records (dicts), or a
            ``dask.dataframe.DataFrame``.
        metric, normalize, grammar, weights: as in `ek.evaluate`. The metric
            must sum statistics (every ek metric does; wrap a function with
            `ek.metric`), and it and the options must pickle.
        pred, gold, slice, id: the record fields (DataFrame columns) that hold
            the prediction, the gold answer, the slice label and the item id
            (str or int, unique over the collection: each partition checks
            its own). Without ``id``, items are numbered by position.
        level: the confidence level of the interval kept in
            ``detail["interval"]``; None skips the bootstrap (faster, but
            the report then has no interval).
        keep_items: also bring every item's score back to the client (in
            ``scores``, with ``detail["slices"]`` and, given ``id``,
            ``detail["ids"]``); by default no per-item
            data leaves the workers. To keep per-item scores at scale,
            write them from the workers with the collection's own writers
            (``bag.map(...).to_textfiles(...)``) instead.

    Returns:
        A `Report` with the serial ``aggregate``, ``per_slice``, ``n``,
        ``detail["slice_n"]`` and ``interval(level, slice=...)`` (from the
        replicate sums the report keeps, at any level; the one
        at ``level`` is in ``detail["interval"]``), which also pair up in
        `ek.compare` with another report over the same ids;
        ``detail["partitions"]`` counts the partitions and
        ``detail["summary_bytes"]`` is the size of the merged summary the
        client received.

    Raises:
        MissingExtraError: dask is not installed.
        TypeError: not a Bag or DataFrame, a metric or option that cannot be
            pickled, a bad metric.
        ValueError: an unknown field or column (the message lists those that
            exist), a row that is not a case, a metric without mergeable
            statistics, partitions that picked different metrics by type.
    """
    dask = import_optional("dask", extra="dask", feature=_WHO)
    fields = _fields(pred, gold, slice, id)
    if keep_items not in (True, False):
        raise TypeError(f"{_WHO} keep_items must be True or False, got {keep_items!r}.")
    level = check_level(level, _WHO, allow_none=True)
    bag_or_frame: Any = collection  # _kind refuses all but a dask Bag or DataFrame, read untyped
    if _kind(bag_or_frame) == "dataframe":
        check_columns(bag_or_frame.columns, fields)
    if metric is not None:
        check_mergeable(
            metric_object(metric, metric) if isinstance(metric, str) else metric,
            metric if isinstance(metric, str) else _label(metric),
        )  # the name, before as_metric checks it
    _check_pickles({"metric": metric, "normalize": normalize, "grammar": grammar, "weights": weights})
    spec = dask.delayed(Spec(metric, grammar, normalize, weights, fields, level is not None), traverse=False)
    parts = bag_or_frame.to_delayed()
    scored = [dask.delayed(score_partition)(part, spec, i) for i, part in enumerate(parts)]
    starts = None
    if level is not None and id is None:  # the bootstrap weighs an item by its global position
        starts = dask.delayed(offsets)([dask.delayed(length)(s) for s in scored])
    root = _tree(dask, [dask.delayed(summarize)(s, spec, starts) for s in scored])
    kept = [dask.delayed(items_of)(s) for s in scored] if keep_items else []
    scheduler = dask.base.get_scheduler(collections=[collection])
    summary, items = dask.compute(root, kept, scheduler=scheduler)
    return _report(summary, metric, items if keep_items else None, len(parts), level)


@contextlib.contextmanager
def client(scheduler: str | None = None, *, workers: int | None = None, timeout: float = 10.0) -> Iterator[Any]:
    """A ``distributed.Client``: on the scheduler at ``scheduler``, or on a new local cluster.

    Without ``scheduler`` it starts a ``LocalCluster`` of ``workers`` worker
    processes (default: one per core) on the loopback interface, with no
    dashboard, and closes it on leaving. The client becomes the default
    scheduler inside the block, so `evaluate` runs on it. Its workers do not
    run Dask's statistical profiler, whose stack sampling every 10 ms slows
    pure-Python scoring by about 5%; start your own ``distributed.Client``
    to keep it.

    Raises:
        ConnectionError: no scheduler answered at ``scheduler`` within
            ``timeout`` seconds (never waits longer).
        ValueError: both ``scheduler`` and ``workers``, or a bad count.
    """
    distributed = import_optional("distributed", extra="dask", feature="ek.dask.client()")
    if scheduler is not None and workers is not None:
        raise ValueError("ek.dask.client() takes scheduler= (an existing cluster) or workers= (a local one), not both.")
    if scheduler is None:
        n = (os.cpu_count() or 1) if workers is None else workers
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"ek.dask.client() workers must be a whole number >= 1, got {workers!r}.")
        import dask

        # Each nanny keeps the config it was made with, for every (re)start of its worker.
        with dask.config.set({"distributed.worker.profile.enabled": False}):
            cluster = distributed.LocalCluster(
                n_workers=n,
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                dashboard_address=None,
                scheduler_kwargs=_QUIET_HTTP,
            )
        with cluster, distributed.Client(cluster) as c:
            yield c
        return
    try:
        _probe(distributed, scheduler, timeout)
        c = distributed.Client(scheduler, timeout=timeout)
    except Exception as exc:  # OSError on a timeout, ValueError on a malformed address, ...
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ConnectionError(
            f"no Dask scheduler answered at {scheduler!r} within {timeout:g} s ({reason}); check the address "
            "(e.g. tcp://10.0.0.5:8786) and that the scheduler is running, or start a local cluster instead "
            "(workers=N; ek evaluate --workers N)."
        ) from None
    with c:
        yield c


# ---------------------------------------------------------------------------


def _probe(distributed: Any, address: str, timeout: float) -> None:
    """Ask the scheduler at ``address`` who it is; TimeoutError when no answer comes within ``timeout`` s.

    ``distributed.Client`` bounds the connection but not the first
    exchange, so a server that accepts and stays silent would hold it
    forever. The question runs on its own event loop in a helper thread (the
    caller may be running a loop of its own).
    """
    import asyncio
    import concurrent.futures

    async def ask() -> None:
        server = distributed.core.rpc(address, timeout=timeout)
        try:
            await server.identity()
        finally:
            await server.close_rpc()

    async def bounded() -> None:
        try:
            await asyncio.wait_for(ask(), timeout)
        except asyncio.TimeoutError:
            raise TimeoutError(f"no answer within {timeout:g} s") from None

    with concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="ek-dask-probe") as pool:
        pool.submit(asyncio.run, bounded()).result()


def _fields(pred: Any, gold: Any, slice: Any, id: Any) -> Fields:
    for arg, value, optional in (
        ("pred", pred, False),
        ("gold", gold, False),
        ("slice", slice, True),
        ("id", id, True),
    ):
        if not (isinstance(value, str) or (optional and value is None)):
            raise TypeError(
                f"{_WHO} {arg}= names a record field or DataFrame column, so it must be a str"
                f"{' or None' if optional else ''}, got {type_name(value)}."
            )
    return Fields(pred, gold, slice, id)


def _kind(collection: Any) -> str:
    import dask.bag

    if isinstance(collection, dask.bag.Bag):
        return "bag"
    if _is_dataframe(collection):
        return "dataframe"
    raise TypeError(
        f"{_WHO} takes a dask.bag.Bag or a dask.dataframe.DataFrame, got {type_name(collection)}. "
        "Make one with dask.bag.from_sequence(cases), dask.bag.read_text(...).map(json.loads) or "
        "dask.dataframe.read_parquet(...); for a list in memory, use ek.evaluate."
    )


def _is_dataframe(collection: Any) -> bool:
    try:
        import dask.dataframe
    except ImportError:
        return False
    return isinstance(collection, dask.dataframe.DataFrame)


def _label(value: Any) -> str:
    """What to call a value that cannot be pickled (a metric, a normalizer, a grammar) in the message."""
    return str(getattr(value, "name", None) or getattr(value, "__name__", None) or type(value).__name__)


def _check_pickles(parts: dict[str, Any]) -> None:
    """TypeError naming the first part that cannot travel to a worker (Dask pickles with cloudpickle)."""
    import cloudpickle

    for name, value in parts.items():
        if value is None or isinstance(value, str):
            continue
        try:
            cloudpickle.dumps(value)
        except Exception as exc:
            raise TypeError(
                f"{_WHO} {name} ({_label(value)}) cannot be pickled ({type(exc).__name__}: {exc}), so it cannot be "
                "sent to the Dask workers. Keep no open file, lock, connection or client in it (open them "
                "inside the call, on the worker), or pass a registered metric name."
            ) from None


def _tree(dask: Any, nodes: list[Any]) -> Any:
    """One node merging ``nodes`` in order, through levels of at most `_FAN_IN` merges."""
    while len(nodes) > 1:
        nodes = [dask.delayed(merge)(*nodes[i : i + _FAN_IN]) for i in range(0, len(nodes), _FAN_IN)]
    return nodes[0] if nodes else dask.delayed(Summary)()


def _report(summary: Summary, metric: Any, items: list[Any] | None, partitions: int, level: float | None) -> Report:
    from ek._bootstrap import Resampler, stored_sums

    size = len(pickle.dumps(summary))
    if not summary.n:
        label = metric if isinstance(metric, str) else (as_metric(metric).name if metric is not None else "")
        return Report(metric=label, aggregate=None, n=0, detail={"partitions": partitions, "summary_bytes": size})
    m = metric_object(metric, summary.metric)
    detail: dict[str, Any] = dict(summary.detail)
    if summary.sliced:
        detail["slice_n"] = dict(summary.slice_n)
    scores: Any = ()
    if items is not None:
        scores = tuple(s for part in items for s in part[0])
        if summary.sliced:
            detail["slices"] = tuple(x for part in items for x in (part[1] or (None,) * len(part[0])))
        if items[0][2] is not None:
            detail["ids"] = tuple(x for part in items for x in part[2])
    carrier = Resampler(
        m,
        refuse=(
            f"this {summary.metric!r} report comes from ek.dask.evaluate(..., level=None), which skips the "
            "bootstrap, so it has no interval; pass level=0.95 (the default) to get one."
        )
        if level is None
        else None,
    )
    if summary.replicates is not None:
        slice_statistics = {label: summary.sums(label) for label in summary.slice_totals}
        detail.update(statistics=summary.sums(), slice_statistics=slice_statistics)
        carrier = Resampler(
            m,
            stored=stored_sums(
                summary.statistics,
                summary.replicates,
                dict(summary.slice_replicates),
                summary.sums(),
                slice_statistics,
                summary.moments,
                dict(summary.slice_moments),
            ),
        )
    detail.update(partitions=partitions, summary_bytes=size)
    report = Report(
        metric=summary.metric,
        aggregate=m.compute(summary.sums()),
        n=summary.n,
        scores=scores,
        per_slice={label: m.compute(summary.sums(label)) for label in summary.slice_totals},
        detail=detail,
        _resampler=carrier,
    )
    if level is None:
        return report
    return dataclasses.replace(report, detail={**detail, "level": level, "interval": report.interval(level)})
