"""Score OCR output files against ground-truth files: rates, confusions and confidence calibration.

`evaluate_files` takes GOLD and PRED as two documents or two folders of
documents paired by name (PAGE-XML, ALTO, hOCR or text, see
`ek.ocr.formats`; record files such as JSONL work too) and returns a
`Report` of the chosen metric, whose ``detail`` also holds:

* ``missing`` / ``extra``: gold ids without a prediction (scored as an
  empty reading) and predictions without gold (ignored); ``errors``: the
  files that failed to read, ``{"gold": {id: message}, "pred": {...}}``.
* ``measures``: the corpus value of each measure in ``measures=`` (CER,
  WER, flexible character accuracy, bag-of-words error by default), so a
  reading-order problem shows as a bad CER next to a good FCA.
* ``confusions``: the most frequent substitutions, dropped and inserted
  characters (``"char"``) and words (``"word"``) over the corpus, and
  ``per_file`` the same per id; rows are ``{kind, gold, pred, count}``.
  They come from one alignment (`ek._align`), line by line.
* ``calibration``: when PRED carries word confidences, their calibration
  against word correctness: ``n`` words, ``ece`` and the reliability
  ``curve`` (`ek.qe.calibrate`); None without confidences.

>>> import os, tempfile
>>> d = tempfile.mkdtemp()
>>> for side, text in (("gold", "The cat sat"), ("pred", "The cut sat")):
...     os.mkdir(os.path.join(d, side))
...     with open(os.path.join(d, side, "p1.txt"), "w") as f:
...         _ = f.write(text)
>>> r = evaluate_files(os.path.join(d, "gold"), os.path.join(d, "pred"))
>>> round(r.aggregate, 3), r.detail["confusions"]["char"]
(0.091, [{'kind': 'substitution', 'gold': 'a', 'pred': 'u', 'count': 1}])
"""

from __future__ import annotations

import dataclasses
import os
from collections import Counter
from typing import TYPE_CHECKING, Any, Callable, Optional, Sequence, Union

from ek import _align
from ek.base import Report
from ek.canonicalize import resolve_canonicalizer
from ek.facade import evaluate

if TYPE_CHECKING:
    from ek._files import Joined

__all__ = ["evaluate_files", "evaluate_joined"]

DEFAULT_MEASURES = ("cer", "wer", "fca", "bow")


def evaluate_files(
    gold: Union[str, os.PathLike],
    pred: Union[str, os.PathLike],
    *,
    metric: str = "cer",
    segment: str = "codepoint",
    normalize: Any = None,
    level: str = "line",
    pick: str = "index",
    measures: Sequence[str] = DEFAULT_MEASURES,
    n_confusions: int = 20,
    n_bins: Optional[int] = None,
) -> Report:
    """Score OCR files in PRED against GOLD (CER by default; lower is better).

    Args:
        gold, pred: two documents, or two folders of documents paired by
            name (``NAME.gt.txt`` / ``NAME.txt`` / ``NAME.xml`` ...).
        metric: the headline metric: ``"cer"``, ``"wer"``, ``"fca"``,
            ``"bow"`` or another registered text metric.
        segment: ``"codepoint"`` or ``"grapheme"``: the unit of CER (and of
            every character measure and the character confusions).
        normalize: a canonicalizer (step names, a callable, ...) applied to
            both sides first, e.g. ``["nfc", "long_s"]``.
        level, pick: how PAGE text is read (see `ek.ocr.formats.read_document`).
        measures: metrics whose corpus values go in ``detail["measures"]``.
        n_confusions: how many rows each confusion table keeps.
        n_bins: bins of the confidence reliability curve (None: the default
            of `ek.qe.calibrate`, which loads only when a file has confidences).

    Raises:
        ValueError: a side cannot be read (the message names the file), or
            ``segment="grapheme"`` with a metric that has no grapheme form.
    """
    from ek._files import read_pair  # the readers and their parsers load on first use

    joined = read_pair(gold, pred, text_level=level, pick=pick)
    return evaluate_joined(joined, metric=metric, segment=segment, normalize=normalize, measures=measures,
                           n_confusions=n_confusions, n_bins=n_bins)


