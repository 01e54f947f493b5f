"""ek._files: reading GOLD/PRED from record files, folders and stdin, joining by id, and every bad input."""

from __future__ import annotations

import doctest
import io
import json

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import ek
import ek._files
from ek._files import InputError, _errors, _records, join, read_pair, read_side


def _write(path, text, encoding="utf-8"):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode(encoding) if isinstance(text, str) else text)
    return path


def _jsonl(path, records):
    return _write(path, "".join(json.dumps(r) + "\n" for r in records))


def test_module_examples_run():
    assert doctest.testmod(ek._files).failed == 0
    assert doctest.testmod(_errors).failed == 0


def test_input_error_is_a_value_error():
    assert issubclass(InputError, ValueError)


# -- formats and joining ------------------------------------------------------


def test_jsonl_gold_with_csv_pred_joins_in_gold_order(tmp_path):
    gold = _jsonl(
        tmp_path / "g.jsonl",
        [
            {"id": "b", "reference": "dog", "slice": "s1"},
            {"id": "a", "reference": "cat", "slice": "s2"},
            {"id": "c", "reference": "cow"},
        ],
    )
    pred = _write(tmp_path / "p.csv", "id,prediction,other\na,cut,x\nb,dog,y\nz,zebra,w\n")
    j = read_pair(gold, pred)
    assert j.ids == ("b", "a", "c")
    assert j.golds == ("dog", "cat", "cow") and j.preds == ("dog", "cut", "")
    assert j.slices == ("s1", "s2", None)
    assert j.missing == ("c",) and j.extra == ("z",)
    assert j.cases() == [("dog", "dog", "s1"), ("cut", "cat", "s2"), ("", "cow", None)]
    report = ek.evaluate(j.cases(), metric="cer")
    assert report.aggregate == pytest.approx((0 + 1 + 3) / 9)  # the missing item: every gold char is an error


def test_json_array_and_json_mapping_and_tsv(tmp_path):
    arr = _write(tmp_path / "g.json", json.dumps([{"id": 1, "gold": "x"}, {"id": 2, "gold": "y"}]))
    mapping = _write(tmp_path / "p.json", json.dumps({"1": {"pred": "x"}, "2": "not a record"}))
    with pytest.raises(InputError, match=r"key '2' is a str among objects"):
        read_pair(arr, mapping)
    mapping = _write(tmp_path / "p.json", json.dumps({"2": "yy", "1": "x"}))
    j = read_pair(arr, mapping)  # integer gold ids join string keys
    assert j.ids == ("1", "2") and j.preds == ("x", "yy")
    tsv = _write(tmp_path / "p.tsv", "id\ttext\n2\ty\n")
    j = read_pair(arr, tsv)
    assert j.preds == ("", "y") and j.missing == ("1",)


def test_value_field_defaults_in_order_and_explicit_fields(tmp_path):
    gold = _jsonl(tmp_path / "g.jsonl", [{"id": "a", "text": "t", "gold": "g", "reference": "r"}])
    pred = _jsonl(tmp_path / "p.jsonl", [{"id": "a", "text": "t", "pred": "p"}])
    j = read_pair(gold, pred)
    assert j.golds == ("r",) and j.preds == ("p",)
    j = read_pair(gold, pred, gold_field="text", pred_field="text")
    assert j.golds == ("t",) and j.preds == ("t",)


def test_records_without_a_value_field_are_compared_whole(tmp_path):
    gold = _jsonl(
        tmp_path / "g.jsonl", [{"id": "a", "slice": "inv", "total": "10", "date": "2024"}, {"id": "b", "total": "5"}]
    )
    pred = _jsonl(tmp_path / "p.jsonl", [{"id": "a", "total": "10", "date": "2023"}])
    j = read_pair(gold, pred)
    assert j.golds == ({"total": "10", "date": "2024"}, {"total": "5"})
    assert j.preds == ({"total": "10", "date": "2023"}, {})  # the missing record is an empty one
    assert j.slices == ("inv", None)
    report = ek.evaluate(j.cases(), metric="fields")
    assert report.n == 2


def test_whole_records_against_a_value_field_is_refused(tmp_path):
    gold = _jsonl(tmp_path / "g.jsonl", [{"id": "a", "total": "10"}])
    pred = _jsonl(tmp_path / "p.jsonl", [{"id": "a", "text": "10"}])
    with pytest.raises(InputError, match=r"compared as whole records .* gives the field 'text'"):
        read_pair(gold, pred)


