"""A scripted Anthropic Messages API server on 127.0.0.1 for the real clients.

The real ``claude`` CLI and acecode's own learner both talk to it: the CLI
streams (server-sent events), acecode's SDK client does not, and this server
answers both the way api.anthropic.com does. Every request body is recorded,
so a test can assert on exactly what a model would have received.

Replies are chosen by content, not by order, because several clients share one
server (the interactive session, the background learner, a subagent): the test
gives a ``responder`` that maps each request to a :class:`Reply`.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Self

from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from support.hang_guard import HANG_GUARD


@dataclass(frozen=True)
class ToolCall:
    """One ``tool_use`` block the scripted model emits."""

    name: str
    input: dict[str, Any]


@dataclass(frozen=True)
class Reply:
    """What the scripted model answers: text, tool calls, or an HTTP error."""

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    status: int = 200
    delay: float = 0.0
    usage: tuple[int, int] = (100, 20)

    @property
    def stop_reason(self) -> str:
        return "tool_use" if self.tool_calls else "end_turn"


@dataclass(frozen=True)
class Recorded:
    """One request as the server received it."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    at: float = field(default_factory=time.monotonic)

    @property
    def system_text(self) -> str:
        system = self.body.get("system") or ""
        if isinstance(system, list):
            return "\n".join(block.get("text", "") for block in system if isinstance(block, dict))
        return str(system)

    @property
    def text(self) -> str:
        """Every text the model would read: system prompt and all message content."""
        return self.system_text + "\n" + json.dumps(self.body.get("messages", []))

    @property
    def tool_names(self) -> list[str]:
        return [tool.get("name", "") for tool in self.body.get("tools") or []]

    @property
    def size(self) -> int:
        """Bytes of the request body as JSON."""
        return len(json.dumps(self.body))


Responder = Callable[[Recorded], Reply]


