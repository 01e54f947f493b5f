"""The run engine: one way to run, persist and resume every evaluation over many items.

`ek.harness.evaluate_store` (kind ``documents``), `ek.ocr.evaluate_ocr`
(``ocr``) and `ek.agents.run_suite` (``agents``) are adapters over it. An
adapter checks its own arguments, then describes the work: the items (key,
payload, fingerprint of the gold record), a *task* saying how to run one
item and how to score a batch (see `ek._runs._execute`), and the settings
fingerprint of the run. The engine owns everything else, once:

* run identity ``(kind, run_id)`` and the record format (`ek._runs._records`):
  every record names its kind and format version, kinds never share a key,
  and a resume under other settings is refused, naming what differs;
* one writer per run (`ek._runs._lock`), and a run replaced only once its
  replacement is complete (an interrupted one leaves the old run whole);
* faithful records (`ek._runs._codec`): a resumed report equals a clean one;
* durable chunked writes, one progress bar, per-item error records with
  ``errors="record"|"raise"``, and execution in this process, on threads or
  an event loop, or on any ``concurrent.futures.Executor``;
* the stored baselines of each kind.

A run is used in three steps: ``run = open_run(...)`` (checks and records
the settings), ``entries = execute(run, task, items, ...)``, then
``run.close(summary)`` once the adapter has built its report. A run scored
elsewhere (``ek evaluate --save``, kind ``evaluate``) writes its entries
with ``run.store.write`` between the two; `read_run` reads any stored run
back, and `stored_runs` lists those of a kind.
"""

from ek._runs._codec import decode, encode, register
from ek._runs._execute import (
    CHUNK_ITEMS, FLUSH_SECONDS, Run, check_errors, check_executor, describe, execute, open_run,
)
from ek._runs._records import (
    FORMAT, baseline_of, check_run_id, digest, load_baseline_record, merge_settings, new_run_id, now, read_run,
    run_lock, save_baseline_record, stored_runs,
)
from ek._runs._scoring import ScoringTask, gold_items, score_cases, scored_report
from ek._runs._settings import callable_id, fingerprint, setting_id, str_keys

__all__ = [
    "CHUNK_ITEMS", "FLUSH_SECONDS", "FORMAT", "Run", "ScoringTask", "baseline_of", "callable_id", "check_errors",
    "check_executor", "check_run_id", "decode", "describe", "digest", "encode", "execute", "fingerprint",
    "gold_items", "load_baseline_record", "merge_settings", "new_run_id", "now", "open_run", "read_run", "register",
    "run_lock", "save_baseline_record", "score_cases", "scored_report", "setting_id", "stored_runs", "str_keys",
]
