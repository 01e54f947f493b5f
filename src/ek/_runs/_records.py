"""Where runs and baselines are stored, in which format, and how a resume is checked.

Layout (every key starts with its kind, so kinds never meet, nor meet
``persistent_cache``'s ``cache.`` entries):

* ``runs`` store, ``<kind>.<run_id>``: the run header: format, kind, status
  (``running`` / ``complete``), start time, the settings fingerprint and,
  once complete, the ``summary``;
* ``results`` store, ``<kind>.<run_id>.<seq>``: one chunk of finished items
  (six-digit sequence numbers), ``{"items": {item_id: entry}}``; a later
  chunk overrides an earlier one for the same item;
* ``baselines`` store, ``<kind>.<name>``: a frozen report.

Every record carries ``"format": 2`` and its ``"kind"``. Records of the
first format (no kind, keys without a prefix) are refused for runs, with a
message saying how to start over; baselines of that format are still read.
"""

from __future__ import annotations

import datetime
import hashlib
import secrets
from collections.abc import Mapping
from typing import Any, Callable, Optional

from ek._runs._codec import revive
from ek.stores import data_dir, json_store

__all__ = ["FORMAT", "RunStore", "baseline_of", "check_run_id", "digest", "load_baseline_record",
           "new_run_id", "now", "read_run", "save_baseline_record", "stored_runs"]

FORMAT = 2
"""Version of every record this module writes."""

_SEQ_DIGITS = 6
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
    ok = isinstance(run_id, str) and run_id and not run_id.startswith(".") \
        and not any(ch in run_id for ch in "/\\\0") and len(run_id.encode("utf-8", "replace")) <= 200
    if not ok:
        raise ValueError(
            f"{who}() run_id must be a non-empty str of at most 200 UTF-8 bytes, without '/', '\\' or "
            f"NUL, not starting with '.'; {run_id!r:.80} cannot name a stored run. "
            "Use e.g. 'nightly-2024-06-01'."
        )
    return run_id


class RunStore:
    """The stored side of one run of one kind: header, chunks of items, summary."""

    def __init__(self, kind: str, run_id: str, rootdir: Any, who: str) -> None:
        self.kind, self.run_id, self.who, self.rootdir = kind, run_id, who, rootdir
        self.key = f"{kind}.{run_id}"
        self.runs = json_store("runs", rootdir=rootdir)
        self.results = json_store("results", rootdir=rootdir)
        self.header: dict = {}
        self.next_seq = 0

    def open(self, settings: dict, *, resume: bool, n_items: int, inherit: tuple = ()) -> dict:
        """Check ``settings`` against a stored run and start (or restart) it; return the settings in force.

        A setting named in ``inherit`` and given as None takes the stored
        value (a metric not named again on resume), and one stored as None
        takes the new value; any other difference is refused.
        """
        old = self._read_header() if resume else None
        chunks = self._chunks()
        if old is None:
            if resume and chunks:
                raise ValueError(
                    f"{self.who}(): {len(chunks)} stored chunk(s) of run {self.run_id!r} exist but its "
                    f"header {self._where(self.runs, self.key)} is missing, so they cannot be checked "
                    f"against this call's settings. {_FRESH}")
            if resume:
                self._refuse_legacy()
            for _, name in chunks:
                del self.results[name]
            chunks = []
            started = now()
        else:
            settings = self._merge(old["settings"], settings, inherit)
            started = old.get("started") or now()
        self.next_seq = chunks[-1][0] + 1 if chunks else 0
        self.header = {"format": FORMAT, "kind": self.kind, "run_id": self.run_id, "status": "running",
                       "started": started, "n_items": n_items, "settings": settings}
        self.runs[self.key] = self.header
        return settings

    def saved(self) -> dict:
        """``item_id -> entry`` over every stored chunk, later chunks winning."""
        out: dict = {}
        for _, name in self._chunks():
            where = self._where(self.results, name)
            try:
                record = self.results._read(name, revive)
            except ValueError as exc:
                if str(where) in str(exc):
                    raise
                raise ValueError(f"{where} is a damaged {self.kind} run chunk: {exc}. {_REPAIR}") from None
            problem = _shape_problem(record, self.kind, ("items",))
            items = record.get("items") if isinstance(record, dict) else None
            if problem is None and not isinstance(items, dict):
                problem = f"its 'items' is {type(items).__name__}, not a mapping"
            if problem is None:
                bad = next((k for k, v in items.items() if not isinstance(v, dict)), None)
                problem = None if bad is None else f"item {bad!r} is not a mapping"
            if problem is not None:
                raise ValueError(f"{where} is a damaged {self.kind} run chunk: {problem}. {_REPAIR}")
            out.update(items)
        return out

    def where(self, item_id: str) -> str:
        """The file holding the stored entry of ``item_id`` (for error messages)."""
        for _, name in reversed(self._chunks()):
            record = self.results.get(name)
            if isinstance(record, dict) and item_id in (record.get("items") or {}):
                return self._where(self.results, name)
        return self._where(self.results, f"{self.key}.*")

    def write(self, items: dict) -> None:
        """Store ``item_id -> encoded entry`` as the next chunk."""
        name = f"{self.key}.{self.next_seq:0{_SEQ_DIGITS}d}"
        self.results[name] = {"format": FORMAT, "kind": self.kind, "run_id": self.run_id,
                              "seq": self.next_seq, "items": items}
        self.next_seq += 1

    def update(self, **fields: Any) -> None:
        self.header = {**self.header, **fields}
        self.runs[self.key] = self.header

    def close(self, summary: dict) -> None:
        self.update(status="complete", finished=now(), summary=summary)

    # ------------------------------------------------------------------

    def _read_header(self) -> Optional[dict]:
        old = self.runs.get(self.key)
        if old is None:
            return None
        problem = _shape_problem(old, self.kind, ("settings",))
        if problem is None and not isinstance(old["settings"], dict):
            problem = f"its 'settings' is {type(old['settings']).__name__}, not a mapping"
        if problem is not None:
            raise ValueError(f"{self._where(self.runs, self.key)} is a damaged {self.kind} run header: "
                             f"{problem}. Repair or delete it; {_FRESH}")
        return old

    def _merge(self, stored: dict, settings: dict, inherit: tuple) -> dict:
        merged = dict(settings)
        for name in dict.fromkeys([*stored, *settings]):
            was, now_ = stored.get(name), settings.get(name)
            if name in inherit and (now_ is None or was is None):  # not given now, or not known then
                merged[name] = was if now_ is None else now_
            elif was != now_:
                raise ValueError(
                    f"run_id {self.run_id!r} was started with {name}={was!r}, but this call has "
                    f"{name}={now_!r}; a run resumes only under the settings it started with, or "
                    f"its results would mix two kinds of score. {_FRESH}")
        return merged

    def _refuse_legacy(self) -> None:
        old = self.runs.get(self.run_id) if self.run_id in self.runs else None
        if isinstance(old, dict) and old.get("run_id") == self.run_id and "format" not in old \
                and ("status" in old or "created" in old):
            raise ValueError(
                f"{self.who}(): run {self.run_id!r} was stored by an earlier version of ek "
                f"({self._where(self.runs, self.run_id)}), in a format this version cannot resume. "
                f"{_FRESH} (the old files are left as they are).")

    def _chunks(self) -> list:
        prefix = f"{self.key}."
        out = []
        for name in self.results:
            rest = name[len(prefix):] if name.startswith(prefix) else ""
            if len(rest) == _SEQ_DIGITS and rest.isdigit():
                out.append((int(rest), name))
        return sorted(out)

    def _where(self, store: Any, key: str) -> str:
        return str(data_dir(store.kind, rootdir=self.rootdir) / f"{key}.json")


