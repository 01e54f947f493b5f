"""Read one side (GOLD or PRED) into ids, values and slices, and join two sides by id."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import repeat
from operator import itemgetter
from pathlib import Path
from typing import Any, BinaryIO

from ek._files import _records
from ek._files._documents import Document, read_document, resolve_text_level
from ek._files._errors import InputError, decode_utf8
from ek._files._folders import Skipped, list_files, max_bytes_of, read_bounded, too_big_error
from ek._files._formats import DOCUMENT_SUFFIXES
from ek._files._pairing import Naming, select, side_folder
from ek._files._records import Table
from ek._reading import MAX_FILE_MB, ReadOptions, read_options_of
from ek._util import first_repeat

VALUE_FIELDS = {"gold": ("reference", "gold", "text"), "pred": ("prediction", "pred", "text")}
RECORD_FORMATS = ("jsonl", "json", "csv", "tsv")
_EXTENSIONS = {".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json", ".csv": "csv", ".tsv": "tsv"}


@dataclass(frozen=True)
class Side:
    """One side read from its source: ids in file order with their values and slices.

    ``value_field`` is the record field the values came from (None for whole
    records, documents and bare values). ``single`` marks a side read from
    one document file. For a folder: ``documents`` maps ids to the
    `Document` read for them, ``errors`` maps the id of each document that
    failed to read to its message, ``paths`` maps every id (failed ones
    included) to its file, ``skipped`` lists the `Skipped` files, and
    ``candidates`` gives, for a PRED folder, the GOLD ids each id may pair
    with (see `ek._files._pairing.candidates`). ``doubles`` and ``loose``
    are what a GOLD folder mixing ``NAME.gt.EXT`` with other names leaves
    for `settle` to decide (see `ek._files._pairing.Selection`). ``values``
    and ``slices`` are what the user's file holds (texts, records, any JSON
    value).
    """

    source: str
    role: str
    ids: tuple[str, ...]
    values: tuple[Any, ...]
    slices: tuple[Any, ...] | None = None
    value_field: str | None = None
    whole_records: bool = False
    errors: Mapping[str, str] = field(default_factory=dict)
    documents: Mapping[str, Document] = field(default_factory=dict)
    single: bool = False
    paths: Mapping[str, str] = field(default_factory=dict)
    skipped: tuple[Skipped, ...] = ()
    candidates: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    doubles: tuple[tuple[str, str, str], ...] = ()
    loose: frozenset[str] = frozenset()


def read_side(
    source: str | os.PathLike[str],
    *,
    role: str = "gold",
    id_field: str | None = "id",
    value_field: str | None = None,
    slice_field: str | None = None,
    format: str | None = None,
    text_level: str | None = None,
    pick: str = "index",
    profile: str | None = None,
    gold_suffix: str | None = None,
    pred_suffix: str | None = None,
    pred_format: str | None = None,
    follow_symlinks: bool = False,
    max_file_mb: float = MAX_FILE_MB,
    stdin: BinaryIO | None = None,
    level: str | None = None,
    read: ReadOptions | None = None,
) -> Side:
    """Read GOLD (``role="gold"``) or PRED (``role="pred"``) from a file, a folder or ``-`` (stdin).

    ``value_field`` is ``gold_field`` or ``pred_field`` of `read_pair`;
    ``format`` (``"jsonl"``, ``"json"``, ``"csv"``, ``"tsv"`` or
    ``"document"``) overrides the extension and the content sniffing; the
    other options are `read_pair`'s, or all of them as one value, ``read=``.
    """
    options = resolved(read_options_of("read_side", locals()), level, "read_side")
    return read_source(source, role, options, value_field=value_field, format=format, stdin=stdin)


def resolved(options: ReadOptions, level: str | None, who: str) -> ReadOptions:
    """``options`` with the text level a profile implies, or the deprecated ``level`` names, checked.

    Called by a public reader: the deprecation warning of ``level`` points at that reader's caller.
    """
    text_level = resolve_text_level(options.text_level, level, options.profile, who, stacklevel=4)
    return options if text_level == options.text_level else dataclasses.replace(options, text_level=text_level)


def read_source(
    source: str | os.PathLike[str],
    role: str,
    reading: ReadOptions,
    *,
    value_field: str | None = None,
    format: str | None = None,
    stdin: BinaryIO | None = None,
) -> Side:
    """`read_side` with its reading options as one resolved value (see `resolved`)."""
    if role not in VALUE_FIELDS:
        raise ValueError(f"role must be 'gold' or 'pred', got {role!r}.")
    id_field, slice_field, max_bytes = reading.id_field, reading.slice_field, max_bytes_of(reading.max_file_mb)
    label = f"{role.upper()} {os.fspath(source)}"
    if os.fspath(source) == "-":
        data = (stdin if stdin is not None else sys.stdin.buffer).read(max_bytes + 1)
        if len(data) > max_bytes:
            raise too_big_error(f"{role.upper()} <stdin>", None, max_bytes)
        return _from_bytes(
            data,
            f"{role.upper()} <stdin>",
            role,
            format or _sniff(data, f"{role} <stdin>"),
            id_field,
            value_field,
            slice_field,
            reading,
            "stdin",
        )
    path = Path(source)
    if path.is_dir():
        return _from_folder(os.fspath(path), label, role, reading)
    if not path.exists():
        raise InputError(f"{label} does not exist; give a .jsonl, .json, .csv or .tsv file, a document or a folder.")
    suffix = path.suffix.lower()
    fmt = format or _EXTENSIONS.get(suffix) or ("document" if suffix in DOCUMENT_SUFFIXES else None)
    data = read_bounded(os.fspath(path), label, max_bytes)
    if fmt is None:
        fmt = _sniff(data, label, strict=True)
    return _from_bytes(data, label, role, fmt, id_field, value_field, slice_field, reading, _document_id(path.name))


def settle(gold: Side, pred: Side) -> Side:
    """GOLD once PRED is read: a folder's files that PRED reads too are predictions, not gold.

    A ``NAME.EXT`` beside ``NAME.gt.EXT`` that PRED does not read either is
    a second GOLD file for ``NAME``: an InputError naming both and the fix.
    A document named for no ``.gt`` file that PRED reads too (one folder
    holding both sides) leaves GOLD, as PRED's; any other stays GOLD.
    """
    if not gold.doubles and not gold.loose:
        return gold
    read = {os.path.realpath(p) for p in (*pred.paths.values(), *(s.path for s in pred.skipped))}
    for doc_id, gt_path, other in gold.doubles:
        if os.path.realpath(other) not in read:
            raise _two_gold_files(gold.source, doc_id, gt_path, other)
    drop = {i for i in gold.loose if i in gold.paths and os.path.realpath(gold.paths[i]) in read}
    if not drop:
        return gold
    keep = [k for k, i in enumerate(gold.ids) if i not in drop]
    return dataclasses.replace(
        gold,
        ids=tuple(gold.ids[k] for k in keep),
        values=tuple(gold.values[k] for k in keep),
        errors={i: e for i, e in gold.errors.items() if i not in drop},
        documents={i: d for i, d in gold.documents.items() if i not in drop},
        paths={i: p for i, p in gold.paths.items() if i not in drop},
    )


# ---------------------------------------------------------------------------


def _two_gold_files(source: str, doc_id: str, gt_path: str, other: str) -> InputError:
    gt_name, other_name = os.path.basename(gt_path), os.path.basename(other)
    at = gt_name.lower().rfind(".gt.")
    suffix = gt_name[at:] if at >= 0 else gt_name  # NAME.gt.xml -> .gt.xml; a folder's gt.txt -> gt.txt
    return InputError(
        f"{source} has two gold files for {doc_id!r} ({gt_path} and {other}); keep one, or pass "
        f"--gold-suffix {suffix} to read only the {suffix} files as gold (with PRED the same folder, "
        f"{other_name} is the prediction)."
    )


def _sniff(data: bytes, label: str, strict: bool = False) -> str:
    """The format of bytes with no telling extension, from their first characters."""
    head = data[:4096].decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    if head.startswith("<"):
        return "document"
    if head.startswith("["):
        return "json"
    if head.startswith("{"):  # JSONL when the first line is a whole value, else one (pretty-printed) object
        try:
            json.loads(data.lstrip(b"\xef\xbb\xbf \t\r\n").split(b"\n", 1)[0])
        except ValueError:
            return "json"
        return "jsonl"
    if not strict:
        first = head.split("\n", 1)[0]
        return "tsv" if "\t" in first else ("csv" if "," in first else "document")
    raise InputError(
        f"{label} has an unknown extension and its content is neither JSON nor an XML/HTML document; "
        f"use {', '.join('.' + f for f in RECORD_FORMATS)} or a document ({', '.join(DOCUMENT_SUFFIXES)}), "
        "or pass format=."
    )


def _from_bytes(
    data: bytes,
    label: str,
    role: str,
    fmt: str,
    id_field: str | None,
    value_field: str | None,
    slice_field: str | None,
    reading: ReadOptions,
    doc_id: str,
) -> Side:
    if fmt == "document":
        doc = document_of(data, label, role, reading)
        return Side(label, role, (doc_id,), (doc.text,), documents={doc_id: doc}, single=True)
    text = decode_utf8(data, label)
    if fmt == "jsonl":
        table = _records.parse_jsonl(text, label)
    elif fmt == "json":
        table = _records.parse_json(text, label)
    elif fmt in ("csv", "tsv"):
        table = _records.parse_delimited(text, label, delimiter="\t" if fmt == "tsv" else ",")
    else:
        raise InputError(f"{label}: unknown format {fmt!r}; use one of {', '.join(RECORD_FORMATS)} or 'document'.")
    return _from_table(table, label, role, id_field, value_field, slice_field)


def _from_table(
    table: Table,
    label: str,
    role: str,
    id_field: str | None,
    value_field: str | None,
    slice_field: str | None,
) -> Side:
    records = table.records
    if not records and role == "gold":
        raise InputError(f"{label} has no records; a gold file needs at least one.")
    ids = _ids(table, label, id_field)
    dicts = bool(records) and isinstance(records[0], dict)
    if records and set(map(type, records)) != {type(records[0])} and any(isinstance(r, dict) != dicts for r in records):
        k = next(i for i, r in enumerate(records) if isinstance(r, dict) != dicts)
        raise InputError(
            f"{label} {table.where(k)} is a {type(records[k]).__name__} among "
            f"{'objects' if dicts else 'plain values'}; give every record the same shape."
        )
    chosen = None
    if dicts:
        candidates = (value_field,) if value_field else VALUE_FIELDS[role]
        chosen = next((c for c in candidates if c in records[0]), None)
        if value_field and chosen is None:
            raise _no_field(label, table, 0, value_field, "the value field")
    if chosen is not None:
        try:
            values = list(map(itemgetter(chosen), records))
        except KeyError:
            k = next(i for i, r in enumerate(records) if chosen not in r)
            raise _no_field(label, table, k, chosen, "the value field, as in the first record") from None
    elif dicts:
        drop = {id_field, _slice_name(records, slice_field, role)}
        values = [{k: v for k, v in r.items() if k not in drop} for r in records]
    else:
        values = list(records)
    if role == "gold" and None in values:
        k = values.index(None)
        raise InputError(f"{label} {table.where(k)} has a null value; every gold record needs a value to compare with.")
    slices = _slices(table, label, slice_field, role) if dicts else None
    return Side(label, role, tuple(ids), tuple(values), slices, chosen, dicts and chosen is None)


def _ids(table: Table, label: str, id_field: str | None) -> list[str]:
    records = table.records
    if table.keys is not None:
        ids = table.keys
    elif id_field is None:
        ids = [str(k + 1) for k in range(len(records))]
    else:
        try:
            ids = list(map(itemgetter(id_field), records))
        except (KeyError, TypeError, IndexError):
            k = next(i for i, r in enumerate(records) if not isinstance(r, dict) or id_field not in r)
            if table.columns is not None:
                raise InputError(
                    f"{label} has no {id_field!r} column (columns: {', '.join(table.columns)}); "
                    "pass id= naming the column that joins GOLD and PRED."
                ) from None
            if not isinstance(records[k], dict):
                raise InputError(
                    f"{label} {table.where(k)} is a {type(records[k]).__name__}, not an object "
                    f"with an {id_field!r} field; give records as JSON objects."
                ) from None
            raise _no_field(label, table, k, id_field, "the id field") from None
        if set(map(type, ids)) != {str}:
            ids = [_id_text(v, label, table, k) for k, v in enumerate(ids)]
    repeat = first_repeat(ids)
    if repeat is not None:
        first, k = repeat
        raise InputError(
            f"{label} has the id {ids[k]!r} twice ({table.where(first)} and {table.where(k)}); "
            "ids must be unique to join GOLD and PRED."
        )
    return ids


def _id_text(value: object, label: str, table: Table, k: int) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise InputError(
        f"{label} {table.where(k)} has id {value!r} ({type(value).__name__}); ids must be strings or integers."
    )


def _no_field(label: str, table: Table, k: int, name: str, what: str) -> InputError:
    record = table.records[k]
    have = ", ".join(map(repr, list(record)[:8])) if isinstance(record, dict) else type(record).__name__
    return InputError(f"{label} {table.where(k)} has no {name!r} field ({what}); it has {have}.")


def _slice_name(records: list[Any], slice_field: str | None, role: str) -> str | None:
    if slice_field is not None:
        return slice_field
    # records are dicts here (`_from_table` checks one shape): dict.__contains__ keeps the scan in C
    return "slice" if "slice" in records[0] or any(map(dict.__contains__, records, repeat("slice"))) else None


def _slices(table: Table, label: str, slice_field: str | None, role: str) -> tuple[Any, ...] | None:
    if role != "gold":
        return None
    name = _slice_name(table.records, slice_field, role)
    if name is None:
        return None
    slices = tuple(map(dict.get, table.records, repeat(name)))
    if slice_field is not None and all(s is None for s in slices):
        raise InputError(f"{label} has no record with the slice field {slice_field!r}; check its name.")
    return slices


def _document_id(name: str) -> str:
    """NAME of ``NAME.gt.txt``, ``NAME.txt``, ``NAME.xml``, ...: the last extension and a ``.gt`` go."""
    stem = name.rsplit(".", 1)[0] if "." in name else name
    return stem.removesuffix(".gt")


def document_of(data: bytes, name: str, role: str, reading: ReadOptions) -> Document:
    """The document in ``data`` read as ``reading`` says (a PRED one may be empty)."""
    return read_document(
        data,
        allow_empty=role == "pred",
        name=name,
        text_level=reading.text_level,
        pick=reading.pick,
        profile=reading.profile,
    )


def _from_folder(path: str, label: str, role: str, reading: ReadOptions) -> Side:
    naming, max_bytes = (
        Naming(reading.gold_suffix, reading.pred_suffix, reading.pred_format),
        max_bytes_of(reading.max_file_mb),
    )
    root = side_folder(path, role, label)
    if root != path:
        label = f"{role.upper()} {root}"
    listing = list_files(root, naming.wants, follow_symlinks=reading.follow_symlinks)
    selection = select(listing.entries, role, naming, label)
    chosen, other_formats = selection.picked, selection.skipped
    if not chosen:
        raise _no_document(label, role, naming, other_formats)
    ids: list[str] = []
    values: list[str] = []
    docs: dict[str, Document] = {}
    errors: dict[str, str] = {}
    paths: dict[str, str] = {}
    for doc_id, entry, _ in chosen:
        paths[doc_id] = entry.path
        name = os.path.join(label, entry.rel)
        try:
            data = read_bounded(entry.path, name, max_bytes, regular_only=True)
            doc = document_of(data, name, role, reading)
        except InputError as exc:
            errors[doc_id] = str(exc)
            continue
        ids.append(doc_id)
        values.append(doc.text)
        docs[doc_id] = doc
    if not ids and role == "gold":
        first = next(iter(errors.values()))
        raise InputError(f"{label}: no document could be read; the first error: {first}")
    return Side(
        label,
        role,
        tuple(ids),
        tuple(values),
        errors=errors,
        documents=docs,
        paths=paths,
        skipped=listing.skipped + tuple(other_formats),
        candidates={doc_id: found for doc_id, _, found in chosen if len(found) > 1},
        doubles=tuple((doc_id, gt.path, other.path) for doc_id, gt, other in selection.doubles),
        loose=selection.loose,
    )


def _no_document(label: str, role: str, naming: Naming, other_formats: list[Skipped]) -> InputError:
    if other_formats:
        return InputError(
            f"{label} holds no {naming.pred_format} document (--pred-format {naming.pred_format}); "
            f"{len(other_formats)} of other formats are skipped, so pick their format instead."
        )
    suffix = naming.gold_suffix if role == "gold" else naming.pred_suffix
    what = f"file ending with {suffix!r}" if suffix else f"document ({', '.join(DOCUMENT_SUFFIXES)})"
    fix = "transcriptions" if role == "gold" else "predictions"
    return InputError(f"{label} holds no {what}; point {role.upper()} at the {fix}, or name them with --{role}-suffix.")
