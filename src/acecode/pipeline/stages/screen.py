"""Stage 4, screen and review: which of a layer's new texts may be applied.

The floor, then the LLM safety review on what it let through
(:mod:`acecode.pipeline.safety_step`), then the gate (:mod:`acecode.quarantine.gate`):
a text no review passed waits in the review queue as "not reviewed" and never
enters the playbook unreviewed. The texts that waited so from earlier cycles
are reviewed first, in the same call (:mod:`acecode.quarantine.waiting`): the
ones it passes are applied with this cycle's operations and leave the queue
once the playbook is saved. A dry run queues nothing and retries nothing, but
goes through the same triage.
"""

from __future__ import annotations

from pathlib import Path

from acecode.pipeline.stages.context import CycleContext, LayerWork


async def screen_and_review(ctx: CycleContext, layer: LayerWork) -> None:
    """Replace the layer's operations by those that may be applied (the waiting texts the
    review passed first); the held and dropped ones, and the review's notes, go on the
    layer's report."""
    from acecode.pipeline.safety_step import safety_review
    from acecode.quarantine.gate import triage_operations
    from acecode.quarantine.waiting import retry_operations, triage_waiting

    report, settings = layer.report, ctx.settings
    arrivals = None if report.dry_run else layer.layer
    waiting = [] if report.dry_run else _waiting(layer)
    retried = retry_operations(waiting, layer.snapshot)
    review = await safety_review(
        [*retried, *layer.operations], settings, report, arrivals, layer.snapshot
    )
    report.review_notes += [
        {"class": note.danger_class, "severity": note.severity, "reason": note.reason}
        for note in review.notes()
    ]
    languages = tuple(report.languages)
    triage = triage_operations(
        layer.operations,
        settings,
        playbook=layer.snapshot,
        playbook_path=layer.layer,
        session=Path(report.transcript).stem,
        transcript=report.transcript,
        review=review,
        languages=languages,
        dry_run=report.dry_run,
    )
    report.held_for_review = [item.as_dict() for item in triage.queued]
    report.dropped_by_review += [{"operation": op, "reason": why} for op, why in triage.dropped]
    layer.operations = triage.allowed
    if waiting:
        layer.retry = triage_waiting(waiting, layer.snapshot, settings, review, languages)
        layer.operations = [*layer.retry.operations, *layer.operations]
        report.released_after_review = [item.as_dict() for item, _op in layer.retry.landed]


def _waiting(layer: LayerWork) -> list:
    """The layer's queued texts that wait only for a review, within one call's share."""
    from acecode.quarantine.queue import QueueError
    from acecode.quarantine.waiting import batch, waiting_items

    try:
        return batch(waiting_items(layer.layer))
    except QueueError as exc:
        layer.report.warnings.append(f"the texts waiting for a review were not retried: {exc}")
        return []
