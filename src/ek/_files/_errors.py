"""The one error type of the input layer, and strict UTF-8 decoding that says where it failed."""

from __future__ import annotations


class InputError(ValueError):
    """A GOLD or PRED input that cannot be read; the message is one line naming the file and the fix."""


def decode_utf8(data: bytes, source: str) -> str:
    """``data`` as text (a leading byte-order mark dropped), or `InputError` at the first bad byte.

    >>> decode_utf8(b"caf\\xc3\\xa9", "a.txt")
    'café'
    >>> decode_utf8(b"caf\\xe9", "a.txt")
    Traceback (most recent call last):
    ...
    ek._files._errors.InputError: a.txt is not UTF-8: byte 0xe9 at offset 3 cannot be decoded; re-encode the file as UTF-8 (e.g. iconv -f latin1 -t utf-8).
    """
    skip = 3 if data.startswith(b"\xef\xbb\xbf") else 0
    try:
        return data[skip:].decode("utf-8")
    except UnicodeDecodeError as exc:
        at = exc.start + skip
        raise InputError(
            f"{source} is not UTF-8: byte 0x{data[at]:02x} at offset {at} cannot be decoded; "
            "re-encode the file as UTF-8 (e.g. iconv -f latin1 -t utf-8)."
        ) from None
