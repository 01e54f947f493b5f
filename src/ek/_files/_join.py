"""Join a GOLD side with a PRED side by id, in gold order."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from itertools import repeat
from typing import Any

from ek._files._documents import Document
from ek._files._errors import InputError
from ek._files._folders import Skipped
from ek._files._sides import Side, settle

_SHOWN_FAILURES = 3  # documents an unread-documents error names

_SHOWN = 3  # ids a message shows from each side


@dataclass(frozen=True)
class Failure:
    """A document of a folder that could not be read: its side (``"gold"`` or ``"pred"``), file, id and why."""

    side: str
    path: str
    id: str
    message: str


@dataclass(frozen=True)
class Joined:
    """The cases of a GOLD/PRED pair, in gold order.

    ``golds`` and ``preds`` run parallel to ``ids`` (and ``slices``, None
    when gold has no slice field). A gold id without a prediction is in
    ``missing`` and scored against an empty prediction of the gold value's
    type ("" for text, {} for a record, [] for a list, None otherwise); a
    prediction whose document failed to read scores the same way and is in
    ``pred_errors`` instead. Predictions without a gold id are in ``extra``
    and left out. Gold documents that failed to read are in ``gold_errors``
    and left out. ``failures`` lists both kinds as `Failure` values (gold
    first), ``skipped`` the files of either folder that were not read.
    ``documents`` maps each id to its ``(gold, pred)`` `Document` pair (None
    where a side is not a document). ``empty`` lists ``(id, file)`` for each
    paired prediction read from a document with no text (a 0-byte file), which
    scores as all deletions.
    """

    ids: tuple[str, ...]
    golds: tuple[Any, ...]
    preds: tuple[Any, ...]
    slices: tuple[Any, ...] | None = None
    missing: tuple[str, ...] = ()
    extra: tuple[str, ...] = ()
    gold_errors: Mapping[str, str] = field(default_factory=dict)
    pred_errors: Mapping[str, str] = field(default_factory=dict)
    documents: Mapping[str, tuple[Document | None, Document | None]] = field(default_factory=dict)
    failures: tuple[Failure, ...] = ()
    skipped: tuple[Skipped, ...] = ()
    empty: tuple[tuple[str, str], ...] = ()

    def fallbacks(self) -> list[tuple[str, str, str, str]]:
        """``(side, id, region, level)`` for each region read at another text level than its document's."""
        return [
            (side, id_, region, level)
            for id_, pair in self.documents.items()
            for side, doc in zip(("gold", "pred"), pair)
            if doc is not None
            for region, level in doc.fallbacks
        ]

    def level_disagreements(self) -> list[tuple[str, str, str, str, str, float]]:
        """``(side, id, region, level read, other level, CER)`` for each region whose two levels' texts differ."""
        return [
            (side, id_, *row)
            for id_, pair in self.documents.items()
            for side, doc in zip(("gold", "pred"), pair)
            if doc is not None
            for row in doc.level_disagreements
        ]

    def cases(self) -> list[tuple[Any, ...]]:
        """``(pred, gold)`` tuples, or ``(pred, gold, slice)`` when gold has slices, for `ek.evaluate`."""
        if self.slices is None:
            return list(zip(self.preds, self.golds))
        return list(zip(self.preds, self.golds, self.slices))


