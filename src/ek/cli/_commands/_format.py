"""What ``ek evaluate`` and ``ek compare`` print and write: numbers, tables, JSON files, exit codes."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ek._util import (
    describe_fallbacks,
    describe_level_disagreements,
    describe_text_level,
    format_p_value,
    format_table,
)

if TYPE_CHECKING:
    from ek.cli._html._data import Meta

p_value = format_p_value  # one formatter of p-values, for the command line and the page

_SHOWN_IDS = 5
_SHOWN_SKIPS = 5
_SHOWN_NOTES = 10
PER_PAGE_MAX = 50
"""The most pages whose table ``ek evaluate`` prints by default (``--per-page`` prints it for any number)."""
_DIRECTIONS: dict[object, str] = {True: "higher is better", False: "lower is better"}


@dataclass(frozen=True)
class Outcome:
    """What a command prints and how it exits; ``ek.__main__`` writes it out."""

    stdout: str = ""
    stderr: str = ""
    exit_code: int = 0


def direction(higher_is_better: object, *, unknown: str = "") -> str:
    """``higher is better`` or ``lower is better``; ``unknown`` when the metric declares no direction."""
    return _DIRECTIONS.get(higher_is_better, unknown)


def number(x: Any, *, signed: bool = False) -> str:
    """A figure with four decimals (``-`` for None, ``nan`` for NaN)."""
    if x is None:
        return "-"
    if isinstance(x, float) and math.isnan(x):
        return "nan"
    if abs(x) >= 1000:
        return f"{x:+.6g}" if signed else f"{x:.6g}"
    return f"{x:+.4f}" if signed else f"{x:.4f}"


def interval(bounds: Iterable[float] | None, *, signed: bool = False, n: int | None = None) -> str:
    """``[low, high]``; ``-`` for None; for a NaN interval (too few items for one, see `ek.Report.interval`)
    ``needs more items (n=K)`` given the count ``n``, else ``needs 40+ items``."""
    if bounds is None:
        return "-"
    low, high = bounds
    if _nan(low) and _nan(high):
        from ek._bootstrap import MIN_ITEMS

        return f"needs more items (n={n})" if n is not None else f"needs {MIN_ITEMS}+ items"
    return f"[{number(low, signed=signed)}, {number(high, signed=signed)}]"


@dataclass(frozen=True)
class Verdicts:
    """Whether each printed interval can be trusted: `ek.Report.bounds` of the figure and of every slice."""

    overall: Any  # ek.base.Bounds
    per_slice: Mapping[object, Any]

    def lines(self, *, what: str = "interval") -> list[str]:
        """``unreliable interval (all): <why>``, one line for each flagged interval that has bounds."""
        groups = [("all", self.overall), *((str(k), b) for k, b in self.per_slice.items())]
        return [f"unreliable {what} ({name}): {b.why}" for name, b in groups if _flagged(b)]


def verdicts(report: Any, level: float) -> Verdicts:
    """The `Verdicts` of ``report`` at ``level`` (its replicate sums are made already: nothing is resampled twice)."""
    return Verdicts(report.bounds(level), {label: report.bounds(level, slice=label) for label in report.per_slice})


def verdict_fields(bounds: Any) -> dict[str, Any]:
    """The JSON keys of one interval's verdict: ``reliable``, ``why``, ``effective_n`` (None when unknown)."""
    n = bounds.effective_n
    return {"reliable": bounds.reliable, "why": bounds.why, "effective_n": None if _nan(n) else round(n, 1)}


def flagged_interval(text: str, bounds: Any) -> str:
    """An interval cell, marked ``(unreliable)`` when it has bounds that cannot be trusted."""
    return f"{text} (unreliable)" if bounds is not None and _flagged(bounds) else text


def _flagged(bounds: Any) -> bool:
    return not bounds.reliable and bounds.why is not None and not _nan(bounds.low)


def table(header: list[str], rows: list[list[str]]) -> str:
    """A plain-text table; cells are already strings."""
    return format_table(header, rows)


def ids_line(what: str, ids: tuple[object, ...], note: str) -> str:
    """``missing: 2 gold ids without a prediction (scored as empty): 'a', 'b'``."""
    return f"{what}: {len(ids)} {note}" + (f": {shown_ids(ids)}" if ids else "")


