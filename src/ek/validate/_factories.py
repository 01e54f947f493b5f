"""The layer factories of `ek.validate`: they check settings and build a layer.

Public through `ek.validate`. Correctors (may propose a new value): L0
`canonicalize_corrector`, L2 `lexicon_corrector`, the gated L5
`llm_corrector`. Validators (only flag): L3 `lm_surprisal_validator` and the
record-level `cross_field_validator` and `ordering_validator`. Each factory
validates its arguments once and returns one of the frozen layer objects of
`ek.validate._layers`, which decide per value.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

from ek._util import type_name
from ek.canonicalize import Steps, resolve_canonicalizer
from ek.validate._layers import (
    CanonicalizeCorrector,
    CrossFieldValidator,
    LexiconCorrector,
    LlmCorrector,
    OrderingValidator,
    SurprisalValidator,
)
from ek.validate._pipeline import Corrector, Layer

__all__ = [
    "DEFAULT_LEXICON_THRESHOLD",
    "canonicalize_corrector",
    "cross_field_validator",
    "lexicon_corrector",
    "llm_corrector",
    "lm_surprisal_validator",
    "ordering_validator",
]

DEFAULT_LEXICON_THRESHOLD = 0.8
"""Least similarity in [0, 1] at which a closed-vocabulary match is applied.

