"""Stage 3, curate: the curator's operations on the playbook.

The curator sees a bounded view of the playbook, tagged as the reflector said,
with the short lists (stale, retire, pinned), the open conflicts
(:mod:`acecode.playbook.curator_view`) and the failed calls the findings name,
with what acecode knows of each (:mod:`acecode.habits.notes`). The session's
numbered moments are read here, once (``ctx.evidence``), for those notes and
for the entries' provenance. An operation naming an ID it was not
shown is refused here, before anything (the de-dup ladder included) can act on
it. Its output is redacted as it arrives.
"""

from __future__ import annotations

from typing import Any

from acecode.pipeline.stages.context import CycleContext
from acecode.playbook.scoring import apply_bullet_tags_detailed
from acecode.text.redact import redact_data


async def curate(ctx: CycleContext) -> list[Any]:
    """Ask the curator; adds the operations that name only entries it was shown, and
    returns every operation it proposed."""
    from acecode.playbook.curator_view import build_view, refuse_unseen
    from acecode.playbook.schema import iter_entries
    from acecode.roles.curator import run_curator

    assert ctx.lists is not None
    report, lists, conflicts = ctx.report, ctx.lists, ctx.conflicts
    tagged, _ = apply_bullet_tags_detailed(ctx.both, ctx.tags)
    view = build_view(
        tagged,
        ctx.reflection,
        budget_tokens=ctx.settings.curator_budget_tokens,
        cited_ids=report.cited_ids,
        conflict_names=[name for c in conflicts for name in (c.first_name, c.second_name)],
        stale=lists.stale,
        retire=lists.retire,
        pinned=lists.pinned,
    )
    report.curator_view = view.summary()
    curation = redact_data(
        await run_curator(
            ctx.reflection,
            tagged,
            conflicts,
            view=view,
            max_removals=lists.max_removals,
            instructions=ctx.digest,
            failures=_failure_notes(ctx),
        )
    )
    report.curator_reasoning = curation.get("reasoning", "")
    proposed = list(curation.get("operations", []))
    known = {entry["name"] for _, entry in iter_entries(ctx.both)}
    ctx.operations, report.refused_operations = refuse_unseen(proposed, view.shown, known)
    return proposed


def _failure_notes(ctx: CycleContext) -> str:
    """The session's moments (kept on ``ctx.evidence``) and the curator's notes on the
    failed calls the findings name."""
    from pathlib import Path

    from acecode.habits.notes import both_layers_provenance, failure_notes
    from acecode.habits.record import load_record
    from acecode.pipeline.evidence import EvidencePool

    ctx.evidence = EvidencePool.collect(ctx.messages, ctx.agent)
    return failure_notes(
        ctx.evidence,
        ctx.report.analysis,
        both_layers_provenance([ctx.layer, ctx.user_layer]),
        load_record(),
        project_key(ctx),
        Path(ctx.report.transcript).stem,
    )


def project_key(ctx: CycleContext) -> str:
    """The project the cycle learns for, as the failure record names it."""
    root = ctx.layer.project_root
    return str(root if root is not None else ctx.layer.playbook_file)
