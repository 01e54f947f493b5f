"""Where ``--json`` and ``--html`` go: checked against the inputs first, then written whole or not at all.

`check_outputs` refuses an output path that resolves (links followed) to
an input file or into an input folder, and ``--json`` and ``--html``
naming one file: writing there would destroy what the run reads.
``-`` as the path of ``--json`` or ``--html`` (one of them) writes to standard
output instead (`write_json`, `write_page` return the text), and at most one
input may be ``-``. `write_text` writes a report to a temporary file in the target's folder
and renames it over the target (`os.replace`), so a run killed mid-write
leaves the old report or none, never half of one. A target that exists and
is not a regular file (a device such as ``/dev/full``, a FIFO) is written
in place. Every failure is an OSError whose message names the option and
the path.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Mapping

from ek._json import report_text

_FLAG_INPUTS = frozenset({"proxy", "audit", "plan", "window"})  # the inputs given by a flag, not as an argument


def check_outputs(
    inputs: Mapping[str, str], json_path: str | None, html_path: str | None, *, json_flag: str = "--json"
) -> None:
    """ValueError when an output path would overwrite an input (``inputs`` maps a role to a path) or the other output.

    ``json_flag`` is the flag of the first output when it is not ``--json``
    (``ek audit-plan --out``), so the message names the flag given.
    """
    outputs = {
        option: os.path.realpath(path)
        for option, path in ((json_flag, json_path), ("--html", html_path))
        if path is not None and path != "-"
    }
    if json_path == "-" and html_path == "-":
        raise ValueError("--json - and --html - both write to standard output; give one of them a file.")
    _one_standard_input(inputs)
    if len(outputs) == 2 and outputs[json_flag] == outputs["--html"]:
        raise ValueError(f"--json and --html both name {json_path}; give the report and the page their own files.")
    for option, target in outputs.items():
        for role, source in inputs.items():
            if source == "-" or not os.path.exists(source):
                continue  # standard input, or the name of a saved run
            real = os.path.realpath(source)
            inside = os.path.isdir(real) and target.startswith(real.rstrip(os.sep) + os.sep)
            if target == real or inside:
                where = "is" if target == real else "lies inside"
                raise ValueError(
                    f"{option} {target} {where} the input {_input_name(role)} {source}; writing it would "
                    "overwrite what the run reads, so write the report somewhere else."
                )


def write_json(path: str, payload: Mapping[str, object]) -> str:
    """Write ``payload`` as strict JSON to ``path``; ``-`` returns the text for standard output instead."""
    text = report_text(payload)
    if path == "-":
        return text
    write_text(path, text + "\n", option="--json")
    return ""


def write_page(path: str, html: str) -> str:
    """Write the ``--html`` page to ``path``; ``-`` returns it for standard output instead (as `write_json` does)."""
    if path == "-":
        return html
    write_text(path, html, option="--html")
    return ""


def write_text(path: str, text: str, *, option: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically (see the module doc); OSError names ``option`` and the path."""
    target = os.path.realpath(path)
    try:
        if os.path.exists(target) and not stat.S_ISREG(os.stat(target).st_mode):
            with open(target, "w", encoding="utf-8") as f:  # a device or a FIFO: no file to replace
                f.write(text)
            return
        folder = os.path.dirname(target)
        os.makedirs(folder, exist_ok=True)
        _replace(target, folder, text.encode("utf-8"))
    except OSError as exc:
        raise OSError(
            f"cannot write {option} {path}: {exc.strerror or exc}; free some space, check the "
            "permissions or choose another path."
        ) from None


# ---------------------------------------------------------------------------


def _one_standard_input(inputs: Mapping[str, str]) -> None:
    """ValueError when two inputs are ``-``: standard input can be read once, by one of them."""
    stdin = [_input_name(role) for role, source in inputs.items() if source == "-"]
    if len(stdin) > 1:
        raise ValueError(
            f"{' and '.join(stdin)} both name standard input (-); only one input can be read from it, so give "
            f"{stdin[-1]} as a file."
        )


def _input_name(role: str) -> str:
    """How the command line names an input: an argument in capitals (GOLD, PRED_A), a flag as it is (--audit)."""
    return role if role.startswith("--") else f"--{role}" if role in _FLAG_INPUTS else role.upper()


def _replace(target: str, folder: str, data: bytes) -> None:
    """Write ``data`` beside ``target`` and rename it over ``target``; the temporary file never outlives a failure."""
    fd, temporary = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(target)}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(temporary, _mode(target))
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


def _mode(target: str) -> int:
    """The permissions of the file replaced, or those a new file gets under the umask."""
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
