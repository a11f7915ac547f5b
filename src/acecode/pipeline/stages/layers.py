"""Which layers a cycle's deltas go to (:mod:`acecode.project.layers`).

The roles saw both layers as one playbook; their tags and operations are split
here. The project layer always runs (its tags, de-duplication and pruning); the
user layer only when it got a delta, with its own report, which the project
report carries as ``user_layer``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from acecode.pipeline.cycle_report import CycleReport
from acecode.pipeline.stages.context import CycleContext, LayerWork
from acecode.playbook.schema import entry_count

if TYPE_CHECKING:
    from acecode.project.layer import Layer


def plan_layers(ctx: CycleContext) -> list[LayerWork]:
    """One :class:`LayerWork` per layer that runs, the project's (the cycle's report) first."""
    from acecode.project.layers import route_operations, route_tags

    report, target, snapshot = ctx.report, ctx.layer, ctx.snapshot
    tags, operations = ctx.tags, ctx.operations
    user_target, user_snapshot = ctx.user_layer, ctx.user_snapshot
    if user_target is None:
        return [LayerWork(report, target, snapshot, tags, operations)]
    routed_tags, routed_ops = route_tags(tags), route_operations(operations)
    refused = routed_ops.refused
    if user_snapshot is None:
        refused += [(op, "the user layer could not be read") for op in routed_ops.user]
    report.dropped_by_review += [{"operation": op, "reason": why} for op, why in refused]
    plan = [LayerWork(report, target, snapshot, routed_tags.project, routed_ops.project)]
    if user_snapshot is not None and (
        routed_tags.user or routed_ops.user or _has_waiting(user_target, report)
    ):
        child = CycleReport(
            cycle_id=report.cycle_id,
            source=report.source,
            transcript=report.transcript,
            playbook=str(user_target.playbook_file),
            started_at=report.started_at,
            dry_run=report.dry_run,
            messages=report.messages,
            agent=report.agent,
            provider=report.provider,
            model=report.model,
            provider_reason=report.provider_reason,
            provider_endpoint=report.provider_endpoint,
            languages=report.languages,
        )
        child.entries_before = child.entries_after = entry_count(user_snapshot)
        user_work = LayerWork(child, user_target, user_snapshot, routed_tags.user, routed_ops.user)
        plan.append(user_work)
    return plan


def _has_waiting(layer: Layer, report: CycleReport) -> bool:
    """Whether the layer's review queue holds texts that wait only for a review (they are
    reviewed first at every cycle that runs the layer, :mod:`acecode.quarantine.waiting`)."""
    from acecode.quarantine.queue import QueueError
    from acecode.quarantine.waiting import waiting_items

    if report.dry_run:
        return False
    try:
        return bool(waiting_items(layer))
    except QueueError:
        return False
