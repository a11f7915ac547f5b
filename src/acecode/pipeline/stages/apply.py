"""Stage 6, apply: a layer's deltas on the playbook as it is on disk now.

Under the layer's lock (inside the store's transaction; a dry run works on the
snapshot instead): the removals earlier cycles deferred go first, then the
bullet tags, the judged de-duplication ladder (an ADD that repeats an entry
credits it instead), the collapse guards (removal budget, merge detail) and the
operations, new entries named with the layer's prefix. Consolidation
(:mod:`acecode.pipeline.stages.consolidate`) follows in the same transaction,
and the history journal and provenance record all of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from acecode.pipeline.stages.consolidate import consolidate
from acecode.pipeline.stages.context import CycleContext, LayerWork
from acecode.pipeline.stages.record import ensure_state_dir
from acecode.playbook.operations import MAX_OPERATIONS, apply_operations_with_outcomes
from acecode.playbook.schema import entry_count
from acecode.playbook.scoring import apply_bullet_tags_detailed
from acecode.project import outcomes
from acecode.store import update_playbook

if TYPE_CHECKING:
    from acecode.consolidation.guards import GuardResult, RemovalBudget
    from acecode.pipeline.deferred_step import PendingRemovals


@dataclass
class Applied:
    """The playbook after the deltas, and what consolidation and the report need."""

    before: dict[str, Any]
    playbook: dict[str, Any]
    budget: RemovalBudget
    guarded: GuardResult
    outcomes: list[Any]
    applied_tags: list[dict[str, Any]]
    dropped: list[str]


def apply_layer(ctx: CycleContext, layer: LayerWork, evidence: Any) -> bool:
    """Apply and consolidate one layer's deltas, and journal them (with the entries'
    provenance from ``evidence``, None in a dry run); True when the layer changed (or
    held a text for review). The layer's report gets its final status."""
    from acecode.consolidation.report import journal_meta
    from acecode.pipeline.deferred_step import PendingRemovals, save_pending
    from acecode.pipeline.provenance_step import cycle_provenance

    report, target, snapshot, settings = layer.report, layer.layer, layer.snapshot, ctx.settings
    prefix = target.name_prefix
    if report.dry_run:
        pending = PendingRemovals.beside(target, report, _pinned(ctx))
        result = consolidate(ctx, layer, apply_deltas(ctx, layer, snapshot, prefix, pending))
        report.entries_after = entry_count(result)
        changed = result["sections"] != snapshot["sections"] or bool(report.held_for_review)
    else:
        ensure_state_dir(target)
        with update_playbook(target, lock_timeout=settings.lock_timeout) as txn:
            # Read and written under the playbook's lock: no two cycles carry one removal.
            pending = PendingRemovals.beside(target, report, _pinned(ctx))
            report.entries_before = entry_count(txn.playbook)
            applied = apply_deltas(ctx, layer, txn.playbook, prefix, pending)
            txn.playbook = consolidate(ctx, layer, applied)
            save_pending(target, report)
            report.entries_after = entry_count(txn.playbook)
            txn.meta.update(journal_meta(report.curation))
            txn.meta["provenance"] = layer.provenance = cycle_provenance(report, evidence)
        report.saved = txn.saved
        if layer.retry is not None:
            from acecode.quarantine.waiting import settle

            settle(target, layer.retry, landed=True)
        changed = report.saved or bool(report.held_for_review)
    if changed:
        report.finish(outcomes.OK)
    else:
        report.finish(outcomes.NOTHING_NEW, "the LLM proposed no change that applies")
    return changed


def _pinned(ctx: CycleContext) -> frozenset[str]:
    """The names pinned in both layers, as the admission read them."""
    return ctx.lists.pinned if ctx.lists is not None else frozenset()


def apply_deltas(
    ctx: CycleContext,
    layer: LayerWork,
    playbook: dict[str, Any],
    name_prefix: str,
    pending: PendingRemovals,
) -> Applied:
    """The layer's tags and operations on ``playbook`` (the latest state); what the
    budget defers now is kept on the report for the next cycle."""
    from acecode.consolidation.guards import RemovalBudget, guard_operations
    from acecode.pipeline.deferred_step import carry_into, keep_pending

    report, settings, semantic = layer.report, ctx.settings, layer.semantic
    assert semantic is not None
    budget = RemovalBudget.for_playbook(playbook, settings.max_removal_ratio)
    current, applied_tags = apply_bullet_tags_detailed(playbook, layer.tags)
    report.tags_applied = applied_tags
    report.tags_skipped = _skipped_tags(layer.tags, applied_tags)
    current, operations = semantic.apply_ladder(current, layer.operations)
    operations, carried, dropped = carry_into(operations, current, pending)
    # The texts that waited for a review landed from earlier cycles, each within its own
    # cycle's limit: they do not take this cycle's.
    limit = MAX_OPERATIONS + (len(layer.retry.landed) if layer.retry is not None else 0)
    guarded = guard_operations(current, operations, budget, settings.min_merge_length_ratio, limit)
    keep_pending(report, guarded.deferred, current, carried)
    current, results = apply_operations_with_outcomes(current, guarded.allowed, name_prefix, limit)
    report.operations = [outcome.as_dict() for outcome in results] + report.refused_operations
    return Applied(playbook, current, budget, guarded, results, applied_tags, dropped)


def _skipped_tags(tags: Any, applied: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Tags the reflector gave that did not change a counter, with the reason."""
    if not isinstance(tags, list):
        return []
    applied_names = [tag["name"] for tag in applied]
    skipped = []
    for tag in tags:
        if not isinstance(tag, dict):
            skipped.append({"tag": repr(tag)[:80], "reason": "not an object"})
            continue
        name = tag.get("name")
        if name in applied_names:
            applied_names.remove(name)
            continue
        value = str(tag.get("tag", "")).strip().lower()
        reason = "neutral" if value == "neutral" else "unknown entry or tag"
        skipped.append({"name": name, "tag": tag.get("tag"), "reason": reason})
    return skipped
