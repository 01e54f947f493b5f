"""Every public object reports its documented home as ``__module__``, and exists where documented.

The home of an object is the most specific module of the API reference that
documents it: ``ek.metrics.strings.StringMetric`` is re-exported by
``ek.metrics`` and ``ek`` but lives in ``ek.metrics.strings``. Homes are
grouped by object, not by name, because two different objects may share a
name (``ek.tools.rover`` is the command, ``ek.qe.rover`` the function).
"""

from __future__ import annotations

import importlib
import os
import pathlib
import re

import pytest

SPEC = pathlib.Path(__file__).resolve().parents[2] / "shared" / "spec"
# "### *class* ek.metrics.StringMetric(...", "### ek.harness.evaluate_store(predict, ...", ...
HEADING = re.compile(r"^### (?:\*[a-z ]+\* )?(ek(?:\.[a-z_]+)*)\.([A-Za-z_]\w*)", re.MULTILINE)

_ABSENT = object()

pytestmark = pytest.mark.skipif(
    not SPEC.is_dir() and not os.environ.get("CI"), reason=f"API reference not found at {SPEC}"
)


def documented() -> list[tuple[str, str]]:
    """``(module, name)`` of every object the reference documents."""
    found = set()
    for path in sorted(SPEC.glob("ek*.md")):
        found.update(HEADING.findall(path.read_text(encoding="utf-8")))
    return sorted(found)


def owned_by_ek(obj) -> bool:
    # Classes and functions carry a __module__; constants and typing aliases do not
    # (an alias such as ek.base.Normalizer is typing's object), and re-exported objects
    # of other libraries (dol's cache_this) keep their own.
    module = getattr(obj, "__module__", None)
    return (
        (isinstance(obj, type) or callable(obj))
        and isinstance(module, str)
        and (module == "ek" or module.startswith("ek."))
    )


def test_every_documented_object_reports_its_documented_home():
    assert SPEC.is_dir(), f"the API reference must be at {SPEC} when CI is set"
    places: dict[int, list[str]] = {}
    objects: dict[int, object] = {}
    missing = []
    for module, name in documented():
        obj = getattr(importlib.import_module(module), name, _ABSENT)
        if obj is _ABSENT:
            missing.append(f"{module}.{name}")
            continue
        places.setdefault(id(obj), []).append(module)
        objects[id(obj)] = obj
    assert not missing, "documented but absent: " + ", ".join(missing)
    assert len(objects) > 200
    wrong = []
    for key, modules in places.items():
        obj = objects[key]
        home = max(modules, key=lambda m: (m.count("."), m))
        if owned_by_ek(obj) and obj.__module__ != home:
            wrong.append(f"{obj.__qualname__}: __module__ is {obj.__module__!r}, documented in {home!r}")
    assert not wrong, "\n".join(sorted(wrong))


def test_no_public_object_reports_a_private_module():
    import ek

    for name in ek.__all__:
        obj = getattr(ek, name)
        if owned_by_ek(obj):
            assert not any(p.startswith("_") for p in obj.__module__.split(".")), (name, obj.__module__)
            assert getattr(importlib.import_module(obj.__module__), obj.__name__, None) is obj, name


def test_corpus_estimation_names_report_the_facade():
    import ek

    for name in (
        "estimate_corpus",
        "compare_estimates",
        "plan_audit",
        "agreement_proxy",
        "confidence_proxy",
        "CorpusEstimate",
        "AuditPlan",
    ):
        obj = getattr(ek, name)
        assert obj.__module__ == "ek.facade" and getattr(importlib.import_module("ek.facade"), name) is obj, name
