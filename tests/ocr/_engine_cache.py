"""Real OCR engines read each image once per test process: their outputs, kept by engine, options and image.

The fleet tests run Tesseract and RapidOCR over the same bundled images
several times (`benchmark_fleet`, then `evaluate_ocr` engine by engine, then
a few pages alone, then a resumed run). `read_once(monkeypatch)` wraps
`ek.ocr.bridge.ocracy_backend` for one test, so that every engine it binds
answers a call it has answered before from `READINGS`, shared by the tests
of the process. The key is the engine id, the options the engine was bound
with and those of the call, and the SHA-256 of the image (a file's bytes,
bytes as given, a PIL image's mode, size and pixels): a page read with other
options, or another image under the same path, is read again. A hit gives a
deep copy of the first reading (an OcrResult is mutable). Binding an engine,
its errors, and every reading not seen before run as they do without it.

`benchmark_run(command)` runs an ``ek benchmark`` command line once per
process, in it, from the repository root: every engine reads every page for
real, end to end through the command, and what they read is kept. The
README's example (tests/test_benchmark_cli.py) compares its output with the
README; tests/ocr/test_fleet.py runs the same command first, so that its
`benchmark_fleet` and `evaluate_ocr` of the bundled corpus read nothing again
(with pytest-xdist, when the tests marked ``xdist_group("real-ocr")`` share
a worker: ``--dist loadgroup``).

Tesseract and RapidOCR give the same output for the same image and options
on every call, which makes a kept reading an exact stand-in for reading
again.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import io
import os
import shlex
import threading
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
FLEET_COMMAND = "ek benchmark src/ek/data/ocr_fleet/gold.jsonl --engine tesseract --engine rapidocr --max-workers 2"
"""The bundled corpus through both engines: the README's example."""

READINGS: dict[tuple[Any, ...], Any] = {}
"""(engine id, bound options, call options, image digest) -> the OcrResult first read."""

MISSES: list[tuple[Any, ...]] = []
"""The keys `read_once` read for real, in order (a test checks that a second pass reads nothing)."""

_LOCK = threading.Lock()  # the fleet reads pages on threads
_RUNS: dict[str, tuple[int, str, str]] = {}


def read_once(monkeypatch: Any) -> None:
    """Make the engines `ek.ocr.bridge.ocracy_backend` binds in this test read each image once per process."""
    from ek.ocr import bridge

    monkeypatch.setattr(bridge, "ocracy_backend", cached_backend(bridge.ocracy_backend))


def benchmark_run(command: str) -> tuple[int, str, str]:
    """``(exit code, stdout, stderr)`` of the ``ek benchmark`` line ``command``, run once per process (see above)."""
    if command not in _RUNS:
        import pytest

        from ek.__main__ import main
        from ek.ocr import bridge

        out, err = io.StringIO(), io.StringIO()
        with pytest.MonkeyPatch.context() as patch:
            patch.chdir(ROOT)
            patch.setattr(bridge, "ocracy_backend", cached_backend(_unwrapped(bridge.ocracy_backend), reuse=False))
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = main(shlex.split(command)[1:])
        _RUNS[command] = (code, out.getvalue(), err.getvalue())
    return _RUNS[command]


def cached_backend(real: Any, *, reuse: bool = True) -> Any:
    """``real`` (an ``ocracy_backend``) with every engine it binds keeping its readings in `READINGS`.

    With ``reuse`` a reading kept already is given again; without, every
    image is read for real (and kept).
    """

    def ocracy_backend(backend: Any = None, **default_kwargs: Any) -> Any:
        engine = real(backend, **default_kwargs)  # binding errors as they are

        def read(image: Any, **kwargs: Any) -> Any:
            digest = _digest(image)
            if digest is None:  # nothing to key it by: read it
                return engine(image, **kwargs)
            key = (engine.backend, _options(default_kwargs), _options(kwargs), digest)
            with _LOCK:
                kept = READINGS.get(key) if reuse else None
            if kept is None:
                kept = engine(image, **kwargs)
                with _LOCK:
                    READINGS[key] = copy.deepcopy(kept)
                    if reuse:
                        MISSES.append(key)
                return kept
            return copy.deepcopy(kept)

        for name in ("backend", "options", "__name__", "__qualname__", "__doc__"):
            setattr(read, name, getattr(engine, name))
        return read

    ocracy_backend.uncached = real  # type: ignore[attr-defined]
    return ocracy_backend


def _unwrapped(backend: Any) -> Any:
    """The ``ocracy_backend`` under any `cached_backend` wrappers (a run that must read for real)."""
    while hasattr(backend, "uncached"):
        backend = backend.uncached
    return backend


def _options(options: dict[str, Any]) -> str:
    return repr(sorted(options.items()))


def _digest(image: Any) -> str | None:
    """The SHA-256 of what the engine sees in ``image``; None for an image it cannot be read from here."""
    if isinstance(image, (str, os.PathLike)):
        try:
            data = b"file:" + Path(image).read_bytes()
        except OSError:  # missing, a folder: the engine's own error
            return None
    elif isinstance(image, (bytes, bytearray, memoryview)):
        data = b"bytes:" + bytes(image)
    elif hasattr(image, "mode") and hasattr(image, "tobytes"):  # a PIL image
        data = f"pil:{image.mode}:{image.size}:".encode() + image.tobytes()
    elif hasattr(image, "dtype") and hasattr(image, "tobytes"):  # an array
        data = f"array:{image.dtype}:{image.shape}:".encode() + image.tobytes()
    else:
        return None
    return hashlib.sha256(data).hexdigest()
