"""Engine ids and readiness: the functions behind ``ek engines`` and ``ek check ENGINE``.

ocracy names its backends with hyphens (``"google-vision"``); people type
underscores too (``"google_vision"``). `canonical_id` folds both to ocracy's
form. `installed_engines` and `check_engine` ask ocracy what can run here,
adding the one thing ocracy's own probe skips: a local engine's system binary
(the ``tesseract`` executable behind ``pytesseract``). The binary is looked
for apart from the Python side, so a machine with the program but without
ocracy or pytesseract is told that only the pip line is missing.
`check_engine` takes an engine as ``ek benchmark`` does, options after a
colon (``tesseract:lang=deu``), and checks those options too.

Some engines ek runs with packages of its own choosing rather than ocracy's:
RapidOCR runs with the models bundled in ``rapidocr_onnxruntime`` (see
`ek.ocr._rapidocr`), so it is installed only when that package and
``onnxruntime`` are, and the fix is ek's ``rapidocr`` extra, not ocracy's.

`check_engine` is the one judge of readiness: its ``state`` is ``"ready"``
(it can run now), ``"installed, not configured"`` (a cloud engine whose
package is installed but whose credential variable is not set),
``"not installed"`` (its Python package or system program is missing),
``"not ready"`` (ocracy says it cannot run, for another reason) or
``"unknown"`` (no such engine). ``ek engines`` lists each installed engine
with that state, so only ``"ready"`` ones are shown as usable, and
``ek check`` exits 2 unless the state is ``"ready"``.

ocracy is imported inside the functions only; without it `installed_engines`
raises `MissingExtraError` and `check_engine` reports the install line.
"""

from __future__ import annotations

import difflib
import os
import re
import shutil
from typing import Any

from ek._util import import_optional, install_hint, is_installed
from ek.ocr._engine_options import check_options, parse_engine
from ek.ocr._ids import canonical_id
from ek.ocr.profiles import profile

# Local engines whose Python package only wraps a program that must be on PATH.
_SYSTEM_BINARIES = {"tesseract": "tesseract"}

# Engines ek runs with its own packages: id -> (the packages, the ek extra that installs them, why).
_EK_PACKAGES = {
    "rapidocr": (
        ("rapidocr_onnxruntime", "onnxruntime"),
        "rapidocr",
        (
            "ek runs it with the PP-OCR models bundled in rapidocr_onnxruntime "
            "(rapidocr 3.x downloads its models when first run)"
        ),
    ),
}

