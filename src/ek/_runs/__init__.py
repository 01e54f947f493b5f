"""The run engine: one way to run, persist and resume every evaluation over many items.

`ek.harness.evaluate_store` (kind ``documents``), `ek.ocr.evaluate_ocr`
(``ocr``) and `ek.agents.run_suite` (``agents``) are adapters over it;
`ek.qe.monitor.Monitor` (``monitor``) keeps its state in it, one chunk per
update (see `ek.qe.monitor._state`). An
adapter checks its own arguments, then describes the work: the items (key,
payload, fingerprint of the gold record), a *task* saying how to run one
item and how to score a batch (see `ek._runs._execute`), and the settings
fingerprint of the run. The engine owns everything else, once:

* run identity ``(kind, run_id)`` and the record format (`ek._runs._records`):
  every record names its kind and format version, kinds never share a key,
  and a resume under other settings is refused, naming what differs; file
  names made of ``[A-Za-z0-9._-]`` only, whatever the id (`store_key`);
* what a resume reused: ``run.resumed`` (``{"reused", "read"}``) once
  `execute` is done, recorded in the run's header by ``run.close``;
* one writer per run (`ek._runs._lock`), and a run replaced only once its
  replacement is complete (an interrupted one leaves the old run whole);
* faithful records (ek's one tag codec, `ek._json`, with the data model's
  values registered in `ek._runs._values`): a resumed report equals a clean one;
* durable chunked writes, one progress bar, per-item error records with
  ``errors="record"|"raise"``, and execution in this process, on threads or
  an event loop, or on any ``concurrent.futures.Executor``;
* the stored baselines of each kind.

Run options: one rule for every runner
--------------------------------------
`ek.harness.evaluate_store`, `ek.ocr.evaluate_ocr`, `ek.ocr.benchmark_fleet`
and `ek.agents.run_suite` take the same run options, keyword-only, after
their own, in this order and checked by one validator (`run_options`):

``persist=False, run_id=None, rootdir=None, resume=True, errors="record",
max_workers=None, timeout=None, executor=None, progress=None``

or all of them as one value, ``run_options=RunOptions(...)`` (`RUN_KEYWORDS`
lists them once; `run_options_of` reads a call's arguments either way and
refuses both at once).

* a run is stored when ``persist=True`` *or* a ``run_id`` is given (a
  ``run_id`` names a stored run, so giving one asks for it to be kept and
  resumed). A stored run without a ``run_id`` gets a new one from the clock
  (`new_run_id`, ``run-YYYYmmdd-HHMMSS-xxxxxx``); a run that is not stored
  has none: the report's ``run_id`` is None;
* ``rootdir`` is the data folder of the stores; ``resume=False`` starts a
  stored run over;
* ``errors``: ``"record"`` keeps going past a failing item and lists it in
  the report, ``"raise"`` stops at the first (the fleet always records);
* ``max_workers``: how many items run at once (threads, or tasks on the
  event loop for an async agent); ``timeout``: seconds an item may take
  before it fails with TimeoutError; ``executor``: any
  ``concurrent.futures.Executor`` that runs chunks of items instead of
  ``max_workers`` (giving both is refused);
* ``progress``: a progress bar on stderr; None shows one only when stderr
  is a terminal.

A run is used in three steps: ``run = open_run(...)`` (checks and records
the settings; `start_run` takes them from a runner's `RunOptions`), ``entries = execute(run, task, items, options.plan(...))``,
then ``run.close(summary)`` once the adapter has built its report. A run
scored elsewhere (``ek evaluate --save``, kind ``evaluate``) writes its
entries with ``run.store.write`` between the two; `read_run` reads any
stored run back, and `stored_runs` lists those of a kind.
"""

from ek._json import decode, encode, register
from ek._runs._execute import (
    CHUNK_ITEMS,
    FLUSH_SECONDS,
    Done,
    Entry,
    Finished,
    Item,
    Run,
    Task,
    describe,
    execute,
    open_run,
    start_run,
)
from ek._runs._options import (
    RUN_KEYWORDS,
    Calls,
    ErrorMode,
    Plan,
    RunOptions,
    check_errors,
    check_executor,
    persisted,
    run_options,
    run_options_of,
)
from ek._runs._records import (
    FORMAT,
    baseline_of,
    check_run_id,
    digest,
    load_baseline_record,
    merge_settings,
    new_run_id,
    now,
    read_run,
    run_lock,
    save_baseline_record,
    store_key,
    stored_runs,
)
from ek._runs._scoring import (
    DocumentEntry,
    Scorer,
    ScoringTask,
    gold_items,
    run_scored,
    score_cases,
    scored_report,
)
from ek._runs._settings import callable_id, fingerprint, setting_id, str_keys

__all__ = [
    "CHUNK_ITEMS",
    "FLUSH_SECONDS",
    "FORMAT",
    "RUN_KEYWORDS",
    "Calls",
    "DocumentEntry",
    "Done",
    "Entry",
    "ErrorMode",
    "Finished",
    "Item",
    "Plan",
    "Run",
    "RunOptions",
    "Scorer",
    "ScoringTask",
    "Task",
    "baseline_of",
    "callable_id",
    "check_errors",
    "check_executor",
    "check_run_id",
    "decode",
    "describe",
    "digest",
    "encode",
    "execute",
    "fingerprint",
    "gold_items",
    "load_baseline_record",
    "merge_settings",
    "new_run_id",
    "now",
    "open_run",
    "persisted",
    "read_run",
    "register",
    "run_lock",
    "run_options",
    "run_options_of",
    "run_scored",
    "save_baseline_record",
    "score_cases",
    "scored_report",
    "setting_id",
    "start_run",
    "store_key",
    "stored_runs",
    "str_keys",
]
