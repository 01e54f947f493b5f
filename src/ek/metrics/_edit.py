"""The one place edit distances are computed (rapidfuzz, else pure Python).

`distance` and `counts` take two sequences (a ``str`` or a list of hashable
tokens) and count the minimal unit-cost edits between ``pred`` and ``gold``.
rapidfuzz is a core dependency but loads on first use, keeping ``import ek``
fast; the pure-Python path keeps the metrics working without it and is tested
on the same cases.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from ek._util import threads

Units = Sequence[Any]
"""What is aligned: a ``str`` or a list of hashable tokens."""
Distance = Callable[[Units, Units], int]
Aligner = Callable[[Units, Units], "EditCounts"]


class EditCounts(NamedTuple):
    """Alignment totals of one pair (``hits`` are matched units)."""

    hits: int
    substitutions: int
    deletions: int
    insertions: int


def _py_distance(pred: Units, gold: Units) -> int:
    """Levenshtein distance with one row of memory (Wagner-Fischer)."""
    if len(pred) < len(gold):
        pred, gold = gold, pred
    previous = list(range(len(gold) + 1))
    for i, p in enumerate(pred, 1):
        current = [i]
        for j, g in enumerate(gold, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (p != g)))
        previous = current
    return previous[-1]


def _py_counts(pred: Units, gold: Units) -> EditCounts:
    """Full-matrix alignment with a backtrace; deletions are gold units missed.

    Several alignments can share the least edit count with other hit,
    substitution, deletion and insertion counts (``"ab"`` against ``"ba"``:
    two substitutions, or a hit, a deletion and an insertion). The walk
    breaks ties as rapidfuzz's ``editops`` does, and so jiwer: the common
    prefix and suffix are hits, then from the end a gold unit is dropped
    when that is optimal, else a pred unit is inserted when the column
    before allows it, else both advance. Every backend thus reports the
    same counts.
    """
    start = 0
    while start < min(len(gold), len(pred)) and gold[start] == pred[start]:
        start += 1
    stop = 0
    while stop < min(len(gold), len(pred)) - start and gold[-1 - stop] == pred[-1 - stop]:
        stop += 1
    gold, pred = gold[start : len(gold) - stop], pred[start : len(pred) - stop]
    n, m = len(gold), len(pred)
    d = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n + 1):
        d[i][0] = i
    for j in range(m + 1):
        d[0][j] = j
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (gold[i - 1] != pred[j - 1]))
    hits = subs = dels = ins = 0
    i, j = n, m
    while i and j:
        if d[i][j] == d[i - 1][j] + 1:
            dels += 1
            i -= 1
            continue
        j -= 1
        if j and d[i][j] == d[i - 1][j] - 1:
            ins += 1
        else:
            i -= 1
            if gold[i] == pred[j]:
                hits += 1
            else:
                subs += 1
    return EditCounts(hits + start + stop, subs, dels + i, ins + j)


def _rf_counts(pred: Units, gold: Units) -> EditCounts:
    from rapidfuzz.distance import Levenshtein

    subs = dels = ins = 0
    # source = gold, destination = pred: a "delete" drops a gold unit.
    for op in Levenshtein.editops(gold, pred):
        if op.tag == "replace":
            subs += 1
        elif op.tag == "delete":
            dels += 1
        else:
            ins += 1
    return EditCounts(len(gold) - subs - dels, subs, dels, ins)


def backends() -> dict[str, tuple[Distance, Aligner]]:
    """Every available backend by name, fastest first."""
    found: dict[str, tuple[Distance, Aligner]] = {}
    try:
        from rapidfuzz.distance import Levenshtein

        found["rapidfuzz"] = (Levenshtein.distance, _rf_counts)
    except ImportError:  # rapidfuzz is a core dependency; this is the bare fallback
        pass
    found["python"] = (_py_distance, _py_counts)
    return found


_active: list[tuple[Distance, Aligner]] = []
_BATCH = 1024  # pairs from which rapidfuzz's C loop (and its numpy import) pays off
# Pairs from which cpdist's threads pay for starting (~40 us): on 2 cores, lines of
# 60 characters break even at about 1,000 pairs and gain 10% at 2,048, 35% at 20,000.
_THREADED = 2048
_CHUNK = 256  # texts cut at a time by `unit_distances`
_LONG = 4096  # units from which rapidfuzz's banded algorithm pays off (a page, not a line)


def distances(preds: Sequence[Units], golds: Sequence[Units]) -> list[int]:
    """`distance` of every aligned pair, in one C call for a large batch of strings on the rapidfuzz backend.

    From `_THREADED` pairs that call runs on `ek._util.threads` threads
    (``EK_THREADS``, else every core): the same integers, sooner. A pair of
    long texts (pages) gets rapidfuzz a band as wide as an alignment found
    in near-linear time (`_hinted`): the same distance, in one pass over a
    band of the table instead of the whole of it.
    """
    distance = active()[0]
    if not getattr(distance, "__module__", "").startswith("rapidfuzz"):
        return list(map(distance, preds, golds))
    if len(preds) >= _BATCH and isinstance(preds[0], str):  # token lists convert slower than a plain loop
        from rapidfuzz.distance import Levenshtein
        from rapidfuzz.process import cpdist

        workers = threads() if len(preds) >= _THREADED else 1
        out: list[int] = cpdist(preds, golds, scorer=Levenshtein.distance, dtype="int64", workers=workers).tolist()
        return out
    return list(map(_hinted, preds, golds))


def unit_distances(
    preds: Sequence[str], golds: Sequence[str], to_units: Callable[[str], Units]
) -> tuple[list[int], list[int]]:
    """``(edits, gold lengths)`` of every pair once cut by ``to_units`` (words, graphemes), pair by pair.

    Cutting a chunk of texts just before their distances keeps a few hundred
    texts' units alive at a time: cutting every text first holds a list per
    text (hundreds of thousands of objects), which doubled the time of a WER
    batch.
    """
    distance = active()[0]
    edits: list[int] = []
    lengths: list[int] = []
    if getattr(distance, "__module__", "").startswith("rapidfuzz") and max(map(len, golds), default=0) < _LONG:
        # No gold reaches a page, so no pair needs the hint (rapidfuzz's time is
        # linear in the prediction then). Chunks keep a few hundred texts' units
        # alive (they stay in cache) and the loops in C.
        for start in range(0, len(golds), _CHUNK):
            gold_units = list(map(to_units, golds[start : start + _CHUNK]))
            lengths.extend(map(len, gold_units))
            edits.extend(map(distance, map(to_units, preds[start : start + _CHUNK]), gold_units))
        return edits, lengths
    hinted = _hinted if getattr(distance, "__module__", "").startswith("rapidfuzz") else distance
    for p, g in zip(preds, golds):
        gu, pu = to_units(g), to_units(p)
        n = len(gu)
        edits.append(distance(pu, gu) if n < _LONG and len(pu) < _LONG else hinted(pu, gu))  # the hint pays on pages
        lengths.append(n)
    return edits, lengths


def _hinted(pred: Units, gold: Units) -> int:
    """rapidfuzz's exact distance, near-linear on long lightly edited texts (`ek._align.distance`).

    A long pair is anchored in linear time, then computed in one band as
    wide as the anchored edits, or block by block between checked cuts
    (`ek._stretch`), where one band that wide cost a 10 MB page a minute.
    """
    from rapidfuzz.distance import Levenshtein

    from ek._align import distance

    if max(len(pred), len(gold)) < _LONG:
        return int(Levenshtein.distance(pred, gold))
    return distance(pred, gold)


def active() -> tuple[Distance, Aligner]:
    """The backend in use: (distance, counts), chosen on first call."""
    if not _active:
        _active.append(next(iter(backends().values())))
    return _active[0]
