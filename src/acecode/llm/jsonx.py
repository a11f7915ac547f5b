"""Pull one JSON object out of an LLM reply.

Models wrap JSON in code fences, surround it with prose, or answer with bare
JSON. REQ-CUR-016 fixes the order of attempts so every role parses replies the
same way: a ```json fence, a bare fence, balanced-brace scanning that respects
strings and escapes, and finally a raw parse of the whole text. The first
strategy that yields a JSON object wins.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

_JSON_FENCE = re.compile(r"```json[ \t]*\r?\n?(.*?)```", re.DOTALL | re.IGNORECASE)
_ANY_FENCE = re.compile(r"```[^\n`]*\r?\n(.*?)```", re.DOTALL)

# Bound the balanced-brace search so a reply full of stray braces stays linear-ish.
_MAX_BRACE_STARTS = 64


def extract_json(text: str | None) -> dict[str, Any] | None:
    """Return the first JSON object found in ``text``, or None when there is none.

    Only objects count: a reply that parses to a list or a scalar is not a role
    result, so it is treated like no JSON at all.
    """
    if not text or not text.strip():
        return None
    for candidate in _candidates(text):
        parsed = _loads_object(candidate)
        if parsed is not None:
            return parsed
    return None


def _candidates(text: str) -> Iterator[str]:
    """The four strategies of REQ-CUR-016, in order, as candidate substrings."""
    for match in _JSON_FENCE.finditer(text):
        yield match.group(1)
    for match in _ANY_FENCE.finditer(text):
        yield match.group(1)
    yield from _balanced_objects(text)
    yield text


def _balanced_objects(text: str) -> Iterator[str]:
    """Substrings from a ``{`` to its matching ``}``, outermost first.

    Braces inside JSON strings do not count, and a backslash escapes the next
    character inside a string, so ``{"a": "}"}`` is read as one object.
    """
    start = text.find("{")
    tried = 0
    while start != -1 and tried < _MAX_BRACE_STARTS:
        tried += 1
        end = _matching_brace(text, start)
        if end is not None:
            yield text[start : end + 1]
        start = text.find("{", start + 1)


def _structure(text: str, start: int) -> Iterator[tuple[int, str]]:
    """``(index, character)`` of what shapes JSON from ``start`` on: brackets, braces,
    colons and commas outside strings, and ``"`` where a string ends. Braces inside a
    string do not count, and a backslash escapes the next character inside one, so
    ``{"a": "}"}`` is read as one object."""
    in_string = escaped = False
    for index in range(start, len(text)):
        char = text[index]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
                yield index, char
        elif char == '"':
            in_string = True
        elif char in "{}[]:,":
            yield index, char


def _matching_brace(text: str, start: int) -> int | None:
    """Index of the ``}`` closing the ``{`` at ``start``, or None if unbalanced."""
    depth = 0
    for index, char in _structure(text, start):
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return index
    return None


def _loads_object(candidate: str) -> dict[str, Any] | None:
    try:
        parsed = json.loads(candidate.strip())
    except (ValueError, RecursionError):
        return None
    return parsed if isinstance(parsed, dict) else None


def salvage_json(text: str | None) -> dict[str, Any] | None:
    """The whole part of a JSON object cut off mid-way (a reply stopped at
    ``max_tokens``): every value that was written to its end is kept, the one cut
    short is dropped, and the open lists and objects are closed. None when the
    text holds no ``{`` or nothing whole.

    ``{"findings": ["a", "b", "c`` gives ``{"findings": ["a", "b"]}``; a curator's
    operations keep every operation written to its closing brace.
    """
    if not text:
        return None
    start = text.find("{")
    if start < 0:
        return None
    cut = _last_whole(text, start)
    if cut is None:
        return None
    end, closers = cut
    return _loads_object(text[start:end] + closers)


def _last_whole(text: str, start: int) -> tuple[int, str] | None:
    """(end, closers): the last place where everything before is whole values, and the
    brackets that close what is still open there. Whole are a key with its value in the
    reply's object and an element of a list there; anything deeper counts only once
    closed (half an operation is no operation)."""
    # Per open container: its opener, and (objects) whether a key waits for its value.
    stack: list[list[Any]] = []
    safe: tuple[int, str] | None = None
    for index, char in _structure(text, start):
        if char == '"':  # a string ended: an element, or a key's value, is whole
            if _shallow(stack) and (stack[-1][0] == "[" or stack[-1][1]):
                safe = (index + 1, _closing(stack))
        elif char in "{[":
            stack.append([char, False])
            if len(stack) == 1:
                safe = (index + 1, _closing(stack))  # the empty object
        elif char in "}]":
            stack.pop()
            if not stack:
                return index + 1, ""
            if _shallow(stack):
                safe = (index + 1, _closing(stack))
        elif char == ":" and stack[-1][0] == "{":
            stack[-1][1] = True
        elif char == ",":
            if _shallow(stack):
                safe = (index, _closing(stack))
            if stack[-1][0] == "{":
                stack[-1][1] = False
    return safe


def _shallow(stack: list[list[Any]]) -> bool:
    """Inside the reply's object, or a list that is one of its values."""
    return len(stack) == 1 or (len(stack) == 2 and stack[1][0] == "[")


def _closing(stack: list[list[Any]]) -> str:
    return "".join("}" if opener == "{" else "]" for opener, _ in reversed(stack))
