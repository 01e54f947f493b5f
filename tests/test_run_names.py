"""The file names of stored runs (`ek._runs._records.store_key`): only ``[A-Za-z0-9._-]``, stable, collision-free.

A run id with other characters (a fleet engine's ``tesseract:lang=frk``,
``nächtlich``) is stored under a slug and a hash of the id, the id itself
kept in the run's header; a run an earlier ek stored under its raw id is
still found, read and resumed where it is, and what a resume reused is
recorded in the header.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ek._runs import _records, check_run_id, read_run, store_key, stored_runs
from ek.harness import evaluate_store
from ek.stores import json_store

FIXTURE = Path(__file__).parent / "fixtures" / "stored_run"
SAFE = re.compile(r"[A-Za-z0-9._-]+")
CALLS: list[str] = []


def predict(text):
    CALLS.append(text)
    return text.upper()


def gold(n=4):
    return {f"k{i}": {"input": f"word{i}", "reference": f"WORD{i}"} for i in range(n)}


def files(root: Path) -> list[str]:
    """Every file name under ``root`` (lock files and temporary files included)."""
    return sorted(p.name for p in root.rglob("*") if p.is_file())


def old_naming(kind, run_id):
    """How ek named a run's files before: the raw id."""
    return f"{kind}.{run_id}"


def test_a_plain_id_keeps_its_name_and_any_other_is_a_slug_and_a_hash():
    assert store_key("fleet", "nightly.tesseract") == "fleet.nightly.tesseract"
    key = store_key("fleet", "nightly.tesseract:lang=deu+frk,psm=7")
    assert re.fullmatch(r"fleet\.nightly\.tesseract_lang_deu_frk_psm_7--[0-9a-f]{12}", key)
    assert store_key("ocr", "nächtlich").startswith("ocr.nachtlich--")  # accents folded, still readable
    assert re.fullmatch(r"ocr\.run--[0-9a-f]{12}", store_key("ocr", "日本語"))  # nothing readable: "run"


def test_a_plain_id_shaped_like_an_encoded_name_is_encoded_too():
    encoded = store_key("documents", "a:b")
    lookalike = encoded.removeprefix("documents.")  # a plain id, and the file name of the run "a:b"
    assert SAFE.fullmatch(lookalike)
    assert store_key("documents", lookalike) != encoded
    assert store_key("documents", lookalike).startswith(f"documents.{lookalike}--")


_IDS = st.text(st.characters(exclude_characters="/\\\0", exclude_categories=("Cs",)), min_size=1, max_size=60).filter(
    lambda s: not s.startswith(".")
)


@given(_IDS, _IDS)
def test_names_are_safe_stable_and_tell_ids_apart(a, b):
    key = store_key("fleet", check_run_id(a, "test"))
    assert SAFE.fullmatch(key) and key.startswith("fleet.") and len(key) <= 110
    assert store_key("fleet", a) == key  # stable
    if a != b:
        assert store_key("fleet", b) != key
    if SAFE.fullmatch(a) and not re.fullmatch(r".*--[0-9a-f]{12}", a):
        assert key == f"fleet.{a}"  # readable ids are left as they are


def test_a_run_id_with_colons_and_equals_writes_only_safe_file_names_and_resumes(tmp_path):
    run_id = "nightly.tesseract:lang=frk"
    first = evaluate_store(predict, gold(), metric="cer", run_id=run_id, rootdir=tmp_path)
    names = files(tmp_path)
    assert names and all(SAFE.fullmatch(name) for name in names), names
    key = store_key("documents", run_id)
    header = json_store("runs", rootdir=tmp_path)[key]
    assert header["run_id"] == run_id  # the readable name, kept in the run's record
    assert f".{key}.lock" in names
    assert stored_runs("documents", rootdir=tmp_path) == [run_id]
    assert read_run("documents", run_id, rootdir=tmp_path, who="test")[0]["status"] == "complete"
    CALLS.clear()
    again = evaluate_store(predict, gold(), metric="cer", run_id=run_id, rootdir=tmp_path)
    assert CALLS == [] and again.aggregate == first.aggregate == 0.0
    assert json_store("runs", rootdir=tmp_path)[key]["resumed"] == {"reused": 4, "read": 0}


