"""A real HTTP server on 127.0.0.1 that speaks the Anthropic Messages API and
the OpenAI chat-completions API and plays a script of replies and faults.

Shared by tests/llm and tests/roles (their conftest files re-export its fixtures).
The real SDK clients talk to it through the base-URL settings, so every test
crosses the same HTTP boundary production does.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from acecode.llm import retry
from support.hang_guard import HANG_GUARD
from support.llm_env import LLM_ENV_VARS

# acecode's request timeout in the tests where a held reply times out and the retry is
# answered: the retry's answer must beat it however loaded the machine (with 0.3 s, three
# suites at once on two cores timed the retry out too), and it is the wait each such test
# pays once.
SLOW_REPLY_TIMEOUT = 3.0
ANTHROPIC_PATH = "/v1/messages"
OPENAI_PATH = "/v1/chat/completions"


@dataclass
class Reply:
    """One scripted answer: a text (200) or an error status.

    ``held``: the answer is not sent before the test ends, so a client's read
    timeout fires whatever the machine's load (a reply merely slower than the
    timeout can still arrive first when the client is not scheduled in time).
    """

    text: str = ""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    held: bool = False
    usage: tuple[int, int] | None = (120, 30)
    # More usage fields as the provider sends them (cache counts, OpenRouter's cost).
    usage_extra: dict[str, Any] = field(default_factory=dict)
    # The reply stopped at max_tokens (stop_reason "max_tokens" / finish_reason "length").
    cut_off: bool = False


class ScriptedLLMServer:
    """Plays ``script`` in order (the last reply repeats) and records every request."""

    def __init__(self, server: HTTPServer) -> None:
        self.server = server
        self.script: list[Reply] = []
        self.requests: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self.headers: list[dict[str, str]] = []
        self._lock = threading.Lock()
        self._test_over = threading.Event()
        server.expect_request(ANTHROPIC_PATH, method="POST").respond_with_handler(self._anthropic)
        server.expect_request(OPENAI_PATH, method="POST").respond_with_handler(self._openai)

    @property
    def url(self) -> str:
        """Base URL for the anthropic SDK (it appends /v1/messages)."""
        return self.server.url_for("/").rstrip("/")

    @property
    def openai_url(self) -> str:
        """Base URL for the openai SDK (it appends /chat/completions)."""
        return self.server.url_for("/v1")

    @property
    def attempts(self) -> int:
        return len(self.requests)

    def reset(self) -> None:
        """Forget the last test's script and records; let its held replies go."""
        with self._lock:
            self.script, self.requests, self.paths, self.headers = [], [], [], []
            self._test_over.set()
            self._test_over = threading.Event()

    def release(self) -> None:
        """Let every held reply go (the session is ending)."""
        self._test_over.set()

    def _answer(self, request: Request, path: str) -> Reply:
        """Record the request and pick its reply; a held one waits for its test to end."""
        with self._lock:
            test_over = self._test_over
        reply = self._next(request, path)
        if reply.held:
            test_over.wait(HANG_GUARD)
        return reply

    def play(self, *replies: Reply | str) -> None:
        self.script = [Reply(text=r) if isinstance(r, str) else r for r in replies]

    def prompt(self, index: int = -1) -> str:
        """The user prompt of a recorded request, whichever protocol it used (the text of
        its blocks when it was sent as blocks, as a prompt-cache marker needs)."""
        messages = self.requests[index]["messages"]
        content = next(m["content"] for m in messages if m["role"] == "user")
        if isinstance(content, str):
            return content
        return "".join(block.get("text", "") for block in content)

    def _next(self, request: Request, path: str) -> Reply:
        with self._lock:
            self.requests.append(json.loads(request.get_data(as_text=True)))
            self.paths.append(path)
            self.headers.append(dict(request.headers))
            if not self.script:
                raise AssertionError("the test scripted no reply")
            return self.script.pop(0) if len(self.script) > 1 else self.script[0]

    def _anthropic(self, request: Request) -> Response:
        reply = self._answer(request, ANTHROPIC_PATH)
        if reply.status != 200:
            body = {
                "type": "error",
                "error": {"type": "api_error", "message": f"scripted {reply.status}"},
            }
            return _json(body, reply.status, reply.headers)
        body: dict[str, Any] = {
            "id": "msg_scripted",
            "type": "message",
            "role": "assistant",
            "model": "scripted-model",
            "content": [{"type": "text", "text": reply.text}] if reply.text else [],
            "stop_reason": "max_tokens" if reply.cut_off else "end_turn",
            "stop_sequence": None,
            "usage": {
                **(
                    {"input_tokens": reply.usage[0], "output_tokens": reply.usage[1]}
                    if reply.usage
                    else {"input_tokens": 0, "output_tokens": 0}
                ),
                **reply.usage_extra,
            },
        }
        return _json(body, 200, reply.headers)

    def _openai(self, request: Request) -> Response:
        reply = self._answer(request, OPENAI_PATH)
        if reply.status != 200:
            body = {"error": {"message": f"scripted {reply.status}", "type": "server_error"}}
            return _json(body, reply.status, reply.headers)
        body = {
            "id": "chatcmpl-scripted",
            "object": "chat.completion",
            "created": 1_700_000_000,
            "model": "scripted-model",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": reply.text},
                    "finish_reason": "length" if reply.cut_off else "stop",
                }
            ],
        }
        if reply.usage:
            body["usage"] = {
                "prompt_tokens": reply.usage[0],
                "completion_tokens": reply.usage[1],
                "total_tokens": sum(reply.usage),
                **reply.usage_extra,
            }
        return _json(body, 200, reply.headers)


