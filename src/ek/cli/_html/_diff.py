"""Aligned diffs and confusion counts from alignment operations.

An alignment is a list of ``[tag, gold_segment, pred_segment]`` with tag ``equal``,
``replace``, ``delete`` or ``insert`` (a segment is a string; for words it may also be a
list of words): the ops of `ek._align.align`, which also aligns an item given only its
texts. Whatever unit the metric counts in, a character diff is drawn by grapheme cluster
(`ek.cli._html._chars.align_clusters`): a combining ``e`` stays on its letter and ``m̃`` is
one unit. Changes are marked by more than colour: a deletion is struck through
(``<del>``), an insertion underlined (``<ins>``), and a run of adjacent substitutions is
one box holding the gold run, an arrow and the predicted run; each carries a ``title``
naming the operation. Hidden characters show as code-point boxes (`ek.cli._html._chars.show`).
Long unchanged runs are folded so a page stays small whatever the document length.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from ek._align import align
from ek.cli._html._chars import align_clusters, box, clusters, show
from ek.cli._html._data import Item, Ops
from ek.cli._html._format import esc

_CONTEXT = 30  # units of unchanged text kept on each side of a folded run
_MAX_OPS = 400  # edits rendered per item before the diff is cut
_KINDS = {"replace": "substitution", "delete": "deletion", "insert": "insertion"}

LEGEND = (
    '<p class="legend">Diff legend: '
    '<del class="op-del" title="deleted">gone</del> struck through = in gold, missing from the prediction; '
    '<ins class="op-ins" title="inserted">added</ins> underlined = in the prediction, not in gold; '
    '<span class="op-sub" title="substituted"><del>was</del><ins>now</ins></span> boxed with an arrow = '
    "substituted (the gold run, then the predicted run); "
    '<span class="fold" title="unchanged text left out">⋯</span> = a long unchanged run folded away '
    "(hover for its length); ␣ marks a changed space, ↵ a changed line break; "
    f"{box(chr(0xF50E))} = a character shown by its code point: invisible (controls, joiners, soft "
    "hyphens, bidi controls such as U+202E), private-use (MUFI letters) or a combining mark with no "
    "letter (hover for its name). Characters are grouped into grapheme clusters: a letter and its "
    "combining marks change together.</p>"
)


def render_diff(ops: Ops | None, *, unit: str | None, gold: object = None, pred: object = None) -> str:
    """The inline diff of one item as HTML; falls back to aligning ``gold`` and ``pred`` itself."""
    words = unit == "word"
    if not ops:
        if not (isinstance(gold, str) and isinstance(pred, str)):
            shown = pred if pred is not None else gold
            return f'<span class="plain">{show(str(shown))}</span>' if shown is not None else ""
        ops = align(pred, gold, unit="word") if words else align_clusters(pred, gold)
    elif not words:
        ops = _by_cluster(ops)
    joiner = " " if words else ""
    parts, edits, blocks = [], 0, _blocks(ops, joiner)
    last = len(blocks) - 1
    for i, (tag, g, p, n) in enumerate(blocks):
        if tag == "equal":
            parts.append(_fold(g, words=words, head=i > 0, tail=i < last))
            continue
        edits += n
        if edits > _MAX_OPS:
            parts.append(f'<span class="note">… diff cut after {_MAX_OPS} edits</span>')
            break
        parts.append(_mark(tag, g, p, words=words))
    return '<span class="diff">' + joiner.join(parts) + "</span>"


def confusions_from_items(items: Iterable[Item]) -> list[dict[str, object]]:
    """Substituted pairs, dropped and inserted units counted over every item's ``ops``, most frequent first."""
    raw: Counter[tuple[object, ...]] = (
        Counter()
    )  # identical edits first, so each distinct edit is split into units once
    for item in items:
        ops = item.get("ops")
        if not ops:
            continue
        words = item.get("unit") == "word"
        for op in ops:
            if op[0] in _KINDS:
                key = (words, *op)
                try:
                    raw[key] += 1
                except TypeError:  # segments given as lists of words
                    raw[(words,) + _unpack(op)] += 1
    counts: Counter[tuple[str, str, str]] = Counter()
    for (in_words, tag, g, p), n in raw.items():
        for pair in _pairs(str(tag), _text(g), _text(p), words=bool(in_words)):  # (bool, str, ...) as counted
            counts[pair] += n
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return [{"kind": k, "gold": g, "pred": p, "count": c} for (k, g, p), c in ranked]


