"""ROVER: fuse N hypotheses of the same content into a consensus with per-token agreement.

Recognizer Output Voting Error Reduction (Fiscus 1997) aligns the outputs of
several engines into a transition network of slots, one token (or NULL) per
engine in each slot, then votes in every slot. How many engines back the
winning token is a reference-free confidence: if every engine read the same
word, it is probably right.

Alignment is progressive: the first hypothesis makes the first slots, and
each later one is aligned to the network built so far. To stay fast on long
inputs, each step aligns against the network's backbone (each slot's most
common token) with rapidfuzz's bit-parallel Levenshtein alignment, then
re-aligns every stretch that did not match exactly with a small dynamic
programme in which a token matches a slot if *any* engine put it there. That
refinement has a fixed cell budget per step, so time and memory stay bounded
(3 hypotheses of 20,000 tokens fuse in about a second, in tens of MB).

Public through `ek.qe`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, ClassVar, cast

from ek._util import is_real, type_name
from ek.qe._ocr_shape import is_ocr_result, token_confidences

__all__ = ["AgreementSignal", "RoverConsensus", "RoverSlot", "rover"]

DEFAULT_MAX_TOKENS = 5000
"""Longest hypothesis `rover` accepts by default (``max_tokens=None`` lifts it)."""

_MAX_LENGTH_RATIO = 10
"""Longest / shortest hypothesis above which `rover` refuses to align them."""

_REFINE_BUDGET = 400_000
"""Dynamic-programming cells spent refining non-matching stretches, per hypothesis."""

_NULL = -1

_Units = tuple[list[str], list[float]]  # a hypothesis read: its tokens and their confidences
_Slot = tuple[list[int], list[float]]  # each engine's token id there (_NULL: none) and its confidence, so far
_Op = tuple[str, int, int, int, int]  # an opcode: tag, slots [i1, i2), hypothesis tokens [j1, j2)
_Pair = tuple[int, int | None] | tuple[None, int]  # a slot and the token placed in it (None: NULL or new)


@dataclass(frozen=True)
class RoverSlot:
    """One branch point of the network: each engine's token there (None for NULL) and the vote.

    ``winner`` is the winning token (None when NULL won), ``score`` its slot
    score and ``vote_share`` the fraction of engines that voted for it.
    """

    entries: tuple[str | None, ...] = ()
    winner: str | None = None
    score: float = 0.0
    vote_share: float = 0.0


@dataclass(frozen=True)
class RoverConsensus:
    """The result of a ROVER pass: consensus tokens, the slots and per-token agreement.

    ``agreement[i]`` is the share of engines that voted for ``tokens[i]``.
    """

    tokens: tuple[str, ...] = ()
    slots: tuple[RoverSlot, ...] = ()
    agreement: tuple[float, ...] = ()
    n_engines: int = 0

    @property
    def text(self) -> str:
        """The consensus as one string (tokens joined by spaces)."""
        return " ".join(self.tokens)

    @property
    def mean_agreement(self) -> float:
        """Mean agreement over the consensus tokens, a raw confidence in [0, 1].

        1.0 means every engine agreed at every emitted position. When two or
        more engines were fused and NULL won every slot, the engines agreed
        on nothing and this is 0.0 (not a misleading 1.0). A single engine,
        or none, is vacuously 1.0.
        """
        if not self.agreement:
            return 0.0 if self.n_engines >= 2 else 1.0
        return math.fsum(self.agreement) / len(self.agreement)


def rover(
    hypotheses: Iterable[Any],
    *,
    use_confidence: bool = True,
    conf_weight: float = 0.5,
    null_conf: float = 0.7,
    tokenize: Callable[[Any], list[tuple[str | None, float]]] | None = None,
    max_tokens: int | None = DEFAULT_MAX_TOKENS,
) -> RoverConsensus:
    """Align N hypotheses, vote in every slot, and return the consensus with its agreement.

    Each slot's candidates (tokens, and NULL for engines with nothing there)
    score ``(1 - conf_weight) * votes / N + conf_weight * mean confidence``;
    the highest score wins, then the most votes, then the candidate an
    earlier engine produced. The result depends on hypothesis order only
    through that tie-break and the progressive alignment.

    A blank hypothesis (None, an empty string, an OCR result whose ``.text``
    is None or empty) is an engine that read nothing: it casts a NULL vote in
    every slot, which lowers the agreement, and the others are fused as usual.

    Args:
        hypotheses: the outputs to fuse: strings (split on whitespace, each
            token with confidence 1), OCR-result-shaped objects (``.text``;
            each token takes the ``.confidence`` of its word in ``.blocks``,
            else ``.mean_confidence``, else 1), token lists, or
            ``(token, confidence)`` lists.
        use_confidence: blend confidence into the vote; False votes by
            frequency only (``conf_weight`` is then 0).
        conf_weight: weight of mean confidence against vote frequency, in [0, 1].
        null_conf: confidence credited to a NULL vote: how readily a deletion wins.
        tokenize: ``hypothesis -> [(token, confidence), ...]`` replacing the
            default reading above (None tokens are dropped).
        max_tokens: refuse hypotheses longer than this (a safety default
            against huge inputs); None lifts the cap.

    Raises:
        ValueError: no hypotheses, one longer than ``max_tokens``, non-blank
            lengths differing more than tenfold (they cannot be transcriptions
            of the same content), or a confidence outside [0, 1].

    >>> c = rover(["the cat sat", "the cat sit", "the bat sat"])
    >>> c.text, [round(a, 3) for a in c.agreement]
    ('the cat sat', [1.0, 0.667, 0.667])
    """
    cw = _weight(conf_weight, "conf_weight") if use_confidence else 0.0
    nc = _weight(null_conf, "null_conf")
    read = _read_all(hypotheses, tokenize, max_tokens)
    vocab: dict[str, int] = {}
    ids = [[vocab.setdefault(tok, len(vocab)) for tok in toks] for toks, _ in read]
    slots = _align(ids, [confs for _, confs in read])
    return _vote(slots, len(read), list(vocab), cw, nc)


@dataclass(frozen=True)
class AgreementSignal:
    """ROVER agreement of several engines' outputs as a reference-free `Signal` (cost tier 3).

    Called on a collection of hypotheses of one value, it runs `rover` and
    returns the mean per-token agreement. Like every signal it is a raw
    score: calibrate it before a gate reads it. It costs N engine runs, so
    try the verifiers and free intrinsic confidences first.

    >>> round(AgreementSignal()(["the cat sat", "the cat sit", "the bat sat"]), 3)
    0.778
    """

    name: ClassVar[str] = "agreement"

    cost_tier: int = 3
    use_confidence: bool = True
    conf_weight: float = 0.5
    null_conf: float = 0.7
    tokenize: Callable[[Any], list[tuple[str | None, float]]] | None = None
    max_tokens: int | None = DEFAULT_MAX_TOKENS

    def __call__(self, target: Iterable[Any]) -> float:
        """Mean ROVER agreement of the hypotheses in ``target``."""
        return rover(
            target,
            use_confidence=self.use_confidence,
            conf_weight=self.conf_weight,
            null_conf=self.null_conf,
            tokenize=self.tokenize,
            max_tokens=self.max_tokens,
        ).mean_agreement


# --------------------------------------------------------------------------
# reading hypotheses
# --------------------------------------------------------------------------


def _read_all(hypotheses: Any, tokenize: Any, max_tokens: int | None) -> list[_Units]:
    if isinstance(hypotheses, (str, bytes)) or not hasattr(hypotheses, "__iter__"):
        raise TypeError(
            f"rover() takes a list of hypotheses, got {type_name(hypotheses)}; "
            'pass e.g. ["the cat sat", "the cat sit"].'
        )
    if max_tokens is not None and (isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1):
        raise ValueError(f"rover() max_tokens must be a positive int or None, got {max_tokens!r}.")
    units = []
    for i, h in enumerate(hypotheses):
        u = _check_units(tokenize(h), i) if tokenize is not None else _as_units(h, i)
        if max_tokens is not None and len(u[0]) > max_tokens:
            raise ValueError(
                f"rover() hypothesis {i} has {len(u[0])} tokens, more than max_tokens={max_tokens} "
                "(a guard against runaway alignment cost). Split the text into pages or lines, "
                "or pass max_tokens=None to lift the cap."
            )
        units.append(u)
    if not units:
        raise ValueError("rover() got no hypotheses; pass at least one (two or more to measure agreement).")
    lengths = [len(toks) for toks, _ in units if toks]  # blank readings only cast NULL votes
    if lengths and max(lengths) > _MAX_LENGTH_RATIO * min(lengths):
        lo, hi = min(lengths), max(lengths)
        raise ValueError(
            f"rover() hypotheses have wildly different lengths ({lo} to {hi} tokens, more than "
            f"{_MAX_LENGTH_RATIO}x apart), so they cannot be readings of the same content. Check "
            "that every hypothesis covers the same page or field, or drop the outlier."
        )
    return units


def _as_units(h: Any, i: int) -> _Units:
    """Default reading: ``(tokens, confidences)`` of a string, OCR result or token list.

    None, and an OCR result whose ``.text`` is None, are blank readings: no tokens.
    """
    if h is None:
        return [], []
    if isinstance(h, str):
        toks = h.split()
        return toks, [1.0] * len(toks)
    if is_ocr_result(h):
        text = h.text
        if text is None:
            return [], []
        if not isinstance(text, str):
            raise TypeError(
                f"rover() hypothesis {i} has .text of type {type_name(text)}; an OCR result's text "
                "must be a str (or None when the engine read nothing)."
            )
        toks = text.split()
        return _check_units(list(zip(toks, token_confidences(h, toks))), i)
    if isinstance(h, (list, tuple)):
        units: list[tuple[Any, Any]] = []  # checked by _check_units
        for item in h:
            if isinstance(item, str):
                units.append((item, 1.0))
            elif isinstance(item, (list, tuple)) and len(item) == 2:
                units.append((item[0], item[1]))
            else:
                raise TypeError(
                    f"rover() hypothesis {i} has an item {item!r:.40}; token lists hold strings or "
                    "(token, confidence) pairs."
                )
        return _check_units(units, i)
    raise TypeError(
        f"rover() hypothesis {i} is {type_name(h)}; pass a string, an object with .text, a list of "
        "tokens or a list of (token, confidence) pairs (or give tokenize=)."
    )


def _check_units(units: Any, i: int) -> _Units:
    toks: list[str] = []
    confs: list[float] = []
    for tok, conf in units:
        if tok is None:
            continue
        if not isinstance(tok, str):
            raise TypeError(f"rover() hypothesis {i} has a token {tok!r:.40}; tokens must be strings.")
        if not is_real(conf) or not 0.0 <= conf <= 1.0:
            raise ValueError(
                f"rover() hypothesis {i} gives token {tok!r} confidence {conf!r}; confidences must "
                "be numbers in [0, 1] (divide 0-100 engine scores by 100)."
            )
        toks.append(tok)
        confs.append(float(conf))
    return toks, confs


def _weight(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
        raise ValueError(f"rover() {name} must be a number in [0, 1], got {value!r}.")
    return float(value)


# --------------------------------------------------------------------------
# alignment
# --------------------------------------------------------------------------


def _align(ids: list[list[int]], confs: list[list[float]]) -> list[_Slot]:
    """Progressively align every hypothesis into slots ``(token ids, confidences)``."""
    from rapidfuzz.distance import Levenshtein

    slots: list[_Slot] = [([t], [c]) for t, c in zip(ids[0], confs[0])]
    for k in range(1, len(ids)):
        hyp, hconf = ids[k], confs[k]
        backbone = [_backbone_token(s[0]) for s in slots]
        ops = Levenshtein.opcodes(backbone, hyp)
        budget = [_REFINE_BUDGET]
        out: list[_Slot] = []
        region: list[_Op] = []
        # as_list gives plain (tag, i1, i2, j1, j2) tuples, faster to unpack than Opcode objects (its stub says Opcode)
        for tag, i1, i2, j1, j2 in cast(list[_Op], ops.as_list()):
            if tag != "equal":
                region.append((tag, i1, i2, j1, j2))
                continue
            if region:
                _place(out, slots, hyp, hconf, region, k, budget)
                region = []
            for i, j in zip(range(i1, i2), range(j1, j2)):
                slot = slots[i]
                slot[0].append(hyp[j])
                slot[1].append(hconf[j])
            out.extend(slots[i1:i2])
        if region:
            _place(out, slots, hyp, hconf, region, k, budget)
        slots = out
    return slots


def _backbone_token(tokens: list[int]) -> int:
    """The slot's most common token (earliest engine on ties); NULL if it has none."""
    best, best_n = _NULL, 0
    seen: dict[int, int] = {}
    for t in tokens:
        if t != _NULL:
            seen[t] = seen.get(t, 0) + 1
            if seen[t] > best_n:
                best, best_n = t, seen[t]
    return best