# ocracy writes each credential as "export NAME  (get a key: URL)".
_EXPORT = re.compile(r"\s*export\s+([A-Za-z_][A-Za-z0-9_]*)")

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
    """ocracy's id for ``engine``, or KeyError listing the ids ocracy knows (the CLI prints it as it is)."""
    known = known_engines()
    cid = canonical_id(engine)
    if cid in known:
        return cid
    close = difflib.get_close_matches(cid, known, n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    raise KeyError(f"ocracy has no OCR engine {engine!r}.{hint} Known engines: {', '.join(known)}. Name one of these.")


def missing_binary(engine_id: str) -> str | None:
    """The name of the system program ``engine_id`` needs but cannot find, else None."""
    program = _SYSTEM_BINARIES.get(engine_id)
    if program is None or program_path(engine_id) is not None:
        return None
    return program


def missing_packages(engine_id: str) -> list[str]:
    """The Python packages ek runs ``engine_id`` with that are not installed here (ocracy's not included)."""
    entry = _EK_PACKAGES.get(engine_id)
    return [] if entry is None else [p for p in entry[0] if not is_installed(p)]


def program_path(engine_id: str) -> str | None:
    """Where the system program behind ``engine_id`` is, or None (also for engines without one)."""
    program = _SYSTEM_BINARIES.get(engine_id)
    if program is None:
        return None
    if engine_id == "tesseract" and is_installed("pytesseract"):
        # pytesseract lets users point at a binary outside PATH.
        import pytesseract

        program = getattr(pytesseract.pytesseract, "tesseract_cmd", program) or program
    return shutil.which(program)


def installed_engines() -> list[str]:
    """Ids of the OCR engines installed here: package importable and system binary found.

    Raises:
        MissingExtraError: ocracy (the ``ocr`` extra) is not installed.
    """
    ocracy = import_optional("ocracy", extra="ocr", feature="Listing OCR engines")
    return [b for b in sorted(ocracy.available_backends()) if missing_binary(b) is None and not missing_packages(b)]


def check_engine(engine: str) -> dict[str, Any]:
    """What ``engine`` needs to run here, as a dict; an unknown or missing engine is reported, not raised.

    ``engine`` is an id, with options after a colon as a fleet takes them
    (``"tesseract:lang=deu"``). Keys: ``engine`` (ocracy's id), ``ok`` (it
    can run now), ``state`` (see the module docstring), ``known`` (ocracy
    ships a facade for it), ``package`` (its Python package imports),
    ``binary`` (the system program's path, or None; only for engines that
    need one), ``credentials`` (environment variables a remote engine
    reads), ``options`` (the options given, parsed once ocracy knows the
    engine), ``profile``
    (`ek.ocr.profile`) and ``hint``: that it is ready, or why it is not and
    the commands that fix it. A malformed engine, or an option the engine
    does not take, is a ValueError.
    """
    if not isinstance(engine, str):
        raise TypeError(f"check_engine() takes an engine id such as 'tesseract', got {type(engine).__name__}.")
    if not engine.strip():
        raise ValueError("an empty engine id names no engine; name one, e.g. tesseract (ek engines lists them).")
    name, options = parse_engine(engine)
    cid = canonical_id(name)
    report: dict[str, Any] = {
        "engine": cid,
        "ok": False,
        "state": "not installed",
        "known": None,
        "package": None,
        "binary": None,
        "credentials": [],
        "options": dict(options),
        "profile": profile(cid),
        "hint": "",
    }
    if not is_installed("ocracy"):
        report.update(binary=program_path(cid), hint=_without_ocracy(cid))
        return report
    try:
        cid = resolve_engine_id(name)
    except KeyError as exc:
        report.update(known=False, state="unknown", hint=exc.args[0])
        return report
    import ocracy

    req = ocracy.requirements(cid)
    package = not missing_packages(cid) if cid in _EK_PACKAGES else bool(req.available)
    report.update(
        known=True,
        package=package,
        binary=program_path(cid),
        credentials=list(req.credentials) if req.is_remote else [],
        options=check_options(cid, options) if options else {},
    )
    report.update(_readiness(cid, req, bool(ocracy.is_set_up(cid)), missing_binary(cid)))
    return report


def _without_ocracy(cid: str) -> str:
    """The hint when ocracy is missing: its extra, and the system program only when it is not there already."""
    extra = _EK_PACKAGES[cid][1] if cid in _EK_PACKAGES else "ocr"  # ek's rapidocr extra brings ocracy too
    program = program_path(cid)
    if program is not None:
        return (
            f"OCR engines run through ocracy, which is not installed; the {_SYSTEM_BINARIES[cid]} program is "
            f"installed ({program}), so only the Python side is missing. Run: {install_hint(extra)}"
        )
    steps = [install_hint(extra)] + _system_steps(cid)
    return "OCR engines run through ocracy, which is not installed. Run: " + " ; ".join(steps)


def _readiness(cid: str, req: Any, set_up: bool, absent: str | None) -> dict[str, Any]:
    """``ok``, ``state`` and ``hint`` (why not, and the fix) from ocracy's requirements of ``cid``."""
    lacking = missing_packages(cid)
    if set_up and absent is None and not lacking:
        return {"ok": True, "state": "ready", "hint": f"{cid!r} is ready to run."}
    reasons: list[str] = []
    steps: list[str] = []
    if absent is not None:
        reasons.append(f"the {absent!r} program it runs is not on PATH")
        steps.extend(req.system or _system_steps(cid))
    if lacking:
        _, extra, why = _EK_PACKAGES[cid]
        reasons.append(f"{why}, and {' and '.join(lacking)} {'is' if len(lacking) == 1 else 'are'} not installed")
        steps.append(f"{install_hint(extra)} (or: pip install {' '.join(_EK_PACKAGES[cid][0])})")
    elif not req.available:
        program = None if absent is not None else program_path(cid)
        there = "" if program is None else f" (the {_SYSTEM_BINARIES[cid]} program it runs is, at {program})"
        reasons.append(f"its Python package is not installed{there}")
        steps.append(req.pip_command)
    if req.is_remote and not set_up:
        variables = _unset_credentials(req.credentials) or [_variable(c) for c in req.credentials]
        if variables:
            reasons.append(f"its credential {' or '.join(variables)} is not set")
        steps.extend(req.credentials)
    if absent is not None or lacking or not req.available:
        state = "not installed"
    elif req.is_remote and not set_up:
        state = "installed, not configured"
    else:
        state = "not ready"
    why = "; ".join(reasons) or "ocracy says it cannot run here"
    fix = "Run: " + " ; ".join(steps) if steps else f"See ocracy.requirements({cid!r}).instructions()."
    return {"ok": False, "state": state, "hint": f"{cid!r} is not ready: {why}. {fix}"}


def _variable(credential: str) -> str:
    """The environment variable in one of ocracy's ``"export NAME  (get a key: ...)"`` lines."""
    m = _EXPORT.match(credential)
    return m.group(1) if m else credential.strip()


def _unset_credentials(credentials: list[str]) -> list[str]:
    return [v for v in map(_variable, credentials) if not os.environ.get(v)]


def _system_steps(engine_id: str) -> list[str]:
    import sys

    recipe = _SYSTEM_INSTALL.get(engine_id)
    if recipe is None:
        return []
    platform = "darwin" if sys.platform == "darwin" else "windows" if sys.platform.startswith("win") else "linux"
    return [recipe[platform]]
