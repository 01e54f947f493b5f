"""The engines of a fleet: named specs with options, each bound as a reader that knows lines from pages.

`engine_specs` turns what a user writes into `EngineSpec`\\ s, one per
engine, with unique names:

* an ocracy id, with options after a colon as on the command line:
  ``"tesseract"``, ``"tesseract:lang=deu,psm=6"`` (named as written, id
  folded to ocracy's spelling);
* an ``image -> OcrResult`` callable of your own (named by its ``backend``
  attribute or ``__name__``);
* a sequence of those;
* a mapping name -> id, callable or ``(id, {options})``.

`fleet_engine` binds one spec as ``read(image, *, kind=None)``.

Line mode. A line image (one printed line, as line-level ground truth cuts
them) is not a page: a text detector scales a 40-pixel line up to a page's
size, takes about three times as long and drops words. So a line goes to the
engine's line mode where it has one: Tesseract with ``psm=7`` (one text line),
RapidOCR with ``det=False`` (recognition only, the line straightened first).
An engine without one (any other ocracy engine), or a spec that sets that
option itself, gets the line padded with paper before its detector sees it.
Your own callables get every image as it is. (`ek.ocr._line_images` has the
padding, the straightening and the rule below.)

Which images are lines: ``kind="line"`` or ``kind="page"`` given to the
reader decides (a gold record's ``kind`` field, passed on by the fleet);
without it, an image is a line when it is at most 160 pixels high and at
least 3 times as wide as high.

`engine_state` is ``ek check``'s verdict on an engine id: ``"ready"``,
``"installed, not configured"``, ``"not installed"``, ``"not ready"`` or
``"unknown"``.

Errors: ``KeyError`` for an engine id ocracy does not know (with a
did-you-mean); ``ValueError`` for an option an engine does not take (listing
the ones it takes), a bad option value, duplicate names, a Tesseract language
not installed here, or a bad ``kind``; ``TypeError`` for a value that is no
engine; ``ImportError`` (with the install line) when binding an engine that
cannot run here.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ek._util import first_repeat, type_name
from ek.ocr._engine_options import check_options, parse_engine
from ek.ocr._engines import check_engine, resolve_engine_id
from ek.ocr._line_images import is_line_image, pad_line

__all__ = ["EngineSpec", "engine_specs", "engine_state", "fleet_engine"]

# The option and value that put an engine in its line mode.
_LINE_MODES = {"tesseract": ("psm", 7), "rapidocr": ("det", False)}
_KINDS = ("line", "page")


@dataclass(frozen=True)
class EngineSpec:
    """One engine of a fleet: the name reports give it, the engine, and its options.

    Args:
        name: how reports name the engine (``"tesseract"``,
            ``"tesseract:lang=deu"``, a mapping key).
        engine: an ocracy id (``"tesseract"``, ``"rapidocr"``) or an
            ``image -> OcrResult`` callable.
        options: the engine's options (see `ek.ocr._engine_options`); checked
            when the spec is bound (`fleet_engine`) or built (`engine_specs`).
    """

    name: str
    engine: str | Callable[..., Any]
    options: Mapping[str, object] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError(
                f"EngineSpec name must be a non-empty string, got {self.name!r}; it names the engine in reports."
            )
        if not isinstance(self.engine, str) and not callable(self.engine):
            raise TypeError(
                f"EngineSpec {self.name!r}: engine must be an ocracy id such as 'tesseract' or an "
                f"image -> OcrResult callable, got {type_name(self.engine)}."
            )
        if not isinstance(self.options, Mapping):
            raise TypeError(
                f"EngineSpec {self.name!r}: options must be a mapping name -> value, got {type_name(self.options)}."
            )
        if self.options and callable(self.engine):
            raise ValueError(
                f"EngineSpec {self.name!r}: options are for ocracy engines; bind them into your "
                "callable instead (functools.partial(read, **options))."
            )
        object.__setattr__(self, "options", types.MappingProxyType(dict(self.options)))

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle the options as a dict (a read-only view does not pickle), for process pools."""
        return (EngineSpec, (self.name, self.engine, dict(self.options)))