def _add(slot: _Slot, token: int, conf: float) -> None:
    slot[0].append(token)
    slot[1].append(conf)


def _place(
    out: list[_Slot],
    slots: list[_Slot],
    hyp: list[int],
    hconf: list[float],
    region: list[_Op],
    k: int,
    budget: list[int],
) -> None:
    """Append the slots of one non-matching stretch, refined by the entries-aware DP."""
    i1, i2, j1, j2 = region[0][1], region[-1][2], region[0][3], region[-1][4]
    cells = (i2 - i1 + 1) * (j2 - j1 + 1)
    simple = len(region) == 1 and (region[0][0] != "replace" or i2 - i1 == 1)
    pairs: list[_Pair]
    if not simple and cells <= budget[0]:
        budget[0] -= cells
        pairs = _dp_pairs(slots, i1, i2, hyp, j1, j2)
    else:  # too large to refine: keep the backbone alignment
        pairs = []
        for tag, a1, a2, b1, b2 in region:
            if tag == "replace":
                pairs.extend(zip(range(a1, a2), range(b1, b2)))
            elif tag == "delete":
                pairs.extend((i, None) for i in range(a1, a2))
            else:
                pairs.extend((None, j) for j in range(b1, b2))
    for i, j in pairs:
        if i is not None:
            _add(slots[i], _NULL if j is None else hyp[j], 0.0 if j is None else hconf[j])
            out.append(slots[i])
        elif j is not None:  # an inserted token: a new slot, NULL for the engines before
            out.append(([_NULL] * k + [hyp[j]], [0.0] * k + [hconf[j]]))