def _json(body: dict[str, Any], status: int, headers: dict[str, str]) -> Response:
    return Response(
        json.dumps(body), status=status, headers=headers, content_type="application/json"
    )


@pytest.fixture(scope="session")
def _llm_http_server() -> Iterator[ScriptedLLMServer]:
    """One threaded server for the session (a slow reply must not block the retry).

    Stopping a werkzeug server costs half a second, so it is started once and
    its script and records are reset for every test instead.
    """
    server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
    server.start()
    scripted = ScriptedLLMServer(server)
    try:
        yield scripted
    finally:
        scripted.release()
        server.clear()
        server.stop()


@pytest.fixture
def llm_server(_llm_http_server: ScriptedLLMServer) -> ScriptedLLMServer:
    """The session server with an empty script and no recorded requests."""
    _llm_http_server.reset()
    return _llm_http_server


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An isolated project and home: no user config, no machine LLM settings."""
    for name in LLM_ENV_VARS:
        monkeypatch.delenv(name, raising=False)
    home = tmp_path / "home"
    home.mkdir()
    root = tmp_path / "project"
    (root / ".claude").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(root))
    return root


@pytest.fixture
def diagnostic_mode(project: Path) -> Path:
    """Turn diagnostic mode on; returns the folder diagnostics are written to."""
    (project / ".claude" / "diagnostic_mode").touch()
    return project / ".claude" / "diagnostic"


@pytest.fixture
def recorded_delays(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Replace the retry wait with a recorder: tests never sleep between attempts."""
    delays: list[float] = []

    async def record(seconds: float) -> None:
        delays.append(seconds)

    monkeypatch.setattr(retry, "delay", record)
    return delays


@pytest.fixture
def anthropic_env(
    project: Path, llm_server: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch
) -> ScriptedLLMServer:
    """Configure the default provider (Anthropic) against the scripted server."""
    monkeypatch.setenv("AGENTIC_CONTEXT_API_KEY", "sk-test-anthropic")
    monkeypatch.setenv("AGENTIC_CONTEXT_BASE_URL", llm_server.url)
    monkeypatch.setenv("AGENTIC_CONTEXT_MODEL", "test-model")
    return llm_server


@pytest.fixture
def openai_env(
    project: Path, llm_server: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch
) -> ScriptedLLMServer:
    """Configure the OpenAI-compatible provider against the scripted server."""
    monkeypatch.setenv("ACECODE_PROVIDER", "openai")
    monkeypatch.setenv("ACECODE_OPENAI_BASE_URL", llm_server.openai_url)
    monkeypatch.setenv("ACECODE_OPENAI_MODEL", "local-model")
    return llm_server


def diagnostic_files(folder: Path, suffix: str) -> list[Path]:
    """Diagnostics whose name ends with ``suffix`` (timestamps prefix every file)."""
    return sorted(folder.glob(f"*_{suffix}.txt")) if folder.exists() else []
