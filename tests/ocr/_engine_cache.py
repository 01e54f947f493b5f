"""Real OCR engines read each image once per test run: their outputs, kept by engine, options and image.

The fleet tests run Tesseract and RapidOCR over the same bundled images
several times (the README's ``ek benchmark`` example, `benchmark_fleet`
and `evaluate_ocr` engine by engine, a few pages alone, a resumed run).

`benchmark_run(command, folder)` runs an ``ek benchmark`` command line in
this process, from the repository root, every engine reading every page for
real, end to end through the command; its output and what the engines read
are saved in ``folder`` (`shared_folder`: one for all pytest-xdist workers of
the run). A second call, in this process or another worker, gives the saved
output and readings instead of running it again; a worker that asks while
another runs it waits for it (a file lock). The README's example
(tests/test_benchmark_cli.py) compares the output with the README;
tests/ocr/test_fleet.py asks for the same command first, so that its
`benchmark_fleet` and `evaluate_ocr` of the bundled corpus read nothing again.

`read_once(monkeypatch, folder)` wraps `ek.ocr.bridge.ocracy_backend` for
one test, so that every engine it binds answers a call it has answered
before (in this process, or in a command saved in ``folder``) from
`READINGS`. The key is the engine id, the options the engine was bound with
and those of the call, and the SHA-256 of the image (a file's bytes, bytes
as given, a PIL image's mode, size and pixels): a page read with other
options, or another image under the same path, is read again. A hit gives a
deep copy of the first reading (an OcrResult is mutable). Binding an engine,
its errors, and every reading not seen before run as they do without it.
Both keep a fleet's engines in this process, on threads (`in_this_process`):
the readings are kept here, not in worker processes; test_fleet checks that
worker processes read the same.

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
import pickle
import shlex
import threading
from collections.abc import Iterator
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


def shared_folder(tmp_path_factory: Any) -> Path:
    """A folder of this test run that every pytest-xdist worker of it sees (the parent of the workers' own)."""
    base = Path(tmp_path_factory.getbasetemp())
    return (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "ek-engine-readings"


def read_once(monkeypatch: Any, folder: Path) -> None:
    """Make the engines `ek.ocr.bridge.ocracy_backend` binds in this test read each image once (see above)."""
    from ek.ocr import bridge

    for saved in sorted(folder.glob("*.pickle")) if folder.is_dir() else ():
        _keep(pickle.loads(saved.read_bytes())[3])
    monkeypatch.setattr(bridge, "ocracy_backend", cached_backend(bridge.ocracy_backend))
    in_this_process(monkeypatch)


def in_this_process(monkeypatch: Any) -> None:
    """Keep a fleet's engines on threads of this process, where `READINGS` is (no worker processes)."""
    from ek.ocr._fleet import schedule

    monkeypatch.setattr(schedule, "process_pool", _no_processes)


@contextlib.contextmanager
def _no_processes(workers: int) -> Iterator[None]:
    yield None


def benchmark_run(command: str, folder: Path) -> tuple[int, str, str]:
    """``(exit code, stdout, stderr)`` of the ``ek benchmark`` line ``command``, run once per test run (see above)."""
    if command not in _RUNS:
        folder.mkdir(parents=True, exist_ok=True)
        name = hashlib.sha256(command.encode()).hexdigest()[:16]
        saved = folder / f"{name}.pickle"
        with _file_lock(folder / f"{name}.lock"):
            if saved.exists():
                code, out, err, readings = pickle.loads(saved.read_bytes())
                _keep(readings)
            else:
                code, out, err, readings = _run(command)
                part = saved.with_suffix(".part")
                part.write_bytes(pickle.dumps((code, out, err, readings)))
                os.replace(part, saved)  # whole or absent for a worker that reads it
        _RUNS[command] = (code, out, err)
    return _RUNS[command]


def cached_backend(real: Any, *, reuse: bool = True, record: dict[Any, Any] | None = None) -> Any:
    """``real`` (an ``ocracy_backend``) with every engine it binds keeping its readings in `READINGS`.

    With ``reuse`` a reading kept already is given again; without, every
    image is read for real (and kept, in ``record`` too when given).
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
                    if record is not None:
                        record[key] = READINGS[key]
                    if reuse:
                        MISSES.append(key)
                return kept
            return copy.deepcopy(kept)

        for name in ("backend", "options", "__name__", "__qualname__", "__doc__"):
            setattr(read, name, getattr(engine, name))
        return read

    ocracy_backend.uncached = real  # type: ignore[attr-defined]
    return ocracy_backend


def _run(command: str) -> tuple[int, str, str, dict[Any, Any]]:
    """Run ``command`` here from the repository root, every engine reading for real; what they read."""
    import pytest

    from ek.__main__ import main
    from ek.ocr import bridge

    out, err, readings = io.StringIO(), io.StringIO(), {}
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(ROOT)
        real = _unwrapped(bridge.ocracy_backend)
        patch.setattr(bridge, "ocracy_backend", cached_backend(real, reuse=False, record=readings))
        in_this_process(patch)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(shlex.split(command)[1:])
    return code, out.getvalue(), err.getvalue(), readings


def _keep(readings: dict[Any, Any]) -> None:
    with _LOCK:
        for key, value in readings.items():
            READINGS.setdefault(key, value)


@contextlib.contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    """Hold ``path`` locked against the other workers (POSIX); where there are no such locks, do not wait."""
    try:
        import fcntl
    except ImportError:  # Windows: a worker that finds no saved run runs the command itself
        yield
        return
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


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
