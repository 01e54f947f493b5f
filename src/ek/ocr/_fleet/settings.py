"""The settings of one fleet run, as one value: what `ek.ocr.benchmark_fleet` was asked, checked once.

`ek.ocr.benchmark_fleet` builds a `FleetSettings` from its keywords (all
but the engines and the gold) after checking them; the fleet's modules read
its fields, never a dict of option names. ``ek benchmark`` builds its
settings from this group too (`ek.cli._commands._benchmark`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from ek._runs import RunOptions


@dataclass(frozen=True)
class FleetSettings:
    """How a fleet reads, scores and reports its pages (the keywords of `ek.ocr.benchmark_fleet`).

    ``metric``, ``normalize`` and ``grammar`` score each page; ``level`` is
    the confidence level of every interval; ``image_key`` to ``kind_key``
    name the gold record's fields; ``strict``, ``consensus`` and
    ``check_images`` are as `ek.ocr.benchmark_fleet` documents them;
    ``run`` holds the run options (``persist`` to ``progress``), checked.
    """

    metric: Any = "cer"
    normalize: Any = None
    grammar: Any = None
    level: float = 0.95
    image_key: str = "image"
    reference_key: str = "reference_text"
    slice_key: str = "slice"
    kind_key: str | None = "kind"
    strict: bool = False
    consensus: bool = True
    check_images: bool | None = None
    run: RunOptions = field(default_factory=RunOptions)

    @property
    def scoring(self) -> dict[str, Any]:
        """The metric's options, as `ek._runs` scoring takes them."""
        return {"normalize": self.normalize, "grammar": self.grammar}

    def keywords(self) -> dict[str, Any]:
        """These settings as `ek.ocr.benchmark_fleet`'s keywords (the run options as ``run_options``)."""
        named = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "run"}
        return {**named, "run_options": self.run}

    @property
    def label(self) -> str | None:
        """The reports' metric label: the metric's name, None for a metric object (the report names it)."""
        return self.metric if isinstance(self.metric, str) else None
