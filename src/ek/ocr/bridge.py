"""Bind one ocracy backend as an ``image -> OcrResult`` callable for ek.

ocracy puts many OCR engines behind one call, ``ocracy.ocr(image, backend=...)``,
and returns an ``OcrResult``: ``.text``, ``.blocks`` with confidences in
[0, 1] and boxes, ``.raw`` (the engine's own payload) and ``.meta``. ek reads
only that shape, so anything else with the same attributes works in its place.

This module only adapts the call. It also turns ocracy's failures on a bad
image into plain messages (a missing file, a directory, bytes that are not an
image). One engine is run by ek's own ocracy adapter: ``"rapidocr"`` reads
with the models bundled in ``rapidocr_onnxruntime`` (`ek.ocr._rapidocr`),
never with ``rapidocr`` 3.x, which downloads its models when first run. Text-only engines (the vision-language models) return no blocks and
no confidence; callers must accept ``None`` there.

Errors: `MissingExtraError` (ocracy not installed), ``KeyError`` (an engine id
ocracy does not know; the message lists the known ones), ``ImportError`` (a
known engine whose package or program is missing here), ``FileNotFoundError``
and ``ValueError`` (an image that is missing or cannot be decoded).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from typing import Any

from ek._ocr_result import result_text, text_kind
from ek._util import import_optional, type_name
from ek.ocr._engines import (
    check_engine,
    missing_binary,
    missing_packages,
    resolve_engine_id,
)

__all__ = ["ocracy_backend", "read_text"]  # and open_image, for the OCR modules


def ocracy_backend(backend: str | None = None, **default_kwargs: object) -> Callable[..., Any]:
    """An ``image -> OcrResult`` callable that runs ocracy's ``backend`` on each call.

    Args:
        backend: an ocracy backend id such as ``"tesseract"`` (underscores are
            accepted for hyphens); None picks ocracy's first installed backend,
            once, now.
        **default_kwargs: options passed to ``ocracy.ocr`` on every call, such as
            ``languages=["en"]``; keywords given to a call take precedence.

    Returns:
        A callable for `ek.ocr.evaluate_ocr`. Its ``backend`` attribute holds
        the resolved id.

    Raises:
        MissingExtraError: ocracy is not installed.
        KeyError: ocracy has no backend of that name.
        ImportError: the backend's package or system program is missing here.
    """
    ocracy = import_optional("ocracy", extra="ocr", feature="ocracy_backend()")
    if backend is None:
        backend_id = ocracy.get_default_backend()
    elif isinstance(backend, str):
        backend_id = resolve_engine_id(backend)
    else:
        raise TypeError(
            f"ocracy_backend() takes a backend id such as 'tesseract', got {type_name(backend)}. "
            "To benchmark your own engine, pass the callable straight to evaluate_ocr()."
        )
    _require_ready(ocracy, backend_id)
    engine = _engine_call(ocracy, backend_id)

    def read(image: Any, **kwargs: Any) -> Any:
        _check_image(image)
        options = {**default_kwargs, **kwargs}
        try:
            return engine(image, **options)
        except Exception as exc:
            if _is_decode_error(exc):
                raise ValueError(_decode_message(image, exc)) from exc
            raise

    read.backend = backend_id  # type: ignore[attr-defined]
    read.options = dict(default_kwargs)  # type: ignore[attr-defined]  # part of a stored run's settings
    read.__name__ = read.__qualname__ = f"ocracy_{backend_id.replace('-', '_')}"
    read.__doc__ = f"Read ``image`` with ocracy's {backend_id!r} backend."
    return read


def read_text(image: object, *, backend: str | None = None, **kwargs: object) -> str:
    """The text an ocracy ``backend`` reads in ``image`` (ocracy's first installed one if None).

    Raises:
        As `ocracy_backend`, plus ``FileNotFoundError``/``ValueError`` for an
        image that is missing or cannot be decoded.
    """
    result = ocracy_backend(backend)(image, **kwargs)
    text = result_text(result)
    if text is None:
        raise TypeError(
            f"the OCR backend returned {type_name(result)} whose .text is {text_kind(result) or 'None'}, "
            "not a string; the backend breaks the OcrResult contract (report it to its author)."
        )
    return text


def open_image(image: object) -> Any:
    """``image`` (a path, bytes, a PIL image or an array) as a PIL image, opened lazily (only its header read).

    Raises:
        FileNotFoundError, ValueError: as `ocracy_backend`'s callables, for an
            image that is missing, a directory, or not an image.
    """
    _check_image(image)
    from ocracy.util import to_pil

    try:
        return to_pil(image)
    except Exception as exc:
        if _is_decode_error(exc):
            raise ValueError(_decode_message(image, exc)) from exc
        raise


# ---------------------------------------------------------------------------


def _require_ready(ocracy: Any, backend_id: str) -> None:
    """Fail now, with the install steps, if ``backend_id`` cannot run here."""
    if ocracy.check(backend_id) and missing_binary(backend_id) is None and not missing_packages(backend_id):
        return
    raise ImportError(check_engine(backend_id)["hint"])


def _engine_call(ocracy: Any, backend_id: str) -> Callable[..., Any]:
    """``(image, **options) -> OcrResult`` for ``backend_id``: ocracy's, or ek's adapter where ek has one."""
    if backend_id == "rapidocr":
        from ek.ocr._rapidocr import bundled_rapidocr

        read: Callable[..., Any] = bundled_rapidocr().read
        return read
    return functools.partial(ocracy.ocr, backend=backend_id)


def _check_image(image: Any) -> None:
    """Raise if ``image`` names a local file that is missing or is a directory."""
    if isinstance(image, (str, os.PathLike)):
        path = os.fspath(image)
        if isinstance(path, str) and path.lower().startswith(("http://", "https://")):
            return
        if not os.path.exists(path):
            raise FileNotFoundError(
                f"image file {path!r} does not exist (relative paths are read from "
                f"{os.getcwd()!r}); fix the path, or use an absolute one."
            )
        if os.path.isdir(path):
            raise ValueError(f"image path {path!r} is a directory; pass the path of one image file.")


def _is_decode_error(exc: BaseException) -> bool:
    """Whether ``exc`` is Pillow failing on the image data (unknown format, truncated, corrupt)."""
    try:
        from PIL import UnidentifiedImageError
    except ImportError:
        return False
    if isinstance(exc, UnidentifiedImageError):
        return True
    if not isinstance(exc, (OSError, SyntaxError)) or isinstance(exc, (FileNotFoundError, PermissionError)):
        return False
    tb = exc.__traceback__
    while tb is not None:  # raised from inside Pillow's decoders?
        if str(tb.tb_frame.f_globals.get("__name__", "")).startswith("PIL."):
            return True
        tb = tb.tb_next
    return False


def _decode_message(image: Any, exc: BaseException) -> str:
    return (
        f"{_describe(image)} could not be decoded as an image ({exc}); "
        "check that the file is a PNG, JPEG, TIFF or other format Pillow reads."
    )


def _describe(image: Any) -> str:
    if isinstance(image, (str, os.PathLike)):
        return f"image file {os.fspath(image)!r}"
    if isinstance(image, (bytes, bytearray)):
        return f"the {len(image)} image bytes"
    return f"the {type_name(image)} image"
