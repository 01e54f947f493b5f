"""The checks before two reports are compared or merged: one metric, the same items, unique ids, disjoint parts."""

from __future__ import annotations

from itertools import chain
from typing import Any

from ek._stats import check_ids, id_text

__all__ = ["check_comparable", "merged_ids", "unique_ids"]


def check_comparable(a: Any, b: Any) -> None:
    """ValueError unless ``a`` and ``b`` are reports of one metric over the same items."""
    if a.metric != b.metric:
        raise ValueError(
            f"compare() got a {a.metric!r} report and a {b.metric!r} report; compare two runs scored with the "
            "same metric."
        )
    if not a.n or not b.n:
        raise ValueError("compare() got an empty report; both runs need scored items.")
    for name, r in (("A", a), ("B", b)):
        unique_ids(r, who=f"compare() report {name}")
    ids_a, ids_b = set(map(id_text, _ids(a))), set(map(id_text, _ids(b)))
    if ids_a != ids_b:
        only_a, only_b = sorted(ids_a - ids_b), sorted(ids_b - ids_a)
        raise ValueError(
            f"compare() needs two runs over the same items, but A has {len(ids_a)} and B {len(ids_b)}: "
            f"{len(only_a)} only in A{_examples(only_a)} and {len(only_b)} only in B{_examples(only_b)}; "
            "score both runs on one gold set."
        )


def unique_ids(report: Any, *, who: str) -> None:
    """ValueError when two of ``report``'s items share an id (``who`` names the report), as `check_ids` says."""
    ids = report.detail.get("ids")
    if ids is not None:
        check_ids(ids, len(ids), who=who)


def merged_ids(reports: list[Any]) -> tuple[Any, ...] | None:
    """The ids of merged reports in order; None when every report numbers its items by position."""
    given = [r.detail.get("ids") is not None for r in reports]
    if not any(given):
        return None
    if not all(given):
        raise ValueError(
            f"merge_reports() got report {given.index(True)} with item ids and report {given.index(False)} "
            "numbered by position; pass ids= to evaluate() for every part, or for none."
        )
    for k, r in enumerate(reports):
        unique_ids(r, who=f"merge_reports() report {k}")
    owner: dict[Any, Any] = {}
    for k, r in enumerate(reports):
        for item in r.detail["ids"]:
            text = id_text(item)
            if text in owner:
                raise ValueError(
                    f"merge_reports() got item {item!r} in report {owner[text]} and in report {k}; reports must "
                    "cover disjoint items (unique ids) to merge into the report of the whole."
                )
            owner[text] = k
    return tuple(chain.from_iterable(r.detail["ids"] for r in reports))


def _examples(ids: list[Any]) -> str:
    return f" ({', '.join(map(repr, ids[:3]))}{', ...' if len(ids) > 3 else ''})" if ids else ""


def _ids(report: Any) -> tuple[Any, ...]:
    ids = report.detail.get("ids")
    return tuple(range(report.n)) if ids is None else tuple(ids)
