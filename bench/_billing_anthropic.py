"""An Anthropic Messages server on 127.0.0.1 that bills like the API, prompt cache included.

``BillingAnthropic(router)`` answers ``POST /v1/messages`` over real HTTP with
``router(system, prompt)`` as the assistant's text, so the anthropic SDK inside
acecode crosses the same boundary as in production, and reports ``usage`` the
way the API does:

* ``input_tokens``: the input tokens that were neither read from nor written to
  the cache; ``cache_read_input_tokens`` and ``cache_creation_input_tokens``
  (split by TTL in ``cache_creation.ephemeral_5m_input_tokens`` /
  ``ephemeral_1h_input_tokens``) the parts that were;
* ``output_tokens``: the reply's tokens; a reply longer than the request's
  ``max_tokens`` is cut there and ends with ``stop_reason: "max_tokens"``, as the
  API does.

Tokens are counted with one rule for every request, whatever acecode version
sent it (4 ASCII characters or 1 other character per token, the estimator
acecode's condenser uses): absolute figures are approximations of a real
tokenizer, comparisons between two runs are fair.

The cache follows the API's documented rules: a ``cache_control`` marker on a
``system`` or message content block caches the whole prefix up to and
including that block (``tools``, then ``system``, then ``messages``); a prefix
shorter than the model's minimum (``MIN_CACHEABLE_TOKENS``) is not cached and
costs nothing extra; an entry lives 5 minutes (``"ttl": "1h"``: one hour)
from its last use. ``clock`` can be advanced to model the time between
sessions without waiting for it.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from _scripted_anthropic import send_json

Router = Callable[[str, str], str]

# Anthropic's documented minimum cacheable prefix for Sonnet 4.5 / 4.6 (prompt caching docs).
MIN_CACHEABLE_TOKENS = 1024
TTL_SECONDS = {"5m": 300.0, "1h": 3600.0}


def count_tokens(text: str) -> int:
    """4 ASCII characters per token, 1 per other character (acecode's condenser estimate)."""
    ascii_chars = len(text.encode("ascii", "ignore"))
    return (ascii_chars + 3) // 4 + (len(text) - ascii_chars)


def _blocks(content: Any) -> list[dict[str, Any]]:
    """A ``system`` or message content as a list of text blocks."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [block for block in content or [] if isinstance(block, dict)]


def _flatten(body: dict[str, Any]) -> list[dict[str, Any]]:
    """Every text block of the request in the API's prefix order: system, then messages."""
    return _blocks(body.get("system")) + [
        block for message in body.get("messages", []) for block in _blocks(message["content"])
    ]


class PromptCache:
    """Prefix entries by hash, each with its expiry on the server's clock."""

    def __init__(self) -> None:
        self.clock = 0.0
        self.entries: dict[str, float] = {}

    def bill(self, model: str, blocks: list[dict[str, Any]]) -> dict[str, int]:
        """The input part of ``usage`` for one request's ``blocks``."""
        total = sum(count_tokens(str(block.get("text", ""))) for block in blocks)
        marked = [i for i, block in enumerate(blocks) if block.get("cache_control")]
        usage = {"read": 0, "5m": 0, "1h": 0}
        if marked:
            last = marked[-1]
            prefix = blocks[: last + 1]
            tokens = sum(count_tokens(str(block.get("text", ""))) for block in prefix)
            ttl = str(blocks[last]["cache_control"].get("ttl") or "5m")
            if tokens >= MIN_CACHEABLE_TOKENS:
                text = json.dumps([model, [block.get("text", "") for block in prefix]])
                key = hashlib.sha256(text.encode()).hexdigest()
                if self.entries.get(key, -1.0) >= self.clock:
                    usage["read"] = tokens
                else:
                    usage[ttl] = tokens
                self.entries[key] = self.clock + TTL_SECONDS.get(ttl, 300.0)
        cached = usage["read"] + usage["5m"] + usage["1h"]
        return {
            "input_tokens": total - cached,
            "cache_read_input_tokens": usage["read"],
            "cache_creation_input_tokens": usage["5m"] + usage["1h"],
            "ephemeral_5m_input_tokens": usage["5m"],
            "ephemeral_1h_input_tokens": usage["1h"],
        }


class BillingAnthropic:
    """``with BillingAnthropic(router) as server:``; ``server.env(model)`` points acecode at
    it. Every request body is kept in ``bodies`` and every usage it was billed in
    ``usages``."""

    def __init__(self, router: Router, port: int = 0) -> None:
        self.router = router
        self.cache = PromptCache()
        self.bodies: list[dict[str, Any]] = []
        self.usages: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                send_json(self, owner.answer(body))

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        """The API's reply to one request: the router's text, cut at ``max_tokens``."""
        system = " ".join(str(b.get("text", "")) for b in _blocks(body.get("system")))
        prompt = " ".join(
            str(block.get("text", ""))
            for message in body.get("messages", [])
            for block in _blocks(message["content"])
        )
        text = self.router(system, prompt)
        stop = "end_turn"
        limit = int(body.get("max_tokens") or 0)
        if limit and count_tokens(text) > limit:
            text, stop = text[: 4 * limit], "max_tokens"
        with self._lock:
            billed = self.cache.bill(str(body.get("model")), _flatten(body))
            usage = {
                "input_tokens": billed["input_tokens"],
                "cache_creation_input_tokens": billed["cache_creation_input_tokens"],
                "cache_read_input_tokens": billed["cache_read_input_tokens"],
                "cache_creation": {
                    "ephemeral_5m_input_tokens": billed["ephemeral_5m_input_tokens"],
                    "ephemeral_1h_input_tokens": billed["ephemeral_1h_input_tokens"],
                },
                "output_tokens": count_tokens(text),
            }
            self.bodies.append(body)
            self.usages.append(usage)
        return {
            "id": f"msg_bench_{len(self.usages)}",
            "type": "message",
            "role": "assistant",
            "model": body.get("model"),
            "content": [{"type": "text", "text": text}],
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": usage,
        }

    def advance(self, seconds: float) -> None:
        """Let ``seconds`` pass on the cache's clock (time between sessions)."""
        with self._lock:
            self.cache.clock += seconds

    def __enter__(self) -> BillingAnthropic:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}"

    def env(self, model: str) -> dict[str, str]:
        return {
            "ACECODE_PROVIDER": "anthropic",
            "AGENTIC_CONTEXT_API_KEY": "bench-key",
            "AGENTIC_CONTEXT_BASE_URL": self.url,
            "AGENTIC_CONTEXT_MODEL": model,
        }
