"""What a report says about its own run: inputs, settings, text level, ek version, date, failures, skips.

`run_meta` builds it once per command; the ``--json`` report carries its
keys at the top level, the ``--html`` page gets it as ``meta=``, and the
printed summary lists the same failures and skipped files, so the three
always agree on what was scored and what was not::

    {"inputs": {"gold": ..., "pred": ...},          # ek compare: gold, pred_a, pred_b
     "settings": {"metric", "normalize", "text_level", "profile", "words", "segment", "level"},
     "text_level": "line",                          # the level read, or {level: documents}
     "ek_version": "0.1.0", "date": "2026-12-01T10:15:00Z",
     "errors": [{"side", "path", "id", "message"}], "skipped": [{"path", "reason"}],
     "fallbacks": [{"side", "id", "region", "level"}],  # regions read at another level than text_level
     "notes": [{"id", "path", "note"}],               # e.g. an empty prediction, scored as all deletions
     "level_disagreements": [{"side", "id", "region", "level", "other_level", "cer"}],  # see below
     "warnings": ["..."]}  # the library's warnings so far, in flag words (`ek.cli._commands._warned`)

``settings["text_level"]`` is the level asked for (None: ek's default
rule); the top-level ``text_level`` is the one read, as the OCR report of
`ek.ocr.evaluate_joined` gives it (None for records). ``level_disagreements``
lists the PAGE regions whose text at the level read (``level``) differs from
their text at another (``other_level``), with the CER between the two after
NFC and whitespace collapsing (`ek._files._levels`).
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from ek._files import Failure, Joined, Skipped
from ek._version import __version__
from ek.canonicalize import Canonicalizer
from ek.cli._commands._inputs import Scored
from ek.cli._commands._options import Options
from ek.cli._commands._warned import so_far

if TYPE_CHECKING:
    from ek.cli._html._data import Fallback, LevelDisagreement, Meta, Note, ReadError, Skip

_Row = TypeVar("_Row")
EMPTY_PREDICTION = "empty prediction: scored as all deletions"


def run_meta(inputs: Mapping[str, str], options: Options, runs: Sequence[Scored]) -> Meta:
    """The meta keys of a run of ``ek evaluate`` (one scored run) or ``ek compare`` (runs A and B)."""
    detail = _document_detail(runs)
    return {
        "inputs": dict(inputs),
        "settings": {
            "metric": runs[0].report.metric,
            "normalize": detail["normalize"] if "normalize" in detail else _version(options.steps),
            "text_level": options.text_level,
            "profile": detail.get("profile", options.profile),
            "words": detail.get("words", options.words or "whitespace"),
            "segment": detail["segment"] if "segment" in detail else _segment(runs[0]),
            "level": options.level,
        },
        "text_level": _text_level(runs),
        "ek_version": __version__,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "errors": _unique(_read_error(f) for run in runs if run.joined is not None for f in run.joined.failures),
        "skipped": _unique(_skip(s) for run in runs if run.joined is not None for s in run.joined.skipped),
        "fallbacks": _unique(row for run in runs if run.joined is not None for row in _fallbacks(run.joined)),
        "notes": _unique(
            _empty_note(i, path) for run in runs if run.joined is not None for i, path in run.joined.empty
        ),
        "level_disagreements": _unique(
            row for run in runs if run.joined is not None for row in _disagreements(run.joined)
        ),
        "warnings": so_far(),
    }


def has_documents(runs: Sequence[Scored]) -> bool:
    """Whether any run read documents (PAGE, ALTO, hOCR, text), whose summary prints how they were read."""
    return any(run.joined is not None and run.joined.documents for run in runs)


# ---------------------------------------------------------------------------


def _document_detail(runs: Sequence[Scored]) -> Mapping[str, Any]:
    """The report detail of the first run scored on documents (it knows the profile's settings), else {}."""
    return next((run.report.detail for run in runs if run.joined is not None and run.joined.documents), {})


def _segment(run: Scored) -> str:
    """How the run's metric cuts characters, as its declared unit says: ``"grapheme"`` clusters, else ``"codepoint"``."""
    facts = run.facts()
    return "grapheme" if facts is not None and facts.unit == "grapheme" else "codepoint"


def _version(steps: Sequence[str] | None) -> str | None:
    """The version string of the ``--normalize`` steps (``"nfc+lower"``), or None without any."""
    return None if not steps else Canonicalizer(steps).version


def _text_level(runs: Sequence[Scored]) -> object:
    found = {
        side: run.report.detail["text_level"] for side, run in zip("ab", runs) if "text_level" in run.report.detail
    }
    values = list(found.values())
    if not values:
        return None
    return values[0] if all(v == values[0] for v in values) else found


def _fallbacks(joined: Joined) -> Iterator[Fallback]:
    for side, id_, region, level in joined.fallbacks():
        yield {"side": side, "id": id_, "region": region, "level": level}


def _empty_note(id_: str, path: str) -> Note:
    return {"id": id_, "path": path, "note": EMPTY_PREDICTION}


def _disagreements(joined: Joined) -> Iterator[LevelDisagreement]:
    for side, id_, region, level, other, cer in joined.level_disagreements():
        yield {"side": side, "id": id_, "region": region, "level": level, "other_level": other, "cer": cer}


def _read_error(failure: Failure) -> ReadError:
    return {"side": failure.side, "path": failure.path, "id": failure.id, "message": failure.message}


def _skip(skipped: Skipped) -> Skip:
    return {"path": skipped.path, "reason": skipped.reason}


def _unique(rows: Iterable[_Row]) -> list[_Row]:
    out: list[_Row] = []
    for row in rows:
        if row not in out:
            out.append(row)
    return out
