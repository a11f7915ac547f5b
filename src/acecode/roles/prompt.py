"""Building role prompts: template filling and the texts that go into them.

Templates use ``str.format`` conventions (``{name}`` placeholders, ``{{`` and
``}}`` for literal braces), so templates written for the earlier system keep
working as user overrides. Filling is a single regex pass rather than
``str.format``: values are never re-scanned, and a placeholder the code does
not know is left as written instead of raising ``KeyError``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from acecode.agents.base import Agent

_TOKEN = re.compile(r"\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*)\}")
EMPTY_PLAYBOOK = "(the playbook is empty)"


def fill_template(template: str, **fields: str) -> str:
    """Replace known ``{name}`` placeholders and unescape ``{{``/``}}``."""

    def replace(match: re.Match[str]) -> str:
        token = match.group(0)
        if token == "{{":
            return "{"
        if token == "}}":
            return "}"
        name = match.group(1)
        return fields.get(name, token)

    return _TOKEN.sub(replace, template)


def render_transcript(messages: Iterable[dict[str, Any]], agent: Agent | None = None) -> str:
    """The transcript as the LLM sees it: condensed to the configured token budget,
    with ``agent``'s tool classes (default: Claude Code's).

    ``condense`` redacts every rendering it produces, so no secret reaches a provider.
    Messages that carry only ``role`` and ``content`` (the spec's minimal shape, as
    library callers write them) are read as a user request or an assistant text.
    """
    from acecode.agents.claude_code.messages import with_default_kind
    from acecode.config import load_settings
    from acecode.transcript.condense import condense  # lazy: transcript layer is heavier
    from acecode.waiting import while_waiting

    typed = (with_default_kind(message) for message in messages)
    with while_waiting(lambda seconds: f"condensing the session for the LLM, {seconds:.0f} s"):
        return condense(typed, load_settings().transcript_budget_tokens, agent)


def render_playbook(playbook: dict[str, Any]) -> str:
    """The formatted playbook (REQ-SECT-003), or a plain note when it has no entries."""
    from acecode.playbook.formatting import format_playbook

    return format_playbook(playbook) or EMPTY_PLAYBOOK
