"""Rebuild a calibrator from its ``to_dict()`` record (the reverse of saving it).

`ek.qe.calibrate.load_calibrator` and the grouped calibrators of
`ek.qe._families` (whose records nest the records of their members) both go
through `from_record`, which looks the record's ``kind`` up in the
``"calibrators"`` namespace and calls that class's ``from_dict``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ek.registry import get, names

__all__ = ["from_record"]


def from_record(record: Any, *, where: str = "calibrator record") -> Any:
    """The calibrator a ``to_dict()`` record describes (the class's ``from_dict``)."""
    if not isinstance(record, Mapping) or not isinstance(record.get("kind"), str):
        raise ValueError(
            f"{where} is not a calibrator record: expected a dict with a str 'kind', "
            f"got {record!r:.80}. Re-save it with save_calibrator()."
        )
    kind = record["kind"]
    try:
        cls = get("calibrators", kind)
    except KeyError:
        known = ", ".join(repr(k) for k in names("calibrators"))
        raise ValueError(
            f"{where} has unknown kind {kind!r}; known kinds: {known}. Register the class "
            f"with ek.register('calibrators', {kind!r}, cls) before loading."
        ) from None
    build = getattr(cls, "from_dict", None)
    if build is None:
        raise ValueError(
            f"{where} has kind {kind!r}, whose class has no from_dict(); it cannot be rebuilt from numbers."
        )
    return build(record)
