"""Rank the OCR output groups of an OCR-D workspace against its ground-truth group, with no engine run.

An OCR-D workspace keeps one file group per processing step in its
``mets.xml`` (``OCR-D-GT-PAGE``, ``OCR-D-OCR-TESS-frk``, ``OCR-D-OCR-CALA``
...), its files tied to pages by the ``PHYSICAL`` structMap.
`evaluate_workspace` scores every OCR group against the gold group page by
page, exactly as `ek.ocr.evaluate_files` scores two folders (so a group's
figure is that of a folder run on its files alone), and ranks the groups as
`ek.ocr.benchmark_fleet` ranks engines: each group's figure and interval,
and every group paired with the best (``ek.compare(best, group)``). It is a
comparison of workflows already run: nothing is recognised again, and there
is no ROVER row and no timing.

The `FleetReport`'s rows are named by group; each row's ``report`` is the
`ek.ocr.evaluate_files`-shaped report of that group, whose ``detail`` also
holds ``per_item`` (every page's ``reference``, ``prediction`` and
``score``) and ``processor``: who made the group, as the METS and the PAGE
files record it (``{"processor", "version", "parameters", "model",
"source"}``, None where nothing does; see `ek._files._mets`).
``EngineResult.engine`` is the processor's name (the group's name when
unknown).

How pages pair, which files are read and what is refused: `ek._files._mets`.
A page the gold group has no file for is no item; a gold page a pred group
has no file for, or whose file cannot be read, is an error unless
``keep_going``, which leaves it out of that group (paired comparisons then
use the pages both groups read). Under ``keep_going`` a group that does not
exist, or none of whose pages can be read, is left out and listed in
``FleetReport.skipped``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from ek._reading import ReadOptions
from ek.base import Report
from ek.canonicalize import Steps
from ek.ocr._fleet.report import FleetReport, build_fleet_report
from ek.ocr._settings import CODEPOINT, NFC, WHITESPACE
from ek.ocr.files import DEFAULT_MEASURES, FCA_MAX_CHARS, Joined, evaluate_joined

__all__ = ["evaluate_workspace"]


def evaluate_workspace(
    workspace: str | os.PathLike[str],
    *,
    gold_group: str,
    pred_groups: Sequence[str],
    metric: str = "cer",
    segment: str | None = CODEPOINT,
    normalize: Steps | None = NFC,
    text_level: str | None = None,
    pick: str = "index",
    profile: str | None = None,
    words: str | None = WHITESPACE,
    measures: Sequence[str] = DEFAULT_MEASURES,
    fca_max_chars: int | None = FCA_MAX_CHARS,
    level: float = 0.95,
    keep_going: bool = False,
    max_file_mb: float = 256,
    follow_symlinks: bool = False,
    read: ReadOptions | None = None,
) -> FleetReport:
    """Rank the ``pred_groups`` of an OCR-D workspace against ``gold_group`` (CER by default; lower is better).

    Args:
        workspace: a folder holding ``mets.xml``, or the METS file.
        gold_group: the ground-truth file group, e.g. ``"OCR-D-GT-PAGE"``.
        pred_groups: the groups to rank: names, or globs such as
            ``"OCR-D-OCR-*"`` (matching in METS order, the gold group aside).
        metric, segment, normalize, text_level, pick, profile, words, measures,
            fca_max_chars: as for `ek.ocr.evaluate_files`.
        level: the confidence level of the intervals and comparisons.
        keep_going: leave out the pages (and groups) that cannot be read,
            listing them, instead of raising.
        max_file_mb, follow_symlinks: the largest file read, in megabytes,
            and whether links that leave the workspace are read.
        read: the reading options as one `ek.ocr.ReadOptions` value instead of
            the keywords ``text_level``, ``pick``, ``profile``, ``max_file_mb``
            and ``follow_symlinks`` (passing both is refused).

    Raises:
        ValueError: not a workspace, no PHYSICAL structMap, an unknown group,
            or (unless ``keep_going``) a page that cannot be read; the
            message names it and the fix.

    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> for group, text in (("GT", "The cat sat"), ("OCR-A", "The cut sat"), ("OCR-B", "The cat sat")):
    ...     os.mkdir(os.path.join(d, group))
    ...     with open(os.path.join(d, group, "p1.txt"), "w") as f:
    ...         _ = f.write(text)
    >>> files = "".join(
    ...     f'<mets:fileGrp USE="{g}"><mets:file ID="{g}_1" MIMETYPE="text/plain">'
    ...     f'<mets:FLocat xlink:href="{g}/p1.txt"/></mets:file></mets:fileGrp>' for g in ("GT", "OCR-A", "OCR-B"))
    >>> with open(os.path.join(d, "mets.xml"), "w") as f:
    ...     _ = f.write('<mets:mets xmlns:mets="http://www.loc.gov/METS/" xmlns:xlink="http://www.w3.org/1999/xlink">'
    ...         f'<mets:fileSec>{files}</mets:fileSec><mets:structMap TYPE="PHYSICAL"><mets:div TYPE="page" ID="P1">'
    ...         '<mets:fptr FILEID="GT_1"/><mets:fptr FILEID="OCR-A_1"/><mets:fptr FILEID="OCR-B_1"/>'
    ...         '</mets:div></mets:structMap></mets:mets>')
    >>> fleet = evaluate_workspace(d, gold_group="GT", pred_groups=["OCR-*"])
    >>> fleet.ranking, round(fleet["OCR-A"].aggregate, 3), fleet["OCR-A"].comparison.delta > 0
    (('OCR-B', 'OCR-A'), 0.091, True)
    """
    from ek._files import (
        InputError,
        group_names,
        group_side,
        join,
        processor_of,
        read_options_of,
        read_workspace,
        refuse_failures,
    )

    reading = read_options_of("evaluate_workspace", locals())
    ws = read_workspace(workspace)
    gold = group_side(ws, gold_group, role="gold", read=reading)
    groups, skipped = group_names(ws, pred_groups, exclude=gold_group)
    if skipped and not keep_going:
        raise InputError(" ".join(skipped.values()))
    runs: dict[str, tuple[Any, ...]] = {}
    for group in groups:
        pred = group_side(ws, group, role="pred", pages=(*gold.ids, *gold.errors), read=reading)
        joined = refuse_failures(join(gold, pred), keep_going=keep_going)
        if not joined.ids:
            skipped[group] = f"no page could be read: {next(iter(pred.errors.values()), 'none has a file')}"
            continue
        report = evaluate_joined(
            joined,
            metric=metric,
            segment=segment,
            normalize=normalize,
            profile=reading.profile,
            words=words,
            measures=measures,
            fca_max_chars=fca_max_chars,
        )
        record = processor_of(ws, group)
        runs[group] = ((record or {}).get("processor") or group, with_pages(report, joined, record), {})
    if not runs:
        raise InputError(
            f"no group of {ws.mets} could be scored: " + "; ".join(f"{g}: {w}" for g, w in skipped.items())
        )
    return build_fleet_report(
        runs,
        None,
        metric=metric,
        level=level,
        n_items=len(gold.ids),
        unreadable={},
        skipped=skipped,
        consensus_texts={},
        run_id=None,
    )


def with_pages(report: Report, joined: Joined, processor: Mapping[str, Any] | None) -> Report:
    """``report`` whose detail also holds ``per_item`` (each page's texts and score) and ``processor``."""
    import dataclasses

    slices = joined.slices or (None,) * len(joined.ids)
    per_item = {
        i: {"reference": gold, "prediction": pred, "score": s.value, "slice": slice_, "error": None}
        for i, gold, pred, slice_, s in zip(joined.ids, joined.golds, joined.preds, slices, report.scores)
    }
    return dataclasses.replace(report, detail={**report.detail, "per_item": per_item, "processor": processor})