def join(gold: Side, pred: Side) -> Joined:
    """Pair every gold id with its prediction; two single documents pair whatever their names.

    A PRED folder's file whose id is no GOLD id pairs by its candidates
    (``NAME.ENGINE.txt`` with ``NAME``, a file with its folder's document);
    two PRED files for one GOLD id, or a PRED side none of whose ids is a
    GOLD id, are InputErrors that say how to pair them.
    """
    if gold.role != "gold" or pred.role != "pred":
        raise ValueError(f"join() takes the gold side then the pred side, got {gold.role!r} then {pred.role!r}.")
    if pred.values and gold.whole_records != pred.whole_records:
        whole, field_side = (gold, pred) if gold.whole_records else (pred, gold)
        raise InputError(
            f"{whole.source} is compared as whole records (no value field found) but {field_side.source} "
            f"gives the field {field_side.value_field!r}; pass the value fields of both sides explicitly."
        )
    gold = settle(gold, pred)  # a folder's files that PRED reads too are not gold
    if gold.single and pred.single:
        pred = Side(pred.source, "pred", gold.ids, pred.values, documents=dict(zip(gold.ids, pred.documents.values())))
    pred = _paired(gold, pred)
    by_id: dict[str, Any] | None = None
    if pred.ids == gold.ids:  # one order on both sides (files written together): no lookups
        preds = list(pred.values)
    else:
        by_id = dict(zip(pred.ids, pred.values))
        preds = list(map(by_id.get, gold.ids, repeat(None)))
    missing: list[str] = []
    extra: tuple[str, ...] = ()
    pred_errors: dict[str, str] = {}
    if None in preds or (by_id is not None and len(by_id) != len(preds)) or pred.errors or gold.errors:
        # a prediction absent, null, failed or extra (else the ids match one to one)
        absent = set(gold.ids).difference(pred.ids)
        for k, (i, p) in enumerate(zip(gold.ids, preds)):
            if p is None:  # no prediction, or a null one
                if i in absent and i not in pred.errors:
                    missing.append(i)
                preds[k] = _empty_like(gold.values[k])
        known = set(gold.ids).union(gold.errors)
        extra = tuple(i for i in (*pred.ids, *pred.errors) if i not in known)
        pred_errors = {i: e for i, e in pred.errors.items() if i in known}
        if len(extra) == len(pred.ids) + len(pred.errors) > 0 and known:
            raise _nothing_paired(gold, pred)
    documents = {}
    if gold.documents or pred.documents:
        documents = {i: (gold.documents.get(i), pred.documents.get(i)) for i in gold.ids}
    failures = tuple(
        Failure(side.role, side.paths.get(i, side.source), i, message)
        for side, errors in ((gold, gold.errors), (pred, pred_errors))
        for i, message in errors.items()
    )
    return Joined(
        ids=gold.ids,
        golds=gold.values,
        preds=tuple(preds),
        slices=gold.slices,
        missing=tuple(missing),
        extra=extra,
        gold_errors=dict(gold.errors),
        pred_errors=pred_errors,
        documents=documents,
        failures=failures,
        skipped=gold.skipped + pred.skipped,
        empty=_empty_predictions(gold.ids, pred),
    )


def refuse_failures(joined: Joined, *, keep_going: bool = False) -> Joined:
    """``joined`` if no document failed to read; else one InputError listing them, unless ``keep_going``.

    With ``keep_going`` the cases whose prediction failed are left out too
    (failed gold documents are already out), so nothing unread is scored;
    ``joined.failures`` still lists every failure.
    """
    if joined.failures and not keep_going:
        raise unread([f.message for f in joined.failures])
    return leave_out(joined, [f.id for f in joined.failures if f.side == "pred"])


def unread(messages: list[str]) -> InputError:
    """One InputError for the documents that could not be read (the first few shown, the rest counted)."""
    n = len(messages)
    shown = "; ".join(m.rstrip(".") for m in messages[:_SHOWN_FAILURES])
    shown += f"; and {n - _SHOWN_FAILURES} more" if n > _SHOWN_FAILURES else ""
    return InputError(
        f"{n} document{'s' if n != 1 else ''} could not be read: {shown}; fix "
        f"{'them' if n != 1 else 'it'}, or pass --keep-going (keep_going=True in Python) to score the "
        "others and list the failures."
    )


