"""Where runs and baselines are stored, in which format, and how a resume is checked.

Layout (every key starts with its kind, so kinds never meet, nor meet
``persistent_cache``'s ``cache.`` entries):

* ``runs`` store, ``<kind>.<run_id>`` (the run's `store_key`, see "File
  names" below): the run header: format, kind, run id, status (``running``
  / ``complete``), start time, the settings fingerprint, the generation of
  its chunks (absent for the first) and, once complete, the ``summary`` and
  ``resumed`` (the items the run took from the store and those it ran, for
  a run that went through `ek._runs.execute`); while a replacement is being
  written, its own header under ``staging`` (see `RunStore`). Beside it,
  the hidden lock file ``.<kind>.<run_id>.lock`` (`ek._runs._lock`);
* ``results`` store, ``<kind>.<run_id>.<seq>`` (or ``<seq>.<generation>``):
  one chunk of finished items (six-digit sequence numbers),
  ``{"items": {item_id: entry}}``; a later chunk overrides an earlier one
  for the same item;
* ``baselines`` store, ``<kind>.<name>``: a frozen report.

Every record carries ``"format": 2`` and its ``"kind"``. Records of the
first format (no kind, keys without a prefix) are refused for runs, with a
message saying how to start over; baselines of that format are still read.

File names. A run's files are named by `store_key`, made of
``[A-Za-z0-9._-]`` only, so they can be copied to any file system (Windows
refuses ``:``) and typed in a shell: ``<kind>.<run_id>`` itself when the id
is made of those characters, else a readable slug of the id and 12 hex
digits of its hash, ``fleet.nightly.tesseract_lang_frk--b2fc1f23f8fb`` for
the run ``nightly.tesseract:lang=frk``. The encoding is stable (the same id
always gives the same name) and collision-free: a plain id that happens to
end like an encoded one (``--`` and 12 hex digits) is encoded too, so an
encoded name never names a plain id. The readable id is kept in the run's
records (``run_id`` in its header and chunks), which is where `stored_runs`
reads it. A run stored under its raw id by an earlier version of ek (file
names with ``:`` or ``=``) is still found, read and resumed there: its files
are never renamed, so nothing stored is lost.
"""

from __future__ import annotations

import datetime
import functools
import hashlib
import re
import secrets
import unicodedata
from collections.abc import Callable, Mapping
from typing import Any

from ek._json import revive
from ek._runs._lock import RunLock
from ek.stores import data_dir, json_store

__all__ = [
    "FORMAT",
    "RunStore",
    "baseline_of",
    "check_run_id",
    "digest",
    "load_baseline_record",
    "merge_settings",
    "new_run_id",
    "now",
    "read_run",
    "run_lock",
    "save_baseline_record",
    "store_key",
    "stored_runs",
]

FORMAT = 2
"""Version of every record this module writes."""

_SEQ_DIGITS = 6
_GENERATION_BYTES = 6
_GENERATION = re.compile(r"v[0-9a-f]{12}")
_CHUNK = re.compile(r"([0-9]{6})(?:\.(v[0-9a-f]{12}))?")  # what follows "<kind>.<run_id>." in a chunk's key
_SAFE = re.compile(r"[A-Za-z0-9._-]+")  # the characters of a run's file names
_UNSAFE_RUN = re.compile(r"[^A-Za-z0-9._-]+")
_ENCODED = re.compile(r".*--[0-9a-f]{12}")  # how an encoded file name ends
_HASH_DIGITS = 12
_SLUG_CHARS = 80  # keeps an encoded name, with its chunk suffix, under the store's 240 bytes
_READ_ATTEMPTS = 5
_LEGACY_AGENT_BASELINE = "ek.agents.baseline/1"
_FRESH = "Use a new run_id, or pass resume=False to start this one over."


def digest(text: str) -> str:
    """A short stable hash, used for item ids and fingerprints."""
    return hashlib.blake2b(text.encode("utf-8", "backslashreplace"), digest_size=10).hexdigest()


def new_run_id() -> str:
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%d-%H%M%S")
    return f"run-{stamp}-{secrets.token_hex(3)}"


