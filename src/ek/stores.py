"""Local-file persistence for ek: one JSON ``MutableMapping`` per kind of artifact.

Gold corpora, results, fitted calibrators, corrections, run logs and baselines
live under one per-user data folder, one subfolder per kind (`KINDS`). A store
behaves like a dict whose values are JSON: ``store["doc-001"] = {...}`` writes
``<folder>/doc-001.json`` and iteration lists the stored keys.

>>> import tempfile
>>> gold = json_store("gold", rootdir=tempfile.mkdtemp())
>>> gold["doc-001"] = {"reference_text": "hello world"}
>>> gold["doc-001"]["reference_text"], list(gold)
('hello world', ['doc-001'])

The data folder is ``$EK_DATA_HOME`` when that is set, otherwise
``$XDG_DATA_HOME/ek`` or ``~/.local/share/ek`` (``%LOCALAPPDATA%\\ek`` on
Windows), read on every call; pass ``rootdir=`` to use another folder.

Guarantees: a write goes to a hidden temporary file in the same folder, is
fsynced, then renamed over ``<key>.json``, so a crash never leaves a truncated
value; temporary files a killed writer left behind are removed by the next
process that writes to the folder. Keys are plain file names; anything that
could reach outside the folder is refused.

Files are strict JSON, readable by any JSON parser. A non-finite float is
written as ``{"$float": "NaN"}`` (or ``"Infinity"``, ``"-Infinity"``) and read
back as the float. A mapping inside a value must have str keys: ``{1: "a"}``
would read back as ``{"1": "a"}`` and could silently merge with a ``"1"`` key,
so it is refused before anything is written (the old value stays).

Errors are built-in types: ``TypeError`` (non-str key, value JSON cannot
hold), ``ValueError`` (unsafe key, unreadable JSON file, naming the path),
``KeyError`` (missing key, unknown kind in a `Mall`).
"""

from __future__ import annotations

import difflib
import functools
import json
import math
import os
import secrets
import sys
import time
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ParamSpec, overload

from ek._json import BadTag, dumps, loads, revive_float

if TYPE_CHECKING:
    from dol.caching import cache_this

__all__ = ["KINDS", "Mall", "app_folder", "cache_this", "data_dir", "json_store", "mall", "persistent_cache"]

#: The kinds of artifact ek persists; each is a subfolder with its own store.
KINDS = ("gold", "results", "calibrators", "corrections", "runs", "baselines")

_SUFFIX = ".json"
_MAX_NAME_BYTES = 240  # leaves room for ".json" under the usual 255-byte file name limit
_RULES = "a non-empty str of at most 240 UTF-8 bytes, with no '/', '\\' or NUL, not starting with '.', e.g. 'doc-001'"
_CACHE_PREFIX = "cache."  # persistent_cache entries, apart from ek's run records
_STALE_TMP_SECONDS = 3600.0  # an old-style temp file (no writer pid) this old is abandoned
_RESCAN_SECONDS = 60.0
_scanned: dict[Path, float] = {}  # folder -> monotonic time its stale temp files were last removed


def app_folder() -> Path:
    """The root ek data folder: ``$EK_DATA_HOME``, else the platform data folder + ``ek``.

    Environment variables are read on each call; the folder is not created.
    """
    return _default_root(os.environ, windows=os.name == "nt")


def data_dir(kind: str, *, rootdir: str | os.PathLike[str] | None = None) -> Path:
    """Folder backing ``kind``: ``<rootdir or app_folder()>/<kind>`` (not created here).

    Raises:
        TypeError: ``kind`` is not a str.
        ValueError: ``kind`` is not a plain folder name (e.g. ``"../x"``).
    """
    _check_name(kind, what="kind")
    root = app_folder() if rootdir is None else Path(os.fspath(rootdir)).expanduser()
    return root.absolute() / kind


