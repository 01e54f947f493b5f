"""``ek evaluate --workers N`` / ``--scheduler ADDRESS``: score the joined cases on a Dask cluster.

GOLD and PRED are read and joined here, as without these options; the
cases then go to the cluster as a Dask Bag of records and `ek.dask.evaluate`
scores them where they land, by their joined ids, so the figures and the
intervals equal those of a run in this process. ``--workers N`` starts a
local cluster of ``N`` worker processes and closes it at the end;
``--scheduler ADDRESS`` uses a running one, and gives up with a one-line
error (exit 2) when nothing answers there within `CONNECT_SECONDS`, or
when the scheduler has no worker and none joins within ``--timeout``
seconds (`WORKER_SECONDS` by default): a scheduler without workers would
otherwise hold the work forever.
"""

from __future__ import annotations

import math
from typing import Any

from ek._files import InputError, Joined
from ek.cli._commands._inputs import Scored, record_metric
from ek.cli._commands._options import Options

__all__ = ["CONNECT_SECONDS", "WORKER_SECONDS", "check_cluster", "score_on_dask"]

CONNECT_SECONDS = 10.0
"""How long ``--scheduler`` waits for the scheduler to answer."""

WORKER_SECONDS = 30.0
"""How long ``--scheduler`` waits, by default, for the scheduler to have a worker (``--timeout S`` changes it)."""

_PER_PARTITION = 50_000  # the most items in one partition
_PER_THREAD = 4  # partitions per worker thread, at least: a slow one does not hold up the others


def check_cluster(workers: int | None, scheduler: str | None, timeout: float | None = None) -> None:
    """InputError for both options at once, a worker count below 1, or a ``--timeout`` that cannot apply."""
    if workers is not None and scheduler is not None:
        raise InputError(
            "--workers N (a local cluster) and --scheduler ADDRESS (a running one) cannot be used "
            "together; pass one of them."
        )
    if workers is not None and workers < 1:
        raise InputError(f"--workers must be at least 1, got {workers}.")
    if timeout is not None and scheduler is None:
        raise InputError(
            "--timeout S is how long --scheduler ADDRESS waits for a worker; pass --scheduler too, or drop --timeout."
        )
    if timeout is not None and not (math.isfinite(timeout) and timeout > 0):
        raise InputError(f"--timeout must be a number of seconds above 0, got {timeout:g}; e.g. --timeout 120.")


def score_on_dask(
    joined: Joined,
    options: Options,
    *,
    name: str,
    workers: int | None,
    scheduler: str | None,
    keep_items: bool,
    timeout: float | None = None,
) -> Scored:
    """The joined cases scored on the cluster; ``keep_items`` brings every item's score back too.

    ``timeout`` bounds the wait for a worker of ``scheduler`` (default `WORKER_SECONDS`).
    """
    if joined.documents:
        raise InputError(
            f"{name} holds text documents, whose OCR measures and confusion tables are computed in this "
            "process; drop --workers/--scheduler for documents, or give the texts as JSONL records."
        )
    if options.profile is not None:
        raise InputError(
            f"--profile {options.profile} scores the texts as OCR documents, which is done in this process; "
            "drop --workers/--scheduler, or drop --profile."
        )
    if not joined.ids:
        raise InputError(f"no gold item could be scored against {name}; check GOLD.")
    import dask.bag as db

    import ek.dask

    records = [{"pred": p, "gold": g, "id": i} for p, g, i in zip(joined.preds, joined.golds, joined.ids)]
    if joined.slices is not None:
        for record, label in zip(records, joined.slices):
            record["slice"] = label
    with ek.dask.client(scheduler, workers=workers, timeout=CONNECT_SECONDS) as client:
        if scheduler is not None:
            _wait_for_a_worker(client, scheduler, WORKER_SECONDS if timeout is None else timeout)
        threads = sum(client.nthreads().values()) or 1
        parts = max(min(len(records), _PER_THREAD * threads), math.ceil(len(records) / _PER_PARTITION))
        report = ek.dask.evaluate(
            db.from_sequence(records, npartitions=parts),
            metric=record_metric(options),
            slice=None if joined.slices is None else "slice",
            id="id",
            normalize=options.steps,
            level=options.level,
            keep_items=keep_items,
        )
    return Scored(name, report, joined, tuple(joined.missing), tuple(joined.extra), {})


def _wait_for_a_worker(client: Any, scheduler: str, timeout: float) -> None:
    """Return once the scheduler has a running worker; InputError when none joins within ``timeout`` seconds."""
    try:
        client.wait_for_workers(1, timeout=timeout)
    except TimeoutError:
        raise InputError(
            f"the Dask scheduler at {scheduler!r} has no worker, and none joined within {timeout:g} s; start "
            f"workers for it (dask worker {scheduler}), wait longer with --timeout S, or score on local "
            "workers with --workers N instead."
        ) from None
