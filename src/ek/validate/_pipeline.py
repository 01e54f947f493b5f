"""The validation pipeline: run layers in order, apply corrections, stop early.

Public through `ek.validate`. This module owns the one mechanism every
validation goes through, `ek.estimate_quality` included: `validation_pipeline`
composes layers into a `_Pipeline`, whose call returns a `ValidationResult`.
The layer factories live in `ek.validate._factories`.

How a layer is called: ``layer(value, spec=spec)``, leaving ``spec`` out when
the layer does not take it (so a plain ``value -> findings`` function works),
and adding ``findings=`` (the findings of the pass so far) when the layer has
a true ``wants_findings`` attribute. A pipeline is itself such a layer: nested
in another pipeline, it hands its own result over, and its gated layers see
the outer findings too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import (
    Any,
    ClassVar,
    Protocol,
    runtime_checkable,
)

from ek._calls import accepts_keyword
from ek._util import type_name
from ek.base import FieldSpec, Finding, Severity
from ek.qe.verifiers import schema_validator

__all__ = [
    "Corrector",
    "Layer",
    "ValidationResult",
    "stop_on_correction",
    "stop_on_flag",
    "validate",
    "validation_pipeline",
]

Layer = Callable[..., Iterable[Finding]]
"""One pipeline step: ``(value, *, spec=None) -> Iterable[Finding]``."""

_KEEP = object()  # a layer's outcome when it proposes no new value


@runtime_checkable
class Corrector(Protocol):
    """A validator that may also propose a replacement value.

    Called like any `ek.base.Validator`; a finding with ``severity=CORRECT``
    carries the replacement in ``suggestion``. ``layer`` names the step's
    place on the cheap-to-expensive spine (``"canonicalize"``, ``"lexicon"``).
    """

    @property
    def layer(self) -> str: ...

    def __call__(self, value: Any, /, *, spec: FieldSpec | None = None) -> Iterable[Finding]: ...


@dataclass(frozen=True)
class ValidationResult:
    """What a pipeline made of one value: the input, the output and every finding.

    ``original`` is the value passed in, ``value`` the value after any
    applied corrections, and ``findings`` the audit trail (flags and
    corrections) in the order the layers produced them.
    """

    original: Any
    value: Any
    findings: tuple[Finding, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "findings", tuple(self.findings))

    @property
    def clean(self) -> bool:
        """True when no layer had anything to say about the value."""
        return not self.findings

    @property
    def corrected(self) -> bool:
        """True when an applied correction left ``value`` different from ``original``."""
        return any(f.severity == Severity.CORRECT for f in self.findings) and _differs(self.value, self.original)

    @property
    def flagged(self) -> bool:
        """True when some layer flagged the value for a person to look at."""
        return any(f.severity == Severity.FLAG for f in self.findings)


def stop_on_correction(findings: Iterable[Finding]) -> bool:
    """Stop policy: True once any layer has proposed a correction.

    >>> from ek.base import Finding, Severity
    >>> stop_on_correction([Finding("x", "lexicon", Severity.CORRECT, suggestion="y")])
    True
    """
    return any(f.severity == Severity.CORRECT for f in findings)


def stop_on_flag(findings: Iterable[Finding]) -> bool:
    """Stop policy: True at the first flag, so the pass fails fast.

    >>> from ek.base import Finding
    >>> stop_on_flag([]), stop_on_flag([Finding("x", "range")])
    (False, True)
    """
    return any(f.severity == Severity.FLAG for f in findings)


def _run_every_layer(findings: Iterable[Finding]) -> bool:
    """The default stop policy: never stop early."""
    return False


def validation_pipeline(
    *layers: Layer | Callable[..., ValidationResult],
    apply_corrections: bool = True,
    stop_when: Callable[[tuple[Finding, ...]], bool] = _run_every_layer,
) -> Callable[..., ValidationResult]:
    """A callable ``(value, *, spec=None) -> ValidationResult`` running ``layers`` in order.

    Put the layers cheapest first: the order is the cost spine. After each
    layer, its first ``CORRECT`` finding (one with a ``suggestion``) replaces
    the value when ``apply_corrections`` is on, so the next layer sees the
    repaired value. Then ``stop_when(findings_so_far)`` is asked whether to
    end the pass; the default runs every layer. A layer with a true
    ``wants_findings`` attribute (see `ek.validate.llm_corrector`) is also
    given the findings so far as ``findings=``. A pipeline may be a layer of
    another: its findings join the trail and its final value is applied.

    Args:
        *layers: validators and correctors, each ``(value, *, spec) -> Iterable[Finding]``.
        apply_corrections: apply corrections as they come (default); when
            False, corrections are only recorded and ``value`` stays the input.
        stop_when: early-exit policy, e.g. `stop_on_correction` or `stop_on_flag`.

    Raises:
        TypeError: a layer or ``stop_when`` is not callable.

    >>> from ek.validate import lexicon_corrector
    >>> p = validation_pipeline(lexicon_corrector(["EUR", "USD"]), stop_when=stop_on_flag)
    >>> p("GBP").flagged, p("USD").clean
    (True, True)
    """
    for i, layer in enumerate(layers):
        if not callable(layer):
            raise TypeError(
                f"validation_pipeline() layer {i} is a {type_name(layer)}, not a callable; each "
                "layer must be a validator or corrector (value, *, spec=None) -> Iterable[Finding], "
                "e.g. lexicon_corrector([...]). Did you call the factory's result by mistake?"
            )
    if not callable(stop_when):
        raise TypeError(
            f"validation_pipeline() stop_when is a {type_name(stop_when)}, not a callable; pass "
            "a policy findings -> bool such as stop_on_correction or stop_on_flag."
        )
    return _Pipeline(tuple(layers), bool(apply_corrections), stop_when)


def validate(
    value: object,
    *,
    layers: Iterable[Layer | Callable[..., ValidationResult]] = (),
    spec: FieldSpec | None = None,
    apply_corrections: bool = True,
    stop_when: Callable[[tuple[Finding, ...]], bool] = _run_every_layer,
) -> ValidationResult:
    """Run one value through ``layers`` and return the `ValidationResult`.

    The one-call form of `validation_pipeline`. When ``layers`` is empty and
    a ``spec`` is given, the spec-driven `ek.qe.verifiers.schema_validator`
    runs, so ``validate(v, spec=field_spec)`` checks the declared type and domain.

    >>> from ek.base import FieldSpec
    >>> from ek.validate import lexicon_corrector
    >>> validate("Spian", layers=[lexicon_corrector(["Spain", "Italy"])]).value
    'Spain'
    >>> validate(150, spec=FieldSpec("age", "number", domain=(0, 120))).flagged
    True
    """
    chosen = tuple(layers)
    if not chosen and spec is not None:
        chosen = (schema_validator,)
    pipeline = validation_pipeline(*chosen, apply_corrections=apply_corrections, stop_when=stop_when)
    return pipeline(value, spec=spec)


@dataclass(frozen=True)
class _Pipeline:
    """The composed layers; see `validation_pipeline`.

    How each layer is called (with ``spec=``? with ``findings=``?) is read
    once, here, rather than on every value.
    """

    wants_findings: ClassVar[bool] = True  # nested in a pipeline, it sees the outer findings

    layers: tuple[Callable[..., Any], ...]
    apply_corrections: bool = True
    stop_when: Callable[[tuple[Finding, ...]], bool] = _run_every_layer
    _plan: tuple[tuple[Callable[..., Any], bool, bool], ...] = field(init=False, repr=False, compare=False, default=())

    def __post_init__(self) -> None:
        plan = tuple(
            (layer, accepts_keyword(layer, "spec"), bool(getattr(layer, "wants_findings", False)))
            for layer in self.layers
        )
        object.__setattr__(self, "_plan", plan)

    def __call__(
        self, value: Any, *, spec: FieldSpec | None = None, findings: Iterable[Finding] = ()
    ) -> ValidationResult:
        """Run the layers on ``value``; ``findings`` are earlier findings the gated layers may read."""
        original, before = value, tuple(findings)
        trail: list[Finding] = []
        for i, (layer, takes_spec, wants_findings) in enumerate(self._plan):
            kwargs: dict[str, Any] = {"spec": spec} if takes_spec else {}
            if wants_findings:
                kwargs["findings"] = before + tuple(trail)
            found, fixed = _outcome(layer(value, **kwargs), i, layer, value)
            trail.extend(found)
            if self.apply_corrections and fixed is not _KEEP:
                value = fixed
            if self.stop_when(tuple(trail)):
                break
        return ValidationResult(original, value, tuple(trail))


def _outcome(produced: Any, index: int, layer: Callable[..., Any], value: Any) -> tuple[list[Finding], Any]:
    """``(findings, new value or _KEEP)`` of one layer call, checked to really be findings."""
    if isinstance(produced, ValidationResult):  # a nested pipeline
        changed = _differs(produced.value, value)
        return list(produced.findings), produced.value if changed else _KEEP
    found = _collect(produced, index, layer)
    fix = next((f for f in found if f.severity == Severity.CORRECT and f.suggestion is not None), None)
    return found, _KEEP if fix is None else fix.suggestion


def _collect(produced: Any, index: int, layer: Callable[..., Any]) -> list[Finding]:
    """The findings of one layer call, checked to really be `Finding` s."""
    if produced is None:
        return []
    name = getattr(layer, "layer", None) or getattr(layer, "__name__", type(layer).__name__)
    try:
        found = list(produced)
    except TypeError:
        raise TypeError(
            f"pipeline layer {index} ({name}) returned a {type_name(produced)}, not an iterable of "
            "Finding; a layer must return (or yield) zero or more ek.base.Finding objects."
        ) from None
    for item in found:
        if not isinstance(item, Finding):
            raise TypeError(
                f"pipeline layer {index} ({name}) yielded a {type_name(item)} ({item!r:.60}); a "
                "layer must yield ek.base.Finding objects. Wrap the message in "
                "Finding(field, layer, message=...)."
            )
    return found


def _differs(a: Any, b: Any) -> bool:
    try:
        return bool(a != b)
    except Exception:  # values whose comparison is not a plain bool (arrays)
        return a is not b
