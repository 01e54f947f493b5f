"""OCR-D workspaces: ``ek evaluate WORKSPACE --gold-group GT --pred-group G`` and `ek.ocr.evaluate_workspace`.

The real workspaces are OCR-D/assets' ``kant_aufklaerung_1784-complex`` (2
pages, ground truth and 8 OCR groups) and dinglehopper's ``actevedef_718448162``
(1 page, GT + Tesseract + Calamari). Every group's figure is checked against
a folder run of that group alone: its files and the GT copied into two
folders, named by page so that they pair by name.
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest

import ek.ocr
from ek.__main__ import main
from tests.test_commands import run, run_json

KANT = "ocrd-assets/kant_aufklaerung_1784-complex"
ACTEVEDEF = "dinglehopper/actevedef_718448162"
GT = "OCR-D-GT-PAGE"
KANT_GROUPS = [  # the 8 OCR groups, in METS order
    "OCR-D-OCR-OCRO-fraktur-SEG-LINE-tesseract-ocropy-DEWARP",
    "OCR-D-OCR-OCRO-frakturjze-SEG-LINE-tesseract-ocropy-DEWARP",
    "OCR-D-OCR-TESS-Fraktur-SEG-LINE-tesseract-ocropy-DEWARP",
    "OCR-D-OCR-TESS-Fraktur--Latin-SEG-LINE-tesseract-ocropy-DEWARP",
    "OCR-D-OCR-TESS-frk-SEG-LINE-tesseract-ocropy-DEWARP",
    "OCR-D-OCR-TESS-frk--deu-SEG-LINE-tesseract-ocropy-DEWARP",
    "OCR-D-OCR-TESS-gt4histocr-SEG-LINE-tesseract-ocropy-DEWARP",
    "OCR-D-OCR-CALA-gt4histocr-SEG-LINE-tesseract-ocropy-DEWARP",
]
KANT_PAGES = {"PHYS_0017": "0001", "PHYS_0020": "0002"}  # page id -> the number in the OCR files' names
KANT_GT = {"PHYS_0017": "PAGE_0017_PAGE.xml", "PHYS_0020": "PAGE_0020_PAGE.xml"}


def folder_pair(tmp_path: Path, workspace: Path, group: str) -> tuple[Path, Path]:
    """GT and the group's files of the kant workspace copied into gold/ and pred/, named by page id."""
    gold, pred = tmp_path / f"gold-{group}", tmp_path / f"pred-{group}"
    gold.mkdir()
    pred.mkdir()
    for page, number in KANT_PAGES.items():
        shutil.copy(workspace / GT / KANT_GT[page], gold / f"{page}.xml")
        shutil.copy(workspace / group / f"{group}_{number}.xml", pred / f"{page}.xml")
    return gold, pred


@pytest.fixture(scope="module")
def kant_ranked(real_data):
    """``ek evaluate`` on the kant workspace, every OCR group ranked, as JSON (read once per module)."""
    import io
    from contextlib import redirect_stdout

    stream = io.StringIO()
    with redirect_stdout(stream):
        code = main(
            ["evaluate", str(real_data / KANT), "--gold-group", GT, "--pred-group", "OCR-D-OCR-*", "--json", "-"]
        )
    assert code == 0
    return json.loads(stream.getvalue())


# --- the kant workspace: 8 groups ranked ---------------------------------------------------------


def test_every_kant_group_is_ranked_with_the_figure_of_a_folder_run_of_it_alone(
    kant_ranked, real_data, tmp_path, capsys
):
    ranking = {row["name"]: row for row in kant_ranked["ranking"]}
    assert sorted(ranking) == sorted(KANT_GROUPS) and kant_ranked["n_items"] == 2
    for group in KANT_GROUPS:
        gold, pred = folder_pair(tmp_path, real_data / KANT, group)
        alone = run_json(capsys, "evaluate", gold, pred)
        assert ranking[group]["aggregate"] == alone["aggregate"], group
        assert {k: v["score"] for k, v in kant_ranked["items"][group].items()} == {
            k: v["value"] for k, v in alone["items"].items()
        }
        assert kant_ranked["groups"][group]["measures"] == alone["measures"]
        assert kant_ranked["groups"][group]["document_mean"] == alone["document_mean"]


