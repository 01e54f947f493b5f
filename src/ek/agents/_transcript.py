"""Reading chat transcripts for the agent bridges: tool calls, their results and their arguments.

`parse_transcript` walks OpenAI (chat and Responses), Anthropic and Inspect
messages and pairs each tool result with its call (`Calls`).
`read_arguments` turns raw tool-call arguments into a dict or the reason
they can't be used: malformed JSON, a non-object, nesting deeper than
`MAX_DEPTH` levels, or a number longer than `MAX_NUMBER_DIGITS` characters.
Both limits are checked without recursion, so hostile arguments become the
step's recorded error instead of a `RecursionError` here or anywhere the
arguments are later compared, canonicalized or stored.
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Iterable, Mapping
from typing import Any

from ek._util import type_name
from ek.agents.base import Step

MAX_DEPTH = 100  # argument nesting kept; deeper is refused before any recursion
MAX_NUMBER_DIGITS = 4300  # characters of one JSON number (Python's own int parsing limit)
_MAX_INT_BITS = 14_300  # about MAX_NUMBER_DIGITS decimal digits


def get_field(obj: Any, key: str, default: Any = None) -> Any:
    """``obj[key]`` of a mapping or ``obj.key`` of an object (message shapes come as either)."""
    if obj is None:
        return default
    if isinstance(obj, Mapping):
        return obj.get(key, default)
    return getattr(obj, key, default)


def parse_transcript(messages: Iterable[Any]) -> tuple[Any, ...]:
    """``(calls, last_assistant_text, usages)`` of a transcript in any supported format."""
    if isinstance(messages, (str, bytes, Mapping)) or not isinstance(messages, Iterable):
        raise TypeError(
            f"messages must be a list of chat messages (dicts or message objects), got {type_name(messages)}."
        )
    get = get_field
    calls = Calls()
    last_text: str | None = None
    usages: list[Any] = []
    for msg in messages:
        role, content, kind = get(msg, "role"), get(msg, "content"), get(msg, "type")
        if kind == "function_call":  # OpenAI Responses API items
            calls.call(get(msg, "name"), get(msg, "arguments"), get(msg, "call_id"), None)
        elif kind == "function_call_output":
            calls.result(get(msg, "call_id"), None, _text(get(msg, "output")), _tool_error(msg))
        elif role == "assistant":
            for call in get(msg, "tool_calls") or ():
                calls.call(*_openai_call(call))
            legacy = get(msg, "function_call")
            if legacy is not None:
                calls.call(get(legacy, "name"), get(legacy, "arguments"), None, None)
            for block in content if isinstance(content, list) else ():
                if get(block, "type") == "tool_use":
                    calls.call(get(block, "name"), get(block, "input"), get(block, "id"), None)
            text = _text(content)
            if isinstance(text, str) and text.strip():
                last_text = text
            u = get(msg, "usage")
            if u is not None:
                usages.append(u)
        elif role in ("tool", "function"):
            calls.result(
                get(msg, "tool_call_id"), get(msg, "name") or get(msg, "function"), _text(content), _tool_error(msg)
            )
        elif isinstance(content, list):
            for block in content:
                if get(block, "type") == "tool_result":
                    body = _text(get(block, "content"))
                    calls.result(get(block, "tool_use_id"), None, body, _tool_error(block, observation=body))
    return calls, last_text, usages


def _openai_call(call: Any) -> tuple[Any, ...]:
    fn = get_field(call, "function")
    if isinstance(fn, str):  # Inspect's ToolCall: function is the name, arguments a dict
        return fn, get_field(call, "arguments"), get_field(call, "id"), get_field(call, "parse_error")
    return get_field(fn, "name"), get_field(fn, "arguments"), get_field(call, "id"), None


class Calls:
    """The tool calls of one transcript, in call order, each paired with at most one result.

    A result goes to the first unanswered call carrying its id; calls may
    share an id (some models reuse ``call_0`` on every turn), so an id maps
    to all its calls, and an id that two or more unanswered calls share
    when a result arrives is recorded in ``ambiguous``. A result with no
    id, or an id no waiting call has, goes to the oldest unanswered call
    (of the same tool name when the result names one).
    """

    def __init__(self) -> None:
        self.rows: list[Any] = []  # [tool, args, observation, error, answered]
        self.by_id: dict[Any, Any] = {}  # call id -> indices of the calls that carry it
        self.ambiguous: list[Any] = []  # ids a result could not tell apart, in first-seen order

    def call(self, name: Any, raw_args: Any, call_id: Any, error: Any) -> None:
        if not isinstance(name, str) or not name:
            name = "<unnamed>"
            error = error or "the tool call names no function"
        args, problem = read_arguments(raw_args)
        error = error or problem
        if call_id is not None:
            self.by_id.setdefault(str(call_id), []).append(len(self.rows))
        self.rows.append([name, args, None, str(error) if error else None, False])

    def result(self, call_id: Any, name: Any, observation: Any, error: Any) -> None:
        rows = self.rows
        sharing = self.by_id.get(str(call_id), ()) if call_id is not None else ()
        waiting = [j for j in sharing if not rows[j][4]]
        if len(waiting) > 1 and str(call_id) not in self.ambiguous:
            self.ambiguous.append(str(call_id))
        if waiting:
            index = waiting[0]
        else:
            open_rows = [j for j, r in enumerate(rows) if not r[4]]
            named = [j for j in open_rows if name is not None and rows[j][0] == name]
            if not (named or open_rows):
                return  # a result with no call to answer: nothing to attach it to
            index = (named or open_rows)[0]
        row = rows[index]
        row[2], row[4] = observation, True
        if error and not row[3]:
            row[3] = error

    def steps(self) -> list[Any]:
        return [Step(r[0], r[1], observation=r[2], error=r[3]) for r in self.rows]

    def meta(self) -> dict[Any, Any]:
        return {"ambiguous_call_ids": list(self.ambiguous)} if self.ambiguous else {}


def warn_ambiguous(ids: list[Any]) -> None:
    """Warn the bridge's caller that results for these shared call ids were paired in call order."""
    if ids:
        shown = ", ".join(map(repr, ids[:5])) + (", ..." if len(ids) > 5 else "")
        warnings.warn(
            f"{len(ids)} tool call id(s) ({shown}) were shared by calls waiting for a result at the "
            "same time, so their results were paired with those calls in call order. Providers give "
            "every call its own id; check how the transcript was recorded.",
            stacklevel=3,
        )


