"""What read a fleet's pages: each engine's version and the model files it ran with, asked once per run.

A figure is only as reproducible as the engine behind it: Tesseract 4 and 5
read the same page differently, and so do two ``frk.traineddata`` files.
`engine_versions` records, for every engine of a fleet, a `version` record:

* ``version``: the engine's own version line: Tesseract's ``--version``
  first line (``"tesseract 5.3.0"``), RapidOCR's package and version
  (``"rapidocr_onnxruntime 1.4.4"``), or a callable's ``version`` attribute;
* ``packages``: the Python packages ek ran it through, with their versions
  (``pytesseract``, ``onnxruntime``, ``ocracy``);
* ``models``: the model files, each ``{"role", "name", "file", "path",
  "bytes", "modified"}`` and, for a Tesseract language, the ``version``
  string stored inside its ``.traineddata`` (its entry 23, read from the
  file's table of offsets without loading the model). Tesseract's languages
  are those of its ``lang`` option (``eng`` when none is given, as Tesseract
  does), found in the folder ``tesseract --list-langs`` names; RapidOCR's
  are the detector, recogniser and direction classifier its
  ``config.yaml`` names;
* ``missing``: what could not be found, in words (empty when nothing is).
  An engine ek cannot ask (another ocracy engine, a callable without a
  ``version``) says so here rather than leaving the fields silently empty.

Everything is asked once per fleet run, not per page: two subprocess calls
for Tesseract (a few milliseconds each), file headers and package metadata
for the rest. Nothing here fails a run: a question that cannot be answered
becomes a line of ``missing``.
"""

from __future__ import annotations

import datetime
import importlib.metadata
import os
import re
import struct
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["engine_versions"]

_TIMEOUT = 10.0  # seconds a version question may take
_LIST_LANGS = re.compile(r'"([^"]+)"')  # the folder in "List of available languages in "DIR" (4):"
_VERSION_ENTRY = 23  # TESSDATA_VERSION in Tesseract's tessdatamanager.h
_MODEL_PATH = re.compile(r"^\s+model_path:\s*(\S+)\s*$")
_SECTION = re.compile(r"^([A-Za-z]+):\s*$")
_RAPIDOCR_ROLES = {"Det": "det", "Rec": "rec", "Cls": "cls"}


def engine_versions(specs: Any) -> dict[str, dict[str, Any]]:
    """``name -> version record`` of every `EngineSpec` in ``specs`` (each distinct engine asked once)."""
    asked: dict[str, dict[str, Any]] = {}
    out = {}
    for spec in specs:
        if callable(spec.engine):
            out[spec.name] = _callable_version(spec.engine)
            continue
        key = f"{spec.engine} {spec.options.get('lang')!r}"
        if key not in asked:
            asked[key] = _ocracy_version(spec.engine, spec.options)
        out[spec.name] = asked[key]
    return out


# ---------------------------------------------------------------------------


def _record(version: str | None, packages: dict[str, str], models: list[Any], missing: list[str]) -> dict[str, Any]:
    return {"version": version, "packages": packages, "models": models, "missing": missing}


def _callable_version(engine: Any) -> dict[str, Any]:
    version = getattr(engine, "version", None)
    if isinstance(version, str) and version:
        return _record(version, {}, [], [])
    return _record(
        None,
        {},
        [],
        ["a callable engine gives no version; give it a 'version' attribute (a str) to have one recorded"],
    )


def _ocracy_version(engine_id: str, options: Mapping[str, Any]) -> dict[str, Any]:
    packages = _packages(("ocracy",))
    if engine_id == "tesseract":
        return _tesseract(options, packages)
    if engine_id == "rapidocr":
        return _rapidocr(packages)
    return _record(
        None,
        packages,
        [],
        [f"ek does not know how to ask {engine_id} for its version or models (only ocracy's version is recorded)"],
    )


def _packages(names: tuple[str, ...]) -> dict[str, str]:
    """``name -> installed version`` of those of ``names`` that are installed."""
    out = {}
    for name in names:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return out