def now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def check_run_id(run_id: Any, who: str) -> str:
    """``run_id`` if it can name a stored run, else a ValueError saying what can."""
    ok = (
        isinstance(run_id, str)
        and run_id
        and not run_id.startswith(".")
        and not any(ch in run_id for ch in "/\\\0")
        and len(run_id.encode("utf-8", "replace")) <= 200
    )
    if not ok or not isinstance(run_id, str):
        raise ValueError(
            f"{who}() run_id must be a non-empty str of at most 200 UTF-8 bytes, without '/', '\\' or "
            f"NUL, not starting with '.'; {run_id!r:.80} cannot name a stored run. "
            "Use e.g. 'nightly-2024-06-01'."
        )
    return run_id


def store_key(kind: str, run_id: str) -> str:
    """The name of the files of the ``kind`` run ``run_id``: made of ``[A-Za-z0-9._-]`` only (see the module docstring).

    >>> store_key("fleet", "nightly.tesseract"), store_key("fleet", "nightly.tesseract:lang=frk")
    ('fleet.nightly.tesseract', 'fleet.nightly.tesseract_lang_frk--b2fc1f23f8fb')
    """
    plain = f"{kind}.{run_id}"
    if _SAFE.fullmatch(plain) and not _ENCODED.fullmatch(plain):
        return plain
    folded = unicodedata.normalize("NFKD", run_id).encode("ascii", "ignore").decode("ascii")
    slug = _UNSAFE_RUN.sub("_", folded)[:_SLUG_CHARS] or "run"
    return f"{kind}.{slug}--{digest(run_id)[:_HASH_DIGITS]}"


