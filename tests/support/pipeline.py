"""A content-routed Anthropic server on 127.0.0.1 and a small transcript.

Shared by the pipeline, fault and library tests.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

Router = Callable[[str, str], "str | int"]  # reply text, or an HTTP error status
MEASURED = "measured"


def count_tokens(text: str) -> int:
    """4 ASCII characters or 1 other character per token: a server that counts what it
    was sent, as a real one does with its tokenizer."""
    ascii_chars = len(text.encode("ascii", "ignore"))
    return (ascii_chars + 3) // 4 + (len(text) - ascii_chars)


class RoutedLLM:
    """Anthropic Messages API on 127.0.0.1 whose reply depends on the request.

    ``router(system, prompt) -> reply text`` (or an int: that HTTP error
    status) lets concurrent cycles each get their own scripted answers; every
    request body is kept for assertions. The safety review's requests go to
    ``safety`` when given, else they are answered "safe" for every text, as a
    reviewer with no objection would. While ``fail_with`` holds an HTTP status,
    every request gets that status and an Anthropic error body instead.
    """

    def __init__(
        self,
        server: HTTPServer,
        router: Router,
        delay: float = 0.0,
        safety: Router | None = None,
        usage: tuple[int, int] | str | None = (100, 20),
    ) -> None:
        self.server = server
        self.router = router
        self.safety = safety or (lambda system, prompt: all_safe(prompt))
        self.delay = delay
        self.fail_with: int | None = None
        # (input, output) for every reply; MEASURED: counted from the texts (4 ASCII
        # characters or 1 other character per token); None: no usage, acecode estimates.
        self.usage = usage
        self.usage_extra: dict[str, Any] = {}  # more usage fields (prompt-cache counts)
        self.bodies: list[str] = []
        self._lock = threading.Lock()
        server.expect_request("/v1/messages", method="POST").respond_with_handler(self._handle)

    @property
    def url(self) -> str:
        return self.server.url_for("/").rstrip("/")

    def env(self) -> dict[str, str]:
        return {
            "ACECODE_PROVIDER": "anthropic",
            "AGENTIC_CONTEXT_API_KEY": "test-key",
            "AGENTIC_CONTEXT_BASE_URL": self.url,
            "AGENTIC_CONTEXT_MODEL": "scripted-model",
        }

    def _handle(self, request: Request) -> Response:
        raw = request.get_data(as_text=True)
        with self._lock:
            self.bodies.append(raw)
        body = json.loads(raw)
        system = body.get("system") or ""
        if isinstance(system, list):
            system = " ".join(block.get("text", "") for block in system)
        prompt = " ".join(
            m["content"] if isinstance(m["content"], str) else message_text(m["content"])
            for m in body["messages"]
        )
        if self.delay:
            time.sleep(self.delay)
        if self.fail_with is not None:
            return _error_response(self.fail_with)
        route = self.safety if is_safety_review(system, prompt) else self.router
        text = route(system, prompt)
        if isinstance(text, int):
            return _error_response(text)
        reply = {
            "id": "msg_routed",
            "type": "message",
            "role": "assistant",
            "model": "scripted-model",
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
        }
        if self.usage is not None:
            counts = (
                (count_tokens(system + prompt), count_tokens(text))
                if self.usage == MEASURED
                else self.usage
            )
            reply["usage"] = {
                "input_tokens": counts[0],
                "output_tokens": counts[1],
                **self.usage_extra,
            }
        return Response(json.dumps(reply), status=200, content_type="application/json")


@contextmanager
def routed_servers() -> Iterator[Callable[..., RoutedLLM]]:
    """``start(router, delay=0.0, safety=None)`` starts a :class:`RoutedLLM` on its own
    port; every server started in the block is stopped when it ends. Configures no
    environment: callers pass ``llm.url`` or ``llm.env()`` where they need it."""
    servers: list[HTTPServer] = []

    def start(router: Router, delay: float = 0.0, safety: Router | None = None) -> RoutedLLM:
        server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
        server.start()
        servers.append(server)
        return RoutedLLM(server, router, delay, safety)

    try:
        yield start
    finally:
        for server in servers:
            server.clear()
            server.stop()


def message_text(content: str | list[dict[str, Any]]) -> str:
    """A message's text, also when it was sent as blocks (as a prompt-cache marker needs)."""
    if isinstance(content, str):
        return content
    return "".join(str(block.get("text", "")) for block in content)


def request_prompt(body: str | dict[str, Any]) -> str:
    """The text of every message of a recorded request body (JSON text or parsed)."""
    data = json.loads(body) if isinstance(body, str) else body
    return " ".join(message_text(m["content"]) for m in data["messages"])


def _error_response(status: int) -> Response:
    """An Anthropic error body with HTTP ``status``."""
    error = {"type": "error", "error": {"type": "api_error", "message": f"scripted {status}"}}
    return Response(json.dumps(error), status=status, content_type="application/json")


def is_curator(system: str, prompt: str) -> bool:
    """The curator's template introduces itself; the reflector's does not."""
    return "you are the curator" in (system + prompt).lower()


def is_safety_review(system: str, prompt: str) -> bool:
    """The safety review's template introduces itself."""
    return "you are the safety reviewer" in (system + prompt).lower()


