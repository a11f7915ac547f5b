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
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from acecode.agents.base import Agent

_TOKEN = re.compile(r"\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*)\}")
_PLACEHOLDER = re.compile(r"(?<!\{)\{[A-Za-z_][A-Za-z0-9_]*\}")
EMPTY_PLAYBOOK = "(the playbook is empty)"


@dataclass(frozen=True)
class RolePrompt:
    """One role's request as it will be sent, built before sending it so that the
    cycle's cost estimate prices exactly this text (:mod:`acecode.cost.estimate`).

    ``cacheable_chars`` is the length of the prompt's fixed head (see
    :func:`split_template`); ``max_tokens`` the role's output bound (the longest reply
    its format allows); ``model`` the role's own model (None: the provider's).
    """

    role: str
    system: str
    prompt: str
    cacheable_chars: int
    max_tokens: int
    model: str | None = None


def split_template(template: str) -> tuple[str, str]:
    """(fixed head, rest) of a template: the head is everything before the paragraph
    that holds the first placeholder, so it is the same text in every call and can be
    read from a prompt cache. A template that opens with its data has no head."""
    match = _PLACEHOLDER.search(template)
    if match is None:
        return template, ""
    paragraph = template.rfind("\n\n", 0, match.start())
    cut = paragraph + 2 if paragraph >= 0 else 0
    return template[:cut], template[cut:]


def fill_split(template: str, **fields: str) -> tuple[str, int]:
    """The filled template and the length of its fixed head (:func:`split_template`)."""
    head, rest = split_template(template)
    fixed = fill_template(head, **fields)
    return fixed + fill_template(rest, **fields), len(fixed)


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
    from acecode.output.waiting import while_waiting
    from acecode.project.config import load_settings
    from acecode.transcript.condense import condense  # lazy: transcript layer is heavier

    typed = (with_default_kind(message) for message in messages)
    with while_waiting(lambda seconds: f"condensing the session for the LLM, {seconds:.0f} s"):
        return condense(typed, load_settings().transcript_budget_tokens, agent)


def instructions_text(digest: str | None) -> str:
    """The digest of the project's instructions for a role's prompt: ``digest`` when the
    caller has it (the learning cycle reads them once), else the current project's,
    within ``instructions_budget_tokens`` (:mod:`acecode.instructions.digest`)."""
    if digest is not None:
        return digest
    from acecode.instructions.digest import project_digest
    from acecode.project import paths
    from acecode.project.config import load_settings

    return project_digest(paths.project_dir(), load_settings().instructions_budget_tokens).text


def render_playbook(playbook: dict[str, Any]) -> str:
    """The playbook as a role sees it: its sections and entries (REQ-SECT-003), without
    the framing the coding agent's injection wraps them in (how to cite, what to
    ignore), which says nothing to a reviewer; a plain note when it has no entries."""
    from acecode.playbook.formatting import format_key_points

    return format_key_points(playbook) or EMPTY_PLAYBOOK
