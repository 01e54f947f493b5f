"""Score OCR output files against ground-truth files: rates, confusions and confidence calibration.

`evaluate_files` takes GOLD and PRED as two documents or two folders of
documents paired by name (PAGE-XML, ALTO, hOCR, ABBYY FineReader or text, see
`ek.ocr.formats`; record files such as JSONL work too) and returns a
`Report` of the chosen metric. Both sides are normalised with NFC first
(``normalize="nfc"``), so an NFD and an NFC encoding of the same page
score 0. The report's ``detail`` also holds:

* ``missing`` / ``extra``: gold ids without a prediction (scored as an
  empty reading) and predictions without gold (ignored); ``errors``: the
  files that failed to read, ``{"gold": {id: message}, "pred": {...}}``.
* ``measures``: the corpus value of each measure in ``measures=`` (CER,
  WER, flexible character accuracy, bag-of-words error by default), so a
  reading-order problem shows as a bad CER next to a good FCA. FCA is
  computed only on pages of at most ``fca_max_chars`` gold characters
  (`FCA_MAX_CHARS`, 20,000, by default; None for every page), its figure
  summing the pages it covers; ``measures_left_out`` names the others,
  ``{"fca": {"ids": [...], "max_chars": 20000, "cer": CER of the pages
  covered}}`` ({} when none is left out, or no FCA at all when every page
  is). ``document_mean``: the mean of the per-document CER and WER (the corpus
  figure dinglehopper reports; ek's own corpus figure sums edits first);
  ``per_page``: each document's ``{id, cer, wer, chars}`` (``chars`` the
  gold length the CER divides by), worst first.
* ``confusions``: the most frequent substitutions, dropped and inserted
  characters (``"char"``) and words (``"word"``) over the corpus, and
  ``per_file`` the same per id; rows are ``{kind, gold, pred, count}``.
  They come from one alignment (`ek._align`), line by line.
* ``calibration``: when PRED carries word confidences, their calibration
  against word correctness: ``n`` words, ``ece`` and the reliability
  ``curve`` (`ek.qe.calibrate`); None without confidences.
* the settings used: ``profile``, ``normalize`` (the canonicalizer's
  version, e.g. ``"nfc"``, or None), ``segment``, ``words`` and
  ``text_level`` (the level every document was read at; when they differ,
  ``{"gold": ..., "pred": ...}`` with each side's level, or its counts
  ``{level: documents}``; None for plain text and records), and
  ``fallbacks``: each region read at another level than its document's, as
  ``{side, id, region, level}`` (a region with no text at the level read),
  and ``level_disagreements``: each PAGE region whose text at the level read
  differs from its text at another, as ``{side, id, region, level,
  other_level, cer}`` (after NFC and whitespace collapsing; see
  `ek.ocr.formats`).

**Words.** ``words="whitespace"`` (the default, as jiwer) cuts WER, the
word confusions and the bag of words at whitespace; ``words="unicode"`` at
Unicode word boundaries without the punctuation (``"dog."`` is the word
``dog``), as dinglehopper does.

**profile="dinglehopper"** gives the figures dinglehopper 0.11 reports on
the same pair: the text extracted by its rules (PAGE at region level unless
``text_level`` says otherwise), its normalisation (the ``"dinglehopper"``
step of `ek.canonicalize`), CER over grapheme clusters counting the
whitespace at the ends, WER over its Unicode words. Per pair the CER and
WER equal dinglehopper's, except that an empty reference scores the number
of inserted units (ek's rule) where dinglehopper gives infinity.
``normalize``, ``segment`` and ``words`` set to something else than the
profile's values is an error.

**Private-use characters** (U+E000-U+F8FF, planes 15 and 16) that are
still in the texts after normalisation compare as themselves: a UserWarning
names them (once per call); ``normalize=["nfc", "mufi"]`` or the profile
maps the MUFI characters of dinglehopper's tables.

>>> import os, tempfile
>>> d = tempfile.mkdtemp()
>>> for side, text in (("gold", "The cat sat"), ("pred", "The cut sat")):
...     os.mkdir(os.path.join(d, side))
...     with open(os.path.join(d, side, "p1.txt"), "w") as f:
...         _ = f.write(text)
>>> r = evaluate_files(os.path.join(d, "gold"), os.path.join(d, "pred"))
>>> round(r.aggregate, 3), r.detail["confusions"]["char"]
(0.091, [{'kind': 'substitution', 'gold': 'a', 'pred': 'u', 'count': 1}])
>>> r.detail["normalize"], r.detail["document_mean"]
('nfc', {'cer': 0.09090909090909091, 'wer': 0.3333333333333333})
"""

