"""Input checks, conformal set sizes and scalar-or-array plumbing shared by `ek.qe`.

Every public entry point validates its data once, here, and the private maths
assumes clean input. The same module decides whether numpy is used: the
fitted calibrators and gates run on numpy arrays when numpy is installed (the
``calibration`` extra) and on plain lists otherwise, so the whole stage works
with no extra dependency. Tests switch numpy off with `_force_pure_python` to
run both backends on the same cases.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from types import ModuleType
from typing import Any

from ek._calls import number
from ek._util import is_installed, type_name

_PURE_PYTHON = False  # set by tests (via _force_pure_python) to bypass numpy


def _force_pure_python(flag: bool) -> None:
    """Use the stdlib code paths even when numpy is installed (for tests)."""
    global _PURE_PYTHON
    _PURE_PYTHON = bool(flag)


def numpy_or_none() -> ModuleType | None:
    """The numpy module when it is installed and enabled, else None."""
    if _PURE_PYTHON or not is_installed("numpy"):
        return None
    import numpy

    return numpy


# --------------------------------------------------------------------------
# scalars versus batches
# --------------------------------------------------------------------------


def is_batch(value: Any) -> bool:
    """True for a list, tuple or array of scores (a whole batch in one call)."""
    if isinstance(value, (list, tuple)):
        return True
    ndim = getattr(value, "ndim", None)
    return isinstance(ndim, int) and ndim >= 1 and hasattr(value, "__len__")


def as_out(values: Any, np: ModuleType | None) -> Any:
    """A batch result: a float64 array with numpy, a list of floats without."""
    if np is not None:
        return np.asarray(values, dtype=float)
    return [float(v) for v in values]


def as_decisions(decisions: Sequence[Any]) -> Any:
    """A batch of `Decision` s: an object array with numpy, else a list."""
    np = numpy_or_none()
    if np is None:
        return list(decisions)
    out = np.empty(len(decisions), dtype=object)
    out[:] = list(decisions)
    return out


# --------------------------------------------------------------------------
# validation
# --------------------------------------------------------------------------


def scores(values: Any, *, what: str, np: ModuleType | None = None, allow_nonfinite: bool = False) -> Any:
    """Validate a 1-D batch of real numbers; an array with numpy, else a list."""
    if isinstance(values, (str, bytes)) or not (is_batch(values) or _iterable(values)):
        raise TypeError(f"{what} must be a list or array of numbers, got {type_name(values)}.")
    if np is not None:
        arr = _np_floats(values, what=what, np=np)
        if not allow_nonfinite:
            bad = ~np.isfinite(arr)
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise ValueError(
                    f"{what}[{i}] is {float(arr[i])!r}; every entry must be a finite number. "
                    "Drop or impute the missing values first."
                )
        return arr
    out = []
    for i, v in enumerate(values):
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise TypeError(f"{what}[{i}] must be a real number, got {type_name(v)} {v!r:.60}.")
        f = float(v)
        if not allow_nonfinite and not math.isfinite(f):
            raise ValueError(
                f"{what}[{i}] is {f!r}; every entry must be a finite number. Drop or impute the missing values first."
            )
        out.append(f)
    return out


def probabilities(values: Any, *, what: str, np: ModuleType | None = None, allow_nonfinite: bool = False) -> Any:
    """Validate a batch of probabilities in [0, 1] (non-finite only if allowed)."""
    arr = scores(values, what=what, np=np, allow_nonfinite=allow_nonfinite)
    if np is not None:
        bad = np.isfinite(arr) & ((arr < 0.0) | (arr > 1.0))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            _outside(what, i, float(arr[i]))
        return arr
    for i, v in enumerate(arr):
        if math.isfinite(v) and (v < 0.0 or v > 1.0):
            _outside(what, i, v)
    return arr


def labels(values: Any, n: int, *, what: str, np: ModuleType | None = None) -> Any:
    """Validate ``n`` correctness labels (bools or 0/1); bool array or list."""
    if isinstance(values, (str, bytes)) or not (is_batch(values) or _iterable(values)):
        raise TypeError(f"{what} must be a list or array of bools, got {type_name(values)}.")
    seq = values if is_batch(values) else list(values)
    if len(seq) != n:
        raise ValueError(
            f"{what} has {len(seq)} labels but there are {n} scores; "
            "pass exactly one correct/incorrect label per score."
        )
    if np is not None:
        arr = np.asarray(seq)
        if arr.ndim != 1:
            raise ValueError(
                f"{what} must be 1-D (one label per score), got an array of shape {arr.shape}; flatten it first."
            )
        if arr.dtype == bool:
            return arr
        if arr.dtype.kind in "iuf" and arr.ndim == 1 and np.isin(arr, (0, 1)).all():
            return arr.astype(bool)
    out = []
    for i, v in enumerate(seq):
        if (
            isinstance(v, bool)
            or (isinstance(v, numbers.Real) and v in (0, 1))
            or getattr(v, "dtype", None) is not None
            and getattr(v, "ndim", 0) == 0
            and v in (0, 1)
        ):
            out.append(bool(v))
        else:
            raise ValueError(
                f"{what}[{i}] is {v!r}; each label must be True/False (or 1/0) saying whether the value was correct."
            )
    return np.asarray(out, dtype=bool) if np is not None else out


def both_outcomes(correct: Any, *, owner: str) -> None:
    """Raise when the labels hold only one outcome (nothing to calibrate against)."""
    n = len(correct)
    n_true = int(sum(bool(c) for c in correct)) if not hasattr(correct, "sum") else int(correct.sum())
    if n == 0:
        raise ValueError(f"{owner} got no rows; pass at least two labelled (score, correct) pairs.")
    if n_true in (0, n):
        which = "True" if n_true else "False"
        fix = "add rows where the value was wrong." if n_true else "add rows where the value was right."
        raise ValueError(f"{owner} needs both outcomes, but all {n} labels are {which}; {fix}")


# --------------------------------------------------------------------------
# conformal sizes: the split-conformal rank ceil((n + 1)(1 - alpha)) decides
# the threshold's place in the sorted scores and whether a set is big enough
# --------------------------------------------------------------------------


def one_minus(confidence: float) -> float:
    """Default nonconformity: low confidence is unusual for a correct value."""
    return 1.0 - confidence


def rank(n: int, alpha: float) -> int:
    """``ceil((n + 1) * (1 - alpha))`` in exact arithmetic on the decimal ``alpha`` denotes.

    ``alpha`` is read as its shortest decimal (``0.3`` as 3/10, not the binary
    value just below it), so the rank is the one worked by hand: neither
    float rounding nor the binary representation slips it by one.
    """
    return math.ceil((n + 1) * (1 - _exact(alpha)))


def min_n(alpha: float) -> int:
    """Smallest calibration size whose conformal rank fits inside the set."""
    a = _exact(alpha)
    return math.ceil((1 - a) / a)


def _exact(alpha: float) -> Fraction:
    return Fraction(repr(float(alpha)))


def check_alpha(alpha: Any, what: str) -> float:
    """``alpha`` as a float strictly inside (0, 1), or a ValueError naming ``what``."""
    a = number(alpha, what=what)
    if not 0.0 < a < 1.0:
        raise ValueError(f"{what} must be strictly between 0 and 1, got {a!r}.")
    return a


def check_group_sizes(sizes: dict[Any, int], alpha: float, owner: str) -> None:
    """Raise when a calibration set is too small for ``alpha`` (a vacuous gate)."""
    small = {k: n for k, n in sizes.items() if rank(n, alpha) > n}
    if small:
        if list(small) == [None]:
            where = f" ({small[None]})"
        else:
            where = " in group(s) " + ", ".join(f"{k!r} ({n})" for k, n in small.items())
        raise ValueError(
            f"{owner} has too few correct calibration items{where} for alpha={alpha}: the "
            f"conformal threshold needs at least {min_n(alpha)}, and with fewer the gate would "
            "accept everything. Add labelled items or raise alpha."
        )


def correct_scores(probs: Sequence[float], nonconformity: Callable[[float], float]) -> list[float]:
    """Nonconformity scores of the finite probabilities (the caller passes only correct items)."""
    out = []
    for p in probs:
        if not math.isfinite(p):
            continue
        out.append(number(nonconformity(p), what="nonconformity score"))
    return out


def check_record(record: object, kind: str, numeric: Sequence[str]) -> Mapping[str, Any]:
    """``record`` once checked to be a ``kind`` record whose ``numeric`` keys hold finite numbers.

    Its values are JSON read back, so they come typed loosely: the checks above are what vouch for them.
    """
    if not isinstance(record, Mapping):
        raise ValueError(f"a {kind} calibrator record must be a dict, got {type_name(record)}.")
    if record.get("kind") != kind:
        raise ValueError(f"expected a {kind!r} calibrator record, got kind {record.get('kind')!r}.")
    for key in numeric:
        if key not in record:
            raise ValueError(f"{kind} calibrator record is missing {key!r}; re-save it with save_calibrator().")
        value = record[key]
        values = value if isinstance(value, (list, tuple)) else [value]
        for v in values:
            if isinstance(v, bool) or not isinstance(v, numbers.Real) or not math.isfinite(v):
                raise ValueError(f"{kind} calibrator record field {key!r} must hold finite numbers, got {v!r:.40}.")
    return record


# --------------------------------------------------------------------------


def _iterable(values: Any) -> bool:
    try:
        iter(values)
    except TypeError:
        return False
    return True


def _np_floats(values: Any, *, what: str, np: ModuleType) -> Any:
    try:
        arr = np.asarray(values if is_batch(values) else list(values))
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{what} must be a 1-D list or array of numbers ({exc}).") from None
    if arr.ndim != 1:
        raise ValueError(f"{what} must be 1-D, got an array of shape {arr.shape}; flatten it first.")
    if arr.dtype == bool or arr.dtype.kind not in "iuf":
        for i, v in enumerate(arr.tolist()):
            if isinstance(v, bool) or not isinstance(v, numbers.Real):
                raise TypeError(f"{what}[{i}] must be a real number, got {type_name(v)} {v!r:.60}.")
    return arr.astype(float, copy=False)


def _outside(what: str, i: int, v: float) -> None:
    raise ValueError(
        f"{what}[{i}] is {v!r}, outside [0, 1]; a probability is needed here. "
        "Calibrate raw scores with a fitted calibrator first."
    )
