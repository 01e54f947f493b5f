"""Tests for ek.registry: names, entry points, extras and requirement checks."""

import importlib.metadata as md

import pytest

from ek import registry
from ek.registry import (
    MissingExtraError,
    check_requirements,
    get,
    names,
    register,
    requires_extra,
    resolve,
)


def test_register_as_call_and_decorator():
    obj = object()
    assert register("testns", "direct", obj) is obj

    @register("testns", "decorated")
    def f():
        return 7

    assert get("testns", "direct") is obj
    assert get("testns", "decorated")() == 7
    assert {"direct", "decorated"} <= set(names("testns"))


def test_unknown_name_lists_known_and_suggests():
    register("testns2", "alpha", 1)
    register("testns2", "beta", 2)
    with pytest.raises(KeyError) as info:
        get("testns2", "alpah")
    msg = info.value.args[0]
    assert "'alpha', 'beta'" in msg and "Did you mean 'alpha'" in msg


def test_unknown_metric_lists_registered_metrics():
    import ek  # noqa: F401 - registers the built-ins

    with pytest.raises(KeyError, match="'cer'.*'fields'.*'wer'"):
        get("metrics", "nope")


def test_resolve_name_object_and_default():
    register("testns3", "x", 42)
    assert resolve("testns3", "x") == 42
    marker = object()
    assert resolve("testns3", marker) is marker
    assert resolve("testns3", None, default="x") == 42
    assert resolve("testns3", None) is None


def test_register_rejects_bad_names():
    with pytest.raises(TypeError, match="name must be a non-empty str"):
        register("metrics", "", 1)
    with pytest.raises(TypeError, match="namespace must be a non-empty str"):
        register(None, "x", 1)


def test_requires_extra_hint_and_pass_through():
    @requires_extra("ocr", packages=["definitely_not_installed_pkg_ek"])
    def run():
        return "ran"

    with pytest.raises(MissingExtraError, match=r'pip install "ek\[ocr\]"'):
        run()
    assert issubclass(MissingExtraError, ImportError)

    @requires_extra("core", packages=["json"])
    def ok(x):
        return x + 1

    assert ok(1) == 2 and ok.__name__ == "ok"


def test_check_requirements_reports_without_raising():
    res = check_requirements(extra="ocr")
    assert set(res) >= {"ok", "hint"}
    unknown = check_requirements(extra="nonsense")
    assert unknown["ok"] is False and "known extras" in unknown["hint"]
    assert check_requirements()["ok"] is True


def test_entry_points_are_discovered(monkeypatch, tmp_path):
    dist = tmp_path / "plugin-1.0.dist-info"
    dist.mkdir()
    (dist / "entry_points.txt").write_text("[ek.epns]\nfrom_ep = math:sqrt\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "_entry_points", {})
    monkeypatch.setattr(registry, "_groups_read", [])
    assert "from_ep" in names("epns")
    assert get("epns", "from_ep")(9.0) == 3.0
    assert [ep.name for ep in md.entry_points(group="ek.epns")] == ["from_ep"]  # importlib.metadata agrees


def test_check_requirements_for_an_engine(monkeypatch):
    # The registry defers to ek.ocr's engine check (one copy of it), found by entry point.
    from ek.ocr import _engines

    monkeypatch.setattr(_engines, "is_installed", lambda name: False)
    res = check_requirements(engine="tesseract")
    assert res["ok"] is False and 'pip install "ek[ocr]"' in res["hint"]


def test_check_requirements_engine_via_ocracy():
    pytest.importorskip("ocracy")
    import shutil

    res = check_requirements(engine="tesseract")
    assert res["engine"] == "tesseract"
    assert res["ok"] is (shutil.which("tesseract") is not None)
    assert check_requirements(engine="definitely-not-an-engine")["ok"] is False


def test_a_registered_exception_reserves_the_name_for_its_message():
    register("testns_reserved", "usable", 1)
    register("testns_reserved", "needs_config", ValueError("build it yourself: Thing(rate=...)"))
    for _ in range(2):  # raised afresh every time, traceback not piling up
        with pytest.raises(ValueError, match=r"build it yourself: Thing\(rate=\.\.\.\)") as info:
            get("testns_reserved", "needs_config")
        assert len(list(_frames(info.value.__traceback__))) <= 3
    with pytest.raises(ValueError, match="build it yourself"):
        resolve("testns_reserved", "needs_config")
    assert names("testns_reserved") == ["usable"]  # not offered as a usable name
    with pytest.raises(KeyError, match=r"Registered names: 'usable'\."):
        get("testns_reserved", "other")
    register("testns_reserved", "needs_config", 2)  # registering again replaces it, as for any name
    assert get("testns_reserved", "needs_config") == 2


def _frames(tb):
    while tb is not None:
        yield tb
        tb = tb.tb_next