def _dp_pairs(slots: list[_Slot], i1: int, i2: int, hyp: list[int], j1: int, j2: int) -> list[_Pair]:
    """Edit-distance alignment of slots[i1:i2] with hyp[j1:j2]; a token matches any entry."""
    rows, cols = i2 - i1, j2 - j1
    entries = [set(slots[i1 + r][0]) for r in range(rows)]
    prev = list(range(cols + 1))
    moves = []
    for r in range(1, rows + 1):
        have = entries[r - 1]
        cur = [r] + [0] * cols
        move = bytearray(cols + 1)
        move[0] = 1
        for c in range(1, cols + 1):
            diag = prev[c - 1] + (0 if hyp[j1 + c - 1] in have else 1)
            up = prev[c] + 1
            left = cur[c - 1] + 1
            if diag <= up and diag <= left:
                cur[c], move[c] = diag, 0
            elif up <= left:
                cur[c], move[c] = up, 1
            else:
                cur[c], move[c] = left, 2
        moves.append(move)
        prev = cur
    pairs: list[_Pair] = []
    r, c = rows, cols
    while r or c:
        m = moves[r - 1][c] if r else 2
        if m == 0:
            pairs.append((i1 + r - 1, j1 + c - 1))
            r, c = r - 1, c - 1
        elif m == 1:
            pairs.append((i1 + r - 1, None))
            r -= 1
        else:
            pairs.append((None, j1 + c - 1))
            c -= 1
    pairs.reverse()
    return pairs


