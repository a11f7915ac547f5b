"""Stage 4, screen and review: which of a layer's new texts may be applied.

The floor, then the LLM safety review on what it let through
(:mod:`acecode.pipeline.safety_step`), then the "not reviewed" holds for what
nobody reviewed (:mod:`acecode.quarantine.gate`). Held texts go to the review
queue (a dry run queues nothing but goes through the same triage).
"""

from __future__ import annotations

from pathlib import Path

from acecode.pipeline.stages.context import CycleContext, LayerWork


async def screen_and_review(ctx: CycleContext, layer: LayerWork) -> None:
    """Replace the layer's operations by those that may be applied; the held and
    dropped ones, and the review's notes, go on the layer's report."""
    from acecode.pipeline.safety_step import safety_review
    from acecode.quarantine.gate import triage_operations

    report, settings = layer.report, ctx.settings
    arrivals = None if report.dry_run else layer.layer
    review = await safety_review(layer.operations, settings, report, arrivals, layer.snapshot)
    report.review_notes += [
        {"class": note.danger_class, "severity": note.severity, "reason": note.reason}
        for note in review.notes()
    ]
    triage = triage_operations(
        layer.operations,
        settings,
        playbook=layer.snapshot,
        playbook_path=layer.layer,
        session=Path(report.transcript).stem,
        transcript=report.transcript,
        review=review,
        languages=tuple(report.languages),
        dry_run=report.dry_run,
    )
    report.held_for_review = [item.as_dict() for item in triage.queued]
    report.dropped_by_review += [{"operation": op, "reason": why} for op, why in triage.dropped]
    layer.operations = triage.allowed
