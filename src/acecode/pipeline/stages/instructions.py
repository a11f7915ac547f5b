"""Stage 5b, instructions: what the project's instructions already say stays out.

After the judge (whose verdicts tell which texts repeat or contradict one of
the project's instructions, :mod:`acecode.instructions.relations`) and before
the playbook lock:

- an ADD, UPDATE or MERGE whose text repeats an instruction is not applied,
  and the report says which instruction (``instruction_repeats``);
- one whose text contradicts an instruction is held for review with the
  instruction, where it is and the judge's reason, under the rule
  ``instructions`` (fails closed: a text that cannot be queued is dropped,
  never applied). Approving it is the user's decision that the playbook may
  differ from the instruction.

A dry run makes the same decisions and writes no queue.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acecode.pipeline.stages.context import CycleContext, LayerWork

# The review queue's rule for a text held because it contradicts an instruction.
INSTRUCTIONS_RULE = "instructions"


def hold_against_instructions(ctx: CycleContext, layer: LayerWork) -> None:
    """Replace the layer's operations by those that neither repeat nor contradict an
    instruction (module doc)."""
    if not ctx.units:
        return
    from acecode.dedup.verdicts import Verdicts
    from acecode.instructions.relations import REPEATS, relate
    from acecode.quarantine.gate import operation_text

    report = layer.report
    verdicts = layer.semantic.verdicts if layer.semantic is not None else Verdicts()
    kept: list[Any] = []
    for op in layer.operations:
        text = operation_text(op)
        relation = relate(text, ctx.units, verdicts) if text is not None else None
        if relation is None:
            kept.append(op)
        elif relation.kind == REPEATS:
            report.instruction_repeats.append(
                {"operation": op, "text": text, "instruction": _where(relation)}
            )
        else:
            _hold(ctx, layer, op, relation)
    layer.operations = kept


def record_overlap(ctx: CycleContext) -> None:
    """After the cycle saved: which entries of both layers repeat or contradict one of the
    project's instructions, from every verdict stored (:mod:`acecode.instructions.overlap`),
    for the injection to leave the repeats out and doctor to count both. Not in a dry run,
    nor for a cycle that learns into the user layer alone."""
    from acecode.instructions.overlap import OVERLAP_NAME, overlap_records, write_overlap

    layer = ctx.layer
    if ctx.report.dry_run or layer.is_user:
        return
    if not ctx.units and not Path(layer.state_file(OVERLAP_NAME)).exists():
        return
    from acecode.dedup.judgements import JudgementsError, load_verdicts
    from acecode.dedup.verdicts import Verdicts
    from acecode.instructions.relations import relate
    from acecode.playbook.schema import iter_entries
    from acecode.project.diagnostics import warn
    from acecode.project.layer import Layer
    from acecode.project.layers import combine
    from acecode.store import PlaybookError, load_playbook

    verdicts = Verdicts()
    user = Layer.user()
    try:
        for source in (layer, user):
            verdicts.add(load_verdicts(source))
        entries = list(iter_entries(combine(load_playbook(layer), _user_playbook(user))))
    except (JudgementsError, PlaybookError) as exc:
        warn(f"which entries repeat the project's instructions was not updated: {exc}")
        return
    named = [
        (str(entry["name"]), relation)
        for _, entry in entries
        if (relation := relate(str(entry["text"]), ctx.units, verdicts)) is not None
    ]
    try:
        write_overlap(layer, overlap_records(named))
    except (OSError, PlaybookError) as exc:
        warn(f"cannot write {layer.state_file(OVERLAP_NAME)}: {exc}")


def _user_playbook(user: Any) -> dict[str, Any] | None:
    from acecode.store import load_playbook

    return load_playbook(user) if Path(user.playbook).exists() else None


def _where(relation: Any) -> dict[str, Any]:
    unit = relation.instruction
    return {
        "file": unit.label,
        "line": unit.line,
        "text": unit.text,
        "reason": relation.reason,
    }


def _hold(ctx: CycleContext, layer: LayerWork, op: dict[str, Any], relation: Any) -> None:
    """Queue ``op``'s text for review (a dry run only builds the item)."""
    from acecode.quarantine.queue import QueueError, pending_item, queue_text

    report = layer.report
    targets = op.get("source_ids") if op.get("type") == "MERGE" else [op.get("target_id")]
    details = {
        "rule": INSTRUCTIONS_RULE,
        "detail": relation.describe(),
        "section": op.get("section"),
        "operation": op.get("type", "ADD"),
        "target_ids": [t for t in targets or () if isinstance(t, str)],
        "session": Path(report.transcript).stem,
        "transcript": report.transcript,
    }
    try:
        if report.dry_run:
            item = pending_item(relation.text, **details)
        else:
            item = queue_text(
                relation.text,
                playbook=layer.layer,
                lock_timeout=ctx.settings.lock_timeout,
                **details,
            )
    except (QueueError, ValueError) as exc:
        report.dropped_by_review.append({"operation": op, "reason": f"not queued: {exc}"})
        return
    if item is None:  # rejected in an earlier review
        report.dropped_by_review.append({"operation": op, "reason": "rejected before"})
        return
    report.held_for_review.append(item.as_dict())
