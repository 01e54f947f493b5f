"""Stdlib-only helpers shared by several subpackages (optional imports, checks)."""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import importlib
import importlib.util
import math
import numbers
import os
import sys
import time
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import cache
from types import MappingProxyType
from typing import Any, Protocol, TypeGuard, cast


class MissingExtraError(ImportError):
    """An optional feature was used without its extra installed."""


def install_hint(extra: str) -> str:
    """The exact command that installs an extra."""
    return f'pip install "ek[{extra}]"'


@cache
def is_installed(package: str) -> bool:
    """Whether ``package`` can be imported, without importing it."""
    try:
        return importlib.util.find_spec(package) is not None
    except (ImportError, ValueError):
        return False


def import_optional(package: str, *, extra: str, feature: str = "") -> Any:
    """Import ``package`` or raise `MissingExtraError` naming the extra to install."""
    try:
        return importlib.import_module(package)
    except ImportError as exc:
        what = feature or "this feature"
        raise MissingExtraError(
            f"{what} needs the optional package {package!r}, which is not installed. "
            f"Install it with: {install_hint(extra)}"
        ) from exc


class FrozenMappings:
    """Mixin for frozen dataclasses that hold read-only mappings: pickles them as plain dicts.

    ``types.MappingProxyType`` cannot be pickled, so without this a grammar
    or a typed node could not travel to a process pool or a Dask worker.
    The dataclass is rebuilt through its constructor, whose ``__post_init__``
    freezes the mappings again. Every field must be an ``__init__`` field.
    """

    __slots__ = ()

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        import dataclasses

        values = (getattr(self, f.name) for f in dataclasses.fields(self))  # type: ignore[arg-type]
        return type(self), tuple(dict(v) if isinstance(v, MappingProxyType) else v for v in values)


class FieldsOnlyState:
    """Mixin for frozen dataclasses that cache attributes beside their fields: pickles the fields only.

    A field named in ``_optional_state`` (a class attribute) travels as None
    when it cannot be pickled (a metric made from a lambda), rather than
    making the whole value unpicklable.
    """

    __slots__ = ()
    _optional_state: tuple[str, ...] = ()

    def __getstate__(self) -> dict[str, Any]:
        import dataclasses
        import pickle

        state = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}  # type: ignore[arg-type]
        for name in self._optional_state:
            if state.get(name) is not None:
                try:
                    pickle.dumps(state[name])
                except Exception:
                    state[name] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update({**dict.fromkeys(self._optional_state), **state})


def rehome(namespace: dict[str, Any]) -> None:
    """Make the public objects a module re-exports from private modules report that module.

    Call it as ``rehome(globals())`` at the end of a public module: every name
    in its ``__all__`` whose ``__module__`` is one of ek's private modules
    (a path with a ``_``-component, such as ``ek.agents._stats``) then
    reports the public module, where the reference documents it. Objects of
    public modules and of other libraries keep theirs. A class's own
    annotations are resolved first, in the module that wrote them, since
    `typing.get_type_hints` looks names up in the module ``__module__`` names.
    """
    home = namespace["__name__"]
    for name in namespace["__all__"]:
        obj = namespace[name]
        module = getattr(obj, "__module__", None)
        if (
            isinstance(module, str)
            and module.split(".")[0] == "ek"
            and any(part.startswith("_") for part in module.split("."))
        ):
            if isinstance(obj, type):
                _resolve_annotations(obj, module)
            obj.__module__ = home


def _resolve_annotations(cls: type, module: str) -> None:
    """Turn the string annotations of ``cls`` into the objects they name in ``module`` (those it can)."""
    own = cls.__dict__.get("__annotations__")  # noqa: RUF063 - the raw strings, not evaluated
    defining = sys.modules.get(module)
    if not own or defining is None:
        return
    for field_name, hint in own.items():
        if isinstance(hint, str):
            try:
                own[field_name] = eval(hint, vars(defining), dict(vars(cls)))  # what typing does
            except Exception:  # noqa: S112 - a name the module binds later: left for typing to find
                continue


def first_repeat(values: Sequence[Any]) -> tuple[int, int] | None:
    """``(i, j)``: the positions of the first value seen a second time (at ``j``), or None if all differ.

    >>> first_repeat(["a", "b", "c", "b"]), first_repeat([1, 2])
    ((1, 3), None)
    """
    if len(set(values)) == len(values):
        return None
    seen: dict[Any, int] = {}
    for j, value in enumerate(values):
        if value in seen:
            return seen[value], j
        seen[value] = j
    return None


def type_name(obj: Any) -> str:
    """Short type name for error messages."""
    return "None" if obj is None else type(obj).__name__


