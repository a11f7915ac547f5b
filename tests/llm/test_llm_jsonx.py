"""REQ-CUR-016: the four JSON extraction strategies, in order."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from acecode.llm.jsonx import extract_json

CURATOR_REPLY = {
    "reasoning": "pat-001 has been harmful",
    "operations": [{"type": "DELETE", "target_id": "pat-001", "reason": "consistently harmful"}],
}


def test_scn_cur_016_01_json_in_prose_balanced_braces() -> None:
    text = (
        "Here is my analysis of the playbook:\n\n"
        f"{json.dumps(CURATOR_REPLY)}\n\n"
        "I hope this helps improve the playbook."
    )
    assert extract_json(text) == CURATOR_REPLY


def test_scn_cur_016_02_json_code_fence() -> None:
    text = '```json\n{"reasoning": "No changes needed", "operations": []}\n```'
    assert extract_json(text) == {"reasoning": "No changes needed", "operations": []}


def test_strategy_2_bare_fence() -> None:
    text = 'Result:\n```\n{"analysis": "ok", "bullet_tags": []}\n```\nDone.'
    assert extract_json(text) == {"analysis": "ok", "bullet_tags": []}


def test_strategy_4_raw_parse() -> None:
    assert extract_json('  {"a": 1}\n') == {"a": 1}


def test_json_fence_wins_over_an_earlier_bare_object() -> None:
    text = 'Draft: {"draft": true}\n```json\n{"final": true}\n```'
    assert extract_json(text) == {"final": True}


def test_invalid_fence_falls_through_to_balanced_braces() -> None:
    text = '```json\n{not json}\n```\nActually: {"ok": 1}'
    assert extract_json(text) == {"ok": 1}


def test_braces_and_quotes_inside_strings_do_not_confuse_the_scan() -> None:
    payload = {"text": 'use "{" and "}" with care \\ and \\"quotes\\"', "n": {"deep": [1, 2]}}
    text = f"Sure! {json.dumps(payload)} -- and a stray }} brace"
    assert extract_json(text) == payload


def test_prose_braces_before_the_object_are_skipped() -> None:
    text = 'In set notation {a, b} we get {"operations": []}'
    assert extract_json(text) == {"operations": []}


def test_partial_object_is_returned_as_is() -> None:
    assert extract_json('{"reasoning": "only this"}') == {"reasoning": "only this"}


def test_no_json_returns_none() -> None:
    assert extract_json("I cannot help with that.") is None
    assert extract_json("{broken: json") is None


def test_empty_and_none_return_none() -> None:
    assert extract_json("") is None
    assert extract_json("   \n") is None
    assert extract_json(None) is None


def test_a_top_level_list_or_scalar_is_not_an_object() -> None:
    assert extract_json("[1, 2, 3]") is None
    assert extract_json('"just a string"') is None


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=10,
)


@given(
    payload=st.dictionaries(st.text(max_size=10), json_values, max_size=4),
    before=st.text(alphabet=st.characters(blacklist_characters="{`"), max_size=40),
    after=st.text(max_size=40),
)
def test_any_object_embedded_in_prose_is_recovered(payload: dict, before: str, after: str) -> None:
    assert extract_json(f"{before}{json.dumps(payload)}{after}") == payload
