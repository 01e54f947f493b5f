"""The one error type of the input layer, strict UTF-8 decoding that says where it failed, and confidence checks."""

from __future__ import annotations

from collections.abc import Callable


class InputError(ValueError):
    """A GOLD or PRED input that cannot be read; the message is one line naming the file and the fix."""


def decode_utf8(data: bytes, source: str, *, keep_bom: bool = False) -> str:
    """``data`` as text (a leading byte-order mark dropped unless ``keep_bom``), or `InputError` at the first bad byte.

    >>> decode_utf8(b"caf\\xc3\\xa9", "a.txt")
    'café'
    >>> decode_utf8(b"caf\\xe9", "a.txt")
    Traceback (most recent call last):
    ...
    ek._files._errors.InputError: a.txt is not UTF-8: byte 0xe9 at offset 3 cannot be decoded; re-encode the file as UTF-8 (e.g. iconv -f latin1 -t utf-8).
    """
    skip = 3 if data.startswith(b"\xef\xbb\xbf") and not keep_bom else 0
    try:
        return data[skip:].decode("utf-8")
    except UnicodeDecodeError as exc:
        at = exc.start + skip
        raise InputError(
            f"{source} is not UTF-8: byte 0x{data[at]:02x} at offset {at} cannot be decoded; "
            "re-encode the file as UTF-8 (e.g. iconv -f latin1 -t utf-8)."
        ) from None


def confidence(
    raw: str | None, label: str, element: str | Callable[[], str], attr: str, scale: float = 1.0
) -> float | None:
    """The confidence ``raw`` (None when absent) divided by ``scale``; `InputError` unless it lands in [0, 1].

    ``element`` names the element and its id (or is a function that does, called only for the
    message), ``attr`` the attribute (or hOCR property).

    >>> confidence("96", "a.hocr", "<span class='ocrx_word' id='w1'>", "x_wconf", scale=100)
    0.96
    >>> confidence("nan", "a.xml", "<String ID='s1'>", "WC")
    Traceback (most recent call last):
    ...
    ek._files._errors.InputError: a.xml: <String ID='s1'> has WC='nan', which is not a finite number; confidences are numbers between 0 and 1 (hOCR x_wconf between 0 and 100): fix the value or remove it.
    """
    if raw is None:
        return None
    try:
        value = float(raw) / scale
    except ValueError:
        problem = "which is not a number"
    else:
        if value != value or value in (float("inf"), float("-inf")):
            problem = "which is not a finite number"
        elif not 0 <= value <= 1:
            problem = f"which is outside [0, {scale:g}]"
        else:
            return value
    raise InputError(
        f"{label}: {element if isinstance(element, str) else element()} has {attr}={shorten(raw)!r}, {problem}; confidences are numbers between 0 and 1 "
        "(hOCR x_wconf between 0 and 100): fix the value or remove it."
    )


def shorten(value: str, limit: int = 40) -> str:
    """``value`` cut to ``limit`` characters (and "...") for a one-line message."""
    return value if len(value) <= limit else value[:limit] + "..."
