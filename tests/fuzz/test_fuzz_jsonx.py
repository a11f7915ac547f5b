"""Fuzzing ``extract_json``: any text, JSON built from fragments, and worst cases.

Whatever an LLM replies, the parser must return a dict or None, never raise,
including on crafted worst cases of 100,000+ characters (how their cost grows
with their size is measured by ``bench/worst_case_bench.py``).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from fuzz_counts import ran
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from acecode.llm.jsonx import extract_json
from support.worst_cases import JSON_WORST_CASES

FUZZ = settings(
    max_examples=500,
    deadline=None,  # speed is a benchmark's job (bench/worst_case_bench.py), not a test's
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


@pytest.mark.parametrize("name", sorted(JSON_WORST_CASES))
def test_fuzz_extract_json_worst_case_inputs_are_parsed(name: str) -> None:
    """Replies built to trip a quadratic scan still parse to a dict or nothing.

    How their cost grows with their size is measured by ``bench/worst_case_bench.py``.
    """
    text = JSON_WORST_CASES[name](100_000)
    ran(f"extract_json worst case: {name} ({len(text):,} chars)")
    _check(extract_json(text))


# --- a reply cut off at max_tokens ----------------------------------------------------------------

TEXTS = st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=40)
ITEMS = st.one_of(
    TEXTS,
    st.dictionaries(st.sampled_from(["type", "text", "id", "reason"]), TEXTS, max_size=3),
)
REPLIES = st.dictionaries(
    st.sampled_from(["findings", "tags", "operations", "verdicts", "reasoning"]),
    st.one_of(TEXTS, st.lists(ITEMS, max_size=6)),
    min_size=1,
    max_size=3,
)


@settings(FUZZ, max_examples=200)
@given(reply=REPLIES, indent=st.sampled_from([None, 1]), cut=st.floats(0, 1), data=st.data())
def test_a_cut_reply_keeps_only_what_it_holds_whole(
    reply: dict[str, Any], indent: int | None, cut: float, data: st.DataObject
) -> None:
    """Any prefix of a role's reply: every key kept has its value whole, every list kept is
    a prefix of the reply's list and every item in it is whole (half an operation is no
    operation); the whole reply reads back whole."""
    from acecode.llm.jsonx import salvage_json

    text = json.dumps(reply, ensure_ascii=data.draw(st.booleans()), indent=indent)
    assert salvage_json(text) == reply
    salvaged = salvage_json(text[: int(cut * len(text))])
    ran("salvage_json: any prefix of a role's reply")
    if salvaged is None:
        return
    for key, value in salvaged.items():
        whole = reply[key]
        if isinstance(whole, list):
            assert value == whole[: len(value)]
        else:
            assert value == whole
