"""Shared fixtures: every test gets its own ek data folder."""

import pytest


@pytest.fixture(autouse=True)
def _isolated_data_home(tmp_path, monkeypatch):
    # Nothing a test writes may land in the real user folder.
    monkeypatch.setenv("EK_DATA_HOME", str(tmp_path / "ek-data"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))


from hypothesis import settings  # noqa: E402

# CI replays the same examples every run, so a red build is reproducible.
settings.register_profile("ci", derandomize=True, deadline=None)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if __import__("os").environ.get("CI") else "dev")
