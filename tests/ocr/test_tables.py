"""ek.ocr.tables: recovering a Table from OCR results, built-in rules and per-engine parsers."""

from __future__ import annotations

import pytest

from ek.metrics.tables import Cell, GritsMetric, Table
from ek.ocr.tables import (
    TABLE_PARSERS_NAMESPACE,
    engine_yields_tables,
    has_table_structure,
    resolve_table_parser,
    table_from_ocr,
)
from ek.registry import names, register


class R:
    """An OcrResult-shaped object with only the attributes given."""

    def __init__(self, **attrs):
        self.__dict__.update(attrs)


def texts(table):
    return [[(c.text, c.rowspan, c.colspan) for c in row] for row in table.rows]


GRID = [["a", "b"], ["c", "d"]]
HTML = "<table><tr><td colspan='2'>head</td></tr><tr><td>x</td><td>y</td></tr></table>"


# ---------------------------------------------------------------------------
# Built-in rules


def test_raw_grid_html_and_table():
    assert texts(table_from_ocr(R(raw=GRID))) == [[("a", 1, 1), ("b", 1, 1)], [("c", 1, 1), ("d", 1, 1)]]
    assert texts(table_from_ocr(R(raw=f"prefix {HTML} suffix"))) == [[("head", 1, 2)], [("x", 1, 1), ("y", 1, 1)]]
    t = Table.from_grid(GRID)
    assert table_from_ocr(R(raw=t)) is t


@pytest.mark.parametrize("key", ["table", "cells", "grid", "html"])
def test_raw_mapping_keys(key):
    value = HTML if key == "html" else GRID
    assert has_table_structure(R(raw={key: value, "text": "prose"}))


def test_tables_key_takes_the_first_non_empty_table():
    raw = {"tables": [[], "<table></table>", [["only", "this"]], GRID]}
    assert texts(table_from_ocr(R(raw=raw))) == [[("only", 1, 1), ("this", 1, 1)]]
    assert texts(table_from_ocr(R(raw={"tables": GRID}))) == texts(Table.from_grid(GRID))


def test_meta_and_markdown():
    assert has_table_structure(R(raw=None, meta={"grid": GRID}))
    md = "# Report\n\nSome text.\n\n" + HTML + "\n\nMore."
    assert texts(table_from_ocr(R(raw=None, markdown=md)))[0] == [("head", 1, 2)]
    assert has_table_structure(R(raw={"text": []}, meta={"markdown": md}))


def test_numbers_and_spans_in_a_grid():
    table = table_from_ocr(R(raw=[["stock", None], ["pen", 3], ["ink", 2.5]]))
    assert texts(table) == [[("stock", 1, 2)], [("pen", 1, 1), ("3", 1, 1)], [("ink", 1, 1), ("2.5", 1, 1)]]


@pytest.mark.parametrize(
    "raw",
    [
        None,
        "",
        "just prose",
        {"text": "just prose"},
        [],
        [[]],
        ["a", "b"],
        [["a", object()]],
        {"tables": []},
        {"cells": [{"row": 0, "col": 0, "text": "a"}]},
        "<table></table>",
        [[None, "a"]],  # a None no neighbour spans: malformed, so no table
    ],
)
def test_no_table_gives_none(raw):
    result = R(raw=raw)
    assert table_from_ocr(result) is None
    assert has_table_structure(result) is False


def test_object_without_any_table_attribute():
    assert table_from_ocr(object()) is None


def test_markdown_pipe_table_is_not_guessed_without_a_parser():
    assert table_from_ocr(R(raw=None, markdown="| a | b |\n|---|---|\n| 1 | 2 |")) is None


def test_recovered_table_scores_perfectly_against_its_gold():
    pred = table_from_ocr(R(raw={"html": HTML}))
    gold = Table(((Cell("head", colspan=2),), (Cell("x"), Cell("y"))))
    assert GritsMetric()(pred, gold).value == pytest.approx(1.0)


# ---------------------------------------------------------------------------
# Injected and registered parsers


def test_callable_parser_receives_raw():
    seen = []

    def parser(raw):
        seen.append(raw)
        return raw["rows"]

    table = table_from_ocr(R(raw={"rows": GRID}), parser=parser)
    assert seen == [{"rows": GRID}] and texts(table)[0][0] == ("a", 1, 1)


def test_callable_parser_receives_the_result_when_raw_is_missing():
    result = R(text="x")
    assert table_from_ocr(result, parser=lambda obj: [[obj.text]]).rows[0][0].text == "x"
    result = R(raw=None, markdown="<table><tr><td>m</td></tr></table>")
    assert table_from_ocr(result, parser=lambda obj: obj.markdown).rows[0][0].text == "m"


