"""Visible outcomes end to end: the real hook starts the real learner, and what became of
the session shows in learn.log, ``acecode doctor``, ``acecode history`` and the next
session's notice.

The LLM is a local Anthropic-protocol server that fails with 500 until told to
recover, and records every request; the learner is ``python -m acecode learn`` as the
hook starts it, detached, so the tests wait for its status line in learn.log.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hook_helpers import run_hook, wait_for_line
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from acecode.agents.claude_code.sessions import sessions_dir
from support.hang_guard import HANG_GUARD
from support.pipeline import all_safe, is_safety_review, request_prompt

RULE = "Run the test suite with make test, not pytest directly."
REFLECTION = {"analysis": "make test works, bare pytest failed", "bullet_tags": []}
CURATION = {"reasoning": "r", "operations": [{"type": "ADD", "section": "OTHERS", "text": RULE}]}


class FlakyLLM:
    """Answers 500 while ``failing``, else the reflector's or the curator's JSON."""

    def __init__(self, server: HTTPServer) -> None:
        self.server = server
        self.failing = True
        self.requests = 0
        self.bodies: list[str] = []
        server.expect_request("/v1/messages", method="POST").respond_with_handler(self._reply)

    def _reply(self, request: Request) -> Response:
        self.requests += 1
        self.bodies.append(request.get_data(as_text=True))
        if self.failing:
            body = {"type": "error", "error": {"type": "api_error", "message": "scripted 500"}}
            return Response(json.dumps(body), status=500, content_type="application/json")
        data = json.loads(request.get_data(as_text=True))
        curator = "you are the curator" in json.dumps(data).lower()
        answer = json.dumps(CURATION if curator else REFLECTION)
        if is_safety_review("", request_prompt(data)):
            answer = all_safe(request_prompt(data))
        message = {
            "id": "msg_e2e",
            "type": "message",
            "role": "assistant",
            "model": "scripted-model",
            "content": [{"type": "text", "text": answer}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 100, "output_tokens": 20},
        }
        return Response(json.dumps(message), status=200, content_type="application/json")


@pytest.fixture
def llm() -> Iterator[FlakyLLM]:
    server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
    server.start()
    yield FlakyLLM(server)
    server.clear()
    server.stop()


def _env(llm: FlakyLLM, bin_dir: Path) -> dict[str, str]:
    """An API key for the scripted server, and a `claude` on PATH that it is chosen over."""
    claude = bin_dir / "claude"
    bin_dir.mkdir(exist_ok=True)
    claude.write_text("#!/bin/sh\nexit 1\n")
    claude.chmod(0o755)
    return {
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "AGENTIC_CONTEXT_API_KEY": "test-key",
        "AGENTIC_CONTEXT_BASE_URL": llm.server.url_for("/").rstrip("/"),
        "AGENTIC_CONTEXT_MODEL": "scripted-model",
    }


def _acecode(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if not k.startswith("ACECODE_")}
    full.update(env, COLUMNS="250")
    return subprocess.run(
        [sys.executable, "-m", "acecode", *args],
        capture_output=True,
        text=True,
        env=full,
        timeout=HANG_GUARD,
    )


def _failing_bash_session(path: Path) -> Path:
    """A session whose Bash calls fail: worth learning from despite one request."""
    records: list[dict] = [
        {"type": "user", "uuid": "u1", "message": {"role": "user", "content": "run the tests"}}
    ]
    for i in range(2):
        use = {"type": "tool_use", "id": f"t{i}", "name": "Bash", "input": {"command": "pytest"}}
        result = {
            "type": "tool_result",
            "tool_use_id": f"t{i}",
            "is_error": True,
            "content": "Exit code 4: ERROR: usage: pytest [options]",
        }
        records.append(
            {"type": "assistant", "uuid": f"a{i}", "message": {"id": f"m{i}", "content": [use]}}
        )
        records.append({"type": "user", "uuid": f"r{i}", "message": {"content": [result]}})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


@pytest.mark.slow
def test_a_failed_cycle_is_visible_everywhere_and_bootstrap_retries_it(
    project_dir: Path, llm: FlakyLLM, tmp_path: Path
) -> None:
    env = _env(llm, tmp_path / "bin")
    log = project_dir / ".claude" / "acecode" / "logs" / "learn.log"
    transcript = _failing_bash_session(sessions_dir(project_dir) / "s1.jsonl")
    payload = {
        "session_id": "s1",
        "transcript_path": str(transcript),
        "reason": "prompt_input_exit",
    }

    ended = run_hook("session-end", payload, env=env)
    assert (ended.returncode, ended.stdout, ended.stderr) == (0, "", "")

    line = wait_for_line(log, "[failed]")
    url = env["AGENTIC_CONTEXT_BASE_URL"]
    assert (
        f"[failed] s1.jsonl: reflector: anthropic call to {url} failed (3 attempts used): HTTP 500"
        in line
    )
    assert "scripted 500" in line
    # which provider, that the API key was picked over the user's `claude` login, and
    # which URL it called, set by which variable
    assert line.endswith(
        "| provider anthropic (AGENTIC_CONTEXT_API_KEY is set, chosen over the `claude` login "
        "(`claude` found on PATH); set ACECODE_PROVIDER to choose), model scripted-model, "
        f"at {url} (from AGENTIC_CONTEXT_BASE_URL; key from AGENTIC_CONTEXT_API_KEY)"
    )
    assert f"session-end: learning from {transcript} (reason prompt_input_exit)" in log.read_text()
    assert llm.requests == 3

    doctor = _acecode("doctor", env=env).stdout
    assert "[problem] " in doctor and "(session-end, s1.jsonl): failed: reflector:" in doctor
    assert "provider anthropic (AGENTIC_CONTEXT_API_KEY is set, chosen" in doctor
    history = _acecode("history", env=env).stdout
    assert re.search(r" learn +failed +reflector: anthropic call to ", history)
    started = run_hook("session-start", {"session_id": "s2", "source": "startup"}, env=env)
    assert json.loads(started.stdout)["systemMessage"].startswith(
        f"acecode: the last learning cycle failed: reflector: anthropic call to {url} failed"
    )

    llm.failing = False
    boot = _acecode("bootstrap", "--delay", "0", env=env)
    assert boot.returncode == 0, boot.stderr
    assert "learned 1, already learned 0, failed 0\n" in boot.stdout
    playbook = json.loads((project_dir / ".claude" / "playbook.json").read_text())
    assert [e["text"] for e in playbook["sections"]["OTHERS"]] == [RULE]
    reflector_request = llm.bodies[3]  # the first request after the server recovered
    assert "Exit code 4: ERROR: usage: pytest" in reflector_request  # the failed calls
    doctor = _acecode("doctor", env=env).stdout
    assert "(bootstrap, s1.jsonl): ok: 0 tags, 1 operation applied" in doctor
    assert "[problem]" not in doctor.split("last learning cycle")[1].split("diagnostic mode")[0]
    history = _acecode("history", env=env).stdout
    assert re.search(r" learn +failed +reflector: ", history)
    assert re.search(r" learn +ok +\+1 +\+oth-001", history)
    assert "systemMessage" not in run_hook("session-start", {"session_id": "s3"}).stdout


def test_a_tiny_session_ended_by_clear_is_skipped_without_an_llm_call(
    project_dir: Path, llm: FlakyLLM, tmp_path: Path
) -> None:
    llm.failing = False
    env = _env(llm, tmp_path / "bin")
    log = project_dir / ".claude" / "acecode" / "logs" / "learn.log"
    transcript = tmp_path / "tiny.jsonl"
    question = {"type": "user", "uuid": "u1", "message": {"role": "user", "content": "hi"}}
    transcript.write_text(json.dumps(question) + "\n")
    payload = {"session_id": "t", "transcript_path": str(transcript), "reason": "clear"}

    assert run_hook("session-end", payload, env=env).returncode == 0

    line = wait_for_line(log, "[skipped]")
    assert line.endswith(
        "[skipped] tiny.jsonl: too small to learn from: 1 user request, 0 tool calls, "
        "no failed tool call or stated preference (learn_min_requests = 2, "
        "learn_min_tool_calls = 5)"
    )
    assert llm.requests == 0
    doctor = _acecode("doctor", env=env).stdout
    assert "(session-end, tiny.jsonl): skipped: too small to learn from" in doctor
    assert not (project_dir / ".claude" / "playbook.json").exists()
