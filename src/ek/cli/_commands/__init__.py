"""``ek evaluate``, ``ek compare`` and ``ek benchmark``: score predictions against gold files, with honest intervals.

``ek evaluate GOLD PRED`` reads both sides (`ek._files`: JSONL, JSON, CSV,
TSV, a document or a folder of documents, ``-`` for PRED on stdin), joins
them by id, scores every item, and prints the corpus figure with its
bootstrap interval (`ek.Report.interval`), overall and per slice. A gold id
without a prediction is scored against an empty one and listed as missing;
a prediction without gold is listed as extra and ignored. ``--json PATH``
writes the report (``-``: standard output), ``--html PATH`` the page of
`ek.cli._html`, ``--save NAME`` keeps the run for ``ek compare``, ``--max`` / ``--min``
make a CI gate, and ``--workers N`` / ``--scheduler ADDRESS`` score on a
Dask cluster (`ek.cli._commands._dask`).

``ek estimate PRED --proxy PSEUDO_GOLD --audit GOLD`` and ``ek audit-plan``
estimate a corpus figure from a stand-in for gold and a small audit
(`ek.cli._commands._estimate`).

``ek monitor NAME --window FILE.jsonl`` appends a window to a stored
`ek.qe.monitor.Monitor` and prints its figures and alarms
(`ek.cli._commands._monitor`).

``ek compare GOLD PRED_A PRED_B`` scores both runs (files, or names saved
with ``--save``) on the same gold items and prints A, B, B - A with its
paired interval, a p-value and a verdict (`ek.compare`), overall and per
slice; ``--fail-on-regression`` makes a gate of the verdict.

``ek benchmark GOLD --engine A --engine B`` runs a fleet of OCR engines over
page images and their ground truth and prints the ranking, every engine
paired with the best (`ek.cli._commands._benchmark`); an engine that cannot
run here is an error unless ``--keep-going``, which ranks the others.

Documents (PAGE, ALTO, hOCR, text) are NFC-normalised unless
``--normalize`` or ``--profile`` says otherwise, and the header prints the
normalisation, text level and profile used. A document that cannot be
read is an error (exit 2) unless ``--keep-going``, which scores the others;
the printed summary, the JSON and the page list the same failures and
skipped files (`ek.cli._commands._meta`). ``--json`` and ``--html`` may not
name an input, and are written whole or not at all (`ek.cli._commands._outputs`).

Exit codes: 0 done, 1 a gate failed, 2 bad input (a one-line message on
stderr, never a traceback), for these and every other ``ek`` command. A
progress bar shows on a terminal only.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator
from typing import Annotated, Literal

from ek._align import work_limit
from ek.cli._commands._format import Outcome
from ek.cli._commands._options import (
    OneOf,
    Options,
    Records,
    Scoring,
    at_least_one,
    confidence_level,
    did_you_mean,
    grouped,
    normalize_steps,
    positive,
)

_DEFAULTS = Options()  # every shared flag at its default: a frozen value, safe to share as the default argument
# (an Options is a Records, a Scoring, ...: the default of a parameter that takes one group)

__all__ = [
    "OneOf",
    "Options",
    "Outcome",
    "audit_plan",
    "benchmark",
    "compare",
    "did_you_mean",
    "estimate",
    "evaluate",
    "monitor",
    "normalize_steps",
]


def evaluate(
    gold: str,
    pred: str | None = None,
    /,
    *,
    options: Options = _DEFAULTS,
    gold_group: str | None = None,
    pred_group: list[str] | None = None,
    save: str | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    timeout: float | None = None,
    per_page: bool | None = None,
) -> Outcome:
    """Score PRED against GOLD: the figure with its interval, overall and per slice.

    GOLD and PRED are .jsonl, .json, .csv or .tsv files, documents (PAGE,
    ALTO, hOCR, ABBYY FineReader, plain text) or folders of documents, joined by id. Folders
    pair NAME.gt.txt with NAME.txt or NAME.ENGINE.txt, gt/ with ocr/, or
    one subfolder per document. An OCR-D workspace (a folder holding
    mets.xml, or the METS file) is GOLD alone, with --gold-group and
    --pred-group: its pages pair by the METS; several pred groups are
    ranked, each paired with the best. Exit 0 done, 1 past --max or --min,
    2 bad input (also when no Dask scheduler answers or no worker joins).

    Args:
        gold: the gold file or folder, or an OCR-D workspace (with --gold-group)
        pred: the predictions: a file, a folder, or - for stdin (none with --pred-group)
        options: the flags shared with ek compare and ek estimate (`Options`)
        gold_group (GROUP): the workspace's ground-truth file group, e.g. OCR-D-GT-PAGE
        pred_group (GROUP): a workspace group to score, or a glob ('OCR-D-OCR-*'); repeatable
        save (NAME): keep the run under NAME, for ek compare
        workers (N): score on N local Dask worker processes (the dask extra)
        scheduler (ADDRESS): score on the Dask cluster at ADDRESS (the dask extra)
        timeout (SECONDS): how long --scheduler waits for a worker (default: 30)
        per_page: each page's CER, WER and length, worst first (default: for 2 to 50 pages)
    """
    from ek.cli._commands._evaluate import run_evaluate

    with _no_cycle_collection(), work_limit(options.max_align_work):
        if pred is None or gold_group is not None or pred_group is not None:
            from ek.cli._commands._workspace import run_workspace

            return run_workspace(
                gold,
                pred,
                options,
                gold_group=gold_group,
                pred_groups=pred_group,
                save=save,
                workers=workers,
                scheduler=scheduler,
                timeout=timeout,
                per_page=per_page,
            )
        return run_evaluate(
            gold, pred, options, save=save, workers=workers, scheduler=scheduler, timeout=timeout, per_page=per_page
        )


def compare(
    gold: str, pred_a: str, pred_b: str, *, options: Options = _DEFAULTS, fail_on_regression: bool = False
) -> Outcome:
    """Is PRED_B better or worse than PRED_A on GOLD? B - A with a paired interval.

    The flags are those of ek evaluate; --max and --min gate B's figure.
    Exit 0 done, 1 a gate failed, 2 bad input.

    Args:
        gold: the gold file or folder
        pred_a: run A: predictions as for ek evaluate, or a run kept with --save
        pred_b: run B, the one judged against A
        options: the flags shared with ek evaluate and ek estimate (`Options`)
        fail_on_regression: exit 1 when B is significantly worse than A
    """
    from ek.cli._commands._compare import run_compare

    with _no_cycle_collection(), work_limit(options.max_align_work):
        return run_compare(gold, pred_a, pred_b, options, fail_on_regression=fail_on_regression)


def estimate(
    pred: str,
    *,
    options: Options = _DEFAULTS,
    proxy: str,
    audit: str,
    proxy_field: str | None = None,
    plan: str | None = None,
    lam: str = "tune",
    interval: Literal["clt", "bootstrap"] = "clt",
) -> Outcome:
    """PRED's corpus figure from a stand-in for gold and a small gold audit.

    Every prediction is scored against the --proxy file, the audited ones
    against the --audit file; prints, overall and per slice, N, n, the
    prediction-powered estimate and its interval beside the audit-only
    one, the proxy's own figure, lambda and the effective n. The other
    flags are those of ek evaluate (--max and --min gate the estimate).

    Args:
        pred: the predictions, as for ek evaluate
        options: the flags shared with ek evaluate and ek compare (`Options`)
        proxy (FILE): the stand-in for gold (e.g. another engine's output), read as gold
        audit (FILE): real gold for the audited ids
        proxy_field (FIELD): the --proxy file's value field (default: as for --gold-field)
        plan (FILE): the plan of ek audit-plan: weighs the audit, drops ids it did not draw
        lam (LAMBDA): how far the proxy counts: tune, or 0 (audit alone) to 1
        interval (METHOD): how the intervals are computed
    """
    from ek.cli._commands._estimate import run_estimate

    with _no_cycle_collection(), work_limit(options.max_align_work):
        return run_estimate(
            pred, proxy, audit, options, proxy_field=proxy_field, plan_path=plan, lam=lam, interval=interval
        )


def monitor(
    name: str,
    *,
    window: str | None = None,
    audit: str | None = None,
    time: str | None = None,
    report: bool = False,
    json: str | None = None,
    html: str | None = None,
    rootdir: str | None = None,
) -> Outcome:
    """Add a window to the stored monitor NAME: is the gate keeping its promise?

    Prints the window's and the cumulative figures, the anytime-valid bands
    and any alarm; --report prints the history without a window. Create the monitor in Python, with
    ek.qe.monitor.Monitor(..., name=NAME). Exit 1 while an alarm stands, 2
    on bad input (nothing is stored then).

    Args:
        name: the monitor's name
        window (FILE): a JSONL of this window's items (id, signals, optional time)
        audit (FILE): a JSONL of labels (id, correct) for this window or earlier ones
        time (T): the window's time (a number or an ISO date) when items have none
        report: print the history only; store nothing
        json (PATH): write the report as JSON to PATH (- for standard output)
        html (PATH): write the history page to PATH (- for standard output)
        rootdir (DIR): the data folder of the stores (default: the one ek where prints)
    """
    from ek.cli._commands._monitor import run_monitor

    return run_monitor(
        name, window=window, audit=audit, time=time, report=report, json_path=json, html_path=html, rootdir=rootdir
    )


def audit_plan(
    pred: str,
    *,
    proxy: str,
    budget: float,
    strategy: Literal["uniform", "stratified", "active"] = "uniform",
    seed: int = 0,
    min_prob: float | None = None,
    out: str | None = None,
    proxy_field: str | None = None,
    records: Records = _DEFAULTS,
    scoring: Scoring = _DEFAULTS,
) -> Outcome:
    """Which items of PRED to audit: id, inclusion probability, slice, text to label.

    PRED is scored against the --proxy file, as for ek estimate; once the
    drawn items are labelled, ek estimate --plan reads the plan back.
    --strategy stratified allocates the budget over the slices (Neyman),
    active draws an item the likelier the less certain its prediction.

    Args:
        pred: the predictions, as for ek evaluate
        proxy (FILE): the stand-in for gold, as for ek estimate
        budget (N): the expected number of items drawn
        strategy (HOW): how to draw
        seed (N): the seed of the draw
        min_prob (P): the lowest inclusion probability --strategy active gives
        out (PATH): write the plan to PATH (default: standard output)
        proxy_field (FIELD): the --proxy file's value field (default: reference, gold or text)
        records: the record flags of ek evaluate (`Records`; the proxy is read as gold, --gold-field aside)
        scoring: the scoring flags of ek evaluate (`Scoring`; --level is not used: a plan has no interval)
    """
    from ek.cli._commands._estimate import run_audit_plan

    if records.gold_field is not None:
        raise ValueError(
            "--gold-field names the value field of a gold file, and ek audit-plan reads none; "
            "name the --proxy file's value field with --proxy-field."
        )
    options = grouped(records, scoring)
    with _no_cycle_collection(), work_limit(options.max_align_work):
        return run_audit_plan(
            pred,
            proxy,
            options,
            proxy_field=proxy_field,
            budget=budget,
            strategy=strategy,
            seed=seed,
            min_prob=min_prob,
            out=out,
        )


def benchmark(
    gold: str,
    *,
    engine: list[str] | None = None,
    metric: str = "cer",
    normalize: str | None = None,
    level: Annotated[float, confidence_level] = 0.95,
    json: str | None = None,
    html: str | None = None,
    save: str | None = None,
    keep_going: bool = False,
    max_workers: Annotated[int | None, at_least_one("--max-workers")] = None,
    timeout: Annotated[float | None, positive("--timeout", "seconds")] = None,
    id: str = "id",
    gold_field: str | None = None,
    slice: str | None = None,
) -> Outcome:
    """Run a fleet of OCR engines over GOLD and rank them: which engine should ship?

    GOLD is a .jsonl, .json, .csv or .tsv file of page records (the image
    path, relative to the file; the true text; optionally a kind, line or
    page), or a folder of ground truth with the images beside it (NAME.png
    and NAME.gt.txt, or a PAGE/ALTO file naming its image). Prints each
    engine's figure with its interval, the difference to the best with its
    p-value and verdict, seconds per page and errors, and the ROVER
    consensus of the fleet scored like one more engine. An engine that
    cannot run here is an error (exit 2) unless --keep-going.

    Args:
        gold: the gold file or folder
        engine (ENGINE): an engine, options after a colon (tesseract:lang=deu); repeatable
        metric (NAME): the metric, e.g. wer
        normalize (STEPS): normalisation steps, e.g. nfc,lower (default: nfc for documents)
        level: the confidence level of the intervals
        json (PATH): write the figures as JSON to PATH (- for standard output)
        html (PATH): write the ranking page (worst pages included) to PATH, - for standard output
        save (NAME): keep the engines' runs under NAME: a run that dies resumes
        keep_going: rank the engines that can run when others cannot
        max_workers (N): pages read at once (every engine runs at once)
        timeout (SECONDS): give up on a page after SECONDS
        id (FIELD): the records' id field; "" numbers them by position
        gold_field (FIELD): the true text's field (default: reference_text, reference, gold or text)
        slice (FIELD): each page's slice field (default: slice, when gold has it)
    """
    from ek.cli._commands._benchmark import benchmark_options, run_benchmark

    options = benchmark_options(
        metric=metric,
        normalize=normalize_steps(normalize),
        level=level,
        save=save,
        keep_going=keep_going,
        max_workers=max_workers,
        timeout=timeout,
        id=id,
        gold_field=gold_field,
        slice=slice,
    )
    return run_benchmark(gold, engine, options, json_path=json, html_path=html)


@contextlib.contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """Pause the cyclic garbage collector: reading 100,000 records makes no cycles, yet triggers it often."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
