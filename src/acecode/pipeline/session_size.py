"""Is a session big enough to teach anything? Counted without an LLM call.

Learning from every ended session by default means many tiny ones: a
question answered in one reply, a session opened and closed. Reflecting on
those costs an LLM call each and teaches little. A session is worth a cycle
when it has enough real user requests, enough tool calls, any failed tool
call (a failure is exactly what the playbook is for) or a preference the user
stated (``from now on, use pnpm``: a rule given outright, however short the
session; :data:`acecode.pipeline.triage.PREFERENCE`).

Counted on the flat messages of :mod:`acecode.transcript`: a *request* is a
``prompt`` message (typed by the user), not a tool result, an injected
(``meta``) record, a slash command, its output, an interrupt or a compaction
summary; a *failed tool call* is a ``tool_result`` with ``is_error``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from typing import Any

from acecode.project.config import Settings
from acecode.text.wording import counted


@dataclass
class SessionSize:
    """Counts over the messages a cycle would reflect on."""

    requests: int = 0
    tool_calls: int = 0
    failed_tool_calls: int = 0

    def observe(self, messages: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        """Yield ``messages`` unchanged, counting them on the way (one streamed pass)."""
        for message in messages:
            kind = message.get("kind")
            if kind == "prompt":
                self.requests += 1
            elif kind == "tool_use":
                self.tool_calls += 1
            elif kind == "tool_result" and message.get("is_error"):
                self.failed_tool_calls += 1
            yield message

    def too_small(self, settings: Settings, stated_preference: bool = False) -> str | None:
        """Why this is too small to learn from, or None when it is worth a cycle
        (``stated_preference``: the user stated how they want things done)."""
        if self.failed_tool_calls or stated_preference:
            return None
        if self.requests >= settings.learn_min_requests:
            return None
        if self.tool_calls >= settings.learn_min_tool_calls:
            return None
        return (
            f"too small to learn from: {counted(self.requests, 'user request')}, "
            f"{counted(self.tool_calls, 'tool call')}, no failed tool call or stated preference "
            f"(learn_min_requests = {settings.learn_min_requests}, "
            f"learn_min_tool_calls = {settings.learn_min_tool_calls})"
        )

    def as_dict(self) -> dict[str, int]:
        return asdict(self)