def engine_specs(engines: Any) -> tuple[EngineSpec, ...]:
    """The specs of a fleet, names unique, ids resolved and options checked (see the module docstring).

    >>> [s.name for s in engine_specs(["tesseract", "tesseract:psm=6"])]
    ['tesseract', 'tesseract:psm=6']
    >>> engine_specs({"deu": ("tesseract", {"lang": "deu"})})[0].options["lang"]
    'deu'

    Raises:
        KeyError: an id ocracy does not know (with a did-you-mean).
        ValueError: no engines, an option the engine does not take or a bad
            value, or two engines of one name.
        TypeError: an entry that is no engine.
    """
    if isinstance(engines, Mapping):
        specs = [_named_spec(name, value) for name, value in engines.items()]
    elif isinstance(engines, (str, EngineSpec)) or callable(engines):
        specs = [_spec(engines, 0)]
    elif isinstance(engines, Sequence):
        specs = [_spec(entry, i) for i, entry in enumerate(engines)]
    else:
        raise TypeError(
            f"engine_specs() takes an engine id, a callable, a sequence of those or a mapping "
            f"name -> engine, got {type_name(engines)}."
        )
    if not specs:
        raise ValueError("engine_specs() got no engines; name at least one, e.g. 'tesseract' (see `ek engines`).")
    repeat = first_repeat([s.name for s in specs])
    if repeat is not None:
        name = specs[repeat[1]].name
        raise ValueError(
            f"engine_specs() got two engines named {name!r} (entries {repeat[0]} and {repeat[1]}); "
            f"reports need one name per engine: pass a mapping name -> engine, e.g. "
            f"{{'{name}': ..., '{name}-2': ...}}."
        )
    return tuple(specs)


def fleet_engine(spec: EngineSpec) -> Callable[..., Any]:
    """``spec`` bound as ``read(image, *, kind=None) -> OcrResult``, lines sent to the engine's line mode.

    ``image`` is a path, a PIL image, bytes or an array; ``kind`` is
    ``"line"``, ``"page"`` or None (decided by `is_line_image`). The reader's
    ``backend``, ``options`` and ``spec`` attributes say what it runs.

    Raises:
        KeyError, ValueError: as `engine_specs`, for a spec built by hand;
            ValueError also for a Tesseract language not installed here.
        ImportError: the engine cannot run here (the message has the fix).
    """
    if not isinstance(spec, EngineSpec):
        raise TypeError(f"fleet_engine() takes an EngineSpec (see engine_specs()), got {type_name(spec)}.")
    if callable(spec.engine):
        return _as_is(spec)
    from ek.ocr.bridge import ocracy_backend, open_image

    engine_id = resolve_engine_id(spec.engine)
    options = check_options(engine_id, spec.options)
    if engine_id == "tesseract" and "lang" in options:
        _check_tesseract_langs(options["lang"])
    page = ocracy_backend(engine_id, **options)
    mode = _LINE_MODES.get(engine_id)
    line_mode = None if mode is None or mode[0] in options else {mode[0]: mode[1]}

    def read(image: Any, *, kind: str | None = None) -> Any:
        if not _reads_as_line(image, kind):
            return page(image)
        if line_mode is not None:
            return page(image, **line_mode)
        return page(pad_line(open_image(image)))

    read.backend = engine_id  # type: ignore[attr-defined]
    read.options = dict(options)  # type: ignore[attr-defined]
    read.spec = spec  # type: ignore[attr-defined]
    read.__name__ = read.__qualname__ = f"fleet_{engine_id.replace('-', '_')}"
    read.__doc__ = f"Read ``image`` with {spec.name!r} (lines in its line mode)."
    return read


def engine_state(engine_id: str) -> str:
    """``ek check``'s verdict on ``engine_id``: ``"ready"``, ``"not installed"``, ... (see the module docstring)."""
    return str(check_engine(engine_id)["state"])


# ---------------------------------------------------------------------------