def _tesseract(options: Mapping[str, Any], packages: dict[str, str]) -> dict[str, Any]:
    """Tesseract's version line and the ``.traineddata`` of each language it reads with."""
    from ek.ocr._engines import program_path

    packages = {**_packages(("pytesseract",)), **packages}
    program = program_path("tesseract")
    if program is None:
        return _record(None, packages, [], ["the tesseract program is not on PATH, so its version is unknown"])
    missing: list[str] = []
    version = _first_line(_ask([program, "--version"]))
    if version is None:
        missing.append(f"{program} --version printed nothing")
    found = _LIST_LANGS.search(_ask([program, "--list-langs"]) or "")  # the folder it reads (TESSDATA_PREFIX too)
    if found is None:
        missing.append(f"{program} --list-langs named no tessdata folder, so the language files are unknown")
        return _record(version, packages, [], missing)
    tessdata = Path(found.group(1))
    models = []
    for lang in str(options.get("lang") or "eng").split("+"):
        path = tessdata / f"{lang}.traineddata"
        if not path.is_file():
            missing.append(f"no {path.name} in {tessdata}")
            continue
        model = _file_fields("language", lang, path)
        inner = _traineddata_version(path)
        if inner:
            model["version"] = inner
        models.append(model)
    return _record(version, packages, models, missing)


def _rapidocr(packages: dict[str, str]) -> dict[str, Any]:
    """RapidOCR's package version and the three ONNX models its bundled config names."""
    import importlib.util

    installed = _packages(("rapidocr_onnxruntime", "onnxruntime"))
    packages = {**installed, **packages}
    if "rapidocr_onnxruntime" not in installed:
        return _record(None, packages, [], ["rapidocr_onnxruntime is not installed, so its version is unknown"])
    version = f"rapidocr_onnxruntime {installed['rapidocr_onnxruntime']}"
    spec = importlib.util.find_spec("rapidocr_onnxruntime")
    folder = Path(spec.origin).parent if spec is not None and spec.origin else None
    config = folder / "config.yaml" if folder is not None else None
    if config is None or not config.is_file():
        return _record(version, packages, [], ["rapidocr_onnxruntime has no config.yaml, so its models are unknown"])
    models, missing = [], []
    for role, relative in _config_models(config.read_text(encoding="utf-8")):
        path = folder / relative if folder is not None else Path(relative)
        if path.is_file():
            models.append(_file_fields(role, path.stem, path))
        else:
            missing.append(f"the {role} model {relative} named by {config} is not there")
    return _record(version, packages, models, missing)


def _config_models(text: str) -> list[tuple[str, str]]:
    """``(role, model_path)`` of each of the Det, Rec and Cls sections of a RapidOCR ``config.yaml``."""
    out, section = [], None
    for line in text.splitlines():
        head = _SECTION.match(line)
        if head:
            section = head.group(1)
            continue
        found = _MODEL_PATH.match(line)
        if found and section in _RAPIDOCR_ROLES:
            out.append((_RAPIDOCR_ROLES[section], found.group(1)))
    order = list(_RAPIDOCR_ROLES.values())
    return sorted(out, key=lambda pair: order.index(pair[0]))


def _file_fields(role: str, name: str, path: Path) -> dict[str, Any]:
    stat = path.stat()
    modified = datetime.datetime.fromtimestamp(stat.st_mtime, tz=datetime.timezone.utc)
    return {
        "role": role,
        "name": name,
        "file": path.name,
        "path": str(path),
        "bytes": stat.st_size,
        "modified": modified.strftime("%Y-%m-%dT%H:%M:%SZ"),
    }


def _traineddata_version(path: Path) -> str | None:
    """The version string inside a ``.traineddata`` file (None for a file without one, e.g. ``osd``).

    The file opens with the number of entries (int32) and each entry's
    offset (int64, -1 for an absent one), little-endian; an entry runs to
    the next present offset or the end of the file.
    """
    try:
        with open(path, "rb") as handle:
            (n,) = struct.unpack("<i", handle.read(4))
            if not _VERSION_ENTRY < n <= 64:
                return None
            offsets = struct.unpack(f"<{n}q", handle.read(8 * n))
            start = offsets[_VERSION_ENTRY]
            if start < 0:
                return None
            size = os.fstat(handle.fileno()).st_size
            end = min([o for o in offsets if o > start] + [size])
            if end - start > 256:  # a version string is a short line; anything longer is not one
                return None
            handle.seek(start)
            return handle.read(end - start).decode("utf-8", "replace").strip("\0 \n") or None
    except (OSError, struct.error):
        return None


def _ask(argv: list[str]) -> str | None:
    """What ``argv`` prints (stdout, else stderr, where old Tesseracts print), None when it cannot run."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=_TIMEOUT, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout or done.stderr


def _first_line(text: str | None) -> str | None:
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    return lines[0] if lines else None