def test_kant_ranking_is_best_first_and_each_group_is_paired_with_the_best(kant_ranked):
    rows = kant_ranked["ranking"]
    values = [row["aggregate"] for row in rows]
    assert values == sorted(values) and [row["rank"] for row in rows] == list(range(1, 9))
    best = rows[0]
    assert best["best"] and best["verdict"] == "best" and best["delta"] is None
    assert best["name"] == "OCR-D-OCR-CALA-gt4histocr-SEG-LINE-tesseract-ocropy-DEWARP"
    assert kant_ranked["best"] == best["name"]
    for row in rows[1:]:  # the paired difference of two corpus rates over the same pages: row - best
        assert math.isclose(row["delta"], row["aggregate"] - best["aggregate"], abs_tol=1e-12)
        assert row["n_compared"] == 2 and row["verdict"] == "too few items (n=2) to tell"
    assert not any(row["consensus"] for row in rows)  # no engine ran: no ROVER row


def test_kant_json_records_each_groups_processor_version_and_model(kant_ranked):
    # As the files say: the METS agents give the versions (ocrd-tesserocr-recognize v0.8.3, ocrd-cis-ocropy-recognize
    # v0.0.8, ocrd-calamari-recognize v0.0.6), each group's PAGE metadata its processor and its model parameter.
    groups = kant_ranked["workspace"]["groups"]
    assert kant_ranked["workspace"]["gold_group"] == GT
    frk = groups["OCR-D-OCR-TESS-frk-SEG-LINE-tesseract-ocropy-DEWARP"]
    assert (frk["processor"], frk["version"], frk["model"], frk["source"]) == (
        "ocrd-tesserocr-recognize",
        "0.8.3",
        "frk",
        "page",
    )
    assert frk["parameters"]["textequiv_level"] == "glyph"
    ocro = groups["OCR-D-OCR-OCRO-frakturjze-SEG-LINE-tesseract-ocropy-DEWARP"]
    assert (ocro["processor"], ocro["version"], ocro["model"]) == (
        "ocrd-cis-ocropy-recognize",
        "0.0.8",
        "fraktur-jze.pyrnn.gz",
    )
    cala = groups["OCR-D-OCR-CALA-gt4histocr-SEG-LINE-tesseract-ocropy-DEWARP"]
    assert (cala["processor"], cala["version"]) == ("ocrd-calamari-recognize", "0.0.6")
    assert cala["model"].endswith("GT4HistOCR/*.ckpt.json")
    assert (
        groups["OCR-D-OCR-TESS-Fraktur--Latin-SEG-LINE-tesseract-ocropy-DEWARP"]["model"]
        == "script/Fraktur+script/Latin"
    )


def test_kant_summary_prints_the_ranking_and_who_made_each_group(real_data, capsys):
    code, out, err = run(capsys, "evaluate", real_data / KANT, "--gold-group", GT, "--pred-group", "OCR-D-OCR-*")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("ek evaluate: cer (lower is better) on 2 pages, 8 groups of ")
    assert lines[0].endswith(f"against {GT}")
    first = next(line for line in lines if line.startswith("1 "))
    assert "OCR-D-OCR-CALA-gt4histocr" in first and first.rstrip().endswith("best")
    assert "  OCR-D-OCR-TESS-frk-SEG-LINE-tesseract-ocropy-DEWARP: ocrd-tesserocr-recognize 0.8.3, model frk" in lines


def test_the_python_api_gives_the_figures_of_the_command(kant_ranked, real_data):
    fleet = ek.ocr.evaluate_workspace(real_data / KANT / "mets.xml", gold_group=GT, pred_groups=KANT_GROUPS)
    assert list(fleet.ranking) == [row["name"] for row in kant_ranked["ranking"]]
    for row in kant_ranked["ranking"]:
        assert fleet[row["name"]].aggregate == row["aggregate"]
        assert fleet[row["name"]].engine == row["engine"]
    frk = fleet["OCR-D-OCR-TESS-frk-SEG-LINE-tesseract-ocropy-DEWARP"].report
    assert frk.detail["processor"]["model"] == "frk"
    assert set(frk.detail["per_item"]) == set(KANT_PAGES)


