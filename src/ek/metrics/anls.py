"""ANLS and ANLS* similarity of answers, on ``anls_star``; higher is better.

ANLS (Average Normalized Levenshtein Similarity) is the DocVQA score for a
short answer: one minus the normalized edit distance, set to 0 below a
threshold (0.5 by default) so small OCR slips keep most of the credit while
a different answer earns none. ANLS* (Peer et al., 2024) extends it to nested
answers: tuples list acceptable alternatives (gold side only), lists are
matched one-to-one with the Hungarian method, dicts are compared key by key,
and missing or invented items cost credit. ``anls_star`` implements both and
picks by the type of the gold value.

The backend takes ``(gt, pred)``; `AnlsMetric` takes ``(pred, gold)`` like
every ek metric and swaps them. The corpus figure is the mean of the
per-item similarities (the "A" in ANLS), so each `Score` carries
``similarity`` and ``n`` and `AnlsMetric.aggregate` divides their sums.

Needs the ``metrics`` extra (``anls_star``), imported on the first call.

>>> m = AnlsMetric()
>>> round(m("Hello Wrld", "Hello World").value, 3)
0.909
>>> m({"name": "Acme"}, {"name": "Acme"}).value
1.0
"""

from __future__ import annotations

import math
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ek._util import import_optional, ratio, type_name
from ek.base import GraphGrammar, Score
from ek.metrics._contract import SummedStatistics
from ek.registry import register

__all__ = ["AnlsMetric"]

_LEAF_TYPES = (str, int, float, bool)
# The backend reads its threshold from a class attribute; this lock keeps two
# ek calls from interleaving their set/restore of it.
_THRESHOLD_LOCK = threading.Lock()


@dataclass(frozen=True)
class AnlsMetric(SummedStatistics):
    """ANLS (strings) or ANLS* (nested dict/list/tuple answers) as a `Metric`.

    ``value`` is the similarity in [0, 1]; higher is better.

    Args:
        threshold: a leaf similarity below this is counted as 0 before the
            average (0.5, the classic ANLS cut). ``anls_star`` has no argument
            for it and reads the class constant ``ANLSTree.THRESHOLD``, so the
            metric sets that constant for the duration of the call and puts
            the old value back. That is a process-wide change: ek serialises
            its own calls, but other threads using ``anls_star`` directly at
            the same moment would see the temporary value.

    ``detail`` holds ``similarity``, ``n`` (always 1), ``key_scores`` (the
    mean ANLS* under each dict key path of the gold answer, as tuple keys,
    so a report can show which keys lose credit).
    """

    threshold: float = field(default=0.5, kw_only=True)

    name = "anls"
    higher_is_better = True
    percent = True  # a share or a rate: the pages show it as a percentage
    statistics = ("similarity", "n")

    def __post_init__(self) -> None:
        t = self.threshold
        if not isinstance(t, (int, float)) or isinstance(t, bool) or not math.isfinite(t) or not 0 <= t <= 1:
            raise ValueError(
                f"AnlsMetric threshold must be a number in [0, 1], got {t!r}; "
                "0.5 is the usual ANLS cut-off and 0 keeps every partial match."
            )

    def __call__(self, pred: object, gold: object, *, grammar: GraphGrammar | None = None) -> Score:
        """ANLS* similarity of ``pred`` to ``gold`` (higher is better)."""
        pred = _plain(pred, "pred", allow_tuple=False)
        gold = _plain(gold, "gold", allow_tuple=True)
        if isinstance(pred, str) and isinstance(gold, list) and not gold:
            raise ValueError(
                "gold is an empty list and pred a string; anls_star reads a list of strings against a "
                "string as the acceptable answers (its ST-VQA mode), and there are none. Give at least one."
            )
        backend = import_optional("anls_star.anls_star", extra="metrics", feature="AnlsMetric")
        tree = backend.ANLSTree
        with _THRESHOLD_LOCK:
            previous = tree.THRESHOLD
            tree.THRESHOLD = float(self.threshold)
            try:
                value, key_scores = backend.anls_score(gt=gold, pred=pred, return_key_scores=True)
            finally:
                tree.THRESHOLD = previous
        value = float(value)
        detail = {
            "similarity": value,
            "n": 1,
            "key_scores": _flatten_key_scores(key_scores),
        }
        return Score(value, metric=self.name, detail=detail)

    def compute(self, totals: Mapping[str, float]) -> float:
        """Corpus ANLS: the mean of the per-item similarities (NaN for ``n == 0``, a mean of nothing)."""
        return ratio(totals["similarity"], totals["n"])


def _plain(obj: Any, side: str, *, allow_tuple: bool, path: str = "") -> Any:
    """``obj`` with every mapping turned into a dict, or TypeError at the first
    part ANLS* cannot compare."""
    where = f"{side}{path}"
    if obj is None or isinstance(obj, _LEAF_TYPES):
        return obj
    if isinstance(obj, tuple) and not allow_tuple:
        raise TypeError(
            f"{where} is a tuple; ANLS* reserves tuples for lists of acceptable gold "
            "answers. Use a list for a predicted collection."
        )
    if isinstance(obj, tuple) and not obj:
        raise ValueError(f"{where} is an empty tuple; a tuple lists acceptable gold answers, so give at least one.")
    if isinstance(obj, (tuple, list)):
        items = [_plain(x, side, allow_tuple=allow_tuple, path=f"{path}[{i}]") for i, x in enumerate(obj)]
        return tuple(items) if isinstance(obj, tuple) else items
    if isinstance(obj, Mapping):
        return {k: _plain(v, side, allow_tuple=allow_tuple, path=f"{path}[{k!r}]") for k, v in obj.items()}
    raise TypeError(
        f"{where} is {type_name(obj)}; ANLS* compares str/int/float/bool leaves inside "
        "dicts, lists, tuples (gold alternatives) and None. Convert it to one of those."
    )


def _flatten_key_scores(tree: Any, prefix: tuple[Any, ...] = ()) -> dict[tuple[Any, ...], float]:
    """Turn the backend's nested per-key score tree into ``{key path: score}``."""
    flat: dict[tuple[Any, ...], float] = {}
    for key, node in (tree or {}).items():
        path = prefix + (key,)
        if node.anls_score is not None:
            flat[path] = float(node.anls_score)
        flat.update(_flatten_key_scores(node.children, path))
    return flat


register("metrics", "anls", AnlsMetric())
