"""The files of a document folder, found and read safely.

`list_files` walks a folder and returns an `Entry` for every file whose
name a side wants, and a `Skipped` for each such name it will not read,
with the reason:

* Only regular files are read. A FIFO, a device or a socket is skipped:
  reading a FIFO waits for a writer that may never come, and a device such
  as ``/dev/zero`` never ends.
* A symbolic link that stays inside the folder is followed; one that leaves
  it is skipped unless ``follow_symlinks=True`` (a link to a device is then
  still skipped, as a device). A broken link is skipped. Each real folder
  is walked once, so a link cannot make a loop.
* Hidden files and folders (a name starting with ``.``) are passed over
  silently, as are files whose names the side does not want (the images
  beside the transcriptions).

`read_bounded` reads one file, never more than ``max_bytes`` of it (in
folders only when it is a regular file, opened without blocking), so
neither a huge file nor an endless one can exhaust the memory.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass

from ek._files._errors import InputError
from ek._reading import MAX_FILE_MB

_CHUNK = 1 << 24  # bytes read by one call
_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


@dataclass(frozen=True)
class Entry:
    """A regular file found in a folder: ``rel`` is its ``/``-separated path below the folder."""

    rel: str
    path: str  # the path to open (the folder joined with rel)


@dataclass(frozen=True)
class Skipped:
    """A file that is not read, and why."""

    path: str
    reason: str


@dataclass(frozen=True)
class Listing:
    """The files of a folder to read, in ``rel`` order, and the ones skipped."""

    entries: tuple[Entry, ...]
    skipped: tuple[Skipped, ...]


def list_files(root: str, wanted: Callable[[str], bool], *, follow_symlinks: bool = False) -> Listing:
    """The files below ``root`` whose name ``wanted(name)`` accepts, and the skipped ones (see the module doc)."""
    real_root = os.path.realpath(root)
    entries: list[Entry] = []
    skipped: list[Skipped] = []
    seen = {real_root}
    pending = [(root, "")]
    while pending:
        folder, prefix = pending.pop()
        try:
            with os.scandir(folder) as found:
                names = sorted((e.name, e) for e in found if not e.name.startswith("."))
        except OSError as exc:
            if folder == root:
                raise InputError(
                    f"cannot list the folder {root}: {exc.strerror or exc}; check its permissions."
                ) from None
            skipped.append(Skipped(folder, f"a folder that cannot be listed: {exc.strerror or exc}"))
            continue
        for name, item in names:
            path = os.path.join(folder, name)
            mode, reason = _mode(item, path, real_root, follow_symlinks)
            is_dir = mode is not None and stat.S_ISDIR(mode)
            if reason is not None:
                if is_dir or wanted(name):
                    skipped.append(Skipped(path, reason))
            elif is_dir:
                real = os.path.realpath(path)
                if real not in seen:
                    seen.add(real)
                    pending.append((path, f"{prefix}{name}/"))
            elif not wanted(name):
                continue
            elif mode is not None and stat.S_ISREG(mode):  # mode is None only with a reason
                entries.append(Entry(prefix + name, path))
            else:
                skipped.append(Skipped(path, _kind(mode)))
    entries.sort(key=lambda e: e.rel)
    skipped.sort(key=lambda s: s.path)
    return Listing(tuple(entries), tuple(skipped))


def read_bounded(path: str, label: str, max_bytes: int, *, regular_only: bool = False) -> bytes:
    """The bytes of ``path``, or InputError when it is larger than ``max_bytes`` (or, with ``regular_only``, not a regular file)."""
    flags = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | (getattr(os, "O_NONBLOCK", 0) if regular_only else 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise InputError(f"cannot read {label}: {exc.strerror or exc}; check the path and its permissions.") from None
    try:
        info = os.fstat(fd)
        if regular_only and not stat.S_ISREG(info.st_mode):
            raise InputError(
                f"{label} is {_kind(info.st_mode)}, not a regular file; ek reads only regular files in a folder."
            )
        if stat.S_ISREG(info.st_mode) and info.st_size > max_bytes:
            raise too_big_error(label, info.st_size, max_bytes)
        chunks, size = [], 0
        while chunk := os.read(fd, min(max_bytes + 1 - size, _CHUNK)):
            chunks.append(chunk)
            size += len(chunk)
            if size > max_bytes:
                raise too_big_error(label, None, max_bytes)
    except OSError as exc:
        raise InputError(f"cannot read {label}: {exc.strerror or exc}; check the file.") from None
    finally:
        os.close(fd)
    return b"".join(chunks)


def read_head(path: str, size: int = 4096) -> bytes:
    """The first ``size`` bytes of a file (b"" when it cannot be read), opened without blocking."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return b""
    with os.fdopen(fd, "rb") as f:
        try:
            return f.read(size) if stat.S_ISREG(os.fstat(fd).st_mode) else b""
        except OSError:
            return b""


def max_bytes_of(max_file_mb: float) -> int:
    """``max_file_mb`` megabytes in bytes; ValueError unless it is a positive number."""
    if isinstance(max_file_mb, bool) or not isinstance(max_file_mb, (int, float)) or not 0 < max_file_mb < float("inf"):
        raise ValueError(
            f"max_file_mb (--max-file-mb) must be a positive number of megabytes, got {max_file_mb!r}; "
            f"the default is {MAX_FILE_MB}."
        )
    return int(max_file_mb * 1024 * 1024)


def too_big_error(label: str, size: int | None, max_bytes: int) -> InputError:
    """The error for an input larger than ``max_bytes`` (``size`` None: it had no end in sight)."""
    limit = f"--max-file-mb {round(max_bytes / (1024 * 1024), 6):g}"
    has = f"is {size / (1024 * 1024):.3g} MB, more than {limit}" if size is not None else f"holds more than {limit} MB"
    return InputError(f"{label} {has}; raise --max-file-mb (max_file_mb=) to read it.")


# ---------------------------------------------------------------------------


def _mode(item: os.DirEntry[str], path: str, real_root: str, follow_symlinks: bool) -> tuple[int | None, str | None]:
    """(st_mode of what ``item`` names, or None; the reason to skip it, or None).

    Plain files and folders are told by the folder listing itself (no stat);
    anything else is stat-ed, which, unlike an open, never waits on a FIFO.
    """
    try:
        if not item.is_symlink():
            if item.is_file(follow_symlinks=False):
                return stat.S_IFREG, None
            if item.is_dir(follow_symlinks=False):
                return stat.S_IFDIR, None
            return item.stat(follow_symlinks=False).st_mode, None
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return None, "a broken link (its target does not exist)"
    except OSError as exc:
        return None, f"cannot be examined: {exc.strerror or exc}"
    target = os.path.realpath(path)
    if not follow_symlinks and not (target == real_root or target.startswith(real_root.rstrip(os.sep) + os.sep)):
        return mode, f"a link out of the folder (to {target}); pass --follow-symlinks to read it"
    return mode, None


def _kind(mode: int | None) -> str:
    for test, name in _KINDS:
        if mode is not None and test(mode):
            return name
    return "not a regular file"
