"""The page shell shared by both reports: style, the sorting script, tables, id lists, checks.

The page loads nothing: style and script are inline, and a Content-Security-Policy allows
exactly those two blocks (by hash) and nothing else, so even a string that slipped past
escaping could neither run a script nor fetch a resource.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from ek.cli._html._chars import show
from ek.cli._html._format import esc, fmt_count, shown_note

_CSS = """
:root{--fg:#1d1f23;--muted:#5b6270;--line:#d7dbe2;--bg:#fff;--soft:#f4f6f9;--accent:#2f5d9e;
--bad:#b3261e;--good:#1e7a3c;--bad-bg:#fde7e5;--good-bg:#e3f4e8;--sub-bg:#fff4d6}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:var(--fg);background:var(--bg)}
header{padding:18px 28px 10px;border-bottom:1px solid var(--line);background:var(--soft)}
header h1{margin:0 0 4px;font-size:20px}
nav a{margin-right:14px;color:var(--accent);text-decoration:none}
main{padding:8px 28px 40px;max-width:1280px}
section{margin:22px 0 30px}
h2{font-size:17px;margin:0 0 10px;padding-bottom:4px;border-bottom:1px solid var(--line)}
.headline{display:flex;flex-wrap:wrap;gap:12px 34px;align-items:flex-end}
.headline .big{font-size:34px;font-weight:650;font-variant-numeric:tabular-nums}
.stat{display:flex;flex-direction:column}
.stat .label{color:var(--muted);font-size:12px;text-transform:uppercase;letter-spacing:.04em}
.stat .value{font-size:18px;font-variant-numeric:tabular-nums}
.verdict{display:inline-block;padding:2px 10px;border-radius:12px;border:1px solid currentColor;font-weight:600}
.verdict-better{color:var(--good);background:var(--good-bg)}
.verdict-worse{color:var(--bad);background:var(--bad-bg)}
.verdict-none{color:var(--muted)}
table{border-collapse:collapse;margin:6px 0;font-variant-numeric:tabular-nums}
th,td{padding:4px 10px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
th{background:var(--soft);font-weight:600;white-space:nowrap}
table.sortable th{cursor:pointer;user-select:none}
table.sortable th::after{content:" \\2195";color:var(--muted);font-size:11px}
table.sortable th[aria-sort=ascending]::after{content:" \\25B2";color:var(--fg)}
table.sortable th[aria-sort=descending]::after{content:" \\25BC";color:var(--fg)}
td.num{text-align:right;white-space:nowrap}
td.id{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:12px;overflow-wrap:break-word;max-width:260px}
td.diffcell{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:13px;white-space:pre-wrap;word-break:break-word;min-width:280px;max-width:640px}
td.stats{color:var(--muted);font-size:12px}
code{font-family:ui-monospace,"DejaVu Sans Mono",monospace;background:var(--soft);padding:0 3px}
del{text-decoration:line-through;text-decoration-thickness:2px;background:var(--bad-bg);color:var(--bad)}
ins{text-decoration:underline;text-decoration-thickness:2px;background:var(--good-bg);color:var(--good)}
.op-sub{border:1px dashed #a07a00;background:var(--sub-bg);border-radius:2px;padding:0 1px}
.op-sub del{background:none}.op-sub ins{background:none}
.op-sub del::after{content:"\\2192";color:#7a5d00;text-decoration:none;display:inline-block;padding:0 1px}
.fold{color:var(--muted);background:var(--soft);padding:0 4px;border-radius:3px}
.cp{display:inline-block;font:600 10px/1.35 ui-monospace,"DejaVu Sans Mono",monospace;color:#3b3f99;background:#eceefe;border:1px solid #8c91d9;border-radius:3px;padding:0 2px;margin:0 1px;vertical-align:1px;white-space:nowrap}
del>.cp{text-decoration:line-through;border-color:var(--bad)}ins>.cp{border-bottom:3px solid var(--good)}
td,li,.stat .value,dd{unicode-bidi:isolate}
.needs-more{color:var(--muted);font-style:italic;font-size:13px}
.warn{border-left:4px solid #a07a00;background:var(--sub-bg);padding:6px 10px;margin:10px 0;max-width:900px}
dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:6px 0}
dl.meta dt{color:var(--muted)}dl.meta dd{margin:0;font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:12px;overflow-wrap:anywhere}
tbody.all td{font-weight:600;background:var(--soft)}
.legend{font-size:12px;color:var(--muted)}
.note{color:var(--muted);font-size:12px}
.truncated{font-weight:600}
details summary{cursor:pointer;color:var(--accent)}
ul.ids{columns:4 180px;font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:12px;margin:6px 0}
input.filter{margin:4px 0 6px;padding:4px 8px;width:320px;border:1px solid var(--line);border-radius:4px}
svg.chart{display:block;max-width:100%;height:auto;margin:8px 0}
svg .axis,svg .tick{stroke:#8a909c;stroke-width:1}
svg .grid{stroke:#eceef2;stroke-width:1}
svg text{font-size:11px;fill:#3d424b}
svg .axis-label{fill:var(--muted)}
svg .bar{fill:#5b82c0}
svg .bar:hover{fill:var(--accent)}
svg .dot{fill:var(--accent);stroke:#fff;stroke-width:1}
svg .whisker{stroke:var(--accent);stroke-width:2.5;stroke-linecap:round}
svg .reference,svg .marker{stroke:var(--bad);stroke-width:1.2;stroke-dasharray:4 3}
svg .marker-label{fill:var(--bad)}
.cols{display:grid;grid-template-columns:1fr 1fr;gap:4px}
"""

_JS = """
(function () {
  "use strict";
  function key(cell) {
    var raw = cell ? cell.getAttribute("data-sort") : "";
    if (raw === null) { raw = cell.textContent; }
    raw = raw.trim();
    if (raw === "") { return {t: 2, v: 0}; }
    var num = Number(raw);
    return isNaN(num) ? {t: 1, v: raw.toLowerCase()} : {t: 0, v: num};
  }
  function sortBy(table, th, col) {
    var asc = th.getAttribute("aria-sort") !== "ascending";
    var body = table.tBodies[table.tBodies.length - 1];  // a pinned first body (the "all" row) stays put
    var rows = Array.prototype.map.call(body.rows, function (r, i) {
      return {r: r, k: key(r.cells[col]), i: i};
    });
    rows.sort(function (a, b) {
      if (a.k.t !== b.k.t) { return a.k.t - b.k.t; }
      var c = a.k.v < b.k.v ? -1 : (a.k.v > b.k.v ? 1 : 0);
      return (asc ? c : -c) || a.i - b.i;
    });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", asc ? "ascending" : "descending");
    var frag = document.createDocumentFragment();
    rows.forEach(function (x) { frag.appendChild(x.r); });
    body.appendChild(frag);
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
      th.tabIndex = 0;
      th.title = "Sort by this column";
      th.addEventListener("click", function () { sortBy(table, th, col); });
      th.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sortBy(table, th, col); }
      });
    });
  });
  document.querySelectorAll("input.filter").forEach(function (input) {
    var table = document.getElementById(input.getAttribute("data-table"));
    input.addEventListener("input", function () {
      var q = input.value.trim().toLowerCase();
      Array.prototype.forEach.call(table.tBodies[table.tBodies.length - 1].rows, function (r) {
        r.hidden = q !== "" && r.textContent.toLowerCase().indexOf(q) < 0;
      });
    });
  });
})();
"""


def _sha256(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


_CSP = (
    f"default-src 'none'; style-src '{_sha256(_CSS)}'; script-src '{_sha256(_JS)}'; "
    "img-src 'none'; connect-src 'none'; form-action 'none'; base-uri 'none'"
)


def page(title: str, subtitle: str, sections: Sequence[tuple[str, str, str]]) -> str:
    """The whole document: a header with a section menu, then each ``(anchor, heading, body)``."""
    nav = "".join(f'<a href="#{esc(a)}">{esc(h)}</a>' for a, h, _ in sections)
    body = "".join(f'<section id="{esc(a)}"><h2>{esc(h)}</h2>{b}</section>' for a, h, b in sections)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{esc(_CSP)}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{esc(title)}</title><style>{_CSS}</style></head><body>"
        f'<header><h1>{esc(title)}</h1><p class="note">{subtitle}</p><nav>{nav}</nav></header>'
        f"<main>{body}</main><script>{_JS}</script></body></html>\n"
    )


def table(
    table_id: str,
    headers: Sequence[str],
    rows: Sequence[str],
    *,
    sort_col: int | None = None,
    descending: bool = False,
    filter_hint: str = "",
    pinned: str = "",
) -> str:
    """A sortable table; ``rows`` are finished ``<tr>`` strings, ``sort_col`` marks the initial order.

    ``pinned`` (a finished ``<tr>``, e.g. the "all" row) goes in a body of its own
    above the rows and stays first whatever the sorting.
    """
    cells = []
    for i, h in enumerate(headers):
        attr = f' aria-sort="{"descending" if descending else "ascending"}"' if i == sort_col else ""
        cells.append(f'<th scope="col"{attr}>{esc(h)}</th>')
    search = (
        f'<input type="search" class="filter" data-table="{esc(table_id)}" '
        f'placeholder="{esc(filter_hint)}" aria-label="{esc(filter_hint)}">'
        if filter_hint
        else ""
    )
    first = f'<tbody class="all">{pinned}</tbody>' if pinned else ""
    return (
        f'{search}<table class="sortable" id="{esc(table_id)}"><thead><tr>{"".join(cells)}</tr></thead>'
        f"{first}<tbody>{''.join(rows)}</tbody></table>"
    )


def stat(label: str, value_html: str, *, big: bool = False, attrs: str = "") -> str:
    """One labelled figure of a headline."""
    cls = "big" if big else "value"
    return (
        f'<div class="stat"><span class="label">{esc(label)}</span><span class="{cls}"{attrs}>{value_html}</span></div>'
    )


def id_list(noun: str, ids: Sequence[Any] | None, *, limit: int) -> str:
    """A count and the ids behind it, folded away when there are more than ten."""
    ids = list(ids or [])
    if not ids:
        return ""
    shown = ids[:limit]
    lis = "".join(f"<li>{show(str(i))}</li>" for i in shown)
    opened = " open" if len(ids) <= 10 else ""
    return (
        f'<details class="idlist"{opened}><summary>{fmt_count(len(ids))} {esc(noun)}</summary>'
        f'<ul class="ids">{lis}</ul>{shown_note(len(shown), len(ids), "ids")}</details>'
    )


def check_data(data: Any, *, caller: str, required: Sequence[str]) -> None:
    """Raise when ``data`` is not a mapping or lacks a key the page cannot do without."""
    if not isinstance(data, Mapping):
        raise TypeError(
            f"{caller}() takes a dict of report data, got {type(data).__name__}; "
            "build it as described in the ek.cli._html docstring."
        )
    for key in required:
        if data.get(key) is None:
            raise ValueError(
                f"{caller}() data has no {key!r}; the page cannot be drawn without it. "
                f"Add data[{key!r}] (see the ek.cli._html docstring)."
            )
    items = data.get("items") or []
    if not isinstance(items, Sequence) or isinstance(items, (str, bytes)):
        raise TypeError(f"{caller}() data['items'] must be a list of dicts, got {type(items).__name__}.")
    for i, item in enumerate(items):
        if type(item) is not dict and not isinstance(item, Mapping):
            raise TypeError(
                f"{caller}() data['items'][{i}] is a {type(item).__name__}, not a dict; "
                "each item is a dict with at least 'id'."
            )
