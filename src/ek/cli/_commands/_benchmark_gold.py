"""GOLD of ``ek benchmark``: page images with their true text, from a record file or a folder.

A **record file** (JSONL, JSON, CSV, TSV; `ek._files` reads it, with the id
rules of ``ek evaluate``: ``--id`` names the id field, ``--id ""`` numbers
the records) gives each page's ``image`` (a path, relative to the file's
folder unless absolute) and its reference: the ``--gold-field`` field, else
the first of ``reference_text``, ``reference``, ``gold``, ``text``. A
record's ``slice`` cuts the report (``--slice`` names another field) and its
``kind`` (``line`` or ``page``, in every record or none) says which engine
mode reads it.

A **folder** holds the ground truth as ``ek evaluate`` reads it
(``NAME.gt.txt``, PAGE or ALTO files; `ek._files`), and each ground-truth
file's image: the one a PAGE file names in ``imageFilename`` or an ALTO file
in ``sourceImageInformation/fileName`` (relative to the file), else
``NAME.png`` (or another image type) beside it. Ground truth whose image
cannot be found is refused, naming each file: there is nothing to read.
Documents are NFC-normalised, as ``ek evaluate`` does, unless ``--normalize``
says otherwise.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import TypedDict

from ek._files import InputError, Side, read_side, unread

IMAGE_SUFFIXES = (
    ".png",
    ".jpg",
    ".jpeg",
    ".tif",
    ".tiff",
    ".bmp",
    ".gif",
    ".webp",
    ".jp2",
    ".pnm",
    ".pbm",
    ".pgm",
    ".ppm",
)
"""The image files a folder's ground truth is looked for beside (``NAME`` + one of these)."""

REFERENCE_FIELDS = ("reference_text", "reference", "gold", "text")
"""The record fields a reference is read from by default, in this order."""

_NAMED_IMAGE = (
    re.compile(rb"""<(?:\w+:)?Page\b[^>]*?\simageFilename\s*=\s*["']([^"']+)["']"""),
    re.compile(rb"<(?:\w+:)?fileName>\s*([^<]+?)\s*</(?:\w+:)?fileName>"),
)
_HEAD_BYTES = 64 * 1024  # the image is named in a PAGE/ALTO file's first elements
_GT_NAME = re.compile(r"(\.gt)?\.(txt|xml|html?|hocr)$", re.IGNORECASE)
_KINDS = ("line", "page")


class PageRecord(TypedDict, total=False):
    """One page of GOLD as `ek.ocr.benchmark_fleet` reads it (``kind`` only when the records give kinds)."""

    image: str
    reference_text: str
    slice: object
    kind: str | None


@dataclass(frozen=True)
class BenchmarkGold:
    """The gold corpus as `ek.ocr.benchmark_fleet` takes it, and whether it was read from documents."""

    records: dict[object, PageRecord]
    documents: bool = False
    source: str = ""
    images: dict[object, str] = field(default_factory=dict)  # id -> image path, as the records name them


def read_benchmark_gold(
    path: str, *, id_field: str | None, gold_field: str | None, slice_field: str | None
) -> BenchmarkGold:
    """GOLD read into ``key -> {image, reference_text, slice, kind}`` records (InputError for bad input)."""
    if os.path.isdir(path):
        return _from_folder(path)
    side = read_side(path, role="gold", id_field=id_field, value_field=None, slice_field=slice_field)
    if side.documents:
        raise InputError(
            f"GOLD {path} is one document, with no image to read; ek benchmark needs page images: give "
            "a .jsonl/.csv of image + reference, or a folder of images with their ground truth."
        )
    try:
        images = read_side(path, role="gold", id_field=id_field, value_field="image", slice_field=slice_field)
    except InputError as exc:
        raise InputError(
            f"{exc} ek benchmark reads each page's image from its 'image' field (the path of the "
            "page image); gold without images gives the engines nothing to read."
        ) from None
    references, kinds = _references(path, side, gold_field, id_field, slice_field)
    base = os.path.dirname(os.path.abspath(path))
    records: dict[object, PageRecord] = {}
    for i, key in enumerate(side.ids):
        image = images.values[i]
        if not isinstance(image, str) or not image.strip():
            raise InputError(f"GOLD {path} record {key!r} has image {image!r}; give the path of the page image.")
        record: PageRecord = {
            "image": image if os.path.isabs(image) else os.path.join(base, image),
            "reference_text": references[i],
            "slice": side.slices[i] if side.slices else None,
        }
        if kinds is not None:
            record["kind"] = _kind(kinds[i], path, key)
        records[key] = record
    return BenchmarkGold(records, documents=False, source=path)


