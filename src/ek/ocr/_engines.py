"""Engine ids and readiness: the functions behind ``ek engines`` and ``ek check ENGINE``.

ocracy names its backends with hyphens (``"google-vision"``); people type
underscores too (``"google_vision"``). `canonical_id` folds both to ocracy's
form. `installed_engines` and `check_engine` ask ocracy what can run here,
adding the one thing ocracy's own probe skips: a local engine's system binary
(the ``tesseract`` executable behind ``pytesseract``).

ocracy is imported inside the functions only; without it `installed_engines`
raises `MissingExtraError` and `check_engine` reports the install line.
"""

from __future__ import annotations

import difflib
import shutil
from typing import Any, Optional

from ek._util import import_optional, install_hint, is_installed
from ek.ocr._ids import canonical_id
from ek.ocr.profiles import profile

# Local engines whose Python package only wraps a program that must be on PATH.
_SYSTEM_BINARIES = {"tesseract": "tesseract"}

# How to get each system binary, per platform (ocracy's recipes say the same;
# this copy is used when ocracy itself is missing).
_SYSTEM_INSTALL = {
    "tesseract": {
        "linux": "apt-get install -y tesseract-ocr",
        "darwin": "brew install tesseract",
        "windows": "choco install tesseract (or the UB-Mannheim installer)",
    },
}


def known_engines() -> list[str]:
    """Every backend id ocracy ships a facade for (sorted)."""
    ocracy = import_optional("ocracy", extra="ocr", feature="OCR engines")
    return sorted(ocracy.list_backends())


def resolve_engine_id(engine: str) -> str:
    """ocracy's id for ``engine``, or KeyError listing the ids ocracy knows."""
    known = known_engines()
    cid = canonical_id(engine)
    if cid in known:
        return cid
    close = difflib.get_close_matches(cid, known, n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    raise KeyError(
        f"ocracy has no OCR engine {engine!r}.{hint} Known engines: {', '.join(known)}. "
        "Pass one of these ids, or an image -> OcrResult callable of your own."
    )


def missing_binary(engine_id: str) -> Optional[str]:
    """The name of the system program ``engine_id`` needs but cannot find, else None."""
    program = _SYSTEM_BINARIES.get(engine_id)
    if program is None or _program_path(engine_id) is not None:
        return None
    return program


def _program_path(engine_id: str) -> Optional[str]:
    """Where the system program behind ``engine_id`` is, or None (also for engines without one)."""
    program = _SYSTEM_BINARIES.get(engine_id)
    if program is None:
        return None
    if engine_id == "tesseract" and is_installed("pytesseract"):
        # pytesseract lets users point at a binary outside PATH.
        import pytesseract  # noqa: PLC0415 - optional engine wrapper

        program = getattr(pytesseract.pytesseract, "tesseract_cmd", program) or program
    return shutil.which(program)


def installed_engines() -> list[str]:
    """Ids of the OCR engines installed here: package importable and system binary found.

    Raises:
        MissingExtraError: ocracy (the ``ocr`` extra) is not installed.
    """
    ocracy = import_optional("ocracy", extra="ocr", feature="Listing OCR engines")
    return [b for b in sorted(ocracy.available_backends()) if missing_binary(b) is None]


def check_engine(engine: str) -> dict:
    """What ``engine`` needs to run here, as a dict; an unknown or missing engine is reported, not raised.

    Keys: ``engine`` (ocracy's id), ``ok`` (it can run now), ``known`` (ocracy
    ships a facade for it), ``package`` (its Python package imports),
    ``binary`` (the system program's path, or None; only for engines that need
    one), ``credentials`` (environment variables a remote engine reads),
    ``profile`` (`ek.ocr.profile`) and ``hint`` (what to do next).
    """
    if not isinstance(engine, str):
        raise TypeError(f"check_engine() takes an engine id such as 'tesseract', got {type(engine).__name__}.")
    if not engine.strip():
        raise ValueError("check_engine() got an empty engine id; name one, e.g. 'tesseract' (see `ek engines`).")
    cid = canonical_id(engine)
    report: dict[str, Any] = {"engine": cid, "ok": False, "known": None, "package": None,
                              "binary": None, "credentials": [], "profile": profile(cid), "hint": ""}
    if not is_installed("ocracy"):
        steps = [install_hint("ocr")] + _system_steps(cid)
        report["hint"] = "OCR engines run through ocracy, which is not installed. Run: " + " ; ".join(steps)
        return report
    try:
        cid = resolve_engine_id(engine)
    except KeyError as exc:
        report.update(known=False, hint=exc.args[0])
        return report
    import ocracy  # noqa: PLC0415 - optional, present (checked above)

    req = ocracy.requirements(cid)
    absent = missing_binary(cid)
    set_up = bool(ocracy.is_set_up(cid))
    report.update(known=True, package=bool(req.available),
                  credentials=list(req.credentials) if req.is_remote else [])
    report["binary"] = _program_path(cid)
    report["ok"] = set_up and absent is None
    if report["ok"]:
        report["hint"] = f"{cid!r} is ready to run."
        return report
    steps = []
    if absent is not None:
        steps.extend(req.system or _system_steps(cid))
    if not req.available:
        steps.append(req.pip_command)
    if not set_up and req.is_remote:
        steps.extend(req.credentials)
    if steps:
        report["hint"] = f"{cid!r} is not ready. Run: " + " ; ".join(steps)
    else:
        report["hint"] = f"{cid!r} is not ready; see ocracy.requirements({cid!r}).instructions()."
    return report


def _system_steps(engine_id: str) -> list[str]:
    import sys  # noqa: PLC0415

    recipe = _SYSTEM_INSTALL.get(engine_id)
    if recipe is None:
        return []
    platform = "darwin" if sys.platform == "darwin" else "windows" if sys.platform.startswith("win") else "linux"
    return [recipe[platform]]