# --------------------------------------------------------------------------
# voting
# --------------------------------------------------------------------------


def _vote(slots: list[_Slot], n: int, names: list[str], cw: float, null_conf: float) -> RoverConsensus:
    out_slots: list[RoverSlot] = []
    tokens: list[str] = []
    agreement: list[float] = []
    freq_w = 1.0 - cw
    make = RoverSlot
    for toks, cs in slots:
        first = toks[0]
        if toks.count(first) == n:  # unanimous: the common case
            mean_conf = null_conf if first == _NULL else math.fsum(cs) / n
            best, share, score = first, 1.0, freq_w + cw * mean_conf
        else:
            best, share, score = _tally(toks, cs, n, freq_w, cw, null_conf)
        winner = None if best == _NULL else names[best]
        out_slots.append(make(tuple(None if t == _NULL else names[t] for t in toks), winner, score, share))
        if winner is not None:
            tokens.append(winner)
            agreement.append(share)
    return RoverConsensus(tokens=tuple(tokens), slots=tuple(out_slots), agreement=tuple(agreement), n_engines=n)


def _tally(
    toks: list[int], cs: list[float], n: int, freq_w: float, cw: float, null_conf: float
) -> tuple[int, float, float]:
    """``(winner id, vote share, score)`` of one contested slot."""
    tally: dict[int, list[float]] = {}  # token -> [votes, confidence sum, first engine]
    for e, (t, c) in enumerate(zip(toks, cs)):
        conf = null_conf if t == _NULL else c
        entry = tally.get(t)
        if entry is None:
            tally[t] = [1, conf, e]
        else:
            entry[0] += 1
            entry[1] += conf

    def rank(t: int) -> tuple[float, float, float]:
        count, conf_sum, first = tally[t]
        return (freq_w * count / n + cw * conf_sum / count, count, -first)

    best = max(tally, key=rank)  # the first of equal ranks, in engine order
    return best, tally[best][0] / n, rank(best)[0]
