"""Grouped calibration: per group key (Mondrian) and per signal family.

Public through `ek.qe.calibrate`. `GroupCalibrator` keeps one calibrator per
group (a node type, a field spec name) with a pooled fallback;
`SignalFamilyCalibrator` keeps one per named raw signal and fuses their
calibrated probabilities with a combiner and a second-stage calibrator.
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from statistics import fmean
from types import ModuleType
from typing import Any, TypeGuard

from ek._calls import call_maybe_group, probability
from ek._util import type_name
from ek.base import Calibrator
from ek.qe._checks import (
    is_batch,
    labels,
    numpy_or_none,
    scores,
)
from ek.qe._records import from_record
from ek.qe._scalar import PlattCalibrator

__all__ = ["GroupCalibrator", "SignalFamilyCalibrator", "mean_probability", "min_probability"]


def mean_probability(probs: Mapping[str, float] | Iterable[float]) -> float:
    """Fuse calibrated per-family probabilities by their mean (the default combiner).

    Every family's calibrated value estimates the same event ("this value is
    correct"), so their mean is a simple pooling rule that assumes little.
    Accepts a mapping ``name -> probability`` or a plain sequence. Not to be
    confused with `ek.qe.signals.mean_prob`, which pools one field's raw token
    log-probabilities into a (still uncalibrated) signal.

    >>> mean_probability({"judge": 0.9, "logprob": 0.7})
    0.8
    """
    return fmean(_probs(probs, "mean_probability()"))


def min_probability(probs: Mapping[str, float] | Iterable[float]) -> float:
    """Fuse calibrated per-family probabilities by their minimum (the conservative combiner).

    Use it when any one family doubting a value should be enough to hold it back.

    >>> min_probability({"judge": 0.9, "logprob": 0.7})
    0.7
    """
    return float(min(_probs(probs, "min_probability()")))


@dataclass
class GroupCalibrator:
    """Mondrian calibration: one calibrator per group key, with a pooled fallback.

    Distribution-free calibration that holds per field type is impossible
    in general (Barber et al. 2019); fitting each group on its own restores
    it approximately. A group whose own fit fails (too few rows, a single
    outcome) uses the pooled calibrator, with a warning naming it, and so
    does any group unseen at fit time.

    Args:
        factory: zero-argument callable returning a fresh calibrator
            (default `PlattCalibrator`).
        by_group: group key -> fitted calibrator (set by `fit`).
        pooled: calibrator fitted on all rows (set by `fit`).
    """

    factory: Callable[[], Calibrator] = PlattCalibrator
    by_group: dict[Hashable, Calibrator] = field(default_factory=dict)
    pooled: Calibrator | None = None
    kind: str = "group"

    def fit(
        self, scores: Iterable[float], correct: Iterable[bool | int], *, groups: Iterable[Hashable]
    ) -> GroupCalibrator:
        """Fit one calibrator per distinct group key plus the pooled fallback; returns self."""
        np = numpy_or_none()
        s = _scores(scores, "GroupCalibrator.fit scores", np)
        y = labels(correct, len(s), what="GroupCalibrator.fit correct", np=np)
        keys = _groups(groups, len(s), "GroupCalibrator.fit")
        pooled = self.factory().fit(s, y)
        by_group, skipped = {}, []
        for key, idx in _index(keys).items():
            sub_s = s[idx] if np is not None else [s[i] for i in idx]
            sub_y = y[idx] if np is not None else [y[i] for i in idx]
            try:
                by_group[key] = self.factory().fit(sub_s, sub_y)
            except ValueError as exc:
                skipped.append(f"{key!r} ({exc})")
        if skipped:
            warnings.warn(
                "GroupCalibrator uses the pooled calibrator for groups it could not fit on "
                f"their own: {'; '.join(skipped)}. Add labelled rows for them.",
                stacklevel=2,
            )
        self.by_group, self.pooled = by_group, pooled
        return self

    def __call__(self, score: Any, *, group: Any = None) -> Any:
        """Calibrate ``score`` with its group's calibrator (a batch may take a batch of groups)."""
        if self.pooled is None and not self.by_group:
            raise ValueError("GroupCalibrator is not fitted yet; call .fit(scores, correct, groups=...) first.")
        if is_batch(score) and is_batch(group):
            np = numpy_or_none()
            s = _scores(score, "GroupCalibrator scores", np)
            keys = _groups(group, len(s), "GroupCalibrator")
            out = [0.0] * len(s)
            for key, idx in _index(keys).items():
                part = self._pick(key)(s[idx] if np is not None else [s[i] for i in idx])
                for i, v in zip(idx, part):
                    out[i] = float(v)
            return np.asarray(out) if np is not None else out
        return self._pick(group)(score)

    def _pick(self, group: Any) -> Calibrator:
        cal = self.by_group.get(group)
        if cal is None and group is not None:
            cal = self.by_group.get(str(group))
        if cal is None:
            cal = self.pooled
        if cal is None:
            raise ValueError(
                f"GroupCalibrator has no calibrator for group {group!r} and no pooled fallback; "
                f"known groups: {sorted(map(str, self.by_group))}."
            )
        return cal

    def to_dict(self) -> dict[str, object]:
        """Each group's record (keys stringified) plus the pooled fallback's, as plain JSON."""
        if self.pooled is None and not self.by_group:
            raise ValueError("GroupCalibrator is not fitted yet; fit it before saving.")
        return {
            "kind": self.kind,
            "factory": getattr(self.factory, "kind", None),
            "by_group": {str(k): _record(c, f"group {k!r}") for k, c in self.by_group.items()},
            "pooled": None if self.pooled is None else _record(self.pooled, "pooled"),
        }

    @classmethod
    def from_dict(cls, record: Mapping[str, object]) -> GroupCalibrator:
        """Rebuild from `to_dict` output (every nested record is checked)."""

        groups = _nested(record, "group", "by_group")
        pooled = record.get("pooled")
        return cls(
            factory=_factory(record.get("factory")),
            by_group={k: from_record(v, where=f"group {k!r}") for k, v in groups.items()},
            pooled=None if pooled is None else from_record(pooled, where="pooled calibrator"),
        )


