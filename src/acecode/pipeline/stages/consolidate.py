"""Stage 7, consolidate: judged semantic de-duplication and pruning of what proved
harmful, both within what is left of the cycle's removal budget, then the curation
report of the whole cycle (:mod:`acecode.consolidation.report`). Runs in the
same transaction as the apply stage."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from acecode.pipeline.stages.context import CycleContext, LayerWork

if TYPE_CHECKING:
    from acecode.pipeline.stages.apply import Applied


def consolidate(ctx: CycleContext, layer: LayerWork, applied: Applied) -> dict[str, Any]:
    """The playbook after de-duplication and pruning; adds the layer's curation report."""
    from acecode.consolidation.guards import prune_within_budget
    from acecode.consolidation.report import build_report

    report, settings, semantic = layer.report, ctx.settings, layer.semantic
    assert semantic is not None
    current, budget = applied.playbook, applied.budget
    deduped = semantic.deduplicate(current, max_removals=budget.remaining)
    if deduped is not None:
        current = deduped.playbook
        budget.take(deduped.removed)
    current, pruned, deferred_prunes = prune_within_budget(current, budget)
    report.pruned = [
        {"section": section, "entry": entry, "reason": "harmful >= 3 and harmful > helpful"}
        for section, entry in pruned
    ]
    report.curation = build_report(
        cycle_id=report.cycle_id,
        before=applied.before,
        after=current,
        source=report.transcript,
        operations=applied.guarded.allowed,
        outcomes=applied.outcomes,
        guard=applied.guarded,
        budget=budget,
        pruned=pruned,
        deferred_prunes=deferred_prunes,
        ladder_decisions=semantic.ladder_decisions,
        dedup_groups=deduped.groups if deduped is not None else (),
        dedup_threshold=deduped.threshold if deduped is not None else None,
        dedup_skipped=deduped.skipped if deduped is not None else semantic.unavailable,
        judge=semantic.judge_summary.as_dict() if semantic.judge_summary else None,
        bullet_tags=applied.applied_tags,
        held_for_review=report.held_for_review,
        warnings=[f"dropped: {item['reason']}" for item in report.dropped_by_review]
        + [f"refused {item['type']}: {item['reason']}" for item in report.refused_operations]
        + applied.dropped,
        tokens=report.tokens,
        shrink_ratio=settings.shrink_warning_ratio,
    )
    if deduped is not None and deduped.deferred:
        report.curation["quality_assurance"]["deferred"] += [
            {
                "type": "DEDUP",
                "group": group.to_dict(),
                "reason": "removal budget of this cycle exhausted; merged in a later cycle",
            }
            for group in deduped.deferred
        ]
    report.warnings += report.curation["warnings"]
    return current