def leave_out(joined: Joined, ids: Iterable[str]) -> Joined:
    """``joined`` without the cases of ``ids`` (e.g. those whose prediction failed to read)."""
    drop = set(ids)
    if not drop:  # the common case: nothing failed, no pass over the ids
        return joined
    keep = [k for k, i in enumerate(joined.ids) if i not in drop]
    if len(keep) == len(joined.ids):
        return joined
    return dataclasses.replace(
        joined,
        ids=tuple(joined.ids[k] for k in keep),
        golds=tuple(joined.golds[k] for k in keep),
        preds=tuple(joined.preds[k] for k in keep),
        slices=None if joined.slices is None else tuple(joined.slices[k] for k in keep),
        documents={i: pair for i, pair in joined.documents.items() if i not in drop},
        empty=tuple(row for row in joined.empty if row[0] not in drop),
    )


# ---------------------------------------------------------------------------


def _paired(gold: Side, pred: Side) -> Side:
    """``pred`` with each folder file that names no GOLD id renamed to the GOLD id its candidates find."""
    if not pred.candidates:
        return pred
    known = set(gold.ids).union(gold.errors)
    names = [*pred.ids, *pred.errors]
    claimed = {i: i for i in names if i in known}
    renamed = {}
    for i in names:
        if i in known:
            continue
        for candidate in pred.candidates.get(i, ()):
            if candidate in known:
                if candidate in claimed:
                    raise _several(pred, candidate, (claimed[candidate], i))
                claimed[candidate], renamed[i] = i, candidate
                break
    if not renamed:
        return pred
    return dataclasses.replace(
        pred,
        ids=tuple(renamed.get(i, i) for i in pred.ids),
        errors={renamed.get(i, i): e for i, e in pred.errors.items()},
        documents={renamed.get(i, i): d for i, d in pred.documents.items()},
        paths={renamed.get(i, i): p for i, p in pred.paths.items()},
        candidates={},
    )


def _empty_predictions(ids: tuple[str, ...], pred: Side) -> tuple[tuple[str, str], ...]:
    """``(id, file)`` of each prediction of ``ids`` read from a document without text (a single one: its path)."""
    if not pred.documents:  # records: no documents to look up, id by id
        return ()
    return tuple(
        (i, pred.paths.get(i) or pred.source.partition(" ")[2])  # a single document's source is "PRED path"
        for i in ids
        if (doc := pred.documents.get(i)) is not None and not doc.text
    )


def _several(pred: Side, gold_id: str, ids: tuple[str, str]) -> InputError:
    paths = [pred.paths.get(i, i) for i in ids]
    name, stem = os.path.basename(paths[-1]), gold_id.rpartition("/")[2]
    example = f" (e.g. --pred-suffix {name[len(stem) :]})" if name.startswith(stem) and len(name) > len(stem) else ""
    return InputError(
        f"{pred.source} has several predictions for the GOLD id {gold_id!r} ({', '.join(paths)}); keep one, or "
        f"name the files to read with --pred-suffix{example}."
    )


def _nothing_paired(gold: Side, pred: Side) -> InputError:
    folders = bool(gold.paths or pred.paths)
    hint = (
        "name the files alike, or pair them with --gold-suffix and --pred-suffix (e.g. --gold-suffix .gt.txt "
        "--pred-suffix .ocr.txt)"
        if folders
        else "check that both sides carry the same ids (--id names the id field)"
    )
    return InputError(
        f"nothing paired: no id of {pred.source} is an id of {gold.source} (GOLD has {_few([*gold.ids, *gold.errors])}; "
        f"PRED has {_few([*pred.ids, *pred.errors])}); {hint}."
    )


def _few(ids: list[str]) -> str:
    shown = ", ".join(map(repr, ids[:_SHOWN]))
    return shown + (f" and {len(ids) - _SHOWN} more" if len(ids) > _SHOWN else "")


def _empty_like(value: object) -> object:
    if isinstance(value, str):
        return ""
    if isinstance(value, Mapping):
        return {}
    if isinstance(value, (list, tuple)):
        return type(value)()
    return None