def evaluate_joined(
    joined: Joined,
    *,
    metric: str = "cer",
    segment: str = "codepoint",
    normalize: Any = None,
    measures: Sequence[str] = DEFAULT_MEASURES,
    n_confusions: int = 20,
    n_bins: Optional[int] = None,
) -> Report:
    """`evaluate_files` on GOLD and PRED already read and joined by ``ek._files`` (as ``ek evaluate`` reads them).

    The report's items carry the joined ids (``detail["ids"]``), so its
    `ek.Report.interval` resamples documents by name.
    """
    canon = resolve_canonicalizer(normalize)
    name = _with_segment(metric, segment)
    report = evaluate(joined.cases(), metric=name, normalize=normalize, ids=joined.ids)
    values = {}
    for m in measures:
        m_name = _with_segment(m, segment) if m == "cer" else m
        values[m] = report.aggregate if m_name == name else _corpus(joined, m_name, normalize)
    unit = "grapheme" if segment == "grapheme" else "char"
    per_file, totals = _confusions(joined, canon, unit, n_confusions)
    detail = {
        **report.detail,
        "missing": joined.missing,
        "extra": joined.extra,
        "errors": {"gold": dict(joined.gold_errors), "pred": dict(joined.pred_errors)},
        "measures": values,
        "confusions": {u: _align.confusion_table(c, n=n_confusions) for u, c in totals.items()},
        "per_file": per_file,
        "calibration": _calibration(joined, canon, n_bins),
    }
    return dataclasses.replace(report, detail=detail)


# ---------------------------------------------------------------------------


def _with_segment(metric: str, segment: str) -> str:
    if segment == "codepoint":
        return metric
    if segment == "grapheme" and metric in ("cer", "cer_grapheme"):
        return "cer_grapheme"
    raise ValueError(
        f"segment must be 'codepoint' or 'grapheme' (for metric 'cer'), got segment={segment!r} with "
        f"metric={metric!r}; grapheme clusters change only character error rates."
    )


def _corpus(joined: Joined, metric: str, normalize: Any) -> Optional[float]:
    return evaluate(joined.cases(), metric=metric, normalize=normalize).aggregate


def _lines(text: Any, canon: Optional[Callable[[str], str]]) -> list:
    lines = text.splitlines() if isinstance(text, str) else []
    return [canon(line) for line in lines] if canon is not None else lines


def _confusions(joined: Joined, canon, unit: str, n: int) -> tuple[dict, dict]:
    """Per-file confusion tables and corpus counters, for characters (``unit``) and words."""
    return confusions_by_item(joined.ids, joined.preds, joined.golds, canon, unit, n)


def confusions_by_item(ids: Sequence, preds: Sequence, golds: Sequence, canon: Optional[Callable[[str], str]],
                       unit: str, n: int) -> tuple[dict, dict]:
    """Per-item confusion tables (top ``n``) and corpus counters, for characters (``unit``) and words.

    Texts are aligned line by line when both sides have lines (see `ek._align.align_lines`).
    """
    per_file: dict = {}
    totals = {"char": Counter(), "word": Counter()}
    for i, p, g in zip(ids, preds, golds):
        p_lines, g_lines = _lines(p, canon), _lines(g, canon)
        tables = {}
        for key, u in (("char", unit), ("word", "word")):
            ops = [op for _, _, line_ops in _align.align_lines(p_lines, g_lines, unit=u) for op in line_ops]
            counts = _align.confusions(ops)
            totals[key].update(counts)
            tables[key] = _align.confusion_table(counts, n=n)
        per_file[i] = tables
    return per_file, totals


def _calibration(joined: Joined, canon, n_bins: Optional[int]) -> Optional[dict]:
    """ECE and reliability curve of the prediction's word confidences against word correctness."""
    probs: list = []
    correct: list = []
    for i, g in zip(joined.ids, joined.golds):
        doc = joined.documents.get(i, (None, None))[1]
        if doc is None or all(c is None for c in doc.word_confidences):
            continue
        units = [(piece, c) for w, c in zip(doc.words, doc.word_confidences)
                 for piece in (canon(w) if canon is not None else w).split()]
        gold_words = " ".join(_lines(g, canon))
        outcomes = _word_outcomes(_align.align(" ".join(w for w, _ in units), gold_words, unit="word"))
        for (_, c), ok in zip(units, outcomes):
            if c is not None:
                probs.append(c)
                correct.append(ok)
    if not probs:
        return None
    from ek.qe.calibrate import DEFAULT_N_BINS, expected_calibration_error, reliability_curve

    n_bins = DEFAULT_N_BINS if n_bins is None else n_bins
    return {
        "n": len(probs),
        "ece": expected_calibration_error(probs, correct, n_bins=n_bins),
        "curve": reliability_curve(probs, correct, n_bins=n_bins),
    }


def _word_outcomes(ops: list) -> list:
    """Whether each predicted word was read right, in order, from a word alignment."""
    out: list = []
    for op in ops:
        if op.tag == "equal":
            out.extend([True] * len(op.pred.split(" ")))
        elif op.tag != "delete":
            out.append(False)
    return out
