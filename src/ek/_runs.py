"""Persistence and progress for `ek.harness.evaluate_store`.

A persisted run keeps its item results in the ``results`` store as chunks
``"<run_id>.<seq>"`` (six-digit sequence numbers), each mapping an item's
key hash to its JSON entry, and its summary in the ``runs`` store under
``run_id``. A chunk is written when a second has passed since the last one,
when it holds `CHUNK_ITEMS` items, and when the run ends or raises, so a
hard kill loses at most the last second of work while a fast predictor is
not slowed by one fsynced file per item. Later chunks override earlier ones
for the same item (an item re-run after an error or a gold change).
"""

from __future__ import annotations

import datetime
import hashlib
import json
import secrets
from typing import Any, Optional

from ek.base import Score
from ek.stores import json_store

__all__ = [
    "CHUNK_ITEMS", "FLUSH_SECONDS", "RunStore", "digest", "entry_from_json",
    "entry_to_json", "jsonable", "new_run_id", "now", "settings_key",
]

CHUNK_ITEMS = 1000
"""Most items held back before they are scored and written."""

FLUSH_SECONDS = 1.0
"""Longest time finished items wait before they are written."""

_SEQ_DIGITS = 6


def digest(text: str) -> str:
    """A short stable hash, used for item keys and gold fingerprints."""
    return hashlib.blake2b(text.encode("utf-8", "backslashreplace"), digest_size=10).hexdigest()


def new_run_id() -> str:
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%d-%H%M%S")
    return f"run-{stamp}-{secrets.token_hex(3)}"


def now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


class RunStore:
    """The stored side of one run: earlier item results, new chunks, the summary."""

    def __init__(self, run_id: Any, rootdir: Any) -> None:
        if not isinstance(run_id, str) or not run_id or run_id.startswith(".") or len(run_id) > 200:
            raise ValueError(
                f"evaluate_store() run_id must be a non-empty str of at most 200 characters not "
                f"starting with '.', got {run_id!r:.80}; e.g. 'nightly-2024-06-01'."
            )
        self.run_id = run_id
        self.results = json_store("results", rootdir=rootdir)
        self.runs = json_store("runs", rootdir=rootdir)
        self.saved: dict = {}
        self.buffer: dict = {}
        self.next_seq = 0
        self.started = now()
        self.settings = ""

    def start(self, label: Optional[str], n_items: int, *, resume: bool, settings: str = "") -> Optional[str]:
        """Read what the run stored before; returns the metric it was scored with.

        ``settings`` identifies the other scoring options (normalize, grammar,
        weights); resuming under different ones would mix two kinds of score.
        """
        previous = self.runs.get(self.run_id) or {}
        chunks = self._chunks()
        if resume:
            stored = previous.get("metric")
            if stored and label is not None and stored != label:
                raise ValueError(
                    f"run {self.run_id!r} was started with metric {stored!r}, but this call scores "
                    f"with {label!r}; a resumed run must keep its metric. Use a new run_id, or pass "
                    "resume=False to start this one over."
                )
            if chunks and previous.get("settings", settings) != settings:
                raise ValueError(
                    f"run {self.run_id!r} was scored with other normalize/grammar/weights settings "
                    f"({previous.get('settings')!r}, now {settings!r}); a resumed run must keep them. "
                    "Use a new run_id, or pass resume=False to start this one over."
                )
            label = label or stored
            self.started = previous.get("started") or self.started
            for _, key in chunks:
                self.saved.update(self.results[key].get("items", {}))
        else:
            for _, key in chunks:
                del self.results[key]
            chunks = []
        self.next_seq = chunks[-1][0] + 1 if chunks else 0
        self.settings = settings
        self._write_summary({"status": "running", "metric": label, "n_items": n_items})
        return label

    def load(self, key: Any, fingerprint: str) -> Optional[dict]:
        """The stored entry of ``key``, unless it failed or its gold record changed since."""
        saved = self.saved.get(self.item_key(key))
        if saved is None or saved.get("fingerprint") != fingerprint or saved.get("error") is not None:
            return None
        return entry_from_json(saved)

    def add(self, key: Any, entry_json: dict) -> None:
        self.buffer[self.item_key(key)] = entry_json

    def flush(self) -> None:
        if not self.buffer:
            return
        name = f"{self.run_id}.{self.next_seq:0{_SEQ_DIGITS}d}"
        self.results[name] = {"run_id": self.run_id, "items": self.buffer}
        self.saved.update(self.buffer)
        self.buffer = {}
        self.next_seq += 1

    def finish(self, summary: dict) -> None:
        self.flush()
        self._write_summary({"status": "complete", **summary, "finished": now()})

    @staticmethod
    def item_key(key: Any) -> str:
        return digest(repr(key))

    def _chunks(self) -> list[tuple[int, str]]:
        prefix = f"{self.run_id}."
        out = []
        for name in self.results:
            rest = name[len(prefix):] if name.startswith(prefix) else ""
            if len(rest) == _SEQ_DIGITS and rest.isdigit():
                out.append((int(rest), name))
        return sorted(out)

    def _write_summary(self, fields: dict) -> None:
        self.runs[self.run_id] = {"run_id": self.run_id, **fields, "settings": self.settings,
                                  "started": self.started}


