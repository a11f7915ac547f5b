"""A scripted Anthropic Messages server on 127.0.0.1 for the benchmarks.

``ScriptedAnthropic(router)`` answers ``POST /v1/messages`` with
``router(system, prompt)`` as the assistant's text, over real HTTP, so the
anthropic SDK inside acecode crosses the same boundary as in production.
Every request's system text and prompt are kept in ``received``.
A scripted model has no tokenizer: usage is reported as acecode estimates
it when a provider reports none, about 4 characters per token.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from acecode.llm.usage import estimate_tokens

Router = Callable[[str, str], str]


def message_text(content: list[dict[str, Any]]) -> str:
    """A message's text when it was sent as blocks (as a prompt-cache marker needs)."""
    return "".join(str(block.get("text", "")) for block in content)


def send_json(handler: BaseHTTPRequestHandler, reply: dict[str, Any]) -> None:
    """Answer the request ``handler`` serves with ``reply`` as a 200 JSON body."""
    data = json.dumps(reply).encode()
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


class ScriptedAnthropic:
    """``with ScriptedAnthropic(router) as server:``; ``server.env()`` points acecode at it."""

    def __init__(self, router: Router) -> None:
        self.router = router
        self.requests = 0
        self.received: list[tuple[str, str]] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                system = body.get("system") or ""
                if isinstance(system, list):
                    system = " ".join(block.get("text", "") for block in system)
                prompt = " ".join(
                    m["content"] if isinstance(m["content"], str) else message_text(m["content"])
                    for m in body["messages"]
                )
                owner.requests += 1
                owner.received.append((system, prompt))
                text = owner.router(system, prompt)
                reply: dict[str, Any] = {
                    "id": "msg_bench",
                    "type": "message",
                    "role": "assistant",
                    "model": "scripted-model",
                    "content": [{"type": "text", "text": text}],
                    "stop_reason": "end_turn",
                    "stop_sequence": None,
                    "usage": {
                        "input_tokens": estimate_tokens(system + prompt),
                        "output_tokens": estimate_tokens(text),
                    },
                }
                send_json(self, reply)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> ScriptedAnthropic:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def env(self) -> dict[str, str]:
        host, port = self.httpd.server_address[:2]
        return {
            "ACECODE_PROVIDER": "anthropic",
            "AGENTIC_CONTEXT_API_KEY": "bench-key",
            "AGENTIC_CONTEXT_BASE_URL": f"http://{host}:{port}",
            "AGENTIC_CONTEXT_MODEL": "scripted-model",
        }
