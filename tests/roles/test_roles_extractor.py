"""extract_keypoints: REQ-CUR-001 (operations key), REQ-SECT-009 (flat playbook dict)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from acecode.playbook.schema import empty_playbook
from acecode.roles.extractor import extract_keypoints, flat_keypoints
from support import wire
from support.wire import Reply, ScriptedLLMServer

MESSAGES = [{"role": "user", "content": "Add type hints to the parser module"}]


def playbook() -> dict:
    book = empty_playbook()
    book["sections"]["PATTERNS & APPROACHES"].append(
        {"name": "pat-001", "text": "use types", "helpful": 5, "harmful": 1}
    )
    book["sections"]["OTHERS"].append(
        {"name": "kpt_001", "text": "legacy tip", "helpful": 0, "harmful": 0}
    )
    return book


def extract(server: ScriptedLLMServer, reply: dict | str, name: str = "reflection") -> dict:
    server.play(reply if isinstance(reply, str) else json.dumps(reply))
    return asyncio.run(extract_keypoints(MESSAGES, playbook(), name))


@pytest.fixture(params=["anthropic", "openai"])
def server(request: pytest.FixtureRequest) -> ScriptedLLMServer:
    return request.getfixturevalue(f"{request.param}_env")


def test_scn_cur_001_01_returns_operations(server: ScriptedLLMServer, recorded_delays) -> None:
    result = extract(
        server,
        {
            "evaluations": [{"name": "pat-001", "rating": "helpful"}],
            "operations": [
                {"type": "ADD", "text": "new insight", "section": "PATTERNS & APPROACHES"}
            ],
        },
    )
    assert result["evaluations"] == [{"name": "pat-001", "rating": "helpful"}]
    assert result["operations"] == [
        {"type": "ADD", "text": "new insight", "section": "PATTERNS & APPROACHES"}
    ]


def test_scn_cur_001_02_returns_empty_operations(
    anthropic_env: ScriptedLLMServer, recorded_delays
) -> None:
    result = extract(
        anthropic_env, {"evaluations": [{"name": "pat-001", "rating": "helpful"}], "operations": []}
    )
    assert result["evaluations"] == [{"name": "pat-001", "rating": "helpful"}]
    assert result["operations"] == []


def test_scn_cur_001_03_no_operations_key_stays_absent(
    anthropic_env: ScriptedLLMServer, recorded_delays
) -> None:
    result = extract(
        anthropic_env,
        {
            "new_key_points": ["some new point"],
            "evaluations": [{"name": "pat-001", "rating": "helpful"}],
        },
    )
    assert result == {
        "new_key_points": ["some new point"],
        "evaluations": [{"name": "pat-001", "rating": "helpful"}],
    }
    assert "operations" not in result


@pytest.mark.parametrize("value", [None, "string", 42, {}, True])
def test_scn_cur_001_04_non_list_operations_treated_as_absent(
    anthropic_env: ScriptedLLMServer, recorded_delays, value: object
) -> None:
    result = extract(
        anthropic_env,
        {"evaluations": [{"name": "pat-001", "rating": "helpful"}], "operations": value},
    )
    assert "operations" not in result
    assert result["evaluations"] == [{"name": "pat-001", "rating": "helpful"}]


def test_scn_sect_009_01_flat_dict_from_sections() -> None:
    assert flat_keypoints(playbook()) == {"pat-001": "use types", "kpt_001": "legacy tip"}
    assert flat_keypoints(empty_playbook()) == {}


def test_scn_sect_009_01_flat_dict_is_the_playbook_variable(
    anthropic_env: ScriptedLLMServer, recorded_delays
) -> None:
    extract(anthropic_env, {"evaluations": [], "operations": []})
    prompt = anthropic_env.prompt()
    flat = json.dumps({"pat-001": "use types", "kpt_001": "legacy tip"}, indent=2)
    assert flat in prompt
    assert "USER: Add type hints to the parser module" in prompt


def test_legacy_new_key_points_dicts_and_strings_kept(
    anthropic_env: ScriptedLLMServer, recorded_delays
) -> None:
    result = extract(
        anthropic_env,
        {"new_key_points": ["a", {"text": "b", "section": "OTHERS"}, 7], "evaluations": "x"},
    )
    assert result == {
        "new_key_points": ["a", {"text": "b", "section": "OTHERS"}],
        "evaluations": [],
    }


def test_unparseable_reply_returns_empty_without_operations_key(
    server: ScriptedLLMServer, recorded_delays
) -> None:
    assert extract(server, "No JSON here, sorry.") == {"new_key_points": [], "evaluations": []}


def test_exhausted_retries_return_empty_without_operations_key(
    server: ScriptedLLMServer, recorded_delays, diagnostic_mode: Path
) -> None:
    server.play(Reply(status=500))
    result = asyncio.run(extract_keypoints(MESSAGES, playbook(), "reflection"))
    assert result == {"new_key_points": [], "evaluations": []}
    assert server.attempts == 3
    assert wire.diagnostic_files(diagnostic_mode, "extractor_error")


def test_diagnostic_name_names_the_saved_exchange(
    anthropic_env: ScriptedLLMServer, recorded_delays, diagnostic_mode: Path
) -> None:
    extract(anthropic_env, {"evaluations": [], "operations": []}, name="precompact_reflection")
    assert wire.diagnostic_files(diagnostic_mode, "precompact_reflection")
    assert wire.diagnostic_files(diagnostic_mode, "precompact_reflection_attempt1")