def is_real(value: object) -> TypeGuard[float]:
    """Whether ``value`` is a real number other than a bool (numpy's scalars and fractions count).

    A type checker then reads it as a float, the numeric tower's real, so range checks such as
    ``0 < value < 1`` are checked as written.

    >>> is_real(0.5), is_real(3), is_real(True), is_real("1")
    (True, True, False, False)
    """
    return not isinstance(value, bool) and isinstance(value, numbers.Real)


def format_table(header: list[str], rows: list[list[Any]]) -> str:
    """A plain-text table: first column left-aligned, the rest right-aligned.

    Floats print as percentages and None as ``-``.
    """
    cells = [header] + [[_cell(v) for v in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = []
    for k, row in enumerate(cells):
        lines.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))))
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def format_p_value(p: float | None) -> str:
    """A p-value as ek prints it everywhere: ``<=0.001`` at or below a thousandth, else three decimals.

    A bootstrap p-value is resolved only to about one over the number of
    replicates, so smaller values are not shown. None and NaN print as ``-``.

    >>> format_p_value(0.0004), format_p_value(0.0421), format_p_value(float("nan"))
    ('<=0.001', '0.042', '-')
    """
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return "-"
    return f"{p:.3f}" if p > 0.001 else "<=0.001"


def describe_text_level(level: Any) -> str:
    """How OCR documents were read, in words: a level, counts of documents per level, or per side.

    >>> describe_text_level("line")
    'line'
    >>> describe_text_level({"gold": {"line": 2, "region": 1}, "pred": "word"})
    'gold: line (2 documents), region (1 document); pred: word'
    """
    if level is None:
        return "default"
    if not isinstance(level, dict):
        return str(level)
    if all(isinstance(n, int) for n in level.values()):  # {level: number of documents}
        return ", ".join(f"{k} ({n} document{'' if n == 1 else 's'})" for k, n in level.items())
    names = {"a": "A", "b": "B"}  # ek compare: one entry per run
    return "; ".join(
        f"{names.get(side, side)}: {describe_text_level(v) if v is not None else 'plain text'}"
        for side, v in level.items()
    )


def describe_fallbacks(level: str, fallbacks: Sequence[Mapping[str, Any]], shown: int = 3) -> str:
    """``level`` (a text level in words), then the regions read at another level, when there are any.

    >>> describe_fallbacks("line", [{"side": "gold", "id": "a", "region": "r2", "level": "region"}])
    'line, but 1 region read at another level (gold a region r2 at region level)'
    """
    if not fallbacks:
        return level
    named = "; ".join(f"{f['side']} {f['id']} region {f['region']} at {f['level']} level" for f in fallbacks[:shown])
    more = f"; {len(fallbacks) - shown} more in --json under fallbacks" if len(fallbacks) > shown else ""
    n = len(fallbacks)
    return f"{level}, but {n} region{'s' if n != 1 else ''} read at another level ({named}{more})"


def describe_level_disagreements(rows: Sequence[Mapping[str, Any]]) -> str:
    """The regions whose text differs between two levels, in words: how many, the worst, how to read the other.

    >>> print(describe_level_disagreements([
    ...     {"side": "gold", "id": "p1", "region": "r3", "level": "region", "other_level": "line", "cer": 0.25}]))
    the text of 1 region differs between two of its levels (worst: gold p1 region r3, CER 25.0% between its \
region and line text); the figures use the region text, --text-level line reads the line text instead \
(all in --json under level_disagreements)
    """
    if not rows:
        return ""
    n = len(rows)
    worst = max(rows, key=lambda r: r.get("cer") or 0.0)
    level, other = worst.get("level"), worst.get("other_level")
    return (
        f"the text of {n} region{'s' if n != 1 else ''} differs between two of {'their' if n != 1 else 'its'} levels (worst: "
        f"{worst.get('side')} {worst.get('id')} region {worst.get('region')}, CER {float(worst.get('cer') or 0.0):.1%} "
        f"between its {level} and {other} text); the figures use the {level} text, --text-level {other} reads "
        f"the {other} text instead (all in --json under level_disagreements)"
    )


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    return f"{value:.2%}" if isinstance(value, float) else str(value)


def prf(matched: float, n_pred: float, n_gold: float) -> tuple[float, float, float]:
    """Precision, recall and F1 from matched credit and the two totals.

    The one place 0/0 is decided for every P/R/F1 metric: nothing predicted
    and nothing in the gold is perfect agreement (1, 1, 1); otherwise an
    empty side gives 0 for its ratio, and F1 is 0 when both ratios are 0.
    """
    if n_pred == 0 and n_gold == 0:
        return 1.0, 1.0, 1.0
    precision = matched / n_pred if n_pred else 0.0
    recall = matched / n_gold if n_gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


