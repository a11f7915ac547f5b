"""A scripted coding model for the real Codex CLI (see :mod:`scripted` for Claude Code's).

One server answers every request Codex makes, so :class:`CodexScript` tells
them apart by content:

- Codex's housekeeping calls (the terminal UI's task title, the compaction
  summary) carry fixed prompts and get a plain answer;
- everything else is the coding agent, which plays its steps in order within
  each user turn: step ``i`` answers the request that carries ``i`` tool
  outputs since the user's last message.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from messages_server import Recorded, Reply, ToolCall
from responses_server import ResponsesRecorded

# The opening words of the prompts Codex 0.169 sends for its own bookkeeping.
TITLE_MARKER = "Generate a concise, single-line task title"
COMPACTION_MARKER = "You are performing a CONTEXT CHECKPOINT COMPACTION"


def last_user_text(request: Recorded) -> str:
    assert isinstance(request, ResponsesRecorded)
    texts = request.user_texts()
    return texts[-1] if texts else ""


def is_housekeeping(request: Recorded) -> bool:
    """A title or compaction-summary call Codex makes on its own."""
    last = last_user_text(request)
    return TITLE_MARKER in last or COMPACTION_MARKER in last


def is_agent_turn(request: Recorded) -> bool:
    """A request of the coding agent itself."""
    return not is_housekeeping(request)


def step_in_turn(request: ResponsesRecorded) -> int:
    """How many tool outputs the agent has received since the user's last message."""
    steps = 0
    for item in reversed(request.input):
        if item.get("type") == "message" and item.get("role") == "user":
            break
        steps += item.get("type") in ("function_call_output", "custom_tool_call_output")
    return steps


def exec_command(command: str) -> ToolCall:
    """A call of Codex's shell tool, ``exec_command``."""
    return ToolCall("exec_command", {"cmd": command})


def apply_patch(patch: str) -> ToolCall:
    """A call of Codex's file-editing tool, ``apply_patch`` (offered to known models only)."""
    return ToolCall("apply_patch", {"input": patch})


@dataclass
class CodexScript:
    """A responder for :class:`responses_server.ResponsesServer` (see the module docstring)."""

    agent: Sequence[Reply] = (Reply("Done."),)
    summary: str = "The user and the agent worked on the project."
    title: str = "Scripted session"

    def __call__(self, request: Recorded) -> Reply:
        assert isinstance(request, ResponsesRecorded)
        last = last_user_text(request)
        if COMPACTION_MARKER in last:
            return Reply(self.summary)
        if TITLE_MARKER in last:
            return Reply(self.title)
        return self.agent[min(step_in_turn(request), len(self.agent) - 1)]