def read_arguments(raw: Any) -> tuple[Any, ...]:
    """``(args, error)``: a dict of arguments, or {} and why the raw arguments were unusable."""
    if raw is None or raw == "":
        return {}, None
    if isinstance(raw, Mapping):
        parsed: Any = raw
    elif isinstance(raw, str):
        try:
            parsed = json.loads(raw, parse_int=_json_int, parse_float=_json_float, parse_constant=_json_constant)
        except json.JSONDecodeError as exc:
            return {}, f"arguments are not valid JSON ({exc.msg} at position {exc.pos}): {raw[:80]!r}"
        except RecursionError:
            return {}, f"arguments nest deeper than {MAX_DEPTH} levels: {raw[:80]!r}"
        except ValueError as exc:
            return {}, f"arguments are not usable JSON ({exc}): {raw[:80]!r}"
        if not isinstance(parsed, dict):
            return {}, f"arguments must be a JSON object, got {type(parsed).__name__}: {raw[:80]!r}"
    else:
        return {}, f"arguments must be a JSON object, got {type_name(raw)}"
    problem = _oversized(parsed)
    return ({}, problem) if problem else (dict(parsed), None)


def _oversized(args: Mapping[Any, Any]) -> str | None:
    """Why parsed arguments can't be kept (nesting too deep, an integer too long), else None.

    Walked with an explicit stack, so depth costs no recursion here, and
    every later consumer (comparison, canonicalization, a JSON store) gets
    arguments it can recurse through.
    """
    stack = [(args, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, Mapping):
            children: Iterable[Any] = value.values()
        elif isinstance(value, (list, tuple)):
            children = value
        else:
            if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > _MAX_INT_BITS:
                return f"arguments hold an integer longer than {MAX_NUMBER_DIGITS} digits"
            continue
        if depth > MAX_DEPTH:
            return f"arguments nest deeper than {MAX_DEPTH} levels"
        stack.extend((child, depth + 1) for child in children)
    return None


def _json_int(text: str) -> int:
    if len(text) > MAX_NUMBER_DIGITS:
        raise ValueError(f"a number of {len(text)} digits; the limit is {MAX_NUMBER_DIGITS}")
    return int(text)


def _json_float(text: str) -> float:
    if len(text) > MAX_NUMBER_DIGITS:
        raise ValueError(f"a number of {len(text)} characters; the limit is {MAX_NUMBER_DIGITS}")
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:40]} is outside the range of a float")
    return value


def _json_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _tool_error(msg: Any, observation: Any = None) -> str | None:
    err = get_field(msg, "error")
    if err:
        kind, text = get_field(err, "type"), get_field(err, "message")
        if text is not None:
            return f"{kind}: {text}" if kind else str(text)
        return str(err)
    if get_field(msg, "is_error") is True or get_field(msg, "status") == "error":
        body = observation if observation is not None else _text(get_field(msg, "content"))
        return str(body) if body not in (None, "") else "the tool reported an error"
    return None


def _text(content: Any) -> Any:
    """Message content as text: a str as is, the text blocks of a list joined; else unchanged."""
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            get_field(b, "text") if not isinstance(b, str) else b
            for b in content
            if isinstance(b, str) or get_field(b, "type") in ("text", "output_text", None)
        ]
        parts = [p for p in parts if isinstance(p, str)]
        return "\n".join(parts) if parts else content
    return content
