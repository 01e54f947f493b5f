"""The greedy flexible matching behind `ek.metrics.reading_order.FlexibleCharacterMetric`, in near-linear time.

The rule (stated in `ek.metrics.reading_order`): repeatedly take the
longest unmatched gold piece (reading order breaks ties) and find the pred
piece that fits it best: an identical piece, else the first piece that
contains it, else the piece whose best window of
`rapidfuzz.fuzz.partial_ratio_alignment` scores highest (then the longer
window, then the earlier piece), its ends moved by a few units where that
saves edits.

Done literally, that is a partial-ratio call for every pair of lines (20 s
for a 1,300-line page). Here every step gives the same answer faster:

* identical pieces are found by a dictionary;
* the partial-ratio scores are bounded from above by character counts:
  a window of ``x <= n`` characters (``n``: the shorter of the two texts)
  matches at most ``min(x, K)`` of them, ``K`` being the characters the two
  texts share (counted with multiplicity), so its ratio is at most
  ``200 K / (n + K)``. The bound of every piece comes from one vectorised
  count (numpy), and pieces are scored in falling order of their bound
  until the bound drops below the best score found: only the few pieces
  that could win are scored. A piece that contains the gold piece has the
  bound 100, so only those are searched for it.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from itertools import chain
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

Match = tuple[int, int, int, int, int, int]
"""(edits, piece index, gold start, gold end, pred start, pred end)."""

_SLACK = 3
_EPS = 1e-6  # partial-ratio scores are floats: a bound this close to the best may still tie it


def flexible_edits(pred: list[str], gold: list[str], max_error: float) -> tuple[int, int]:
    """(errors, gold characters) of the greedy flexible matching of ``pred`` lines against ``gold`` lines."""
    from rapidfuzz.distance import Levenshtein

    # Gold pieces carry their place in reading order (a tuple, extended for the rests of a cut);
    # the heap holds (-length, arrival, place, text): longest first, then the order `sorted` kept.
    queue: list[tuple[int, int, tuple[int, ...], str]] = [(-len(g), k, (k,), g) for k, g in enumerate(gold)]
    heapq.heapify(queue)
    arrivals = len(queue)
    pieces = _Pieces(pred)
    edits = 0
    set_aside: list[tuple[tuple[int, ...], str]] = []
    while queue and pieces.texts and len(queue) + len(pieces.texts) > 2:  # one piece each: plain distance
        _, _, place, g = heapq.heappop(queue)
        found = pieces.best(g, max_error)
        if found is None or found[0] > max_error * max(found[3] - found[2], found[5] - found[4]):
            set_aside.append((place, g))
            continue
        dist, k, g1, g2, p1, p2 = found
        edits += dist
        p = pieces.texts[k]
        pieces.replace(k, p[:p1].strip(), p[p2:].strip())
        for side, rest in enumerate((g[:g1].strip(), g[g2:].strip())):
            if rest:
                heapq.heappush(queue, (-len(rest), arrivals, place + (side,), rest))
                arrivals += 1
    left_gold = "".join(g for _, g in sorted(set_aside + [(place, g) for _, _, place, g in queue]))
    edits += Levenshtein.distance(left_gold, "".join(pieces.texts))
    return edits, sum(map(len, gold))


class _Pieces:
    """The unmatched pred pieces in reading order, with the lookups the matching makes.

    Each piece has a slot (a column of the count table) holding its length
    and how often it has each character and each pair of adjacent
    characters of the pred text (its features, one table row each).
    """

    def __init__(self, texts: list[str]):
        import numpy as np

        self.texts = list(texts)
        features = set(chain.from_iterable(map(_features, texts)))
        self._feature = {f: i for i, f in enumerate(sorted(features, key=lambda f: (len(f), f)))}
        self._n_chars = sum(1 for f in features if len(f) == 1)
        longest = max(map(len, texts), default=0)  # no count exceeds a piece's length
        self._dtype = np.uint8 if longest < 2**8 else np.uint16 if longest < 2**16 else np.int64
        self._fill([((k,), t) for k, t in enumerate(self.texts)])

    def best(self, g: str, max_error: float) -> Match | None:
        """The match for gold piece ``g``: identical, containing, else best fuzzy window (see the module doc)."""
        import numpy as np

        same = self._by_text.get(g)
        if same:
            k = self._slots.index(min(same, key=self._place.__getitem__))
            return 0, k, 0, len(g), 0, len(g)
        bounds = self._bounds(g)  # by slot; -1 for the matched ones
        full = np.flatnonzero(bounds >= 100.0 - _EPS).tolist()  # only these can contain g
        for slot in sorted(full, key=self._place.__getitem__):
            at = self._text[slot].find(g)
            if at >= 0:
                return 0, self._slots.index(slot), 0, len(g), at, at + len(g)
        return self._fuzzy(g, bounds, max_error)

    def replace(self, k: int, left: str, right: str) -> None:
        """Put the unmatched rests of piece ``k`` (either may be empty) in its place."""
        old = self._slots[k]
        self._by_text[self.texts[k]].remove(old)
        self._alive[old] = False
        rests = [(self._place[old] + (side,), rest) for side, rest in enumerate((left, right)) if rest]
        if self._n + len(rests) > len(self._sizes):  # out of slots: renumber the unmatched pieces
            live = [(self._place[i], self._text[i]) for i in self._slots]
            self._fill(live[:k] + rests + live[k + 1 :])
        else:
            self._slots[k : k + 1] = [self._add(place, rest) for place, rest in rests]
        self.texts[k : k + 1] = [rest for _, rest in rests]

    def _fill(self, pieces: list[tuple[tuple[int, ...], str]]) -> None:
        """Slots 0, 1, ... for ``(place, text)`` pieces, with room for a quarter more (matched slots are dead weight)."""
        import numpy as np

        capacity = len(pieces) + max(2, len(pieces) // 4)
        self._n = 0
        self._text: list[str] = []  # by slot: its text, its place in reading order (a tuple, as gold's)
        self._place: list[tuple[int, ...]] = []
        self._by_text: dict[str, list[int]] = {}
        self._sizes = np.zeros(capacity, dtype=np.int64)
        self._alive = np.zeros(capacity, dtype=bool)
        self._counts = np.zeros((max(1, len(self._feature)), capacity), dtype=self._dtype)
        self._slots = [self._add(place, text) for place, text in pieces]  # the slot of the piece at each position

    def _add(self, place: tuple[int, ...], text: str) -> int:
        """A new slot for ``text``; returns it."""
        import numpy as np

        i = self._n
        self._n += 1
        self._text.append(text)
        self._place.append(place)
        self._sizes[i], self._alive[i] = len(text), True
        self._by_text.setdefault(text, []).append(i)
        rows = list(map(self._feature.__getitem__, _features(text)))
        self._counts[:, i] = np.bincount(rows, minlength=len(self._counts))
        return i

    def _fuzzy(self, g: str, bounds: np.ndarray, max_error: float) -> Match | None:
        from rapidfuzz.fuzz import partial_ratio_alignment

        if max_error < 1 and bounds.max() <= 0:
            return None  # no piece shares a character: any window is all edits, beyond max_error
        best: tuple[float, int, int, Any] | None = None  # (score, window, slot, alignment)
        while True:  # pieces in falling order of their bound, until none can reach the best score
            i = int(bounds.argmax())
            if bounds[i] < 0 or (best is not None and bounds[i] < best[0] - _EPS):
                break
            bounds[i] = -2.0  # scored
            a = partial_ratio_alignment(g, self._text[i])
            if a is None or a.src_end <= a.src_start or a.dest_end <= a.dest_start:
                continue
            window = max(a.src_end - a.src_start, a.dest_end - a.dest_start)
            if (
                best is None
                or (a.score, window) > best[:2]
                or ((a.score, window) == best[:2] and self._place[i] < self._place[best[2]])
            ):
                best = (a.score, window, i, a)
        if best is None:
            return None
        k, p, a = self._slots.index(best[2]), self._text[best[2]], best[3]
        if a.src_end - a.src_start == len(g):  # all of g against a window of p
            dist, p1, p2 = _refine(g, p, a.dest_start, a.dest_end)
            return dist, k, 0, len(g), p1, p2
        dist, g1, g2 = _refine(p[a.dest_start : a.dest_end], g, a.src_start, a.src_end)
        return dist, k, g1, g2, a.dest_start, a.dest_end

    def _bounds(self, g: str) -> np.ndarray:
        """Upper bound of each slot's partial-ratio score against ``g`` (see below); -1 if matched.

        A window of ``x`` characters scored against the shorter text (``n``
        characters) keeps ``L`` of them in common, ``ratio = 200 L / (n + x)``,
        where ``L <= x``, ``L <= K`` (characters the two texts share) and
        ``L <= (S + n + x + 1) / 3`` (``S``: pairs of adjacent characters they
        share; each character outside the common part breaks at most two
        pairs, each gap between kept ones at least one). The bound is the
        ratio at the largest ``x`` all three allow, ``min(K, (S + n + 1) / 2, n)``.
        """
        import numpy as np

        n = self._n
        rows = [row for row in map(self._feature.get, _features(g)) if row is not None]
        wanted = np.minimum(np.bincount(rows, minlength=len(self._counts)), np.iinfo(self._dtype).max)
        wanted = wanted.astype(self._dtype)
        used = np.flatnonzero(wanted)
        common = np.minimum(self._counts[used, :n], wanted[used, None])
        chars = int(np.searchsorted(used, self._n_chars))  # used rows below are characters, above pairs
        shared, pairs = common[:chars].sum(axis=0, dtype=np.int64), common[chars:].sum(axis=0, dtype=np.int64)
        shorter = np.minimum(self._sizes[:n], len(g))
        x = np.minimum(np.minimum(shared, (pairs + shorter + 1) / 2), shorter)
        bounds: np.ndarray = np.where(shorter + x > 0, 200.0 * x / np.maximum(shorter + x, 1), 0.0)
        bounds[~self._alive[:n]] = -1.0
        return bounds


def _features(text: str) -> Iterator[str]:
    """The characters of ``text``, then its pairs of adjacent characters."""
    return chain(text, map(str.__add__, text, text[1:]))


def _refine(s: str, t: str, start: int, end: int) -> tuple[int, int, int]:
    """(edits, start, end) of the window of ``t`` near ``t[start:end]`` closest to ``s``.

    `partial_ratio_alignment` only tries windows as long as the shorter text;
    moving each end by up to `_SLACK` units lets a window absorb a dropped or
    an inserted character.
    """
    from rapidfuzz.distance import Levenshtein

    best = (Levenshtein.distance(s, t[start:end]), start - end, start, end)
    for a in range(max(0, start - _SLACK), min(start + _SLACK, end - 1) + 1):
        for b in range(max(a + 1, end - _SLACK), min(len(t), end + _SLACK) + 1):
            best = min(best, (Levenshtein.distance(s, t[a:b]), a - b, a, b))
    return best[0], best[2], best[3]
