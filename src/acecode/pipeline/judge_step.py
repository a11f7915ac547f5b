"""The cycle's judge step: which similar pairs say the same rule, asked once per cycle.

Runs after the curator and the quarantine screen, before the playbook lock,
on the snapshot and the operations still to apply:

1. load the verdicts stored by earlier cycles (``judgements.json``);
2. let the embeddings propose pairs at or above ``judge_floor`` that have no
   verdict yet (:func:`acecode.dedup.candidates.propose_pairs`), the
   proposed texts against the entries *and the texts folded into them* (a
   conflict with a folded text keeps both sides, see
   :meth:`acecode.dedup.verdicts.Verdicts.conflict_with`);
3. in the same call, the pairs that tell whether a text repeats or
   contradicts one of the project's instructions
   (:func:`acecode.dedup.candidates.propose_against`; the proposed texts first,
   then the entries, :mod:`acecode.instructions.relations`);
4. if there are any, ask the judge in one batched call (no pairs: no call,
   no tokens) and add its tokens to the cycle's ledger under ``judge``;
5. store the new verdicts (not in a dry run) and hand all of them to the
   ladder, the de-duplication pass and the instructions' check through
   ``SemanticTools.verdicts``.

Whatever fails (no provider, a failed call, an unparseable reply, a pair left
out) only means fewer verdicts: those pairs merge only if near-verbatim.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from acecode.playbook.operations import clean_text
from acecode.playbook.schema import iter_entries
from acecode.project.diagnostics import warn

if TYPE_CHECKING:
    from acecode.dedup.candidates import ProposedText
    from acecode.dedup.judgements import Conflict
    from acecode.instructions.units import Instruction
    from acecode.pipeline.cycle_report import CycleReport
    from acecode.pipeline.dedup_step import SemanticTools
    from acecode.project.config import Settings
    from acecode.project.layer import Layer


@dataclass
class JudgeSummary:
    """What the judge step did, for the curation report (``de_duplication_results.judge``)."""

    floor: float
    stored_verdicts: int = 0
    pairs_asked: int = 0
    # Proposed pairs beyond what the cycle's reservation holds for the judge.
    pairs_left_out: int = 0
    # Of those, the pairs of a text and one of the project's instructions.
    instruction_pairs: int = 0
    verdicts: dict[str, int] = field(default_factory=dict)
    unanswered: int = 0
    call_failed: bool = False
    skipped: str | None = None
    new_conflicts: list[dict[str, str]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "floor": self.floor,
            "stored_verdicts": self.stored_verdicts,
            "pairs_asked": self.pairs_asked,
            "pairs_left_out": self.pairs_left_out,
            "instruction_pairs": self.instruction_pairs,
            "verdicts": dict(self.verdicts),
            "unanswered": self.unanswered,
            "call_failed": self.call_failed,
            "skipped": self.skipped,
            "new_conflicts": list(self.new_conflicts),
        }


def proposed_texts(operations: list[Any], snapshot: dict[str, Any]) -> list[ProposedText]:
    """The texts the operations would put into the playbook, with the texts they replace."""
    from acecode.dedup.candidates import ProposedText

    text_of = {str(e.get("name")): str(e.get("text", "")) for _, e in iter_entries(snapshot)}
    proposed = []
    for op in operations:
        if not isinstance(op, dict):
            continue
        kind = op.get("type")
        text = clean_text(op.get("merged_text" if kind == "MERGE" else "text"))
        if text is None or kind not in ("ADD", "UPDATE", "MERGE"):
            continue
        targets = op.get("source_ids") if kind == "MERGE" else [op.get("target_id")]
        replaced = {text_of[t] for t in targets or () if isinstance(t, str) and t in text_of}
        proposed.append(ProposedText(text, frozenset(replaced)))
    return proposed


def stored_conflicts(layer: Layer, playbook: dict[str, Any]) -> list[Conflict]:
    """The open conflicts between entries of ``playbook`` (none, with a warning, if unreadable)."""
    from acecode.dedup.judgements import JudgementsError, open_conflicts

    try:
        return open_conflicts(playbook, layer)
    except JudgementsError as exc:
        warn(f"stored conflicts ignored: {exc}")
        return []


async def judge_step(
    semantic: SemanticTools,
    layer: Layer,
    snapshot: dict[str, Any],
    operations: list[Any],
    report: CycleReport,
    settings: Settings,
    instructions: Sequence[Instruction] = (),
) -> None:
    """Fill ``semantic.verdicts`` and ``semantic.judge_summary`` (module doc); never raises
    for LLM or verdict-file trouble. ``instructions`` are the project's (their units)."""
    from acecode.dedup.judgements import JudgementsError, load_verdicts, record_verdicts

    summary = semantic.judge_summary = JudgeSummary(floor=settings.judge_floor)
    try:
        semantic.verdicts.add(load_verdicts(layer))
    except JudgementsError as exc:
        warn(f"stored verdicts ignored: {exc}")
    summary.stored_verdicts = len(semantic.verdicts)
    if semantic.backend is None:
        summary.skipped = semantic.unavailable or "no embedding backend"
        return
    from acecode.dedup.candidates import propose_against, propose_pairs

    existing = [str(entry.get("text", "")) for _, entry in iter_entries(snapshot)]
    proposed = proposed_texts(operations, snapshot)
    folded = [text for entry in existing for text in semantic.verdicts.folded_into(entry)]
    pairs = propose_pairs(
        existing,
        proposed,
        backend=semantic.backend,
        cache=semantic.cache,
        floor=settings.judge_floor,
        max_pairs=settings.judge_max_pairs,
        known=semantic.verdicts,
        folded=folded,
    )
    references = [unit.text for unit in instructions]
    against = [
        propose_against(
            references,
            texts,
            backend=semantic.backend,
            cache=semantic.cache,
            floor=settings.instructions_judge_floor,
            known=semantic.verdicts,
        )
        for texts in ([p.text for p in proposed], existing)
    ]
    pairs = (against[0] + pairs + against[1])[: settings.judge_max_pairs]
    if not pairs:
        summary.skipped = "no candidate pairs"
        return
    pairs = _fitting(pairs, summary)
    if not pairs:
        summary.skipped = "no pair fits in what the cycle holds for the judge"
        return
    new = await _ask(pairs, report, summary)
    semantic.verdicts.add(new)
    referenced = set(references)
    summary.instruction_pairs = sum(pair.first in referenced for pair in pairs)
    summary.new_conflicts = [
        {"first": v.first, "second": v.second, "reason": v.reason}
        for v in new
        if v.verdict == "conflicting" and not {v.first, v.second} & referenced
    ]
    if report.dry_run or not new:
        return
    try:
        record_verdicts(
            new,
            cycle_id=report.cycle_id,
            current_texts=existing + folded + [p.text for p in proposed] + references,
            playbook=layer,
            lock_timeout=settings.lock_timeout,
        )
    except JudgementsError as exc:
        warn(f"verdicts not stored (they still apply to this cycle): {exc}")