# ---------------------------------------------------------------------------


def _references(
    path: str, side: Side, gold_field: str | None, id_field: str | None, slice_field: str | None
) -> tuple[list[str], list[object] | None]:
    """Each record's reference, and its kind (None when the records have none)."""
    if gold_field is not None or not side.whole_records:
        values = (
            side.values
            if gold_field is None
            else read_side(path, role="gold", id_field=id_field, value_field=gold_field, slice_field=slice_field).values
        )
        try:
            kinds: list[object] | None = list(
                read_side(path, role="gold", id_field=id_field, value_field="kind", slice_field=slice_field).values
            )
        except InputError:
            kinds = None  # no record gives a kind: the engines tell lines from pages by size
        return [_text(v, path, key, gold_field or side.value_field) for v, key in zip(values, side.ids)], kinds
    first = side.values[0]
    name = next((f for f in REFERENCE_FIELDS if f in first), None)
    if name is None:
        raise InputError(
            f"GOLD {path}: the records have no reference field (they have {', '.join(map(repr, first))}); "
            f"name it with --gold-field, or call it one of {', '.join(REFERENCE_FIELDS)}."
        )
    references = []
    for key, record in zip(side.ids, side.values):
        if name not in record:
            raise InputError(f"GOLD {path} record {key!r} has no {name!r} field, the reference of the first record.")
        references.append(_text(record[name], path, key, name))
    kinds = [r.get("kind") for r in side.values] if any("kind" in r for r in side.values) else None
    return references, kinds


def _text(value: object, path: str, key: object, name: str | None) -> str:
    if not isinstance(value, str):
        raise InputError(
            f"GOLD {path} record {key!r} field {name!r} is {type(value).__name__}, not the page's "
            "true text; give the transcription as a string."
        )
    return value


def _kind(value: object, path: str, key: object) -> str | None:
    if value in (None, ""):
        return None
    if not isinstance(value, str) or value not in _KINDS:
        raise InputError(
            f"GOLD {path} record {key!r} has kind {value!r}; a kind is 'line' or 'page' (or leave it "
            "out for the engine to tell by the image's size)."
        )
    return value


def _from_folder(path: str) -> BenchmarkGold:
    """A folder's ground-truth documents, each with the image it names or the one beside it."""
    side = read_side(path, role="gold")
    if side.errors:
        raise unread(list(side.errors.values()))
    records: dict[object, PageRecord] = {}
    missing: list[str] = []
    for i, key in enumerate(side.ids):
        doc_path = side.paths.get(key)
        image = _image_of(doc_path) if doc_path else None
        if image is None:
            missing.append(doc_path or str(key))
            continue
        records[key] = {
            "image": image,
            "reference_text": side.values[i],
            "slice": side.slices[i] if side.slices else None,
        }
    if missing:
        shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
        raise InputError(
            f"GOLD {path}: no image found for {len(missing)} ground-truth file(s): {shown}; put NAME.png "
            "beside NAME.gt.txt, or name the image in the PAGE imageFilename / ALTO fileName."
        )
    return BenchmarkGold(records, documents=True, source=path)


def _image_of(doc_path: str) -> str | None:
    """The image a ground-truth file names (PAGE/ALTO), else the image named like it beside it, else None."""
    folder = os.path.dirname(doc_path)
    with open(doc_path, "rb") as f:
        head = f.read(_HEAD_BYTES)
    for pattern in _NAMED_IMAGE:
        match = pattern.search(head)
        if match:
            named = match.group(1).decode("utf-8", "replace").strip()
            candidate = named if os.path.isabs(named) else os.path.join(folder, named)
            if os.path.isfile(candidate):
                return candidate
            beside = os.path.join(folder, os.path.basename(named))  # a path written elsewhere, the image moved along
            if os.path.isfile(beside):
                return beside
    stem = _GT_NAME.sub("", os.path.basename(doc_path))
    for suffix in IMAGE_SUFFIXES:
        for candidate in (stem + suffix, stem + suffix.upper()):
            if os.path.isfile(os.path.join(folder, candidate)):
                return os.path.join(folder, candidate)
    return None
