"""The page's diff counts what the figure counts: its edits add up to the figure's numerator.

On every real pair ek reads both sides of (dinglehopper's test data, OCR-D's Kant workspace), with
the default settings and under ``--profile dinglehopper``, the ``data-edits`` of the page's diffs sum
to the edits of the figure (under the profile, dinglehopper 0.11's own edit distance), the marks
drawn add up to them, and the confusion table counts the same edits. Small cases worked by hand:
a ligature and a MUFI letter that normalisation maps count nothing and draw nothing.
"""

from __future__ import annotations

import json
import re
from html import unescape

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import Levenshtein

from ek.__main__ import main
from ek._align import align
from ek.cli._commands._inputs import Options, bound, options_for, read_gold, read_joined, score
from ek.cli._commands._pages import evaluate_page
from ek.cli._html._chars import clusters
from ek.cli._html._diff import LEGEND, _by_cluster, render_diff
from tests.ocr._real_pairs import REAL_PAIRS

# the real pages hold MUFI letters, which the default settings keep (and warn of) on purpose
pytestmark = pytest.mark.filterwarnings("ignore:the texts hold private-use characters")
PAIRS = {
    name: REAL_PAIRS[name]
    for name in (
        "actevedef-tesseract",
        "actevedef-calamari",
        "brochrnx",
        "lorem-ipsum",
        "lorem-ipsum-bad",
        "bigger-texts",
        "page2018-alto3",
        "alto1-alto2",
        "kant-0017",
        "kant-0020",
    )
}
_DIFF = re.compile(r'<span class="diff" data-edits="(\d+)">')
_MARK = re.compile(
    r'<(?:del class="op-del"|ins class="op-ins"|span class="op-sub") title="[^"]*"(?: data-edits="(\d+)")?>'
)
_CUT = re.compile(r"diff cut after ([\d,]+) of ([\d,]+) edits")


def _page_edits(html: str) -> tuple[int, int, int | None]:
    """The edits the page's diffs declare, the edits its marks stand for, and where a diff was cut."""
    body = html.replace(LEGEND, "")
    declared = sum(int(n) for n in _DIFF.findall(body))
    drawn = sum(int(n or 1) for n in _MARK.findall(body))
    cut = _CUT.search(body)
    return declared, drawn, None if cut is None else int(cut.group(1).replace(",", ""))


def _dinglehopper_edits(gold: str, pred: str) -> int:
    from dinglehopper.character_error_rate import character_error_rate_n
    from dinglehopper.ocr_files import extract

    cer, n = character_error_rate_n(extract(gold), extract(pred))
    return round(cer * n)


@pytest.mark.parametrize("profile", [None, "dinglehopper"])
@pytest.mark.parametrize("name", sorted(PAIRS))
def test_the_page_diff_adds_up_to_the_figure_on_every_real_pair(real_data, tmp_path, name, profile, capsys):
    gold, pred = (str(real_data / path) for path in PAIRS[name])
    page, report = tmp_path / "r.html", tmp_path / "r.json"
    flags = ["--profile", profile] if profile else []
    assert main(["evaluate", gold, pred, "--html", str(page), "--json", str(report), *flags]) == 0
    capsys.readouterr()
    figure = json.loads(report.read_text(encoding="utf-8"))
    (item,) = figure["items"].values()
    edits, ref_len = item["edits"], item["ref_len"]
    assert figure["aggregate"] == pytest.approx(edits / ref_len)  # the numerator the page must show
    if profile:
        assert edits == _dinglehopper_edits(gold, pred)  # and the one dinglehopper 0.11 computes
    declared, drawn, cut = _page_edits(page.read_text(encoding="utf-8"))
    assert declared == edits
    assert drawn == (edits if cut is None else cut), (drawn, cut)