def test_the_kant_page_draws_the_ranking(real_data, tmp_path, capsys):
    page = tmp_path / "ranking.html"
    code, _, err = run(
        capsys, "evaluate", real_data / KANT, "--gold-group", GT, "--pred-group", "OCR-D-OCR-TESS-*", "--html", page
    )
    assert code == 0, err
    html = page.read_text(encoding="utf-8")
    assert "<title>ek evaluate: " in html and "OCR-D-OCR-TESS-frk--deu-SEG-LINE-tesseract-ocropy-DEWARP" in html
    assert 'id="side-by-side' in html


# --- one group: a folder pair ----------------------------------------------------------------------


def test_one_group_gives_the_outputs_of_a_folder_pair(real_data, tmp_path, capsys):
    group = "OCR-D-OCR-TESS-frk--deu-SEG-LINE-tesseract-ocropy-DEWARP"
    gold, pred = folder_pair(tmp_path, real_data / KANT, group)
    code, folder_text, _ = run(capsys, "evaluate", gold, pred)
    code_ws, workspace_text, err = run(capsys, "evaluate", real_data / KANT, "--gold-group", GT, "--pred-group", group)
    assert code == code_ws == 0, err
    assert workspace_text == folder_text
    folder = run_json(capsys, "evaluate", gold, pred)
    workspace = run_json(capsys, "evaluate", real_data / KANT, "--gold-group", GT, "--pred-group", group)
    for key in ("inputs", "date", "workspace"):
        folder.pop(key, None)
        workspace.pop(key, None)
    assert workspace == folder
    page = tmp_path / "one.html"
    assert run(capsys, "evaluate", real_data / KANT, "--gold-group", GT, "--pred-group", group, "--html", page)[0] == 0
    assert "ocrd-tesserocr-recognize 0.8.3, model frk+deu" in page.read_text(encoding="utf-8")


def test_one_group_json_names_the_workspace_and_the_processor(real_data, capsys):
    group = "OCR-D-OCR-CALA-gt4histocr-SEG-LINE-tesseract-ocropy-DEWARP"
    out = run_json(capsys, "evaluate", real_data / KANT / "mets.xml", "--gold-group", GT, "--pred-group", group)
    assert out["inputs"]["gold_group"] == GT and out["inputs"]["pred_group"].startswith(group + " (ocrd-calamari")
    assert out["workspace"]["groups"][group]["version"] == "0.0.6"
    assert set(out["items"]) == set(KANT_PAGES)


@pytest.mark.filterwarnings("ignore:the texts hold private-use characters")  # MUFI letters, kept by default
def test_actevedef_one_page_gt_tesseract_and_calamari(real_data, tmp_path, capsys):
    workspace = real_data / ACTEVEDEF
    out = run_json(capsys, "evaluate", workspace, "--gold-group", GT, "--pred-group", "OCR-D-OCR-*")
    assert [row["name"] for row in out["ranking"]] == ["OCR-D-OCR-CALAMARI", "OCR-D-OCR-TESS"]
    assert out["n_items"] == 1 and set(out["items"]["OCR-D-OCR-TESS"]) == {"00000024"}
    for group, name in (
        ("OCR-D-OCR-TESS", "OCR-D-OCR-TESS_0001.xml"),
        ("OCR-D-OCR-CALAMARI", "OCR-D-OCR-CALAMARI_0001.xml"),
    ):
        # the GT file is MIMETYPE application/xml: read by its content, as PAGE
        alone = run_json(capsys, "evaluate", workspace / GT / "00000024.page.xml", workspace / group / name)
        row = next(r for r in out["ranking"] if r["name"] == group)
        assert row["aggregate"] == alone["aggregate"]
    tess = out["workspace"]["groups"]["OCR-D-OCR-TESS"]
    assert (tess["processor"], tess["model"], tess["version"]) == (
        "ocrd-tesserocr-recognize",
        "GT4HistOCR_2000000",
        None,
    )


# --- errors ------------------------------------------------------------------------------------------


