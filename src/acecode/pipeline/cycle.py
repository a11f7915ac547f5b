"""One learning cycle over one transcript.

The LLM calls (reflector, then curator) run on a snapshot of the playbook
with no lock held, and so do the slow preparations (quarantine screening,
loading the embedding model, embedding the texts). Their results are
*deltas* — bullet tags and curator operations — which are then applied,
inside the store's transaction, to the playbook as it is on disk at that
moment. Two sessions ending together thus both land their edits instead of
the later save erasing the earlier one.

Before the transaction, the judge (one batched LLM call, only when the
embeddings propose pairs) decides which similar pairs say the same rule
(:mod:`acecode.pipeline.judge_step`). Order inside the transaction: bullet
tags, the judged de-duplication ladder (an ADD that repeats an entry credits
it instead), the collapse guards (removal budget, merge detail), the
operations, judged semantic de-duplication and pruning, both within what is
left of the budget. The curation report and the history
journal record all of it.

Every cycle ends with a status (:mod:`acecode.outcomes`): ``ok``,
``nothing-new``, ``skipped`` or ``failed``, the last two with a reason. A
cycle skips without an LLM call when acecode is off for the project or, when
a hook or bootstrap started it, when the session is too small to teach
anything (:mod:`acecode.pipeline.session_size`); it ends ``nothing-new`` without
a call, at $0, when the triage finds no learning signal in the session
(:mod:`acecode.pipeline.triage`). A cycle whose LLM call
failed applies nothing, so retrying it later cannot count its evidence twice.
Only ``ok`` and ``nothing-new`` record the transcript as learned.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from contextlib import nullcontext
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acecode import outcomes, paths, wording
from acecode.config import Settings, load_settings
from acecode.diagnostics import diagnose, warn
from acecode.errors import LearnInputError
from acecode.pipeline.curator_lists import CuratorLists, curator_lists, pinned_in
from acecode.pipeline.progress import learned_count, record_learned
from acecode.pipeline.session_source import MessageList, SessionSource, TranscriptFile
from acecode.playbook.citations import extract_cited_ids
from acecode.playbook.operations import apply_operations_with_outcomes
from acecode.playbook.schema import entry_count
from acecode.playbook.scoring import apply_bullet_tags_detailed
from acecode.redact import redact, redact_data
from acecode.store import (
    PlaybookError,
    PlaybookWriteError,
    load_playbook,
    resolve_path,
    update_playbook,
)
from acecode.waiting import while_waiting

if TYPE_CHECKING:
    from acecode.agents.base import Agent
    from acecode.pipeline.deferred_step import PendingRemovals
    from acecode.roles.prompt import RolePrompt


@dataclass
class CycleReport:
    """What one cycle did; logged, shown by the CLI; ``curation`` is the report file's body."""

    cycle_id: str
    source: str
    transcript: str
    playbook: str
    started_at: str
    # The coding agent that wrote the transcript (``claude-code``, ``codex``).
    agent: str = ""
    status: str = outcomes.OK
    # Why a cycle was skipped or failed, or why it changed nothing; "" for a plain ok.
    reason: str = ""
    dry_run: bool = False
    messages: int = 0
    messages_already_learned: int = 0
    cited_ids: list[str] = field(default_factory=list)
    # The IDs the reflector tagged; None when no reflection was made.
    tagged_ids: list[str] | None = None
    analysis: str = ""
    curator_reasoning: str = ""
    proposed_operations: list[Any] = field(default_factory=list)
    # What the curator was shown (acecode.playbook.curator_view.CuratorView.summary).
    curator_view: dict[str, Any] = field(default_factory=dict)
    # Operations naming an ID the curator was not shown: skipped outcomes, never applied.
    refused_operations: list[dict[str, Any]] = field(default_factory=list)
    tags_applied: list[dict[str, Any]] = field(default_factory=list)
    tags_skipped: list[dict[str, Any]] = field(default_factory=list)
    held_for_review: list[dict[str, Any]] = field(default_factory=list)
    dropped_by_review: list[dict[str, Any]] = field(default_factory=list)
    # Safety-review flags below ``review_severity``: noted, not held.
    review_notes: list[dict[str, str]] = field(default_factory=list)
    # The languages of the user's requests in this session, and the languages a rule may
    # be in without a review (acecode.quarantine.user_languages).
    request_languages: dict[str, int] = field(default_factory=dict)
    languages: list[str] = field(default_factory=list)
    operations: list[dict[str, Any]] = field(default_factory=list)
    # Removals the budget deferred this cycle (GuardResult.deferred items, with the reason).
    deferred: list[dict[str, Any]] = field(default_factory=list)
    # Every removal left for a later cycle (acecode.consolidation.deferred), as saved.
    pending_removals: list[dict[str, Any]] = field(default_factory=list)
    pruned: list[dict[str, Any]] = field(default_factory=list)
    entries_before: int = 0
    entries_after: int = 0
    saved: bool = False
    llm_ok: bool = True
    tokens: dict[str, Any] = field(default_factory=dict)
    # This cycle's cost (acecode.cost.gate): the estimate it was admitted with, then the
    # USD it spent and how that is known (reported, estimated, unknown), per role.
    cost: dict[str, Any] = field(default_factory=dict)
    # The provider the cycle chose, its model and why it was chosen (None before the choice).
    provider: str | None = None
    model: str | None = None
    provider_reason: str = ""
    # What its calls go to and the setting that chose it (ProviderChoice.endpoint).
    provider_endpoint: str = ""
    session_size: dict[str, int] = field(default_factory=dict)
    # What the triage counted in the session (acecode.pipeline.triage.Signals).
    signals: dict[str, int] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    curation: dict[str, Any] | None = None
    report_file: str | None = None
    duration_s: float = 0.0
    # What the cycle did in the user layer (its own report, ``as_dict``); None when no
    # delta went there (see acecode.layers).
    user_layer: dict[str, Any] | None = None

    @property
    def learned(self) -> bool:
        """True when the transcript was fully processed (even if nothing changed).

        A skipped or failed cycle (too small, no provider, an LLM error, a
        reply without JSON) did not learn: the transcript stays due.
        """
        return self.status in outcomes.LEARNED

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def finish(self, status: str, reason: str = "") -> CycleReport:
        """Set the final status and its reason (redacted, on one line)."""
        self.status = status
        self.reason = outcomes.one_line(redact(reason)) if reason else ""
        return self

    def attach_user_layer(self, layer: CycleReport) -> None:
        """Fold the user layer's report into this (the project's) one: its tokens and
        warnings join the cycle's, the rest (its curation report included) is kept
        under ``user_layer``."""
        from acecode.llm import usage

        ledger = usage.UsageLedger.from_dict(self.tokens)
        ledger.calls.extend(usage.UsageLedger.from_dict(layer.tokens).calls)
        self.tokens = ledger.to_dict()
        self.warnings += [f"user layer: {warning}" for warning in layer.warnings]
        self.user_layer = layer.as_dict()

    def summary(self) -> str:
        """One line for logs and the CLI: the status, then the reason or the counts."""
        head = f"cycle {self.cycle_id} [{self.status}] {Path(self.transcript).name}"
        if self.status not in outcomes.LEARNED:
            return f"{head}: {self.reason}"
        why = f"{self.reason}; " if self.reason else ""
        user = self.user_layer
        in_user = f"; user layer: {_counts(user)}" if user else ""
        return (
            f"{head}: {why}{_counts(self.as_dict())}{in_user}, "
            f"{wording.counted(self.tokens.get('total_tokens', 0), 'token')}{self._cost_text()}, "
            f"{self.duration_s:.1f} s"
        )

    def _cost_text(self) -> str:
        """``, ~$0.0123`` (see :func:`acecode.cost.pricing.format_usd`); "" without calls."""
        from acecode.cost.pricing import format_usd

        if "basis" not in self.cost:
            return ""
        return f", {format_usd(self.cost.get('usd'), self.cost['basis'])}"

    def outcome(self) -> dict[str, Any]:
        """The record kept in ``cycles.jsonl`` (see :mod:`acecode.outcomes`)."""
        return {
            "cycle_id": self.cycle_id,
            "started_at": self.started_at,
            "finished_at": datetime.now().astimezone().isoformat(timespec="seconds"),
            "source": self.source,
            "transcript": self.transcript,
            "agent": self.agent,
            "status": self.status,
            "reason": self.reason,
            "provider": self.provider,
            "model": self.model,
            "provider_reason": self.provider_reason,
            "provider_endpoint": self.provider_endpoint,
            "session_size": self.session_size,
            "signals": self.signals,
            "cited_ids": self.cited_ids,
            "tagged_ids": self.tagged_ids,
            "tags_applied": len(self.tags_applied),
            "operations_applied": sum(1 for op in self.operations if op.get("applied")),
            "operations_deferred": len(self.deferred),
            "held_for_review": len(self.held_for_review),
            "not_reviewed": _not_reviewed(self.held_for_review),
            "entries_before": self.entries_before,
            "entries_after": self.entries_after,
            "report_file": self.report_file,
            "duration_s": self.duration_s,
            "cost_usd": self.cost.get("usd"),
            "cost_basis": self.cost.get("basis"),
            "user_layer": _layer_outcome(self.user_layer),
        }


