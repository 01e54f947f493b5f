"""`ReadOptions`: the reading options declared once, taken as one value or as the keywords that build it."""

from __future__ import annotations

import inspect
import os

import pytest

from ek._files import READ_KEYWORDS, ReadOptions, read_pair, read_side
from ek._reading import MAX_FILE_MB, read_options_of
from ek.cli import Options
from ek.ocr import evaluate_files, evaluate_workspace


def _write(folder, name, text):
    path = os.path.join(folder, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


@pytest.mark.parametrize("function", [read_side, read_pair, evaluate_files, evaluate_workspace])
def test_each_reading_keyword_has_the_default_of_its_field(function):
    params = inspect.signature(function).parameters
    taken = [name for name in READ_KEYWORDS if name in params]
    assert taken, function.__name__
    assert {n: params[n].default for n in taken} == {n: READ_KEYWORDS[n] for n in taken}
    assert params["read"].default is None and params["read"].kind is inspect.Parameter.KEYWORD_ONLY


def test_read_side_and_read_pair_take_all_the_fields():
    for function in (read_side, read_pair):
        assert set(READ_KEYWORDS) <= set(inspect.signature(function).parameters)


def test_one_value_reads_as_the_keywords_do(tmp_path):
    gold = _write(tmp_path, "gold.jsonl", '{"k": "a", "text": "cat", "part": "x"}\n{"k": "b", "text": "dog"}\n')
    pred = _write(tmp_path, "pred.csv", "k,text\na,cut\nb,dog\n")
    by_keywords = read_pair(gold, pred, id_field="k", slice_field="part")
    by_value = read_pair(gold, pred, read=ReadOptions(id_field="k", slice_field="part"))
    assert by_value == by_keywords
    assert by_value.ids == ("a", "b") and by_value.preds == ("cut", "dog") and by_value.slices == ("x", None)
    side = read_side(gold, role="gold", read=ReadOptions(id_field=None))
    assert side.ids == ("1", "2")


def test_both_ways_at_once_are_refused_naming_the_keywords(tmp_path):
    gold = _write(tmp_path, "gold.jsonl", '{"id": "a", "text": "cat"}\n')
    message = (
        "read_pair() got read= and id_field=, pick= too; pass the reading options one way: as keywords, "
        "or as fields of the ReadOptions."
    )
    with pytest.raises(ValueError) as caught:
        read_pair(gold, gold, id_field="k", pick="conf", read=ReadOptions())
    assert str(caught.value) == message
    with pytest.raises(ValueError, match=r"^evaluate_files\(\) got read= and text_level= too"):
        evaluate_files(gold, gold, text_level="line", read=ReadOptions())


def test_read_must_be_a_read_options():
    with pytest.raises(TypeError) as caught:
        read_options_of("read_side", {"read": {"id_field": "k"}})
    assert str(caught.value) == (
        'read_side() read must be an ek.ocr.ReadOptions, got dict; e.g. read=ReadOptions(text_level="line").'
    )


def test_keywords_at_their_defaults_beside_a_value_are_not_a_conflict():
    chosen = ReadOptions(text_level="line")
    assert read_options_of("f", {"read": chosen, "text_level": None, "pick": "index"}) is chosen
    assert read_options_of("f", {"text_level": "word"}) == ReadOptions(text_level="word")


def test_evaluate_files_reads_with_the_value(tmp_path):
    gold = _write(tmp_path, "a.gt.txt", "cat sat")
    pred = _write(tmp_path, "a.txt", "cut sat")
    by_keywords = evaluate_files(gold, pred, profile="dinglehopper")
    by_value = evaluate_files(gold, pred, read=ReadOptions(profile="dinglehopper"))
    assert by_value.aggregate == by_keywords.aggregate == 1 / 7  # one substitution in 7 characters
    assert by_value.detail["profile"] == by_keywords.detail["profile"] == "dinglehopper"


def test_the_profile_of_the_value_checks_the_scoring_settings(tmp_path):
    gold = _write(tmp_path, "a.gt.txt", "cat")
    with pytest.raises(
        ValueError, match=r"^profile='dinglehopper' sets segment='grapheme', but segment='codepoint' was passed"
    ):
        evaluate_files(gold, gold, segment="codepoint", read=ReadOptions(profile="dinglehopper"))


def test_the_command_line_options_give_one_read_options():
    assert Options().reading() == ReadOptions(max_file_mb=MAX_FILE_MB)
    reading = Options(id="", slice="s", text_level="line", pred_format="hocr", max_file_mb=2).reading()
    assert reading == ReadOptions(id_field=None, slice_field="s", text_level="line", pred_format="hocr", max_file_mb=2)
