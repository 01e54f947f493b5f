"""The HTML report behind ``ek evaluate --html`` and ``ek compare --html``: data in, one page out.

A pure renderer. The CLI turns a report into a plain dict, `render_evaluate` or
`render_compare` turns the dict into one self-contained HTML string, and `write_page`
saves it. The page needs nothing else: styles and the small table-sorting script are
inline, charts are SVG drawn here in Python, and a Content-Security-Policy forbids every
fetch, so the file opens from ``file://`` offline. Every string from the data (ids, texts,
slice labels, metric names) is escaped, and characters a reader cannot see (bidi
controls, joiners, private-use MUFI letters, combining marks without a letter) are drawn
as code-point boxes (`ek.cli._html._chars`), never raw. Only the standard library is used
(plus `ek._align`, on rapidfuzz, a core dependency, for the diffs, and the ``regex``
package for UAX #29 grapheme clusters when it is installed), so the ``report`` extra is
empty.

The evaluate page data (any key but ``metric`` and ``aggregate`` may be absent or None)::

    {"title": str, "metric": "cer", "higher_is_better": False, "percent": bool,
     "aggregate": 0.0312, "interval": [low, high], "level": 0.95, "n": 1000,
     "missing": [gold ids without a prediction], "extra": [prediction ids without gold],
     "per_slice": {label: {"aggregate": float, "interval": [low, high], "n": int}},
     "items": [{"id": str, "slice": str, "value": float,
                "gold": str, "pred": str,                    # the texts behind the diff
                "ops": [[tag, gold_segment, pred_segment], ...],   # tag: equal/replace/delete/insert
                "unit": "char" | "word",
                "statistics": {name: number}}, ...],
     "confusions": [{"kind": "substitution" | "deletion" | "insertion",
                     "gold": str, "pred": str, "count": int}, ...],
     "fields": {name: {"precision", "recall", "f1": float, "tp", "fp", "fn": int}},
     "measures": {"cer": 0.05, "wer": ..., "fca": ..., "bow": ...},   # OCR documents
     "noun": "documents" | "items"}                    # what n counts (default "items")

Both pages also take the provenance keys of `ek.cli._html._provenance` (``inputs``,
``settings``, ``text_level``, ``ek_version``, ``date``, ``errors``, ``skipped``): the
header names the version and date, a section lists inputs and settings, another the
files that failed to read or were skipped. An interval with NaN bounds, or of a single
item, is shown as "an interval needs more items (n=1)", never as a zero-width bar; slice
tables start with an "all" row for the whole corpus, which stays first when sorting. With
``measures``, a small table sits under the headline, and a note when CER and FCA
disagree so strongly that the reading orders probably differ (`ek.cli._html._measures`).

``percent`` (default: the ``percent`` the registered metric of that name declares, see
`ek.base.MetricContract`: cer, wer, fields, anls, ...) shows values as percentages. ``ops`` are those of ``ek._align.align(pred, gold, unit=...)`` on the text the figure
compared, in its unit (the CLI's are), so each op but ``equal`` is one edit of the figure;
character ops are drawn by grapheme cluster without aligning again, and each diff's
``data-edits`` (and a mark's, where it stands for several) counts them. Without ``ops`` an
item with both texts is aligned on the page by cluster, and without ``confusions`` they are
counted from the items' ``ops``. The worst items are the largest values, or the smallest
when ``higher_is_better``.

The compare page data (``metric``, ``a``, ``b`` and ``delta`` are required)::

    {"title", "metric", "higher_is_better", "percent", "level", "n",
     "a": {"name": str, "aggregate": float, "interval": [low, high]}, "b": {...},
     "delta": float (B - A), "interval": [low, high] (paired, of the delta),
     "p_value": float, "verdict": "better" | "worse" | "no detectable difference" | any text,
     "per_slice": {label: {"a", "b", "delta": float, "interval": [low, high],
                           "p_value": float, "verdict": str, "n": int}},
     "items": [{"id", "slice", "a", "b", "delta", "gold", "pred_a", "pred_b",
                "ops_a", "ops_b", "unit"}, ...]}

The ``ek estimate`` page (`render_estimate`) takes the ``--json`` report of ``ek estimate``
and draws the prediction-powered, classical and plug-in figures side by side
(`ek.cli._html._estimate`).

On both pages the element ``#headline-value`` holds the headline figure (the aggregate;
the difference B - A on the compare page) with its exact ``repr`` in ``data-value``.

>>> html = render_evaluate({"metric": "cer", "aggregate": 0.25, "n": 2, "items": [
...     {"id": "a", "value": 0.5, "gold": "cat", "pred": "cut"}]})
>>> 'id="headline-value" data-value="0.25"' in html, "<del>a</del><ins>u</ins>" in html
(True, True)
"""

from __future__ import annotations

from pathlib import Path

from ek.cli._html._compare import render_compare
from ek.cli._html._estimate import render_estimate
from ek.cli._html._evaluate import render_evaluate

__all__ = ["render_compare", "render_estimate", "render_evaluate", "write_page"]


def write_page(path: str | Path, html: str) -> Path:
    """Write ``html`` to ``path`` as UTF-8 (creating missing folders) and return the path."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(html, encoding="utf-8")
    return target