def message_text(message: dict[str, Any]) -> str:
    """The text blocks of one API message, joined."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    parts = []
    for block in content or []:
        if block.get("type") == "text":
            parts.append(block.get("text", ""))
        elif block.get("type") == "tool_result":
            inner = block.get("content")
            parts.append(inner if isinstance(inner, str) else json.dumps(inner))
    return "\n".join(parts)


def tool_results(recorded: Recorded) -> list[dict[str, Any]]:
    """Every tool_result block in the request's messages, oldest first."""
    return [
        block
        for message in recorded.body.get("messages", [])
        if isinstance(message.get("content"), list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]


class RecordingServer:
    """A recording, content-routed API server on 127.0.0.1; subclasses add the routes.

    ``recorded_type`` is the :class:`Recorded` subclass that knows where the
    provider's wire format keeps the text a model reads.
    """

    recorded_type: type[Recorded] = Recorded

    def __init__(self, responder: Responder | None = None) -> None:
        self.responder: Responder = responder or (lambda _request: Reply("ok"))
        self.requests: list[Recorded] = []
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._http = HTTPServer(host="127.0.0.1", port=0, threaded=True)

    @property
    def url(self) -> str:
        """The root URL, no trailing slash (``ANTHROPIC_BASE_URL`` for the Messages server)."""
        return self._http.url_for("/").rstrip("/")

    def start(self) -> Self:
        self._http.start()
        return self

    def stop(self) -> None:
        self._http.clear()
        self._http.stop()

    def matching(self, predicate: Callable[[Recorded], bool]) -> list[Recorded]:
        with self._lock:
            return [request for request in self.requests if predicate(request)]

    def wait_for(
        self, predicate: Callable[[Recorded], bool], count: int = 1, timeout: float = HANG_GUARD
    ) -> list[Recorded]:
        """Block until ``count`` recorded requests satisfy ``predicate``; fail after ``timeout``."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = self.matching(predicate)
            if len(found) >= count:
                return found
            time.sleep(0.1)
        raise AssertionError(
            f"{count} matching request(s) expected within {timeout:g} s, "
            f"got {len(self.matching(predicate))} of {len(self.requests)}"
        )

    def _record(self, request: Request) -> Recorded:
        recorded = self.recorded_type(
            path=request.full_path,
            headers=dict(request.headers),
            body=json.loads(request.get_data(as_text=True) or "{}"),
        )
        with self._lock:
            self.requests.append(recorded)
        return recorded

    def _reply_to(self, recorded: Recorded) -> Reply:
        """The responder's reply; a broken script shows up in the test instead of hanging it."""
        try:
            reply = self.responder(recorded)
        except Exception as exc:
            reply = Reply(text=f"responder failed: {exc!r}", status=500)
        if reply.delay:
            time.sleep(reply.delay)
        return reply


class MessagesServer(RecordingServer):
    """The recording, content-routed Messages API server (see the module docstring)."""

    def __init__(self, responder: Responder | None = None) -> None:
        super().__init__(responder)
        self._http.expect_request("/v1/messages/count_tokens", method="POST").respond_with_handler(
            self._count_tokens
        )
        self._http.expect_request("/v1/messages", method="POST").respond_with_handler(
            self._messages
        )
        # The CLI probes the base URL; anything else unknown gets a plain 404.
        self._http.expect_request("/", method="GET").respond_with_data("ok")
        self._http.expect_request("/", method="HEAD").respond_with_data("")

    # --- HTTP handlers ---------------------------------------------------------------------

    def _count_tokens(self, request: Request) -> Response:
        body = json.loads(request.get_data(as_text=True) or "{}")
        return _json({"input_tokens": max(1, len(json.dumps(body)) // 4)})

    def _messages(self, request: Request) -> Response:
        recorded = self._record(request)
        reply = self._reply_to(recorded)
        if reply.status != 200:
            error = {"type": "api_error", "message": reply.text or f"scripted {reply.status}"}
            return _json({"type": "error", "error": error}, reply.status)
        message = self._message(recorded, reply)
        if recorded.body.get("stream"):
            return Response(_sse(message, reply), status=200, content_type="text/event-stream")
        return _json(message)

    def _message(self, recorded: Recorded, reply: Reply) -> dict[str, Any]:
        content: list[dict[str, Any]] = []
        if reply.text:
            content.append({"type": "text", "text": reply.text})
        for call in reply.tool_calls:
            content.append(
                {
                    "type": "tool_use",
                    "id": f"toolu_{next(self._ids):06d}",
                    "name": call.name,
                    "input": call.input,
                }
            )
        return {
            "id": f"msg_{next(self._ids):06d}",
            "type": "message",
            "role": "assistant",
            "model": recorded.body.get("model", "scripted-model"),
            "content": content,
            "stop_reason": reply.stop_reason,
            "stop_sequence": None,
            "usage": {"input_tokens": reply.usage[0], "output_tokens": reply.usage[1]},
        }


def _event(name: str, data: dict[str, Any]) -> str:
    return f"event: {name}\ndata: {json.dumps(data)}\n\n"


def _sse(message: dict[str, Any], reply: Reply) -> Iterator[str]:
    """The message as the event stream the Messages API sends for ``stream: true``."""
    start = {**message, "content": [], "stop_reason": None}
    start["usage"] = {"input_tokens": reply.usage[0], "output_tokens": 1}
    yield _event("message_start", {"type": "message_start", "message": start})
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            opening = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            opening = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        yield _event(
            "content_block_start",
            {"type": "content_block_start", "index": index, "content_block": opening},
        )
        yield _event(
            "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
        )
        yield _event("content_block_stop", {"type": "content_block_stop", "index": index})
    yield _event(
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
            "usage": {"output_tokens": reply.usage[1]},
        },
    )
    yield _event("message_stop", {"type": "message_stop"})


def _json(body: dict[str, Any], status: int = 200) -> Response:
    return Response(json.dumps(body), status=status, content_type="application/json")
