"""The curator: turn the reflector's diagnosis into playbook operations.

It sees only the reflector's output, a bounded view of the playbook (the
entries that bear on the session, :mod:`acecode.playbook.curator_view`), the
short lists of possibly stale entries and retire candidates, and the pairs of
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
from acecode.wording import counted

if TYPE_CHECKING:
    from acecode.dedup.judgements import Conflict
    from acecode.playbook.curator_view import CuratorView

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


def default_view(
    reflector_output: dict[str, Any], playbook: dict[str, Any], conflicts: Sequence[Conflict]
) -> CuratorView:
    """The view a caller without one gets: bounded by ``curator_budget_tokens``, no lists."""
    from acecode.config import load_settings
    from acecode.playbook.curator_view import build_view

    return build_view(
        playbook,
        reflector_output if isinstance(reflector_output, dict) else {},
        budget_tokens=load_settings().curator_budget_tokens,
        conflict_names=[name for c in conflicts for name in (c.first_name, c.second_name)],
    )


def default_max_removals(playbook: dict[str, Any]) -> int:
    """The removal budget of a cycle starting from ``playbook`` (``max_removal_ratio``)."""
    from acecode.config import load_settings
    from acecode.consolidation.guards import removal_limit
    from acecode.playbook.schema import entry_count

    return removal_limit(entry_count(playbook), load_settings().max_removal_ratio)


@never_raises("curator", empty_curation)
async def run_curator(
    reflector_output: dict[str, Any],
    playbook: dict[str, Any],
    conflicts: Sequence[Conflict] = (),
    view: CuratorView | None = None,
    max_removals: int | None = None,
) -> dict[str, Any]:
    """Propose ADD/UPDATE/MERGE/DELETE operations from a reflection; never raises.

    The curator is shown ``view`` (by default one cut from ``playbook`` within
    ``curator_budget_tokens``); the IDs it may name are those of the view,
    which the learning cycle enforces (``curator_view.refuse_unseen``). It is
    told how many entries it may remove (``max_removals``, by default the
    removal budget of ``playbook``); the cycle defers the rest.
    """
    from acecode.playbook.curator_view import render_listed

    view = view or default_view(reflector_output, playbook, conflicts)
    if max_removals is None:
        max_removals = default_max_removals(playbook)
    shown = "\n".join(filter(None, (render_playbook(view.playbook), view.omitted_line())))
    data = await ask_json(
        role="curator",
        template="curator.txt",
        fields={
            "reflector_output": redact(reflector_json(reflector_output)),
            "playbook": shown,
            "possibly_stale": redact(render_listed(view.stale)),
            "retire_candidates": redact(render_listed(view.retire)),
            "conflicts": redact(render_conflicts(conflicts)),
            "max_removals": counted(max_removals, "removal"),
        },
        diagnostic_name="curator",
    )
    return {
        "reasoning": as_text(data.get("reasoning")),
        "operations": dict_items(data.get("operations")),
    }
