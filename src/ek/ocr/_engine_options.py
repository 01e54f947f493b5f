"""The options each OCR engine of a fleet takes, and the checks that turn given values into them.

A fleet names an engine with its options, in Python (``("tesseract",
{"lang": "deu"})``) or on the command line (``tesseract:lang=deu,psm=6``),
where every value arrives as a string. Each engine has a table of the
options it takes; `check_options` refuses any other name (listing the ones
the engine takes, with a did-you-mean) and parses each value, so ``psm="7"``
becomes ``7`` and ``det="off"`` becomes ``False`` before any image is read.

* Tesseract: ``lang`` (its language models, ``eng``, ``deu``, ``eng+deu``),
  ``psm`` (page segmentation mode, 0-13), ``oem`` (OCR engine mode, 0-3).
* RapidOCR: ``det`` (run the text detector), ``cls`` (run the 0/180 degree
  direction classifier), each a boolean.
* Any other ocracy engine: the options its ocracy ``param_map`` declares,
  passed on as given (ocracy translates them).

`parse_engine` splits the command-line form ``id:name=value,...``.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ek._util import type_name

__all__ = ["EngineOption", "check_options", "engine_options", "parse_engine"]

_LANG = re.compile(r"[A-Za-z0-9_/.-]+(\+[A-Za-z0-9_/.-]+)*")
_TRUE = frozenset({"true", "yes", "on", "1"})
_FALSE = frozenset({"false", "no", "off", "0"})


@dataclass(frozen=True)
class EngineOption:
    """One option an engine takes: its name, the parser of its value, and what it does."""

    name: str
    parse: Callable[[Any], Any]
    about: str


def engine_options(engine_id: str) -> tuple[EngineOption, ...]:
    """The options ``engine_id`` (an ocracy id) takes in a fleet."""
    table = _TABLES.get(engine_id)
    if table is not None:
        return table
    import ocracy

    param_map = ocracy.get_config(engine_id).get("param_map") or {}
    return tuple(
        EngineOption(name, _as_given, "passed to ocracy as given")
        for name, spec in sorted(param_map.items())
        if spec is not None
    )


def check_options(engine_id: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """``options`` checked against what ``engine_id`` takes, each value parsed (ValueError if not).

    >>> check_options("tesseract", {"psm": "7", "lang": "eng+deu"})
    {'psm': 7, 'lang': 'eng+deu'}
    """
    if not isinstance(options, Mapping):
        raise TypeError(
            f"the options of {engine_id!r} must be a mapping name -> value, got "
            f"{type_name(options)}; write e.g. ('tesseract', {{'lang': 'deu'}})."
        )
    table = {o.name: o for o in engine_options(engine_id)}
    checked = {}
    for name, value in options.items():
        option = table.get(name)
        if option is None:
            raise ValueError(_unknown_option(engine_id, name, table))
        try:
            checked[name] = option.parse(value)
        except ValueError as exc:
            raise ValueError(f"option {name}={value!r} of {engine_id!r}: {exc}") from None
    return checked


def parse_engine(text: str) -> tuple[str, dict[str, str]]:
    """``"id:name=value,..."`` split into the id and its options (values still strings).

    >>> parse_engine("tesseract:lang=deu, psm=6")
    ('tesseract', {'lang': 'deu', 'psm': '6'})
    """
    engine, sep, rest = text.partition(":")
    if not engine.strip():
        raise ValueError(f"engine {text!r} names no engine before ':'; write e.g. 'tesseract:lang=deu'.")
    if not sep:
        return engine, {}
    options: dict[str, str] = {}
    for part in rest.split(","):
        name, eq, value = (s.strip() for s in part.partition("="))
        if not eq or not name or not value:
            raise ValueError(
                f"engine {text!r}: {part.strip()!r} is not name=value; write the options as "
                f"'{engine.strip()}:name=value,name=value', e.g. 'tesseract:lang=deu,psm=6'."
            )
        if name in options:
            raise ValueError(f"engine {text!r} gives the option {name!r} twice; keep one.")
        options[name] = value
    return engine, options


# ---------------------------------------------------------------------------


def _as_given(value: Any) -> Any:
    return value


def _tesseract_lang(value: Any) -> str:
    if not isinstance(value, str) or not _LANG.fullmatch(value.strip()):
        raise ValueError(
            "Tesseract's lang is one language model or several joined by '+', such as 'eng' "
            "or 'eng+deu' (tesseract --list-langs lists the installed ones)"
        )
    return value.strip()


def _int_in(low: int, high: int) -> Callable[[Any], int]:
    def parse(value: Any) -> int:
        number = value
        if isinstance(value, str) and value.strip().isdigit():
            number = int(value)
        if isinstance(number, bool) or not isinstance(number, int) or not low <= number <= high:
            raise ValueError(f"it must be a whole number from {low} to {high}")
        return number

    return parse


def _boolean(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    word = str(value).strip().lower() if isinstance(value, (str, int)) else None
    if word in _TRUE:
        return True
    if word in _FALSE:
        return False
    raise ValueError("it must be true or false (also yes/no, on/off, 1/0)")


def _unknown_option(engine_id: str, name: Any, table: Mapping[str, EngineOption]) -> str:
    close = difflib.get_close_matches(str(name), list(table), n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    takes = "; ".join(f"{o.name} ({o.about})" for o in table.values()) or "none"
    return f"{engine_id!r} takes no option {name!r}.{hint} The options it takes: {takes}."


_TABLES: dict[str, tuple[EngineOption, ...]] = {
    "tesseract": (
        EngineOption("lang", _tesseract_lang, "its language models: eng, deu, eng+deu"),
        EngineOption("psm", _int_in(0, 13), "page segmentation mode 0-13; 6 one block of text, 7 one line"),
        EngineOption("oem", _int_in(0, 3), "OCR engine mode 0-3; 1 the LSTM recogniser"),
    ),
    "rapidocr": (
        EngineOption("det", _boolean, "run the text detector, true or false; false reads the image as one line"),
        EngineOption("cls", _boolean, "run the 0/180 degree text-direction classifier, true or false"),
    ),
}
