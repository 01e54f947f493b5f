"""Tests for ek.stores: data folders, the atomic JSON store, the mall and the caches."""

from __future__ import annotations

import doctest
import json
import math
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
import types
from collections.abc import Mapping, MutableMapping
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ek.stores
from ek.stores import KINDS, Mall, app_folder, data_dir, json_store, mall, persistent_cache

RULES = r"a key must be a non-empty str"


@pytest.fixture
def store(tmp_path):
    return json_store("gold", rootdir=tmp_path)


def _visible(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


# --------------------------------------------------------------------------- module


def test_module_docstring_examples_pass(tmp_path, monkeypatch):
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the examples' mkdtemp() folders go with the test's
    result = doctest.testmod(ek.stores, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 8 and result.failed == 0


def test_kinds_are_the_documented_six():
    assert KINDS == ("gold", "results", "calibrators", "corrections", "runs", "baselines")


def test_public_names():
    assert set(ek.stores.__all__) == {
        "KINDS",
        "Mall",
        "app_folder",
        "cache_this",
        "data_dir",
        "json_store",
        "mall",
        "persistent_cache",
    }
    assert "cache_this" in dir(ek.stores)


def test_import_does_not_load_dol_and_cache_this_loads_it_on_demand():
    code = textwrap.dedent("""
        import sys, ek.stores
        assert "dol" not in sys.modules, "dol imported eagerly"
        assert "config2py" not in sys.modules, "config2py imported eagerly"
        ct = ek.stores.cache_this
        import dol
        assert ct is dol.cache_this
        print("ok")
    """)
    out = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_unknown_module_attribute_raises_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        ek.stores.nope


def test_cache_this_persists_a_property_in_a_json_store(tmp_path):
    cache_this = ek.stores.cache_this
    calls = []

    class Model:
        @cache_this(cache=lambda self: json_store("runs", rootdir=tmp_path), key="model-size")
        def size(self):
            calls.append(1)
            return {"params": 7}

    assert Model().size == {"params": 7}
    assert Model().size == {"params": 7}  # a new instance reads the persisted value
    assert len(calls) == 1
    assert json.loads((tmp_path / "runs" / "model-size.json").read_text()) == {"params": 7}


# ------------------------------------------------------------------- app_folder / data_dir


def test_app_folder_uses_ek_data_home(monkeypatch, tmp_path):
    monkeypatch.setenv("EK_DATA_HOME", str(tmp_path / "custom"))
    assert app_folder() == tmp_path / "custom"


def test_app_folder_falls_back_to_xdg_data_home(monkeypatch, tmp_path):
    monkeypatch.delenv("EK_DATA_HOME", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    if os.name != "nt":
        assert app_folder() == tmp_path / "xdg" / "ek"


def test_app_folder_default_is_home_local_share(monkeypatch, tmp_path):
    monkeypatch.delenv("EK_DATA_HOME", raising=False)
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    if os.name != "nt":
        assert app_folder() == tmp_path / ".local" / "share" / "ek"


def test_app_folder_reads_environment_on_each_call(monkeypatch, tmp_path):
    monkeypatch.setenv("EK_DATA_HOME", str(tmp_path / "a"))
    first = app_folder()
    monkeypatch.setenv("EK_DATA_HOME", str(tmp_path / "b"))
    assert (first, app_folder()) == (tmp_path / "a", tmp_path / "b")


def test_app_folder_does_not_create_the_folder(monkeypatch, tmp_path):
    monkeypatch.setenv("EK_DATA_HOME", str(tmp_path / "absent"))
    app_folder()
    assert not (tmp_path / "absent").exists()


@pytest.mark.parametrize(
    ("environ", "windows", "expected"),
    [
        ({"EK_DATA_HOME": "/data/ek-x", "XDG_DATA_HOME": "/xdg"}, False, "/data/ek-x"),
        ({"EK_DATA_HOME": "", "XDG_DATA_HOME": "/xdg"}, False, "/xdg/ek"),  # empty = unset
        ({"XDG_DATA_HOME": "relative/dir"}, False, "~/.local/share/ek"),  # XDG: relative ignored
        ({}, False, "~/.local/share/ek"),
        ({"LOCALAPPDATA": "/appdata/local", "XDG_DATA_HOME": "/xdg"}, True, "/appdata/local/ek"),
        ({}, True, "~/AppData/Local/ek"),
    ],
)
def test_default_root_rules(environ, windows, expected):
    got = ek.stores._default_root(environ, windows=windows)
    assert got == Path(expected).expanduser()


def test_data_dir_is_kind_under_rootdir(tmp_path):
    assert data_dir("gold", rootdir=tmp_path) == tmp_path / "gold"
    assert data_dir("gold", rootdir=str(tmp_path)) == tmp_path / "gold"
    assert not (tmp_path / "gold").exists()


def test_data_dir_defaults_to_ek_data_home(monkeypatch, tmp_path):
    monkeypatch.setenv("EK_DATA_HOME", str(tmp_path))
    assert data_dir("runs") == tmp_path / "runs"


def test_data_dir_relative_rootdir_is_made_absolute(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    assert data_dir("gold", rootdir="rel") == tmp_path / "rel" / "gold"


@pytest.mark.parametrize("kind", ["../x", "..", "a/b", ""])
def test_data_dir_refuses_unsafe_kind(kind, tmp_path):
    with pytest.raises(ValueError, match=r"store kind .* is refused.*a kind must be"):
        data_dir(kind, rootdir=tmp_path)


def test_data_dir_refuses_non_str_kind(tmp_path):
    with pytest.raises(TypeError, match=r"store kind must be a str, got int"):
        data_dir(3, rootdir=tmp_path)


# ------------------------------------------------------------------------ json_store


def test_spec_example(tmp_path):
    s = json_store("gold", rootdir=tmp_path)
    s["doc-001"] = {"reference_text": "hello world"}
    assert s["doc-001"]["reference_text"] == "hello world"
    assert list(s) == ["doc-001"]


def test_store_is_a_mutable_mapping_backed_by_json_files(store, tmp_path):
    assert isinstance(store, MutableMapping)
    store["b"] = [1, 2.5, "x", None, True]
    store["a"] = {"n": 1}
    assert list(store) == ["a", "b"]  # sorted
    assert len(store) == 2 and "a" in store and "z" not in store
    assert json.loads((tmp_path / "gold" / "b.json").read_text()) == [1, 2.5, "x", None, True]
    store["a"] = {"n": 2}  # overwrite
    assert store["a"] == {"n": 2}
    del store["a"]
    assert list(store) == ["b"] and not (tmp_path / "gold" / "a.json").exists()
    assert dict(store.items()) == {"b": [1, 2.5, "x", None, True]}


def test_values_come_back_in_json_form(store):
    store["t"] = {"pair": (1, 2), "n": {"1": "one"}}
    assert store["t"] == {"pair": [1, 2], "n": {"1": "one"}}


@pytest.mark.parametrize(
    "value,shown",
    [
        ({1: "a", "1": "b"}, r"int key 1, which would read back as the string \"1\""),
        ({"x": [{True: 1, "true": 2}]}, r"value\['x'\]\[0\] has the bool key True.*\"true\""),
        ({None: 1, "null": 2}, r"NoneType key None.*\"null\""),
        ({(1, 2): "pair"}, r"tuple key \(1, 2\), which JSON cannot hold as a key"),
    ],
)
def test_keys_that_would_merge_are_refused_and_the_old_value_kept(store, tmp_path, value, shown):
    # json.dumps turns 1, True and None keys into "1", "true", "null": a value would read back
    # with two keys merged into one. The store refuses it before writing anything.
    store["k"] = {"old": 1}
    with pytest.raises(TypeError, match=r"key 'k' cannot be written as JSON: keys must be str.*" + shown):
        store["k"] = value
    assert store["k"] == {"old": 1}
    assert _visible(tmp_path / "gold") == ["k.json"]


def test_non_finite_floats_are_strict_json_and_read_back_as_floats(store, tmp_path):
    store["f"] = {"nan": math.nan, "up": [math.inf, -math.inf], "ok": 1.5, "pair": (math.inf, 2)}
    text = (tmp_path / "gold" / "f.json").read_text()
    strict = json.loads(text, parse_constant=lambda c: pytest.fail(f"bare {c} in {text}"))
    assert strict["up"] == [{"$float": "Infinity"}, {"$float": "-Infinity"}]
    back = store["f"]
    assert math.isnan(back["nan"]) and back["up"] == [math.inf, -math.inf]
    assert back["ok"] == 1.5 and back["pair"] == [math.inf, 2]


def test_the_float_tag_is_reserved_and_a_forged_tag_is_named(store, tmp_path):
    with pytest.raises(ValueError, match=r"only key is '\$float', which ek stores reserve"):
        store["k"] = {"a": {"$float": "NaN"}}
    assert "k" not in store
    (tmp_path / "gold").mkdir(exist_ok=True)
    (tmp_path / "gold" / "bad.json").write_text('{"x": {"$float": "lots"}}')
    with pytest.raises(ValueError, match=r"bad\.json holds \{'\$float': 'lots'\}, which names no float"):
        store["bad"]


_KILLED_WRITER = """
import os, signal, sys
from ek.stores import json_store
store = json_store("results", rootdir=sys.argv[1])
store["done"] = 1
os.replace = lambda *a, **k: os.kill(os.getpid(), signal.SIGKILL)  # die between write and rename
store["half"] = {"big": list(range(1000))}
"""


def test_temp_files_of_a_killed_writer_are_removed_by_the_next_write(tmp_path):
    proc = subprocess.run([sys.executable, "-c", _KILLED_WRITER, str(tmp_path)], timeout=60)
    assert proc.returncode == -signal.SIGKILL
    folder = tmp_path / "results"
    assert [p.name for p in folder.iterdir() if p.name.endswith(".tmp")]  # the writer left one
    json_store("results", rootdir=tmp_path)["next"] = 2
    assert sorted(p.name for p in folder.iterdir()) == ["done.json", "next.json"]


def test_unicode_is_stored_readably_and_lone_surrogates_round_trip(store, tmp_path):
    store["u"] = "Grüße, 東京"
    assert "Grüße, 東京" in (tmp_path / "gold" / "u.json").read_text(encoding="utf-8")
    store["s"] = "bad \ud800 half"
    assert store["s"] == "bad \ud800 half"
    assert (tmp_path / "gold" / "s.json").read_bytes().decode("ascii")  # escaped, valid file


def test_store_persists_across_store_objects(tmp_path):
    json_store("results", rootdir=tmp_path)["run-1"] = {"cer": 0.25}
    assert json_store("results", rootdir=tmp_path)["run-1"] == {"cer": 0.25}


def test_missing_folder_reads_as_empty_and_is_created_on_first_write(tmp_path):
    s = json_store("corrections", rootdir=tmp_path / "new")
    assert list(s) == [] and len(s) == 0 and "x" not in s
    assert not (tmp_path / "new").exists()
    s["x"] = 1
    assert (tmp_path / "new" / "corrections" / "x.json").is_file()


def test_reading_a_missing_key_raises_key_error(store):
    with pytest.raises(KeyError, match="nope"):
        store["nope"]


def test_deleting_a_missing_key_raises_key_error(store):
    store["here"] = 1
    with pytest.raises(KeyError, match="gone"):
        del store["gone"]
    assert list(store) == ["here"]


def test_ek_data_home_redirects_stores(monkeypatch, tmp_path):
    monkeypatch.setenv("EK_DATA_HOME", str(tmp_path / "root"))
    json_store("gold")["doc"] = {"v": 1}
    assert (tmp_path / "root" / "gold" / "doc.json").is_file()
    assert mall()["gold", "doc"] == {"v": 1}


def test_iteration_lists_only_visible_json_files(store, tmp_path):
    store["real"] = 1
    folder = tmp_path / "gold"
    (folder / ".real.0123abcd.tmp").write_text('{"half')  # left by a killed writer
    (folder / "notes.txt").write_text("not a value")
    (folder / ".hidden.json").write_text("1")
    (folder / "dir.json").mkdir()
    assert list(store) == ["real"] and len(store) == 1
    assert store["real"] == 1


def test_repr_names_kind_and_root(store, tmp_path):
    assert repr(store) == f"json_store('gold', rootdir={str(tmp_path)!r})"


@pytest.mark.parametrize(
    ("key", "reason"),
    [
        ("../x", "path separator"),
        ("..", r"starts with '\.'"),
        (".", r"starts with '\.'"),
        ("/etc/passwd", "path separator"),
        ("a/b", "path separator"),
        ("a\\b", "path separator"),
        ("C:\\x", "path separator"),
        ("a\x00b", "NUL"),
        ("", "empty"),
        (".hidden", r"starts with '\.'"),
        ("x" * 241, "241 UTF-8 bytes"),
        ("\udc80", "lone surrogate"),
    ],
)
def test_unsafe_keys_are_refused_for_every_operation(store, tmp_path, key, reason):
    pattern = rf"is refused because .*{reason}.*{RULES}"
    with pytest.raises(ValueError, match=pattern):
        store[key] = 1
    with pytest.raises(ValueError, match=pattern):
        store[key]
    with pytest.raises(ValueError, match=pattern):
        del store[key]
    assert key not in store
    assert _visible(tmp_path) == []  # nothing written anywhere, not even the folder


@pytest.mark.parametrize("key", [5, None, b"doc", ("gold", "x"), 1.5])
def test_non_str_keys_are_refused_with_type_error(store, key):
    with pytest.raises(TypeError, match=r"store key must be a str, got .*A key is a non-empty"):
        store[key] = 1
    with pytest.raises(TypeError, match="must be a str"):
        store[key]
    assert key not in store


def test_key_of_240_bytes_is_accepted(store):
    key = "é" * 120  # 240 UTF-8 bytes
    store[key] = 1
    assert list(store) == [key]


def test_non_serializable_value_names_key_and_type_and_writes_nothing(store, tmp_path):
    store["doc"] = {"ok": 1}
    with pytest.raises(TypeError, match=r"key 'doc' contains a value of type set .*Nothing was"):
        store["doc"] = {"bad": {1, 2}}
    with pytest.raises(TypeError, match=r"key 'new' contains a value of type object"):
        store["new"] = [object()]
    assert store["doc"] == {"ok": 1} and list(store) == ["doc"]
    assert _visible(tmp_path / "gold") == ["doc.json"]  # no temp file left either


def test_non_str_dict_keys_in_value_are_refused(store):
    with pytest.raises(TypeError, match=r"key 'k' cannot be written as JSON: keys must be str"):
        store["k"] = {(1, 2): "tuple key"}
    assert "k" not in store


def test_cyclic_value_is_refused(store):
    loop = []
    loop.append(loop)
    with pytest.raises(ValueError, match=r"key 'k' cannot be written.*Circular.*without cycles"):
        store["k"] = loop
    assert "k" not in store


@pytest.mark.parametrize("opener, closer", [("[", "]"), ('{"a": ', "}")])
def test_json_nested_100000_deep_is_a_value_error_naming_the_file(store, tmp_path, opener, closer):
    store["good"] = [1]
    deep = tmp_path / "gold" / "deep.json"
    deep.write_text(opener * 100_000 + "1" + closer * 100_000)
    with pytest.raises(
        ValueError,
        match=rf"^{re.escape(str(deep))} nests JSON arrays or objects too deeply to be "
        r"read .*key 'deep' of the 'gold' store cannot be read.*delete it",
    ):
        store["deep"]
    assert store.get("good") == [1] and list(store) == ["deep", "good"]


def test_a_value_nested_too_deeply_for_json_is_refused_and_nothing_is_written(store):
    value: list = []
    for _ in range(100_000):
        value = [value]
    with pytest.raises(ValueError, match=r"key 'k' nests lists or mappings too deeply for JSON.*Nothing was written"):
        store["k"] = value
    assert "k" not in store


def test_corrupt_file_names_path_and_fix_while_others_stay_readable(store, tmp_path):
    store["good"] = {"v": 1}
    bad = tmp_path / "gold" / "bad.json"
    bad.write_text('{"v": 1, "trunc')
    with pytest.raises(
        ValueError,
        match=rf"{bad}.*not valid UTF-8 JSON.*Repair the file, or "
        r"delete it",
    ):
        store["bad"]
    (tmp_path / "gold" / "latin.json").write_bytes(b'"\xff"')
    with pytest.raises(ValueError, match=r"latin\.json is not valid UTF-8 JSON"):
        store["latin"]
    assert store["good"] == {"v": 1}
    assert list(store) == ["bad", "good", "latin"] and "bad" in store
    del store["bad"]  # the suggested fix works
    store["latin"] = "repaired"
    assert store["latin"] == "repaired"


# ------------------------------------------------------------------------- atomicity


def _fail(*args, **kwargs):
    raise OSError("simulated crash")


def test_crash_before_rename_keeps_previous_value_and_no_stray_key(store, tmp_path, monkeypatch):
    store["doc"] = {"version": 1}
    monkeypatch.setattr(ek.stores.os, "replace", _fail)
    with pytest.raises(OSError, match="simulated crash"):
        store["doc"] = {"version": 2}
    with pytest.raises(OSError, match="simulated crash"):
        store["other"] = {"version": 1}
    monkeypatch.undo()
    assert store["doc"] == {"version": 1}
    assert list(store) == ["doc"]
    assert _visible(tmp_path / "gold") == ["doc.json"]


def test_crash_during_fsync_keeps_previous_value(store, tmp_path, monkeypatch):
    store["doc"] = "old"
    monkeypatch.setattr(ek.stores.os, "fsync", _fail)
    with pytest.raises(OSError, match="simulated crash"):
        store["doc"] = "new"
    monkeypatch.undo()
    assert store["doc"] == "old"
    assert _visible(tmp_path / "gold") == ["doc.json"]


def test_write_goes_through_hidden_temp_file_in_same_folder(store, tmp_path, monkeypatch):
    seen = []
    real_replace = os.replace

    def spy(src, dst):
        seen.append((Path(src), Path(dst), Path(src).read_text()))
        real_replace(src, dst)

    monkeypatch.setattr(ek.stores.os, "replace", spy)
    store["doc"] = [1, 2]
    ((src, dst, text),) = seen
    assert src.parent == dst.parent == tmp_path / "gold"
    assert src.name.startswith(".doc.") and src.name.endswith(".tmp")
    assert dst.name == "doc.json" and json.loads(text) == [1, 2]


_WRITER = """
import sys, time, pathlib
from ek.stores import json_store
root, worker, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
pathlib.Path(root, f"ready-{worker}").touch()
while not pathlib.Path(root, "go").exists():
    time.sleep(0.001)
store = json_store("results", rootdir=root)
for i in range(n):
    store[f"w{worker}-{i}"] = {"worker": worker, "i": i, "pad": "x" * (i % 50)}
    store["shared"] = {"worker": worker, "i": i}
"""


def test_concurrent_processes_writing_one_store_lose_nothing(tmp_path):
    workers, n = 3, 200
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(tmp_path), str(w), str(n)], stderr=subprocess.PIPE, text=True
        )
        for w in range(workers)
    ]
    try:
        deadline = 600
        while not all((tmp_path / f"ready-{w}").exists() for w in range(workers)):
            assert all(p.poll() is None for p in procs), [p.stderr.read() for p in procs]
            deadline -= 1
            assert deadline > 0, "writers did not start"
            time.sleep(0.1)
        (tmp_path / "go").touch()  # all writers start together
        for p in procs:
            assert p.wait(timeout=120) == 0, p.stderr.read()
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    store = json_store("results", rootdir=tmp_path)
    expected = {f"w{w}-{i}": {"worker": w, "i": i, "pad": "x" * (i % 50)} for w in range(workers) for i in range(n)}
    got = dict(store)
    shared = got.pop("shared")
    assert got == expected
    assert shared in [{"worker": w, "i": n - 1} for w in range(workers)]
    assert not [p for p in (tmp_path / "results").iterdir() if p.name.endswith(".tmp")]


# ----------------------------------------------------------------------------- Mall


def test_mall_maps_every_kind_to_its_store(tmp_path):
    m = mall(rootdir=tmp_path)
    assert isinstance(m, Mall) and isinstance(m, Mapping)
    assert list(m) == list(KINDS) and len(m) == 6
    m["calibrators"]["platt"] = {"a": 1.0, "b": 0.0}
    assert (tmp_path / "calibrators" / "platt.json").is_file()
    assert json_store("calibrators", rootdir=tmp_path)["platt"] == {"a": 1.0, "b": 0.0}


def test_mall_tuple_access_reads_one_value(tmp_path):
    m = Mall(rootdir=tmp_path)
    m["gold"]["doc-001"] = {"text": "hi"}
    assert m["gold", "doc-001"] == {"text": "hi"}
    assert ("gold", "doc-001") in m and ("gold", "missing") not in m
    assert m.get(("gold", "missing")) is None
    with pytest.raises(KeyError, match="missing"):
        m["gold", "missing"]


def test_mall_unknown_kind_lists_kinds_and_suggests(tmp_path):
    m = Mall(rootdir=tmp_path)
    with pytest.raises(
        KeyError,
        match=r"unknown kind 'glod'; this mall holds gold, results.*"
        r"Did you mean 'gold'\?",
    ):
        m["glod"]
    with pytest.raises(KeyError, match=r"unknown kind 'glod'"):
        m["glod", "doc"]
    with pytest.raises(KeyError, match=r"unknown kind \['gold'\]"):
        m[["gold"]]
    assert "glod" not in m


def test_mall_tuple_of_wrong_length_is_refused(tmp_path):
    with pytest.raises(KeyError, match=r"takes \(kind, key\), got 3 items"):
        Mall(rootdir=tmp_path)["gold", "a", "b"]


def test_mall_is_read_only(tmp_path):
    m = Mall(rootdir=tmp_path)
    with pytest.raises(TypeError):
        m["gold"] = {}  # type: ignore[index]


def test_mall_with_custom_kinds(tmp_path):
    m = Mall(kinds=("gold", "ocr_pages"), rootdir=tmp_path)
    assert list(m) == ["gold", "ocr_pages"]
    assert repr(m) == "Mall(kinds=('gold', 'ocr_pages'))"
    with pytest.raises(ValueError, match=r"store kind '\.\./up' is refused"):
        Mall(kinds=("../up",), rootdir=tmp_path)


# ------------------------------------------------------------------ persistent_cache


def test_persistent_cache_spec_example(tmp_path):
    calls = []

    @persistent_cache(kind="runs", key="answer", rootdir=tmp_path)
    def compute():
        calls.append(1)
        return {"answer": 42}

    assert (compute(), compute(), len(calls)) == ({"answer": 42}, {"answer": 42}, 1)
    assert json.loads((tmp_path / "runs" / "cache.answer.json").read_text()) == {"answer": 42}


def test_persistent_cache_survives_a_new_session(tmp_path):
    calls = []

    def make():
        @persistent_cache(key="expensive", rootdir=tmp_path)
        def expensive():
            calls.append(1)
            return [1, 2, 3]

        return expensive

    first, second = make(), make()  # two function objects, as in two sessions
    assert first is not second
    assert first() == second() == [1, 2, 3]
    assert len(calls) == 1


def test_persistent_cache_bare_decorator_keys_by_qualified_name(tmp_path, monkeypatch):
    monkeypatch.setenv("EK_DATA_HOME", str(tmp_path))

    @persistent_cache
    def config():
        """Docs stay."""
        return {"x": 1}

    assert config() == {"x": 1}
    assert config.__name__ == "config" and config.__doc__ == "Docs stay."
    assert list(json_store("runs")) == [f"cache.{__name__}.{config.__qualname__}"]
    assert "<locals>" in config.__qualname__


def test_persistent_cache_default_keys_of_same_named_functions_differ(tmp_path, monkeypatch):
    # Two modules each define report(); the default key must tell them apart.
    monkeypatch.setenv("EK_DATA_HOME", str(tmp_path))
    first = types.ModuleType("team_a.stats")
    second = types.ModuleType("team_b.stats")
    exec("def report():\n    return 'a'", first.__dict__)
    exec("def report():\n    return 'b'", second.__dict__)
    assert first.report.__qualname__ == second.report.__qualname__
    assert persistent_cache(first.report)() == "a"
    assert persistent_cache(second.report)() == "b"
    assert sorted(json_store("runs")) == ["cache.team_a.stats.report", "cache.team_b.stats.report"]


def test_persistent_cache_entries_never_meet_run_records(tmp_path):
    from ek.harness import evaluate_store

    @persistent_cache(key="documents.nightly", rootdir=tmp_path)
    def cached():
        return {"mine": True}

    evaluate_store(str.strip, {"a": {"input": "x", "reference": "x"}}, run_id="nightly", rootdir=tmp_path)
    assert cached() == {"mine": True}
    assert (
        evaluate_store(str.strip, {"a": {"input": "x", "reference": "x"}}, run_id="nightly", rootdir=tmp_path).aggregate
        == 0.0
    )
    assert cached() == {"mine": True}


def test_persistent_cache_key_callable_receives_call_arguments(tmp_path):
    calls = []

    @persistent_cache(kind="results", key=lambda a, b=0: f"add-{a}-{b}", rootdir=tmp_path)
    def add(a, b=0):
        calls.append((a, b))
        return a + b

    assert [add(1, 2), add(1, b=2), add(1), add(1, 2)] == [3, 3, 1, 3]
    assert calls == [(1, 2), (1, 0)]
    assert sorted(json_store("results", rootdir=tmp_path)) == ["cache.add-1-0", "cache.add-1-2"]


def test_persistent_cache_returns_json_form_on_first_call_too(tmp_path):
    @persistent_cache(key="pair", rootdir=tmp_path)
    def pair():
        return (1, 2)

    assert pair() == [1, 2] and pair() == [1, 2]


def test_persistent_cache_resolves_the_store_at_call_time(monkeypatch, tmp_path):
    @persistent_cache(key="where")
    def where():
        return os.environ["EK_DATA_HOME"]

    monkeypatch.setenv("EK_DATA_HOME", str(tmp_path / "a"))
    where()
    monkeypatch.setenv("EK_DATA_HOME", str(tmp_path / "b"))
    where()
    assert (tmp_path / "a" / "runs" / "cache.where.json").is_file()
    assert (tmp_path / "b" / "runs" / "cache.where.json").is_file()


def test_persistent_cache_non_serializable_result_is_not_cached(tmp_path):
    calls = []

    @persistent_cache(key="bad", rootdir=tmp_path)
    def bad():
        calls.append(1)
        return {1, 2}

    for _ in range(2):
        with pytest.raises(TypeError, match=r"key 'cache.bad' contains a value of type set"):
            bad()
    assert len(calls) == 2 and list(json_store("runs", rootdir=tmp_path)) == []


def test_persistent_cache_refuses_bad_constant_key_at_decoration(tmp_path):
    with pytest.raises(ValueError, match=r"store key '\.\./escape' is refused"):
        persistent_cache(key="../escape", rootdir=tmp_path)


def test_persistent_cache_refuses_bad_kind_at_decoration(tmp_path):
    with pytest.raises(ValueError, match=r"store kind 'a/b' is refused"):
        persistent_cache(kind="a/b", rootdir=tmp_path)


def test_persistent_cache_refuses_bad_computed_key_before_computing(tmp_path):
    calls = []

    @persistent_cache(key=lambda path: path, rootdir=tmp_path)
    def read(path):
        calls.append(path)
        return 1

    with pytest.raises(ValueError, match=r"store key '/etc/passwd' is refused"):
        read("/etc/passwd")
    with pytest.raises(TypeError, match=r"store key must be a str, got int"):
        read(7)
    assert calls == []


def test_persistent_cache_refuses_a_key_passed_positionally():
    with pytest.raises(
        TypeError,
        match=r"got 'answer' where a function belongs; pass the key "
        r"by name: @persistent_cache\(key='answer'\)",
    ):
        persistent_cache("answer")


def test_persistent_cache_reports_a_corrupt_entry(tmp_path):
    @persistent_cache(key="entry", rootdir=tmp_path)
    def entry():
        return 1

    entry()
    (tmp_path / "runs" / "cache.entry.json").write_text("{")
    with pytest.raises(ValueError, match=r"cache\.entry\.json is not valid UTF-8 JSON.*delete it"):
        entry()


# ------------------------------------------------------------------------- properties

_JSON_LEAVES = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
_JSON_VALUES = st.recursive(
    _JSON_LEAVES,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)
_SAFE_KEYS = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="/\\\x00"),
    min_size=1,
    max_size=60,
).filter(lambda k: not k.startswith("."))