from __future__ import annotations

import dataclasses
import math
import os
import warnings
from collections import Counter
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any, Protocol

from ek import _align
from ek._reading import ReadOptions
from ek.base import Report
from ek.canonicalize import Steps, resolve_canonicalizer
from ek.facade import evaluate
from ek.ocr import _settings
from ek.ocr._calibration import calibration_figures, word_outcomes
from ek.ocr._settings import CODEPOINT, NFC, WHITESPACE, Settings

__all__ = ["evaluate_files", "evaluate_joined"]


class JoinedDocument(Protocol):
    """What `evaluate_joined` reads of one side's document (a PAGE-XML, ALTO or hOCR file read by the CLI).

    ``words`` in reading order, ``word_confidences`` parallel to them (None where the file gives none),
    ``text_level`` the level the text was read at (``""`` for plain text).
    """

    @property
    def text_level(self) -> str: ...
    @property
    def words(self) -> Sequence[str]: ...
    @property
    def word_confidences(self) -> Sequence[float | None]: ...


class Joined(Protocol):
    """What `evaluate_joined` reads of a GOLD/PRED pairing (the command line's readers build one).

    ``golds``, ``preds`` and ``slices`` (None when gold has no slice field)
    run parallel to ``ids``; ``missing`` / ``extra`` are ids on one side
    only, ``gold_errors`` / ``pred_errors`` map an id to why its document
    could not be read, and ``documents`` maps an id to its ``(gold, pred)``
    documents (None where a side is not a document); ``fallbacks()`` the
    regions read at another text level than their document's.
    """

    @property
    def ids(self) -> tuple[str, ...]: ...
    @property
    def golds(self) -> tuple[object, ...]: ...
    @property
    def preds(self) -> tuple[object, ...]: ...
    @property
    def slices(self) -> tuple[Hashable, ...] | None: ...
    @property
    def missing(self) -> tuple[str, ...]: ...
    @property
    def extra(self) -> tuple[str, ...]: ...
    @property
    def gold_errors(self) -> Mapping[str, str]: ...
    @property
    def pred_errors(self) -> Mapping[str, str]: ...
    @property
    def documents(self) -> Mapping[str, tuple[JoinedDocument | None, JoinedDocument | None]]: ...
    def fallbacks(self) -> list[tuple[str, str, str, str]]:
        """``(side, id, region, level)`` for each region read at another text level than its document's."""
        ...

    def level_disagreements(self) -> list[tuple[str, str, str, str, str, float]]:
        """``(side, id, region, level read, other level, CER)`` for each region whose two levels differ."""
        ...


DEFAULT_MEASURES = ("cer", "wer", "fca", "bow")

FCA_MAX_CHARS = 20_000
"""The largest page FCA is computed on by default (``fca_max_chars``): its gold text's characters, line breaks too.

FCA costs about five times what CER does: some 0.1 s on a page of 20,000
characters, 0.35 s on 67,000 (dinglehopper's ``bigger-texts``)."""


