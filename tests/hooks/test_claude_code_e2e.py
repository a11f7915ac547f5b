"""From ``acecode install`` to a learned entry, as Claude Code would drive it.

A temporary HOME and project, ``python -m acecode install``, then the exact
hook commands written to settings.json, run through a shell with Claude Code's
JSON on stdin. The LLM is a local Anthropic-protocol server with scripted
reflector and curator replies, held back until the SessionEnd hook has
returned: the hook cannot have waited for the background cycle.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from support.hang_guard import HANG_GUARD, wait_until
from support.pipeline import all_safe, is_safety_review, request_prompt
from support.playbooks import written_here

TRANSCRIPTS = Path(__file__).resolve().parents[1] / "data" / "transcripts"
TRANSCRIPT = TRANSCRIPTS / "spotter" / "short.jsonl"
NEW_RULE = "Run the spotter test suite with make test before pushing."

REFLECTION = {
    "analysis": "The session ran the tests; [pat-001] helped.",
    "bullet_tags": [{"name": "pat-001", "tag": "helpful", "rationale": "applied"}],
}
CURATION = {
    "reasoning": "Record how this project runs its tests.",
    "operations": [{"type": "ADD", "section": "PROJECT CONTEXT", "text": NEW_RULE}],
}


@dataclass
class HeldLLM:
    """The scripted server's settings, and the switch that lets its replies go."""

    env: dict[str, str]
    released: threading.Event


def _reply(request: Request, released: threading.Event) -> Response:
    released.wait(HANG_GUARD)
    body = json.loads(request.get_data(as_text=True))
    system = body.get("system") or ""
    if isinstance(system, list):
        system = " ".join(block.get("text", "") for block in system)
    everything = (system + json.dumps(body["messages"])).lower()
    answer = json.dumps(CURATION if "you are the curator" in everything else REFLECTION)
    if is_safety_review(system, request_prompt(body)):
        answer = all_safe(request_prompt(body))
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
def llm() -> Iterator[HeldLLM]:
    released = threading.Event()
    server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
    handler = functools.partial(_reply, released=released)
    server.expect_request("/v1/messages", method="POST").respond_with_handler(handler)
    server.start()
    env = {
        "ACECODE_PROVIDER": "anthropic",
        "AGENTIC_CONTEXT_API_KEY": "test-key",
        "AGENTIC_CONTEXT_BASE_URL": server.url_for("/").rstrip("/"),
        "AGENTIC_CONTEXT_MODEL": "scripted-model",
        "ACECODE_LLM_TIMEOUT": str(HANG_GUARD),  # the held calls must not time out and retry
    }
    yield HeldLLM(env, released)
    released.set()
    server.clear()
    server.stop()


def _env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ACECODE_")}
    env.update(extra or {})
    return env


def _run_installed(settings: dict, event: str, payload: dict, env: dict[str, str]):
    command = settings["hooks"][event][-1]["hooks"][0]["command"]
    proc = subprocess.run(
        ["/bin/sh", "-c", command],
        input=json.dumps({"hook_event_name": event, **payload}).encode(),
        capture_output=True,
        env=env,
        timeout=HANG_GUARD,
    )
    assert proc.returncode == 0, proc.stderr
    return proc


def _context(proc: subprocess.CompletedProcess) -> str:
    return json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]


@pytest.mark.slow
def test_install_inject_learn_inject_uninstall(
    project_dir: Path, home_dir: Path, tmp_path: Path, llm: HeldLLM
) -> None:
    install = subprocess.run(
        [sys.executable, "-m", "acecode", "install"],
        capture_output=True,
        env=_env(),
        timeout=HANG_GUARD,
    )
    assert install.returncode == 0, install.stderr
    settings_file = home_dir / ".claude" / "settings.json"
    settings = json.loads(settings_file.read_text())

    playbook = project_dir / ".claude" / "playbook.json"
    playbook.parent.mkdir()
    playbook.write_text(
        json.dumps(
            {
                "sections": {
                    "PATTERNS & APPROACHES": [
                        {"name": "pat-001", "text": "Read the Makefile first.", "helpful": 0}
                    ]
                }
            }
        )
    )
    written_here(playbook)  # the user's own playbook (one from git waits for a review)
    env = _env(llm.env)
    session = {"session_id": "e2e", "cwd": str(project_dir)}
    started = _run_installed(settings, "SessionStart", {**session, "source": "startup"}, env)
    assert "[pat-001] helpful=0 harmful=0 :: Read the Makefile first." in _context(started)
    compacted = _run_installed(settings, "SessionStart", {**session, "source": "compact"}, env)
    assert _context(compacted) == _context(started)
    prompt = _run_installed(settings, "UserPromptSubmit", {**session, "prompt": "go"}, env)
    assert prompt.stdout == b""

    transcript = tmp_path / "e2e.jsonl"
    shutil.copy(TRANSCRIPT, transcript)
    before = playbook.read_bytes()
    # The LLM answers nothing yet: a SessionEnd hook that waited for the cycle
    # would hang here (and fail at the subprocess hang guard).
    ended = _run_installed(
        settings,
        "SessionEnd",
        {**session, "transcript_path": str(transcript), "reason": "logout"},
        env,
    )
    assert ended.stdout == b""
    assert playbook.read_bytes() == before  # the cycle is still running

    llm.released.set()
    wait_until(lambda: NEW_RULE in playbook.read_text(), "the background cycle's new rule")
    log = (project_dir / ".claude" / "acecode" / "logs" / "learn.log").read_text()
    saved = json.loads(playbook.read_text())
    assert saved["sections"]["PROJECT CONTEXT"][0]["text"] == NEW_RULE, log
    assert saved["sections"]["PATTERNS & APPROACHES"][0]["helpful"] == 1
    assert f"session-end: learning from {transcript}" in log

    next_session = {"session_id": "e2e-2", "cwd": str(project_dir), "source": "startup"}
    learned = _run_installed(settings, "SessionStart", next_session, env)
    assert f":: {NEW_RULE}" in _context(learned)
    assert "[pat-001] helpful=1" in _context(learned)

    uninstall = subprocess.run(
        [sys.executable, "-m", "acecode", "uninstall"],
        capture_output=True,
        env=_env(),
        timeout=HANG_GUARD,
    )
    assert uninstall.returncode == 0, uninstall.stderr
    assert not settings_file.exists()  # it held only acecode's hooks: as before install