def test_parser_returning_none_or_empty_gives_none():
    assert table_from_ocr(R(raw={}), parser=lambda raw: None) is None
    assert table_from_ocr(R(raw={}), parser=lambda raw: []) is None


def test_parser_returning_junk_is_a_type_error():
    def bad_parser(raw):
        return 42

    with pytest.raises(TypeError, match=r"table parser 'bad_parser' returned int .*Make the parser return"):
        table_from_ocr(R(raw={}), parser=bad_parser)


def test_registered_parser_by_name():
    @register(TABLE_PARSERS_NAMESPACE, "ek-test-cells")
    def _cells(raw):
        return raw.get("cells")

    assert table_from_ocr(R(raw={"cells": [["x"]]}), parser="ek-test-cells").rows[0][0].text == "x"
    assert resolve_table_parser("ek_test_cells") is _cells


def test_unknown_parser_name_lists_the_registered_ones():
    with pytest.raises(KeyError, match=r"'table_parsers' strategy is registered as 'textract'.*aws-textract"):
        table_from_ocr(R(raw={}), parser="textract")


def test_resolve_table_parser_passes_callables_and_rejects_others():
    fn = lambda raw: None  # noqa: E731
    assert resolve_table_parser(fn) is fn
    with pytest.raises(TypeError, match="registered name or a callable .* got int.*parser=None"):
        resolve_table_parser(3)


def test_built_in_parsers_are_registered():
    assert {
        "aws-textract",
        "azure-document-intelligence",
        "paddleocr",
        "paddleocr-ppstructure",
        "mistral-ocr",
        "markdown",
    } <= set(names(TABLE_PARSERS_NAMESPACE))


def _textract_response():
    """An analyze_document response: a 3x2 table whose first row is one merged cell."""
    words = {
        f"w{i}": {"Id": f"w{i}", "BlockType": "WORD", "Text": t}
        for i, t in enumerate(["Quarterly", "sales", "Q1", "10", "Q2", "12"])
    }
    cells = [
        ("c1", 1, 1, ["w0"]),
        ("c2", 1, 2, ["w1"]),
        ("c3", 2, 1, ["w2"]),
        ("c4", 2, 2, ["w3"]),
        ("c5", 3, 1, ["w4"]),
        ("c6", 3, 2, ["w5"]),
    ]
    blocks = [{"Id": "p", "BlockType": "PAGE"}, *words.values()]
    for cid, r, c, kids in cells:
        blocks.append(
            {
                "Id": cid,
                "BlockType": "CELL",
                "RowIndex": r,
                "ColumnIndex": c,
                "RowSpan": 1,
                "ColumnSpan": 1,
                "Relationships": [{"Type": "CHILD", "Ids": kids}],
            }
        )
    blocks.append(
        {
            "Id": "m1",
            "BlockType": "MERGED_CELL",
            "RowIndex": 1,
            "ColumnIndex": 1,
            "RowSpan": 1,
            "ColumnSpan": 2,
            "Relationships": [{"Type": "CHILD", "Ids": ["c1", "c2"]}],
        }
    )
    blocks.append(
        {
            "Id": "t",
            "BlockType": "TABLE",
            "Relationships": [{"Type": "CHILD", "Ids": [c[0] for c in cells]}, {"Type": "MERGED_CELL", "Ids": ["m1"]}],
        }
    )
    return {"Blocks": blocks}


def test_textract_parser_with_merged_cell():
    raw = _textract_response()
    table = table_from_ocr(R(raw=raw), parser="aws-textract")
    assert texts(table) == [[("Quarterly sales", 1, 2)], [("Q1", 1, 1), ("10", 1, 1)], [("Q2", 1, 1), ("12", 1, 1)]]
    assert table_from_ocr(R(raw=raw)) is None  # the built-in rules do not read Textract blocks


def test_textract_parser_without_table():
    assert (
        table_from_ocr(R(raw={"Blocks": [{"Id": "w", "BlockType": "WORD", "Text": "hi"}]}), parser="aws_textract")
        is None
    )


def test_row_covered_only_by_spans_keeps_its_place():
    raw = {
        "tables": [
            {
                "cells": [
                    {"rowIndex": 0, "columnIndex": 0, "rowSpan": 2, "content": "tall"},
                    {"rowIndex": 0, "columnIndex": 1, "rowSpan": 2, "content": "also tall"},
                    {"rowIndex": 2, "columnIndex": 0, "content": "a"},
                    {"rowIndex": 2, "columnIndex": 1, "content": "b"},
                ]
            }
        ]
    }
    table = table_from_ocr(R(raw=raw), parser="azure-document-intelligence")
    assert texts(table) == [[("tall", 2, 1), ("also tall", 2, 1)], [], [("a", 1, 1), ("b", 1, 1)]]
    assert len(table.as_grid()) == 3


