"""Characters on the page: grapheme clusters, and code-point boxes for what a reader cannot see.

Historical and OCR text holds characters that a browser draws as nothing, as
a blank box, or that change how the text around them reads:

* controls, format characters (zero-width joiner and non-joiner, soft
  hyphen, the bidi controls U+202A-U+202E, U+2066-U+2069, U+200E/F, ...),
  line and paragraph separators, unassigned code points and lone
  surrogates: invisible, or able to reorder the line they sit in;
* private-use characters (U+E000-U+F8FF and planes 15-16; MUFI puts
  medieval letters there), which only a few fonts draw;
* combining marks with no letter to sit on (at the start of a text or a
  segment, or after a space).

`show` writes each of them as its code point (``U+F50E``) in a styled box
whose ``title`` names the character where `unicodedata` knows the name, so
none of them reaches the page raw; `plain` does the same without markup, for
attributes and headings. `clusters` cuts a text into extended grapheme
clusters (Unicode UAX #29 through the ``regex`` package when it is
installed; without it, a standard-library rule that keeps combining marks,
joiners and emoji modifiers on the character before them), so a diff never
separates a combining ``e`` (U+0364) from its letter.
"""

from __future__ import annotations

import unicodedata

from ek._align import Op, align, graphemes

# General categories always drawn as a code point (Python's str.isprintable is False for all of them).
_BOXED = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
_NAMELESS = {
    "Cc": "control character",
    "Co": "private-use character: no standard name (MUFI and other projects assign these)",
    "Cn": "unassigned code point",
    "Cs": "lone surrogate (not valid Unicode text)",
}
_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;"}
_CHANGED = {" ": "␣", "\n": "↵", "\t": "⇥"}  # whitespace inside a changed segment
_KEPT = frozenset("\n\t")  # controls that lay out text and are shown as such
_ZWJ = "\u200d"
_JOINERS = ("\u200c", _ZWJ)  # zero-width non-joiner and joiner extend a cluster
_NO_REGEX: list[bool] = []  # set once the regex package proved missing


def code_point(char: str) -> str:
    """``"U+F50E"`` for ``"\\uf50e"``: at least four hex digits, upper case."""
    return f"U+{ord(char):04X}"


def describe(char: str) -> str:
    """The code point and the character's name, or what kind of character it is when it has none."""
    name = unicodedata.name(char, "") or _NAMELESS.get(unicodedata.category(char), "no name in Unicode data")
    return f"{code_point(char)} {name}"


def box(char: str, *, note: str = "") -> str:
    """One character as a visible code-point box, its name in the tooltip."""
    return f'<span class="cp" title="{plain(describe(char) + note)}">{code_point(char)}</span>'


def plain(text: str) -> str:
    """``text`` escaped for HTML (content or a quoted attribute), hidden characters as ``[U+202E]``."""
    if text.isprintable():
        return "".join([_ESCAPES.get(c, c) for c in text]) if _needs_escape(text) else text
    return "".join(
        [
            f"[{code_point(c)}]" if c not in _KEPT and unicodedata.category(c) in _BOXED else _ESCAPES.get(c, c)
            for c in text
        ]
    )


def show(text: str, *, changed: bool = False) -> str:
    """``text`` as HTML content with every hidden character in a code-point box.

    ``changed`` (a deleted, inserted or substituted segment) also draws spaces,
    line breaks and tabs as ``␣ ↵ ⇥`` and other spaces (no-break, thin, ...) as
    boxes, so a changed blank can be seen.
    """
    if text.isprintable() and (not text or max(text) < "\u0300"):  # no hidden character, no mark
        out = plain(text)
        return out.replace(" ", "␣") if changed else out
    parts: list[str] = []
    carries = False  # whether the character before can carry a combining mark
    last = len(text) - 1
    for i, c in enumerate(text):
        cat = unicodedata.category(c)
        if cat[0] == "M":
            parts.append(c if carries else box(c, note=", with no letter to sit on"))
            continue
        carries = False
        if c in _CHANGED:
            parts.append(_CHANGED[c] if changed else c)
        elif c == _ZWJ and i < last and unicodedata.category(text[i + 1]) == "So":
            parts.append(c)  # joins two emoji into one picture
        elif cat in _BOXED or (changed and cat == "Zs" and c != " "):
            parts.append(box(c))
        else:
            parts.append(_ESCAPES.get(c, c))
            carries = cat != "Zs"
    return "".join(parts)


def clusters(text: str) -> list[str]:
    """The extended grapheme clusters of ``text`` (see the module doc for the rule without ``regex``)."""
    if not text or (max(text) < "\u0300" and "\r\n" not in text):
        return list(text)
    if not _NO_REGEX:
        try:
            return graphemes(text)
        except ImportError:
            _NO_REGEX.append(True)
    return _approximate_clusters(text)


def align_clusters(pred: str, gold: str, *, exact: bool = False) -> list[Op]:
    """`ek._align.align` of ``pred`` against ``gold`` with grapheme clusters as the units (``exact`` as there).

    Each distinct cluster is coded as one code point for the alignment and
    decoded after, so every segment holds whole clusters.
    """
    g, p = clusters(gold), clusters(pred)
    if len(g) == len(gold) and len(p) == len(pred):
        return align(pred, gold, unit="char", exact=exact)
    codes: dict[str, str] = {}
    coded = [_encode(units, codes) for units in (p, g)]
    units = {code: cluster for cluster, code in codes.items()}
    found = align(coded[0], coded[1], unit="char", exact=exact)
    return [Op(tag, _decode(gs, units), _decode(ps, units)) for tag, gs, ps in found]


# ---------------------------------------------------------------------------


def _needs_escape(text: str) -> bool:
    return "&" in text or "<" in text or ">" in text or '"' in text or "'" in text


def _approximate_clusters(text: str) -> list[str]:
    """Clusters by a standard-library rule: marks, joiners and emoji modifiers join the character before."""
    out: list[str] = []
    prev = ""
    for c in text:
        joins = (
            out
            and not _is_control(prev)
            and (
                unicodedata.category(c)[0] == "M"
                or c in _JOINERS
                or "\U0001f3fb" <= c <= "\U0001f3ff"
                or (prev == _ZWJ and unicodedata.category(c) == "So")
            )
        )
        if joins or (prev == "\r" and c == "\n"):
            out[-1] += c
        else:
            out.append(c)
        prev = c
    return out


def _is_control(char: str) -> bool:
    """Whether a cluster always ends after ``char`` (controls, separators, format characters but joiners)."""
    cat = unicodedata.category(char)
    return cat in ("Cc", "Zl", "Zp") or (cat == "Cf" and char not in _JOINERS)


def _encode(units: list[str], codes: dict[str, str]) -> str:
    """One code point per unit, the same for equal units (surrogate code points skipped)."""
    out = []
    for u in units:
        code = codes.get(u)
        if code is None:
            k = len(codes)
            code = codes[u] = chr(k if k < 0xD800 else k + 0x800)
        out.append(code)
    return "".join(out)


def _decode(coded: str, units: dict[str, str]) -> str:
    return "".join([units[c] for c in coded])
