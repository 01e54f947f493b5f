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
paired with the best (`ek.cli._commands._benchmark`).

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
from typing import TYPE_CHECKING, Annotated

from ek.cli._commands._format import Outcome
from ek.cli._commands._options import Options, confidence_level, normalize_steps

if TYPE_CHECKING:
    from ek.cli._commands._benchmark import BenchmarkOptions

_DEFAULTS = Options()  # every shared flag at its default: a frozen value, safe to share as the default argument

__all__ = [
    "Options",
    "Outcome",
    "audit_plan",
    "benchmark",
    "compare",
    "estimate",
    "evaluate",
    "monitor",
    "normalize_steps",
]


def evaluate(
    gold: str,
    pred: str,
    *,
    options: Options = _DEFAULTS,
    save: str | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    timeout: float | None = None,
) -> Outcome:
    """Score PRED against GOLD: the corpus figure with its interval, overall and per slice.

    GOLD and PRED are .jsonl, .json, .csv or .tsv files, documents (PAGE,
    ALTO, hOCR, text) or folders of documents; PRED may be - (stdin).
    --id names the joining field ("" numbers records by position);
    --gold-field / --pred-field pick the values (default: reference, gold,
    text / prediction, pred, text; else the whole record); --slice names
    the slice field (default: slice, when gold has it). --metric defaults
    by type (text: cer, records: fields); --normalize takes comma-separated
    steps (e.g. nfc,lower; documents get nfc unless --normalize or
    --profile says otherwise). --level is the confidence level of the
    intervals. --json PATH writes the report (- for stdout), --html PATH
    the page, --save NAME keeps the run for ek compare. --max / --min exit
    1 when the figure is past the bound. --workers N scores on N local Dask
    worker processes, --scheduler ADDRESS on a running Dask cluster (the
    dask extra); the figures are the same. --timeout S is how long
    --scheduler waits for a worker (default 30).

    Documents: --text-level region|line|word|glyph picks the text a
    PAGE/ALTO/hOCR file gives (default: the finest level present);
    --profile dinglehopper scores as dinglehopper does; --words
    unicode|whitespace says how WER cuts words. Folders pair by name:
    NAME.gt.txt beside NAME.txt or NAME.ENGINE.txt, gt/ and ocr/
    subfolders, one subfolder per document; --gold-suffix / --pred-suffix
    (e.g. .gt.txt and .some-ocr.txt, _PAGE.xml and _ALTO.xml) name the
    two kinds of file, also in one folder given as both GOLD and PRED;
    --pred-format text|hocr|alto|page picks one of several outputs of a
    page. Only regular files up to --max-file-mb megabytes (default 256)
    are read; FIFOs, devices and links out of the folder are skipped and
    listed (--follow-symlinks reads such links). A document that cannot be
    read stops the run (exit 2); --keep-going scores the others and lists
    the failures. Bad input, no scheduler answering at ADDRESS, or no
    worker joining it, exits 2.
    """
    from ek.cli._commands._evaluate import run_evaluate

    with _no_cycle_collection():
        return run_evaluate(gold, pred, options, save=save, workers=workers, scheduler=scheduler, timeout=timeout)


