"""One writer per run: an advisory lock on a file beside the run's header.

A stored run is written by one process at a time. `RunLock` holds an
exclusive lock on ``runs/.<kind>.<run_id>.lock`` from the moment the run is
opened until it is closed or fails. A second writer of the same run is
refused at once with `BlockingIOError` naming the process that holds it; it
does not wait. Two writers of one name are a mistake (two CI jobs saving the
same baseline): waiting would only let the second silently replace the
first, and a refusal says so while both are still at hand.

The lock is ``fcntl.flock`` on POSIX and ``msvcrt.locking`` of the file's
first byte on Windows; both are dropped by the operating system when their
holder dies, however it dies, so a killed writer never leaves a run locked.
A child made by ``fork`` (a process pool's worker) closes its copy of every
held lock file, so the lock ends with its owner, not with the pool. A flock
belongs to the open file, which every such copy shares, so `RunLock.release`
unlocks before it closes: a copy that some child still has open (one forked
a moment ago that has not run its fork handler yet, or one spawned with the
file passed on) keeps no finished run locked. Opening and registering a lock
file is one step no ``fork`` of this process can split (`_GUARD`), and only
the process that took a lock ever unlocks it. Readers do not lock: a run
switches to a new version atomically (`ek._runs._records`).
Lock files stay in place once made (removing one that another process is
about to lock would be a race); each holds the pid and start time of its
last holder, for the refusal's message.
"""

from __future__ import annotations

import datetime
import os
import sys
import threading
import weakref
from pathlib import Path

__all__ = ["RunLock"]

_HELD: weakref.WeakSet[RunLock] = weakref.WeakSet()  # locks held in this process, closed in a forked child
# Held while a lock file is opened, locked and registered, or unregistered and closed, and across a fork of this
# process: a child then never has a copy of a lock file that `_HELD` does not name. Reentrant, so a `__del__` run by
# the garbage collector inside one of those steps cannot deadlock its own thread.
_GUARD = threading.RLock()


class RunLock:
    """An exclusive, non-blocking lock on one run, held from `acquire` to `release`."""

    def __init__(self, path: Path, what: str, who: str) -> None:
        self.path, self.what, self.who = path, what, who
        self._fd: int | None = None
        self._pid = 0  # the process that took the lock: in any other (a copy), the fd is not its to unlock

    @property
    def held(self) -> bool:
        return self._fd is not None and self._pid == os.getpid()

    def acquire(self) -> RunLock:
        """Take the lock, or raise BlockingIOError when another writer holds it."""
        if self.held:
            return self
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with _GUARD:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_BINARY", 0), 0o666)
            self._fd, self._pid = fd, os.getpid()
            _HELD.add(self)  # before the flock: a child forked from here on closes its copy
            try:
                _lock(fd)
            except OSError:
                self.release()
                taken = False
            else:
                taken = True
        if not taken:
            raise BlockingIOError(
                f"{self.who}: {self.what} is being written by another process{_holder(self.path)}; a run has "
                "one writer at a time, so wait for that one to finish, or use another name."
            )
        stamp = f"pid {os.getpid()} since {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M:%S} UTC"
        try:
            os.ftruncate(fd, 0)
            os.lseek(fd, 0, os.SEEK_SET)
            os.write(fd, stamp.encode("ascii"))
        except OSError:
            pass  # the stamp only helps the message of a refused writer
        return self

    def release(self) -> None:
        """Let the next writer in (nothing happens when the lock is not held)."""
        with _GUARD:
            fd, self._fd = self._fd, None
            _HELD.discard(self)
            if fd is None or self._pid != os.getpid():
                return  # a copy of a lock another process took: that fd number is not this process's lock
            try:
                _unlock(fd)
            finally:
                os.close(fd)

    def __enter__(self) -> RunLock:  # noqa: PYI034 - RunLock is final in use: no subclass
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()

    def __del__(self) -> None:  # a lock whose owner was dropped (an adapter that failed) frees the run
        try:
            self.release()
        except Exception:  # noqa: S110 - at interpreter exit the os module may be gone; the OS drops the lock anyway
            pass

    def _forget(self) -> None:
        """In a forked child: close this copy of the lock file, leaving the parent's lock in force."""
        fd, self._fd = self._fd, None
        if fd is not None:
            try:
                os.close(fd)
            except OSError:
                pass  # one copy that cannot be closed must not leave the next lock's copy open


def _holder(path: Path) -> str:
    try:
        text = path.read_text(encoding="ascii", errors="replace").strip()
    except OSError:  # Windows: the locked byte cannot be read
        return ""
    return f" ({text})" if text.startswith("pid ") else ""


def _before_fork() -> None:
    _GUARD.acquire()  # waits for a lock file half opened or half closed by another thread


def _after_fork_in_parent() -> None:
    _GUARD.release()


def _after_fork() -> None:
    global _GUARD
    # The copy of the parent's guard is held (by `_before_fork`, or by a thread this child does not have when a
    # fork skipped the handlers): start with a free one.
    _GUARD = threading.RLock()
    for lock in list(_HELD):
        lock._forget()
    _HELD.clear()


if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _lock(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)

    def _unlock(fd: int) -> None:
        try:
            os.lseek(fd, 0, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
        except OSError:
            pass
else:
    import fcntl

    def _lock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)

    def _unlock(fd: int) -> None:
        # Closing drops the lock only once every copy of the file is closed; a forked child may still hold one.
        fcntl.flock(fd, fcntl.LOCK_UN)

    os.register_at_fork(before=_before_fork, after_in_parent=_after_fork_in_parent, after_in_child=_after_fork)
