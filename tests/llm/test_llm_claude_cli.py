"""The headless `claude` provider against a stub `claude` executable first on PATH.

The stub records its arguments, environment and stdin, then prints a scripted
JSON result (or misbehaves on request), so the test sees exactly what a real
nested Claude Code run would receive.
"""

from __future__ import annotations

import asyncio
import json
import os
import stat
import sys
import time
from pathlib import Path

import pytest

from acecode.llm import LLMCallError, complete, usage
from acecode.session_switch import NESTED_ENV

STUB = """\
#!{python}
import json, os, sys, time
record = os.environ["STUB_RECORD"]
data = {{"argv": sys.argv[1:], "env": dict(os.environ), "stdin": sys.stdin.read()}}
data["pid"] = os.getpid()
with open(record, "a") as handle:
    handle.write(json.dumps(data) + "\\n")
time.sleep(float(os.environ.get("STUB_SLEEP", "0")))
sys.stdout.write(os.environ["STUB_REPLY"])
sys.exit(int(os.environ.get("STUB_EXIT", "0")))
"""


@pytest.fixture
def stub_claude(project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Install the stub as `claude` first on PATH; returns the record file."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    exe = bin_dir / "claude"
    exe.write_text(STUB.format(python=sys.executable))
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    record = tmp_path / "calls.jsonl"
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setenv("STUB_RECORD", str(record))
    reply(monkeypatch, "stub says hi")
    return record


def reply(monkeypatch: pytest.MonkeyPatch, text: str, **extra: object) -> None:
    payload = {
        "type": "result",
        "result": text,
        "is_error": False,
        "session_id": "s-1",
        "total_cost_usd": 0.0123,
        "usage": {
            "input_tokens": 10,
            "cache_creation_input_tokens": 100,
            "cache_read_input_tokens": 1000,
            "output_tokens": 42,
        },
        **extra,
    }
    monkeypatch.setenv("STUB_REPLY", json.dumps(payload))


def calls(record: Path) -> list[dict]:
    return [json.loads(line) for line in record.read_text().splitlines()]


def run(prompt: str = "the prompt") -> str:
    return asyncio.run(complete("the system", prompt, role="reflector")).text


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
    settings = json.loads(argv[argv.index("--settings") + 1])
    assert settings == {"disableAllHooks": True}


def test_headless_single_turn_flags_and_prompt_on_stdin(
    stub_claude: Path, recorded_delays: list
) -> None:
    big_prompt = "x" * 300_000  # beyond the per-argument limit of execve
    run(big_prompt)
    [call] = calls(stub_claude)
    argv = call["argv"]
    assert argv[0] == "-p"
    assert argv[argv.index("--output-format") + 1] == "json"
    assert argv[argv.index("--max-turns") + 1] == "1"
    assert argv[argv.index("--allowedTools") + 1] == ""
    assert argv[argv.index("--system-prompt") + 1] == "the system"
    assert "--model" not in argv
    assert call["stdin"] == big_prompt


def test_model_is_passed_when_configured(
    stub_claude: Path, recorded_delays: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACECODE_CLAUDE_MODEL", "sonnet")
    run()
    argv = calls(stub_claude)[0]["argv"]
    assert argv[argv.index("--model") + 1] == "sonnet"


def test_is_error_result_is_not_retried(
    stub_claude: Path, recorded_delays: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    reply(monkeypatch, "Invalid API key", is_error=True)
    monkeypatch.setenv("STUB_EXIT", "1")
    with pytest.raises(LLMCallError, match="Invalid API key"):
        run()
    assert len(calls(stub_claude)) == 1
    assert recorded_delays == []


def test_non_json_output_fails_cleanly(
    stub_claude: Path, recorded_delays: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STUB_REPLY", "this is not json")
    with pytest.raises(LLMCallError, match="without a JSON result"):
        run()


def test_a_slow_claude_is_killed_and_retried(
    stub_claude: Path, recorded_delays: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACECODE_LLM_TIMEOUT", "0.5")
    monkeypatch.setenv("STUB_SLEEP", "30")
    started = time.monotonic()
    with pytest.raises(LLMCallError, match="3 attempts used"):
        run()
    assert time.monotonic() - started < 10
    records = calls(stub_claude)
    assert len(records) == 3
    assert len(recorded_delays) == 2
    for record in records:  # no orphaned nested claude is left running
        with pytest.raises(ProcessLookupError):
            os.kill(record["pid"], 0)