def _unpack(op: Sequence[object]) -> tuple[str, str, str]:
    tag = str(op[0])
    return tag, _text(op[1] if len(op) > 1 else ""), _text(op[2] if len(op) > 2 else "")


def _text(segment: object) -> str:
    if type(segment) is str:
        return segment
    if segment is None:
        return ""
    if isinstance(segment, (list, tuple)):
        return " ".join(str(s) for s in segment)
    return str(segment)


def _pairs(tag: str, g: str, p: str, *, words: bool) -> list[tuple[str, str, str]]:
    gu, pu = (g.split(), p.split()) if words else (list(g), list(p))
    kind = _KINDS[tag]
    if tag == "delete":
        return [(kind, u, "") for u in gu]
    if tag == "insert":
        return [(kind, "", u) for u in pu]
    if len(gu) == len(pu):
        return [(kind, a, b) for a, b in zip(gu, pu)]
    return [(kind, g, p)]


def _by_cluster(ops: Ops) -> Ops:
    """Character ops regrouped by grapheme cluster, or ``ops`` itself when none of them cuts a cluster."""
    unpacked = [_unpack(op) for op in ops]
    gold, pred = "".join(g for _, g, _ in unpacked), "".join(p for _, _, p in unpacked)
    g_cuts, p_cuts = _cuts(gold), _cuts(pred)
    if g_cuts is None and p_cuts is None:
        return ops  # every cluster is one code point
    g_at = p_at = 0
    for _, g, p in unpacked:
        g_at, p_at = g_at + len(g), p_at + len(p)
        if (g_cuts is not None and g_at not in g_cuts) or (p_cuts is not None and p_at not in p_cuts):
            return align_clusters(pred, gold)
    return ops


def _cuts(text: str) -> set[int] | None:
    """The offsets where ``text``'s clusters end, or None when each cluster is one code point."""
    units = clusters(text)
    if len(units) == len(text):
        return None
    ends, at = set(), 0
    for u in units:
        at += len(u)
        ends.add(at)
    return ends


def _blocks(ops: Ops, joiner: str) -> list[tuple[str, str, str, int]]:
    """``(tag, gold, pred, edits)`` per op, each run of adjacent substitutions merged into one block."""
    out: list[tuple[str, str, str, int]] = []
    for op in ops:
        tag, g, p = _unpack(op)
        if tag == "replace" and out and out[-1][0] == "replace":
            _, g0, p0, n = out[-1]
            out[-1] = (tag, g0 + joiner + g, p0 + joiner + p, n + 1)
        else:
            out.append((tag, g, p, 1))
    return out


def _mark(tag: str, g: str, p: str, *, words: bool) -> str:
    gv, pv = _changed(g, words=words), _changed(p, words=words)
    if tag == "delete":
        return f'<del class="op-del" title="deleted: {esc(repr(g))}">{gv}</del>'
    if tag == "insert":
        return f'<ins class="op-ins" title="inserted: {esc(repr(p))}">{pv}</ins>'
    return (
        f'<span class="op-sub" title="substituted: {esc(repr(g))} → {esc(repr(p))}">'
        f"<del>{gv}</del><ins>{pv}</ins></span>"
    )


def _changed(text: str, *, words: bool) -> str:
    """A changed segment: its spaces visible, but not the ones that only separate its words."""
    if words:
        return " ".join(show(w, changed=True) for w in text.split(" "))
    return show(text, changed=True)


def _fold(text: str, *, words: bool, head: bool, tail: bool) -> str:
    """Unchanged text, with the middle of a long run replaced by a count of what was left out."""
    units = text.split(" ") if words else clusters(text)
    keep = _CONTEXT if not words else _CONTEXT // 5
    lead = keep if head else 0  # context after the previous edit
    trail = keep if tail else 0  # context before the next edit
    if not (head or tail):
        lead = 3 * keep  # an unchanged item: its opening stands for the whole
    if len(units) <= lead + trail + keep:
        return show(text)
    sep = " " if words else ""
    start = sep.join(units[:lead])
    end = sep.join(units[len(units) - trail :]) if trail else ""
    hidden = len(units) - lead - trail
    noun = "words" if words else "characters"
    return f'{show(start)}<span class="fold" title="{hidden:,} unchanged {noun}">⋯</span>{show(end)}'