def _layer_outcome(layer: dict[str, Any] | None) -> dict[str, Any] | None:
    """The user layer's part of the ``cycles.jsonl`` record."""
    if layer is None:
        return None
    return {
        "playbook": layer["playbook"],
        "tags_applied": len(layer["tags_applied"]),
        "operations_applied": sum(1 for op in layer["operations"] if op.get("applied")),
        "held_for_review": len(layer["held_for_review"]),
        "entries_before": layer["entries_before"],
        "entries_after": layer["entries_after"],
        "report_file": layer["report_file"],
    }


def _not_reviewed(held: list[dict[str, Any]]) -> int:
    """How many of the held texts wait only because no safety review passed them."""
    from acecode.quarantine.unreviewed import is_not_reviewed

    return sum(is_not_reviewed(item["rule"]) for item in held)


def _counts(report: dict[str, Any]) -> str:
    """What a layer's report did, in numbers, for the summary line."""
    applied = sum(1 for op in report["operations"] if op.get("applied"))
    skipped = len(report["operations"]) - applied
    deferred = len(report.get("deferred") or ())
    later = f"{deferred} deferred by the removal budget, " if deferred else ""
    waiting = _not_reviewed(report["held_for_review"])
    not_reviewed = f" ({waiting} not reviewed)" if waiting else ""
    return (
        f"{wording.counted(len(report['tags_applied']), 'tag')}, "
        f"{wording.counted(applied, 'operation')} applied, {skipped} skipped, {later}"
        f"{len(report['held_for_review'])} held for review{not_reviewed}, "
        f"{len(report['pruned'])} pruned, "
        f"entries {report['entries_before']} -> {report['entries_after']}"
    )


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


