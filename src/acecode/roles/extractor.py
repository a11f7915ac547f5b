"""The legacy single-call role: evaluations and operations from one LLM call.

``extract_keypoints`` predates the reflector/curator split and is kept for the
spec's ``update_playbook_data`` flow: one ``reflection.txt`` call both rates
existing entries and proposes operations (REQ-CUR-001, REQ-CUR-007).
"""

from __future__ import annotations

import json
from typing import Any

from acecode.roles.ask import ask_json, dict_items, never_raises
from acecode.roles.prompt import render_transcript


def empty_extraction() -> dict[str, Any]:
    """The result on any failure: nothing new, nothing rated, no ``operations`` key."""
    return {"new_key_points": [], "evaluations": []}


def flat_keypoints(playbook: dict[str, Any]) -> dict[str, str]:
    """``{name: text}`` over all sections, sections left out (REQ-SECT-009)."""
    from acecode.playbook.schema import iter_entries

    return {entry["name"]: entry["text"] for _section, entry in iter_entries(playbook)}


@never_raises("extractor", empty_extraction)
async def extract_keypoints(
    messages: list[dict[str, Any]],
    playbook: dict[str, Any],
    diagnostic_name: str = "reflection",
) -> dict[str, Any]:
    """Rate entries and propose operations for one transcript; never raises.

    ``operations`` is in the result only when the reply had an ``operations``
    list: its absence tells ``update_playbook_data`` to fall back to
    ``new_key_points`` (REQ-CUR-001, REQ-CUR-008).
    """
    if not messages:
        return empty_extraction()
    data = await ask_json(
        role="extractor",
        template="reflection.txt",
        fields={
            "trajectories": render_transcript(messages),
            "playbook": json.dumps(flat_keypoints(playbook), indent=2, ensure_ascii=False),
        },
        diagnostic_name=diagnostic_name,
    )
    new_key_points = data.get("new_key_points")
    result: dict[str, Any] = {
        "new_key_points": [point for point in new_key_points if isinstance(point, str | dict)]
        if isinstance(new_key_points, list)
        else [],
        "evaluations": dict_items(data.get("evaluations")),
    }
    if isinstance(data.get("operations"), list):
        result["operations"] = dict_items(data["operations"])
    return result
