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


SHELL = re.findall(r"```bash\n(ek (?:evaluate|compare) [^\n]*)\n```\n\n```text\n(.*?)```", README.read_text(encoding="utf-8"),
                   flags=re.S)


def test_readme_has_evaluate_and_compare_examples():
    assert [cmd.split()[1] for cmd, _ in SHELL] == ["evaluate", "compare"]


@pytest.mark.parametrize("command, shown", SHELL, ids=[cmd.split()[1] for cmd, _ in SHELL])
def test_readme_shell_examples_print_what_the_readme_shows(command, shown, tmp_path):
    import shlex
    import subprocess
    import sys

    root = README.parent
    argv = [str(root / a) if a.startswith("src/") else a for a in shlex.split(command)[1:]]
    if "--html" in argv:  # the page goes to a temporary folder, not the checkout
        argv[argv.index("--html") + 1] = str(tmp_path / "report.html")
    out = subprocess.run([sys.executable, "-m", "ek", *argv], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout == shown
    if "--html" in argv:
        assert (tmp_path / "report.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
