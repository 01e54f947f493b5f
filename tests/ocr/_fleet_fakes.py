"""Fake OCR engines for the fleet tests (OcrResult-shaped readings made from the image key), and test helpers.

They are importable by a subprocess (the kill-and-resume test) and named
(a persisted run refuses lambdas). ``KILL_AT`` in the environment makes the
Nth engine call SIGKILL its own process; ``CALLS`` counts the calls.
"""

from __future__ import annotations

import os
import re
import signal

CALLS: list = []


class Block:
    def __init__(self, text, confidence, level="word"):
        self.text, self.confidence, self.level = text, confidence, level


class Result:
    """A minimal OcrResult: text, word blocks, a backend name."""

    def __init__(self, text, confidences=None, level="word", backend=""):
        self.text = text
        self.backend = backend
        if confidences is None:
            self.blocks = []
        elif level == "word":
            self.blocks = [Block(w, c) for w, c in zip(text.split(), confidences)]
        else:
            self.blocks = [Block(line, c, level) for line, c in zip(text.splitlines(), confidences)]


WORDS = [
    "the",
    "quick",
    "brown",
    "fox",
    "jumps",
    "over",
    "the",
    "lazy",
    "dog",
    "while",
    "seven",
    "wizards",
    "quietly",
    "hex",
    "a",
    "jovial",
    "bumpkin",
    "near",
    "the",
    "old",
    "mill",
    "by",
    "the",
    "river",
]


def reference(i: int) -> str:
    """The true text of page ``i``: two lines of words."""
    words = [WORDS[(i * 7 + k) % len(WORDS)] for k in range(8)]
    return " ".join(words[:4]) + "\n" + " ".join(words[4:])


def gold(n: int, *, slices=("clean", "noisy")) -> dict:
    """``n`` pages, ``img-<i>`` as their images, alternating slices."""
    return {
        f"p{i:03d}": {"image": f"img-{i}", "reference_text": reference(i), "slice": slices[i % len(slices)]}
        for i in range(n)
    }


def _count():
    CALLS.append(1)
    if len(CALLS) == int(os.environ.get("KILL_AT", "0")):
        os.kill(os.getpid(), signal.SIGKILL)  # no cleanup, no finally: a real kill


def _page(image) -> int:
    return int(str(image).rsplit("-", 1)[1])


def careful(image):
    """Misreads one letter of the second word on every third page; confident where right."""
    _count()
    i = _page(image)
    lines = reference(i).splitlines()
    words = lines[0].split()
    wrong = i % 3 == 0
    if wrong:
        words[1] = "x" + words[1][1:]
    lines[0] = " ".join(words)
    text = "\n".join(lines)
    confidences = [0.95] * len(text.split())
    if wrong:
        confidences[1] = 0.55
    return Result(text, confidences, backend="careful")


def sloppy(image):
    """Drops the last word on every second page and misreads 'the' as 'tne'; line confidences."""
    _count()
    i = _page(image)
    text = reference(i).replace("the", "tne")
    if i % 2 == 0:
        text = text.rsplit(" ", 1)[0]
    lines = text.splitlines()
    return Result(text, [0.9 if "tne" in line else 0.8 for line in lines], level="line", backend="sloppy")


def plain(image):
    """The true text as a plain string (no blocks, no confidence)."""
    _count()
    return reference(_page(image))


def reader(table):
    """A fake engine: the image is a key into ``table`` (a reading, a text, or an exception to raise)."""

    def read(image):
        value = table[image]
        if isinstance(value, Exception):
            raise value
        return value

    return read


_SECONDS = re.compile(r"(?<![\d.])\d+\.\d{3}(?!\d)")  # the s/page columns (figures have four decimals)


def without_seconds(text: str) -> str:
    """A printed ranking with its times per page masked and its spacing collapsed: what two runs share."""
    return re.sub(r"-{2,}", "--", re.sub(r" +", " ", _SECONDS.sub("#", text)))