def json_store(kind: str, *, rootdir: str | os.PathLike[str] | None = None) -> MutableMapping[str, Any]:
    """A JSON ``MutableMapping`` for one ``kind`` of artifact, rooted at ``data_dir(kind)``.

    Keys are plain names (no extension); values must be JSON-serializable, and
    read back as JSON gives them (tuples become lists, dict keys strings). The
    folder is created on the first write.
    """
    return _JsonStore(kind, data_dir(kind, rootdir=rootdir))


class Mall(Mapping[str, Any]):
    """A read-only mapping ``kind -> json_store(kind)``; ``mall["gold", key]`` reads one value.

    >>> import tempfile
    >>> m = Mall(rootdir=tempfile.mkdtemp())
    >>> m["gold"]["doc-1"] = [1, 2]
    >>> m["gold", "doc-1"]
    [1, 2]
    """

    def __init__(self, *, kinds: tuple[str, ...] = KINDS, rootdir: str | os.PathLike[str] | None = None) -> None:
        self._stores = {kind: json_store(kind, rootdir=rootdir) for kind in kinds}

    def __getitem__(self, item: Any) -> Any:
        if isinstance(item, tuple):
            if len(item) != 2:
                raise KeyError(
                    f"Mall tuple access takes (kind, key), got {len(item)} items: "
                    f"{item!r}. Use mall['gold', 'doc-001']."
                )
            kind, key = item
            return self[kind][key]
        try:
            return self._stores[item]
        except (KeyError, TypeError):
            pass
        hint = difflib.get_close_matches(item, self._stores, n=1) if isinstance(item, str) else []
        did_you_mean = f" Did you mean {hint[0]!r}?" if hint else ""
        raise KeyError(
            f"unknown kind {item!r}; this mall holds {', '.join(self._stores)}."
            f"{did_you_mean} Build Mall(kinds=...) for other kinds."
        )

    def __iter__(self) -> Iterator[str]:
        return iter(self._stores)

    def __len__(self) -> int:
        return len(self._stores)

    def __repr__(self) -> str:
        return f"Mall(kinds={tuple(self._stores)!r})"


def mall(*, rootdir: str | os.PathLike[str] | None = None) -> Mall:
    """The full mall: one JSON store for each of `KINDS`."""
    return Mall(rootdir=rootdir)


_P = ParamSpec("_P")


@overload
def persistent_cache(
    func: Callable[_P, object],
    *,
    kind: str = "runs",
    key: str | Callable[..., str] | None = None,
    rootdir: str | os.PathLike[str] | None = None,
) -> Callable[_P, Any]: ...


@overload
def persistent_cache(
    func: None = None,
    *,
    kind: str = "runs",
    key: str | Callable[..., str] | None = None,
    rootdir: str | os.PathLike[str] | None = None,
) -> Callable[[Callable[_P, object]], Callable[_P, Any]]: ...


def persistent_cache(
    func: Callable[..., object] | None = None,
    *,
    kind: str = "runs",
    key: str | Callable[..., str] | None = None,
    rootdir: str | os.PathLike[str] | None = None,
) -> object:
    """Memoize ``func``'s JSON-serializable result in the ``kind`` store, across sessions.

    ``key`` is a constant, or a callable given the call's arguments that returns
    the key; by default it is ``func``'s module and qualified name (so two
    functions of the same name in different modules never share an entry);
    give a key to functions that take arguments. Entries are stored as
    ``cache.<key>``, a namespace of their own, so no cache key can read or
    overwrite a run record kept in the same store. The store is resolved on
    each call (``EK_DATA_HOME`` included). Every call returns the JSON form of
    the result, so the first call and later sessions agree (a tuple comes back
    as a list). A key is checked before ``func`` runs; a result JSON cannot
    hold raises ``TypeError`` and is not cached.

    >>> import tempfile; root = tempfile.mkdtemp()
    >>> @persistent_cache(key=lambda n: f"square-{n}", rootdir=root)
    ... def square(n):
    ...     return (n, n * n)
    >>> square(3), sorted(json_store("runs", rootdir=root))
    ([3, 9], ['cache.square-3'])

    For methods and properties, use `cache_this` (dol's descriptor).
    """
    if func is not None and not callable(func):
        raise TypeError(
            f"persistent_cache got {func!r:.60} where a function belongs; pass "
            f"the key by name: @persistent_cache(key={func!r:.60})."
        )
    _check_name(kind, what="kind")
    if key is not None and not callable(key):
        _cache_key(key)

    def decorate(f: Callable[..., object]) -> Callable[..., Any]:
        @functools.wraps(f)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if key is None:
                k = f"{getattr(f, '__module__', None) or '?'}.{f.__qualname__}"
            else:
                k = key(*args, **kwargs) if callable(key) else key
            k = _cache_key(k)
            store = _JsonStore(kind, data_dir(kind, rootdir=rootdir))
            try:
                return store[k]
            except KeyError:
                pass
            return loads(store._write(k, f(*args, **kwargs)))

        return wrapper

    return decorate if func is None else decorate(func)