class RunStore:
    """The stored side of one run of one kind: header, chunks of items, summary.

    The chunks of a run belong to one *generation*, which its header names:
    ``<kind>.<run_id>.<seq>`` for the first run under an id, and
    ``<kind>.<run_id>.<seq>.<generation>`` for each replacement. Opening an
    existing run with ``resume=False`` starts a new generation beside the old
    one: the header keeps the old run in force and holds the new one's header
    under ``"staging"``, until `close` writes the new header over it in one
    atomic rename and only then deletes the old chunks. A replacement that
    dies half-way leaves the old run whole; a resume carries the replacement
    on, and starting over again discards its chunks. The whole write, from
    `open` to `close`, holds the run's lock (`ek._runs._lock`).
    """

    def __init__(self, kind: str, run_id: str, rootdir: Any, who: str, lock: RunLock | None = None) -> None:
        self.kind, self.run_id, self.who, self.rootdir = kind, run_id, who, rootdir
        self.runs = json_store("runs", rootdir=rootdir)
        self.results: Any = json_store("results", rootdir=rootdir)  # a _JsonStore: read with the run codec
        self.key = self._stored_key()
        self.header: dict[str, Any] = {}
        self.next_seq = 0
        self.generation = ""
        self.lock = lock
        self._live: dict[str, Any] | None = None  # the run a replacement keeps in force until it is complete

    def open(
        self, settings: dict[str, Any], *, resume: bool, n_items: int, inherit: tuple[Any, ...] = ()
    ) -> dict[str, Any]:
        """Lock the run, check ``settings`` against a stored one and start (or restart) it; return the settings in force.

        A setting named in ``inherit`` and given as None takes the stored
        value (a metric not named again on resume), and one stored as None
        takes the new value; any other difference is refused.

        Raises:
            BlockingIOError: another process is writing this run.
        """
        if self.lock is None:
            self.lock = run_lock(self.kind, self.run_id, rootdir=self.rootdir, who=self.who)
        self.lock.acquire()
        try:
            settings, started = self._start(settings, resume, inherit)
            chunks = self._chunks()
            self.next_seq = chunks[-1][0] + 1 if chunks else 0
            self.header = {
                "format": FORMAT,
                "kind": self.kind,
                "run_id": self.run_id,
                "status": "running",
                "started": started,
                "n_items": n_items,
                "settings": settings,
            }
            if self.generation:
                self.header["generation"] = self.generation
            self._write_header()
        except BaseException:
            self.release()
            raise
        return settings

    def saved(self, check: Callable[[dict[str, Any]], None] | None = None, fix: str = "") -> dict[str, Any]:
        """``item_id -> entry`` over every stored chunk of this generation, later chunks winning.

        ``check(entry)`` raises ValueError or TypeError, with a phrase that
        follows the item's id, for an entry the caller cannot use.
        """
        out: dict[str, Any] = {}
        for _, name in self._chunks():
            where = self._where(self.results, name)
            try:
                record = self.results._read(name, revive)
            except ValueError as exc:
                if str(where) in str(exc):
                    raise
                raise ValueError(f"{where} is a damaged {self.kind} run chunk: {exc}. {fix or _REPAIR}") from None
            problem = _chunk_problem(record, self.kind, check)
            if problem is not None:
                raise ValueError(f"{where} is a damaged {self.kind} run chunk: {problem}. {fix or _REPAIR}")
            out.update(record["items"])
        return out

    def where(self, item_id: str) -> str:
        """The file holding the stored entry of ``item_id`` (for error messages)."""
        for _, name in reversed(self._chunks()):
            record = self.results.get(name)
            if isinstance(record, dict) and item_id in (record.get("items") or {}):
                return self._where(self.results, name)
        return self._where(self.results, f"{self.key}.*")

    def write(self, items: dict[str, Any]) -> None:
        """Store ``item_id -> encoded entry`` as the next chunk."""
        name = f"{self.key}.{self.next_seq:0{_SEQ_DIGITS}d}" + (f".{self.generation}" if self.generation else "")
        self.results[name] = {
            "format": FORMAT,
            "kind": self.kind,
            "run_id": self.run_id,
            "seq": self.next_seq,
            "items": items,
        }
        self.next_seq += 1

    def update(self, **fields: Any) -> None:
        self.header = {**self.header, **fields}
        self._write_header()

    def close(self, summary: dict[str, Any], *, resumed: dict[str, int] | None = None) -> None:
        """Mark the run complete (a replacement takes over here, in one rename), then let the next writer in.

        ``resumed`` (``{"reused", "read"}``: items taken from the store, items run now) goes in the header.
        """
        try:
            self.header = {**self.header, "status": "complete", "finished": now(), "summary": summary}
            if resumed is not None:
                self.header["resumed"] = dict(resumed)
            replaced, self._live = self._live, None
            self._write_header()
            if replaced is not None:
                self._drop_chunks(keep=(self.generation,))
        finally:
            self.release()

    def release(self) -> None:
        """Give up the run's lock (a failed run writes nothing more)."""
        if self.lock is not None:
            self.lock.release()

    # ------------------------------------------------------------------

    def _stored_key(self) -> str:
        """`store_key`, unless an earlier ek stored this run under its raw id (then that one, where it is)."""
        key, raw = store_key(self.kind, self.run_id), f"{self.kind}.{self.run_id}"
        if raw == key or key in self.runs or raw not in self.runs:  # "in" is False for a name no file can have
            return key
        try:
            old = self.runs[raw]
        except (KeyError, ValueError):  # gone meanwhile, or damaged: then nothing is stored there to keep
            return key
        return raw if isinstance(old, dict) and old.get("run_id") == self.run_id else key

    def _start(self, settings: dict[str, Any], resume: bool, inherit: tuple[Any, ...]) -> tuple[dict[str, Any], str]:
        """Settle the generation this run writes; return the settings in force and the start time."""
        live = self._read_header() if resume else self._usable_header()
        if live is None:
            if resume and self._all_chunks():
                raise ValueError(
                    f"{self.who}(): {len(self._all_chunks())} stored chunk(s) of run {self.run_id!r} exist but "
                    f"its header {self._where(self.runs, self.key)} is missing, so they cannot be checked "
                    f"against this call's settings. {_FRESH}"
                )
            if resume:
                self._refuse_legacy()
            self._drop_chunks(keep=())  # no header: nothing stored under this id is a run to keep
            return settings, now()
        staging = live.pop("staging", None)
        in_force = live.get("generation", "")
        base: dict[str, Any] | None = None
        if resume and staging is not None:  # an interrupted replacement: carry it on
            self._live, self.generation, base = live, staging["generation"], staging
        elif resume:
            self.generation, base = in_force, live
        else:  # a replacement, written beside the run in force
            self._live, self.generation = live, "v" + secrets.token_hex(_GENERATION_BYTES)
        self._drop_chunks(keep=(in_force, self.generation))  # e.g. an interrupted replacement's chunks
        if base is None:
            return settings, now()
        return self._merge(base["settings"], settings, inherit), base.get("started") or now()

    def _write_header(self) -> None:
        self.runs[self.key] = self.header if self._live is None else {**self._live, "staging": self.header}

    def _read_header(self, fix: str = "") -> dict[str, Any] | None:
        old = self.runs.get(self.key)
        if old is None:
            return None
        problem = _header_problem(old, self.kind)
        if problem is None and isinstance(old.get("staging"), dict):
            problem = _header_problem(old["staging"], self.kind)
            problem = problem and f"its 'staging' header is damaged ({problem})"
        if problem is not None:
            raise ValueError(
                f"{self._where(self.runs, self.key)} is a damaged {self.kind} run header: "
                f"{problem}. {fix or 'Repair or delete it; ' + _FRESH}"
            )
        header: dict[str, Any] = old
        return header

    def _usable_header(self) -> dict[str, Any] | None:
        """The stored header, or None when there is none or it is damaged (a run that cannot be read protects nothing)."""
        try:
            return self._read_header()
        except ValueError:
            return None

    def _merge(self, stored: dict[str, Any], settings: dict[str, Any], inherit: tuple[Any, ...]) -> dict[str, Any]:
        merged, differs = merge_settings(stored, settings, inherit)
        if differs is not None:
            name, was, now_ = differs
            raise ValueError(
                f"run_id {self.run_id!r} was started with {name}={was!r}, but this call has "
                f"{name}={now_!r}; a run resumes only under the settings it started with, or "
                f"its results would mix two kinds of score. {_FRESH}"
            )
        return merged

    def _refuse_legacy(self) -> None:
        old = self.runs.get(self.run_id) if self.run_id in self.runs else None
        if (
            isinstance(old, dict)
            and old.get("run_id") == self.run_id
            and "format" not in old
            and ("status" in old or "created" in old)
        ):
            raise ValueError(
                f"{self.who}(): run {self.run_id!r} was stored by an earlier version of ek "
                f"({self._where(self.runs, self.run_id)}), in a format this version cannot resume. "
                f"{_FRESH} (the old files are left as they are)."
            )

    def _all_chunks(self) -> list[Any]:
        """``(generation, seq, name)`` of every chunk stored under this run id, sorted."""
        prefix = f"{self.key}."
        out = []
        for name in self.results:
            found = _CHUNK.fullmatch(name[len(prefix) :]) if name.startswith(prefix) else None
            if found:
                out.append((found.group(2) or "", int(found.group(1)), name))
        return sorted(out)

    def _chunks(self) -> list[Any]:
        """``(seq, name)`` of the chunks of this run's generation, in order."""
        return [(seq, name) for generation, seq, name in self._all_chunks() if generation == self.generation]

    def _drop_chunks(self, keep: tuple[Any, ...]) -> None:
        for generation, _, name in self._all_chunks():
            if generation not in keep:
                self.results.pop(name, None)

    def _where(self, store: Any, key: str) -> str:
        return str(data_dir(store.kind, rootdir=self.rootdir) / f"{key}.json")