def _fitting(pairs: list[Any], summary: JudgeSummary) -> list[Any]:
    """The first pairs, in the order they were proposed in (the instructions' first),
    that fit in what the cycle holds for the judge: the pairs planned at admission, more
    when earlier calls cost less than their bounds. The others merge only if
    near-verbatim, as pairs without a verdict do."""
    from acecode.cost.gate import fits
    from acecode.roles.judge import judge_request

    kept = list(pairs)
    while kept and not fits("judge", judge_request([(p.first, p.second) for p in kept])):
        kept.pop()
    summary.pairs_left_out = len(pairs) - len(kept)
    return kept


async def _ask(pairs: list[Any], report: CycleReport, summary: JudgeSummary) -> list[Any]:
    """One judge call; its tokens join the cycle's ledger under the role ``judge``, and a
    failure is one of the cycle's warnings."""
    from acecode.llm import usage
    from acecode.roles.ask import collect_failures
    from acecode.roles.judge import run_judge
    from acecode.text.redact import redact

    with usage.track() as ledger, collect_failures() as failures:
        result = await run_judge([(pair.first, pair.second) for pair in pairs])
    report.warnings += [
        f"{failure}; pairs without a verdict merge only if near-verbatim" for failure in failures
    ]
    combined = usage.UsageLedger.from_dict(report.tokens)
    combined.calls.extend(ledger.calls)
    report.tokens = combined.to_dict()
    # Reasons are LLM output bound for reports, judgements.json and review: redact them.
    new = [replace(verdict, reason=redact(verdict.reason)) for verdict in result["verdicts"]]
    summary.pairs_asked = len(pairs)
    summary.call_failed = not ledger.calls or not all(call.ok for call in ledger.calls)
    if failures:  # why, e.g. the budget that refused to reserve for the call
        summary.skipped = failures[0]
    summary.verdicts = dict(Counter(verdict.verdict for verdict in new))
    summary.unanswered = len(pairs) - len(new)
    return new