def _reflector_request(
    messages: Any,
    snapshot: dict[str, Any],
    report: CycleReport,
    lists: CuratorLists,
    settings: Settings,
    agent: Agent,
) -> RolePrompt:
    """The reflector's request, built once: the budget prices it, the reflector sends it.
    It sees a bounded view of the playbook (:mod:`acecode.pipeline.reflector_view`)."""
    from acecode.pipeline.reflector_view import reflector_playbook
    from acecode.roles.reflector import reflector_prompt

    shown = reflector_playbook(
        snapshot,
        messages,
        budget_tokens=settings.reflector_budget_tokens,
        cited_ids=report.cited_ids,
        pinned=lists.pinned,
    )
    return reflector_prompt(messages, shown, report.cited_ids, agent)


async def _reflect_and_curate(
    request: RolePrompt,
    snapshot: dict[str, Any],
    report: CycleReport,
    conflicts: list[Any],
    lists: CuratorLists,
    settings: Settings,
) -> tuple[list[Any], list[Any]] | None:
    """The two LLM calls; returns (bullet tags, curator operations), or None when the
    cycle ends here (a role failed, or the reflector found nothing), with the report's
    status and reason set. The reflector sends ``request``; the curator sees a bounded
    view of the playbook, with the short ``lists`` and the open ``conflicts``; an
    operation naming an ID it was not shown is refused here, before anything (the
    de-dup ladder included) can act on it."""
    from acecode.llm import usage
    from acecode.playbook.curator_view import build_view, refuse_unseen, tagged_names
    from acecode.playbook.schema import iter_entries
    from acecode.roles.ask import collect_failures
    from acecode.roles.curator import run_curator
    from acecode.roles.reflector import reflect

    # LLM output is redacted as it arrives: from here it travels into reports, the
    # history journal, the review queue and diagnostics, and must carry no secret.
    with usage.track() as ledger, collect_failures() as failures:
        reflection = redact_data(await reflect(request))
        report.analysis = reflection.get("analysis", "")
        tags = reflection.get("bullet_tags", [])
        report.tagged_ids = tagged_names(reflection)
        proposed: list[Any] = []
        operations: list[Any] = []
        if report.analysis or tags:
            tagged, _ = apply_bullet_tags_detailed(snapshot, tags)
            view = build_view(
                tagged,
                reflection,
                budget_tokens=settings.curator_budget_tokens,
                cited_ids=report.cited_ids,
                conflict_names=[name for c in conflicts for name in (c.first_name, c.second_name)],
                stale=lists.stale,
                retire=lists.retire,
                pinned=lists.pinned,
            )
            report.curator_view = view.summary()
            curation = redact_data(
                await run_curator(
                    reflection, tagged, conflicts, view=view, max_removals=lists.max_removals
                )
            )
            report.curator_reasoning = curation.get("reasoning", "")
            proposed = list(curation.get("operations", []))
            known = {entry["name"] for _, entry in iter_entries(snapshot)}
            operations, report.refused_operations = refuse_unseen(proposed, view.shown, known)
    # No call at all means no provider was usable; a failed call means the LLM failed.
    report.llm_ok = bool(ledger.calls) and all(call.ok for call in ledger.calls)
    report.tokens = ledger.to_dict()
    report.proposed_operations = proposed
    if failures:
        report.finish(outcomes.FAILED, "; ".join(failures))
        return None
    if not (report.analysis or tags):
        report.finish(outcomes.NOTHING_NEW, "the reflector found nothing to learn")
        return None
    return tags, operations