def run_lock(kind: str, run_id: str, *, rootdir: Any, who: str) -> RunLock:
    """The (not yet acquired) lock of the ``kind`` run ``run_id``, a hidden file beside its header.

    Named by `store_key` also for a run an earlier ek stored under its raw id, so that every writer
    of this version takes the same lock.
    """
    return RunLock(data_dir("runs", rootdir=rootdir) / f".{store_key(kind, run_id)}.lock", f"run {run_id!r}", who)


def merge_settings(
    stored: Mapping[str, Any], settings: Mapping[str, Any], inherit: tuple[Any, ...] = ()
) -> tuple[dict[str, Any], tuple[Any, ...] | None]:
    """``settings`` with inherited values filled in, and the first setting that differs, or None.

    The difference is ``(name, stored value, value now)``. A setting named in
    ``inherit`` may be None on either side: None now takes the stored value,
    and a stored None takes the new one. A name missing on one side counts
    as None there.
    """
    merged = dict(settings)
    for name in dict.fromkeys([*stored, *settings]):
        was, now_ = stored.get(name), settings.get(name)
        if name in inherit and (now_ is None or was is None):  # not given now, or not known then
            merged[name] = was if now_ is None else now_
        elif was != now_:
            return merged, (name, was, now_)
    return merged, None