def evaluate_files(
    gold: str | os.PathLike[str],
    pred: str | os.PathLike[str],
    *,
    metric: str = "cer",
    segment: str | None = CODEPOINT,
    normalize: Steps | None = NFC,
    text_level: str | None = None,
    pick: str = "index",
    profile: str | None = None,
    words: str | None = WHITESPACE,
    measures: Sequence[str] = DEFAULT_MEASURES,
    fca_max_chars: int | None = FCA_MAX_CHARS,
    n_confusions: int = 20,
    n_bins: int | None = None,
    keep_going: bool = False,
    gold_suffix: str | None = None,
    pred_suffix: str | None = None,
    pred_format: str | None = None,
    level: str | None = None,
    read: ReadOptions | None = None,
) -> Report:
    """Score OCR files in PRED against GOLD (CER by default; lower is better).

    Args:
        gold, pred: two documents, or two folders of documents paired by
            name (``NAME.gt.txt`` / ``NAME.txt`` / ``NAME.xml`` ...).
        metric: the headline metric: ``"cer"``, ``"wer"``, ``"fca"``,
            ``"bow"`` or another registered text metric.
        segment: ``"codepoint"`` or ``"grapheme"``: the unit of CER (and of
            the character confusions); None is the default.
        normalize: a canonicalizer (step names, a callable, ...) applied to
            both sides first; ``"nfc"`` by default, None for none; e.g.
            ``["nfc", "long_s"]``.
        text_level: which text of a PAGE/ALTO/hOCR file is read:
            ``"region"``, ``"line"``, ``"word"``, ``"glyph"`` or None (see
            `ek.ocr.formats.read_document`); ``pick`` which ``TextEquiv``.
        profile: None (ek's rules) or ``"dinglehopper"`` (its figures; see
            the module doc).
        words: ``"whitespace"`` or ``"unicode"``: how WER, the word
            confusions and the bag of words cut words; None is the default.
        measures: metrics whose corpus values go in ``detail["measures"]``.
        fca_max_chars: the measure ``"fca"`` is computed on the pages of at
            most this many gold characters (None: on every page); the pages
            left out are in ``detail["measures_left_out"]`` (see the module
            doc). The headline metric is always computed on every page.
        n_confusions: how many rows each confusion table keeps.
        n_bins: bins of the confidence reliability curve (None: the default
            of `ek.qe.calibrate`, which loads only when a file has confidences).
        keep_going: score the documents that could be read, leaving out those
            that could not (listed in ``detail["errors"]``); by default any
            unreadable document is an error.
        gold_suffix, pred_suffix, pred_format: how folders pair, as the
            options of ``ek evaluate`` (see `ek._files`): e.g.
            ``gold_suffix=".gt.txt", pred_suffix=".tess.txt"``, or
            ``pred_format="hocr"`` when a folder holds several outputs per page.
        level: deprecated name of ``text_level``.
        read: the reading options as one `ek.ocr.ReadOptions` value instead of the
            keywords ``text_level``, ``pick``, ``profile``, ``gold_suffix``,
            ``pred_suffix`` and ``pred_format`` (passing both is refused); its
            other fields (``max_file_mb``, ...) have no keyword here.

    Raises:
        ValueError: a side cannot be read (the message names the file), a
            document that cannot be read (unless ``keep_going``),
            ``segment="grapheme"`` with a metric that has no grapheme form,
            an unknown profile, or settings that contradict the profile.
    """
    from ek._files import (  # the readers and their parsers load on first use
        read_options_of,
        read_pair,
        refuse_failures,
    )

    text_level = _settings.text_level(text_level, level)
    options = read_options_of("evaluate_files", locals())
    settings = _settings.resolve(options.profile, normalize, segment, words)  # refuse bad settings before reading
    joined = read_pair(gold, pred, read=dataclasses.replace(options, profile=settings.profile))
    measured = _Measured(tuple(measures), fca_max_chars)
    return _evaluate(refuse_failures(joined, keep_going=keep_going), metric, settings, measured, n_confusions, n_bins)


def evaluate_joined(
    joined: Joined,
    *,
    metric: str = "cer",
    segment: str | None = CODEPOINT,
    normalize: Steps | None = NFC,
    profile: str | None = None,
    words: str | None = WHITESPACE,
    measures: Sequence[str] = DEFAULT_MEASURES,
    fca_max_chars: int | None = FCA_MAX_CHARS,
    n_confusions: int = 20,
    n_bins: int | None = None,
) -> Report:
    """`evaluate_files` on GOLD and PRED already read and joined by ``ek._files`` (as ``ek evaluate`` reads them).

    The report's items carry the joined ids (``detail["ids"]``), so its
    `ek.Report.interval` resamples documents by name.
    """
    settings = _settings.resolve(profile, normalize, segment, words)
    return _evaluate(joined, metric, settings, _Measured(tuple(measures), fca_max_chars), n_confusions, n_bins)


def canonicalizer_for(profile: str | None = None, *, normalize: Steps | None = None) -> Callable[[str], str] | None:
    """The normalisation `evaluate_files` applies to both sides with ``profile`` and ``normalize``.

    ``normalize=None`` means the option left out: NFC, or the profile's own normalisation;
    ValueError for an unknown profile or steps that contradict it.
    """
    settings = _settings.resolve(profile, NFC if normalize is None else normalize, None, None)
    canon: Callable[[str], str] | None = resolve_canonicalizer(settings.normalize)
    return canon


