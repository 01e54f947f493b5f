"""One JSON tag codec (`ek._json`) under `ek.stores` and the run engine, byte-compatible with stored runs.

``tests/fixtures/stored_run`` was written by the two codecs ek had before (``ek._runs._codec`` encoding a
value, ``ek.stores`` writing it, commit 7e7966e): the value below, as one item of a run chunk, and a run
header. It must read back equal, and encoding the value again must write the same bytes.
"""

from __future__ import annotations

import enum
import math
import pathlib
import shutil

import pytest

from ek import _json
from ek._runs import decode, encode, read_run
from ek.agents.base import Cost
from ek.base import NodePath, Score
from ek.stores import json_store

FIXTURE = pathlib.Path(__file__).parent / "fixtures" / "stored_run"


class Colour(str, enum.Enum):
    RED = "red"


def stored_value() -> dict:
    return {
        "tuple": (1, "a", (2.5, None)),
        "set": {3, 1, 2},
        "frozenset": frozenset({"b", "a"}),
        "int_keys": {1: "one", 2: ("two",)},
        "tag_like": {"$tuple": "not a tag"},
        "path": NodePath("n1", "invoice", "total"),
        "paths": {NodePath("n2", "line"): [NodePath("n3", "x")]},
        "score": Score(0.25, 0.5, 1.0, 2 / 3, "field_f1", {"tp": 1, "fp": 1, "ids": ("a", "b")}),
        "cost": Cost(input_tokens=10, output_tokens=3),
        "floats": [math.nan, math.inf, -math.inf, 0.1, -0.0],
        "enum": Colour.RED,
        "nested": [[{"$float": 1}]],
        "unicode": "naïve – ✓",
        "empty": {},
        "none": None,
        "bool": True,
    }


def _same(a, b) -> bool:
    """Equal, NaN equal to NaN (and -0.0 told from 0.0)."""
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def test_a_chunk_written_before_reads_back_equal(tmp_path):
    import ek.agents  # noqa: F401 - registers Cost

    results = json_store("results", rootdir=FIXTURE)
    item = results._read("documents.fixture.000000", _json.revive)["items"]["item"]
    expected = {**stored_value(), "enum": "red", "frozenset": {"a", "b"}}  # the str of an enum, a set's set
    assert _same(item, expected)
    assert isinstance(item["score"], Score) and item["score"].detail["ids"] == ("a", "b")
    assert item["paths"] == {NodePath("n2", "line"): [NodePath("n3", "x")]}


def test_encoding_again_writes_the_same_bytes(tmp_path):
    import ek.agents  # noqa: F401

    record = {
        "format": 2,
        "kind": "documents",
        "run_id": "fixture",
        "seq": 0,
        "items": {"item": encode(stored_value())},
    }
    json_store("results", rootdir=tmp_path)["documents.fixture.000000"] = record
    name = "results/documents.fixture.000000.json"
    assert (tmp_path / name).read_bytes() == (FIXTURE / name).read_bytes()
    header = json_store("runs", rootdir=FIXTURE)["documents.fixture"]
    assert math.isnan(header["summary"]["aggregate"])
    json_store("runs", rootdir=tmp_path)["documents.fixture"] = header
    name = "runs/documents.fixture.json"
    assert (tmp_path / name).read_bytes() == (FIXTURE / name).read_bytes()


def test_the_stored_run_reads_through_the_run_engine(tmp_path):
    shutil.copytree(FIXTURE, tmp_path / "root")
    header, items = read_run("documents", "fixture", rootdir=tmp_path / "root", who="test")
    assert header["status"] == "complete" and header["settings"] == {"metric": "cer"}
    assert items["item"]["path"] == NodePath("n1", "invoice", "total")


def test_plain_store_values_keep_typed_tags_as_mappings(tmp_path):
    store = json_store("gold", rootdir=tmp_path)
    store["k"] = {"a": {"$tuple": [1]}, "b": math.inf}
    assert store["k"] == {"a": {"$tuple": [1]}, "b": math.inf}  # only floats are revived in a plain store
    assert decode(encode({"a": (1,)})) == {"a": (1,)}


def test_a_damaged_tag_is_an_error_saying_so(tmp_path):
    with pytest.raises(_json.BadTag, match=r"\{'\$float': 'nan'\}, which names no float"):
        _json.loads('{"$float": "nan"}')
    with pytest.raises(ValueError, match=r"a stored Score has value 'x', not a number"):
        _json.loads('{"$score": {"value": "x"}}', _json.revive)
    with pytest.raises(ValueError, match=r"a stored 'path' value has other fields than expected"):
        _json.loads('{"$path": {"node": "n"}}', _json.revive)
    with pytest.raises(ValueError, match=r"a '\$map' entry is not a list of \[key, value\] pairs"):
        _json.loads('{"$map": [[1]]}', _json.revive)


def test_a_report_tags_non_finite_numbers_as_the_stores_do():
    report = {"nan": math.nan, "inf": (math.inf, -math.inf), 3: "three", (1, "a"): [0.5], "text": "NaN"}
    plain = _json.plain(report)
    assert plain == {
        "nan": {"$float": "NaN"},
        "inf": [{"$float": "Infinity"}, {"$float": "-Infinity"}],
        "3": "three",
        '[1, "a"]': [0.5],
        "text": "NaN",  # a string stays a string: only a float becomes a tag
    }
    text = _json.report_text(report)
    assert "NaN" not in text.replace('"NaN"', "") and "null" not in text
    back = _json.loads(text)
    assert math.isnan(back["nan"]) and back["inf"] == [math.inf, -math.inf] and back["text"] == "NaN"
    for value in (math.nan, math.inf, -math.inf, [1.0, math.nan]):  # the stores spell them alike
        assert _json.report_text(value, indent=None) == _json.dumps(value, key="k")


def test_a_report_keeps_what_json_cannot_hold_as_its_str():
    text = _json.report_text({"when": Colour.RED, "path": pathlib.PurePosixPath("a/b"), "é": "ü"})
    assert _json.loads(text) == {"when": "red", "path": "a/b", "é": "ü"}
    assert "\\u00e9" in _json.report_text({"é": 1}, ascii_only=True)