def read_run(
    kind: str, run_id: str, *, rootdir: Any, who: str, check: Callable[..., None] | None = None, fix: str = ""
) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """``(header, item_id -> entry)`` of the stored ``kind`` run ``run_id``, None when there is none.

    Reading changes nothing and takes no lock. It reads the header, the
    chunks of the generation the header names, then the header again, and
    starts over when a replacement took over meanwhile. The header returned
    is the run in force (an unfinished replacement's ``staging`` left out).
    A damaged header or chunk, or an entry ``check(entry, header=header)``
    refuses (see `RunStore.saved`), is a ValueError naming its file and
    ending in ``fix``.
    """
    store = RunStore(kind, check_run_id(run_id, who), rootdir, who)
    for _ in range(_READ_ATTEMPTS):
        header = store._read_header(fix)
        if header is None:
            return None
        store.generation = header.get("generation", "")
        try:
            items = store.saved(None if check is None else functools.partial(check, header=header), fix)
        except KeyError:  # a chunk deleted by a replacement that took over meanwhile
            continue
        again = store._read_header(fix)
        if again is not None and again.get("generation", "") == store.generation:
            header.pop("staging", None)
            return header, items
    raise ValueError(
        f"run {run_id!r} changed {_READ_ATTEMPTS} times while it was being read "
        f"({store._where(store.runs, store.key)}): another process keeps replacing it. Try again once it is done."
    )


def stored_runs(kind: str, *, rootdir: Any) -> list[str]:
    """The ids of the stored runs of ``kind``, sorted (an encoded file name read back through its header's ``run_id``)."""
    prefix = f"{kind}."
    store = json_store("runs", rootdir=rootdir)
    out = set()
    for key in store:
        if not key.startswith(prefix):
            continue
        if not _ENCODED.fullmatch(key):
            out.add(key[len(prefix) :])
            continue
        try:
            run_id = store[key].get("run_id")
        except (KeyError, ValueError, AttributeError):  # gone meanwhile, damaged, or not a header
            continue
        if isinstance(run_id, str) and key in (store_key(kind, run_id), f"{kind}.{run_id}"):  # or an old raw name
            out.add(run_id)
    return sorted(out)


_REPAIR = (
    "Delete the file to run its items again (or pass resume=False to start the run over); "
    "a hand-edited record cannot be trusted."
)


def _header_problem(record: Any, kind: str) -> str | None:
    """What is wrong with a run header (or the header of a replacement under way), or None."""
    problem = _shape_problem(record, kind, ("settings",))
    if problem is None and not isinstance(record["settings"], dict):
        problem = f"its 'settings' is {type(record['settings']).__name__}, not a mapping"
    generation = record.get("generation", "") if problem is None else ""
    if generation != "" and not (isinstance(generation, str) and _GENERATION.fullmatch(generation)):
        problem = f"its 'generation' is {generation!r:.40}, not a name this module writes"
    staging = record.get("staging") if problem is None else None
    if staging is not None and not (isinstance(staging, dict) and staging.get("generation")):
        problem = "its 'staging' is not the header of a replacement"
    return problem


def _chunk_problem(record: Any, kind: str, check: Callable[[dict[str, Any]], None] | None) -> str | None:
    """What is wrong with a chunk of items (``check`` judging each entry), or None."""
    problem = _shape_problem(record, kind, ("items",))
    if problem is not None:
        return problem
    items = record["items"]
    if not isinstance(items, dict):
        return f"its 'items' is {type(items).__name__}, not a mapping"
    for item_id, entry in items.items():
        if not isinstance(entry, dict):
            return f"item {item_id!r} is not a mapping"
        if check is not None:
            try:
                check(entry)
            except (ValueError, TypeError) as exc:
                return f"item {item_id!r} {exc}"
    return None


def _shape_problem(record: Any, kind: str, needed: tuple[Any, ...]) -> str | None:
    if not isinstance(record, dict):
        return f"it holds {type(record).__name__}, not a mapping"
    if record.get("format") != FORMAT:
        return f"its format is {record.get('format')!r}, not {FORMAT}"
    if record.get("kind") != kind:
        return f"its kind is {record.get('kind')!r}, not {kind!r}"
    missing = [n for n in needed if n not in record]
    return f"it lacks {', '.join(map(repr, missing))}" if missing else None


# ---------------------------------------------------------------------------
# baselines