def confusions_by_item(
    ids: Sequence[Hashable],
    preds: Sequence[object],
    golds: Sequence[object],
    canon: Callable[[str], str] | None,
    unit: str,
    n: int,
    *,
    words: str = "whitespace",
) -> tuple[dict[Hashable, dict[str, list[dict[str, object]]]], dict[str, Counter[tuple[str, str]]]]:
    """Per-item confusion tables (top ``n``) and corpus counters, for characters (``unit``) and words.

    Texts are aligned line by line when both sides have lines (see
    `ek._align.align_lines`); ``words`` says how words are cut.
    """
    per_file: dict[Hashable, dict[str, list[dict[str, object]]]] = {}
    totals: dict[str, Counter[tuple[str, str]]] = {"char": Counter(), "word": Counter()}
    word_unit = "unicode_word" if words == "unicode" else "word"
    for i, p, g in zip(ids, preds, golds):
        p_lines, g_lines = _lines(p, canon), _lines(g, canon)
        tables = {}
        for key, u in (("char", unit), ("word", word_unit)):
            ops = [op for _, _, line_ops in _align.align_lines(p_lines, g_lines, unit=u) for op in line_ops]
            counts = _align.confusions(ops)
            totals[key].update(counts)
            tables[key] = _align.confusion_table(counts, n=n)
        per_file[i] = tables
    return per_file, totals


# ---------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class _Measured:
    """The measures asked for, and the largest page FCA is computed on (None: every page)."""

    names: tuple[str, ...]
    fca_max_chars: int | None


def _evaluate(
    joined: Joined, metric: str, settings: Settings, measured: _Measured, n_confusions: int, n_bins: int | None
) -> Report:
    canon = resolve_canonicalizer(settings.normalize)
    head = settings.metric(metric, headline=True)
    golds, preds = _canonical(joined.golds, canon), _canonical(joined.preds, canon)
    _warn_private_use(golds + preds)
    cases = list(zip(preds, golds)) if joined.slices is None else list(zip(preds, golds, joined.slices))
    report = evaluate(cases, metric=head, ids=joined.ids)
    reports = {head: report}
    large = _too_large_for_fca(measured, golds, head)
    for m in {*measured.names, "cer", "wer"}:
        chosen = settings.metric(m)
        kept = [c for k, c in enumerate(cases) if k not in large] if m == "fca" else cases
        if chosen not in reports and kept:
            reports[chosen] = evaluate(kept, metric=chosen)
    unit = "grapheme" if settings.segment == "grapheme" else "char"
    per_file, totals = confusions_by_item(
        joined.ids, joined.preds, joined.golds, canon, unit, n_confusions, words=settings.words
    )
    detail = {
        **report.detail,
        "missing": joined.missing,
        "extra": joined.extra,
        "errors": {"gold": dict(joined.gold_errors), "pred": dict(joined.pred_errors)},
        "measures": {m: reports[c].aggregate for m in measured.names if (c := settings.metric(m)) in reports},
        "measures_left_out": _left_out(large, measured, joined.ids, settings.metric("cer"), reports),
        "document_mean": {m: _mean(reports[settings.metric(m)]) for m in ("cer", "wer")},
        "confusions": {u: _align.confusion_table(c, n=n_confusions) for u, c in totals.items()},
        "per_file": per_file,
        "per_page": _per_page(joined.ids, reports[settings.metric("cer")], reports[settings.metric("wer")]),
        "calibration": _calibration(joined, canon, n_bins),
        **settings.detail(canon),
        "text_level": _text_level(joined),
        "fallbacks": [dict(zip(("side", "id", "region", "level"), f)) for f in joined.fallbacks()],
        "level_disagreements": [
            dict(zip(("side", "id", "region", "level", "other_level", "cer"), d)) for d in joined.level_disagreements()
        ],
    }
    return dataclasses.replace(report, detail=detail)


def _too_large_for_fca(measured: _Measured, golds: Sequence[Any], head: Any) -> set[int]:
    """The documents FCA is not computed on: over ``fca_max_chars`` gold characters (none for a headline FCA)."""
    limit = measured.fca_max_chars
    if "fca" not in measured.names or limit is None or getattr(head, "name", head) == "fca":
        return set()
    return {k for k, g in enumerate(golds) if isinstance(g, str) and len(g) > limit}


def _left_out(
    large: set[int], measured: _Measured, ids: Sequence[Hashable], cer: Any, reports: Mapping[Any, Report]
) -> dict[str, Any]:
    """``{"fca": {ids, max_chars, cer}}`` for the documents FCA left out (``cer``: that of the others); {} for none."""
    if not large:
        return {}
    rest = [s for k, s in enumerate(reports[cer].scores) if k not in large]
    cer_rest = cer.aggregate(rest) if rest else None  # what FCA's figure is set against (the reading-order note)
    return {"fca": {"ids": [ids[k] for k in sorted(large)], "max_chars": measured.fca_max_chars, "cer": cer_rest}}


