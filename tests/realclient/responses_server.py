"""A scripted OpenAI Responses API server on 127.0.0.1 for the real Codex CLI.

Codex CLI (0.169) speaks only the Responses API: every model turn is one
``POST /v1/responses`` with ``"stream": true``, answered with server-sent
events. This server answers in the event shape api.openai.com uses
(``response.created`` ... ``response.output_item.done`` ... ``response.completed``),
so text replies and ``function_call`` items (for example Codex's
``exec_command`` tool) run for real in a real session, and it records every
request body for the test to assert on.

Replies are the same :class:`messages_server.Reply` the Messages server uses
(a ``ToolCall``'s ``input`` becomes the call's JSON ``arguments``; a call of a
tool the request declares ``"custom"``, as Codex's ``apply_patch``, sends
``input["input"]`` as its raw text; a name ``"namespace.tool"`` calls a tool
inside a namespace tool, as Codex's ``multi_agent_v1.spawn_agent``), chosen by
a content-routing ``responder`` as there.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

from messages_server import Recorded, RecordingServer, Reply, Responder, _json
from werkzeug import Request, Response


class ResponsesRecorded(Recorded):
    """One Responses API request: ``instructions`` plus a list of typed ``input`` items."""

    @property
    def system_text(self) -> str:
        """The ``instructions`` and every developer-role message (Codex's system prompt)."""
        parts = [str(self.body.get("instructions") or "")]
        parts += [item_text(item) for item in self.items("message") if item["role"] == "developer"]
        return "\n".join(part for part in parts if part)

    @property
    def text(self) -> str:
        """Every text the model would read: instructions and all input items."""
        return str(self.body.get("instructions") or "") + "\n" + json.dumps(self.input)

    @property
    def input(self) -> list[dict[str, Any]]:
        return list(self.body.get("input") or [])

    def items(self, kind: str) -> list[dict[str, Any]]:
        """The input items of one ``type`` (``message``, ``function_call``, ...), oldest first."""
        return [item for item in self.input if item.get("type") == kind]

    def user_texts(self) -> list[str]:
        """The text of every user-role message, oldest first (context blocks included)."""
        return [item_text(item) for item in self.items("message") if item.get("role") == "user"]

    def call_outputs(self) -> list[str]:
        """The output of every tool call (function or custom tool), oldest first."""
        kinds = ("function_call_output", "custom_tool_call_output")
        return [output_text(item) for item in self.input if item.get("type") in kinds]


def item_text(item: dict[str, Any]) -> str:
    """The text spans of one message item, joined."""
    content = item.get("content")
    if isinstance(content, str):
        return content
    return "\n".join(str(part.get("text", "")) for part in content or [] if "text" in part)


def output_text(item: dict[str, Any]) -> str:
    """A ``function_call_output``'s output: a string, or a list of content parts."""
    output = item.get("output")
    if isinstance(output, str):
        return output
    if isinstance(output, list):
        return "\n".join(str(part.get("text", "")) for part in output if isinstance(part, dict))
    return json.dumps(output)


class ResponsesServer(RecordingServer):
    """The recording, content-routed Responses API server (see the module docstring)."""

    recorded_type = ResponsesRecorded

    def __init__(self, responder: Responder | None = None) -> None:
        super().__init__(responder)
        self._http.expect_request("/v1/responses", method="POST").respond_with_handler(
            self._responses
        )

    @property
    def base_url(self) -> str:
        """The provider ``base_url`` for Codex's config: Codex appends ``/responses``."""
        return self.url + "/v1"

    def _responses(self, request: Request) -> Response:
        recorded = self._record(request)
        reply = self._reply_to(recorded)
        if reply.status != 200:
            error = {"message": reply.text or f"scripted {reply.status}", "type": "server_error"}
            return _json({"error": {**error, "param": None, "code": None}}, reply.status)
        response = self._response(recorded, reply)
        if recorded.body.get("stream"):
            return Response(_sse(response), status=200, content_type="text/event-stream")
        return _json(response)

    def _response(self, recorded: Recorded, reply: Reply) -> dict[str, Any]:
        """The completed response object the API returns for ``reply``."""
        output: list[dict[str, Any]] = []
        if reply.text:
            text = {"type": "output_text", "text": reply.text, "annotations": []}
            output.append(
                {
                    "id": f"msg_{next(self._ids):06d}",
                    "type": "message",
                    "status": "completed",
                    "role": "assistant",
                    "content": [text],
                }
            )
        tools = recorded.body.get("tools") or []
        freeform = {tool.get("name") for tool in tools if tool.get("type") == "custom"}
        for call in reply.tool_calls:
            number = next(self._ids)
            namespace, _, name = call.name.rpartition(".")
            item: dict[str, Any] = {
                "status": "completed",
                "call_id": f"call_{number:06d}",
                "name": name,
            }
            if name in freeform:  # a "custom" tool takes raw text, as Codex's apply_patch
                item.update(id=f"ctc_{number:06d}", type="custom_tool_call")
                item["input"] = call.input["input"]
            else:
                item.update(id=f"fc_{number:06d}", type="function_call")
                item["arguments"] = json.dumps(call.input)
            if namespace:  # a tool inside a namespace tool, such as Codex's multi_agent_v1
                item["namespace"] = namespace
            output.append(item)
        tokens_in, tokens_out = reply.usage
        return {
            "id": f"resp_{next(self._ids):06d}",
            "object": "response",
            "created_at": int(time.time()),
            "status": "completed",
            "model": recorded.body.get("model", "scripted-model"),
            "output": output,
            "parallel_tool_calls": True,
            "usage": {
                "input_tokens": tokens_in,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": tokens_out,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": tokens_in + tokens_out,
            },
        }


def _sse(response: dict[str, Any]) -> Iterator[str]:
    """The response as the event stream the Responses API sends for ``stream: true``."""
    sequence = iter(range(1_000_000))

    def event(kind: str, **data: Any) -> str:
        payload = {"type": kind, "sequence_number": next(sequence), **data}
        return f"event: {kind}\ndata: {json.dumps(payload)}\n\n"

    opening = {**response, "status": "in_progress", "output": [], "usage": None}
    yield event("response.created", response=opening)
    yield event("response.in_progress", response=opening)
    for index, item in enumerate(response["output"]):
        if item["type"] == "message":
            yield event(
                "response.output_item.added",
                output_index=index,
                item={**item, "status": "in_progress", "content": []},
            )
            yield from _text_events(event, item, index)
        else:
            field = "arguments" if item["type"] == "function_call" else "input"
            prefix = "function_call_arguments" if field == "arguments" else "custom_tool_call_input"
            yield event(
                "response.output_item.added",
                output_index=index,
                item={**item, "status": "in_progress", field: ""},
            )
            where = {"item_id": item["id"], "output_index": index}
            yield event(f"response.{prefix}.delta", **where, delta=item[field])
            yield event(f"response.{prefix}.done", **where, **{field: item[field]})
        yield event("response.output_item.done", output_index=index, item=item)
    yield event("response.completed", response=response)


def _text_events(event: Any, item: dict[str, Any], index: int) -> Iterator[str]:
    """The content-part and text-delta events of one assistant message."""
    part = item["content"][0]
    where = {"item_id": item["id"], "output_index": index, "content_index": 0}
    yield event("response.content_part.added", **where, part={**part, "text": ""})
    yield event("response.output_text.delta", **where, delta=part["text"])
    yield event("response.output_text.done", **where, text=part["text"])
    yield event("response.content_part.done", **where, part=part)