@dataclass
class SignalFamilyCalibrator:
    """One calibrator per named signal family, fused by a combiner and recalibrated.

    Raw signals of different families (a judge score, a log-probability, a
    ROVER agreement) have their own scales, so each is calibrated on its
    own; `combine` then pools the calibrated probabilities and ``fusion``,
    a calibrator learned on the pooled values, makes the result a
    probability again (a mean of calibrated probabilities is itself not
    calibrated). A field's own confidence is the family ``"confidence"``.

    Args:
        calibrators: signal name -> calibrator; a ``"*"`` entry serves any
            signal without its own. A signal with neither is refused.
        combine: ``Mapping[str, float] -> float``; `mean_probability` by
            default, `min_probability` to be conservative.
        factory: zero-argument callable returning a fresh calibrator for `fit`.
        fusion: calibrator applied to the combined value; None leaves it
            uncalibrated, and `ek.estimate_quality` then reports such a value
            fused from two or more families (marked ``fused_uncalibrated``)
            but refuses to gate it unless ``assume_calibrated=True``.
    """

    calibrators: dict[str, Calibrator | GroupCalibrator] = field(default_factory=dict)
    combine: Callable[[Mapping[str, float]], float] = mean_probability
    factory: Callable[[], Calibrator] = PlattCalibrator
    fusion: Calibrator | None = None
    kind: str = "signal_family"

    def fit(
        self, signals: Iterable[Mapping[str, float | None]], correct: Iterable[bool | int]
    ) -> SignalFamilyCalibrator:
        """Fit one calibrator per signal name, then the fusion calibrator; returns self.

        Each family is fitted on the rows where it has a finite value; a
        family with fewer than two such rows or a single outcome is refused.
        The fusion calibrator is fitted on the combined values of the rows
        that have two or more families (none are needed when no row does).
        """
        rows = _rows(signals)
        if not rows:
            raise ValueError("SignalFamilyCalibrator.fit got no rows; pass one signal mapping per labelled value.")
        y = labels(correct, len(rows), what="SignalFamilyCalibrator.fit correct", np=None)
        names: dict[str, Any] = {}
        for row in rows:
            names.update(dict.fromkeys(row))
        fitted: dict[str, Calibrator | GroupCalibrator] = {}
        for name in names:
            idx = [i for i, row in enumerate(rows) if _finite(row.get(name), name, i)]
            outcomes = {y[i] for i in idx}
            if len(idx) < 2 or len(outcomes) < 2:
                raise ValueError(
                    f"SignalFamilyCalibrator cannot calibrate signal {name!r}: it has {len(idx)} "
                    f"rows with a finite value and {len(outcomes)} outcome(s); it needs two or more "
                    "rows with both correct and wrong values. Add labelled rows or drop the signal."
                )
            fitted[name] = self.factory().fit([float(rows[i][name]) for i in idx], [y[i] for i in idx])
        self.calibrators, self.fusion = fitted, None
        multi = [i for i, row in enumerate(rows) if sum(_finite(v, k, i) for k, v in row.items()) >= 2]
        if multi:
            fused = [self.combine(self.calibrate_signals(rows[i])) for i in multi]
            outcomes = {y[i] for i in multi}
            if len(multi) < 2 or len(outcomes) < 2:
                raise ValueError(
                    f"SignalFamilyCalibrator cannot fit its fusion calibrator: {len(multi)} rows carry "
                    f"two or more signals, with {len(outcomes)} outcome(s); it needs two or more such "
                    "rows with both correct and wrong values."
                )
            self.fusion = self.factory().fit(fused, [y[i] for i in multi])
        return self

    def calibrate_signals(self, raw_signals: Mapping[str, float | None], *, group: Hashable = None) -> dict[str, float]:
        """``{name: calibrated probability}`` for each finite raw signal (before fusion)."""
        if not isinstance(raw_signals, Mapping):
            raise TypeError(
                f"SignalFamilyCalibrator takes a mapping signal name -> raw score, got {type_name(raw_signals)}."
            )
        out = {}
        for name, raw in raw_signals.items():
            if not _finite(raw, name, None):
                continue
            cal = self.calibrators.get(name, self.calibrators.get("*"))
            if cal is None:
                raise ValueError(
                    f"signal {name!r} has no calibrator and there is no '*' fallback "
                    f"(calibrators: {sorted(self.calibrators)}); a raw score must not be used "
                    "uncalibrated. Fit on rows that include it, or add a '*' calibrator."
                )
            value = call_maybe_group(cal, float(raw), group)
            out[name] = probability(value, what=f"calibrated signal {name!r}")
        return out

    def fuse(self, calibrated: Mapping[str, float]) -> float:
        """``combine`` then ``fusion`` over calibrated values; a single family passes as is."""
        if not calibrated:
            raise ValueError("SignalFamilyCalibrator has no finite signal to fuse; pass at least one raw signal.")
        if len(calibrated) == 1:
            return float(next(iter(calibrated.values())))
        value = probability(self.combine(calibrated), what="combined probability")
        return float(self.fusion(value)) if self.fusion is not None else value

    def __call__(
        self,
        raw_signals: Mapping[str, float | None]
        | list[Mapping[str, float | None]]
        | tuple[Mapping[str, float | None], ...],
        *,
        group: Hashable = None,
    ) -> Any:
        """The fused calibrated probability of one signal mapping (an array for a list of them)."""
        if isinstance(raw_signals, (list, tuple)):
            np = numpy_or_none()
            values = [self.fuse(self.calibrate_signals(r, group=group)) for r in raw_signals]
            return np.asarray(values, dtype=float) if np is not None else values
        return self.fuse(self.calibrate_signals(raw_signals, group=group))

    def to_dict(self) -> dict[str, object]:
        """Every family's record, the fusion record and the registered combiner's name."""
        from ek.registry import get, names

        combine = next((n for n in names("combiners") if get("combiners", n) is self.combine), None)
        if combine is None:
            raise ValueError(
                f"SignalFamilyCalibrator.combine {getattr(self.combine, '__name__', self.combine)!r} is "
                "not registered, so it cannot be saved by name; register it with "
                "ek.register('combiners', name, fn) first."
            )
        if not self.calibrators:
            raise ValueError("SignalFamilyCalibrator has no calibrators yet; fit it before saving.")
        return {
            "kind": self.kind,
            "combine": combine,
            "factory": getattr(self.factory, "kind", None),
            "calibrators": {k: _record(c, f"signal {k!r}") for k, c in self.calibrators.items()},
            "fusion": None if self.fusion is None else _record(self.fusion, "fusion"),
        }

    @classmethod
    def from_dict(cls, record: Mapping[str, object]) -> SignalFamilyCalibrator:
        """Rebuild from `to_dict` output; the combiner is looked up by its registered name."""
        from ek.registry import get, names

        families = _nested(record, "signal_family", "calibrators")
        combine = record.get("combine", "mean")
        if not isinstance(combine, str) or combine not in names("combiners"):
            raise ValueError(
                f"signal_family record names combiner {combine!r}, which is not registered; "
                f"registered combiners: {', '.join(names('combiners'))}."
            )
        fusion = record.get("fusion")
        return cls(
            calibrators={k: from_record(v, where=f"signal {k!r}") for k, v in families.items()},
            combine=get("combiners", combine),
            factory=_factory(record.get("factory")),
            fusion=None if fusion is None else from_record(fusion, where="fusion calibrator"),
        )


