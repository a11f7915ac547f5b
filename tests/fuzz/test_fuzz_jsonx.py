"""Fuzzing ``extract_json``: any text, JSON built from fragments, and worst cases.

Whatever an LLM replies, the parser must return a dict or None, never raise,
and never take long: crafted worst cases of 100,000+ characters must cost time
(CPU time, not wall-clock time) growing linearly with their size.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import pytest
from fuzz_counts import ran
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from acecode.llm.jsonx import extract_json

FUZZ = settings(
    max_examples=500,
    deadline=None,  # speed is checked by growth ratios below, not by wall-clock limits
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

FRAGMENTS = st.sampled_from(
    [
        "{",
        "}",
        "[",
        "]",
        '"',
        "\\",
        '\\"',
        "\\\\",
        ":",
        ",",
        " ",
        "\n",
        "\r\n",
        "```",
        "```json",
        "```json\n",
        "```python\n",
        "```\n",
        "`",
        "null",
        "true",
        "1e999",
        "-0",
        "NaN",
        "Infinity",
        '"\\ud83d"',
        '"\\u00e9"',
        '{"a": 1}',
        '{"operations": []}',
        '{"a": "}"}',
        '{"a": "{"}',
        "{}",
        "[]",
        '{"analysis": "x", "bullet_tags": [{"name": "pat-001", "tag": "helpful"}]}',
        "Here is the JSON:",
        "\u2028",
        "\x00",
        "é",
    ]
)
TEXTISH = st.one_of(FRAGMENTS, st.text(max_size=20))

JSON_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=30),
)
JSON_OBJECTS = st.dictionaries(
    st.text(max_size=10),
    st.recursive(
        JSON_SCALARS,
        lambda inner: (
            st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
        ),
        max_leaves=20,
    ),
    max_size=5,
)


def _check(result: Any) -> None:
    assert result is None or isinstance(result, dict)


@FUZZ
@given(st.text(max_size=2000))
def test_fuzz_extract_json_arbitrary_text_never_raises(text: str) -> None:
    ran("extract_json: arbitrary text")
    _check(extract_json(text))


@FUZZ
@given(st.lists(TEXTISH, max_size=200).map("".join))
def test_fuzz_extract_json_text_from_json_fragments_fences_braces_escapes(text: str) -> None:
    ran("extract_json: fragments, fences, braces, escapes")
    _check(extract_json(text))


NO_BACKTICKS = st.text(max_size=200).filter(lambda s: "`" not in s)
NO_BRACES = st.text(max_size=200).filter(lambda s: not set("{}`") & set(s))


@FUZZ
@given(JSON_OBJECTS, NO_BACKTICKS, NO_BACKTICKS)
def test_fuzz_extract_json_finds_object_in_json_fence_amid_prose(
    obj: dict[str, Any], before: str, after: str
) -> None:
    ran("extract_json: object in a ```json fence amid prose")
    assert extract_json(f"{before}\n```json\n{json.dumps(obj)}\n```\n{after}") == obj


@FUZZ
@given(JSON_OBJECTS, NO_BRACES, NO_BRACES, st.booleans())
def test_fuzz_extract_json_finds_bare_object_whatever_its_strings_hold(
    obj: dict[str, Any], before: str, after: str, ascii_only: bool
) -> None:
    ran("extract_json: bare object, braces and escapes inside strings")
    assert extract_json(f"{before}{json.dumps(obj, ensure_ascii=ascii_only)}{after}") == obj


# Inputs built to trip a backtracking or quadratic scan, as functions of a size n.
# Linear work grows 4x when n does (measured 3.6-6.9x here, the fence cases being
# slightly superlinear); the bound leaves room for noise while a quadratic scan
# (16x) fails. The times are this process's CPU time, not wall-clock time, so other
# processes on a loaded machine do not count in them; a case whose large input
# takes under TOO_FAST_TO_TIME is fast enough.
GROWTH_BOUND = 11.0
TOO_FAST_TO_TIME = 0.05
WORST_CASES: dict[str, Callable[[int], str]] = {
    "unbalanced open braces": lambda n: "{" * n,
    "close braces": lambda n: "}" * n,
    "open braces each opening a string": lambda n: '{"' * (n // 2),
    "open json fence then braces": lambda n: "```json\n" + "{" * n,
    "bare fence openers": lambda n: "```\n" * (n // 2),
    "json fence openers": lambda n: "```json\n" * (n // 3),
    "quote-brace pairs": lambda n: '"{' * (n // 2),
    "deep object nesting": lambda n: '{"a":' * (n // 2) + "1" + "}" * (n // 2),
    "deep array nesting": lambda n: "[" * n + "]" * n,
    "backslashes in an open string": lambda n: '{"' + "\\" * n,
    "brace-space-letter": lambda n: "{ x " * (n // 4),
    "fences with a brace each": lambda n: "```x\n{```" * (n // 5),
    "tiny invalid objects": lambda n: "{a}" * (n // 2),
}


def _fastest(text: str, runs: int = 2) -> float:
    """The least CPU time (this process's, not the wall clock) of ``runs`` parses."""
    timings = []
    for _ in range(runs):
        started = time.process_time()
        _check(extract_json(text))
        timings.append(time.process_time() - started)
    return min(timings)


@pytest.mark.parametrize("name", sorted(WORST_CASES))
def test_fuzz_extract_json_worst_case_inputs_grow_linearly(name: str) -> None:
    build = WORST_CASES[name]
    small, large = build(25_000), build(100_000)
    small_time, large_time = _fastest(small), _fastest(large)
    ran(f"extract_json worst case: {name} ({len(large):,} chars, {large_time:.2f} s)")
    growth = large_time / max(small_time, 1e-3)
    assert large_time < TOO_FAST_TO_TIME or growth < GROWTH_BOUND, (
        f"{name}: {growth:.1f}x the time for 4x the input"
    )
