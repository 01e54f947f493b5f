"""The pages of a fleet: the gold corpus as `Page` records, images checked first, and the task that reads one.

`fleet_pages` turns the gold corpus into the run engine's items, each
payload a `Page`. `image_problem` says why an image cannot be read before
any engine is asked to. `FleetTask` is the `ek._runs` task of one engine:
it reads a `Page` (its kind goes to the engine), keeps the reading's
blocks, and marks a page past the timeout; it pickles, so a process pool
can run it (`ek.ocr._fleet.schedule`).
"""

from __future__ import annotations

import io
import os
from collections.abc import Hashable, Mapping
from typing import Any, NamedTuple

from ek._runs import DocumentEntry, Item, fingerprint, gold_items
from ek.ocr._fleet.figures import blocks_of
from ek.ocr._fleet.settings import FleetSettings
from ek.ocr._ocr_run import OcrTask, check_reference, with_file_references

WHO = "benchmark_fleet"


class Page(NamedTuple):
    """One gold page as an engine reads it and the run engine scores it.

    A NamedTuple, not a dataclass: the run engine reads a payload as
    ``(key, input, reference, slice)`` (`ek._runs.document_entry`), and the
    fleet reads it by name.
    """

    key: Hashable
    image: Any
    reference: str
    slice: Hashable | None
    kind: str | None


def fleet_pages(gold: Mapping[Any, Any], settings: FleetSettings) -> list[Item]:
    """The run engine's items of ``gold``: ``(key, Page, fingerprint or None)``, in gold order.

    Raises:
        TypeError, ValueError: a malformed record, a bad ``kind``, or no record at all.
    """
    reference_key, kind_key = settings.reference_key, settings.kind_key
    gold = with_file_references(gold, reference_key)
    items = gold_items(
        gold,
        ((settings.image_key, "image_key"), (reference_key, "reference_key"), settings.slice_key),
        WHO,
        fingerprints=False,
        check=check_reference(reference_key),
    )
    if not items:
        raise ValueError(
            f"{WHO}() got an empty gold corpus, so there is nothing to benchmark; pass a mapping "
            "key -> {image, reference_text, ...} with at least one record."
        )
    out: list[Item] = []
    for key, (k, image, reference, label), _ in items:
        kind = gold[key].get(kind_key) if kind_key else None
        if kind is not None and kind not in ("line", "page"):
            raise ValueError(
                f"gold record {key!r} field {kind_key!r} is {kind!r}; it must be 'line' or 'page' "
                "(or absent, for the engine to tell by the image's size)."
            )
        stamp = fingerprint((image, reference, label, kind)) if settings.run.persist else None
        out.append((key, Page(k, image, reference, label, kind), stamp))
    return out


def image_problem(image: Any) -> str | None:
    """Why ``image`` cannot be read (a missing file, a folder, bytes no image decoder knows), or None.

    Paths and bytes are checked (Pillow, when installed, decodes the header
    and verifies the data); URLs, in-memory images and arrays are left to
    the engines.
    """
    if isinstance(image, (str, os.PathLike)):
        path = os.fspath(image)
        if isinstance(path, str) and path.lower().startswith(("http://", "https://")):
            return None
        if not os.path.exists(path):
            return (
                f"image file {path!r} does not exist (relative paths are read from {os.getcwd()!r}); fix the "
                "path in the gold record"
            )
        if os.path.isdir(path):
            return f"image path {path!r} is a folder; the gold record must name one image file"
        source: Any = path
    elif isinstance(image, (bytes, bytearray)):
        source = io.BytesIO(bytes(image))
    else:
        return None
    try:
        from PIL import Image
    except ImportError:
        return None
    try:
        with Image.open(source) as opened:
            opened.verify()
    except Exception as exc:  # Pillow raises many kinds for a bad file
        what = f"image file {path!r}" if isinstance(source, str) else f"the {len(image)} image bytes"
        return f"{what} cannot be read as an image ({type(exc).__name__}: {exc}); check that it is a PNG, JPEG or TIFF"
    return None


class FleetTask(OcrTask):
    """`OcrTask` for one engine of a fleet: a page's kind goes to the engine, its blocks are kept."""

    def __init__(
        self, call: Any, metric: Any, options: dict[str, Any], unreadable: Mapping[Any, str], timeout: float | None
    ) -> None:
        super().__init__(call, metric, options, WHO, "record")
        self.unreadable, self.timeout = dict(unreadable), timeout

    def step(self, payload: Page) -> Any:
        problem = self.unreadable.get(payload.key)
        if problem is not None:
            raise ValueError(problem)
        image, kind = payload.image, payload.kind
        return self.call(image) if kind is None else self.call(image, kind=kind)

    def extra(self, value: Any, seconds: float) -> dict[str, Any]:
        return {**super().extra(value, seconds), "blocks": None if value is None else blocks_of(value)}

    def failed(self, payload: Any, exc: BaseException, seconds: float) -> DocumentEntry:
        timed_out = isinstance(exc, TimeoutError) and self.timeout is not None and seconds >= self.timeout
        if timed_out:
            exc = TimeoutError(
                f"the engine did not read the image within timeout={self.timeout:g} s; raise the "
                "timeout (--timeout on the command line) or give the engine a smaller image"
            )
        entry = super().failed(payload, exc, seconds)
        entry["timed_out"] = timed_out  # type: ignore[typeddict-unknown-key]  # a fleet page's own field
        return entry

    def check(self, entry: Mapping[str, Any]) -> None:
        super().check(entry)
        blocks = entry.get("blocks")
        if blocks is not None and not (
            isinstance(blocks, list)
            and all(isinstance(b, list) and len(b) == 3 and isinstance(b[0], str) for b in blocks)
        ):
            raise ValueError(f"its blocks are {blocks!r:.60}, not a list of [text, confidence, level]")
