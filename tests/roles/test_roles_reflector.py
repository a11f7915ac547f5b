"""run_reflector over real HTTP: citation-guided vs content-based, cleaning, failures."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from acecode.playbook.schema import empty_playbook
from acecode.roles.reflector import run_reflector
from support import wire
from support.wire import Reply, ScriptedLLMServer

EMPTY = {"analysis": "", "bullet_tags": []}
MESSAGES = [
    {"role": "user", "content": "Fix the failing date parser test in utils/dates.py"},
    {"role": "assistant", "content": "Following [pat-001] I ran only tests/unit first."},
]
REFLECTION = {
    "analysis": "Running the unit tests first gave fast feedback.",
    "bullet_tags": [{"name": "pat-001", "tag": "helpful", "rationale": "Fast feedback."}],
}


def playbook() -> dict:
    book = empty_playbook()
    book["sections"]["PATTERNS & APPROACHES"].append(
        {
            "name": "pat-001",
            "text": "run tests/unit before the full suite",
            "helpful": 3,
            "harmful": 0,
        }
    )
    book["sections"]["MISTAKES TO AVOID"].append(
        {"name": "mis-001", "text": "do not edit generated files", "helpful": 0, "harmful": 0}
    )
    return book


def reflect(messages: list | None = None, cited: list | None = None) -> dict:
    return asyncio.run(
        run_reflector(MESSAGES if messages is None else messages, playbook(), cited or [])
    )


@pytest.fixture(params=["anthropic", "openai"])
def server(request: pytest.FixtureRequest) -> ScriptedLLMServer:
    return request.getfixturevalue(f"{request.param}_env")


def test_returns_analysis_and_bullet_tags(server: ScriptedLLMServer, recorded_delays: list) -> None:
    server.play(json.dumps(REFLECTION))
    assert reflect(cited=["pat-001"]) == REFLECTION


def test_citation_guided_when_ids_were_cited(
    anthropic_env: ScriptedLLMServer, recorded_delays: list
) -> None:
    anthropic_env.play(json.dumps(REFLECTION))
    reflect(cited=["pat-001", "pat-001", "mis-001"])
    prompt = anthropic_env.prompt()
    assert "# Mode: CITATION-GUIDED" in prompt
    assert "IDs the agent cited in this session: pat-001, mis-001\n" in prompt


def test_content_based_when_nothing_was_cited(
    anthropic_env: ScriptedLLMServer, recorded_delays: list
) -> None:
    anthropic_env.play(json.dumps(REFLECTION))
    reflect(cited=[])
    prompt = anthropic_env.prompt()
    assert "# Mode: CONTENT-BASED" in prompt
    assert "IDs the agent cited in this session: (none)" in prompt


def test_prompt_has_condensed_transcript_and_formatted_playbook(
    anthropic_env: ScriptedLLMServer, recorded_delays: list
) -> None:
    anthropic_env.play(json.dumps(REFLECTION))
    reflect()
    prompt = anthropic_env.prompt()
    assert "USER: Fix the failing date parser test in utils/dates.py" in prompt
    assert "ASSISTANT: Following [pat-001] I ran only tests/unit first." in prompt
    assert "[pat-001] helpful=3 harmful=0 :: run tests/unit before the full suite" in prompt
    assert "## MISTAKES TO AVOID" in prompt


def test_secrets_in_the_transcript_never_reach_the_server(
    anthropic_env: ScriptedLLMServer, recorded_delays: list
) -> None:
    secret = "sk-ant-api03-" + "B" * 93
    anthropic_env.play(json.dumps(REFLECTION))
    reflect([{"role": "user", "content": f"my key is {secret}, deploy please"}])
    assert secret not in json.dumps(anthropic_env.requests)


def test_malformed_tags_are_dropped_and_rationale_defaulted(
    server: ScriptedLLMServer, recorded_delays: list
) -> None:
    server.play(
        json.dumps(
            {
                "analysis": "ok",
                "bullet_tags": [
                    {"name": "pat-001", "tag": "Helpful"},
                    {"name": "mis-001", "tag": "great", "rationale": "unknown tag"},
                    {"tag": "harmful"},
                    "pat-002",
                ],
            }
        )
    )
    assert reflect() == {
        "analysis": "ok",
        "bullet_tags": [{"name": "pat-001", "tag": "helpful", "rationale": ""}],
    }


def test_failure_returns_empty_result(
    server: ScriptedLLMServer, recorded_delays: list, diagnostic_mode: Path
) -> None:
    server.play(Reply(status=503))
    assert reflect() == EMPTY
    assert server.attempts == 3
    assert wire.diagnostic_files(diagnostic_mode, "reflector_error")


@pytest.mark.parametrize("text", ["not json at all", "", "[1, 2]"])
def test_unusable_reply_returns_empty_result(
    server: ScriptedLLMServer, recorded_delays: list, text: str
) -> None:
    server.play(Reply(text=text))
    assert reflect() == EMPTY


def test_fenced_reply_is_parsed(server: ScriptedLLMServer, recorded_delays: list) -> None:
    server.play(f"Here you go:\n```json\n{json.dumps(REFLECTION)}\n```")
    assert reflect() == REFLECTION


def test_no_messages_means_no_call(anthropic_env: ScriptedLLMServer, recorded_delays: list) -> None:
    anthropic_env.play(json.dumps(REFLECTION))
    assert reflect(messages=[]) == EMPTY
    assert anthropic_env.attempts == 0


def test_empty_result_is_a_fresh_object_each_time(project: Path, monkeypatch) -> None:
    monkeypatch.setenv("PATH", str(project))
    first = reflect()
    first["bullet_tags"].append("mutated")
    assert reflect() == EMPTY