# --------------------------------------------------------------------------


def _probs(probs: Any, owner: str) -> list[float]:
    values = list(probs.values()) if isinstance(probs, Mapping) else list(probs)
    if not values:
        raise ValueError(f"{owner} got no probabilities; pass at least one calibrated value.")
    return [probability(v, what=f"{owner} value {i}") for i, v in enumerate(values)]


def _scores(values: Any, what: str, np: ModuleType | None) -> Any:
    return scores(values, what=what, np=np)


def _groups(groups: Any, n: int, owner: str) -> list[Any]:
    if isinstance(groups, (str, bytes)) or not is_batch(groups) and not hasattr(groups, "__iter__"):
        raise TypeError(f"{owner} groups must be a sequence of group keys, one per score.")
    keys = groups.tolist() if hasattr(groups, "tolist") else list(groups)
    if len(keys) != n:
        raise ValueError(f"{owner} got {len(keys)} group keys for {n} scores; pass one key per score.")
    return keys


def _index(keys: list[Any]) -> dict[Any, list[int]]:
    out: dict[Any, list[int]] = {}
    for i, k in enumerate(keys):
        out.setdefault(k, []).append(i)
    return out


def _rows(signals: Any) -> list[Any]:
    if isinstance(signals, Mapping) or not hasattr(signals, "__iter__"):
        raise TypeError(
            "SignalFamilyCalibrator.fit takes a sequence of mappings (one per row, signal name -> "
            f"raw score), got {type_name(signals)}."
        )
    rows = list(signals)
    for i, row in enumerate(rows):
        if not isinstance(row, Mapping):
            raise TypeError(
                f"SignalFamilyCalibrator.fit row {i} is {type_name(row)}; each row must map signal names to raw scores."
            )
    return rows


