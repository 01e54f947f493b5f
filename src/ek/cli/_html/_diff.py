"""Aligned diffs and confusion counts from alignment operations.

An alignment is a list of ``[tag, gold_segment, pred_segment]`` with tag ``equal``,
``replace``, ``delete`` or ``insert`` (a segment is a string; for words it may also be a
list of words): the ops of `ek._align.align` in the unit the figure counts, each op other
than ``equal`` one edit (an item given only its texts is aligned by grapheme cluster,
`ek.cli._html._chars.align_clusters`). Whatever unit the ops are in, a character diff is
drawn by grapheme cluster: ops that cut a cluster are drawn as one block of the whole
cluster (a combining ``e`` stays on its letter and ``m̃`` is one unit), never aligned again,
so the edits a diff stands for (its ``data-edits``) are those of its ops. Changes are marked by more than colour: a deletion is struck through
(``<del>``), an insertion underlined (``<ins>``), and a run of adjacent substitutions is
one box holding the gold run, an arrow and the predicted run; each carries a ``title``
naming the operation. Hidden characters show as code-point boxes (`ek.cli._html._chars.show`).
Long unchanged runs are folded so a page stays small whatever the document length.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence

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
    """The inline diff of one item as HTML; falls back to aligning ``gold`` and ``pred`` itself.

    The diff's ``data-edits`` is the number of edits among ``ops`` (all of them, also past the
    cut); a mark standing for more than one edit (a cluster changed in several code points, a
    run of substitutions) says how many in its own ``data-edits``.
    """
    words = unit == "word"
    if not ops:
        if not (isinstance(gold, str) and isinstance(pred, str)):
            shown = pred if pred is not None else gold
            return f'<span class="plain">{show(str(shown))}</span>' if shown is not None else ""
        ops = align(pred, gold, unit="word") if words else align_clusters(pred, gold)
    joiner = " " if words else ""
    total = sum(1 for op in ops if op[0] != "equal")
    blocks = iter(_merged(_by_unit(ops) if words else _by_cluster(ops), joiner))  # built as far as drawn
    parts, edits, head = [], 0, False
    block = next(blocks, None)
    while block is not None:
        after = next(blocks, None)  # one block ahead: the last unchanged run has no edit after it
        tag, g, p, n = block
        if tag == "equal":
            parts.append(_fold(g, words=words, head=head, tail=after is not None))
        elif edits + n > _MAX_OPS and edits:
            parts.append(f'<span class="note">… diff cut after {edits:,} of {total:,} edits</span>')
            break
        else:
            edits += n
            parts.append(_mark(tag, g, p, n, words=words))
        block, head = after, True
    return f'<span class="diff" data-edits="{total}">' + joiner.join(parts) + "</span>"


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


_Block = tuple[str, str, str, int]
"""``(tag, gold, pred, edits)``: what the diff draws as one unit, and how many edits it stands for."""


def _by_unit(ops: Ops) -> Iterator[_Block]:
    """One block per op (words, or code points that are each a cluster)."""
    return ((tag, g, p, 0 if tag == "equal" else 1) for tag, g, p in map(_unpack, ops))


def _by_cluster(ops: Ops) -> Iterator[_Block]:
    """Ops as blocks of whole grapheme clusters: the ops inside one cluster merge, their edits summed.

    Code-point ops (CER's unit) may cut a cluster (``o`` kept, its combining ``e`` dropped);
    the block then covers the cluster on both sides, so a mark stays on its letter while the
    edits still add up to those of ``ops``. Linear in the text; nothing is aligned again.
    """
    unpacked = [_unpack(op) for op in ops]
    gold, pred = "".join(g for _, g, _ in unpacked), "".join(p for _, _, p in unpacked)
    g_cuts, p_cuts = _cuts(gold), _cuts(pred)
    if g_cuts is None and p_cuts is None:
        yield from _by_unit(unpacked)  # every cluster is one code point
        return

    def whole(g_at: int, p_at: int) -> bool:  # both sides at a cluster boundary
        return (g_cuts is None or g_at in g_cuts) and (p_cuts is None or p_at in p_cuts)

    g_at = p_at = 0
    hg, hp, hn = "", "", 0  # a block waiting for both sides to end a cluster: gold, pred, edits
    for tag, g, p in unpacked:
        if tag != "equal":
            hg, hp, hn = hg + g, hp + p, hn + 1
            g_at, p_at = g_at + len(g), p_at + len(p)
            if whole(g_at, p_at):
                yield _held(hg, hp, hn)
                hg, hp, hn = "", "", 0
            continue
        first = next((k for k in range(len(g) + 1) if whole(g_at + k, p_at + k)), None)
        if first is None:  # the run ends inside the cluster it began in
            hg, hp = hg + g, hp + g
        else:
            end = next(k for k in range(len(g), first - 1, -1) if whole(g_at + k, p_at + k))
            if hg or hp or first:
                yield _held(hg + g[:first], hp + g[:first], hn)
            if end > first:
                yield ("equal", g[first:end], g[first:end], 0)
            hg, hp, hn = g[end:], g[end:], 0
        g_at, p_at = g_at + len(g), p_at + len(g)
    if hg or hp:
        yield _held(hg, hp, hn)


def _held(g: str, p: str, n: int) -> _Block:
    """The block of a held gold and pred text with ``n`` edits among them."""
    return ("equal" if not n else "insert" if not g else "delete" if not p else "replace", g, p, n)


def _cuts(text: str) -> set[int] | None:
    """The offsets where ``text``'s clusters begin or end, or None when each cluster is one code point."""
    units = clusters(text)
    if len(units) == len(text):
        return None
    ends, at = {0}, 0
    for u in units:
        at += len(u)
        ends.add(at)
    return ends


def _merged(blocks: Iterable[_Block], joiner: str) -> Iterator[_Block]:
    """``blocks`` with each run of adjacent substitutions merged into one block."""
    run: _Block | None = None  # the substitutions merged so far
    for block in blocks:
        if block[0] == "replace":
            run = (
                block
                if run is None
                else ("replace", run[1] + joiner + block[1], run[2] + joiner + block[2], run[3] + block[3])
            )
            continue
        if run is not None:
            yield run
            run = None
        yield block
    if run is not None:
        yield run


def _mark(tag: str, g: str, p: str, n: int, *, words: bool) -> str:
    gv, pv = _changed(g, words=words), _changed(p, words=words)
    count = f' data-edits="{n}"' if n != 1 else ""
    more = f" ({n} edits)" if n != 1 else ""
    if tag == "delete":
        return f'<del class="op-del" title="deleted: {esc(repr(g))}{more}"{count}>{gv}</del>'
    if tag == "insert":
        return f'<ins class="op-ins" title="inserted: {esc(repr(p))}{more}"{count}>{pv}</ins>'
    return (
        f'<span class="op-sub" title="substituted: {esc(repr(g))} → {esc(repr(p))}{more}"{count}>'
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
