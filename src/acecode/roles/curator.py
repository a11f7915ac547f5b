"""The curator: turn the reflector's diagnosis into playbook operations.

It sees only the reflector's output, the formatted playbook and the pairs of
entries the judge found conflicting (so it can UPDATE or DELETE one side),
never the transcript (CON-CUR-006): the reflector diagnoses, the curator
decides.
Returns ``{"reasoning", "operations"}``; on any failure
``{"reasoning": "", "operations": []}``; never raises (INV-CUR-008).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from acecode.redact import redact
from acecode.roles.ask import as_text, ask_json, dict_items, never_raises
from acecode.roles.prompt import render_playbook

if TYPE_CHECKING:
    from acecode.dedup.judgements import Conflict

NO_CONFLICTS = "(none)"


def empty_curation() -> dict[str, Any]:
    """The result on any failure: no reasoning, no operations."""
    return {"reasoning": "", "operations": []}


def reflector_json(reflector_output: Any) -> str:
    """The reflector's full output as JSON, with the two documented keys defaulted."""
    source = reflector_output if isinstance(reflector_output, dict) else {}
    payload = {
        **source,
        "analysis": source.get("analysis", ""),
        "bullet_tags": source.get("bullet_tags", []),
    }
    return json.dumps(payload, indent=2, ensure_ascii=False, default=str)


def render_conflicts(conflicts: Sequence[Conflict]) -> str:
    """One line per conflicting pair of entries, by ID, with the judge's reason."""
    lines = [
        f"- [{c.first_name}] and [{c.second_name}]: {c.reason or 'judged conflicting'}"
        for c in conflicts
    ]
    return "\n".join(lines) or NO_CONFLICTS


@never_raises("curator", empty_curation)
async def run_curator(
    reflector_output: dict[str, Any],
    playbook: dict[str, Any],
    conflicts: Sequence[Conflict] = (),
) -> dict[str, Any]:
    """Propose ADD/UPDATE/MERGE/DELETE operations from a reflection; never raises."""
    data = await ask_json(
        role="curator",
        template="curator.txt",
        fields={
            "reflector_output": redact(reflector_json(reflector_output)),
            "playbook": render_playbook(playbook),
            "conflicts": redact(render_conflicts(conflicts)),
        },
        diagnostic_name="curator",
    )
    return {
        "reasoning": as_text(data.get("reasoning")),
        "operations": dict_items(data.get("operations")),
    }