def test_positional_ids_and_null_predictions(tmp_path):
    gold = _write(tmp_path / "g.jsonl", '{"text": "a"}\n\n{"text": "b"}\n')
    pred = _write(tmp_path / "p.jsonl", '{"text": null}\n{"text": "b"}\n')
    j = read_pair(gold, pred, id_field=None)
    assert j.ids == ("1", "2") and j.preds == ("", "b") and j.missing == ()


def test_stdin_is_read_by_content(tmp_path):
    gold = _jsonl(tmp_path / "g.jsonl", [{"id": "a", "text": "x"}])
    for data in (b'{"id": "a", "text": "y"}\n', b'[{"id": "a", "text": "y"}]', b"id,text\na,y\n", b"id\ttext\na\ty\n"):
        assert read_pair(gold, "-", stdin=io.BytesIO(data)).preds == ("y",), data


def test_unknown_extension_is_read_by_content_or_refused(tmp_path):
    gold = _write(tmp_path / "g.data", '[{"id": "a", "text": "x"}]')
    assert read_side(gold).values == ("x",)
    with pytest.raises(InputError, match=r"GOLD .*g\.bin has an unknown extension .* use \.jsonl, \.json"):
        read_side(_write(tmp_path / "g.bin", "just some words"))
    with pytest.raises(InputError, match="unknown format 'yaml'"):
        read_side(gold, format="yaml")


# -- bad input: one clear line each ----------------------------------------------


@pytest.mark.parametrize(
    "name, content, message",
    [
        (
            "g.jsonl",
            '{"id": "a", "text": "x"}\n{"id": "b", "text": \n',
            r"g\.jsonl line 2 is not valid JSON: .* column",
        ),
        (
            "g.jsonl",
            '{"id": "a", "text": "x"}\n\n{"text": "y"}\n',
            r"line 3 has no 'id' field \(the id field\); it has 'text'",
        ),
        (
            "g.jsonl",
            '{"id": "a", "text": "x"}\n{"id": "b", "text": "y"}\n{"id": "a", "text": "z"}\n',
            r"has the id 'a' twice \(line 1 and line 3\); ids must be unique",
        ),
        (
            "g.jsonl",
            '{"id": "a", "text": "x"}\n{"id": "b", "gold": "y"}\n',
            r"line 2 has no 'text' field \(the value field, as in the first record\)",
        ),
        ("g.jsonl", '{"id": "a", "text": null}\n', r"line 1 has a null value"),
        ("g.jsonl", '{"id": [1], "text": "x"}\n', r"line 1 has id \[1\] \(list\); ids must be strings or integers"),
        ("g.jsonl", '["a", "x"]\n', r"line 1 is a list, not an object with an 'id' field"),
        ("g.jsonl", "\n  \n", r"has no records; a gold file needs at least one"),
        ("g.csv", "key,text\na,x\n", r"has no 'id' column \(columns: key, text\); pass id="),
        ("g.csv", "id,text\na,x,extra\n", r"line 2 has more cells than the header's 2 columns"),
        ("g.json", '{"a": 1', r"g\.json is not valid JSON: .* at line 1"),
        ("g.json", '"just a string"', r"holds a JSON str; give an array of records"),
        # issue 20 item 10: parsing holes
        (
            "g.jsonl",
            '{"id": "a", "text": "x"}, {"id": "b", "text": "y"}\n{"id": "c", "text": "z", "n": [3\n4]}\n',
            r"g\.jsonl line 1 is not valid JSON: extra data after the value",
        ),
        ("g.jsonl", '{"id": "a", "text": "x"}\n{"id": "b",\n"text": "y"}\n', r"g\.jsonl line 2 is not valid JSON"),
        (
            "g.jsonl",
            '{"id": "a", "text": "x"},"\\u0001",{"id": "b", "text": "y"}\n{"id": "c", "n": [3\n4]}\n',
            r"g\.jsonl line 1 is not valid JSON: extra data after the value",
        ),  # the bulk parse's own marker
        ("g.json", '{"a": "x",\n "b": "y",\n "a": "z"}', r"g\.json gives the key 'a' twice in one object"),
        ("g.json", '[{"id": "a", "text": "x", "text": "y"}]', r"gives the key 'text' twice in one object"),
        (
            "g.csv",
            'id,text\na,x\nb,"never closed\nc,z\nd,w\n',
            r"g\.csv line 3 is not valid CSV: unexpected end of data \(a quoted cell that begins on that line",
        ),
        ("g.csv", 'id,text\nb,"opens\nc,z\nd,"w"\n', r"g\.csv line 2 is not valid CSV: .*a quoted cell that begins"),
        ("g.csv", "id,text\na,x\nb\n", r"g\.csv line 3 has 1 cell but the header has 2 columns"),
        ("g.tsv", "id\ttext\ttext\na\tx\ty\n", r"g\.tsv line 1 names the column 'text' twice \(columns 2 and 3\)"),
        # issue 20 item 15: one line naming the file and the line, never a RecursionError or a bare ValueError
        (
            "g.jsonl",
            '{"id": "a", "text": "x"}\n{"id": "b", "text": ' + "[" * 100_000 + "]" * 100_000 + "}\n",
            r"g\.jsonl line 2 nests arrays or objects deeper than ek can read",
        ),
        (
            "g.json",
            '{"a": "x",\n\n "b": ' + "[" * 100_000 + "]" * 100_000 + "}",
            r"g\.json line 3 nests arrays or objects deeper than ek can read",
        ),
        (
            "g.jsonl",
            '{"id": ' + "7" * 5000 + ', "text": "x"}\n',
            r"g\.jsonl line 1 holds an integer of more than 4300 digits",
        ),
        (
            "g.json",
            '{"a": "x",\n "b": ' + "7" * 5000 + "}",
            r"g\.json line 2 holds an integer of more than 4300 digits",
        ),
    ],
    ids=lambda value: value[:40],
)
def test_bad_gold_files(tmp_path, name, content, message):
    with pytest.raises(InputError, match=message) as caught:
        read_side(_write(tmp_path / name, content))
    assert "\n" not in str(caught.value)  # one line, for the command's error output


