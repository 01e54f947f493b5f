"""The fixtures of the demo tests: `fake_engines` (tests/demo/_fakes.py)."""

from tests.demo._fakes import fake_engines  # noqa: F401  (a fixture: imported here, every test here gets it)
