"""The greedy flexible matching behind `ek.metrics.reading_order.FlexibleCharacterMetric`, in near-linear time.

The rule (stated in `ek.metrics.reading_order`): repeatedly take the
longest unmatched gold piece (reading order breaks ties) and find the pred
piece that fits it best: an identical piece, else the first piece that
contains it, else, among the `_CANDIDATES` pieces of highest bound (below),
the one whose best window of `rapidfuzz.fuzz.partial_ratio_alignment`
scores highest (then the longer window, then the earlier piece), its ends
moved by a few units where that saves edits. The unmatched rests of both
pieces go back into play as they are, whitespace at the cut included.

Scoring every pair of pieces is a partial-ratio call per pair (20 s for a
1,300-line page). Here:

* identical pieces are found by a dictionary;
* the partial-ratio score of two texts is bounded from above by their
  longest common subsequence ``L`` (one batched `rapidfuzz.process.cdist`
  call against every piece): a window ``w`` of the longer text keeps at
  most ``min(L, |w|)`` characters of the shorter one (``n`` characters),
  so its ratio ``200 LCS / (n + |w|)`` is at most ``200 L / (n + L)``.
  Pieces are scored in falling order of that bound until it drops below
  the best score found. ``L = len(g)`` (the bound 100) is also the only
  way a piece can contain the gold piece ``g``, so only those are searched
  for it.
* on a page of more than `_ALL` pieces, only candidate pieces are bounded:
  the pred lines holding the most of ``g``'s `_KEYS` rarest q-grams (`_Q`
  letters, sampled every `_Q`), at most `_SHORTLIST` lines, plus every line
  holding all of them (so every piece that contains ``g`` is among them). The index holds the q-grams of the
  pred lines, built once: a rest is found through its line (the rests of a
  line are the pieces whose place starts with the line's). The search so
  costs about the same for each line whatever the page's line count:
  near-linear in the page, where bounding every piece was 3/4 of the time
  on a 300 kB page. A piece shorter than `_Q`, or with no candidate, is
  bounded against every piece as before.
* at most `_CANDIDATES` pieces are scored. Where a line has a good match
  the bound stops the search well before that, and the result is the one
  scoring every piece would give. A badly read line on a noisy page has
  hundreds of pieces scoring about as poorly as its best one (the edge
  windows of unrelated lines score 50-60); scoring them all took 85% of
  the time on a 67,000-character page and moved its figure by less than 0.1 point.
"""

from __future__ import annotations

import heapq
from bisect import bisect_left
from collections import Counter, defaultdict
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

Match = tuple[int, int, int, int, int, int]
"""(edits, piece index, gold start, gold end, pred start, pred end)."""

Place = tuple[int, ...]
"""A piece's place in reading order: its line, then 0 or 1 for the left or right rest of each cut."""

_CANDIDATES = 32  # the most pieces one fuzzy search scores: those of the highest bound (see the module doc)
_SLACK = 3
_EPS = 1e-6  # partial-ratio scores are floats: a bound this close to the best may still tie it
_ALL = 256  # pieces up to which every piece is bounded (a short page searches as it always did)
_Q = 4  # letters of an indexed q-gram
_KEYS = 4  # the rarest q-grams of a gold piece whose pred lines are its candidates
_SHORTLIST = 64  # candidates ranked by shared q-grams


def flexible_edits(pred: list[str], gold: list[str], max_error: float) -> tuple[int, int]:
    """(errors, gold characters) of the greedy flexible matching of ``pred`` lines against ``gold`` lines."""
    from rapidfuzz.distance import Levenshtein

    # The heap holds (-length, arrival, place, text): longest first, then the order the lines came in.
    queue: list[tuple[int, int, Place, str]] = [(-len(g), k, (k,), g) for k, g in enumerate(gold)]
    heapq.heapify(queue)
    arrivals = len(queue)
    pieces = _Pieces(pred)
    edits = 0
    set_aside: list[tuple[Place, str]] = []
    while queue and pieces.texts and len(queue) + len(pieces.texts) > 2:  # one piece each: plain distance
        _, _, place, g = heapq.heappop(queue)
        found = pieces.best(g, max_error)
        if found is None or found[0] > max_error * max(found[3] - found[2], found[5] - found[4]):
            set_aside.append((place, g))
            continue
        dist, k, g1, g2, p1, p2 = found
        edits += dist
        pieces.cut(k, p1, p2)
        for side, rest in enumerate((g[:g1], g[g2:])):
            if rest:  # the whitespace at a cut stays: a split or a merge costs the space it moved
                heapq.heappush(queue, (-len(rest), arrivals, place + (side,), rest))
                arrivals += 1
    left_gold = "".join(g for _, g in sorted(set_aside + [(place, g) for _, _, place, g in queue]))
    edits += Levenshtein.distance(left_gold, "".join(pieces.texts))
    return edits, sum(map(len, gold))