class Columns(Protocol):
    """A column-backed score sequence, as batch scoring returns (`ek.metrics`' ``score_many``).

    Its statistics are read, and its items picked, without building a `Score` per item.
    """

    def __len__(self) -> int: ...
    def column(self, name: str) -> Sequence[Any]:
        """One statistic for every item (KeyError for a name the scores lack)."""
        ...

    def take(self, indices: Iterable[int]) -> Sequence[Any]:
        """The scores at ``indices``, still column-backed."""
        ...


def as_columns(scores: object) -> Columns | None:
    """``scores`` when it offers the `Columns` shortcut (``column`` and ``take``), else None."""
    if callable(getattr(scores, "column", None)) and callable(getattr(scores, "take", None)):
        return cast(Columns, scores)  # duck-typed: the two methods are all ek calls
    return None


def sum_detail(scores: Iterable[Any], keys: Sequence[str], *, metric: str = "") -> dict[str, Any]:
    """Sum the named ``Score.detail`` statistics over a corpus, the basis of every aggregate.

    A column-backed score sequence (one with ``column(name)``) is summed
    without building its scores. Raises ValueError for an empty corpus (it
    has no aggregate) and, naming the item, for a score lacking a key (scores
    of another metric mixed in).
    """
    who = f"{metric}.aggregate()" if metric else "aggregate()"
    columns = as_columns(scores)
    if columns is not None and len(columns):
        try:
            return {k: sum(columns.column(k)) for k in keys}
        except KeyError:
            pass  # fall through to the per-score path and its message
    totals = dict.fromkeys(keys, 0)
    n = 0
    for i, s in enumerate(scores):
        detail = getattr(s, "detail", None)
        try:
            for k in keys:
                totals[k] += detail[k]  # type: ignore[index]
        except (KeyError, TypeError):
            raise ValueError(
                f"score {i} ({getattr(s, 'metric', '?')!r}) has no {k!r} in its detail; "
                f"{who} needs scores produced by {metric or 'this metric'}."
            ) from None
        n += 1
    if n == 0:
        raise ValueError(f"{who} got no scores; an empty corpus has no aggregate.")
    return totals


def ratio(numerator: float, denominator: float) -> float:
    """``numerator / denominator``, NaN when the denominator is 0 (the figure is undefined)."""
    return numerator / denominator if denominator else math.nan


@dataclasses.dataclass(frozen=True)
class DispatchRule:
    """An entry of the ``"dispatch"`` registry: which metric a pair of objects gets by default.

    Calling the rule on one object says whether it is of the rule's kind.
    ``pairs`` says when the rule claims a ``(pred, gold)`` pair:
    ``"either"`` (one side of its kind is enough; the metric checks the
    other), ``"same"`` (one side claims the pair and the other must be of the
    kind too, else TypeError) or ``"both"`` (both sides must be of its kind).
    ``prepare`` converts each side before scoring (e.g. reads ``.text``).
    ``metric`` is the registered metric name (default: the rule's own name);
    rules are tried by ``priority``, then by name, and the first to claim wins.
    """

    accepts: Callable[[Any], bool]
    metric: str | None = None
    pairs: str = "either"
    prepare: Callable[[Any], Any] | None = None
    priority: int = 0

    def __post_init__(self) -> None:
        if self.pairs not in ("either", "same", "both"):
            raise ValueError(f"DispatchRule pairs must be 'either', 'same' or 'both', got {self.pairs!r}.")

    def __call__(self, obj: Any) -> bool:
        return bool(self.accepts(obj))


def as_rule(obj: Any) -> DispatchRule:
    """A ``"dispatch"`` registry entry as a `DispatchRule`: itself, or a plain predicate with its attributes read once.

    A predicate may carry the rule's fields as attributes (``metric``,
    ``pairs``, ``prepare``, ``priority``); those it lacks take their defaults.
    """
    if isinstance(obj, DispatchRule):
        return obj
    return DispatchRule(
        accepts=obj,
        metric=getattr(obj, "metric", None),
        pairs=getattr(obj, "pairs", "either"),
        prepare=getattr(obj, "prepare", None),
        priority=getattr(obj, "priority", 0),
    )


THREADS_VARIABLE = "EK_THREADS"
"""Pins how many threads ek's own C loops use (`threads`), as ``OMP_THREAD_LIMIT`` pins Tesseract's."""