def write_workspace(root: Path, groups: dict, pages=("P1", "P2"), *, structmap=True, head="") -> Path:
    """A small workspace: ``groups`` maps a group to ``{page: (href, mimetype, text or None)}`` (None: no file)."""
    root.mkdir(parents=True, exist_ok=True)
    files, pointers = [], {p: [] for p in pages}
    for group, by_page in groups.items():
        entries = []
        for page, (href, mimetype, text) in by_page.items():
            fid = f"{group}_{page}"
            if text is not None:
                (root / href).parent.mkdir(parents=True, exist_ok=True)
                (root / href).write_text(text, encoding="utf-8")
            entries.append(
                f'<mets:file ID="{fid}" MIMETYPE="{mimetype}"><mets:FLocat LOCTYPE="OTHER" xlink:href="{href}"/></mets:file>'
            )
            pointers[page].append(f'<mets:fptr FILEID="{fid}"/>')
        files.append(f'<mets:fileGrp USE="{group}">{"".join(entries)}</mets:fileGrp>')
    divs = "".join(f'<mets:div TYPE="page" ID="{p}">{"".join(pointers[p])}</mets:div>' for p in pages)
    struct = f'<mets:structMap TYPE="PHYSICAL"><mets:div TYPE="physSequence">{divs}</mets:div></mets:structMap>'
    (root / "mets.xml").write_text(
        f'<?xml version="1.0" encoding="UTF-8"?>{head}<mets:mets xmlns:mets="http://www.loc.gov/METS/" '
        f'xmlns:xlink="http://www.w3.org/1999/xlink"><mets:fileSec>{"".join(files)}</mets:fileSec>'
        f"{struct if structmap else ''}</mets:mets>",
        encoding="utf-8",
    )
    return root


def small(tmp_path: Path, **groups) -> Path:
    base = {
        "GT": {"P1": ("GT/p1.txt", "text/plain", "The cat sat"), "P2": ("GT/p2.txt", "text/plain", "on the mat")},
        "OCR-A": {"P1": ("A/a1.txt", "text/plain", "The cut sat"), "P2": ("A/a2.txt", "text/plain", "on the mat")},
        "OCR-B": {"P1": ("B/b1.txt", "text/plain", "The cat sat"), "P2": ("B/b2.txt", "text/plain", "on tha mat")},
    }
    return write_workspace(tmp_path / "ws", {**base, **groups})


def test_a_small_workspace_scores_by_page_as_worked_by_hand(tmp_path, capsys):
    out = run_json(capsys, "evaluate", small(tmp_path), "--gold-group", "GT", "--pred-group", "OCR-*")
    rows = {row["name"]: row for row in out["ranking"]}
    # one substitution each over 11 + 10 reference characters (corpus rate: edits summed, then divided)
    assert rows["OCR-A"]["aggregate"] == pytest.approx(1 / 21) and rows["OCR-B"]["aggregate"] == pytest.approx(1 / 21)
    assert out["items"]["OCR-A"]["P1"]["score"] == pytest.approx(1 / 11)
    assert out["items"]["OCR-B"]["P2"]["score"] == pytest.approx(1 / 10)
    assert [r["name"] for r in out["ranking"]] == ["OCR-A", "OCR-B"]  # a tie keeps the METS order


def test_an_unknown_group_is_an_error_naming_the_closest_one(real_data, capsys):
    code, _, err = run(capsys, "evaluate", real_data / KANT, "--gold-group", GT, "--pred-group", "OCR-D-OCR-TESS-frk")
    assert code == 2
    assert (
        "has no file group 'OCR-D-OCR-TESS-frk' (did you mean OCR-D-OCR-TESS-frk-SEG-LINE-tesseract-ocropy-DEWARP?"
        in err
    )
    assert (
        "--pred-group 'OCR-D-OCR-TESS-frk*' takes them all" in err
        and "its groups of text files are OCR-D-GT-PAGE" in err
    )
    code, _, err = run(
        capsys, "evaluate", real_data / KANT, "--gold-group", "OCR-D-GT-PAG", "--pred-group", "OCR-D-OCR-*"
    )
    assert code == 2 and "--gold-group OCR-D-GT-PAG:" in err and "did you mean OCR-D-GT-PAGE?" in err
    code, _, err = run(capsys, "evaluate", real_data / KANT, "--gold-group", GT, "--pred-group", "NOPE-*")
    assert code == 2 and "--pred-group NOPE-* matches no file group of" in err