def __getattr__(name: str) -> Any:
    # `cache_this` is dol's; importing dol costs ~0.2 s, so only do it on first use.
    if name == "cache_this":
        from dol.caching import cache_this

        globals()["cache_this"] = cache_this
        return cache_this
    raise AttributeError(f"module 'ek.stores' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | {"cache_this"})


class _JsonStore(MutableMapping[str, Any]):
    """One folder of ``<key>.json`` files seen as a mapping (see `json_store`)."""

    def __init__(self, kind: str, path: Path) -> None:
        self.kind = kind
        self.path = path

    def __getitem__(self, key: str) -> Any:
        return self._read(key)

    def _read(self, key: str, revive: Callable[[dict[str, Any]], Any] | None = None) -> Any:
        """The value of ``key``; ``revive`` (`ek._json.revive`) rebuilds typed values too, not only floats.

        An error ``revive`` raises for a damaged tag other than a float's propagates
        unchanged, for the caller to explain.
        """
        file = self._file(key)
        try:
            with open(file, encoding="utf-8") as fh:
                return json.load(fh, object_hook=revive_float if revive is None else revive)
        except FileNotFoundError:
            raise KeyError(key) from None
        except BadTag as exc:
            raise ValueError(
                f"{file} holds {exc}, so key {key!r} of the {self.kind!r} store cannot be read. "
                "Repair the file, or delete it to drop the entry."
            ) from None
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise ValueError(
                f"{file} is not valid UTF-8 JSON ({exc}), so key {key!r} of the {self.kind!r} "
                "store cannot be read. Repair the file, or delete it to drop the entry."
            ) from exc
        except RecursionError:
            raise ValueError(
                f"{file} nests JSON arrays or objects too deeply to be read (Python's parser stops near "
                f"{sys.getrecursionlimit()} levels), so key {key!r} of the {self.kind!r} store cannot be read; "
                "no record ek writes is nested like that. Repair the file, or delete it to drop the entry."
            ) from None

    def __setitem__(self, key: str, value: Any) -> None:
        self._write(key, value)

    def __delitem__(self, key: str) -> None:
        try:
            os.remove(self._file(key))
        except FileNotFoundError:
            raise KeyError(key) from None

    def __iter__(self) -> Iterator[str]:
        try:
            entries = list(os.scandir(self.path))
        except FileNotFoundError:
            return iter(())
        return iter(
            sorted(
                e.name[: -len(_SUFFIX)]
                for e in entries
                if e.name.endswith(_SUFFIX) and not e.name.startswith(".") and e.is_file()
            )
        )

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __contains__(self, key: object) -> bool:
        try:
            return self._file(key).is_file()
        except (TypeError, ValueError):
            return False  # an unsafe key can never be stored

    def __repr__(self) -> str:
        return f"json_store({self.kind!r}, rootdir={str(self.path.parent)!r})"

    def _file(self, key: Any) -> Path:
        return self.path / (_check_name(key, what="key") + _SUFFIX)

    def _write(self, key: str, value: Any) -> str:
        """Atomically store ``value`` under ``key``; return the JSON text written."""
        file = self._file(key)
        try:
            text = dumps(value, key=key)
        except RecursionError:
            raise ValueError(
                f"the value for key {key!r} nests lists or mappings too deeply for JSON (Python's encoder stops "
                f"near {sys.getrecursionlimit()} levels); store a flatter value. Nothing was written."
            ) from None
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:  # lone surrogates: fall back to \\u escapes
            text = dumps(value, key=key, ascii_only=True)
            data = text.encode("ascii")
        self.path.mkdir(parents=True, exist_ok=True)
        _remove_stale_temp_files(self.path)
        tmp = self.path / f".{key[:40]}.{os.getpid()}-{secrets.token_hex(8)}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, file)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        return text


def _remove_stale_temp_files(folder: Path) -> None:
    """Delete the temporary files of writers that died before renaming them (once a minute).

    A temp file names its writer's process id; it is stale when that process
    is gone. Older temp files, without a pid, are stale after an hour.
    """
    now = time.monotonic()
    if now - _scanned.get(folder, -math.inf) < _RESCAN_SECONDS:
        return
    _scanned[folder] = now
    try:
        entries = [e for e in os.scandir(folder) if e.name.startswith(".") and e.name.endswith(".tmp")]
    except OSError:
        return
    for entry in entries:
        owner = entry.name[:-4].rsplit(".", 1)[-1].split("-")[0]
        try:
            stale = (
                (not _alive(int(owner)))
                if owner.isdigit()
                else (time.time() - entry.stat().st_mtime > _STALE_TMP_SECONDS)
            )
            if stale:
                os.remove(entry.path)
        except OSError:
            continue  # gone already, or not ours to remove


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError, ValueError, OverflowError):
        return True  # exists under another user, or cannot be told: keep the file
    return True