async def _screen(
    operations: list[Any], snapshot: dict[str, Any], report: CycleReport, settings: Settings
) -> list[Any]:
    """Hold texts for review (a dry run queues nothing); returns what may be applied.

    The floor, then the LLM safety review on what it let through, then the
    "not reviewed" holds for what nobody reviewed (:mod:`acecode.quarantine.gate`);
    a dry run goes through the same triage as a real one.
    """
    from acecode.pipeline.safety_step import safety_review
    from acecode.quarantine.gate import triage_operations

    arrivals = None if report.dry_run else Path(report.playbook)
    review = await safety_review(operations, settings, report, arrivals)
    report.review_notes += [
        {"class": note.danger_class, "severity": note.severity, "reason": note.reason}
        for note in review.notes()
    ]
    triage = triage_operations(
        operations,
        settings,
        playbook=snapshot,
        playbook_path=report.playbook,
        session=Path(report.transcript).stem,
        transcript=report.transcript,
        review=review,
        languages=tuple(report.languages),
        dry_run=report.dry_run,
    )
    report.held_for_review = [item.as_dict() for item in triage.queued]
    report.dropped_by_review += [{"operation": op, "reason": why} for op, why in triage.dropped]
    return triage.allowed


def _curate(
    playbook: dict[str, Any],
    tags: list[Any],
    operations: list[Any],
    report: CycleReport,
    settings: Settings,
    semantic: Any,
    name_prefix: str,
    pending: PendingRemovals,
) -> dict[str, Any]:
    """Apply the cycle's deltas to ``playbook`` (the latest state) and build the report;
    new entries are named with the layer's ``name_prefix``. The ``pending`` removals
    earlier cycles deferred go first, and what the budget defers now is kept on the
    report for the next cycle."""
    from acecode.consolidation.guards import (
        RemovalBudget,
        guard_operations,
        prune_within_budget,
    )
    from acecode.consolidation.report import build_report
    from acecode.pipeline.deferred_step import carry_into, keep_pending

    budget = RemovalBudget.for_playbook(playbook, settings.max_removal_ratio)
    current, applied_tags = apply_bullet_tags_detailed(playbook, tags)
    report.tags_applied = applied_tags
    report.tags_skipped = _skipped_tags(tags, applied_tags)
    current, operations = semantic.apply_ladder(current, operations)
    operations, carried, dropped = carry_into(operations, current, pending)
    guarded = guard_operations(current, operations, budget, settings.min_merge_length_ratio)
    keep_pending(report, guarded.deferred, current, carried)
    current, outcomes = apply_operations_with_outcomes(current, guarded.allowed, name_prefix)
    report.operations = [outcome.as_dict() for outcome in outcomes] + report.refused_operations
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
        before=playbook,
        after=current,
        source=report.transcript,
        operations=guarded.allowed,
        outcomes=outcomes,
        guard=guarded,
        budget=budget,
        pruned=pruned,
        deferred_prunes=deferred_prunes,
        ladder_decisions=semantic.ladder_decisions,
        dedup_groups=deduped.groups if deduped is not None else (),
        dedup_threshold=deduped.threshold if deduped is not None else None,
        dedup_skipped=deduped.skipped if deduped is not None else semantic.unavailable,
        judge=semantic.judge_summary.as_dict() if semantic.judge_summary else None,
        bullet_tags=applied_tags,
        held_for_review=report.held_for_review,
        warnings=[f"dropped: {item['reason']}" for item in report.dropped_by_review]
        + [f"refused {item['type']}: {item['reason']}" for item in report.refused_operations]
        + dropped,
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