@pytest.mark.parametrize("profile", [None, "dinglehopper"])
@pytest.mark.parametrize("name", ["actevedef-tesseract", "brochrnx", "kant-0017", "page2018-alto3"])
def test_the_page_data_and_confusions_count_the_same_edits(real_data, name, profile):
    gold, pred = (str(real_data / path) for path in PAIRS[name])
    options = Options(profile=profile)
    gold_side = read_gold(gold, options)
    options = options_for(gold_side, options)
    scored = score(read_joined(gold_side, pred, options), options, name="pred")
    data = evaluate_page(scored, *bound(scored.report, 0.95, label="test"), options)
    (item,) = data["items"]
    edits = [op for op in item["ops"] if op[0] != "equal"]
    assert len(edits) == scored.report.scores[0].detail["edits"]
    table = data["confusions"]
    if len(table) < 200:  # the table is not cut: it holds every edit of the diff
        assert sum(row["count"] for row in table) == len(edits)
    if profile:  # what the profile normalises never shows as an edit, in the diff or in the table
        mapped = ("\uf502", "\ufb01", "o\u0364")
        shown = [s for op in edits for s in op[1:]] + [s for row in table for s in (row["gold"], row["pred"])]
        assert not [s for s in shown if any(m in s for m in mapped)]


def test_the_actevedef_page_under_the_profile_marks_188_edits(real_data, tmp_path, capsys):
    # the page: 388 edits were drawn on the raw text ([U+F502→h], ﬁ→fi, oͤ→ö) for a figure of 188
    gold, pred = (str(real_data / path) for path in PAIRS["actevedef-tesseract"])
    page = tmp_path / "r.html"
    assert main(["evaluate", gold, pred, "--html", str(page), "--profile", "dinglehopper"]) == 0
    capsys.readouterr()
    html = page.read_text(encoding="utf-8")
    assert _page_edits(html) == (188, 188, None)
    titles = [unescape(t) for t in re.findall(r'class="op-(?:del|ins|sub)" title="([^"]*)"', html)]
    assert not [t for t in titles if "\\uf502" in t or "ﬁ" in t or "oͤ" in t]


# --- long documents (issue 31): the drawn item is aligned exactly whatever its length ---------------------------


def _lines_of_words(n_chars: int, seed: int) -> str:
    import random

    rng = random.Random(seed)
    words = ["lorem", "ipsum", "dolor", "sit", "amet", "elit", "sed", "do", "eiusmod", "tempor", "incididunt"]
    lines, size = [], 0
    while size < n_chars:
        lines.append(" ".join(rng.choice(words) for _ in range(9)))
        size += len(lines[-1]) + 1
    return "\n".join(lines)


def test_a_long_noisy_page_declares_the_figures_edits_and_draws_400(tmp_path, capsys):
    import random

    gold = _lines_of_words(120_000, seed=4)
    rng = random.Random(9)
    pred = "".join(c if rng.random() > 0.02 else rng.choice(["", "x", c + "y"]) for c in gold)
    item, html = _one_item_page(tmp_path, gold, pred)
    capsys.readouterr()
    assert item["edits"] == Levenshtein.distance(gold, pred)
    assert _page_edits(html) == (item["edits"], 400, 400)  # cut after 400 of them, saying of how many


def test_a_long_line_with_three_edits_draws_all_three(tmp_path, capsys):
    gold = _lines_of_words(600_000, seed=5).replace("\n", " ")
    pred = gold[:1000] + "#" + gold[1001:300_000] + gold[300_001:590_000] + "%" + gold[590_000:]
    item, html = _one_item_page(tmp_path, gold, pred)
    capsys.readouterr()
    assert item["edits"] == 3
    assert _page_edits(html) == (3, 3, None)


# --- small cases, worked by hand ------------------------------------------------------------------


def _one_item_page(tmp_path, gold: str, pred: str, *flags: str) -> tuple[dict[str, object], str]:
    (tmp_path / "gold").mkdir(parents=True)
    (tmp_path / "pred").mkdir()
    (tmp_path / "gold" / "p1.txt").write_text(gold, encoding="utf-8")
    (tmp_path / "pred" / "p1.txt").write_text(pred, encoding="utf-8")
    page, report = tmp_path / "r.html", tmp_path / "r.json"
    args = ["evaluate", str(tmp_path / "gold"), str(tmp_path / "pred"), "--html", str(page), "--json", str(report)]
    assert main([*args, *flags]) == 0
    (item,) = json.loads(report.read_text(encoding="utf-8"))["items"].values()
    return item, page.read_text(encoding="utf-8")


@pytest.mark.parametrize("flags", [("--normalize", "nfkc"), ("--profile", "dinglehopper")])
def test_a_ligature_that_normalisation_maps_counts_nothing_and_draws_nothing(tmp_path, flags, capsys):
    item, html = _one_item_page(tmp_path, "Wir \ufb01nden den Weg\n", "Wir finden den Weg\n", *flags)
    capsys.readouterr()
    assert item["edits"] == 0
    assert _page_edits(html) == (0, 0, None) and "\ufb01" not in html