def test_keep_going_ranks_the_groups_that_exist_and_lists_the_others(tmp_path, capsys):
    ws = small(tmp_path)
    out = run_json(
        capsys, "evaluate", ws, "--gold-group", "GT", "--pred-group", "OCR-*", "--pred-group", "OCR-C", "--keep-going"
    )
    assert [r["name"] for r in out["ranking"]] == ["OCR-A", "OCR-B"]
    assert "has no file group 'OCR-C'" in out["skipped"]["OCR-C"]
    code, text, err = run(
        capsys, "evaluate", ws, "--gold-group", "GT", "--pred-group", "OCR-*", "--pred-group", "OCR-C", "--keep-going"
    )
    assert code == 0, err
    assert "left out: 1 group(s):" in text


def test_a_page_missing_in_a_pred_group_is_an_error_or_a_listed_skip(tmp_path, capsys):
    ws = small(tmp_path, **{"OCR-C": {"P1": ("C/c1.txt", "text/plain", "The cat sat")}})
    code, _, err = run(capsys, "evaluate", ws, "--gold-group", "GT", "--pred-group", "OCR-C")
    assert code == 2 and "PRED group OCR-C has no file for page P2" in err and "--keep-going" in err
    out = run_json(capsys, "evaluate", ws, "--gold-group", "GT", "--pred-group", "OCR-C", "--keep-going")
    assert out["n"] == 1 and list(out["items"]) == ["P1"] and out["aggregate"] == 0
    assert [(e["side"], e["id"]) for e in out["errors"]] == [("pred", "P2")]
    ranked = run_json(capsys, "evaluate", ws, "--gold-group", "GT", "--pred-group", "OCR-*", "--keep-going")
    row = next(r for r in ranked["ranking"] if r["name"] == "OCR-C")
    assert row["n"] == 1 and row["best"]  # CER 0 on the page it has; compared with the others on that page alone
    assert all(r["n_compared"] in (None, 1) for r in ranked["ranking"])
    assert any("no file for page P2" in e["message"] for e in ranked["errors"])


def test_files_of_another_mime_type_are_refused(real_data, capsys):
    code, _, err = run(capsys, "evaluate", real_data / KANT, "--gold-group", GT, "--pred-group", "OCR-D-IMG")
    assert code == 2
    assert "the file OCR-D-IMG/INPUT_0017.tif of page PHYS_0017 is image/tiff, not a text format ek reads" in err


def test_files_missing_on_disk_are_an_error_or_a_listed_skip(real_data, capsys):
    # the kant METS lists OCR-D-GT-ALTO, whose files the fixture (as OCR-D/assets) does not hold
    argv = ["evaluate", real_data / KANT, "--gold-group", GT, "--pred-group", "OCR-D-GT-ALTO"]
    code, _, err = run(capsys, *argv)
    assert code == 2 and "(OCR-D-GT-ALTO/PAGE_0017_ALTO.xml) does not exist in" in err
    argv[-1:] = ["OCR-D-GT-ALTO", "--pred-group", KANT_GROUPS[4], "--keep-going"]
    out = run_json(capsys, *argv)
    assert [r["name"] for r in out["ranking"]] == [KANT_GROUPS[4]]
    assert "no page could be read" in out["skipped"]["OCR-D-GT-ALTO"]


@pytest.mark.parametrize(
    ("href", "message"),
    [
        ("https://example.org/a1.txt", "is at the URL https://example.org/a1.txt; ek reads local files only"),
        ("../outside.txt", "(../outside.txt) is outside the workspace"),
        ("file:///etc/hostname", "(file:///etc/hostname) is outside the workspace"),
    ],
)
def test_only_local_files_inside_the_workspace_are_read(tmp_path, capsys, href, message):
    (tmp_path / "outside.txt").write_text("The cat sat", encoding="utf-8")
    ws = small(
        tmp_path, **{"OCR-C": {"P1": (href, "text/plain", None), "P2": ("C/c2.txt", "text/plain", "on the mat")}}
    )
    code, _, err = run(capsys, "evaluate", ws, "--gold-group", "GT", "--pred-group", "OCR-C")
    assert code == 2 and message in err


def test_a_file_url_inside_the_workspace_is_read(tmp_path, capsys):
    inside = (tmp_path / "ws" / "C" / "c1.txt").as_uri()
    ws = small(
        tmp_path,
        **{"OCR-C": {"P1": ("C/c1.txt", "text/plain", "The cat sat"), "P2": ("C/c2.txt", "text/plain", "on the mat")}},
    )
    mets = ws / "mets.xml"
    mets.write_text(
        mets.read_text(encoding="utf-8").replace('xlink:href="C/c1.txt"', f'xlink:href="{inside}"'), encoding="utf-8"
    )
    assert run_json(capsys, "evaluate", ws, "--gold-group", "GT", "--pred-group", "OCR-C")["aggregate"] == 0


