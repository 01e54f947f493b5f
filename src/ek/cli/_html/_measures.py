"""The OCR measures beside the headline, and the note that reading orders probably differ.

``data["measures"]`` holds the corpus value of each measure `ek.ocr.evaluate_files`
computed (``cer``, ``wer``, ``fca``, ``bow`` by default). CER and WER align gold and
prediction in one order; the flexible character accuracy (FCA) matches lines in any
order and the bag-of-words error (BoW) ignores order altogether. When lines pair badly
because the two sides read the regions in a different order, CER is high while FCA
sees the text as largely right.

**The rule.** The note appears when the character error CER leaves is much larger
than the error FCA leaves (``1 - FCA``), on both counts:

* by at least `ORDER_GAP` (0.05, five points of CER): smaller gaps come from line
  breaks and edge spaces, which CER counts and FCA mostly does not (one per line,
  about 2% on lines of 50 characters), and
* by at least a factor `ORDER_RATIO` (2): more than half of CER's errors disappear once
  the order is forgiven, so the order, not the recognition, dominates CER. On a
  page that is badly recognised in the right order both measures are high and their
  ratio stays near 1.

Where FCA was not computed on some pages (too large for the default, see
`ek.ocr.files.FCA_MAX_CHARS`), its figure is set against the CER of the pages it
covers, and a note names the pages left out.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ek.cli._html._format import esc, fmt_value, is_number, num_cell, text_cell

ORDER_GAP = 0.05
ORDER_RATIO = 2.0

_ABOUT = {
    "cer": "character error rate, gold and prediction aligned in reading order (lower is better)",
    "wer": "word error rate, in reading order (lower is better)",
    "fca": "flexible character accuracy: lines matched in any order (higher is better)",
    "bow": "bag-of-words error: word counts compared, order ignored (lower is better)",
}


def measures_table(data: Mapping[str, Any]) -> str:
    """The small table of every measure in ``data["measures"]``; "" when there are none."""
    found = data.get("measures") or {}
    if not isinstance(found, dict) or not found:
        return ""
    rows = "".join(
        "<tr>" + text_cell(name) + num_cell(value, percent=True) + text_cell(_ABOUT.get(str(name), "")) + "</tr>"
        for name, value in found.items()
    )
    return (
        '<table class="measures" id="measures-table"><thead><tr><th scope="col">measure</th>'
        f'<th scope="col">corpus value</th><th scope="col">what it counts</th></tr></thead><tbody>{rows}'
        "</tbody></table>"
    )


def reading_order_note(data: Mapping[str, Any]) -> str:
    """The warning that reading orders probably differ, with the FCA and BoW figures; "" when they agree."""
    text = reading_order_text(data)
    return f'<p class="warn" id="reading-order-note">{esc(text)}</p>' if text else ""


def left_out_note(data: Mapping[str, Any]) -> str:
    """The note naming the pages FCA was not computed on; "" when it covers every page."""
    text = left_out_text(data)
    return f'<p class="note" id="measures-left-out">{esc(text)}</p>' if text else ""


def reading_order_text(data: Mapping[str, Any]) -> str:
    """`reading_order_note` as one plain sentence (the terminal prints it too); "" when the orders agree.

    Where FCA left pages out, its figure is set against the CER of the pages it covers.
    """
    found = data.get("measures") or {}
    if not isinstance(found, dict):
        return ""
    cer = _fca_skips(data).get("cer", found.get("cer"))
    if not orders_differ(cer, found.get("fca")):
        return ""
    fca: float = found["fca"]
    text = (
        f"The reading orders of gold and prediction probably differ: CER is {_pct(cer)}, but the flexible "
        f"character accuracy, which matches lines in any order, is {_pct(fca)} (an error of only "
        f"{_pct(1 - fca)})"
    )
    bow, wer = found.get("bow"), found.get("wer")
    if is_number(bow):
        text += f"; the bag-of-words error is {_pct(bow)}"
        text += f" against a WER of {_pct(wer)}" if is_number(wer) else ""
    return text + (
        ". Lines pair badly in reading order, so CER and WER count text in another place as errors; "
        "check the region order of both sides (or compare at another text level)."
    )


def left_out_text(data: Mapping[str, Any]) -> str:
    """``FCA not computed for 2 pages over 20,000 characters; --measures cer,wer,fca computes it``; "" for none."""
    skips = _fca_skips(data)
    ids = skips.get("ids") or []
    if not ids:
        return ""
    limit = skips.get("max_chars")
    over = f" over {limit:,} characters" if isinstance(limit, int) else ""
    pages = f"{len(ids)} page{'s' if len(ids) != 1 else ''}"
    return f"FCA not computed for {pages}{over}; --measures cer,wer,fca computes it"


def orders_differ(cer: Any, fca: Any) -> bool:
    """Whether CER exceeds the flexible error ``1 - fca`` by `ORDER_GAP` and by a factor `ORDER_RATIO`."""
    if not (is_number(cer) and is_number(fca)):
        return False
    flexible = max(0.0, 1.0 - fca)
    slack = 1e-9  # 1 - 0.95 is 0.05000000000000004 in binary: a figure on the threshold meets it
    return cer - flexible >= ORDER_GAP - slack and cer >= ORDER_RATIO * flexible - slack


def _fca_skips(data: Mapping[str, Any]) -> Mapping[str, Any]:
    """``data["measures_left_out"]["fca"]`` (ids, max_chars, the CER of the pages covered), {} when absent."""
    left_out = data.get("measures_left_out")
    skips = left_out.get("fca") if isinstance(left_out, dict) else None
    return skips if isinstance(skips, dict) else {}


def _pct(value: float | None) -> str:
    return fmt_value(value, percent=True)