def _cache_key(key: Any) -> str:
    """``cache.<key>``, after checking ``key`` itself is a safe name."""
    _check_name(key, what="key")
    return _check_name(_CACHE_PREFIX + key, what="key")


def _check_name(name: Any, *, what: str) -> str:
    """Return ``name`` if it is a safe single file name, else raise saying what is allowed."""
    if not isinstance(name, str):
        raise TypeError(f"a store {what} must be a str, got {type(name).__name__}: {name!r:.60}. A {what} is {_RULES}.")
    problem = _name_problem(name)
    if problem:
        raise ValueError(f"store {what} {name!r:.80} is refused because {problem}; a {what} must be {_RULES}.")
    return name


def _name_problem(name: str) -> str | None:
    """Why ``name`` cannot be used as a file name inside a store folder (None if it can)."""
    if not name:
        return "it is empty"
    if "/" in name or "\\" in name:
        return "it contains a path separator"
    if "\0" in name:
        return "it contains a NUL character"
    if name.startswith("."):
        return "it starts with '.' (reserved for '.', '..' and temporary files)"
    try:
        size = len(name.encode("utf-8"))
    except UnicodeEncodeError:
        return "it contains a lone surrogate, which no file name can hold"
    if size > _MAX_NAME_BYTES:
        return f"it takes {size} UTF-8 bytes, too long for a file name"
    return None


def _default_root(environ: Mapping[str, str], *, windows: bool) -> Path:
    """The data root for an environment (``EK_DATA_HOME`` wins; relative XDG paths are ignored)."""
    override = environ.get("EK_DATA_HOME")
    if override:
        return Path(override).expanduser().absolute()
    if windows:
        base = environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
    else:
        xdg = environ.get("XDG_DATA_HOME", "")
        base = xdg if os.path.isabs(xdg) else str(Path.home() / ".local" / "share")
    return Path(base) / "ek"