def test_the_ligature_without_normalisation_is_one_substitution_and_two_insertions(tmp_path, capsys):
    # NFC keeps ﬁ: gold "ﬁnden" (5 code points) read "finden" (6) is ﬁ→f plus an inserted i, 2 edits
    item, html = _one_item_page(tmp_path, "Wir \ufb01nden\n", "Wir finden\n")
    capsys.readouterr()
    assert item["edits"] == 2 and _page_edits(html) == (2, 2, None)


def test_a_mufi_letter_counts_as_itself_by_default_and_as_its_letters_under_the_profile(tmp_path, capsys):
    # U+F502 is MUFI's "ch" ligature: by default it is one code point against two ("ch"), 2 edits
    # (a substitution and an insertion); the profile maps it to "ch", 0 edits
    default, html = _one_item_page(tmp_path / "a", "do\uf502 no\uf502\n", "doch noch\n")
    assert default["edits"] == 4 and _page_edits(html) == (4, 4, None)
    assert 'class="cp" title="U+F502' in html  # drawn as its code point, never raw
    profiled, html = _one_item_page(tmp_path / "b", "do\uf502 no\uf502\n", "doch noch\n", "--profile", "dinglehopper")
    capsys.readouterr()
    assert profiled["edits"] == 0 and _page_edits(html) == (0, 0, None)


def test_a_letter_with_a_combining_e_read_as_an_umlaut(tmp_path, capsys):
    # o + U+0364 against ö: code-point CER counts 2 edits (o→ö, the mark dropped), drawn as one
    # block of the whole cluster that says so; dinglehopper's normalisation makes them equal
    item, html = _one_item_page(tmp_path / "a", "scho\u0364n\n", "sch\u00f6n\n")
    assert item["edits"] == 2 and _page_edits(html) == (2, 2, None)
    assert 'title="substituted: &#x27;oͤ&#x27; → &#x27;ö&#x27; (2 edits)" data-edits="2"' in html
    item, html = _one_item_page(tmp_path / "b", "scho\u0364n\n", "sch\u00f6n\n", "--profile", "dinglehopper")
    capsys.readouterr()
    assert item["edits"] == 0 and _page_edits(html) == (0, 0, None)


def test_a_dropped_mark_is_one_grapheme_edit_under_the_profile(tmp_path, capsys):
    item, html = _one_item_page(tmp_path, "m\u0303 und\n", "m und\n", "--profile", "dinglehopper")
    capsys.readouterr()
    assert item["edits"] == 1 and item["ref_len"] == 5  # m̃, space, u, n, d
    assert _page_edits(html) == (1, 1, None)


def test_a_long_diff_is_cut_and_says_of_how_many_edits():
    gold, pred = "ab" * 500, "xb" * 500
    ops = align(pred, gold, unit="char")
    html = render_diff(ops, unit="char")
    total = sum(op.tag != "equal" for op in ops)
    declared, drawn, cut = _page_edits(html)
    assert declared == total == Levenshtein.distance(gold, pred) and cut == drawn <= 400 < total


_TEXT = st.text(alphabet="ao\u0364\u0303\u00f6 \u200d\U0001f44d\U0001f3fd", max_size=12)


@settings(max_examples=300, deadline=None)
@given(_TEXT, _TEXT)
def test_code_point_ops_drawn_by_cluster_keep_every_edit_and_whole_clusters(pred, gold):
    ops = align(pred, gold, unit="char")
    blocks = list(_by_cluster(ops))
    assert sum(n for *_, n in blocks) == Levenshtein.distance(gold, pred)  # nothing aligned again
    assert "".join(g for _, g, _, _ in blocks) == gold and "".join(p for _, _, p, _ in blocks) == pred
    for side, text in ((1, gold), (2, pred)):
        ends, at = set(), 0
        for unit in clusters(text):
            at += len(unit)
            ends.add(at)
        at = 0
        for block in blocks:
            at += len(block[side])
            assert at in ends or at == 0, (block, text)  # no block ends inside a cluster
    assert all((tag == "equal") == (n == 0) for tag, _, _, n in blocks)