def left_out_words(errors: list[Any]) -> str:
    """``; 1 more left out: its document could not be read (see failed)``, or "" when every document was read.

    Said on the missing line, so "missing: 0" never reads as "every gold id was scored".
    """
    ids = {(e.get("id") if isinstance(e, dict) else e) for e in errors}
    if not ids:
        return ""
    its = "its document" if len(ids) == 1 else "their documents"
    return f"; {len(ids)} more left out: {its} could not be read (see failed)"


def shown_ids(ids: tuple[object, ...]) -> str:
    """``'a', 'b', ...``: the first few ids, quoted."""
    return ", ".join(map(repr, ids[:_SHOWN_IDS])) + (", ..." if len(ids) > _SHOWN_IDS else "")


def settings_line(meta: Meta) -> str:
    """``settings: normalize nfc | text level line | profile none``: how documents were read and compared."""
    settings = meta["settings"]
    level = describe_fallbacks(
        describe_text_level(meta.get("text_level") or settings.get("text_level")), meta.get("fallbacks") or []
    )
    return (
        f"settings: normalize {settings.get('normalize') or 'none'} | text level {level} | "
        f"profile {settings.get('profile') or 'none'}"
    )


def problem_lines(meta: Meta) -> list[str]:
    """The regions whose levels disagree, the documents that failed to read, the files skipped and the notes (or nothing)."""
    lines = []
    errors, skipped = meta.get("errors") or [], meta.get("skipped") or []
    if meta.get("level_disagreements"):  # the text read may not be the text meant: say so before anything else
        lines.append("levels: " + describe_level_disagreements(meta.get("level_disagreements") or []))
    if errors:
        lines.append(f"failed: {len(errors)} document{'s' if len(errors) != 1 else ''} could not be read (left out):")
        lines += [f"  {e['message']}" for e in errors]
    if skipped:  # skips are expected (another engine's files): a few shown, all of them in --json and --html
        lines.append(f"skipped: {len(skipped)} file{'s' if len(skipped) != 1 else ''} not read:")
        lines += [f"  {s['path']}: {s['reason']}" for s in skipped[:_SHOWN_SKIPS]]
        if len(skipped) > _SHOWN_SKIPS:
            lines.append(f"  ... and {len(skipped) - _SHOWN_SKIPS} more (every one is listed by --json and --html)")
    return lines + note_lines(meta)


def per_page_lines(rows: list[dict[str, Any]] | None, show: bool | None = None) -> list[str]:
    """The per-page table (page, CER, WER, gold characters; rows already worst first), after a blank line.

    ``show`` None prints it for 2 to `PER_PAGE_MAX` pages (one page is the
    corpus line itself; more would bury the summary), True for any number,
    False never.
    """
    if not rows or show is False or (show is None and not 2 <= len(rows) <= PER_PAGE_MAX):
        return []
    cells = [
        [str(r["id"]), number(r["cer"]), number(r["wer"]), "-" if r["chars"] is None else str(r["chars"])] for r in rows
    ]
    return ["", f"per page, worst first ({len(rows)} pages):", table(["page", "cer", "wer", "chars"], cells)]


def note_lines(meta: Meta) -> list[str]:
    """One ``note: FILE: NOTE`` line per file scored with a note (an empty prediction), the first few shown."""
    notes = meta.get("notes") or []
    lines = [f"note: {n['path']}: {n['note']}" for n in notes[:_SHOWN_NOTES]]
    if len(notes) > _SHOWN_NOTES:
        lines.append(f"note: ... and {len(notes) - _SHOWN_NOTES} more (every one is listed by --json)")
    return lines


def measure_lines(documents: Mapping[str, Any]) -> list[str]:
    """``measures: cer 0.0500, ...``, the pages FCA left out, and the reading-order warning (each when present)."""
    measures = documents.get("measures")
    if not measures:
        return []  # records, not documents: the page's package stays unloaded
    from ek.cli._html._measures import left_out_text, reading_order_text  # one wording for terminal and page

    lines = ["measures: " + ", ".join(f"{k} {number(v)}" for k, v in measures.items())]
    lines += [f"note: {text}." for text in (left_out_text(documents),) if text]
    lines += [f"warning: {text}" for text in (reading_order_text(documents),) if text]
    return lines


def _nan(x: object) -> bool:
    return isinstance(x, float) and math.isnan(x)
