"""The curator: turn the reflector's diagnosis into playbook operations.

It sees only the reflector's output, a bounded view of the playbook (the
entries that bear on the session, :mod:`acecode.playbook.curator_view`), the
short lists of possibly stale entries and retire candidates, the pairs of
entries the judge found conflicting (so it can UPDATE or DELETE one side) and,
for each failed call the findings name, its command, error line and whether an
entry already came from it (:mod:`acecode.habits.notes`); never the transcript
(CON-CUR-006): the reflector diagnoses, the curator decides.
Returns ``{"reasoning", "operations"}``; on any failure
``{"reasoning": "", "operations": []}``; never raises (INV-CUR-008).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from acecode.roles.ask import as_text, ask, dict_items, never_raises, role_prompt
from acecode.roles.prompt import RolePrompt, render_playbook
from acecode.text.redact import redact
from acecode.text.wording import counted

if TYPE_CHECKING:
    from acecode.dedup.judgements import Conflict
    from acecode.playbook.curator_view import CuratorView

NO_CONFLICTS = "(none)"
NO_FAILURES = "(none)"
# Room for the most operations the curator may propose (10, CON-CUR-004) and its
# one-sentence reasoning, in real tokens (docs/llm.md, "Output bounds"): real operations
# take up to 404 characters (101 tokens at 4 characters a token; 128 leaves a denser
# tokenizer its margin), the reasoning at most 25 words. A reply cut here has gone past
# what the format allows; its whole operations are kept (acecode.llm.jsonx.salvage_json).
MAX_OPERATIONS = 10
TOKENS_PER_OPERATION = 128
REASONING_TOKENS = 64
FRAME_TOKENS = 32
MAX_TOKENS = MAX_OPERATIONS * TOKENS_PER_OPERATION + REASONING_TOKENS + FRAME_TOKENS


def empty_curation() -> dict[str, Any]:
    """The result on any failure: no reasoning, no operations."""
    return {"reasoning": "", "operations": []}


def reflector_json(reflector_output: Any) -> str:
    """The reflector's full output as compact JSON (no indentation: every space is a
    token), with the two documented keys defaulted."""
    source = reflector_output if isinstance(reflector_output, dict) else {}
    payload = {
        **source,
        "analysis": source.get("analysis", ""),
        "bullet_tags": source.get("bullet_tags", []),
    }
    return json.dumps(payload, ensure_ascii=False, default=str, separators=(", ", ": "))


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
    from acecode.playbook.curator_view import build_view
    from acecode.project.config import load_settings

    return build_view(
        playbook,
        reflector_output if isinstance(reflector_output, dict) else {},
        budget_tokens=load_settings().curator_budget_tokens,
        conflict_names=[name for c in conflicts for name in (c.first_name, c.second_name)],
    )


def default_max_removals(playbook: dict[str, Any]) -> int:
    """The removal budget of a cycle starting from ``playbook`` (``max_removal_ratio``)."""
    from acecode.consolidation.guards import removal_limit
    from acecode.playbook.schema import entry_count
    from acecode.project.config import load_settings

    return removal_limit(entry_count(playbook), load_settings().max_removal_ratio)


def curator_prompt(
    reflector_output: dict[str, Any],
    playbook: dict[str, Any],
    conflicts: Sequence[Conflict] = (),
    view: CuratorView | None = None,
    max_removals: int | None = None,
    instructions: str | None = None,
    failures: str = NO_FAILURES,
) -> RolePrompt:
    """The curator's request as it will be sent (see :func:`run_curator`)."""
    from acecode.playbook.curator_view import render_listed
    from acecode.project.repository import repository_line
    from acecode.roles.prompt import instructions_text

    view = view or default_view(reflector_output, playbook, conflicts)
    if max_removals is None:
        max_removals = default_max_removals(playbook)
    shown = "\n".join(filter(None, (render_playbook(view.playbook), view.omitted_line())))
    return role_prompt(
        role="curator",
        template="curator.txt",
        fields=curator_fields(
            reflector_json(reflector_output),
            shown,
            render_listed(view.stale),
            render_listed(view.retire),
            render_conflicts(conflicts),
            repository_line(),
            max_removals,
            instructions=instructions_text(instructions),
            failures=failures,
        ),
        max_tokens=MAX_TOKENS,
    )


def curator_fields(
    reflection: str,
    playbook: str,
    stale: str,
    retire: str,
    conflicts: str,
    repository: str,
    max_removals: int,
    instructions: str = "",
    failures: str = NO_FAILURES,
) -> dict[str, str]:
    """The template's fields; what came from an LLM or a transcript is redacted (the
    playbook's entries were redacted when they were saved, the instructions' digest
    when it was made)."""
    return {
        "instructions": instructions,
        "reflector_output": redact(reflection),
        "playbook": playbook,
        "possibly_stale": redact(stale),
        "retire_candidates": redact(retire),
        "conflicts": redact(conflicts),
        "repository": repository,
        "max_removals": counted(max_removals, "removal"),
        "failures": redact(failures),
    }


@never_raises("curator", empty_curation)
async def run_curator(
    reflector_output: dict[str, Any],
    playbook: dict[str, Any],
    conflicts: Sequence[Conflict] = (),
    view: CuratorView | None = None,
    max_removals: int | None = None,
    instructions: str | None = None,
    failures: str = NO_FAILURES,
) -> dict[str, Any]:
    """Propose ADD/UPDATE/MERGE/DELETE operations from a reflection; never raises.

    The curator is shown ``view`` (by default one cut from ``playbook`` within
    ``curator_budget_tokens``); the IDs it may name are those of the view,
    which the learning cycle enforces (``curator_view.refuse_unseen``). It is
    told how many entries it may remove (``max_removals``, by default the
    removal budget of ``playbook``); the cycle defers the rest. ``instructions`` is the
    digest of the project's instructions (default: read now); ``failures`` are the
    notes on the failed calls the findings name (:mod:`acecode.habits.notes`).
    """
    data = await ask(
        curator_prompt(
            reflector_output, playbook, conflicts, view, max_removals, instructions, failures
        ),
        "curator",
    )
    return {
        "reasoning": as_text(data.get("reasoning")),
        "operations": dict_items(data.get("operations")),
    }
