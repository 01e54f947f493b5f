"""The suite's own machinery (tests/conftest.py): skips for missing extras, the two-pass run, parallel by default.

Each test runs pytest in a subprocess on a small project in ``tmp_path``
that uses a copy of the real conftest, with one made-up optional module
(``ek_absent_extra``, which is never installed) added to `OPTIONAL`.
"""

from __future__ import annotations

import importlib.util
import os
import pathlib
import re
import subprocess
import sys

import pytest

CONFTEST = pathlib.Path(__file__).with_name("conftest.py")
# One process, whether or not pytest-xdist is here to be told so (a core install has no -n option).
SERIAL = ("-n", "0") if importlib.util.find_spec("xdist") else ()

SUITE = {
    "test_module_skip.py": "import ek_absent_extra\n\ndef test_never_collected():\n    pass\n",
    "test_mixed.py": """
import pytest

def test_passes():
    pass

@pytest.mark.needs("ek_absent_extra")
def test_needs_marker():
    pass

def test_importorskip():
    pytest.importorskip("ek_absent_extra")

def test_raised_deep_inside():
    import ek_absent_extra  # noqa: F401

@pytest.mark.needs("ek-absent-program")
def test_needs_a_program():
    pass

def test_runs_a_missing_program():
    import subprocess
    subprocess.run(["ek-absent-program", "--version"])

@pytest.mark.xfail(reason="known")
def test_expected_failure():
    raise AssertionError
""",
}
SKIPPED = {
    "test_module_skip.py",
    "test_mixed.py::test_needs_marker",
    "test_mixed.py::test_importorskip",
    "test_mixed.py::test_raised_deep_inside",
    "test_mixed.py::test_needs_a_program",
    "test_mixed.py::test_runs_a_missing_program",
}


@pytest.fixture
def project(tmp_path):
    conftest = CONFTEST.read_text(encoding="utf-8")
    (tmp_path / "conftest.py").write_text(
        conftest
        + '\nOPTIONAL["ek_absent_extra"] = "pip install ek-absent-extra"'
        + '\nPROGRAMS["ek-absent-program"] = "apt-get install -y ek-absent-program"\n',
        encoding="utf-8",
    )
    for name, text in SUITE.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


def _pytest(project, *args, all_extras=False):
    # Run as from a shell: not as one of this run's xdist workers, nor with its options or its CI mode.
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_") and k != "EK_TEST_ALL_EXTRAS"}
    if all_extras:
        env["EK_TEST_ALL_EXTRAS"] = "1"
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:deepeval",
            "-p",
            "no:asyncio",
            "-rs",
            *args,
        ],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _summary(done) -> str:
    return done.stdout.strip().splitlines()[-1]


def test_a_missing_extra_skips_naming_its_install_line_and_the_skips_are_recorded(project):
    done = _pytest(project, *SERIAL, "--skipped-to=ci/skipped.txt")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed, 6 skipped, 1 xfailed" in _summary(done), done.stdout
    assert "ek_absent_extra is not installed (pip install ek-absent-extra)" in done.stdout
    # the mark and the FileNotFoundError of the run give the same reason, which -rs counts once for both
    assert re.search(r"SKIPPED \[2\] .*the program ek-absent-program is not installed \(apt-get install", done.stdout)
    assert set((project / "ci" / "skipped.txt").read_text(encoding="utf-8").split()) == SKIPPED


def test_the_skips_are_recorded_from_every_xdist_worker(project):
    pytest.importorskip("xdist")
    done = _pytest(project, "-n", "2", "--skipped-to", "skipped.txt")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 workers" in done.stdout
    assert set((project / "skipped.txt").read_text(encoding="utf-8").split()) == SKIPPED


def test_the_rerun_runs_exactly_the_skipped_tests_and_with_all_extras_they_fail(project):
    # in a folder of its own, as .ci/run keeps it: with "=", so that pytest does not take the path for a test path
    (project / "ci").mkdir()
    listed = "\n".join(sorted(SKIPPED - {"test_module_skip.py"})) + "\n"
    (project / "ci" / "skipped.txt").write_text(listed, encoding="utf-8")
    (project / "test_module_skip.py").unlink()
    done = _pytest(project, *SERIAL, "--rerun-skipped=ci/skipped.txt", all_extras=True)
    assert done.returncode == 1
    # the marks fail the setup (errors), the others the call; test_passes and the xfail do not run again
    assert "3 failed, 2 deselected, 2 errors" in _summary(done), done.stdout
    assert done.stdout.count("EK_TEST_ALL_EXTRAS is set, yet") == 5  # 2 marks, importorskip, import, subprocess


def test_a_module_that_skips_whole_fails_to_collect_with_all_extras(project):
    (project / "skipped.txt").write_text("test_module_skip.py\n", encoding="utf-8")
    done = _pytest(project, *SERIAL, "--rerun-skipped", "skipped.txt", all_extras=True)
    assert done.returncode == 2  # a collection error
    assert "EK_TEST_ALL_EXTRAS is set, yet ek_absent_extra is not installed" in done.stdout
    assert "test_mixed.py" not in done.stdout  # a file the list does not name is not even collected


def test_a_rerun_of_an_empty_list_runs_nothing_and_passes(project):
    (project / "skipped.txt").write_text("", encoding="utf-8")
    done = _pytest(project, "--rerun-skipped", "skipped.txt", all_extras=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_rerun_without_the_list_says_how_to_make_one(project):
    done = _pytest(project, *SERIAL, "--rerun-skipped", "nowhere.txt")
    assert done.returncode == 4
    assert "--rerun-skipped nowhere.txt: No such file or directory; write it with --skipped-to first" in done.stderr


def test_plain_pytest_runs_on_every_core_unless_told_otherwise(project):
    pytest.importorskip("xdist")
    assert re.search(r"created: \d+/\d+ workers|\d+ workers \[", _pytest(project).stdout)
    assert "workers" not in _pytest(project, "-n", "0").stdout


def test_real_data_unpacks_both_archives_byte_for_byte(real_data):
    ding = real_data / "dinglehopper"
    kant = real_data / "ocrd-assets" / "kant_aufklaerung_1784-complex"
    assert (ding / "LICENSE").read_text().lstrip().startswith("Apache License")
    gt = ding / "actevedef_718448162" / "OCR-D-GT-PAGE" / "00000024.page.xml"
    assert gt.stat().st_size == 927146  # the size git records for the published file
    groups = sorted(p.name for p in kant.iterdir() if p.is_dir())
    assert groups[0] == "OCR-D-GT-PAGE" and len(groups) == 9
    assert all(len(list((kant / g).glob("*.xml"))) == 2 for g in groups)