def _finite(value: object, name: Any, row: int | None) -> TypeGuard[float]:
    if value is None:
        return False
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        where = f" in row {row}" if row is not None else ""
        raise TypeError(f"signal {name!r}{where} is {type_name(value)}, not a number.")
    return math.isfinite(value)


def _record(cal: Calibrator | GroupCalibrator, what: str) -> dict[str, object]:
    to_dict = getattr(cal, "to_dict", None)
    if to_dict is None:
        raise TypeError(f"the {what} calibrator ({type_name(cal)}) has no to_dict(), so it cannot be saved.")
    record: dict[str, object] = to_dict()
    return record


def _nested(record: Any, kind: str, key: str) -> Mapping[str, Any]:
    if not isinstance(record, Mapping) or record.get("kind") != kind:
        raise ValueError(f"expected a {kind!r} calibrator record, got {record!r:.80}.")
    nested = record.get(key)
    if not isinstance(nested, Mapping):
        raise ValueError(f"{kind} calibrator record needs a dict {key!r}; re-save it with save_calibrator().")
    return nested


def _factory(kind: object) -> Any:
    if kind is None:
        return PlattCalibrator
    from ek.registry import get

    try:
        if not isinstance(kind, str):
            raise KeyError(kind)
        return get("calibrators", kind)
    except KeyError:
        raise ValueError(f"calibrator record names unknown factory kind {kind!r}.") from None