def save_baseline_record(kind: str, name: Any, record: dict[str, Any], *, rootdir: Any, who: str) -> dict[str, Any]:
    """Store ``record`` as the ``kind`` baseline ``name``; return it as it reads back."""
    key = _baseline_key(kind, name, who)
    store = json_store("baselines", rootdir=rootdir)
    store[key] = {"format": FORMAT, "kind": kind, "name": name, **record}
    stored: dict[str, Any] = store[key]
    return stored


def load_baseline_record(
    kind: str, name: Any, *, rootdir: Any, who: str, saver: str, check: Callable[[dict[str, Any]], None]
) -> dict[str, Any] | None:
    """The ``kind`` baseline ``name``, None when there is none.

    A baseline of another kind under that name is an error naming the
    function that loads it; a damaged one (``check`` raises ValueError or
    TypeError saying why) is an error naming its file. A baseline saved in
    the first format, under the bare name, is read when it is of this kind.
    """
    key = _baseline_key(kind, name, who)
    store = json_store("baselines", rootdir=rootdir)
    found = store.get(key)
    legacy = None
    if found is None and name in store:
        legacy = store[name]
        if _legacy_kind(legacy) == kind:
            key, found = name, {**legacy, "format": FORMAT, "kind": kind, "name": name}
    if found is not None:
        where = str(data_dir("baselines", rootdir=rootdir) / f"{key}.json")
        try:
            problem = _shape_problem(found, kind, ())
            if problem is not None:
                raise ValueError(problem)
            check(found)
        except (ValueError, TypeError, KeyError) as exc:
            raise ValueError(f"{where} is a damaged {kind} baseline: {exc}. Save it again with {saver}.") from None
        baseline: dict[str, Any] = found
        return baseline
    others = [k for k in _LOADERS if k != kind and f"{k}.{name}" in store]
    legacy_kind = _legacy_kind(legacy)
    if legacy_kind is not None:
        others.append(legacy_kind)
    if others:
        raise ValueError(
            f"{who}({name!r}): the baseline of that name is a {others[0]} baseline, not a {kind} one; "
            f"load it with {_LOADERS[others[0]]}, or save a {kind} baseline with {saver}."
        )
    return None


_LOADERS = {"documents": "ek.harness.load_baseline()", "agents": "ek.agents.load_agent_baseline()"}


def baseline_of(
    baseline: Any, kind: str, *, rootdir: Any, who: str, saver: str, check: Callable[[Mapping[str, Any]], None]
) -> dict[str, Any]:
    """The baseline a gate was given: loaded by name (a missing one refused), or a checked mapping.

    ``check`` raises ValueError/TypeError with a phrase that follows "baseline" ("has no ...").
    """
    if isinstance(baseline, str):
        found = load_baseline_record(kind, baseline, rootdir=rootdir, who=who, saver=f"{saver}()", check=check)
        if found is None:
            raise ValueError(
                f"{who}() found no {kind} baseline named {baseline!r} in {data_dir('baselines', rootdir=rootdir)}; "
                f"save one first with {saver}(report, {baseline!r}), or pass the baseline itself."
            )
        return found
    if not isinstance(baseline, Mapping):
        raise TypeError(
            f"{who}() baseline is a {type(baseline).__name__}; pass a baseline name or the dict {saver}() returned."
        )
    try:
        check(baseline)
    except (TypeError, ValueError, KeyError) as exc:
        raise ValueError(f"{who}() baseline {exc}; build it with {saver}(report, name).") from None
    return dict(baseline)


def _legacy_kind(record: Any) -> str | None:
    """The kind of a baseline saved before records had one, or None."""
    if not isinstance(record, dict) or "kind" in record:
        return None
    if record.get("format") == _LEGACY_AGENT_BASELINE:
        return "agents"
    if "format" not in record and "metric" in record and "aggregate" in record:
        return "documents"
    return None


def _baseline_key(kind: str, name: Any, who: str) -> str:
    if (
        not isinstance(name, str)
        or not name
        or name.startswith(".")
        or any(c in name for c in "/\\\0")
        or len(name.encode("utf-8", "replace")) > 200
    ):
        raise ValueError(
            f"{who}() baseline name must be a non-empty str of at most 200 UTF-8 bytes, without '/', "
            f"'\\' or NUL, not starting with '.'; got {name!r:.80}. Use e.g. 'main'."
        )
    return f"{kind}.{name}"