def _spec(entry: Any, index: int) -> EngineSpec:
    if isinstance(entry, EngineSpec):
        return _checked(entry)
    if isinstance(entry, str):
        engine, options = parse_engine(entry)
        engine_id = resolve_engine_id(engine)
        written = ",".join(f"{k}={v}" for k, v in options.items())
        return _checked(EngineSpec(f"{engine_id}:{written}" if options else engine_id, engine_id, options))
    if callable(entry):
        name = getattr(entry, "backend", None) or getattr(entry, "__name__", None) or type(entry).__name__
        return EngineSpec(str(name), entry)
    raise TypeError(
        f"engine entry {index} is {type_name(entry)}; each engine is an ocracy id such as "
        f"'tesseract' or an image -> OcrResult callable."
    )


def _named_spec(name: Any, value: Any) -> EngineSpec:
    if not isinstance(name, str):
        raise TypeError(f"engine names must be strings, got {type_name(name)} {name!r}.")
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], Mapping):
        engine, options = value
        if not isinstance(engine, str):
            raise ValueError(
                f"engine {name!r}: options are for ocracy engines; bind them into your callable "
                "instead (functools.partial(read, **options))."
            )
        inner = _spec(engine, 0)
        extra = {**inner.options}
        for key, option in options.items():
            if key in extra:
                raise ValueError(
                    f"engine {name!r} gives the option {key!r} twice (in {engine!r} and in its options); keep one."
                )
            extra[key] = option
        return _checked(EngineSpec(name, inner.engine, extra))
    inner = _spec(value, 0)
    return EngineSpec(name, inner.engine, inner.options)


def _checked(spec: EngineSpec) -> EngineSpec:
    """``spec`` with its id resolved and its options parsed (callables pass as they are)."""
    if callable(spec.engine):
        return spec
    engine_id = resolve_engine_id(spec.engine)
    return EngineSpec(spec.name, engine_id, check_options(engine_id, spec.options))


def _as_is(spec: EngineSpec) -> Callable[..., Any]:
    engine = spec.engine

    def read(image: Any, *, kind: str | None = None) -> Any:
        _check_kind(kind)
        return engine(image)  # type: ignore[operator]

    read.backend = getattr(engine, "backend", spec.name)  # type: ignore[attr-defined]
    read.options = dict(getattr(engine, "options", {}) or {})  # type: ignore[attr-defined]
    read.spec = spec  # type: ignore[attr-defined]
    read.__name__ = read.__qualname__ = getattr(engine, "__name__", spec.name)
    return read


def _reads_as_line(image: Any, kind: str | None) -> bool:
    _check_kind(kind)
    return kind == "line" if kind is not None else is_line_image(*_size(image))


def _check_kind(kind: Any) -> None:
    if kind is not None and kind not in _KINDS:
        raise ValueError(
            f"kind must be 'line', 'page' or None (decided by the image's shape), got {kind!r}; "
            "check the gold record's 'kind' field."
        )


def _size(image: Any) -> tuple[int, int]:
    """(width, height) of a PIL image or array as it is, of a file or bytes from its header."""
    size = getattr(image, "size", None)
    if isinstance(size, tuple) and len(size) == 2:
        return int(size[0]), int(size[1])
    shape = getattr(image, "shape", None)
    if isinstance(shape, tuple) and len(shape) >= 2:
        return int(shape[1]), int(shape[0])
    from ek.ocr.bridge import open_image

    width, height = open_image(image).size
    return int(width), int(height)


def _check_tesseract_langs(lang: str) -> None:
    import pytesseract

    try:
        installed = sorted(pytesseract.get_languages(config=""))
    except (OSError, RuntimeError, pytesseract.TesseractNotFoundError):
        return  # no program to ask: binding the engine reports that, with the fix
    missing = [code for code in lang.split("+") if code not in installed]
    if missing:
        packages = " ".join(f"tesseract-ocr-{c.lower().replace('_', '-')}" for c in missing)
        raise ValueError(
            f"Tesseract has no {' or '.join(map(repr, missing))} language model here (installed: "
            f"{', '.join(installed)}); install it (apt-get install -y {packages}) or pick an "
            f"installed one."
        )
