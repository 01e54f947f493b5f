"""ek.agents (the package): every public object reports its documented home as ``__module__``.

The home of a name is the most specific module of the API reference that
documents it: ``ek.agents.base.Cost`` lives in ``ek.agents.base`` although
``ek.agents`` re-exports it, while ``pass_at_k``, documented only under
``ek.agents``, must not report the private ``ek.agents._stats``.
"""

import importlib
import pathlib
import re

import pytest

import ek.agents

SPEC = pathlib.Path(__file__).resolve().parents[3] / "shared" / "spec"
# "### *class* ek.agents.base.Cost(...", "### ek.agents.pass_at_k(*, n, c, k) ...", ...
HEADING = re.compile(r"^### (?:\*[a-z ]+\* )?(ek\.agents(?:\.[a-z_]+)*)\.([A-Za-z_]\w*)", re.M)


def documented_homes() -> dict:
    """``{(module, name) of each documented object: its home}`` from every ek.agents* spec file."""
    modules_of: dict = {}
    for path in sorted(SPEC.glob("ek.agents*.md")):
        for module, name in HEADING.findall(path.read_text(encoding="utf-8")):
            modules_of.setdefault(name, set()).add(module)
    return {(module, name): max(mods, key=lambda m: m.count("."))
            for name, mods in modules_of.items() for module in mods}


def has_home(obj) -> bool:
    # Classes and functions carry a __module__; documented constants (floats, tuples) do not.
    return isinstance(obj, type) or callable(obj)


@pytest.mark.skipif(not SPEC.is_dir(), reason=f"API reference not found at {SPEC}")
def test_every_documented_name_reports_its_documented_home():
    homes = documented_homes()
    assert ("ek.agents", "pass_at_k") in homes and len(homes) > 60
    wrong = []
    for (module, name), home in sorted(homes.items()):
        obj = getattr(importlib.import_module(module), name)
        if has_home(obj) and obj.__module__ != home:
            wrong.append(f"{module}.{name}: __module__ is {obj.__module__!r}, documented in {home!r}")
    assert not wrong, "\n".join(wrong)


def test_no_public_name_reports_a_private_module():
    for name in ek.agents.__all__:
        obj = getattr(ek.agents, name)
        if has_home(obj):
            assert obj.__module__.startswith("ek.agents"), name
            assert not any(part.startswith("_") for part in obj.__module__.split(".")), \
                f"{name} reports {obj.__module__}"
            home = importlib.import_module(obj.__module__)
            assert getattr(home, name) is obj                 # the reported home really has it


def test_rehomed_objects_still_pickle():
    import pickle

    report = ek.agents.reliability({"t": [True, False]}, k=1)
    assert pickle.loads(pickle.dumps(report)) == report
    assert pickle.loads(pickle.dumps(ek.agents.pass_at_k)) is ek.agents.pass_at_k