def compare(
    gold: str, pred_a: str, pred_b: str, *, options: Options = _DEFAULTS, fail_on_regression: bool = False
) -> Outcome:
    """Is PRED_B better or worse than PRED_A on GOLD? B - A with a paired interval, p-value and verdict.

    PRED_A and PRED_B are prediction files (as for ek evaluate) or names
    saved with ek evaluate --save. The options are those of ek evaluate;
    --max / --min gate B's figure, and --fail-on-regression exits 1 when B
    is significantly worse than A. Bad input exits 2.
    """
    from ek.cli._commands._compare import run_compare

    with _no_cycle_collection():
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
    interval: str = "clt",
) -> Outcome:
    """How good is PRED over the whole corpus, from a stand-in for gold and a gold audit of a few items?

    --proxy PSEUDO_GOLD is read as a gold side (another engine's output:
    --proxy-field names its value field, else the gold defaults; its slices
    slice the corpus); every prediction is scored against it. --audit GOLD
    holds real gold for the audited ids. Prints, overall and per slice, N,
    n, the prediction-powered estimate and its interval, the classical
    (audit-only) interval, the plug-in figure, lambda and the effective n.
    --plan PLAN.jsonl (from ek audit-plan) weighs the audited items by
    their inclusion probabilities and leaves out GOLD ids it did not draw.
    --lam tune|0..1, --interval clt|bootstrap; the other options are those
    of ek evaluate (--max / --min gate the estimate). Bad input exits 2.
    """
    from ek.cli._commands._estimate import run_estimate

    with _no_cycle_collection():
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
    """Append a window to the stored monitor NAME (or --report its history): is the gate keeping its promise?

    --window FILE.jsonl holds one item a line (``id``, ``signals``, optional
    ``time``); --audit FILE.jsonl labels (``id``, ``correct``) for items of
    this window or earlier ones; --time T the window's time (a number or
    an ISO date) when the items have none. Prints the window's and the
    cumulative figures, the anytime-valid bands and any alarm; --json and
    --html write the report and the history page; --report only reads.
    Create the monitor in Python: ek.qe.monitor.Monitor(..., name=NAME).
    Exit 1 while an alarm stands, 2 on bad input (nothing stored).
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
    strategy: str = "uniform",
    seed: int = 0,
    min_prob: float | None = None,
    out: str | None = None,
    proxy_field: str | None = None,
    id: str = "id",
    slice: str | None = None,
    metric: str | None = None,
    normalize: str | None = None,
    pred_field: str | None = None,
) -> Outcome:
    """Which items of PRED to audit: a JSONL of id, inclusion probability, slice and the text to label.

    PRED is scored against --proxy PSEUDO_GOLD (as for ek estimate);
    --budget is the expected number of items drawn; --strategy uniform,
    stratified (Neyman allocation over the slices) or active (probability
    growing with each item's predicted uncertainty, never below
    --min-prob); --seed makes the draw reproducible. --out PATH writes the
    file (standard output without it). Bad input exits 2.
    """
    from ek.cli._commands._estimate import run_audit_plan

    reading = Options(id=id, slice=slice, metric=metric, normalize=normalize, pred_field=pred_field)
    with _no_cycle_collection():
        return run_audit_plan(
            pred,
            proxy,
            reading,
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
    strict: bool = False,
    max_workers: int | None = None,
    timeout: float | None = None,
    id: str = "id",
    gold_field: str | None = None,
    slice: str | None = None,
) -> Outcome:
    """Run a fleet of OCR engines over GOLD and rank them: which engine should ship?

    GOLD is a .jsonl, .json, .csv or .tsv file of page records (an image
    path, relative to the file, and the true text: --gold-field, else
    reference_text, reference, gold or text; --id and --slice as for ek
    evaluate; a kind of line or page), or a folder of ground truth with the
    images beside it (NAME.png and NAME.gt.txt, or a PAGE/ALTO file naming
    its image). --engine names an engine, once per engine, with options
    after a colon (--engine tesseract --engine tesseract:lang=deu --engine
    rapidocr). Prints each engine's figure with its interval, the
    difference to the best with its paired interval, p-value and verdict,
    seconds per page and errors, and the ROVER consensus of the fleet
    scored like one more engine. --json PATH writes the figures (- for
    stdout), --html PATH a page with the worst pages of each engine and one
    page read by every engine side by side. --save NAME keeps the engines'
    runs, so a run that dies resumes when given the same NAME.
    --max-workers N reads N pages at once (every engine runs at once);
    --timeout S gives up on a page after S seconds. An engine that is not
    installed or not configured is left out (named, with the install line)
    unless --strict; an unknown
    engine, GOLD without images, or --strict with an engine missing exits 2.
    """
    from ek.cli._commands._benchmark import run_benchmark

    options: BenchmarkOptions = {
        "metric": metric,
        "normalize": normalize_steps(normalize),
        "level": level,
        "save": save,
        "strict": strict,
        "max_workers": max_workers,
        "timeout": timeout,
        "id": id,
        "gold_field": gold_field,
        "slice": slice,
    }
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
