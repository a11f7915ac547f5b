"""The reflector: diagnose a session and tag the playbook entries that mattered.

Citation-guided when the agent cited entry IDs (``[pat-001]``) during the
session, content-based otherwise. Returns ``{"analysis", "bullet_tags"}``;
on any failure ``{"analysis": "", "bullet_tags": []}``; never raises.

The model answers in a lean format: short findings and one-line tags
(``{"findings": [...], "tags": ["pat-002 harmful: why"]}``), a fraction of
the output tokens of an essay; :func:`parse_reflection` turns it into the
contract's shape (the findings, one per line, are the ``analysis``). A reply
in the earlier ``analysis`` / ``bullet_tags`` shape (a user's own template)
is read as before.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from acecode.roles.ask import as_text, ask, dict_items, never_raises, role_prompt
from acecode.roles.prompt import RolePrompt, render_playbook, render_transcript

if TYPE_CHECKING:
    from acecode.agents.base import Agent

TAGS = ("helpful", "harmful", "neutral")
CITATION_GUIDED = "CITATION-GUIDED"
CONTENT_BASED = "CONTENT-BASED"
# The longest reply the format allows, in real tokens (docs/llm.md, "Output bounds"): at
# most 8 findings of 30 words (real replies: up to 212 characters, 53 tokens at 4
# characters a token; 64 leaves a tokenizer denser than that its margin), a tag line of
# a 12-word reason per entry that applied (up to 24 tokens; room for 12 of them, the
# entries a session cites) and the object around them. A reply cut here is read as far
# as it is whole (acecode.llm.jsonx.salvage_json), not asked again.
MAX_FINDINGS = 8
TOKENS_PER_FINDING = 64
PLANNED_TAGS = 12
TOKENS_PER_TAG = 24
FRAME_TOKENS = 32
MAX_TOKENS = MAX_FINDINGS * TOKENS_PER_FINDING + PLANNED_TAGS * TOKENS_PER_TAG + FRAME_TOKENS
# "pat-002 harmful: reason" (brackets and a dash or colon tolerated).
_TAG_LINE = re.compile(
    r"^\s*\[?(?P<name>[^\s\]:]+)\]?\s*[:\-–]?\s*(?P<tag>helpful|harmful|neutral)\b\W*(?P<why>.*)$",
    re.IGNORECASE | re.DOTALL,
)


def empty_reflection() -> dict[str, Any]:
    """The result on any failure: no analysis, no tags."""
    return {"analysis": "", "bullet_tags": []}


def reflector_mode(cited_ids: list[str]) -> str:
    """Which of the two modes a session gets."""
    return CITATION_GUIDED if cited_ids else CONTENT_BASED


def clean_bullet_tags(raw: Any) -> list[dict[str, str]]:
    """Keep well-formed tags: a named entry and one of the three tags; rationale defaults
    to ''. A tag is an object (``name`` or ``id``, ``tag``, ``rationale`` or ``why``) or a
    line ``"pat-002 harmful: why"``."""
    tags = []
    for item in raw if isinstance(raw, list) else []:
        if isinstance(item, str):
            match = _TAG_LINE.match(item)
            if match:
                item = {"name": match["name"], "tag": match["tag"], "rationale": match["why"]}
        if not isinstance(item, dict):
            continue
        name = as_text(item.get("name") or item.get("id")).strip()
        tag = as_text(item.get("tag")).strip().lower()
        rationale = as_text(item.get("rationale") or item.get("why")).strip()
        if name and tag in TAGS:
            tags.append({"name": name, "tag": tag, "rationale": rationale})
    return tags


REPLY_KEYS = ("findings", "tags", "analysis", "bullet_tags")


def parse_reflection(data: dict[str, Any]) -> dict[str, Any]:
    """The contract's ``{"analysis", "bullet_tags"}`` from a lean or an essay reply.

    A reply with none of their keys is an error, not an empty reflection: a reflector
    template (a user's override) that asks for another shape would otherwise turn every
    cycle into "nothing to learn" without a word."""
    if not any(key in data for key in REPLY_KEYS):
        from acecode.prompts.templates import template_override

        override = template_override("reflector.txt")
        keys = ", ".join(REPLY_KEYS)
        if override:
            raise ValueError(f"{override} asks for another reply (it has none of {keys})")
        raise ValueError(f"the reply has none of the keys {keys}")
    if "analysis" in data or "bullet_tags" in data:
        return {
            "analysis": as_text(data.get("analysis")),
            "bullet_tags": clean_bullet_tags(data.get("bullet_tags")),
        }
    findings = [as_text(item).strip() for item in data.get("findings") or []]
    findings += [as_text(item.get("text")).strip() for item in dict_items(data.get("findings"))]
    return {
        "analysis": "\n".join(f"- {finding}" for finding in findings if finding),
        "bullet_tags": clean_bullet_tags(data.get("tags")),
    }


def reflector_prompt(
    messages: list[dict[str, Any]],
    playbook: dict[str, Any],
    cited_ids: list[str],
    agent: Agent | None = None,
    transcript: str | None = None,
    instructions: str | None = None,
) -> RolePrompt:
    """The reflector's request as it will be sent (``transcript``: the condensed
    rendering when the caller already has it; ``instructions``: the digest of the
    project's instructions, by default read now, :func:`acecode.roles.prompt.instructions_text`)."""
    from acecode.project.repository import repository_line
    from acecode.roles.prompt import instructions_text

    cited = [str(identifier) for identifier in dict.fromkeys(cited_ids or [])]
    return role_prompt(
        role="reflector",
        template="reflector.txt",
        fields={
            "transcript": render_transcript(messages, agent) if transcript is None else transcript,
            "playbook": render_playbook(playbook),
            "cited_ids": ", ".join(cited) if cited else "(none)",
            "mode": reflector_mode(cited),
            "repository": repository_line(),
            "instructions": instructions_text(instructions),
        },
        max_tokens=MAX_TOKENS,
    )


@never_raises("reflector", empty_reflection)
async def reflect(request: RolePrompt) -> dict[str, Any]:
    """Send a built reflector request; the contract's result, never raises."""
    return parse_reflection(await ask(request, "reflector"))


@never_raises("reflector", empty_reflection)
async def run_reflector(
    messages: list[dict[str, Any]],
    playbook: dict[str, Any],
    cited_ids: list[str],
    agent: Agent | None = None,
) -> dict[str, Any]:
    """Analyse one transcript against the playbook; never raises.

    A transcript without messages has nothing to reflect on, so no call is made.
    """
    if not messages:
        return empty_reflection()
    return await reflect(reflector_prompt(messages, playbook, cited_ids, agent))
