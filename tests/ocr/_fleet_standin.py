"""A stand-in for h-engines' ``ek.ocr._fleet_engines`` (EngineSpec, engine_specs, fleet_engine, engine_state).

Used only while that module has not landed on main: `install` puts this one
in its place, so the fleet code can be written and tested against the
interface of the brief. It knows no engine options and no line mode.
"""

from __future__ import annotations

import importlib.util
import sys
import types
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class EngineSpec:
    name: str
    engine: Any
    options: Mapping = field(default_factory=dict)


def engine_specs(engines):
    from ek.ocr._engines import resolve_engine_id
    from ek.ocr._ocr_run import engine_label

    def one(name, value):
        options = {}
        if isinstance(value, tuple):
            value, options = value
        if isinstance(value, str):
            head, _, tail = value.partition(":")
            options = {**dict(kv.split("=", 1) for kv in tail.split(",") if kv), **options}
            return EngineSpec(name if name is not None else value, resolve_engine_id(head), options)
        if callable(value):
            return EngineSpec(name if name is not None else engine_label(value), value, options)
        raise TypeError(f"not an engine: {value!r}")

    if isinstance(engines, Mapping):
        specs = tuple(one(k, v) for k, v in engines.items())
    elif isinstance(engines, (str,)) or callable(engines):
        specs = (one(None, engines),)
    else:
        specs = tuple(one(None, e) for e in engines)
    names = [s.name for s in specs]
    if len(set(names)) != len(names):
        raise ValueError(f"duplicate engine names {names}")
    return specs


def fleet_engine(spec):
    if callable(spec.engine):
        engine = spec.engine

        def call(image, kind=None):
            return engine(image)
        return call
    from ek.ocr.bridge import ocracy_backend

    base = ocracy_backend(spec.engine)

    def read(image, kind=None):
        return base(image)
    read.backend = base.backend
    return read


def engine_state(engine_id):
    from ek.ocr._engines import check_engine

    return check_engine(engine_id)["state"]


def install() -> bool:
    """Register this module as ``ek.ocr._fleet_engines`` when the real one is missing; True if it did."""
    if "ek.ocr._fleet_engines" in sys.modules or importlib.util.find_spec("ek.ocr._fleet_engines") is not None:
        return False
    module = types.ModuleType("ek.ocr._fleet_engines")
    for name in ("EngineSpec", "engine_specs", "fleet_engine", "engine_state"):
        setattr(module, name, globals()[name])
    sys.modules["ek.ocr._fleet_engines"] = module
    return True
