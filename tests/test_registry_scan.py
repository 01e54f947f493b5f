"""The registry reads ``ek.*`` entry points off ``sys.path`` itself: the same as ``importlib.metadata`` finds.

`ek.registry._read_entry_points` skips importing ``importlib.metadata``
(about 0.1 s of every command's start); these tests lay out distributions
on a temporary path and check it against ``importlib.metadata`` itself.
"""

from __future__ import annotations

import importlib.metadata as md
import subprocess
import sys

import pytest

from ek import registry
from ek.registry import names


def _dist(root, folder, text):
    path = root / folder
    path.mkdir(parents=True)
    (path / "entry_points.txt").write_text(text)


def _by_metadata(prefix="ek."):
    groups = [g for g in md.entry_points().groups if g.startswith(prefix)]
    return {g[len(prefix) :]: {ep.name: ep.value for ep in md.entry_points(group=g)} for g in groups}


def _values(found):
    return {group: {name: ep.value for name, ep in eps.items()} for group, eps in found.items()}


def test_the_scan_finds_what_importlib_metadata_finds(tmp_path, monkeypatch):
    first, second = tmp_path / "first", tmp_path / "second"
    _dist(first, "alpha-1.0.dist-info", "# a comment\n[ek.tryns]\nroot = math:sqrt\n[other]\nx = y:z\n")
    _dist(first, "Beta_Pkg-2.0.dist-info", "[ek.tryns]\nfloor = math : floor [extra1]\n[ek.second]\npi = math:pi\n")
    _dist(second, "beta.pkg-3.0.dist-info", "[ek.tryns]\nshadowed = math:ceil\n")  # the same name, later: unused
    _dist(second, "gamma-1.0.egg-info", "[ek.tryns]\nroot = math:fabs\n")  # a later entry point of a name wins
    _dist(second, "delta-1.0.dist-info", "[console_scripts]\nd = delta:main\n")
    monkeypatch.syspath_prepend(str(second))
    monkeypatch.syspath_prepend(str(first))
    found = registry._read_entry_points("ek.")
    assert _values(found) == _by_metadata()
    assert _values(found)["tryns"] == {"root": "math:fabs", "floor": "math : floor [extra1]"}
    assert found["tryns"]["floor"].load() is __import__("math").floor
    assert found["second"]["pi"].load() == __import__("math").pi


def test_a_line_without_equals_fails_as_importlib_metadata_fails(tmp_path, monkeypatch):
    _dist(tmp_path, "broken-1.0.dist-info", "[ek.tryns]\nno equals sign\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ValueError, match="entry_points.txt line 'no equals sign' has no '='"):
        registry._read_entry_points("ek.")
    with pytest.raises(TypeError):
        _by_metadata()
    monkeypatch.setattr(registry, "_entry_points", {})
    monkeypatch.setattr(registry, "_groups_read", [])
    assert names("tryns") == []  # a broken distribution breaks no lookup


def test_a_zip_or_another_finder_goes_to_importlib_metadata(tmp_path, monkeypatch):
    archive = tmp_path / "plugins.zip"
    archive.write_bytes(b"PK\x05\x06" + b"\x00" * 18)  # an empty zip archive
    monkeypatch.syspath_prepend(str(archive))
    calls = []
    monkeypatch.setattr(registry, "_read_with_metadata", lambda prefix: calls.append(prefix) or {})
    assert registry._read_entry_points("ek.") == {}
    assert calls == ["ek."]
    monkeypatch.syspath_prepend(str(tmp_path))  # no zip now, but a finder of its own

    class Finder:
        @staticmethod
        def find_distributions(*args, **kwargs):
            return iter(())

    monkeypatch.setattr(sys, "path", [p for p in sys.path if p != str(archive)])
    monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, Finder])
    assert registry._read_entry_points("ek.") == {}
    assert calls == ["ek.", "ek."]


def test_a_lookup_does_not_import_importlib_metadata():
    code = (
        "import sys, ek; ek.evaluate([('a', 'b')], metric='cer'); ek.registry.names('metrics'); "
        "print('importlib.metadata' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "False", out.stderr