def test_group_flags_need_a_workspace_and_a_workspace_needs_them(real_data, tmp_path, capsys):
    gold, pred = folder_pair(tmp_path, real_data / KANT, KANT_GROUPS[0])
    code, _, err = run(capsys, "evaluate", gold, "--gold-group", GT, "--pred-group", KANT_GROUPS[0])
    assert code == 2 and "--gold-group and --pred-group name file groups of an OCR-D workspace, and " in err
    code, _, err = run(capsys, "evaluate", gold)
    assert code == 2 and "the following arguments are required: PRED; an OCR-D workspace as GOLD takes" in err
    code, _, err = run(capsys, "evaluate", real_data / KANT, "--pred-group", KANT_GROUPS[0])
    assert code == 2 and "with --gold-group (it has OCR-D-GT-PAGE, OCR-D-GT-ALTO)" in err
    code, _, err = run(capsys, "evaluate", real_data / KANT, "--gold-group", GT)
    assert code == 2 and "name the groups of" in err and "--pred-group 'OCR-D-OCR-*'" in err
    code, _, err = run(capsys, "evaluate", real_data / KANT, pred, "--gold-group", GT, "--pred-group", KANT_GROUPS[0])
    assert code == 2 and "so PRED (" in err


def test_a_mets_without_a_physical_structmap_is_refused(tmp_path, capsys):
    ws = write_workspace(
        tmp_path / "ws", {"GT": {"P1": ("GT/p1.txt", "text/plain", "a")}}, pages=("P1",), structmap=False
    )
    code, _, err = run(capsys, "evaluate", ws, "--gold-group", "GT", "--pred-group", "GT")
    assert code == 2 and "has no PHYSICAL structMap" in err


def test_a_mets_declaring_an_entity_is_refused(tmp_path, capsys):
    head = '<!DOCTYPE mets:mets [<!ENTITY e "x">]>'
    ws = write_workspace(tmp_path / "ws", {"GT": {"P1": ("GT/p1.txt", "text/plain", "a")}}, pages=("P1",), head=head)
    code, _, err = run(capsys, "evaluate", ws, "--gold-group", "GT", "--pred-group", "GT")
    assert code == 2 and "declares a DTD internal subset" in err


def test_flags_of_one_run_are_refused_with_several_groups(tmp_path, capsys):
    code, _, err = run(
        capsys, "evaluate", small(tmp_path), "--gold-group", "GT", "--pred-group", "OCR-*", "--max", "0.1"
    )
    assert code == 2 and "--max works on one run, and several --pred-group groups are ranked" in err


def test_agents_naming_their_output_group_give_the_processor(tmp_path, capsys):
    head_agent = (
        '<mets:metsHdr><mets:agent TYPE="OTHER" OTHERTYPE="SOFTWARE" ROLE="OTHER" OTHERROLE="recognition">'
        "<mets:name>ocrd-tesserocr-recognize v0.17.0</mets:name>"
        '<mets:note xmlns:ocrd="https://ocr-d.de" ocrd:option="output-file-grp">OCR-A</mets:note>'
        '<mets:note xmlns:ocrd="https://ocr-d.de" ocrd:option="parameter">{"model": "deu"}</mets:note>'
        "</mets:agent></mets:metsHdr>"
    )
    ws = small(tmp_path)
    mets = ws / "mets.xml"
    text = mets.read_text(encoding="utf-8")
    mets.write_text(text.replace("<mets:fileSec>", head_agent + "<mets:fileSec>"), encoding="utf-8")
    out = run_json(capsys, "evaluate", ws, "--gold-group", "GT", "--pred-group", "OCR-*")
    assert out["workspace"]["groups"]["OCR-A"] == {
        "processor": "ocrd-tesserocr-recognize",
        "version": "0.17.0",
        "parameters": {"model": "deu"},
        "model": "deu",
        "source": "mets",
    }
    assert out["workspace"]["groups"]["OCR-B"] is None  # plain text: nothing says who made it