def test_jsonl_values_holding_any_text_are_read_whole(tmp_path):
    records = [
        {"id": "a", "text": "\u0001"},
        {"id": "b", "text": "x\ny", "n": [1, 2]},
        {"id": "c", "text": ',"\u0001",'},
    ]
    text = "".join(json.dumps(r) + "\n" for r in records)
    for body in (text, text.replace("\n", "\n\n"), text.replace("\n", "\r\n")):
        side = read_side(_write(tmp_path / "g.jsonl", body))
        assert side.ids == ("a", "b", "c") and side.values == ("\u0001", "x\ny", ',"\u0001",')


_FRAGMENTS = [
    '{"a": 1}',
    '{"b": "\\u0001", "c": "\\\\"}',
    '"\\u0001"',
    ',"\\u0001",',
    "1, 2",
    '1,"\\u0001",2',
    "[3",
    "4]",
    '{"d": [1,',
    "2]}",
    "null",
    '"\\"',
    '"x\\\\"',
    "",
    "  ",
    "\r",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_FRAGMENTS), min_size=1, max_size=7))
@example(['1,"\\u0001",2', "[3", "4]"])  # the marker's own text, then a value over two lines: both count right
def test_jsonl_bulk_parse_agrees_with_line_by_line(lines):
    """The one-call parse of a JSONL body gives what parsing each line alone gives, or the same refusal."""
    text = "\n".join(lines) + "\n"

    def outcome(parse):
        try:
            return parse()
        except InputError as exc:
            return str(exc)

    expected = outcome(lambda: _records._line_by_line(text.split("\n"), "X"))
    assert outcome(lambda: _records.parse_jsonl(text, "X").records) == expected


def test_non_utf8_file_reports_the_byte_offset(tmp_path):
    path = _write(tmp_path / "g.jsonl", '{"id": "a", "text": "café"}\n', encoding="latin-1")
    with pytest.raises(InputError, match=r"g\.jsonl is not UTF-8: byte 0xe9 at offset 24 cannot be decoded"):
        read_side(path)
    # a UTF-8 byte-order mark is accepted and does not shift the reported offset
    bom = _write(tmp_path / "b.jsonl", b"\xef\xbb\xbf" + '{"id": "a", "text": "café"}'.encode("latin-1"))
    with pytest.raises(InputError, match=r"byte 0xe9 at offset 27"):
        read_side(bom)
    assert read_side(_write(tmp_path / "ok.jsonl", b'\xef\xbb\xbf{"id": "a", "text": "x"}\n')).ids == ("a",)


def test_missing_path_and_bad_options(tmp_path):
    with pytest.raises(InputError, match=r"GOLD .*nope\.jsonl does not exist"):
        read_side(tmp_path / "nope.jsonl")
    gold = _jsonl(tmp_path / "g.jsonl", [{"id": "a", "text": "x"}])
    with pytest.raises(InputError, match=r"line 1 has no 'answer' field \(the value field\)"):
        read_side(gold, value_field="answer")
    with pytest.raises(InputError, match=r"no record with the slice field 'group'"):
        read_side(gold, slice_field="group")
    with pytest.raises(ValueError, match="role must be 'gold' or 'pred'"):
        read_side(gold, role="both")
    with pytest.raises(ValueError, match="join\\(\\) takes the gold side then the pred side"):
        join(read_side(gold, role="pred"), read_side(gold))