Below it the value is flagged instead. One swapped or mistyped letter in a
six-letter word scores about 0.83 with ``fuzz.ratio``; unrelated words score
near 0.3, so 0.8 fixes common typos while rarely replacing a real value.
"""


# ---------------------------------------------------------------------------
# Correctors: L0 canonicalization, L2 closed lexicon, L5 gated LLM
# ---------------------------------------------------------------------------


def canonicalize_corrector(normalize: Steps, *, field_name: str = "", layer: str = "canonicalize") -> Corrector:
    """L0: a corrector proposing the canonical form of a string when it differs.

    ``normalize`` is anything `ek.canonicalize.resolve_canonicalizer` takes: a
    registered step name, a list of steps, a callable or a `Canonicalizer`.
    Run it first so the later layers compare canonical forms. Values that
    are not strings pass untouched.

    Raises:
        ValueError: ``normalize`` is None.
        TypeError: ``normalize`` is not something a canonicalizer can be built from.

    >>> [f.suggestion for f in canonicalize_corrector(["strip", "lower"])("  ACME ")]
    ['acme']
    """
    if normalize is None:
        raise ValueError(
            "canonicalize_corrector() needs a normalizer, got None; pass a step name such as "
            "'collapse_whitespace', a list of steps, or a str -> str callable."
        )
    return CanonicalizeCorrector(resolve_canonicalizer(normalize), field_name, layer)


def lexicon_corrector(
    vocabulary: Iterable[str],
    *,
    threshold: float = DEFAULT_LEXICON_THRESHOLD,
    scorer: Callable[..., float] | None = None,
    field_name: str = "",
    layer: str = "lexicon",
    flag_unmatched: bool = True,
) -> Corrector:
    """L2: resolve a string to the nearest member of a closed vocabulary (rapidfuzz).

    A member of the vocabulary passes untouched. Otherwise the most similar
    member is proposed as a correction when its similarity is at least
    ``threshold`` and no other member ties with it; a tie is flagged as
    ambiguous, and a value with no member close enough is flagged as out
    of vocabulary (unless ``flag_unmatched=False``, the setting for an open
    vocabulary where a miss proves nothing).

    Args:
        vocabulary: the allowed values (country codes, SKUs, enum members).
        threshold: least similarity in [0, 1] for an automatic correction.
        scorer: a rapidfuzz similarity scorer, default ``rapidfuzz.fuzz.ratio``.
            Scorers on a 0-100 or a 0-1 scale both work.
        field_name: name put on the findings (default: the spec's name).
        layer: the findings' layer name.
        flag_unmatched: flag a value no member is close to.

    Raises:
        ValueError: an empty vocabulary, or ``threshold`` outside [0, 1].
        TypeError: ``vocabulary`` is a single string or holds non-strings.

    >>> fix = lexicon_corrector(["France", "Germany", "Spain"])
    >>> [(f.severity.value, f.suggestion) for f in fix("Frnace")]
    [('correct', 'France')]
    >>> [f.severity.value for f in fix("Atlantis")]
    ['flag']
    """
    from rapidfuzz import fuzz

    if isinstance(vocabulary, (str, bytes)):
        raise TypeError(
            f"lexicon_corrector() vocabulary is the single string {vocabulary!r:.40}; pass a "
            "list of allowed values, e.g. ['France', 'Spain']."
        )
    members = tuple(dict.fromkeys(vocabulary))
    if not members:
        raise ValueError(
            "lexicon_corrector() got an empty vocabulary, so every value would be flagged; "
            "pass the closed set of allowed values."
        )
    for m in members:
        if not isinstance(m, str):
            raise TypeError(
                f"lexicon_corrector() vocabulary holds a {type_name(m)} ({m!r:.40}); fuzzy "
                "matching compares strings, so convert the members with str() first."
            )
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0 <= threshold <= 1:
        raise ValueError(
            f"lexicon_corrector() threshold must be a similarity in [0, 1], got {threshold!r}; "
            f"the default is {DEFAULT_LEXICON_THRESHOLD}."
        )
    scorer = fuzz.ratio if scorer is None else scorer
    if not callable(scorer):
        raise TypeError(
            f"lexicon_corrector() scorer is a {type_name(scorer)}; pass a rapidfuzz scorer such "
            "as rapidfuzz.fuzz.ratio."
        )
    best = float(scorer("lexicon", "lexicon"))
    if not best > 0:
        raise ValueError(
            f"lexicon_corrector() scorer gives {best!r} for two identical strings; it must be a "
            "similarity (identical strings score highest), such as rapidfuzz.fuzz.ratio."
        )
    return LexiconCorrector(
        members, frozenset(members), float(threshold), scorer, best, field_name, layer, bool(flag_unmatched)
    )


def llm_corrector(
    correct_fn: Callable[[Any], str | None],
    *,
    only_flagged: bool = True,
    field_name: str = "",
    layer: str = "llm_correct",
) -> Corrector:
    """L5: a gated corrector that asks an injected model for a fixed value.

    ``correct_fn(value)`` is your own LLM or seq2seq call; it returns the
    corrected string, or None to leave the value alone. It is the only layer
    that invents text, so with ``only_flagged`` (default) it runs only when
    an earlier layer of the same pass flagged the value: the pipeline hands
    it the findings so far (its ``wants_findings`` attribute asks for them).
    Called outside a pipeline with no findings, a gated corrector does
    nothing. Its proposal is a CORRECT finding; the pipeline keeps the
    original beside it, and you should still verify the rewrite downstream.

    A sketch with the Anthropic client: ``llm_corrector(lambda v: client.messages.create(
    model=..., max_tokens=64, messages=[{"role": "user", "content": prompt(v)}]).content[0].text.strip())``.

    Raises:
        TypeError: ``correct_fn`` is not callable; when run, it returned
            something other than a str or None.

    >>> from ek.validate import validation_pipeline
    >>> fix = llm_corrector(lambda v: v.replace("0", "O"))
    >>> validation_pipeline(lexicon_corrector(["OSLO"], threshold=0.9), fix)("0SL0").value
    'OSLO'
    """
    if not callable(correct_fn):
        raise TypeError(
            f"llm_corrector() correct_fn is a {type_name(correct_fn)}; pass a callable "
            "value -> corrected str (or None to keep the value)."
        )
    return LlmCorrector(correct_fn, bool(only_flagged), field_name, layer)


# ---------------------------------------------------------------------------
# Validators: L3 language-model surprisal, cross-field, ordering
# ---------------------------------------------------------------------------


def lm_surprisal_validator(
    scorer: Callable[[str], float],
    *,
    threshold: float,
    higher_is_worse: bool = True,
    field_name: str = "",
    layer: str = "lm_prior",
) -> Layer:
    """L3: flag a string that an injected language model finds too unlikely.

    ``scorer(text)`` returns a surprisal, perplexity or negative
    log-likelihood; a value scoring above ``threshold`` is flagged. For a
    scorer returning a probability or log-probability (higher is better)
    set ``higher_is_worse=False``, and a score below ``threshold`` is
    flagged. An in-domain model makes this useful; with a masked LM via
    ``minicons``: ``m = scorer.MaskedLMScorer("bert-base-uncased", "cpu")`` and
    ``scorer=lambda s: -m.sequence_score(s)[0]``. Non-strings are skipped.
    Flags only: pair it with `lexicon_corrector` or `llm_corrector` to fix.

    Raises:
        TypeError: ``scorer`` is not callable; when run, it returned a non-number.
        ValueError: ``threshold`` is not a finite number; when run, the score is NaN.

    >>> check = lm_surprisal_validator(len, threshold=5)
    >>> [f.layer for f in check("gibberish")], list(check("fine"))
    (['lm_prior'], [])
    """
    if not callable(scorer):
        raise TypeError(
            f"lm_surprisal_validator() scorer is a {type_name(scorer)}; pass a callable "
            "str -> float returning surprisal (or a probability with higher_is_worse=False)."
        )
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not math.isfinite(threshold):
        raise ValueError(
            f"lm_surprisal_validator() threshold must be a finite number, got {threshold!r}; "
            "pick it on held-out clean values, e.g. their 99th percentile surprisal."
        )
    return SurprisalValidator(scorer, float(threshold), bool(higher_is_worse), field_name, layer)


def cross_field_validator(
    predicate: Callable[[Any], bool],
    *,
    message: str,
    fields: Iterable[str] = (),
    layer: str = "cross_field",
) -> Layer:
    """Flag a whole record when ``predicate(record)`` is false.

    A predicate that raises (a missing key, a None where a number was
    expected) is skipped silently: a partial record is not a cross-field
    violation. ``fields`` names the fields involved; the finding's ``field``
    is them joined with commas.

    Raises:
        TypeError: ``predicate`` is not callable or ``message`` is not a str.

    >>> check = cross_field_validator(lambda r: r["net"] <= r["gross"], message="net above gross",
    ...                               fields=("net", "gross"))
    >>> [f.field for f in check({"net": 12, "gross": 10})], list(check({"net": 1}))
    (['net,gross'], [])
    """
    if not callable(predicate):
        raise TypeError(
            f"cross_field_validator() predicate is a {type_name(predicate)}; pass a callable "
            "record -> bool that is True when the record is consistent."
        )
    if not isinstance(message, str) or not message:
        raise TypeError(
            f"cross_field_validator() message must be a non-empty str, got {message!r:.40}; "
            "say what is inconsistent, e.g. 'net amount exceeds gross amount'."
        )
    names = (fields,) if isinstance(fields, str) else tuple(fields)
    return CrossFieldValidator(predicate, message, names, layer)


def ordering_validator(
    keys: Iterable[str], *, strict: bool = True, layer: str = "cross_field", dayfirst: bool | None = True
) -> Layer:
    """Flag a record whose values at ``keys`` are out of ascending order.

    The date and sequence check: ``start`` before ``end``, ``issued`` before
    ``due``. With ``strict`` (default) equal neighbours are flagged too
    (each value must be smaller than the next); ``strict=False`` allows ties.
    Keys that are missing or None are skipped, and so is a pair of values
    that cannot be compared, so partial records are safe. One finding per
    out-of-order neighbouring pair.

    Values are compared by what they denote, not as text:

    * numbers: ints, floats, Decimals and strings of ASCII digits (``"10"``,
      ``"-2.5"``, ``"1e3"``), so ``"9"`` comes before ``"10"``;
    * dates and times: `datetime.date` / `datetime.datetime` objects and ISO
      8601 strings ``YYYY-MM-DD``, optionally with ``THH:MM[:SS[.ffffff]]``
      (a space may replace the ``T``) and ``Z`` or ``+HH:MM``. A date is the
      midnight that starts it; a time with an offset is compared only with
      another that has one;
    * dates written with the day and the month before a four-digit year,
      ``DD/MM/YYYY``, ``DD.MM.YYYY`` or ``DD-MM-YYYY`` (one separator
      throughout; one or two digits for the day and the month). Which of the
      two numbers is the day: a date only one reading fits (``25/12/2024``,
      ``12/25/2024``) is read that way, and it decides for the other dates
      of the record; when none does (or two disagree), ``dayfirst`` decides:
      True (the default) reads ``02/05/2024`` as 2 May, False as February 5,
      and None leaves such a date unread, so its pairs are skipped. Other
      spellings (``2 May 2024``, two-digit years) are text;
    * any other strings as text. A number next to a date, or text next to
      either, cannot be compared, and the pair is skipped.

    Raises:
        ValueError: fewer than two keys.
        TypeError: ``dayfirst`` that is not True, False or None; when run,
            a record that is not a mapping.

    >>> check = ordering_validator(["issued", "due"])
    >>> [f.message for f in check({"issued": "2024-05-02", "due": "2024-04-30"})]
    ["issued ('2024-05-02') is not before due ('2024-04-30')"]
    >>> [f.message for f in ordering_validator(["min", "max"])({"min": "10", "max": "9"})]
    ["min ('10') is not before max ('9')"]
    >>> [f.message for f in check({"issued": "02/05/2024", "due": "30/04/2024"})]
    ["issued ('02/05/2024') is not before due ('30/04/2024')"]
    """
    names = (keys,) if isinstance(keys, str) else tuple(keys)
    if len(names) < 2:
        raise ValueError(
            f"ordering_validator() needs at least two keys to compare, got {list(names)!r}; "
            "pass them in the order they must ascend, e.g. ['start', 'end']."
        )
    if dayfirst is not None and not isinstance(dayfirst, bool):
        raise TypeError(
            f"ordering_validator() dayfirst must be True, False or None, got {dayfirst!r}; True reads "
            "02/05/2024 as 2 May, False as February 5, None leaves such dates unread."
        )
    return OrderingValidator(names, bool(strict), layer, dayfirst)