class _Pieces:
    """The unmatched pred pieces in reading order (``texts``, their ``places`` sorted alike), with the lookups."""

    def __init__(self, texts: list[str]):
        import numpy as np

        self.texts = list(texts)
        self._lines = tuple(texts)
        self._sizes = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
        self.places: list[Place] = [(k,) for k in range(len(texts))]
        self._by_text: dict[str, set[Place]] = {}
        for place, text in zip(self.places, self.texts):
            self._by_text.setdefault(text, set()).add(place)
        self._grams: dict[str, list[int]] | None = None  # q-gram -> the pred lines holding it, built when first needed

    def best(self, g: str, max_error: float) -> Match | None:
        """The match for gold piece ``g``: identical, containing, else best fuzzy window (see the module doc)."""
        import numpy as np

        same = self._by_text.get(g)
        if same:
            k = bisect_left(self.places, min(same))
            return 0, k, 0, len(g), 0, len(g)
        chosen = self._candidates(g)  # piece indices, increasing
        common, bounds = self._bounds(g, chosen)
        for at_k in np.flatnonzero(common == len(g)).tolist():  # g is a subsequence: the piece may contain it
            k = chosen[at_k]
            at = self.texts[k].find(g)
            if at >= 0:
                return 0, k, 0, len(g), at, at + len(g)
        if max_error < 1 and not common.any():
            return None  # no piece shares a character: any window is all edits, beyond max_error
        return self._fuzzy(g, bounds, chosen)

    def _candidates(self, g: str) -> list[int]:
        """The indices of the pieces bounded for ``g``: all, or the candidates by q-grams (module doc)."""
        grams = [g[i : i + _Q] for i in range(0, len(g) - _Q + 1, _Q)]
        if len(self.texts) <= _ALL or not grams:
            return list(range(len(self.texts)))
        index = self._index()
        postings: list[list[int]] = sorted((index.get(gram, []) for gram in grams), key=len)[:_KEYS]
        counts: Counter[int] = Counter()
        for posting in postings:
            counts.update(posting)
        every = len(postings)  # a line that holds g holds every one of its q-grams
        lines = {line for line, _ in counts.most_common(_SHORTLIST)}
        lines.update(line for line, count in counts.items() if count == every)
        chosen: list[int] = []
        places = self.places
        for line in sorted(lines):  # the line's rests: the pieces whose place starts with (line,)
            k = bisect_left(places, (line,))
            while k < len(places) and places[k][0] == line:
                chosen.append(k)
                k += 1
        return chosen or list(range(len(self.texts)))

    def _bounds(self, g: str, chosen: list[int] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The chosen (default: all) pieces' longest common subsequences with ``g``, and their bounds (module doc)."""
        import numpy as np
        from rapidfuzz.distance import LCSseq
        from rapidfuzz.process import cdist

        every = chosen is None or len(chosen) == len(self.texts)
        texts = self.texts if every else [self.texts[k] for k in chosen or ()]
        common = cdist([g], texts, scorer=LCSseq.similarity, dtype=np.int64, workers=1)[0]
        shorter = np.minimum(self._sizes if every else self._sizes[chosen], len(g))
        return common, 200.0 * common / np.maximum(shorter + common, 1)

    def _index(self) -> dict[str, list[int]]:
        """Each q-gram of the pred lines -> the lines holding it, in order (built once)."""
        if self._grams is None:
            grams: defaultdict[str, list[int]] = defaultdict(list)
            for line, text in enumerate(self._lines):
                for gram in {text[i : i + _Q] for i in range(len(text) - _Q + 1)}:
                    grams[gram].append(line)
            self._grams = dict(grams)
        return self._grams

    def cut(self, k: int, start: int, end: int) -> None:
        """Take ``[start, end)`` out of piece ``k``, leaving its rests (either may be empty) in its place."""
        import numpy as np

        text, place = self.texts[k], self.places[k]
        self._by_text[text].discard(place)
        rests = [(place + (side,), rest) for side, rest in enumerate((text[:start], text[end:])) if rest]
        for p, rest in rests:
            self._by_text.setdefault(rest, set()).add(p)
        self.texts[k : k + 1] = [rest for _, rest in rests]
        self.places[k : k + 1] = [p for p, _ in rests]
        self._sizes = np.concatenate((self._sizes[:k], [len(rest) for _, rest in rests], self._sizes[k + 1 :]))

    def _fuzzy(self, g: str, bounds: np.ndarray, chosen: list[int]) -> Match | None:
        from rapidfuzz.fuzz import partial_ratio_alignment

        best: tuple[float, int, int, Any] | None = None  # (score, window, piece, alignment)
        for at_k in _most_promising(bounds, _CANDIDATES):  # falling bound, until none can reach the best
            if best is not None and bounds[at_k] < best[0] - _EPS:
                break
            k = chosen[at_k]
            a = partial_ratio_alignment(g, self.texts[k])
            if a is None or a.src_end <= a.src_start or a.dest_end <= a.dest_start:
                continue
            window = max(a.src_end - a.src_start, a.dest_end - a.dest_start)
            if best is None or (a.score, window) > best[:2] or ((a.score, window) == best[:2] and k < best[2]):
                best = (a.score, window, k, a)
        if best is None:
            return None
        k, p, a = best[2], self.texts[best[2]], best[3]
        if a.src_end - a.src_start == len(g):  # all of g against a window of p
            dist, p1, p2 = _refine(g, p, a.dest_start, a.dest_end)
            return dist, k, 0, len(g), p1, p2
        dist, g1, g2 = _refine(p[a.dest_start : a.dest_end], g, a.src_start, a.src_end)
        return dist, k, g1, g2, a.dest_start, a.dest_end


def _most_promising(bounds: np.ndarray, n: int) -> list[int]:
    """The ``n`` pieces of highest bound, highest first (the earlier piece among equal bounds)."""
    import numpy as np

    if len(bounds) > n:  # a partial sort: only the n best are ordered
        kth = np.partition(bounds, len(bounds) - n)[len(bounds) - n]
        above, tied = np.flatnonzero(bounds > kth), np.flatnonzero(bounds == kth)
        chosen = np.concatenate((above, tied[: n - len(above)]))
    else:
        chosen = np.arange(len(bounds))
    order: list[int] = chosen[np.lexsort((chosen, -bounds[chosen]))].tolist()
    return order


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
