"""JSON parsing for the tool hooks' fast path, without importing :mod:`json`.

``import json`` imports :mod:`re` (its pure-Python decoder's patterns), which
alone costs a tool hook most of its time budget (``bench/hook_bench.py``). The
C scanner :mod:`json` itself uses, ``_json.make_scanner``, needs no pattern:
given the decoder's settings it parses a document and returns it with its end.
This is that, with :func:`json.loads`'s contract: the whole text is one value,
and anything else is a :class:`ValueError`; and :func:`dumps`, the compact
``json.dumps(value, ensure_ascii=False, separators=(",", ":"))`` of the plain
values a hook writes, with the C string encoder ``json`` itself uses.
"""

from __future__ import annotations

import _json

_SPACE = " \t\n\r"


class _Settings:
    """What the C scanner reads from a ``json.JSONDecoder``: its defaults."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int

    @staticmethod
    def parse_constant(name: str) -> float:
        return float(name.replace("Infinity", "inf"))  # NaN, Infinity, -Infinity


_scan = _json.make_scanner(_Settings())
_encode = _json.encode_basestring


def loads(text: str) -> object:
    """The value ``text`` holds; :class:`ValueError` when it is not exactly one JSON value."""
    start = len(text) - len(text.lstrip(_SPACE))
    try:
        value, end = _scan(text, start)
    except StopIteration as exc:
        raise ValueError(f"no JSON value at character {exc.value}") from None
    except ValueError:
        raise
    except Exception as exc:  # the scanner's own errors (RecursionError, ...)
        raise ValueError(str(exc)) from None
    if text[end:].strip(_SPACE):
        raise ValueError(f"extra data at character {end}")
    return value


def dumps(value: object) -> str:
    """``value`` (dicts with string keys, lists, tuples, strings, numbers, booleans, None)
    as compact JSON, non-ASCII kept: what ``json.dumps(value, ensure_ascii=False,
    separators=(",", ":"))`` writes; :class:`TypeError` for anything else."""
    if isinstance(value, str):
        return _encode(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}[repr(value)]
        return float.__repr__(value)
    if isinstance(value, dict):
        if not all(isinstance(key, str) for key in value):
            raise TypeError("keys must be strings")
        return "{" + ",".join(f"{_encode(k)}:{dumps(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ",".join(dumps(item) for item in value) + "]"
    raise TypeError(f"{type(value).__name__} is not JSON")