def read_run(kind: str, run_id: str, *, rootdir: Any, who: str) -> Optional[tuple[dict, dict]]:
    """``(header, item_id -> entry)`` of the stored ``kind`` run ``run_id``, None when there is none.

    Reading changes nothing; a damaged header or chunk is a ValueError naming its file.
    """
    store = RunStore(kind, check_run_id(run_id, who), rootdir, who)
    header = store._read_header()
    return None if header is None else (header, store.saved())


def stored_runs(kind: str, *, rootdir: Any) -> list[str]:
    """The ids of the stored runs of ``kind``, sorted."""
    prefix = f"{kind}."
    return sorted(key[len(prefix):] for key in json_store("runs", rootdir=rootdir) if key.startswith(prefix))


_REPAIR = ("Delete the file to run its items again (or pass resume=False to start the run over); "
           "a hand-edited record cannot be trusted.")


def _shape_problem(record: Any, kind: str, needed: tuple) -> Optional[str]:
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


def save_baseline_record(kind: str, name: Any, record: dict, *, rootdir: Any, who: str) -> dict:
    """Store ``record`` as the ``kind`` baseline ``name``; return it as it reads back."""
    key = _baseline_key(kind, name, who)
    store = json_store("baselines", rootdir=rootdir)
    store[key] = {"format": FORMAT, "kind": kind, "name": name, **record}
    return store[key]


def load_baseline_record(kind: str, name: Any, *, rootdir: Any, who: str, saver: str,
                         check: Callable[[dict], None]) -> Optional[dict]:
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
        return found
    others = [k for k in _LOADERS if k != kind and f"{k}.{name}" in store]
    if _legacy_kind(legacy) is not None:
        others.append(_legacy_kind(legacy))
    if others:
        raise ValueError(
            f"{who}({name!r}): the baseline of that name is a {others[0]} baseline, not a {kind} one; "
            f"load it with {_LOADERS[others[0]]}, or save a {kind} baseline with {saver}.")
    return None


_LOADERS = {"documents": "ek.harness.load_baseline()", "agents": "ek.agents.load_agent_baseline()"}


def baseline_of(baseline: Any, kind: str, *, rootdir: Any, who: str, saver: str,
                check: Callable[[Mapping], None]) -> dict:
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
        raise TypeError(f"{who}() baseline is a {type(baseline).__name__}; pass a baseline name or the dict "
                        f"{saver}() returned.")
    try:
        check(baseline)
    except (TypeError, ValueError, KeyError) as exc:
        raise ValueError(f"{who}() baseline {exc}; build it with {saver}(report, name).") from None
    return dict(baseline)


def _legacy_kind(record: Any) -> Optional[str]:
    """The kind of a baseline saved before records had one, or None."""
    if not isinstance(record, dict) or "kind" in record:
        return None
    if record.get("format") == _LEGACY_AGENT_BASELINE:
        return "agents"
    if "format" not in record and "metric" in record and "aggregate" in record:
        return "documents"
    return None


def _baseline_key(kind: str, name: Any, who: str) -> str:
    if not isinstance(name, str) or not name or name.startswith(".") or any(c in name for c in "/\\\0") \
            or len(name.encode("utf-8", "replace")) > 200:
        raise ValueError(
            f"{who}() baseline name must be a non-empty str of at most 200 UTF-8 bytes, without '/', "
            f"'\\' or NUL, not starting with '.'; got {name!r:.80}. Use e.g. 'main'.")
    return f"{kind}.{name}"
