"""run_curator over real HTTP: REQ-CUR-010..012, REQ-CUR-016 and their scenarios."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from acecode.playbook.schema import empty_playbook
from acecode.roles.curator import run_curator
from support import wire
from support.wire import SLOW_REPLY_TIMEOUT, Reply, ScriptedLLMServer

EMPTY = {"reasoning": "", "operations": []}
REFLECTION = {
    "analysis": "The session showed poor error handling. pat-001 was not applied.",
    "bullet_tags": [
        {"name": "pat-001", "tag": "harmful", "rationale": "Error handling advice was ignored"}
    ],
}
CURATION = {
    "reasoning": "pat-001 has been tagged harmful repeatedly. The advice may need updating.",
    "operations": [
        {
            "type": "UPDATE",
            "target_id": "pat-001",
            "text": "Use structured error handling with try/except blocks and specific "
            "exception types",
        }
    ],
}


def playbook() -> dict:
    book = empty_playbook()
    book["sections"]["PATTERNS & APPROACHES"].append(
        {"name": "pat-001", "text": "handle errors explicitly", "helpful": 1, "harmful": 2}
    )
    book["sections"]["OTHERS"].append(
        {"name": "oth-001", "text": "prefer pathlib", "helpful": 0, "harmful": 0}
    )
    return book


def curate(reflection: object = REFLECTION, book: dict | None = None) -> dict:
    return asyncio.run(run_curator(reflection, playbook() if book is None else book))


@pytest.fixture(params=["anthropic", "openai"])
def server(request: pytest.FixtureRequest) -> ScriptedLLMServer:
    return request.getfixturevalue(f"{request.param}_env")


def test_scn_cur_010_01_reasoning_and_operations_returned_intact(
    server: ScriptedLLMServer, recorded_delays: list
) -> None:
    server.play(json.dumps(CURATION))
    assert curate() == CURATION
    assert server.attempts == 1


def test_scn_cur_010_01_prompt_holds_reflector_json_and_formatted_playbook_only(
    anthropic_env: ScriptedLLMServer, recorded_delays: list
) -> None:
    anthropic_env.play(json.dumps(CURATION))
    curate()
    prompt = anthropic_env.prompt()
    assert json.dumps(REFLECTION) in prompt  # the full JSON output, compact
    assert "## PATTERNS & APPROACHES" in prompt
    assert "[pat-001] helpful=1 harmful=2 :: handle errors explicitly" in prompt
    assert "[oth-001] helpful=0 harmful=0 :: prefer pathlib" in prompt
    assert "transcript" not in prompt.lower()  # CON-CUR-006: never the transcript
    assert "{" + "reflector_output}" not in prompt and "{playbook}" not in prompt


def test_scn_cur_010_02_unreachable_api_exhausts_retries_and_returns_empty(
    server: ScriptedLLMServer, recorded_delays: list, diagnostic_mode: Path
) -> None:
    server.play(Reply(status=503))
    assert curate() == EMPTY
    assert server.attempts == 3
    assert len(recorded_delays) == 2
    error = wire.diagnostic_files(diagnostic_mode, "curator_error")
    assert len(error) == 1
    assert "LLMCallError" in error[0].read_text()


def test_scn_cur_010_02_connection_refused_returns_empty(
    project: Path, recorded_delays: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTIC_CONTEXT_API_KEY", "k")
    monkeypatch.setenv("AGENTIC_CONTEXT_BASE_URL", "http://127.0.0.1:9")
    assert curate() == EMPTY
    assert len(recorded_delays) == 2


def test_scn_cur_010_03_empty_reflector_output_still_yields_a_valid_result(
    anthropic_env: ScriptedLLMServer, recorded_delays: list
) -> None:
    anthropic_env.play('{"reasoning": "Nothing to act on.", "operations": []}')
    result = curate({"analysis": "", "bullet_tags": []})
    assert result == {"reasoning": "Nothing to act on.", "operations": []}
    assert isinstance(result["reasoning"], str) and isinstance(result["operations"], list)


def test_missing_reflector_keys_are_defaulted_in_the_prompt(
    anthropic_env: ScriptedLLMServer, recorded_delays: list
) -> None:
    anthropic_env.play('{"reasoning": "", "operations": []}')
    curate({})
    prompt = anthropic_env.prompt()
    assert '"analysis": ""' in prompt
    assert '"bullet_tags": []' in prompt


def test_scn_cur_012_01_unparseable_json_returns_empty(
    server: ScriptedLLMServer, recorded_delays: list, capsys: pytest.CaptureFixture
) -> None:
    server.play("I think you should delete pat-001, but I won't format it.")
    assert curate() == EMPTY
    assert server.attempts == 1  # a bad reply is not a transport error: no retry
    assert "acecode: curator skipped" in capsys.readouterr().err


def test_scn_cur_016_01_json_in_prose(server: ScriptedLLMServer, recorded_delays: list) -> None:
    reply = {
        "reasoning": "pat-001 has been harmful",
        "operations": [
            {"type": "DELETE", "target_id": "pat-001", "reason": "consistently harmful"}
        ],
    }
    server.play(
        "Here is my analysis of the playbook:\n\n"
        f"{json.dumps(reply)}\n\nI hope this helps improve the playbook."
    )
    assert curate() == reply


def test_scn_cur_016_02_json_code_fence(server: ScriptedLLMServer, recorded_delays: list) -> None:
    server.play('```json\n{"reasoning": "No changes needed", "operations": []}\n```')
    assert curate() == {"reasoning": "No changes needed", "operations": []}


def test_empty_content_returns_empty(server: ScriptedLLMServer, recorded_delays: list) -> None:
    server.play(Reply(text=""))
    assert curate() == EMPTY


def test_partial_result_is_accepted_with_defaults(
    server: ScriptedLLMServer, recorded_delays: list
) -> None:
    server.play('{"reasoning": "only reasoning"}')
    assert curate() == {"reasoning": "only reasoning", "operations": []}
    server.play('{"operations": [{"type": "ADD", "text": "x"}, "junk", 3]}')
    assert curate() == {"reasoning": "", "operations": [{"type": "ADD", "text": "x"}]}


def test_500_then_success(server: ScriptedLLMServer, recorded_delays: list) -> None:
    server.play(Reply(status=500), json.dumps(CURATION))
    assert curate() == CURATION
    assert server.attempts == 2
    assert 1.5 <= recorded_delays[0] <= 2.5


def test_429_with_retry_after(server: ScriptedLLMServer, recorded_delays: list) -> None:
    server.play(Reply(status=429, headers={"retry-after": "6"}), json.dumps(CURATION))
    assert curate() == CURATION
    assert recorded_delays == [6.0]


def test_401_returns_empty_without_retry(server: ScriptedLLMServer, recorded_delays: list) -> None:
    server.play(Reply(status=401))
    assert curate() == EMPTY
    assert server.attempts == 1
    assert recorded_delays == []


def test_slow_reply_times_out_then_retry_succeeds(
    server: ScriptedLLMServer, recorded_delays: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACECODE_LLM_TIMEOUT", str(SLOW_REPLY_TIMEOUT))  # see support.wire
    server.play(Reply(text=json.dumps(CURATION), held=True), json.dumps(CURATION))
    assert curate() == CURATION
    assert server.attempts == 2


def test_no_provider_configured_returns_empty(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    monkeypatch.setenv("PATH", str(project))  # no `claude` either
    assert curate() == EMPTY
    assert "no LLM provider is configured" in capsys.readouterr().err


def test_inv_cur_008_never_raises_on_garbage_input(
    anthropic_env: ScriptedLLMServer, recorded_delays: list
) -> None:
    anthropic_env.play('{"reasoning": "ok", "operations": []}')
    assert curate("not a dict", {"sections": "broken"}) == EMPTY


def test_prompt_and_response_are_saved_in_diagnostic_mode(
    anthropic_env: ScriptedLLMServer, recorded_delays: list, diagnostic_mode: Path
) -> None:
    anthropic_env.play(json.dumps(CURATION))
    curate()
    [saved] = wire.diagnostic_files(diagnostic_mode, "curator")
    text = saved.read_text()
    assert "# PROMPT" in text and "# RESPONSE" in text
    assert "tagged harmful repeatedly" in text


def test_secrets_in_the_reflection_are_redacted_before_sending(
    anthropic_env: ScriptedLLMServer, recorded_delays: list
) -> None:
    secret = "sk-ant-api03-" + "A" * 93
    anthropic_env.play('{"reasoning": "", "operations": []}')
    curate({"analysis": f"the user pasted {secret}", "bullet_tags": []})
    assert secret not in anthropic_env.prompt()
    assert "REDACTED" in anthropic_env.prompt()


def test_user_template_override_is_used(
    anthropic_env: ScriptedLLMServer, recorded_delays: list, project: Path
) -> None:
    prompts = Path.home() / ".claude" / "prompts"
    prompts.mkdir(parents=True)
    (prompts / "curator.txt").write_text("R={reflector_output}\nP={playbook}\n{{literal}}")
    anthropic_env.play('{"reasoning": "", "operations": []}')
    curate({"analysis": "a", "bullet_tags": []}, empty_playbook())
    prompt = anthropic_env.prompt()
    assert prompt.startswith("R={")
    assert "P=(the playbook is empty)" in prompt
    assert prompt.endswith("{literal}")
