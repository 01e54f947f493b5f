"""Aligned diffs and confusion counts from alignment operations.

An alignment is a list of ``[tag, gold_segment, pred_segment]`` with tag ``equal``,
``replace``, ``delete`` or ``insert`` (a segment is a string; for words it may also be a
list of words): the ops of `ek._align.align`, which also aligns an item given only its
texts. Changes are marked by more than colour: a deletion is struck through (``<del>``),
an insertion underlined (``<ins>``), a substitution boxed with an arrow between the two,
and each carries a ``title`` naming the operation. Long unchanged runs are folded so a
page stays small whatever the document length.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Iterable, Optional, Sequence

from ek._align import align
from ek._html._format import esc

_CONTEXT = 30          # units of unchanged text kept on each side of a folded run
_MAX_OPS = 400         # edits rendered per item before the diff is cut
_VISIBLE = str.maketrans({" ": "␣", "\n": "↵", "\t": "⇥"})
_KINDS = {"replace": "substitution", "delete": "deletion", "insert": "insertion"}

LEGEND = ('<p class="legend">Diff legend: '
          '<del class="op-del" title="deleted">gone</del> struck through = in gold, missing from the prediction; '
          '<ins class="op-ins" title="inserted">added</ins> underlined = in the prediction, not in gold; '
          '<span class="op-sub" title="substituted"><del>was</del><ins>now</ins></span> boxed with an arrow = '
          'substituted (gold, then prediction); ␣ marks a changed space, ↵ a changed line break.</p>')


def visible(text: str) -> str:
    """``text`` with spaces, line breaks and tabs drawn as visible symbols."""
    return text.translate(_VISIBLE)


def render_diff(ops: Optional[Sequence], *, unit: Optional[str], gold: Any = None, pred: Any = None) -> str:
    """The inline diff of one item as HTML; falls back to aligning ``gold`` and ``pred`` itself."""
    if not ops:
        if isinstance(gold, str) and isinstance(pred, str):
            ops = align(pred, gold, unit="word" if unit == "word" else "char")
        else:
            shown = pred if pred is not None else gold
            return f'<span class="plain">{esc(shown)}</span>' if shown is not None else ""
    words = unit == "word"
    parts, edits, last = [], 0, len(ops) - 1
    for i, op in enumerate(ops):
        tag, g, p = _unpack(op)
        if tag == "equal":
            parts.append(_fold(g, words=words, head=i > 0, tail=i < last))
            continue
        edits += 1
        if edits > _MAX_OPS:
            parts.append(f'<span class="note">… diff cut after {_MAX_OPS} edits</span>')
            break
        parts.append(_mark(tag, g, p))
    return '<span class="diff">' + (" " if words else "").join(parts) + "</span>"


def confusions_from_items(items: Iterable[dict]) -> list[dict]:
    """Substituted pairs, dropped and inserted units counted over every item's ``ops``, most frequent first."""
    raw: Counter = Counter()  # identical edits first, so each distinct edit is split into units once
    for item in items:
        ops = item.get("ops")
        if not ops:
            continue
        words = item.get("unit") == "word"
        for op in ops:
            if op[0] in _KINDS:
                try:
                    raw[(words, *op)] += 1
                except TypeError:  # segments given as lists of words
                    raw[(words, *_unpack(op))] += 1
    counts: Counter = Counter()
    for (words, tag, g, p), n in raw.items():
        for pair in _pairs(tag, _text(g), _text(p), words=words):
            counts[pair] += n
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return [{"kind": k, "gold": g, "pred": p, "count": c} for (k, g, p), c in ranked]


def _unpack(op: Sequence) -> tuple[str, str, str]:
    tag = str(op[0])
    return tag, _text(op[1] if len(op) > 1 else ""), _text(op[2] if len(op) > 2 else "")


def _text(segment: Any) -> str:
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


def _mark(tag: str, g: str, p: str) -> str:
    gv, pv = esc(visible(g)), esc(visible(p))
    if tag == "delete":
        return f'<del class="op-del" title="deleted: {esc(repr(g))}">{gv}</del>'
    if tag == "insert":
        return f'<ins class="op-ins" title="inserted: {esc(repr(p))}">{pv}</ins>'
    return (f'<span class="op-sub" title="substituted: {esc(repr(g))} → {esc(repr(p))}">'
            f"<del>{gv}</del><ins>{pv}</ins></span>")


def _fold(text: str, *, words: bool, head: bool, tail: bool) -> str:
    """Unchanged text, with the middle of a long run replaced by a count of what was left out."""
    units = text.split(" ") if words else text
    keep = _CONTEXT if not words else _CONTEXT // 5
    lead = keep if head else 0    # context after the previous edit
    trail = keep if tail else 0   # context before the next edit
    if not (head or tail):
        lead = 3 * keep           # an unchanged item: its opening stands for the whole
    if len(units) <= lead + trail + keep:
        return esc(text)
    sep = " " if words else ""
    start = sep.join(units[:lead])
    end = sep.join(units[len(units) - trail:]) if trail else ""
    hidden = len(units) - lead - trail
    noun = "words" if words else "characters"
    return f'{esc(start)}<span class="fold" title="{hidden:,} unchanged {noun}">⋯</span>{esc(end)}'