def test_an_empty_prediction_file_leaves_every_gold_id_missing(tmp_path):
    gold = _jsonl(tmp_path / "g.jsonl", [{"id": "a", "text": "x"}, {"id": "b", "text": "y"}])
    j = read_pair(gold, _write(tmp_path / "p.jsonl", ""))
    assert j.missing == ("a", "b") and j.preds == ("", "")


# -- folders of documents ---------------------------------------------------------


def test_folder_pairs_by_name_in_the_tesstrain_layout(tmp_path):
    _write(tmp_path / "gt" / "l1.gt.txt", "Hello\n")
    _write(tmp_path / "gt" / "l1.png", b"\x89PNG")  # images beside the transcriptions are skipped
    _write(tmp_path / "gt" / "sub" / "l2.gt.txt", "World")
    _write(tmp_path / "gt" / "l3.gt.txt", "Gone")
    _write(tmp_path / "gt" / "l1.txt", "an OCR result kept beside the gold")
    _write(tmp_path / "ocr" / "l1.txt", "Hallo")
    _write(tmp_path / "ocr" / "sub" / "l2.txt", "World")
    _write(tmp_path / "ocr" / "l9.txt", "stray")
    # with PRED another folder, gt/l1.txt would be a second gold file for l1: refused, never dropped
    with pytest.raises(InputError, match=r"two gold files for 'l1' \(.*l1\.gt\.txt and .*l1\.txt\); keep one"):
        read_pair(tmp_path / "gt", tmp_path / "ocr")
    j = read_pair(tmp_path / "gt", tmp_path / "ocr", gold_suffix=".gt.txt")
    assert j.ids == ("l1", "l3", "sub/l2")
    assert j.golds == ("Hello", "Gone", "World") and j.preds == ("Hallo", "", "World")
    assert j.missing == ("l3",) and j.extra == ("l9",)
    assert j.documents["l1"][0].format == "text" and j.documents["l3"][1] is None
    # the same folder serves as both sides: gold takes *.gt.*, pred skips them
    j = read_pair(tmp_path / "gt", tmp_path / "gt")
    assert j.preds[0] == "an OCR result kept beside the gold" and j.missing == ("l3", "sub/l2")


def test_folder_records_a_failing_file_and_reads_the_others(tmp_path):
    _write(tmp_path / "gt" / "a.gt.txt", "fine")
    _write(tmp_path / "gt" / "b.gt.txt", "caf\xe9", encoding="latin-1")
    _write(tmp_path / "gt" / "c.gt.txt", "   \n")
    _write(tmp_path / "ocr" / "a.xml", "<PcGts><broken")
    _write(tmp_path / "ocr" / "b.txt", "cafe")
    _write(tmp_path / "ocr" / "c.txt", "")
    j = read_pair(tmp_path / "gt", tmp_path / "ocr")
    assert j.ids == ("a",) and j.preds == ("",) and j.missing == ()
    assert set(j.gold_errors) == {"b", "c"}
    assert "is not UTF-8: byte 0xe9 at offset 3" in j.gold_errors["b"]
    assert "has no text" in j.gold_errors["c"]
    assert set(j.pred_errors) == {"a"} and "malformed XML at line 1" in j.pred_errors["a"]
    assert j.extra == ()  # predictions for gold files that failed are not extra


def test_folder_refuses_two_files_for_one_name_and_an_empty_gold_folder(tmp_path):
    _write(tmp_path / "gt" / "a.txt", "x")
    _write(tmp_path / "gt" / "a.xml", "y")
    with pytest.raises(InputError, match=r"has two files for 'a' \(a\.txt and a\.xml\); keep one"):
        read_side(tmp_path / "gt")
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="holds no document"):
        read_side(tmp_path / "empty")
    _write(tmp_path / "bad" / "x.gt.txt", "")
    with pytest.raises(InputError, match="no document could be read; the first error: .*has no text"):
        read_side(tmp_path / "bad")


def test_two_single_documents_pair_whatever_their_names(tmp_path):
    gold = _write(tmp_path / "truth.gt.txt", "abc")
    pred = _write(tmp_path / "engine-output.txt", "abd")
    j = read_pair(gold, pred)
    assert j.ids == ("truth",) and j.preds == ("abd",) and j.missing == ()
    assert j.documents["truth"][1].text == "abd"