def test_azure_parser_dict_and_object_forms():
    as_dict = {
        "tables": [
            {
                "rowCount": 2,
                "columnCount": 2,
                "cells": [
                    {"rowIndex": 0, "columnIndex": 0, "columnSpan": 2, "content": "Total"},
                    {"rowIndex": 1, "columnIndex": 0, "content": "a & b"},
                    {"rowIndex": 1, "columnIndex": 1, "content": "<5"},
                ],
            }
        ]
    }
    expected = [[("Total", 1, 2)], [("a & b", 1, 1), ("<5", 1, 1)]]
    assert texts(table_from_ocr(R(raw=as_dict), parser="azure-document-intelligence")) == expected

    def obj(**kw):
        return R(**kw)

    as_sdk = obj(
        tables=[
            obj(
                cells=[
                    obj(row_index=0, column_index=0, row_span=None, column_span=2, content="Total"),
                    obj(row_index=1, column_index=0, row_span=None, column_span=None, content="a & b"),
                    obj(row_index=1, column_index=1, row_span=1, column_span=1, content="<5"),
                ]
            )
        ]
    )
    assert texts(table_from_ocr(R(raw=as_sdk), parser="azure_document_intelligence")) == expected
    assert table_from_ocr(R(raw={"tables": []}), parser="azure-document-intelligence") is None


def test_paddle_parser_finds_pred_html_and_v2_regions():
    v3 = [{"table_res_list": [{"pred_html": HTML}]}]
    v2 = [{"type": "text", "res": []}, {"type": "table", "res": {"html": HTML}}]
    for raw in (v3, v2):
        assert texts(table_from_ocr(R(raw=raw), parser="paddleocr-ppstructure"))[0] == [("head", 1, 2)]
    page = R(markdown={"markdown_texts": "intro\n" + HTML})
    assert has_table_structure(R(raw=[page]), parser="paddleocr")
    assert not has_table_structure(R(raw=[{"rec_texts": ["no", "table"]}]), parser="paddleocr")


def test_markdown_parser_reads_pipe_tables():
    md = "Intro\n\n| Item | Qty |\n| :--- | ---: |\n| pen \\| ink | 2 |\n| cap |\n\nAfter."
    table = table_from_ocr(R(raw=None, markdown=md, text=md), parser="markdown")
    assert texts(table) == [
        [("Item", 1, 1), ("Qty", 1, 1)],
        [("pen | ink", 1, 1), ("2", 1, 1)],
        [("cap", 1, 1), ("", 1, 1)],
    ]


def test_markdown_parser_on_engine_payloads():
    md = "| a | b |\n|---|---|\n| 1 | 2 |"
    mistral = R(pages=[R(markdown="page one"), R(markdown=md)])
    assert texts(table_from_ocr(R(raw=mistral), parser="mistral-ocr"))[1] == [("1", 1, 1), ("2", 1, 1)]
    claude = R(content=[R(type="text", text=md)])
    assert has_table_structure(R(raw=claude), parser="markdown")
    openai = R(choices=[R(message=R(content=md))])
    assert has_table_structure(R(raw=openai), parser="markdown")
    assert not has_table_structure(R(raw="no table | here"), parser="markdown")


# ---------------------------------------------------------------------------
# Profiles


@pytest.mark.parametrize(
    "engine, expected",
    [
        ("aws-textract", True),
        ("azure_document_intelligence", True),
        ("paddleocr", True),
        ("google-vision", False),
        ("tesseract", False),
        ("unknown-engine", False),
    ],
)
def test_engine_yields_tables(engine, expected):
    assert engine_yields_tables(engine) is expected


def test_hostile_engine_spans_and_indices_are_bounded():
    raw = {
        "tables": [
            {
                "cells": [
                    {"rowIndex": 0, "columnIndex": 0, "rowSpan": 10**9, "columnSpan": 10**23, "content": "huge"},
                    {"rowIndex": 10**9, "columnIndex": 0, "content": "far"},
                ]
            }
        ]
    }
    table = table_from_ocr(R(raw=raw), parser="azure-document-intelligence")
    # spans clamped to HTML's caps; the rows covered by the span keep their <tr>
    assert table.rows[0] == (Cell("huge", 65534, 1000),)
    assert len(table.rows) == 65534 + 1 and table.rows[-1] == (Cell("far"),)
    with pytest.raises(ValueError, match="max_cells=10000"):
        GritsMetric()(table, table)


def test_rows_no_cell_reaches_are_skipped():
    raw = {
        "tables": [
            {
                "cells": [
                    {"rowIndex": 0, "columnIndex": 0, "content": "a"},
                    {"rowIndex": 10**12, "columnIndex": 0, "content": "b"},
                ]
            }
        ]
    }
    table = table_from_ocr(R(raw=raw), parser="azure-document-intelligence")
    assert texts(table) == [[("a", 1, 1)], [("b", 1, 1)]]
