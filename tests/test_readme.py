"""Every ```python block in the README runs, in order, in one namespace."""

import pathlib
import re
import shutil

import pytest

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)


def test_readme_has_examples():
    assert len(BLOCKS) >= 5


def test_readme_examples_run():
    namespace: dict = {}
    for i, block in enumerate(BLOCKS):
        if "evaluate_ocr(" in block and shutil.which("tesseract") is None:
            continue  # the OCR example needs the Tesseract program
        try:
            exec(compile(block, f"README block {i}", "exec"), namespace)
        except Exception as exc:  # pragma: no cover - the failure message is the point
            pytest.fail(f"README block {i} raised {type(exc).__name__}: {exc}\n{block}")