_PINNED: contextvars.ContextVar[int | None] = contextvars.ContextVar("ek_threads_pinned", default=None)


def threads() -> int:
    """The threads ek's own C loops may use: ``EK_THREADS`` (a whole number >= 1), else `cores`.

    They score a large CER batch (rapidfuzz's ``cpdist``) and weigh a large
    bootstrap; the numbers do not depend on how many run. ``EK_THREADS=1``
    keeps ek to one thread, for a process that shares its cores with others.
    Any other value warns and is ignored (every core): an error would stop
    runs that score item by item when a batch fails, and hide the cause.
    Unset, work inside `pinned_threads` uses the count it gives instead.
    """
    raw = os.environ.get(THREADS_VARIABLE, "").strip()
    if not raw:
        return _PINNED.get() or cores()
    try:
        n = int(raw)
    except ValueError:
        n = 0
    if n < 1:
        warnings.warn(
            f"{THREADS_VARIABLE} must be a whole number of threads, 1 or more, got {raw!r}; it is ignored, so ek "
            f"uses every core ({cores()} here). Set {THREADS_VARIABLE}=1 to use one thread, or unset it.",
            stacklevel=2,
        )
        return cores()
    return n


@contextlib.contextmanager
def pinned_threads(n: int) -> Iterator[None]:
    """Within this block (this thread's context), `threads` is ``n`` unless ``EK_THREADS`` says otherwise.

    For work that already runs once per core, as a Dask task does: its own
    threads would only share those cores with the other tasks.
    """
    token = _PINNED.set(n)
    try:
        yield
    finally:
        _PINNED.reset(token)


def cores() -> int:
    """The cores this process may run on (its CPU affinity where the platform says, else the machine's)."""
    if hasattr(os, "sched_getaffinity"):
        return max(len(os.sched_getaffinity(0)), 1)
    return os.cpu_count() or 1


def want_progress(progress: bool | None) -> bool:
    """Resolve ``progress=None`` to "only when stderr is a terminal"."""
    if progress is not None:
        return bool(progress)
    try:
        return sys.stderr is not None and sys.stderr.isatty()
    except (AttributeError, ValueError):  # a replaced or closed stream
        return False


class Progress:
    """A one-line progress bar on stderr, redrawn at most ten times a second.

    Shared by every long-running loop (`evaluate_store`, `evaluate_ocr`,
    `run_suite`); ``enabled=None`` shows it only on a terminal. Items carried
    over from an earlier run count as ``reused`` and are left out of the rate.
    """

    _WIDTH = 24

    def __init__(
        self, total: int, *, label: str, unit: str = "items", enabled: bool | None = None, reused: int = 0
    ) -> None:
        self.total, self.label, self.unit = total, label, unit
        self.enabled = want_progress(enabled) and total > 0
        self.stream = sys.stderr
        self.start = time.monotonic()
        self.last = -math.inf  # the first update always draws
        self.done, self.errors, self.reused = reused, 0, reused
        self.shown = -1  # the ``done`` count last drawn

    def update(self, done: int, errors: int = 0, reused: int | None = None) -> None:
        """Set the counts; redraw if enough time has passed or the run is complete."""
        self.done, self.errors = done, errors
        if reused is not None:
            self.reused = reused
        now = time.monotonic()
        if self.enabled and (now - self.last >= 0.1 or done == self.total):
            self.last = now
            self._draw(now)

    def tick(self, ok: bool = True) -> None:
        """One more item finished (``ok=False`` counts it as failed)."""
        self.update(self.done + 1, self.errors + (not ok))

    def close(self) -> None:
        if self.enabled:
            if self.shown != self.done:
                self._draw(time.monotonic())
            self.stream.write("\n")
            self.stream.flush()

    def _draw(self, now: float) -> None:
        self.shown = self.done
        share = self.done / self.total
        filled = int(share * self._WIDTH)
        elapsed = now - self.start
        rate = (self.done - self.reused) / elapsed if elapsed > 0 else 0.0
        eta = (self.total - self.done) / rate if rate > 0 else 0.0
        notes = "".join(
            [f", {self.reused} reused" if self.reused else "", f", {self.errors} failed" if self.errors else ""]
        )
        self.stream.write(
            f"\r{self.label} |{'#' * filled}{'.' * (self._WIDTH - filled)}| {self.done}/{self.total} "
            f"{self.unit} {share:4.0%} [{_clock(elapsed)} < {_clock(eta)}, {rate:.1f} it/s{notes}]"
        )
        self.stream.flush()


def _clock(seconds: float) -> str:
    m, s = divmod(int(seconds), 60)
    h, m = divmod(m, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"
