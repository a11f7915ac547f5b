"""The LLM layer over real HTTP: both SDKs against a scripted server on 127.0.0.1.

Covers the retry policy of the spec README: which errors are retried, how long
we wait (the delay function records instead of sleeping), the 30 s timeout
(shortened here), retry-after, exhaustion, and the diagnostics of every attempt.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from acecode.llm import LLMCallError, complete, usage
from acecode.llm.retry import MAX_RETRY_AFTER
from support import wire
from support.wire import SLOW_REPLY_TIMEOUT, Reply, ScriptedLLMServer


@pytest.fixture(params=["anthropic", "openai"])
def server(request: pytest.FixtureRequest) -> ScriptedLLMServer:
    """The scripted server with one of the two SDK providers configured against it."""
    return request.getfixturevalue(f"{request.param}_env")


def call(prompt: str = "hello") -> str:
    return asyncio.run(complete("system", prompt, role="test", diagnostic_name="wire")).text


def test_plain_completion_round_trip(server: ScriptedLLMServer, recorded_delays: list) -> None:
    server.play('{"ok": true}')
    assert call("the prompt") == '{"ok": true}'
    assert server.attempts == 1
    assert server.prompt() == "the prompt"
    assert recorded_delays == []
    body = server.requests[0]
    assert body["max_tokens"] == 4096
    assert body["model"] in {"test-model", "local-model"}


def test_sdk_retries_are_off(server: ScriptedLLMServer, recorded_delays: list) -> None:
    server.play("fine")
    call()
    headers = {k.lower(): v for k, v in server.headers[0].items()}
    assert headers["x-stainless-retry-count"] == "0"


def test_system_prompt_is_sent(server: ScriptedLLMServer, recorded_delays: list) -> None:
    server.play("x")
    asyncio.run(complete("be terse", "q", role="test"))
    body = server.requests[0]
    if server.paths[0] == wire.ANTHROPIC_PATH:
        assert body["system"] == "be terse"
    else:
        assert body["messages"][0] == {"role": "system", "content": "be terse"}


def test_empty_content_is_an_empty_text_not_an_error(
    server: ScriptedLLMServer, recorded_delays: list
) -> None:
    server.play(Reply(text=""))
    assert call() == ""
    assert server.attempts == 1


def test_500_then_success_retries_once_after_about_2_s(
    server: ScriptedLLMServer, recorded_delays: list
) -> None:
    server.play(Reply(status=500), "recovered")
    assert call() == "recovered"
    assert server.attempts == 2
    assert len(recorded_delays) == 1
    assert 2.0 * 0.75 <= recorded_delays[0] <= 2.0 * 1.25


def test_429_with_longer_retry_after_waits_as_asked(
    server: ScriptedLLMServer, recorded_delays: list
) -> None:
    server.play(Reply(status=429, headers={"retry-after": "7"}), "after the wait")
    assert call() == "after the wait"
    assert server.attempts == 2
    assert recorded_delays == [7.0]


def test_429_with_shorter_retry_after_keeps_the_computed_delay(
    server: ScriptedLLMServer, recorded_delays: list
) -> None:
    server.play(Reply(status=429, headers={"retry-after": "0"}), "ok")
    assert call() == "ok"
    assert 1.5 <= recorded_delays[0] <= 2.5


def test_retry_after_is_capped(server: ScriptedLLMServer, recorded_delays: list) -> None:
    server.play(Reply(status=429, headers={"retry-after": "3600"}), "ok")
    call()
    assert recorded_delays == [MAX_RETRY_AFTER]


def test_three_503s_exhaust_the_attempts_with_two_waits(
    server: ScriptedLLMServer, recorded_delays: list, diagnostic_mode: Path
) -> None:
    server.play(Reply(status=503))
    with usage.track() as ledger, pytest.raises(LLMCallError) as info:
        call()
    assert server.attempts == 3
    assert info.value.attempts == 3
    assert info.value.last_error.status == 503
    assert len(recorded_delays) == 2  # only between attempts, none after the last
    assert 1.5 <= recorded_delays[0] <= 2.5
    assert 3.0 <= recorded_delays[1] <= 5.0
    attempts = [wire.diagnostic_files(diagnostic_mode, f"wire_attempt{n}") for n in (1, 2, 3)]
    assert all(len(files) == 1 for files in attempts)
    assert "retrying in" in attempts[0][0].read_text()
    assert "3 attempts used" not in attempts[2][0].read_text()
    assert "HTTP 503" in attempts[2][0].read_text()
    assert [(c.ok, c.attempts) for c in ledger.calls] == [(False, 3)]


def test_401_is_not_retried(server: ScriptedLLMServer, recorded_delays: list) -> None:
    server.play(Reply(status=401), "never reached")
    with pytest.raises(LLMCallError, match="not retryable"):
        call()
    assert server.attempts == 1
    assert recorded_delays == []


@pytest.mark.parametrize("status", [400, 403, 404, 422])
def test_other_4xx_are_not_retried(
    anthropic_env: ScriptedLLMServer, recorded_delays: list, status: int
) -> None:
    anthropic_env.play(Reply(status=status))
    with pytest.raises(LLMCallError):
        call()
    assert anthropic_env.attempts == 1


def test_slow_response_times_out_and_is_retried(
    server: ScriptedLLMServer,
    recorded_delays: list,
    monkeypatch: pytest.MonkeyPatch,
    diagnostic_mode: Path,
) -> None:
    monkeypatch.setenv("ACECODE_LLM_TIMEOUT", str(SLOW_REPLY_TIMEOUT))  # see support.wire
    server.play(Reply(text="too late", held=True), "in time")
    assert call() == "in time"
    assert server.attempts == 2
    assert len(recorded_delays) == 1
    first = wire.diagnostic_files(diagnostic_mode, "wire_attempt1")[0].read_text()
    assert "retryable" in first
    assert f"timeout: {SLOW_REPLY_TIMEOUT:g} s" in first


def test_connection_refused_is_retried_then_fails(
    project: Path, recorded_delays: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTIC_CONTEXT_API_KEY", "k")
    monkeypatch.setenv("AGENTIC_CONTEXT_BASE_URL", "http://127.0.0.1:9")
    with pytest.raises(LLMCallError, match="connection"):
        call()
    assert len(recorded_delays) == 2


def test_success_is_logged_per_attempt(
    server: ScriptedLLMServer, recorded_delays: list, diagnostic_mode: Path
) -> None:
    server.play(Reply(status=502), "fine")
    call()
    assert "HTTP 502" in wire.diagnostic_files(diagnostic_mode, "wire_attempt1")[0].read_text()
    assert "outcome: ok" in wire.diagnostic_files(diagnostic_mode, "wire_attempt2")[0].read_text()


def test_no_diagnostics_outside_diagnostic_mode(
    server: ScriptedLLMServer, recorded_delays: list, project: Path
) -> None:
    server.play(Reply(status=500), "fine")
    call()
    assert not (project / ".claude" / "diagnostic").exists()


def test_api_key_reaches_the_server(
    anthropic_env: ScriptedLLMServer, recorded_delays: list
) -> None:
    anthropic_env.play("x")
    call()
    headers = {k.lower(): v for k, v in anthropic_env.headers[0].items()}
    sent = headers.get("x-api-key") or headers.get("authorization", "")
    assert "sk-test-anthropic" in sent
