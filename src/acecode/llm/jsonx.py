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


def _matching_brace(text: str, start: int) -> int | None:
    """Index of the ``}`` closing the ``{`` at ``start``, or None if unbalanced."""
    depth = 0
    in_string = False
    escaped = False
    for index in range(start, len(text)):
        char = text[index]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char == "{":
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
