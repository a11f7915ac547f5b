"""Fuzzing ``extract_json``: any text, JSON built from fragments, and worst cases.

Whatever an LLM replies, the parser must return a dict or None, never raise,
and never take long: every example has a deadline, and crafted worst cases
of 100,000+ characters must finish within a fixed bound.
"""

from __future__ import annotations

import json
import time
from datetime import timedelta
from typing import Any

import pytest
from fuzz_counts import ran
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from acecode.llm.jsonx import extract_json

DEADLINE = timedelta(milliseconds=500)
FUZZ = settings(
    max_examples=500,
    deadline=DEADLINE,
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


# Each must finish within WORST_CASE_BOUND seconds; measured 0.1-1.3 s on a 2-core machine.
WORST_CASE_BOUND = 5.0
WORST_CASES = {
    "100k unbalanced open braces": "{" * 100_000,
    "100k close braces": "}" * 100_000,
    "50k open braces each opening a string": '{"' * 50_000,
    "open json fence then 100k braces": "```json\n" + "{" * 100_000,
    "50k bare fence openers": "```\n" * 50_000,
    "30k json fence openers": "```json\n" * 30_000,
    "50k quote-brace pairs": '"{' * 50_000,
    "50k-deep object nesting": '{"a":' * 50_000 + "1" + "}" * 50_000,
    "100k-deep array nesting": "[" * 100_000 + "]" * 100_000,
    "100k backslashes in an open string": '{"' + "\\" * 100_000,
    "25k brace-space-letter": "{ x " * 25_000,
    "20k fences with a brace each": "```x\n{```" * 20_000,
    "50k tiny invalid objects": "{a}" * 50_000,
}


@pytest.mark.parametrize("name", sorted(WORST_CASES))
def test_fuzz_extract_json_worst_case_inputs_finish_within_bound(name: str) -> None:
    text = WORST_CASES[name]
    started = time.perf_counter()
    result = extract_json(text)
    elapsed = time.perf_counter() - started
    ran(f"extract_json worst case: {name} ({len(text):,} chars, {elapsed:.2f} s)")
    _check(result)
    assert elapsed < WORST_CASE_BOUND, f"{name}: {elapsed:.2f} s"