def _canonical(values: Sequence[Any], canon: Callable[[str], str] | None) -> tuple[Any, ...]:
    if canon is None:
        return tuple(values)
    return tuple(canon(v) if isinstance(v, str) else v for v in values)


def _per_page(ids: Sequence[Hashable], cer: Report, wer: Report) -> list[dict[str, Any]]:
    """Each document's CER, WER and gold length (``chars``, the CER's reference length), worst first.

    Worst is the highest CER, then the highest WER (a NaN, which no figure
    here should be, sorts last); ties keep the gold order.
    """
    rows = [
        {"id": i, "cer": c.value, "wer": w.value, "chars": c.detail.get("ref_len")}
        for i, c, w in zip(ids, cer.scores, wer.scores)
    ]
    return sorted(rows, key=lambda r: tuple(-v if v == v else math.inf for v in (r["cer"], r["wer"])))


def _mean(report: Report) -> float | None:
    """The mean of the per-document values (each empty reference by ek's rule); None for no documents."""
    return sum(s.value for s in report.scores) / report.n if report.n else None


def _text_level(joined: Joined) -> Any:
    """The level every PAGE/ALTO/hOCR document was read at, or per side (``{"gold": ..., "pred": ...}``).

    One string when every document of both sides was read at one level; else
    each side's level, or its counts ``{level: documents}`` when its documents
    differ (None for a side of plain text only). Plain text has no level.
    """
    sides = [
        Counter(doc.text_level for pair in joined.documents.values() if (doc := pair[k]) is not None and doc.text_level)
        for k in (0, 1)
    ]  # "" for plain text
    every = sides[0] + sides[1]
    if not every:
        return None
    if len(every) == 1:
        return next(iter(every))
    return {
        side: (None if not c else next(iter(c)) if len(c) == 1 else dict(c)) for side, c in zip(("gold", "pred"), sides)
    }


def _warn_private_use(texts: Sequence[Any]) -> None:
    """One UserWarning naming the private-use characters left in ``texts``, if any."""
    found: set[Any] = set()
    for text in texts:
        if isinstance(text, str) and _settings.PRIVATE_USE.search(text):
            found.update(_settings.PRIVATE_USE.findall(text))
    if not found:
        return
    chars = sorted(found)
    named = ", ".join(f"U+{ord(c):04X} {c!r}" for c in chars[:5]) + (
        f" and {len(chars) - 5} more" if len(chars) > 5 else ""
    )
    if any(_settings.maps_mufi(c) for c in chars):
        fix = (
            'Pass normalize=[..., "mufi"] or profile="dinglehopper" to map the MUFI characters among them to the '
            "letters they stand for"
        )
    else:
        fix = "No ek step maps these; add a str -> str step to normalize= that does, if the gold spells them out"
    warnings.warn(
        f"the texts hold private-use characters that no normalisation step maps ({named}); they compare as "
        f"themselves, so a reading of the letters they stand for counts as errors. {fix}.",
        UserWarning,
        stacklevel=4,  # the caller of evaluate_files / evaluate_joined
    )


def _lines(text: object, canon: Callable[[str], str] | None) -> list[str]:
    lines = text.splitlines() if isinstance(text, str) else []
    return [canon(line) for line in lines] if canon is not None else lines


def _calibration(joined: Joined, canon: Any, n_bins: int | None) -> dict[str, Any] | None:
    """ECE and reliability curve of the prediction's word confidences against word correctness."""
    probs: list[Any] = []
    correct: list[Any] = []
    for i, g in zip(joined.ids, joined.golds):
        doc = joined.documents.get(i, (None, None))[1]
        if doc is None or all(c is None for c in doc.word_confidences):
            continue
        units = [
            (piece, c)
            for w, c in zip(doc.words, doc.word_confidences)
            for piece in (canon(w) if canon is not None else w).split()
        ]
        gold_words = " ".join(_lines(g, canon))
        outcomes = word_outcomes(_align.align(" ".join(w for w, _ in units), gold_words, unit="word"))
        for (_, c), ok in zip(units, outcomes):
            if c is not None:
                probs.append(c)
                correct.append(ok)
    if not probs:
        return None
    return calibration_figures(probs, correct, n_bins)
