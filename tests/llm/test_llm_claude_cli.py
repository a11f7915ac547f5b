"""The headless `claude` provider against a stub `claude` executable first on PATH.

The stub (``claude_stub.py``) answers ``--help`` like a given Claude Code
version, records the arguments, environment and stdin of each run, then
prints a result recorded from the real CLI (or misbehaves on request), so the
test sees exactly what a real nested Claude Code run would receive.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from claude_stub import (
    NEW_HELP,
    OLD_HELP,
    calls,
    install_stub,
    is_gone,
    probes,
    reply,
    reply_recorded,
)

from acecode.llm import LLMCallError, complete, usage
from acecode.llm.claude_cli import CHILD_ENV
from acecode.project.session_switch import NESTED_ENV

LEAN_FLAGS = ("--tools", "--no-session-persistence", "--strict-mcp-config")


@pytest.fixture
def stub_claude(project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A `claude` whose --help is that of a current version; returns the record file."""
    return install_stub(tmp_path / "bin", monkeypatch, NEW_HELP)


@pytest.fixture
def old_claude(project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A `claude` whose --help is that of an old version (no --tools, --effort, ...)."""
    return install_stub(tmp_path / "bin", monkeypatch, OLD_HELP)


def run(prompt: str = "the prompt") -> str:
    return asyncio.run(complete("the system", prompt, role="reflector")).text


def value_of(argv: list[str], flag: str) -> str:
    return argv[argv.index(flag) + 1]


def model_and_effort(record: Path) -> tuple[str, str]:
    """What the first recorded run got as --model and --effort."""
    argv = calls(record)[0]["argv"]
    return value_of(argv, "--model"), value_of(argv, "--effort")


def test_claude_is_selected_from_path_and_returns_the_result(
    stub_claude: Path, recorded_delays: list
) -> None:
    with usage.track() as ledger:
        assert run() == "stub says hi"
    [call] = ledger.calls
    assert (call.provider, call.input_tokens, call.output_tokens, call.estimated) == (
        "claude",
        1110,
        42,
        False,
    )
    assert ledger.cost_usd == pytest.approx(0.0123)


def test_recursion_guard_env_and_settings(stub_claude: Path, recorded_delays: list) -> None:
    run()
    [call] = calls(stub_claude)
    assert call["env"][NESTED_ENV] == "1"
    argv = call["argv"]
    settings = json.loads(value_of(argv, "--settings"))
    assert settings == {"disableAllHooks": True}


def test_headless_single_turn_flags_and_prompt_on_stdin(
    stub_claude: Path, recorded_delays: list
) -> None:
    big_prompt = "x" * 300_000  # beyond the per-argument limit of execve
    run(big_prompt)
    [call] = calls(stub_claude)
    argv = call["argv"]
    assert argv[0] == "-p"
    assert value_of(argv, "--output-format") == "json"
    assert value_of(argv, "--max-turns") == "1"
    assert value_of(argv, "--system-prompt") == "the system"
    # --allowedTools "" is a permission list and removes no tool; --tools "" does.
    assert "--allowedTools" not in argv
    assert value_of(argv, "--tools") == ""
    assert call["stdin"] == big_prompt


def test_a_lean_run_uses_every_flag_the_help_lists_and_the_child_variables(
    stub_claude: Path, recorded_delays: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_CODE_EFFORT_LEVEL", "max")  # the user's own, would win over --effort
    run()
    [call] = calls(stub_claude)
    argv = call["argv"]
    for flag in (*LEAN_FLAGS, "--disable-slash-commands"):
        assert flag in argv
    assert "--setting-sources" not in argv  # the user's settings may hold what the login needs
    assert "--bare" not in argv  # --bare never reads a subscription login
    assert model_and_effort(stub_claude) == ("sonnet", "low")
    for name, value in CHILD_ENV.items():
        assert call["env"][name] == value
    assert call["env"]["CLAUDE_CODE_DISABLE_CLAUDE_MDS"] == "1"
    assert call["env"]["CLAUDE_CODE_DISABLE_AUTO_MEMORY"] == "1"
    assert call["env"]["CLAUDE_CODE_EFFORT_LEVEL"] == "low"


def test_model_is_passed_when_configured(
    stub_claude: Path, recorded_delays: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACECODE_CLAUDE_MODEL", "opus")
    monkeypatch.setenv("ACECODE_CLAUDE_EFFORT", "high")
    run()
    assert model_and_effort(stub_claude) == ("opus", "high")


def test_model_and_effort_from_the_project_toml(
    stub_claude: Path, recorded_delays: list, project: Path
) -> None:
    config = project / ".claude" / "acecode.toml"
    config.parent.mkdir(exist_ok=True)
    config.write_text('claude_model = "haiku"\nclaude_effort = "medium"\n')
    run()
    assert model_and_effort(stub_claude) == ("haiku", "medium")


def test_empty_effort_leaves_it_to_claude_code(
    stub_claude: Path, recorded_delays: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACECODE_CLAUDE_EFFORT", "")
    monkeypatch.setenv("CLAUDE_CODE_EFFORT_LEVEL", "medium")
    run()
    [call] = calls(stub_claude)
    assert "--effort" not in call["argv"]
    assert call["env"]["CLAUDE_CODE_EFFORT_LEVEL"] == "medium"


def test_an_old_claude_runs_without_the_flags_it_lacks(
    old_claude: Path, recorded_delays: list
) -> None:
    assert run() == "stub says hi"
    [call] = calls(old_claude)
    argv = call["argv"]
    for missing in (
        "--tools",
        "--no-session-persistence",
        "--disable-slash-commands",
        "--settings",
        "--effort",
    ):
        assert missing not in argv
    assert "--strict-mcp-config" in argv
    assert value_of(argv, "--model") == "sonnet"
    assert value_of(argv, "--system-prompt") == "the system"
    # What the flags cannot do, the child's variables still try; acecode's guard holds.
    assert call["env"][NESTED_ENV] == "1"
    assert call["env"]["CLAUDE_CODE_EFFORT_LEVEL"] == "low"


def test_help_is_read_once_per_executable_and_again_after_an_upgrade(
    stub_claude: Path, recorded_delays: list, tmp_path: Path
) -> None:
    run()
    run()
    assert probes(stub_claude) == ["--help", "--version"]
    exe = tmp_path / "bin" / "claude"
    exe.write_text(exe.read_text() + "# upgraded\n")  # new size and mtime
    run()
    assert probes(stub_claude) == ["--help", "--version"] * 2


def test_an_unreadable_help_degrades_to_the_core_flags(
    stub_claude: Path, recorded_delays: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STUB_HELP_EXIT", "3")
    assert run() == "stub says hi"
    argv = calls(stub_claude)[0]["argv"]
    assert argv[:5] == ["-p", "--output-format", "json", "--max-turns", "1"]
    assert not any(flag in argv for flag in LEAN_FLAGS)
    run()  # a failed probe is not cached: the next call tries again
    assert probes(stub_claude).count("--help") == 2


def test_is_error_result_is_not_retried(
    stub_claude: Path, recorded_delays: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    reply(monkeypatch, "Invalid API key", is_error=True)
    monkeypatch.setenv("STUB_EXIT", "1")
    with pytest.raises(LLMCallError, match="Invalid API key"):
        run()
    assert len(calls(stub_claude)) == 1
    assert recorded_delays == []


def test_error_max_turns_names_its_subtype_and_reason(
    stub_claude: Path, recorded_delays: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    reply_recorded(monkeypatch, "error_max_turns")  # has no "result" field at all
    with pytest.raises(LLMCallError) as info:
        run()
    message = str(info.value)
    assert "error_max_turns" in message
    assert "stop_reason tool_use" in message
    assert "Reached maximum number of turns (1)" in message
    assert len(calls(stub_claude)) == 1


@pytest.mark.parametrize(
    ("name", "status", "attempts"),
    [("api-529", 529, 3), ("api-400", 400, 1), ("api-429", 429, 1)],
)
def test_api_errors_carry_their_status_and_only_server_errors_are_retried(
    stub_claude: Path,
    recorded_delays: list,
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    status: int,
    attempts: int,
) -> None:
    payload = reply_recorded(monkeypatch, name)
    with pytest.raises(LLMCallError) as info:
        run()
    assert info.value.last_error.status == status
    assert f"API status {status}" in str(info.value)
    assert payload["result"].split(" · ")[0] in str(info.value)
    assert len(calls(stub_claude)) == attempts
    assert len(recorded_delays) == attempts - 1


def test_a_lost_connection_is_reported_and_not_retried(
    stub_claude: Path, recorded_delays: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    reply_recorded(monkeypatch, "connection-lost")
    with pytest.raises(LLMCallError, match="Connection to the API was lost"):
        run()
    assert len(calls(stub_claude)) == 1


def test_an_execution_error_without_words_still_says_something(
    stub_claude: Path, recorded_delays: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The Agent SDK's documented shape; 2.1.197 could not be driven into it offline.
    payload = {"type": "result", "subtype": "error_during_execution", "is_error": True}
    monkeypatch.setenv("STUB_REPLY", json.dumps(payload))
    monkeypatch.setenv("STUB_EXIT", "1")
    with pytest.raises(LLMCallError) as info:
        run()
    assert "error_during_execution" in str(info.value)
    assert "(claude gave no message)" in str(info.value)
    monkeypatch.setenv("STUB_REPLY", json.dumps({**payload, "errors": ["boom"]}))
    with pytest.raises(LLMCallError, match="error_during_execution, exit 1: boom"):
        run()


def test_non_json_output_fails_cleanly(
    stub_claude: Path, recorded_delays: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STUB_REPLY", "this is not json")
    with pytest.raises(LLMCallError, match="without a JSON result"):
        run()


def test_a_slow_claude_is_killed_and_retried(
    stub_claude: Path, recorded_delays: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The stub never answers in time (it would only after 120 s, and then the call
    # would succeed and this test fail): every attempt ends at acecode's own timeout.
    monkeypatch.setenv("ACECODE_CLAUDE_TIMEOUT", "3")
    monkeypatch.setenv("STUB_SLEEP", "120")
    monkeypatch.setenv("STUB_GRANDCHILD", "1")
    with pytest.raises(LLMCallError, match="3 attempts used"):
        run()
    assert len(recorded_delays) == 2
    # Each stub records itself in its first milliseconds; only a machine so loaded
    # that Python cannot start in 3 s would record fewer than the 3 attempts.
    records = calls(stub_claude)
    assert 1 <= len(records) <= 3
    for record in records:  # no nested claude, nor anything it started, is left running
        assert is_gone(record["pid"])
        assert is_gone(record["grandchild"])


def test_the_api_timeout_does_not_apply_to_claude(
    stub_claude: Path, recorded_delays: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACECODE_LLM_TIMEOUT", "0.2")
    monkeypatch.setenv("STUB_SLEEP", "1")
    assert run() == "stub says hi"
    assert len(calls(stub_claude)) == 1
