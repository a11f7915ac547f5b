"""Scripted models for the real-client scenarios: the coding agent and acecode's roles.

One server answers every client, so :class:`Script` tells the requests apart
by what they contain:

- acecode's own role calls (reflector, curator, ...) carry the role's prompt
  template; the test scripts their JSON answers (an unscripted safety review
  answers "safe" for every text, as a reviewer with no objection would);
- Claude Code's housekeeping calls (the session title, the compaction
  summary) get a plain answer;
- a subagent's calls start with the task the main agent gave it;
- everything else is the main coding agent, which plays its steps in order
  within each user turn: step ``i`` answers the request that carries ``i``
  tool results since the user's last prompt.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from messages_server import Recorded, Reply, ToolCall

from support.pipeline import all_safe

# The first words of each acecode role template (src/acecode/prompts/).
ROLE_MARKERS: dict[str, str] = {
    "reflector": "You are the reflector of acecode",
    "curator": "You are the curator of acecode",
    "safety_review": "You are the safety reviewer of acecode",
    "judge": "You are the judge of acecode",
}
PLAYBOOK_TAG = "<acecode-playbook>"
COMPACTION_MARKER = "CRITICAL: Respond with TEXT ONLY"
TITLE_MARKER = "Write the title in the language"
PERSISTED_MARKER = "<persisted-output>"


def acecode_role(request: Recorded) -> str | None:
    """Which acecode role sent ``request``, if any."""
    text = request.text
    for role, marker in ROLE_MARKERS.items():
        if marker in text:
            return role
    return None


def last_user_text(request: Recorded) -> str:
    """The text of the request's last message (an acecode role's prompt)."""
    messages = request.body.get("messages") or [{}]
    content = messages[-1].get("content", "")
    if isinstance(content, list):
        return "\n".join(str(block.get("text", "")) for block in content if isinstance(block, dict))
    return str(content)


def is_housekeeping(request: Recorded) -> bool:
    """A title or compaction-summary call the CLI makes on its own."""
    last = json.dumps(request.body.get("messages", [])[-1:])
    return (TITLE_MARKER in last and not request.tool_names) or COMPACTION_MARKER in last


def is_agent_turn(request: Recorded) -> bool:
    """A request of the coding agent itself (main session or subagent)."""
    return acecode_role(request) is None and not is_housekeeping(request)


def step_in_turn(request: Recorded) -> int:
    """How many tool round trips the agent has made since the user's last prompt."""
    messages = request.body.get("messages", [])
    steps, index = 0, len(messages) - 1
    while index >= 1:
        content = messages[index].get("content")
        blocks = content if isinstance(content, list) else []
        if not any(block.get("type") == "tool_result" for block in blocks):
            break
        steps += 1
        index -= 2  # past the assistant message whose tool call this result answers
    return steps


def bash(command: str) -> ToolCall:
    return ToolCall("Bash", {"command": command, "description": "run a command"})


def subagent(task: str, kind: str = "general-purpose") -> ToolCall:
    return ToolCall("Agent", {"description": "delegate", "prompt": task, "subagent_type": kind})


@dataclass
class Script:
    """A responder for :class:`messages_server.MessagesServer` (see the module docstring)."""

    agent: Sequence[Reply] = (Reply("Done."),)
    subagent_task: str | None = None
    subagent: Sequence[Reply] = (Reply("Subagent done."),)
    # role -> its JSON answer, or a function of the request giving it
    roles: dict[str, Any | Callable[[Recorded], Any]] = field(default_factory=dict)
    summary: str = "<summary>The user and the agent worked on the project.</summary>"

    def __call__(self, request: Recorded) -> Reply:
        role = acecode_role(request)
        if role is not None:
            answer = self.roles.get(role, {})
            if role == "safety_review" and role not in self.roles:
                answer = all_safe(last_user_text(request))  # a reviewer with no objection
            if callable(answer):
                answer = answer(request)
            return Reply(answer if isinstance(answer, str) else json.dumps(answer))
        last = json.dumps(request.body.get("messages", [])[-1:])
        if COMPACTION_MARKER in last:
            return Reply(self.summary)
        if TITLE_MARKER in last and not request.tool_names:
            return Reply('{"title": "Scripted session"}')
        steps = self.agent
        first = json.dumps(request.body.get("messages", [])[:1])
        if self.subagent_task and self.subagent_task in first:
            steps = self.subagent
        return steps[min(step_in_turn(request), len(steps) - 1)]