@settings(max_examples=60, deadline=None)
@given(key=_SAFE_KEYS, value=_JSON_VALUES)
def test_property_safe_keys_and_json_values_round_trip(tmp_path_factory, key, value):
    s = json_store("gold", rootdir=tmp_path_factory.mktemp("rt"))
    s[key] = value
    assert s[key] == value
    assert list(s) == [key] and key in s
    del s[key]
    assert list(s) == []


_UNSAFE_KEYS = st.one_of(
    st.sampled_from(["", ".", "..", "../x", "/abs", "\\\\server\\share"]),
    st.tuples(st.text(max_size=8), st.sampled_from("/\\\x00"), st.text(max_size=8)).map("".join),
    st.text(max_size=10).map(lambda t: "." + t),
)


@settings(max_examples=60, deadline=None)
@given(key=_UNSAFE_KEYS)
def test_property_unsafe_keys_are_refused(tmp_path_factory, key):
    root = tmp_path_factory.mktemp("unsafe")
    s = json_store("gold", rootdir=root)
    with pytest.raises(ValueError, match=RULES):
        s[key] = 1
    assert key not in s
    assert list(root.iterdir()) == []


@settings(max_examples=30, deadline=None)
@given(key=st.one_of(st.integers(), st.none(), st.binary(), st.floats(), st.tuples(st.text())))
def test_property_non_str_keys_are_refused(tmp_path_factory, key):
    s = json_store("gold", rootdir=tmp_path_factory.mktemp("nonstr"))
    with pytest.raises(TypeError, match="must be a str"):
        s[key] = 1