def entry_to_json(key: Any, entry: dict, label: Optional[str]) -> dict:
    """A JSON copy of one item's entry; a value JSON cannot hold is kept as its repr."""
    score = entry["score"]
    score_json = None
    if score is not None:
        score_json = {"value": score.value, "precision": score.precision, "recall": score.recall,
                      "f1": score.f1, "metric": score.metric, "detail": dict(score.detail)}
    out = {"key": key, "prediction": entry["prediction"], "reference": entry["reference"],
           "slice": entry["slice"], "score": score_json, "error": entry["error"],
           "fingerprint": entry["fingerprint"]}
    try:
        return json.loads(json.dumps(out))  # the common case: everything is plain JSON
    except (TypeError, ValueError):
        pass
    try:
        score_json = json.loads(json.dumps(score_json))
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"metric {label!r} put a value JSON cannot hold in Score.detail ({exc}), so "
            "evaluate_store cannot persist the run; run it with persist=False, or keep plain "
            "numbers in the metric's detail."
        ) from exc
    return {**{k: jsonable(v) for k, v in out.items() if k != "score"}, "score": score_json}


def entry_from_json(saved: dict) -> dict:
    s = saved.get("score")
    score = None if s is None else Score(
        s["value"], precision=s.get("precision"), recall=s.get("recall"), f1=s.get("f1"),
        metric=s.get("metric", ""), detail=s.get("detail") or {},
    )
    return {"prediction": saved.get("prediction"), "reference": saved.get("reference"),
            "slice": saved.get("slice"), "score": score, "error": saved.get("error"),
            "fingerprint": saved.get("fingerprint")}


def jsonable(value: Any) -> Any:
    """``value`` as JSON gives it back, or its repr when JSON cannot hold it."""
    try:
        return json.loads(json.dumps(value))
    except (TypeError, ValueError):
        return repr(value)


def settings_key(normalize: Any, grammar: Any, weights: Any) -> str:
    """A stable description of the scoring options, to refuse resuming under others."""
    def name(obj: Any) -> str:
        if obj is None:
            return ""
        if isinstance(obj, (str, list, tuple)):
            return repr(list(obj) if not isinstance(obj, str) else obj)
        version = getattr(obj, "version", None)  # a Canonicalizer names its steps
        if isinstance(version, str):
            return version
        return f"{getattr(obj, '__module__', '')}.{getattr(obj, '__qualname__', type(obj).__qualname__)}"

    grammar_part = digest(repr(grammar)) if grammar is not None else ""
    return f"normalize={name(normalize)};grammar={grammar_part};weights={name(weights)}"