def _ensure_state_dir(playbook_path: Path) -> Path:
    """``.claude/acecode`` beside the playbook, git-ignored even where ``.claude`` is committed."""
    from acecode.state_folder import ensure_state_folder

    state = paths.state_dir_for(playbook_path)
    try:
        ensure_state_folder(state)
    except OSError as exc:
        raise PlaybookWriteError(
            f"cannot create {state}: {exc.strerror or exc}; nothing was changed"
        ) from exc
    return state


async def run_cycle(
    transcript: str | Path | MessageList,
    *,
    playbook_path: str | Path | None = None,
    source: str = "cli",
    dry_run: bool = False,
    relearn: bool = False,
    settings: Settings | None = None,
    ignore_budget: bool = False,
    triage: bool | None = None,
    burst: bool = False,
) -> CycleReport:
    """Learn from one transcript (a file, or the :class:`MessageList` a library call
    passed) and (unless ``dry_run``) save the result.

    Only messages not learned by an earlier cycle are reflected on, unless
    ``relearn`` (a message list is always learned whole). A cycle started by
    hand (``source`` "cli" or "library") learns whatever it is given; any
    other source skips a session too small to teach anything, and one the
    triage finds no signal in (:mod:`acecode.pipeline.triage`): ``triage``
    True or False overrides that choice (``acecode learn --triage``). Never raises
    for LLM trouble: a failed role yields status ``failed`` and the playbook
    stays as it was. Store errors (corrupt playbook, lock timeout, disk full)
    raise ``acecode.store.PlaybookError``, and a file with no JSON record at all
    (``acecode learn README.md``) raises :class:`~acecode.errors.LearnInputError`,
    for the caller, which says so in one line (the background learner's stderr
    is learn.log); a refused cycle writes nothing, not even its record.

    Every cycle is bound by the user's budgets (:mod:`acecode.cost`) unless
    ``ignore_budget``: one whose worst case would cross one is skipped before any
    LLM call; what a cycle spends goes to the user's cost ledger. A cycle of a
    ``burst`` (bootstrap, catch-up, ``acecode learn`` of several transcripts), or one
    that follows another within the hour, asks for a one-hour prompt cache, as the
    next cycle is likely to come within it.
    """
    from acecode.agents import detect_agent
    from acecode.cost.gate import metered
    from acecode.llm import prompt_cache
    from acecode.llm.base import CACHE_1H
    from acecode.store.journal import new_cycle_id

    started = time.monotonic()
    settings = settings or load_settings()
    target = resolve_path(playbook_path)
    session = (
        transcript
        if isinstance(transcript, MessageList)
        else TranscriptFile(Path(transcript), detect_agent(transcript))
    )
    report = CycleReport(
        cycle_id=new_cycle_id(),
        source=source,
        transcript=session.label,
        playbook=str(target),
        started_at=datetime.now().astimezone().isoformat(timespec="seconds"),
        dry_run=dry_run,
    )
    if triage is None:
        triage = source not in outcomes.BY_HAND_SOURCES and settings.triage
    with (
        prompt_cache(CACHE_1H) if burst or _learning_lately() else nullcontext(),
        metered(report, settings, enforce=not ignore_budget),
    ):
        await _run(report, session, target, relearn=relearn, settings=settings, triage=triage)
    for warning in report.warnings:
        warn(warning)
    report.duration_s = round(time.monotonic() - started, 3)
    if not dry_run:
        _record_outcome(report, target)
    diagnose("cycle_report", report.summary())
    return report


