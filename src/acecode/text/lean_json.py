"""JSON parsing for the tool hooks' fast path, without importing :mod:`json`.

``import json`` imports :mod:`re` (its pure-Python decoder's patterns), which
alone costs a tool hook most of its time budget (``bench/hook_bench.py``). The
C scanner :mod:`json` itself uses, ``_json.make_scanner``, needs no pattern:
given the decoder's settings it parses a document and returns it with its end.
This is that, with :func:`json.loads`'s contract: the whole text is one value,
and anything else is a :class:`ValueError`.
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