def test_a_run_and_the_plain_id_shaped_like_its_file_name_are_two_runs(tmp_path):
    encoded = store_key("documents", "a:b").removeprefix("documents.")
    evaluate_store(predict, gold(2), metric="cer", run_id="a:b", rootdir=tmp_path)
    evaluate_store(predict, gold(3), metric="cer", run_id=encoded, rootdir=tmp_path)
    assert len(read_run("documents", "a:b", rootdir=tmp_path, who="test")[1]) == 2
    assert len(read_run("documents", encoded, rootdir=tmp_path, who="test")[1]) == 3
    assert stored_runs("documents", rootdir=tmp_path) == sorted(["a:b", encoded])


def test_a_run_stored_under_its_raw_id_by_an_earlier_ek_is_read_and_resumed_where_it_is(tmp_path, monkeypatch):
    run_id = "nightly.tesseract:lang=frk"
    with monkeypatch.context() as old:
        old.setattr(_records, "store_key", old_naming)
        evaluate_store(predict, gold(3), metric="cer", run_id=run_id, rootdir=tmp_path)
    stored = files(tmp_path / "results") + files(tmp_path / "runs")
    assert f"documents.{run_id}.json" in stored and f"documents.{run_id}.000000.json" in stored
    assert stored_runs("documents", rootdir=tmp_path) == [run_id]
    assert len(read_run("documents", run_id, rootdir=tmp_path, who="test")[1]) == 3
    CALLS.clear()
    report = evaluate_store(predict, gold(4), metric="cer", run_id=run_id, rootdir=tmp_path)
    assert CALLS == ["word3"] and report.n == 4  # three pages from the old files, one read now
    header = json_store("runs", rootdir=tmp_path)[f"documents.{run_id}"]
    assert header["resumed"] == {"reused": 3, "read": 1}
    assert store_key("documents", run_id) not in json_store("runs", rootdir=tmp_path)  # nothing moved or copied
    assert set(stored) <= set(files(tmp_path / "results") + files(tmp_path / "runs"))  # nothing lost


def test_the_stored_run_fixture_reads_under_an_old_style_name(tmp_path):
    root = tmp_path / "root"
    shutil.copytree(FIXTURE, root)
    runs, results = json_store("runs", rootdir=root), json_store("results", rootdir=root)
    header, chunk = runs.pop("documents.fixture"), results.pop("documents.fixture.000000")
    runs["documents.fix:ture=1"] = {**header, "run_id": "fix:ture=1"}
    results["documents.fix:ture=1.000000"] = {**chunk, "run_id": "fix:ture=1"}
    found = read_run("documents", "fix:ture=1", rootdir=root, who="test")
    assert found is not None and found[0]["settings"] == {"metric": "cer"} and set(found[1]) == {"item"}
    assert stored_runs("documents", rootdir=root) == ["fix:ture=1"]


def test_the_stored_run_fixture_keeps_its_name(tmp_path):
    shutil.copytree(FIXTURE, tmp_path / "root")
    assert store_key("documents", "fixture") == "documents.fixture"
    assert stored_runs("documents", rootdir=tmp_path / "root") == ["fixture"]


def test_a_fresh_run_records_that_it_reused_nothing(tmp_path):
    evaluate_store(predict, gold(2), metric="cer", run_id="fresh", rootdir=tmp_path)
    assert json_store("runs", rootdir=tmp_path)["documents.fresh"]["resumed"] == {"reused": 0, "read": 2}


@pytest.mark.parametrize("old", [False, True], ids=["this ek", "an earlier ek"])
@pytest.mark.parametrize("run_id", ["x--0123456789ab", "a b", "émile"])
def test_stored_runs_lists_every_id_once(run_id, old, tmp_path, monkeypatch):
    with monkeypatch.context() as earlier:
        if old:
            earlier.setattr(_records, "store_key", old_naming)
        evaluate_store(predict, gold(2), metric="cer", run_id=run_id, rootdir=tmp_path)
    evaluate_store(predict, gold(1), metric="cer", run_id="plain", rootdir=tmp_path)
    assert stored_runs("documents", rootdir=tmp_path) == sorted([run_id, "plain"])
    CALLS.clear()
    evaluate_store(predict, gold(2), metric="cer", run_id=run_id, rootdir=tmp_path)
    assert CALLS == []  # found again, where it was stored