async def _run(
    report: CycleReport,
    session: SessionSource,
    target: Path,
    *,
    relearn: bool,
    settings: Settings,
    triage: bool,
) -> None:
    """The body of :func:`run_cycle`; every way out leaves the report's status set."""
    from acecode.agents import DEFAULT_AGENT, get_agent
    from acecode.cost.gate import admit_cycle
    from acecode.layers import combine
    from acecode.pipeline.deferred_step import curator_allowance, load_pending
    from acecode.pipeline.judge_step import stored_conflicts
    from acecode.pipeline.provenance_step import EvidencePool
    from acecode.pipeline.session_size import SessionSize
    from acecode.pipeline.triage import Signals
    from acecode.transcript import TranscriptStats

    inactive = _inactive_reason()
    if inactive:
        report.finish(outcomes.SKIPPED, f"acecode is not active here: {inactive}")
        return
    transcript, dry_run = report.transcript, report.dry_run
    agent = session.agent or get_agent(DEFAULT_AGENT)
    report.agent = agent.name
    snapshot = load_playbook(target)
    user = _user_layer(target, report)
    report.entries_before = report.entries_after = entry_count(snapshot)
    state = paths.state_dir_for(target)
    # The session is streamed, never held: one pass counts it, measures the new part and
    # collects its citations; the reflector's condenser reads that part again from the file.
    skip = learned_count(state, transcript) if session.tracked and not relearn else 0
    stats = TranscriptStats()
    counted = _Counted(session.stream(stats))
    size, signals = SessionSize(), Signals(agent.tools)
    name = Path(transcript).name

    def reading(seconds: float) -> str:
        return (
            f"reading {name}, {wording.counted(counted.count, 'message')} so far, {seconds:.0f} s"
        )

    with while_waiting(reading):
        report.cited_ids = extract_cited_ids(
            signals.observe(size.observe(islice(counted, skip, None)))
        )
    report.messages = counted.count
    report.session_size = size.as_dict()
    if stats.bad_lines and not stats.records:
        raise LearnInputError(f"{transcript}: not a transcript (no line of it is a JSON record)")
    if not dry_run:
        _ensure_state_dir(target)
    if stats.bad_lines:
        report.warnings.append(
            f"skipped {wording.counted(stats.bad_lines, 'unreadable line')} in {transcript}"
        )
    report.messages_already_learned = min(skip, report.messages)
    messages = session.window(report.messages_already_learned, report.messages)
    _note_languages(report, messages, state, settings)
    if not messages:
        if report.messages:
            report.finish(outcomes.NOTHING_NEW, "no new messages since the last cycle")
        else:
            report.finish(outcomes.SKIPPED, "the transcript has no messages")
        return
    too_small = size.too_small(settings) if report.source not in outcomes.BY_HAND_SOURCES else None
    if too_small:
        report.finish(outcomes.SKIPPED, too_small)
        return
    report.signals = signals.as_dict()
    if triage and not signals.found:
        from acecode.cost.gate import record_triaged

        report.finish(outcomes.NOTHING_NEW, signals.nothing_to_learn(size))
        if not dry_run:
            _record_learned(state, session, report)
            record_triaged(report, settings)
        return
    if not _choose_provider(report):
        return
    # The roles see both layers as one playbook; their deltas are split by layer after.
    conflicts = stored_conflicts(target, snapshot)
    if user[0] is not None and user[1] is not None:
        conflicts += stored_conflicts(user[0], user[1])
    both = combine(snapshot, user[1])
    lists = curator_lists(target, snapshot, settings)
    pending = load_pending(paths.state_dir_for(target))
    allowance = curator_allowance(snapshot, pending, lists.pinned, settings.max_removal_ratio)
    lists = replace(lists, max_removals=allowance)
    if user[0] is not None:  # the user's pins are never offered to retire either
        lists = replace(lists, pinned=lists.pinned | pinned_in(user[0]))
    request = _reflector_request(messages, both, report, lists, settings, agent)
    if not admit_cycle(report, request, both, conflicts, lists):
        return
    deltas = await _reflect_and_curate(request, both, report, conflicts, lists, settings)
    if deltas is None:
        if report.learned and not dry_run:
            _record_learned(state, session, report)
        return
    tags, operations = deltas
    # The session read again for the entries' evidence, once, outside any lock.
    evidence = None if dry_run else EvidencePool.collect(messages)
    changed = False
    for layer in _plan_layers(report, target, snapshot, user, tags, operations):
        changed |= await _apply_layer(layer, settings, evidence)
        if layer.report is not report:
            if not dry_run:
                _record_outcome(layer.report, layer.target)
            report.attach_user_layer(layer.report)
    if changed:
        report.finish(outcomes.OK)
    else:
        report.finish(outcomes.NOTHING_NEW, "the LLM proposed no change that applies")
    if not dry_run:
        _record_learned(state, session, report)


