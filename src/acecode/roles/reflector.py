"""The reflector: diagnose a session and tag the playbook entries that mattered.

Citation-guided when the agent cited entry IDs (``[pat-001]``) during the
session, content-based otherwise. Returns ``{"analysis", "bullet_tags"}``;
on any failure ``{"analysis": "", "bullet_tags": []}``; never raises.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from acecode.roles.ask import as_text, ask_json, dict_items, never_raises
from acecode.roles.prompt import render_playbook, render_transcript

if TYPE_CHECKING:
    from acecode.agents.base import Agent

TAGS = ("helpful", "harmful", "neutral")
CITATION_GUIDED = "CITATION-GUIDED"
CONTENT_BASED = "CONTENT-BASED"


def empty_reflection() -> dict[str, Any]:
    """The result on any failure: no analysis, no tags."""
    return {"analysis": "", "bullet_tags": []}


def reflector_mode(cited_ids: list[str]) -> str:
    """Which of the two modes a session gets."""
    return CITATION_GUIDED if cited_ids else CONTENT_BASED


def clean_bullet_tags(raw: Any) -> list[dict[str, str]]:
    """Keep well-formed tags: a named entry and one of the three tags; rationale defaults to ''."""
    tags = []
    for item in dict_items(raw):
        name = as_text(item.get("name")).strip()
        tag = as_text(item.get("tag")).strip().lower()
        if name and tag in TAGS:
            tags.append({"name": name, "tag": tag, "rationale": as_text(item.get("rationale"))})
    return tags


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
    cited = [str(identifier) for identifier in dict.fromkeys(cited_ids or [])]
    data = await ask_json(
        role="reflector",
        template="reflector.txt",
        fields={
            "transcript": render_transcript(messages, agent),
            "playbook": render_playbook(playbook),
            "cited_ids": ", ".join(cited) if cited else "(none)",
            "mode": reflector_mode(cited),
        },
        diagnostic_name="reflector",
    )
    return {
        "analysis": as_text(data.get("analysis")),
        "bullet_tags": clean_bullet_tags(data.get("bullet_tags")),
    }