def review_items(prompt: str) -> list[dict[str, Any]]:
    """The ``{"id", "text"}`` items a safety review request asks about (its JSON list)."""
    start = re.search(r"^\[", prompt, re.MULTILINE)
    if start is None:
        return []
    items, _ = json.JSONDecoder().raw_decode(prompt, start.start())
    return items


def all_safe(prompt: str) -> str:
    """A safety review reply with a "safe" verdict for every text of ``prompt``."""
    verdicts = [{"id": item["id"], "verdict": "safe"} for item in review_items(prompt)]
    return json.dumps({"verdicts": verdicts})


def is_judge(system: str, prompt: str) -> bool:
    """The judge's template introduces itself too."""
    return "you are the judge of acecode" in (system + prompt).lower()


def judged_pairs(prompt: str) -> list[dict[str, str]]:
    """The pairs a judge prompt carries: one ``{"pair", "A", "B"}`` JSON object per line."""
    return [json.loads(line) for line in prompt.splitlines() if line.startswith('{"pair": ')]


Verdict = str | dict[str, str] | None  # "same", {"verdict": ..., "specific": ...}, or no answer


def judge_reply(prompt: str, verdict_of: Callable[[str, str], Verdict]) -> str:
    """A judge's JSON answer: ``verdict_of(A, B)`` for each pair (None leaves the pair out)."""
    answers = []
    for pair in judged_pairs(prompt):
        verdict = verdict_of(pair["A"], pair["B"])
        if verdict is None:
            continue
        fields = {"verdict": verdict} if isinstance(verdict, str) else verdict
        answers.append({"pair": pair["pair"], "reason": "scripted", **fields})
    return json.dumps({"verdicts": answers})


PLAIN_REFLECTION = json.dumps({"analysis": "The session fixed a failing test.", "bullet_tags": []})


def curator_says(
    *operations: dict[str, Any], judge: Callable[[str, str], Verdict | int] = lambda a, b: None
) -> Router:
    """Route: curator -> ``operations``; judge -> ``judge(A, B)`` for each pair (an int
    there: that HTTP error status for the whole call); anything else -> a reflection."""
    body = json.dumps({"reasoning": "scripted", "operations": list(operations)})

    def route(system: str, prompt: str) -> str | int:
        if is_judge(system, prompt):
            pairs = judged_pairs(prompt)
            status = judge(pairs[0]["A"], pairs[0]["B"]) if pairs else None
            return status if isinstance(status, int) else judge_reply(prompt, judge)
        return body if is_curator(system, prompt) else PLAIN_REFLECTION

    return route


# Twenty tips on unrelated topics: no two are near duplicates, so de-duplication
# leaves a playbook made of them alone.
DISTINCT_TIPS = (
    "Run database migrations with `make migrate` before starting the API server.",
    "Prefer pathlib.Path over os.path for new file handling code.",
    "Log with the structlog logger from app.logging, never with print.",
    "Retry HTTP calls to the billing API with exponential backoff.",
    "Add type hints to every new public function.",
    "Use session-scoped pytest fixtures for the Postgres container.",
    "CLI commands exit with status 2 on invalid arguments.",
    "Validate webhook payloads against schemas/webhook.json.",
    "Cancel background asyncio tasks in the shutdown handler.",
    "Environment variables override values from config.toml.",
    "Write docstrings in the Google style with an Args section.",
    "Error messages name the file and the line that caused them.",
    "Commit the uv.lock file whenever dependencies change.",
    "Create temporary directories with tmp_path in tests.",
    "Decode subprocess output as UTF-8 with errors='replace'.",
    "The frontend lives in web/ and builds with `npm run build`.",
    "Never edit generated files under src/proto; regenerate them.",
    "Release notes go in CHANGELOG.md under the Unreleased heading.",
    "Benchmarks print a table and live in the bench folder.",
    "The Redis cache key prefix is configured in settings.CACHE_PREFIX.",
)


def make_playbook(path: Path, texts: list[str], helpful: int = 1) -> None:
    """A playbook whose PATTERNS section holds ``texts`` as pat-001, pat-002, ..."""
    from acecode.store import save_playbook

    entries = [
        {"name": f"pat-{i:03d}", "text": text, "helpful": helpful, "harmful": 0}
        for i, text in enumerate(texts, start=1)
    ]
    save_playbook({"sections": {"PATTERNS & APPROACHES": entries}}, path)


def write_transcript(path: Path, request: str, reply: str, *, error: str | None = None) -> Path:
    """A minimal Claude Code session: a prompt, a failing tool call, a reply."""
    records: list[dict[str, Any]] = [
        {
            "type": "user",
            "uuid": "u1",
            "sessionId": "s1",
            "message": {"role": "user", "content": request},
        },
        {
            "type": "assistant",
            "uuid": "a1",
            "sessionId": "s1",
            "message": {
                "id": "m1",
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "pytest"}}
                ],
            },
        },
        {
            "type": "user",
            "uuid": "u2",
            "sessionId": "s1",
            "message": {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t1",
                        "is_error": True,
                        "content": error or "ModuleNotFoundError: No module named 'yaml'",
                    }
                ],
            },
        },
        {
            "type": "assistant",
            "uuid": "a2",
            "sessionId": "s1",
            "message": {
                "id": "m2",
                "role": "assistant",
                "content": [{"type": "text", "text": reply}],
            },
        },
    ]
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path
