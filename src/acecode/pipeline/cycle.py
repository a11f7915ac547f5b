"""One learning cycle over one transcript.

The LLM calls (reflector, then curator) run on a snapshot of the playbook
with no lock held. Their results are *deltas* — bullet tags and curator
operations — which are then applied, inside the store's transaction, to the
playbook as it is on disk at that moment. Two sessions ending together thus
both land their edits instead of the later save erasing the earlier one.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from acecode.config import Settings, load_settings
from acecode.diagnostics import diagnose
from acecode.playbook.citations import extract_cited_ids
from acecode.playbook.operations import apply_operations_with_outcomes
from acecode.playbook.schema import entry_count
from acecode.playbook.scoring import apply_bullet_tags_detailed, prune_harmful_detailed
from acecode.store import load_playbook, resolve_path, update_playbook


@dataclass
class CycleReport:
    """What one cycle did; logged, written as the curation report, shown by the CLI."""

    cycle_id: str
    source: str
    transcript: str
    playbook: str
    started_at: str
    status: str = "ok"
    dry_run: bool = False
    messages: int = 0
    cited_ids: list[str] = field(default_factory=list)
    analysis: str = ""
    curator_reasoning: str = ""
    proposed_operations: list[dict[str, Any]] = field(default_factory=list)
    tags_applied: list[dict[str, Any]] = field(default_factory=list)
    tags_skipped: list[dict[str, Any]] = field(default_factory=list)
    operations: list[dict[str, Any]] = field(default_factory=list)
    pruned: list[dict[str, Any]] = field(default_factory=list)
    entries_before: int = 0
    entries_after: int = 0
    saved: bool = False
    llm_ok: bool = True
    tokens: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    duration_s: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def summary(self) -> str:
        """One line for logs and the CLI."""
        applied = sum(1 for op in self.operations if op.get("applied"))
        skipped = len(self.operations) - applied
        return (
            f"cycle {self.cycle_id} [{self.status}] {Path(self.transcript).name}: "
            f"{len(self.tags_applied)} tags, {applied} operations applied, {skipped} skipped, "
            f"{len(self.pruned)} pruned, entries {self.entries_before} -> {self.entries_after}, "
            f"{self.tokens.get('total_tokens', 0)} tokens, {self.duration_s:.1f} s"
        )


def new_cycle_id() -> str:
    """Sortable and unique: time first, then randomness."""
    return datetime.now().strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]


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


def _apply_deltas(
    playbook: dict[str, Any], tags: list[Any], operations: list[Any], report: CycleReport
) -> dict[str, Any]:
    """Tags, then operations, then pruning, on ``playbook``; the outcomes go to ``report``."""
    current, applied_tags = apply_bullet_tags_detailed(playbook, tags)
    report.tags_applied = applied_tags
    report.tags_skipped = _skipped_tags(tags, applied_tags)
    current, outcomes = apply_operations_with_outcomes(current, operations)
    report.operations = [outcome.as_dict() for outcome in outcomes]
    current, pruned = prune_harmful_detailed(current)
    report.pruned = [
        {"section": section, "entry": entry, "reason": "harmful >= 3 and harmful > helpful"}
        for section, entry in pruned
    ]
    return current


async def _reflect_and_curate(
    messages: list[dict[str, Any]], snapshot: dict[str, Any], report: CycleReport
) -> tuple[list[Any], list[Any]]:
    """The two LLM calls; returns (bullet tags, curator operations)."""
    from acecode.llm import usage
    from acecode.roles.curator import run_curator
    from acecode.roles.reflector import run_reflector

    with usage.track() as ledger:
        reflection = await run_reflector(messages, snapshot, report.cited_ids)
        report.analysis = reflection.get("analysis", "")
        tags = reflection.get("bullet_tags", [])
        operations: list[Any] = []
        if report.analysis or tags:
            tagged, _ = apply_bullet_tags_detailed(snapshot, tags)
            curation = await run_curator(reflection, tagged)
            report.curator_reasoning = curation.get("reasoning", "")
            operations = curation.get("operations", [])
        else:
            report.status = "no-reflection"
    # No call at all means no provider was usable; a failed call means the LLM failed.
    report.llm_ok = bool(ledger.calls) and all(call.ok for call in ledger.calls)
    report.tokens = {
        "input_tokens": ledger.input_tokens,
        "output_tokens": ledger.output_tokens,
        "total_tokens": ledger.total_tokens,
        "estimated": ledger.estimated,
        "cost_usd": ledger.cost_usd,
        "by_role": ledger.by_role(),
    }
    report.proposed_operations = list(operations) if isinstance(operations, list) else []
    return tags, report.proposed_operations


async def run_cycle(
    transcript: str | Path,
    *,
    playbook_path: str | Path | None = None,
    source: str = "cli",
    dry_run: bool = False,
    settings: Settings | None = None,
) -> CycleReport:
    """Learn from one transcript and (unless ``dry_run``) save the result.

    Never raises for LLM trouble: a failed role yields no deltas and the
    playbook stays as it was. Store errors (corrupt playbook, lock timeout,
    disk full) do raise ``acecode.store.PlaybookError`` for the caller to show.
    """
    from acecode.transcript import load_transcript

    started = time.monotonic()
    settings = settings or load_settings()
    target = resolve_path(playbook_path)
    report = CycleReport(
        cycle_id=new_cycle_id(),
        source=source,
        transcript=str(transcript),
        playbook=str(target),
        started_at=datetime.now().astimezone().isoformat(timespec="seconds"),
        dry_run=dry_run,
    )
    snapshot = load_playbook(target)
    report.entries_before = report.entries_after = entry_count(snapshot)
    messages = load_transcript(transcript)
    report.messages = len(messages)
    if not messages:
        report.status = "empty-transcript"
        report.duration_s = time.monotonic() - started
        return report
    report.cited_ids = extract_cited_ids(messages)
    tags, operations = await _reflect_and_curate(messages, snapshot, report)

    if dry_run:
        result = _apply_deltas(snapshot, tags, operations, report)
        report.entries_after = entry_count(result)
    else:
        with update_playbook(target, lock_timeout=settings.lock_timeout) as txn:
            report.entries_before = entry_count(txn.playbook)
            txn.playbook = _apply_deltas(txn.playbook, tags, operations, report)
            report.entries_after = entry_count(txn.playbook)
            txn.meta.update(
                {
                    "cycle_id": report.cycle_id,
                    "source": source,
                    "transcript": str(transcript),
                    "operations": report.operations,
                    "pruned": report.pruned,
                }
            )
        report.saved = txn.saved
    report.duration_s = round(time.monotonic() - started, 3)
    diagnose("cycle_report", report.summary())
    return report


def run_cycle_sync(transcript: str | Path, **kwargs: Any) -> CycleReport:
    """``run_cycle`` for synchronous callers (CLI, background learner)."""
    return asyncio.run(run_cycle(transcript, **kwargs))