@dataclass
class _LayerWork:
    """What one layer gets from the cycle: its report, file, snapshot and deltas."""

    report: CycleReport
    target: Path
    snapshot: dict[str, Any]
    tags: list[Any]
    operations: list[Any]


def _user_layer(target: Path, report: CycleReport) -> tuple[Path | None, dict[str, Any] | None]:
    """The user layer's file and snapshot; ``(None, None)`` when ``target`` is that layer,
    ``(file, None)`` with a warning when it cannot be read: the project still learns."""
    from acecode.layers import is_user_layer, user_playbook_file

    if is_user_layer(target):
        return None, None
    user = Path(user_playbook_file())
    try:
        return user, load_playbook(user)
    except PlaybookError as exc:
        report.warnings.append(f"{exc}; the user layer is left out of this cycle")
        return user, None


def _plan_layers(
    report: CycleReport,
    target: Path,
    snapshot: dict[str, Any],
    user: tuple[Path | None, dict[str, Any] | None],
    tags: list[Any],
    operations: list[Any],
) -> list[_LayerWork]:
    """Split the deltas by layer (:mod:`acecode.layers`). The project layer always runs
    (its tags, de-duplication and pruning); the user layer only when it got a delta,
    with its own report, which the project report carries as ``user_layer``."""
    from acecode.layers import route_operations, route_tags

    user_target, user_snapshot = user
    if user_target is None:
        return [_LayerWork(report, target, snapshot, tags, operations)]
    routed_tags, routed_ops = route_tags(tags), route_operations(operations)
    refused = routed_ops.refused
    if user_snapshot is None:
        refused += [(op, "the user layer could not be read") for op in routed_ops.user]
    report.dropped_by_review += [{"operation": op, "reason": why} for op, why in refused]
    plan = [_LayerWork(report, target, snapshot, routed_tags.project, routed_ops.project)]
    if user_snapshot is not None and (routed_tags.user or routed_ops.user):
        child = CycleReport(
            cycle_id=report.cycle_id,
            source=report.source,
            transcript=report.transcript,
            playbook=str(user_target),
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
        user_work = _LayerWork(child, user_target, user_snapshot, routed_tags.user, routed_ops.user)
        plan.append(user_work)
    return plan


async def _apply_layer(layer: _LayerWork, settings: Settings, evidence: Any) -> bool:
    """Screen, judge and apply one layer's deltas under that layer's lock, journal and
    report them there (with the entries' provenance from ``evidence``, None in a dry
    run); True when the layer changed (or held a text for review).

    The same steps for both layers: the project report is the cycle's, the user
    layer's is folded into it at the end (:meth:`CycleReport.attach_user_layer`).
    """
    from acecode.consolidation.report import journal_meta
    from acecode.layers import name_prefix_for
    from acecode.pipeline.dedup_step import SemanticTools
    from acecode.pipeline.deferred_step import PendingRemovals, save_pending
    from acecode.pipeline.judge_step import judge_step
    from acecode.pipeline.provenance_step import cycle_provenance

    report, target, snapshot, tags = layer.report, layer.target, layer.snapshot, layer.tags
    prefix = name_prefix_for(target)
    operations = await _screen(layer.operations, snapshot, report, settings)
    semantic = SemanticTools.load(target, persist=not report.dry_run)
    semantic.prewarm(snapshot, operations)
    await judge_step(semantic, snapshot, operations, report, settings)

    if report.dry_run:
        pending = PendingRemovals.beside(target, report)
        result = _curate(snapshot, tags, operations, report, settings, semantic, prefix, pending)
        report.entries_after = entry_count(result)
        changed = result["sections"] != snapshot["sections"] or bool(report.held_for_review)
    else:
        state = _ensure_state_dir(target)
        with update_playbook(target, lock_timeout=settings.lock_timeout) as txn:
            # Read and written under the playbook's lock: no two cycles carry one removal.
            pending = PendingRemovals.beside(target, report)
            report.entries_before = entry_count(txn.playbook)
            txn.playbook = _curate(
                txn.playbook, tags, operations, report, settings, semantic, prefix, pending
            )
            save_pending(state, report)
            report.entries_after = entry_count(txn.playbook)
            txn.meta.update(journal_meta(report.curation))
            txn.meta["provenance"] = cycle_provenance(report, evidence)
        report.saved = txn.saved
        changed = report.saved or bool(report.held_for_review)
    if changed:
        report.finish(outcomes.OK)
    else:
        report.finish(outcomes.NOTHING_NEW, "the LLM proposed no change that applies")
    if not report.dry_run:
        _write_curation_report(report, target, settings)
    return changed


def _write_curation_report(report: CycleReport, target: Path, settings: Settings) -> None:
    """The curation report beside ``target``, under its lock; a failure is only a warning."""
    from acecode.store.lock import playbook_lock
    from acecode.store.reports import write_report

    if report.curation is None:
        return
    report.curation.update(
        status=report.status,
        reason=report.reason,
        curator_view=report.curator_view,
        provider={
            "name": report.provider,
            "model": report.model,
            "selected_because": report.provider_reason,
            "endpoint": report.provider_endpoint,
        },
    )
    try:
        with playbook_lock(target, settings.lock_timeout):
            report.report_file = str(write_report(target, report.curation))
    except PlaybookError as exc:
        warn(f"could not write the curation report: {exc}")


def _learning_lately() -> bool:
    """True when the user's ledger shows a cycle within the last hour (any project):
    sessions are ending in a burst, so the one-hour prompt cache pays."""
    from acecode.cost.ledger import Ledger, LedgerError, recent_cycle

    try:
        return recent_cycle(Ledger().records())
    except LedgerError:
        return False


def _inactive_reason() -> str:
    """Why acecode must not learn in this project now (``acecode off``, ``opt_in``,
    ``ACECODE_SKIP``), or ``""``. The learner's own ``ACECODE_HOOKS_DISABLED`` (set by
    the hook that started it) is not a reason: it only keeps nested runs quiet."""
    import os

    from acecode.control import activity
    from acecode.session_switch import NESTED_ENV

    env = {name: value for name, value in os.environ.items() if name != NESTED_ENV}
    state = activity(paths.project_dir(), env)
    return "" if state.active else state.reason


def _choose_provider(report: CycleReport) -> bool:
    """Record which provider the cycle will use and why; False (status failed) when none."""
    from acecode.llm import ProviderConfigError, current_choice

    try:
        choice = current_choice()
    except ProviderConfigError as exc:
        first = str(exc).splitlines()[0].removesuffix(" Choose one:").rstrip(".")
        report.finish(outcomes.FAILED, f"{first}; run `acecode doctor` to see how to set one")
        return False
    report.provider, report.model, report.provider_reason = (
        choice.provider,
        choice.model,
        choice.reason,
    )
    report.provider_endpoint = choice.endpoint
    return True


def _note_languages(
    report: CycleReport, messages: list[dict[str, Any]], state: Path, settings: Settings
) -> None:
    """The languages of this session's requests, and the ones a rule may be in unreviewed."""
    from acecode.quarantine.user_languages import request_languages, trusted_languages

    report.request_languages = dict(request_languages(messages))
    report.languages = list(trusted_languages(settings, state, report.request_languages))


def _record_learned(state: Path, session: SessionSource, report: CycleReport) -> None:
    """Mark the transcript's messages as learned, so later cycles reflect on new ones only
    (a message list has no identity to remember it by), and keep the languages its
    requests were written in (:mod:`acecode.quarantine.user_languages`)."""
    from acecode.quarantine.user_languages import record_request_languages

    record_request_languages(state, report.request_languages, timeout=10.0)
    if not session.tracked:
        return
    try:
        record_learned(state, report.transcript, report.messages, report.cycle_id)
    except PlaybookError as exc:
        warn(f"{exc}; this session may be learned from again")


def _record_outcome(report: CycleReport, target: Path) -> None:
    """One line in learn.log and one record in cycles.jsonl; best effort."""
    state = paths.state_dir_for(target)
    record = report.outcome()
    provider = outcomes.describe_provider(record)
    outcomes.append_log(state, report.summary() + (f" | {provider}" if provider else ""))
    try:
        outcomes.record_outcome(state, record)
    except OSError as exc:
        warn(f"could not record the cycle's status in {state}: {exc.strerror or exc}")


class _Counted:
    """An iterator that counts what passes through it."""

    def __init__(self, items: Iterator[dict[str, Any]]) -> None:
        self.items = items
        self.count = 0

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for item in self.items:
            self.count += 1
            yield item


def run_cycle_sync(transcript: str | Path, **kwargs: Any) -> CycleReport:
    """``run_cycle`` for synchronous callers (CLI, background learner)."""
    return asyncio.run(run_cycle(transcript, **kwargs))
