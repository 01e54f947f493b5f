"""ek.agents (the package): public objects report a public home and still pickle.

The home of a name is the most specific module of the API reference that
documents it: ``ek.agents.base.Cost`` lives in ``ek.agents.base`` although
``ek.agents`` re-exports it, while ``pass_at_k``, documented only under
``ek.agents``, must not report the private ``ek.agents._stats``.
"""

import importlib

import ek.agents


def has_home(obj) -> bool:
    # Classes and functions carry a __module__; documented constants (floats, tuples) do not.
    return isinstance(obj, type) or callable(obj)


# Every documented object's __module__ is checked against the reference in tests/test_public_surface.py.


def test_no_public_name_reports_a_private_module():
    for name in ek.agents.__all__:
        obj = getattr(ek.agents, name)
        if has_home(obj):
            assert obj.__module__.startswith("ek.agents"), name
            assert not any(part.startswith("_") for part in obj.__module__.split(".")), (
                f"{name} reports {obj.__module__}"
            )
            home = importlib.import_module(obj.__module__)
            assert getattr(home, name) is obj  # the reported home really has it


def test_rehomed_objects_still_pickle():
    import pickle

    report = ek.agents.reliability({"t": [True, False]}, k=1)
    assert pickle.loads(pickle.dumps(report)) == report
    assert pickle.loads(pickle.dumps(ek.agents.pass_at_k)) is ek.agents.pass_at_k
